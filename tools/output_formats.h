// Copyright 2026 The GridStore Authors.
//
// Writers for `gridstore fetch` outputs other than NetCDF (importers/netcdf_exporter.h): npy for
// one variable in its stored type, and csv / json rows for small slices, one row per grid point
// with its indices, its coordinate values and the value of every fetched variable.
#ifndef GRIDSTORE_TOOLS_OUTPUT_FORMATS_H_
#define GRIDSTORE_TOOLS_OUTPUT_FORMATS_H_

#include <cstdint>
#include <ostream>

#include "grid/grid.h"
#include "grid/grid_meta.h"
#include "util/status.h"

namespace gridstore::tools {

// csv and json are for small slices: more values than this is InvalidArgument (use nc or npy).
inline constexpr int64_t kMaxTextValues = 5'000'000;

// A NumPy .npy (format 1.0) file: shape (t, z, x, y), little-endian, the grid's own type.
Status WriteNpy(const grid::Grid4D& grid, std::ostream& out);

// Rows "t,z,x,y,<coordinate names...>,<variable names...>". Every variable must have the same
// origin, shape and dimensions (InvalidArgument naming two that differ).
Status WriteCsv(const grid::DataSetMeta& meta, const grid::GridDataSet& data, std::ostream& out);

// {"dataset": ID, "variables": {NAME: {type, origin, shape, dimensions, units}}, "rows": [{"t":..,
// "z":.., "x":.., "y":.., <coordinate>: .., <variable>: ..}, ...]}; NaN is null.
Status WriteJson(const grid::DataSetMeta& meta, const grid::GridDataSet& data, std::ostream& out);

}  // namespace gridstore::tools

#endif  // GRIDSTORE_TOOLS_OUTPUT_FORMATS_H_
