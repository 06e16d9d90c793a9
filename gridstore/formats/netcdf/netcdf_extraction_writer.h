// Copyright 2026 The GridStore Authors.
//
// Extraction results (geo/extract.h) as CF netCDF-4 files.
#ifndef GRIDSTORE_FORMATS_NETCDF_NETCDF_EXTRACTION_WRITER_H_
#define GRIDSTORE_FORMATS_NETCDF_NETCDF_EXTRACTION_WRITER_H_

#include <string>

#include "gridstore/geo/extract.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"
#include "gridstore/util/status.h"

namespace gridstore::formats {

// Writes `extraction` (of the dataset `meta` describes; values unpacked) to a new netCDF-4 file
// at `path`, replaced only once complete:
// - an area (bbox, polygon, radius, corridor): the enclosing index box as WriteNetCdf writes a
//   fetch (coordinates, bounds and grid mapping cut to it), cells outside the feature NaN; the
//   times and levels must be a range, not a list (InvalidArgument otherwise);
// - points: a CF discrete sampling geometry, featureType timeSeries (timeSeriesProfile with
//   several levels): variables over (station, time[, level]), lon/lat of the requested points
//   and grid_lon/grid_lat of the cells used;
// - a trajectory: featureType trajectory, one observation per sample (and time and level).
// Errors as WriteNetCdf.
Status WriteNetCdfExtraction(const std::string& path, const grid::DataSetMeta& meta,
                             const grid::Extraction& extraction);
// The same file in memory (netCDF-C's nc_create_mem): its bytes, for an answer sent whole (the
// HTTP service) with no temporary file.
Result<std::string> NetCdfExtractionBytes(const grid::DataSetMeta& meta,
                                          const grid::Extraction& extraction);

}  // namespace gridstore::formats

#endif  // GRIDSTORE_FORMATS_NETCDF_NETCDF_EXTRACTION_WRITER_H_
