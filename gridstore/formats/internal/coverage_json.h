// Copyright 2026 The GridStore Authors.
//
// The parts of CoverageJSON that every writer of extractions shares (extraction_formats.cc for
// one dataset, collection_formats.cc for a forecast collection's slices): the parameters of an
// extraction, its coverages (one per point, path time or area level, as WriteCoverageJson
// describes), the reference systems of their axes, and the emitting of a document whose large
// value arrays are spliced in as text (RawArrays). Not thread-safe per object; no state shared.
#ifndef GRIDSTORE_FORMATS_INTERNAL_COVERAGE_JSON_H_
#define GRIDSTORE_FORMATS_INTERNAL_COVERAGE_JSON_H_

#include <deque>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "gridstore/formats/extraction_formats.h"
#include "gridstore/formats/internal/coverage_json_stream.h"
#include "gridstore/geo/extract.h"
#include "gridstore/util/status.h"

namespace gridstore::internal_formats {

using covjson = nlohmann::ordered_json;  // members in the order written: "type" first

// A 200x200 box holds 40,000 numbers, and building them as json nodes costs several times the
// extraction itself. So every range's values go into the document as a placeholder string, and
// Splice writes their text in (AppendRangeValue: a float32 variable's values as the shortest text
// that reads back the same float). The placeholders carry a per-process random nonce, so that no
// attribute text can collide, and their index, so that they may appear in any order.
class RawArrays {
 public:
  // `values` must outlive the RawArrays.
  covjson Add(const std::vector<double>* values, bool as_float);
  covjson Add(std::vector<double> values, bool as_float);  // kept here
  // `text` (a dump of a document built with Add) with each placeholder replaced.
  std::string Splice(const std::string& text) const;

 private:
  struct Array {
    const std::vector<double>* values;
    bool as_float;
  };
  static const std::string& Prefix();
  std::vector<Array> arrays_;
  std::deque<std::vector<double>> owned_;  // a deque: what arrays_ points to never moves
};

// A time of the extraction's time axis: ISO 8601 for CF time (from `labels`, made of
// r.time_axis once for all the times an answer writes), else the axis's number.
covjson TimeValue(const grid::Extraction& r, TimeLabels& labels, int64_t index);
covjson TimeValues(const grid::Extraction& r, const std::vector<int64_t>& indices);
covjson LevelValues(const grid::Extraction& r, const std::vector<int64_t>& indices);

// The domain's name of the time axis: "t" for CF time, else the axis's own name (made unlike
// x, y, z, t and composite).
std::string TimeKey(const grid::Extraction& r);
// The domain's "referencing": CRS84 for x and y, the calendar of t (or what the time-like axis
// is), the vertical reference system of z.
covjson Referencing(const grid::Extraction& r);

// The CoverageJSON parameters of the extraction's variables: units, long names, CF standard
// names as observed properties.
covjson CoverageParameters(const grid::Extraction& r);

// The coverages of an extraction, before they are wrapped as one or a collection: a Grid for an
// area of a rectilinear grid (values through `raw`), MultiPoint(Series) per level for another
// area, a Trajectory or Section per time for a path, and per point a PointSeries,
// VerticalProfile or Point (one per time if it has both many times and many levels).
std::vector<covjson> ExtractionCoverages(const grid::Extraction& r, RawArrays* raw);

// Writes `doc` (compact or indented), with `raw`'s arrays spliced in if given. Unavailable if the
// stream fails.
Status EmitJson(const covjson& doc, std::ostream& out,
                formats::JsonLayout layout = formats::JsonLayout::kIndented,
                const RawArrays* raw = nullptr);

}  // namespace gridstore::internal_formats

#endif  // GRIDSTORE_FORMATS_INTERNAL_COVERAGE_JSON_H_
