// Copyright 2026 The GridStore Authors.
//
// What every netCDF writer shares: attributes written with their own types, and a new file made
// either beside its final path (renamed over it only once complete) or in memory (the HTTP
// service's answers: no temporary file to write and read back).
#ifndef GRIDSTORE_FORMATS_NETCDF_INTERNAL_NETCDF_OUTPUT_H_
#define GRIDSTORE_FORMATS_NETCDF_INTERNAL_NETCDF_OUTPUT_H_

#include <functional>
#include <string>

#include "gridstore/formats/netcdf/netcdf_exporter.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/status.h"

namespace gridstore::internal_formats {

// Where a netCDF writer puts its file: the path `name`, or, if `memory` is set, *memory (the
// file's bytes; `name` then only names it in messages).
struct NetCdfDestination {
  std::string name;
  std::string* memory = nullptr;
};

// Writes one attribute with its own type (a netCDF status code). Text (and bools, which netCDF
// lacks) become NC_CHAR.
int PutAttribute(int ncid, int varid, const std::string& name, const grid::AttributeValue& a);

// Creates a netCDF-4 file at `to` and lets `write` fill it (under the netCDF lock). A path gets a
// fresh temporary name beside it (O_EXCL: nothing that exists is clobbered), renamed over the
// path only if everything succeeded, otherwise removed; memory (nc_create_mem) is copied to
// *to.memory only if everything succeeded. Loads netCDF-C first. Errors name `to.name`.
Status WriteNetCdfFile(const NetCdfDestination& to, const std::function<Status(int ncid)>& write);

// formats::WriteNetCdf to either destination (netcdf_exporter.cc).
Status WriteNetCdfDataSet(const NetCdfDestination& to, const grid::DataSetMeta& meta,
                          const grid::GridDataSet& data,
                          const formats::NetCdfExportOptions& options);

}  // namespace gridstore::internal_formats

#endif  // GRIDSTORE_FORMATS_NETCDF_INTERNAL_NETCDF_OUTPUT_H_
