// Copyright 2026 The GridStore Authors.
#include "gridstore/formats/internal/coverage_json_stream.h"

#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "gridstore/formats/internal/coverage_json.h"

namespace gridstore::internal_formats {

struct LabelledAxis {
  std::string units;
  grid::Calendar calendar = grid::Calendar::kStandard;
  std::vector<double> values;
  std::vector<std::string> labels;  // "" until asked (an ISO time is never empty)
};

namespace {

using grid::Extraction;

// Axes longer than this are labelled afresh each time: a cache of 350,640 ISO times per thread
// would cost more memory than formatting the few answers that ask for them. At most
// kCachedAxes x 16,384 labels (about 1 MiB an axis) per thread.
constexpr size_t kMaxCachedSteps = 16384;
constexpr size_t kCachedAxes = 4;  // per thread

bool SameAxis(const LabelledAxis& a, const grid::AxisCoordinate& axis) {
  const std::vector<double>& v = axis.values();
  return a.values.size() == v.size() && a.units == axis.units() &&
         a.calendar == axis.time_units()->calendar() &&
         (v.empty() || std::memcmp(a.values.data(), v.data(), v.size() * sizeof(double)) == 0);
}

void AppendDump(const covjson& j, std::string* out) {
  *out += j.dump(-1, ' ', false, covjson::error_handler_t::replace);
}

// What Referencing and CoverageParameters read from `r`, as one key: the same key, the same text.
std::string DescriptionKey(const Extraction& r) {
  std::string key;
  const auto add = [&key](std::string_view part) {
    key += std::to_string(part.size());  // length-prefixed: no two keys run together alike
    key += ':';
    key += part;
  };
  const grid::TimeUnits* units = r.time_axis.time_units();
  add(units ? grid::CalendarName(units->calendar()) : "-");
  add(r.time_axis.name());
  add(r.time_axis.units());
  add(r.level_axis.name());
  add(r.level_axis.units());
  for (const Extraction::Variable& v : r.variables) {
    add(v.meta.name);
    for (const char* name : {"long_name", "standard_name", "units"}) {
      add(grid::StringAttribute(v.meta.attributes, name));
    }
  }
  return key;
}

// The domain's referencing and the parameters, as text: `,"referencing":[...]}` closing the
// domain, then `,"parameters":{...}`. Kept per thread for the descriptions last asked (a
// handful of datasets answer most requests); they are a third of a point's answer to build.
const std::string& DescriptionText(const Extraction& r) {
  constexpr size_t kMaxEntries = 64;
  thread_local std::unordered_map<std::string, std::string> cache;
  std::string key = DescriptionKey(r);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  if (cache.size() >= kMaxEntries) cache.clear();
  std::string text = R"(,"referencing":)";
  AppendDump(Referencing(r), &text);
  text += R"(},"parameters":)";
  AppendDump(CoverageParameters(r), &text);
  return cache.emplace(std::move(key), std::move(text)).first->second;
}

}  // namespace

void AppendJsonNumber(double v, std::string* out) {
  if (!std::isfinite(v)) {
    *out += "null";
    return;
  }
  char buf[64];
  const char* end = nlohmann::detail::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, size_t(end - buf));
}

void AppendRangeValue(double v, bool as_float, std::string* out) {
  if (!std::isfinite(v)) {
    *out += "null";
    return;
  }
  char buf[32];
  // (A double beyond float's range is no float, and converting it would be undefined.)
  const std::to_chars_result end =
      as_float && std::fabs(v) <= std::numeric_limits<float>::max() &&
              static_cast<double>(static_cast<float>(v)) == v
          ? std::to_chars(buf, buf + sizeof(buf), static_cast<float>(v))
          : std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, end.ptr);
}

void AppendJsonString(std::string_view s, std::string* out) {
  // Printable ASCII without quote or backslash is written as it is; anything else as nlohmann
  // escapes it (control characters, UTF-8 checks and replacement).
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f || c == '"' || c == '\\') {
      AppendDump(covjson(std::string(s)), out);
      return;
    }
  }
  *out += '"';
  out->append(s);
  *out += '"';
}

namespace {

// The thread's cached axes (never reallocated: a TimeLabels points into it) and how many
// TimeLabels are alive on the thread (only the first uses the cache, so that no entry it points
// to is replaced under it).
struct LabelCache {
  LabelCache() { axes.reserve(kCachedAxes); }
  std::vector<LabelledAxis> axes;
  size_t next = 0;  // the entry replaced next
  int alive = 0;
};

LabelCache& ThreadLabelCache() {
  thread_local LabelCache cache;
  return cache;
}

}  // namespace

TimeLabels::TimeLabels(const grid::AxisCoordinate& axis) : axis_(axis) {
  if (axis.time_units() != nullptr) writer_.emplace(*axis.time_units());
  LabelCache& cache = ThreadLabelCache();
  if (cache.alive++ > 0 || !axis.is_time() || axis.values().size() > kMaxCachedSteps) return;
  for (LabelledAxis& a : cache.axes) {
    if (SameAxis(a, axis)) cached_ = &a;
  }
  if (cached_ != nullptr) return;
  if (cache.axes.size() < kCachedAxes) {
    cached_ = &cache.axes.emplace_back();
  } else {
    cached_ = &cache.axes[cache.next];
    cache.next = (cache.next + 1) % kCachedAxes;
  }
  cached_->units = axis.units();
  cached_->calendar = axis.time_units()->calendar();
  cached_->values = axis.values();
  cached_->labels.assign(axis.values().size(), std::string());
}

TimeLabels::~TimeLabels() { --ThreadLabelCache().alive; }

std::string_view TimeLabels::Get(int64_t index) {
  if (cached_ != nullptr) {
    std::string& label = cached_->labels[size_t(index)];
    if (label.empty()) label = axis_.Label(index);
    return label;
  }
  // Formatted into the buffer, no allocation (a 40-year hourly series has 350,640 labels).
  const size_t n = writer_ ? writer_->Write(axis_.values()[size_t(index)], buffer_) : 0;
  if (n > 0) return std::string_view(buffer_, n);
  scratch_ = axis_.Label(index);
  return scratch_;
}

bool AppendPointCoverageJson(const Extraction& r, std::string* out) {
  const grid::ExtractPlan& plan = r.plan;
  const size_t nt = plan.num_times(), nz = plan.num_levels();
  if (plan.kind != grid::FeatureKind::kPosition || plan.points.size() != 1 || (nt > 1 && nz > 1)) {
    return false;
  }
  // As PointCoverage and WriteCoverageJson in coverage_json.cc and extraction_formats.cc build it.
  const bool series = nt > 1, profile = nz > 1;
  const bool has_t = !r.time_axis.name().empty(), has_z = !r.level_axis.name().empty();
  const std::string time_key = TimeKey(r);
  const grid::LonLat& at = plan.points[0].requested;
  out->reserve(out->size() + 512 + 24 * nt * nz * (1 + r.variables.size()));
  *out += R"({"type":"Coverage","domain":{"type":"Domain","domainType":)";
  *out += series ? R"("PointSeries")" : profile ? R"("VerticalProfile")" : R"("Point")";
  *out += R"(,"axes":{"x":{"values":[)";
  AppendJsonNumber(at.lon, out);
  *out += R"(]},"y":{"values":[)";
  AppendJsonNumber(at.lat, out);
  *out += "]}";
  if (has_t) {
    *out += ',';
    AppendJsonString(time_key, out);
    *out += R"(:{"values":[)";
    TimeLabels labels(r.time_axis);
    for (size_t i = 0; i < nt; ++i) {
      if (i > 0) *out += ',';
      const int64_t t = plan.TimeOf(0, i);
      if (r.time_axis.is_time()) {
        AppendJsonString(labels.Get(t), out);
      } else {
        AppendJsonNumber(r.time_axis.values()[size_t(t)], out);
      }
    }
    *out += "]}";
  }
  if (has_z) {
    *out += R"(,"z":{"values":[)";
    for (size_t j = 0; j < nz; ++j) {
      if (j > 0) *out += ',';
      AppendJsonNumber(r.level_axis.values()[size_t(plan.LevelOf(0, j))], out);
    }
    *out += "]}";
  }
  *out += '}';
  *out += DescriptionText(r);
  *out += R"(,"ranges":{)";
  for (size_t k = 0; k < r.variables.size(); ++k) {
    const Extraction::Variable& v = r.variables[k];
    if (k > 0) *out += ',';
    AppendJsonString(v.meta.name, out);
    *out += R"(:{"type":"NdArray","dataType":"float","values":[)";
    // [point][time][level] with one point and one of the two axes of length 1.
    const bool as_float = v.meta.type == grid::DataType::kFloat32;
    for (size_t n = 0; n < nt * nz; ++n) {
      if (n > 0) *out += ',';
      AppendRangeValue(v.values[n], as_float, out);
    }
    *out += ']';
    if (series || profile) {
      *out += R"(,"axisNames":[)";
      AppendJsonString(series ? std::string_view(time_key) : std::string_view("z"), out);
      *out += R"(],"shape":[)";
      *out += std::to_string(series ? nt : nz);
      *out += ']';
    }
    *out += '}';
  }
  *out += "}}\n";
  return true;
}

}  // namespace gridstore::internal_formats
