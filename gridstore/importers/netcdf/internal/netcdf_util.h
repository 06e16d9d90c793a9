// Copyright 2026 The GridStore Authors.
//
// What the NetCDF importer and exporter share: the process-wide lock around netCDF-C, the mapping
// between netCDF and GridStore types, and small text helpers. Private to importers/.
#ifndef GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_NETCDF_UTIL_H_
#define GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_NETCDF_UTIL_H_

#include <netcdf.h>

#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/model/data_type.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_importers {

using ::gridstore::SplitWhitespace;

// netCDF-C and the HDF5 it links are not thread-safe, so every call into them, from the importer
// and the exporter, holds this lock; imports on several threads then only overlap in compression
// and writing. Recursive, so that a scope holding it may close a file.
std::recursive_mutex& NetCdfMutex();
using NetCdfLock = std::lock_guard<std::recursive_mutex>;

// The GridStore type of a netCDF numeric type; nullopt for char, string and user types.
std::optional<grid::DataType> ToDataType(nc_type type);
nc_type ToNcType(grid::DataType type);

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_NETCDF_UTIL_H_
