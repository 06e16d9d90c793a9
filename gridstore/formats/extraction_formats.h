// Copyright 2026 The GridStore Authors.
//
// Extraction results (geo/extract.h) as CoverageJSON (what OGC API-EDR returns), CSV and JSON:
// the writers the command, the HTTP service and the Python package share. (netCDF output is in
// importers/, the only code that includes netCDF-C.)
#ifndef GRIDSTORE_FORMATS_EXTRACTION_FORMATS_H_
#define GRIDSTORE_FORMATS_EXTRACTION_FORMATS_H_

#include <ostream>
#include <span>
#include <string>

#include "gridstore/geo/extract.h"
#include "gridstore/util/status.h"

namespace gridstore::formats {

// kIndented for people reading a file; kCompact for the wire (a third of the bytes).
enum class JsonLayout { kIndented, kCompact };

// CoverageJSON: one point and one time or level axis is a PointSeries, VerticalProfile or Point
// coverage; several points, or both many times and many levels, a CoverageCollection of them; a
// bbox on a rectilinear grid a Grid coverage with cells outside the box null. Parameters carry
// units, long names and CF standard names; times are ISO 8601.
Status WriteCoverageJson(const grid::Extraction& result, std::ostream& out,
                         JsonLayout layout = JsonLayout::kIndented);
// One row per point (or cell) and time and level: time,level,lat,lon,<variables>.
Status WriteExtractionCsv(const grid::Extraction& result, std::ostream& out);
// {"points": [{"lon", "lat", "grid_lon", "grid_lat", "distance_km", "x", "y"}...],
//  "times": [...], "levels": [...], "values": {"var": [...]}} (layout as Extraction::Variable).
Status WriteExtractionJson(const grid::Extraction& result, std::ostream& out);

// "Every variable at a place" (grid::ExtractEvery): one result per group of variables on the same
// axes. CoverageJSON: one CoverageCollection, each coverage with its own domain (a variable's own
// z axis); CSV: one header with every variable, each row holding its group's; JSON: {"groups":
// [one document per group]}. One result writes as above.
Status WriteCoverageJson(std::span<const grid::Extraction> results, std::ostream& out,
                         JsonLayout layout = JsonLayout::kIndented);
Status WriteExtractionCsv(std::span<const grid::Extraction> results, std::ostream& out);
Status WriteExtractionJson(std::span<const grid::Extraction> results, std::ostream& out);

}  // namespace gridstore::formats

#endif  // GRIDSTORE_FORMATS_EXTRACTION_FORMATS_H_
