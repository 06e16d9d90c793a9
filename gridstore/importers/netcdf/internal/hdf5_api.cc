// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/netcdf/internal/hdf5_api.h"

#include <string>

#include "gridstore/importers/netcdf/internal/netcdf_util.h"
#include "gridstore/util/internal/shared_library.h"

namespace gridstore::internal_importers {

namespace hdf5 {
#define GRIDSTORE_HDF5_DEFINE(name) decltype(&::name) name = nullptr;
GRIDSTORE_HDF5_FUNCTIONS(GRIDSTORE_HDF5_DEFINE)
#undef GRIDSTORE_HDF5_DEFINE
}  // namespace hdf5

namespace {

Status ResolveHdf5FromNetCdf() {
  void* handle = NetCdfLibraryHandle();
  if (handle == nullptr) return Status::FailedPrecondition("netCDF-C is not loaded");
  std::string missing;
#define GRIDSTORE_HDF5_RESOLVE(name) \
  hdf5::name = reinterpret_cast<decltype(&::name)>(FindSymbol(handle, #name, &missing));
  GRIDSTORE_HDF5_FUNCTIONS(GRIDSTORE_HDF5_RESOLVE)
#undef GRIDSTORE_HDF5_RESOLVE
  if (!missing.empty()) {
    return Status::FailedPrecondition("the HDF5 of netCDF-C lacks " + missing);
  }
  // netCDF-C turns HDF5's printing of errors off when it starts; so does this (in case it did
  // not), since a failed probe (hdf5_chunk_index.cc) only means "read through netCDF-C".
  hdf5::H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  return Status::OK();
}

}  // namespace

Status LoadHdf5() {
  static const Status* const loaded = new Status(ResolveHdf5FromNetCdf());  // never freed
  return *loaded;
}

}  // namespace gridstore::internal_importers
