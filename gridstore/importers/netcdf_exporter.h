// Copyright 2026 The GridStore Authors.
//
// Writes fetched slices as a CF-style netCDF-4 file: every fetched variable with its dimensions
// (named as in the source, sized to the slice), the coordinate variables sliced to match, the
// variables' attributes (units, long_name, packing, _FillValue...) and the dataset's attributes as
// global attributes, so that the result opens in xarray or ncview like the original file did.
#ifndef GRIDSTORE_IMPORTERS_NETCDF_EXPORTER_H_
#define GRIDSTORE_IMPORTERS_NETCDF_EXPORTER_H_

#include <string>

#include "gridstore/grid/grid.h"
#include "gridstore/grid/grid_meta.h"
#include "gridstore/util/status.h"

namespace gridstore::importers {

struct NetCdfExportOptions {
  // The data were fetched with FetchOptions::unpack: write them as floating point, without
  // scale_factor / add_offset, with NaN as the fill value.
  bool unpacked = false;
};

// Writes `data` (fetched from the dataset described by `meta`) to a new netCDF-4 file at `path`,
// replacing any file there only once it is complete (written beside it under a fresh temporary
// name, then renamed; on failure the temporary is removed). Axes a variable does not have in the
// source (empty dimension name,
// extent 1) are not written as dimensions. Errors name the path: FailedPrecondition / Unavailable
// when it cannot be created or written.
Status WriteNetCdf(const std::string& path, const grid::DataSetMeta& meta,
                   const grid::GridDataSet& data, const NetCdfExportOptions& options = {});

}  // namespace gridstore::importers

#endif  // GRIDSTORE_IMPORTERS_NETCDF_EXPORTER_H_
