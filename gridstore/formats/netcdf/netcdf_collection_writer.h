// Copyright 2026 The GridStore Authors.
//
// A forecast collection's answer (forecast/collection_query.h) as a CF netCDF-4 file, made in
// memory (the HTTP service, WriteCollection to a stream) or at a path.
#ifndef GRIDSTORE_FORMATS_NETCDF_NETCDF_COLLECTION_WRITER_H_
#define GRIDSTORE_FORMATS_NETCDF_NETCDF_COLLECTION_WRITER_H_

#include <string>

#include "gridstore/forecast/collection_query.h"
#include "gridstore/util/result.h"
#include "gridstore/util/status.h"

namespace gridstore::formats {

// The file holds the first group of variables of every slice (one netCDF file holds one set of
// axes; the front end names the other groups as left out). Its dimensions:
// - `run`: coordinate run(run), the forecast reference times (seconds since 1970-01-01,
//   standard_name forecast_reference_time);
// - `member` (slices of members; coordinate member(member), int, standard_name realization) or
//   `stat` (statistics; stat(stat), strings such as "p90"); neither for a deterministic model;
// - `time`: the i-th valid time of each run. Runs may have different times and counts, so the
//   valid times are valid_time(run, time) (CF time units, standard_name time) and the leads
//   lead_time(run, time) (hours, standard_name forecast_period), NaN where a run has fewer
//   times. (The 2-D times are not named `time`: xarray refuses a variable named like one of its
//   dimensions that is not that dimension's 1-D coordinate.)
// - the level (named as the level coordinate, with its attributes), if the variables have one;
// - the feature: points as `station` (lon, lat of the points asked, grid_lon, grid_lat of the
//   cells used); an area (bbox, polygon, radius, corridor) as its index box, named as the
//   variable's horizontal dimensions, with 1-D coordinates on a rectilinear grid or 2-D lat/lon
//   otherwise, cells outside the feature NaN.
// Each variable is double with NaN fill over (run, member|stat, station, time[, level]) for
// points, (run, member|stat, time[, level], X, Y) for an area; a combination the answer lacks
// (a member missing from one run) is NaN. A probability statistic's values are fractions 0..1,
// in the same variable as the other statistics (its `units` attribute names the others').
// Errors: InvalidArgument for no slice, for a trajectory (not written as netCDF: ask CoverageJSON,
// CSV or JSON) and for slices whose levels, points or area differ (runs on other levels: ask one
// run, or the same levels with z); Unavailable for a netCDF failure.
Result<std::string> NetCdfCollectionBytes(const forecast::CollectionExtraction& result);
// The same file at `path`, replaced only once complete.
Status WriteNetCdfCollection(const std::string& path, const forecast::CollectionExtraction& result);

}  // namespace gridstore::formats

#endif  // GRIDSTORE_FORMATS_NETCDF_NETCDF_COLLECTION_WRITER_H_
