// Copyright 2026 The GridStore Authors.
//
// What every netCDF writer shares: attributes written with their own types, and a new file made
// beside its final path and renamed over it only once complete.
#ifndef GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_NETCDF_OUTPUT_H_
#define GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_NETCDF_OUTPUT_H_

#include <functional>
#include <string>

#include "gridstore/model/grid_meta.h"
#include "gridstore/util/status.h"

namespace gridstore::internal_importers {

// Writes one attribute with its own type (a netCDF status code). Text (and bools, which netCDF
// lacks) become NC_CHAR.
int PutAttribute(int ncid, int varid, const std::string& name, const grid::AttributeValue& a);

// Creates a netCDF-4 file under a fresh temporary name beside `path` (O_EXCL: nothing that exists
// is clobbered), lets `write` fill it (under the netCDF lock), and renames it over `path` only if
// everything succeeded; otherwise removes it. Loads netCDF-C first. Errors name the path.
Status WriteNetCdfFile(const std::string& path, const std::function<Status(int ncid)>& write);

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_NETCDF_OUTPUT_H_
