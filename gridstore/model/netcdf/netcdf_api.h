// Copyright 2026 The GridStore Authors.
//
// netCDF-C, loaded when first needed: the one binding the importer (importers/netcdf/) and the
// writers (formats/netcdf/) share, with the one lock every netCDF call holds. They call netCDF
// through the function pointers below, which LoadNetCdf() fills from libnetcdf (dlopen) on first
// use, so a process that never reads or writes a netCDF file (the command's fetch to csv/npy/json,
// info, query; an application using only the store) does not map netCDF, HDF5 and their dozen
// dependencies: about 10 ms of dynamic loading per process start, most of a short command's run
// time. Private to importers/netcdf/ and formats/netcdf/; nothing else links or calls netCDF-C.
#ifndef GRIDSTORE_MODEL_NETCDF_NETCDF_API_H_
#define GRIDSTORE_MODEL_NETCDF_NETCDF_API_H_

#include <netcdf.h>
#include <netcdf_mem.h>

#include <mutex>
#include <optional>

#include "gridstore/model/data_type.h"
#include "gridstore/util/status.h"

// Every netCDF-C function the importer and the writers call. The pointers have the exact types of
// netcdf.h's declarations (decltype), so a call through them is checked as a direct call would be.
// clang-format off
#define GRIDSTORE_NETCDF_FUNCTIONS(X) \
  X(nc_close) \
  X(nc_close_memio) \
  X(nc_create) \
  X(nc_create_mem) \
  X(nc_def_dim) \
  X(nc_def_var) \
  X(nc_def_var_chunking) \
  X(nc_def_var_deflate) \
  X(nc_def_var_fill) \
  X(nc_enddef) \
  X(nc_free_string) \
  X(nc_get_att) \
  X(nc_get_att_string) \
  X(nc_get_att_text) \
  X(nc_get_var_chunk_cache) \
  X(nc_get_var_double) \
  X(nc_get_var_text) \
  X(nc_get_vara) \
  X(nc_inq_att) \
  X(nc_inq_attname) \
  X(nc_inq_dim) \
  X(nc_inq_format_extended) \
  X(nc_inq_grpname) \
  X(nc_inq_grps) \
  X(nc_inq_natts) \
  X(nc_inq_nvars) \
  X(nc_inq_var) \
  X(nc_inq_var_chunking) \
  X(nc_inq_vardimid) \
  X(nc_inq_varname) \
  X(nc_inq_varnatts) \
  X(nc_open) \
  X(nc_put_att) \
  X(nc_put_att_text) \
  X(nc_put_var_double) \
  X(nc_put_vara) \
  X(nc_set_var_chunk_cache) \
  X(nc_strerror)
// clang-format on

namespace gridstore::internal_netcdf {

// Loads libnetcdf (its soname as found at build time) and resolves every function above, once per
// process; later calls return the first result. Every public entry point that touches netCDF calls
// it before anything else, so the pointers below are set whenever netCDF code runs. The error names
// the library and what the loader said (netCDF is then unavailable, the rest of GridStore works).
Status LoadNetCdf();

// The handle of the libnetcdf LoadNetCdf() loaded (null before it succeeded). dlsym on it finds
// the HDF5 that netCDF itself links (hdf5_api.h), so both share one copy of HDF5's state.
void* NetCdfLibraryHandle();

namespace netcdf {
#define GRIDSTORE_NETCDF_DECLARE(name) extern decltype(&::name) name;
GRIDSTORE_NETCDF_FUNCTIONS(GRIDSTORE_NETCDF_DECLARE)
#undef GRIDSTORE_NETCDF_DECLARE
}  // namespace netcdf

// netCDF-C and the HDF5 it links are not thread-safe, so every call into them, from the importer
// and the writers, holds this lock; imports on several threads then only overlap in compression
// and writing. Recursive, so that a scope holding it may close a file.
std::recursive_mutex& NetCdfMutex();
using NetCdfLock = std::lock_guard<std::recursive_mutex>;

// The GridStore type of a netCDF numeric type; nullopt for char, string and user types.
std::optional<grid::DataType> ToDataType(nc_type type);
nc_type ToNcType(grid::DataType type);

}  // namespace gridstore::internal_netcdf

#endif  // GRIDSTORE_MODEL_NETCDF_NETCDF_API_H_
