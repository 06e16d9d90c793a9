// Copyright 2026 The GridStore Authors.
#include "gridstore/forecast/ensemble_stats.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "gridstore/util/internal/strings.h"

namespace gridstore::forecast {
namespace {

bool ParseNumber(std::string_view text, double* value) {
  if (text.empty()) return false;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  return ec == std::errc() && ptr == end && std::isfinite(*value);
}

Result<Statistic> ParseOne(std::string_view item) {
  Statistic s;
  s.name = std::string(item);
  using Kind = Statistic::Kind;
  if (item == "mean") return Statistic{Kind::kMean, 0, s.name};
  if (item == "spread" || item == "std") return Statistic{Kind::kSpread, 0, s.name};
  if (item == "min") return Statistic{Kind::kMin, 0, s.name};
  if (item == "max") return Statistic{Kind::kMax, 0, s.name};
  if (item == "median") return Statistic{Kind::kPercentile, 50, s.name};
  if (item.size() > 1 && item[0] == 'p' && item.substr(0, 4) != "prob") {
    double p = 0;
    if (!ParseNumber(item.substr(1), &p) || p < 0 || p > 100) {
      return Status::InvalidArgument("statistic " + Quote(item) +
                                     ": a percentile is p0 to p100 (e.g. p10, p50, p97.5)");
    }
    return Statistic{Kind::kPercentile, p, s.name};
  }
  if (item.substr(0, 4) == "prob") {
    std::string_view rest = item.substr(4);
    Kind kind;
    // ">=" and ">" are the same on members' values but for equality: keep both honest.
    bool or_equal = rest.size() > 1 && rest[1] == '=';
    if (!rest.empty() && rest[0] == '>') {
      kind = Kind::kProbAbove;
    } else if (!rest.empty() && rest[0] == '<') {
      kind = Kind::kProbBelow;
    } else {
      return Status::InvalidArgument("statistic " + Quote(item) +
                                     ": a probability is prob>X or prob<X (e.g. prob>273.15)");
    }
    double x = 0;
    if (!ParseNumber(rest.substr(or_equal ? 2 : 1), &x)) {
      return Status::InvalidArgument("statistic " + Quote(item) +
                                     ": the threshold is not a number (e.g. prob<273.15)");
    }
    // prob>=X is stored as prob>X' with X' the next double below X, so one comparison serves.
    if (or_equal) x = std::nextafter(x, kind == Kind::kProbAbove ? -INFINITY : INFINITY);
    return Statistic{kind, x, s.name};
  }
  return Status::InvalidArgument("unknown statistic " + Quote(item) +
                                 " (mean, spread, min, max, median, pNN, prob>X, prob<X)");
}

}  // namespace

Result<std::vector<Statistic>> ParseStatistics(std::string_view text) {
  std::vector<Statistic> out;
  std::set<std::string> seen;
  for (const std::string& raw : SplitList(text, ',')) {
    const std::string_view item = Trim(raw);
    if (item.empty()) return Status::InvalidArgument("an empty statistic in " + Quote(text));
    GRIDSTORE_ASSIGN_OR_RETURN(Statistic s, ParseOne(item));
    if (!seen.insert(s.name).second) {
      return Status::InvalidArgument("statistic " + Quote(item) + " is asked twice");
    }
    out.push_back(std::move(s));
  }
  if (out.empty()) return Status::InvalidArgument("no statistic named");
  return out;
}

std::vector<std::vector<double>> ComputeStatistics(
    std::span<const Statistic> statistics, std::span<const std::vector<double>* const> members) {
  const size_t n = members.empty() ? 0 : members[0]->size();
  const size_t m = members.size();
  std::vector<std::vector<double>> out(statistics.size(), std::vector<double>(n, NAN));
  bool need_sort = false;
  for (const Statistic& s : statistics) {
    need_sort |= s.kind == Statistic::Kind::kPercentile;
  }
  std::vector<double> v(m);
  for (size_t i = 0; i < n; ++i) {
    bool missing = false;
    double sum = 0, lo = INFINITY, hi = -INFINITY;
    for (size_t k = 0; k < m; ++k) {
      v[k] = (*members[k])[i];
      missing |= std::isnan(v[k]);
      sum += v[k];
      lo = std::min(lo, v[k]);
      hi = std::max(hi, v[k]);
    }
    if (missing) continue;
    const double mean = sum / double(m);
    if (need_sort) std::sort(v.begin(), v.end());
    for (size_t s = 0; s < statistics.size(); ++s) {
      const Statistic& st = statistics[s];
      double r = NAN;
      switch (st.kind) {
        case Statistic::Kind::kMean:
          r = mean;
          break;
        case Statistic::Kind::kSpread: {
          double ss = 0;
          for (size_t k = 0; k < m; ++k)
            ss += ((*members[k])[i] - mean) * ((*members[k])[i] - mean);
          r = std::sqrt(ss / double(m));
          break;
        }
        case Statistic::Kind::kMin:
          r = lo;
          break;
        case Statistic::Kind::kMax:
          r = hi;
          break;
        case Statistic::Kind::kPercentile: {
          // numpy's "linear": the (m - 1) * p / 100-th order statistic, interpolated.
          const double pos = double(m - 1) * st.value / 100.0;
          const size_t below = static_cast<size_t>(std::floor(pos));
          const size_t above = std::min(below + 1, m - 1);
          const double frac = pos - double(below);
          r = v[below] + (v[above] - v[below]) * frac;
          break;
        }
        case Statistic::Kind::kProbAbove:
        case Statistic::Kind::kProbBelow: {
          size_t count = 0;
          for (size_t k = 0; k < m; ++k) {
            const double x = (*members[k])[i];
            count += st.kind == Statistic::Kind::kProbAbove ? x > st.value : x < st.value;
          }
          r = double(count) / double(m);
          break;
        }
      }
      out[s][i] = r;
    }
  }
  return out;
}

}  // namespace gridstore::forecast
