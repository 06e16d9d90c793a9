// Copyright 2026 The GridStore Authors.
//
// The importer's names for the netCDF-C binding (model/netcdf/netcdf_api.h: the function table,
// the process-wide lock, the type mapping, shared with formats/netcdf/), and small text helpers.
// Private to importers/.
#ifndef GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_NETCDF_UTIL_H_
#define GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_NETCDF_UTIL_H_

#include "gridstore/model/netcdf/netcdf_api.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_importers {

using ::gridstore::SplitWhitespace;

namespace netcdf = ::gridstore::internal_netcdf::netcdf;
using ::gridstore::internal_netcdf::LoadNetCdf;
using ::gridstore::internal_netcdf::NetCdfLibraryHandle;
using ::gridstore::internal_netcdf::NetCdfLock;
using ::gridstore::internal_netcdf::NetCdfMutex;
using ::gridstore::internal_netcdf::ToDataType;
using ::gridstore::internal_netcdf::ToNcType;

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_NETCDF_UTIL_H_
