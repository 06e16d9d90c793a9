// Copyright 2026 The GridStore Authors.
//
// CoverageJSON of a point's coverage (PointSeries, VerticalProfile, Point) written as text
// straight from the extraction, without a JSON tree. The service answers point series by the
// thousand per second, and building and freeing an nlohmann::json node per number and time (and
// formatting every ISO time again) was about half its CPU (issue 33, part 6). The text is the
// same, byte for byte, as the compact dump of the tree that WriteCoverageJson builds (coordinates
// by nlohmann's own shortest-double formatting, range values as RawArrays splices them in,
// strings escaped as its serializer does); the tests compare the two on real datasets. The small
// parts (parameters, reference systems) are still built as trees and dumped.
#ifndef GRIDSTORE_FORMATS_INTERNAL_COVERAGE_JSON_STREAM_H_
#define GRIDSTORE_FORMATS_INTERNAL_COVERAGE_JSON_STREAM_H_

#include <optional>
#include <string>
#include <string_view>

#include "gridstore/geo/extract.h"
#include "gridstore/model/cf_time.h"

namespace gridstore::internal_formats {

// Appends the compact CoverageJSON document of `r` (with its trailing newline) to `out` and
// returns true if `r` is one point's one coverage; returns false, leaving `out` as it was,
// for anything else (several points, many times and many levels, paths, areas).
bool AppendPointCoverageJson(const grid::Extraction& r, std::string* out);

// Appends `v` as nlohmann's serializer writes a double: null if not finite, else the shortest
// text that reads back the same ("200.0" for a whole number).
void AppendJsonNumber(double v, std::string* out);

// Appends one value of a range: null if not finite. For a float32 variable (`as_float`) holding
// a float, the shortest text that reads back the same float ("282.30316", not its double's
// "282.30316162109375": digits the stored value never had, and twice the bytes of a long series);
// else the shortest that reads back the same double. std::to_chars's forms ("200", not "200.0").
void AppendRangeValue(double v, bool as_float, std::string* out);

// Appends `s` as a JSON string, escaped as nlohmann's serializer escapes it (ensure_ascii off,
// invalid UTF-8 replaced).
void AppendJsonString(std::string_view s, std::string* out);

struct LabelledAxis;

// The labels of one axis's positions (AxisCoordinate::Label) for one answer, from a per-thread
// cache of the labels of the time axes last asked (keyed by the axis's units, calendar and
// values, compared once here, so a changed axis is never answered from it): formatting ISO times
// is a third of a small answer. Axes too long to keep are formatted afresh without allocating.
class TimeLabels {
 public:
  explicit TimeLabels(const grid::AxisCoordinate& axis);  // `axis` outlives this
  ~TimeLabels();
  TimeLabels(const TimeLabels&) = delete;
  TimeLabels& operator=(const TimeLabels&) = delete;

  // Valid until the next Get.
  std::string_view Get(int64_t index);

 private:
  const grid::AxisCoordinate& axis_;
  LabelledAxis* cached_ = nullptr;  // null: not kept (too long, not time, or another alive)
  std::optional<grid::TimeUnits::IsoWriter> writer_;  // for a CF time axis not kept
  char buffer_[grid::kMaxIsoTimeLength];
  std::string scratch_;
};

}  // namespace gridstore::internal_formats

#endif  // GRIDSTORE_FORMATS_INTERNAL_COVERAGE_JSON_STREAM_H_
