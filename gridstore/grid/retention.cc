// Copyright 2026 The GridStore Authors.
#include "gridstore/grid/retention.h"

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>

#include "gridstore/catalog/internal/query_syntax.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/model/cf_time.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::grid {
namespace {

constexpr double kMaxDurationMs = 10'000.0 * 365.25 * 86'400'000.0;

// Milliseconds since the epoch as ISO 8601 ("2026-11-20T00:00:00Z").
std::string IsoOfMs(int64_t ms) {
  static const TimeUnits kSeconds = *TimeUnits::Parse("seconds since 1970-01-01", "standard");
  auto iso = kSeconds.ToIso(static_cast<double>(ms) / 1000.0);
  return iso.ok() ? *iso : std::to_string(ms) + " ms";
}

// "7d", "36h", "90min", "1500ms": the largest unit that divides the duration.
std::string DurationText(int64_t ms) {
  for (auto [unit, size] : {std::pair{"w", 604'800'000},
                            {"d", 86'400'000},
                            {"h", 3'600'000},
                            {"min", 60'000},
                            {"s", 1'000}}) {
    if (ms != 0 && ms % size == 0) return std::to_string(ms / size) + unit;
  }
  return std::to_string(ms) + "ms";
}

// A whole number of milliseconds from an attribute number; nullopt if not finite or absurd.
std::optional<int64_t> Millis(double value) {
  if (!std::isfinite(value) || std::fabs(value) > kMaxDurationMs * 2) return std::nullopt;
  return static_cast<int64_t>(std::llround(value));
}

std::optional<int64_t> CreateTime(const DataSetMeta& meta) {
  auto it = meta.attributes.find(kCreateTimeAttribute);
  if (it == meta.attributes.end() || !it->second.is_number() || it->second.size() != 1) {
    return std::nullopt;
  }
  return Millis(it->second.AsDouble());
}

// When `meta` expires under `policy` (nullopt: never), with the rule that says so; an error
// naming the attribute if `expires` or `ttl` cannot be read.
struct Expiry {
  std::optional<int64_t> at;
  std::string rule;
};

Result<Expiry> ExpiryOf(const DataSetMeta& meta, const RetentionPolicy& policy) {
  const std::optional<int64_t> created = CreateTime(meta);
  if (auto it = meta.attributes.find(kExpiresAttribute); it != meta.attributes.end()) {
    const AttributeValue& v = it->second;
    std::optional<int64_t> at;
    if (v.is_number() && v.size() == 1) {
      at = Millis(v.AsDouble());
    } else if (v.is_string()) {
      static const TimeUnits kSeconds = *TimeUnits::Parse("seconds since 1970-01-01", "standard");
      auto seconds = kSeconds.FromIso(Trim(v.string_value()));
      if (seconds.ok()) at = Millis(*seconds * 1000.0);
    }
    if (!at) {
      return Status::InvalidArgument("attribute 'expires' = " + Quote(v.ToString()) +
                                     " is neither ms since the epoch nor an ISO 8601 time");
    }
    return Expiry{at, "expires " + IsoOfMs(*at)};
  }
  if (auto it = meta.attributes.find(kTtlAttribute); it != meta.attributes.end()) {
    const AttributeValue& v = it->second;
    std::optional<int64_t> ttl;
    if (v.is_number() && v.size() == 1 && v.AsDouble() >= 0) {
      ttl = Millis(v.AsDouble() * 1000.0);
    } else if (v.is_string()) {
      auto parsed = ParseDurationMs(v.string_value(), "attribute 'ttl'");
      if (!parsed.ok()) return parsed.status();
      ttl = *parsed;
    }
    if (!ttl) {
      return Status::InvalidArgument("attribute 'ttl' = " + Quote(v.ToString()) +
                                     " is neither seconds nor a duration such as 7d");
    }
    if (!created) return Status::InvalidArgument("it has a 'ttl' but no 'create_time'");
    return Expiry{*created + *ttl, "ttl " + DurationText(*ttl)};
  }
  if (policy.older_than_ms) {
    if (!created) return Status::InvalidArgument("it has no 'create_time' to age from");
    return Expiry{*created + *policy.older_than_ms,
                  "older than " + DurationText(*policy.older_than_ms)};
  }
  return Expiry{};
}

int64_t NowMs(const RetentionPolicy& policy) {
  if (policy.now_ms != 0) return policy.now_ms;
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

Result<int64_t> ParseDurationMs(std::string_view text, std::string_view what) {
  const std::string_view all = Trim(text);
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(std::string(what) + ": " + Quote(text) + " " + why +
                                   " (a duration such as 7d, 36h, 1d12h or 90min)");
  };
  if (all.empty()) return bad("is empty");
  double total = 0;
  size_t i = 0;
  while (i < all.size()) {
    while (i < all.size() && all[i] == ' ') ++i;
    const size_t num_begin = i;
    while (i < all.size() && (std::isdigit(static_cast<unsigned char>(all[i])) || all[i] == '.')) {
      ++i;
    }
    if (i == num_begin) return bad("needs a number before each unit");
    const std::string number(all.substr(num_begin, i - num_begin));
    char* end = nullptr;
    const double value = std::strtod(number.c_str(), &end);
    if (end != number.c_str() + number.size()) return bad("has a bad number " + Quote(number));
    while (i < all.size() && all[i] == ' ') ++i;
    const size_t unit_begin = i;
    while (i < all.size() && std::isalpha(static_cast<unsigned char>(all[i]))) ++i;
    const std::string_view unit = all.substr(unit_begin, i - unit_begin);
    if (unit.empty()) {
      if (num_begin != 0 || i != all.size()) return bad("needs a unit after each number");
      total = value * 1000.0;  // a bare number: seconds
      break;
    }
    const int64_t unit_ms = internal_grid::UnitMillis(unit);
    if (unit_ms == 0) return bad("has an unknown unit " + Quote(unit));
    total += value * static_cast<double>(unit_ms);
  }
  if (!std::isfinite(total) || total > kMaxDurationMs) return bad("is too long");
  return static_cast<int64_t>(std::llround(total));
}

Result<RetentionReport> ApplyRetention(GridStore& store, const RetentionPolicy& policy) {
  const int64_t now = NowMs(policy);
  QueryParams params;
  params.limit = -1;
  GRIDSTORE_ASSIGN_OR_RETURN(QueryResult selected, store.QueryDataSets(policy.where, params));
  RetentionReport report;
  report.examined = static_cast<int64_t>(selected.metas.size());
  for (const DataSetMeta& meta : selected.metas) {
    if (meta.variables.empty()) {  // `meta put`: an entry of the catalog, not a dataset
      report.skipped.push_back({meta.id,
                                "a catalog entry without data (`meta put`), not a "
                                "dataset: delete it with `gridstore delete` if it is "
                                "no longer wanted"});
      continue;
    }
    if (meta.status() != kStatusDone) {
      report.skipped.push_back({meta.id, "status " + Quote(meta.status()) +
                                             ": not complete (an import running, or one that "
                                             "died): delete it with `gridstore delete`"});
      continue;
    }
    auto expiry = ExpiryOf(meta, policy);
    if (!expiry.ok()) {
      report.skipped.push_back({meta.id, std::string(expiry.status().message())});
      continue;
    }
    if (!expiry->at || *expiry->at > now) continue;
    RetentionReport::Expired e;
    e.id = meta.id;
    e.create_time_ms = CreateTime(meta).value_or(-1);
    e.expires_ms = *expiry->at;
    e.rule = expiry->rule;
    auto bytes = store.ApproximateDataSetSize(meta.id);
    e.bytes = bytes.ok() ? *bytes : 0;
    if (!policy.dry_run) {
      // Deleted and imported again since the query (a new incarnation): that one is new.
      auto current = store.GetDataSetMeta(meta.id);
      if (current.status().IsNotFound()) continue;  // someone else deleted it
      GRIDSTORE_RETURN_IF_ERROR(current.status());
      if (current->incarnation != meta.incarnation || current->generation != meta.generation) {
        report.skipped.push_back(
            {meta.id, "it changed while retention ran: left for the next run"});
        continue;
      }
      const Status deleted = store.DeleteDataSet(meta.id);
      if (!deleted.ok() && !deleted.IsNotFound()) {
        return deleted.WithContext("retention: deleting " + Quote(meta.id));
      }
      e.deleted = deleted.ok();
    }
    report.expired.push_back(std::move(e));
  }
  if (!policy.dry_run) GRIDSTORE_RETURN_IF_ERROR(store.Flush());
  return report;
}

}  // namespace gridstore::grid
