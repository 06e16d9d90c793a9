// Copyright 2026 The GridStore Authors.
//
// The few HDF5 functions the parallel chunk reader calls (hdf5_chunk_index.h), resolved at run
// time from the HDF5 that libnetcdf itself links: dlsym on netCDF's handle searches its
// dependencies, so these are the very functions netCDF-C calls, sharing one HDF5 state (open
// files, error stack). Nothing links HDF5, so a process that never reads a netCDF file maps
// neither. HDF5 is not thread-safe: callers hold NetCdfMutex() around every call, as for netCDF.
// Private to importers/.
#ifndef GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_HDF5_API_H_
#define GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_HDF5_API_H_

#include <hdf5.h>

#include "gridstore/util/status.h"

// clang-format off
#define GRIDSTORE_HDF5_FUNCTIONS(X) \
  X(H5Dclose) \
  X(H5Dget_chunk_info_by_coord) \
  X(H5Dget_create_plist) \
  X(H5Dget_space) \
  X(H5Dget_type) \
  X(H5Dopen2) \
  X(H5Eset_auto2) \
  X(H5Fclose) \
  X(H5Fget_create_plist) \
  X(H5Fopen) \
  X(H5Lexists) \
  X(H5Pclose) \
  X(H5Pget_chunk) \
  X(H5Pget_filter2) \
  X(H5Pget_layout) \
  X(H5Pget_nfilters) \
  X(H5Pget_userblock) \
  X(H5Sclose) \
  X(H5Sget_simple_extent_dims) \
  X(H5Sget_simple_extent_ndims) \
  X(H5Tclose) \
  X(H5Tget_class) \
  X(H5Tget_ebias) \
  X(H5Tget_fields) \
  X(H5Tget_offset) \
  X(H5Tget_order) \
  X(H5Tget_precision) \
  X(H5Tget_size)
// clang-format on

namespace gridstore::internal_importers {

// Resolves every function above from libnetcdf's HDF5, once per process (later calls return the
// first result). FailedPrecondition if netCDF is not loaded or was built without HDF5 (or with
// an HDF5 older than 1.10.5, which lacks H5Dget_chunk_info_by_coord): callers then read through
// netCDF-C as before. REQUIRES: LoadNetCdf() succeeded.
Status LoadHdf5();

namespace hdf5 {
#define GRIDSTORE_HDF5_DECLARE(name) extern decltype(&::name) name;
GRIDSTORE_HDF5_FUNCTIONS(GRIDSTORE_HDF5_DECLARE)
#undef GRIDSTORE_HDF5_DECLARE

// hdf5.h spells H5F_ACC_RDONLY as a call of H5check() and H5open() (which would link HDF5); its
// value is 0, and the library is open once netCDF-C has started it.
inline constexpr unsigned kFileReadOnly = 0u;
}  // namespace hdf5

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_HDF5_API_H_
