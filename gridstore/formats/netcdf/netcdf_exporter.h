// Copyright 2026 The GridStore Authors.
//
// Writes fetched slices as a CF-style netCDF-4 file: every fetched variable with its dimensions
// (named as in the source, sized to the slice), the coordinate variables sliced to match, the
// variables' attributes (units, long_name, packing, _FillValue...) and the dataset's attributes as
// global attributes, so that the result opens in xarray or ncview like the original file did.
#ifndef GRIDSTORE_FORMATS_NETCDF_NETCDF_EXPORTER_H_
#define GRIDSTORE_FORMATS_NETCDF_NETCDF_EXPORTER_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "gridstore/model/grid.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"
#include "gridstore/util/status.h"

namespace gridstore::formats {

struct NetCdfExportOptions {
  // The data were fetched with FetchOptions::unpack: write them as floating point, without
  // scale_factor / add_offset, with NaN as the fill value.
  bool unpacked = false;
  // Write a netCDF classic file (CDF-2, "64-bit offset"; CDF-5 if it needs 64-bit or unsigned
  // types) instead of netCDF-4 when it holds what the netCDF-4 file would (plain names) and at
  // most this many bytes of values; 0: always netCDF-4. The classic file is written without
  // netCDF-C (no HDF5 to load and start: most of a small answer's time), uncompressed and built
  // whole in memory, hence the bound.
  int64_t classic_max_bytes = 0;
};

// Writes `data` (fetched from the dataset described by `meta`) to a new netCDF-4 file at `path`,
// replacing any file there only once it is complete (written beside it under a fresh temporary
// name, then renamed; on failure the temporary is removed). Axes a variable does not have in the
// source (empty dimension name,
// extent 1) are not written as dimensions. Errors name the path: FailedPrecondition / Unavailable
// when it cannot be created or written.
Status WriteNetCdf(const std::string& path, const grid::DataSetMeta& meta,
                   const grid::GridDataSet& data, const NetCdfExportOptions& options = {});

// One variable of a streamed export: the type, origin and shape its fetch returns.
struct ExportVariable {
  std::string name;
  grid::DataType type = grid::DataType::kFloat32;
  grid::Shape4 origin = {0, 0, 0, 0};
  grid::Shape4 shape = {1, 1, 1, 1};
};

// The values of variable `name` over `box` (a slab of its ExportVariable box, model/slabs.h), in
// its ExportVariable type. The grid need only stay valid until the next call.
using SlabSource =
    std::function<Result<const grid::Grid4D*>(const std::string& name, const grid::Box& box)>;

// As WriteNetCdf, but the values are read from `source` slab by slab (at most `max_slab_values`
// values each) and each slab is written as it comes, so that memory stays bounded whatever the
// size of the output. The file holds the same dimensions, variables, attributes and values.
Status WriteNetCdfSlabs(const std::string& path, const grid::DataSetMeta& meta,
                        const std::vector<ExportVariable>& variables, const SlabSource& source,
                        int64_t max_slab_values, const NetCdfExportOptions& options = {});

}  // namespace gridstore::formats

#endif  // GRIDSTORE_FORMATS_NETCDF_NETCDF_EXPORTER_H_
