// Copyright 2026 The GridStore Authors.
#include "gridstore/model/netcdf/netcdf_api.h"

#include <dlfcn.h>

#include <cstdlib>
#include <string>

#include "gridstore/util/internal/shared_library.h"

namespace gridstore::internal_netcdf {

namespace netcdf {
#define GRIDSTORE_NETCDF_DEFINE(name) decltype(&::name) name = nullptr;
GRIDSTORE_NETCDF_FUNCTIONS(GRIDSTORE_NETCDF_DEFINE)
#undef GRIDSTORE_NETCDF_DEFINE
}  // namespace netcdf

namespace {

void* netcdf_library_handle = nullptr;  // set once, by Load(), before LoadNetCdf() first returns

// GRIDSTORE_NETCDF_SONAME comes from the build (the netCDF::netcdf target's soname), so the
// library loaded is the one the headers above were compiled against.
constexpr const char* kNetCdfLibrary = GRIDSTORE_NETCDF_SONAME;

Status Load() {
  // $GRIDSTORE_NETCDF_LIBRARY names another build of netCDF-C (a path or a soname) with the same
  // ABI, e.g. one with more HDF5 filters.
  const char* chosen = std::getenv("GRIDSTORE_NETCDF_LIBRARY");
  const std::string library = chosen != nullptr && *chosen != '\0' ? chosen : kNetCdfLibrary;
  GRIDSTORE_ASSIGN_OR_RETURN(
      void* handle,
      OpenSharedLibrary(library, "netCDF support",
                        std::string("install netCDF-C (Debian: libnetcdf19)") +
                            (chosen != nullptr ? " or fix $GRIDSTORE_NETCDF_LIBRARY" : "")));
  std::string missing;
#define GRIDSTORE_NETCDF_RESOLVE(name) \
  netcdf::name = reinterpret_cast<decltype(&::name)>(FindSymbol(handle, #name, &missing));
  GRIDSTORE_NETCDF_FUNCTIONS(GRIDSTORE_NETCDF_RESOLVE)
#undef GRIDSTORE_NETCDF_RESOLVE
  if (!missing.empty()) {
    return Status::FailedPrecondition("netCDF support is unavailable: " + library + " lacks " +
                                      missing);
  }
  // Before the first netCDF call (which starts HDF5): no HDF5 clean-up at exit. A netCDF-4 file
  // whose close failed (a full disk) stays open inside HDF5, and HDF5's exit handler then crashes
  // closing it again; every file GridStore opens is closed explicitly, so nothing is lost. (If
  // the application started HDF5 first, this is refused and changes nothing.) Found through
  // libnetcdf's own dependencies; a netCDF built without HDF5 has none and needs none.
  using DontAtExit = int (*)();
  if (auto dont_atexit = reinterpret_cast<DontAtExit>(::dlsym(handle, "H5dont_atexit"))) {
    dont_atexit();
  }
  netcdf_library_handle = handle;
  return Status::OK();
}

}  // namespace

Status LoadNetCdf() {
  static const Status* const loaded = new Status(Load());  // never freed: used until exit
  return *loaded;
}

void* NetCdfLibraryHandle() { return LoadNetCdf().ok() ? netcdf_library_handle : nullptr; }

std::recursive_mutex& NetCdfMutex() {
  static std::recursive_mutex mu;
  return mu;
}

std::optional<grid::DataType> ToDataType(nc_type type) {
  switch (type) {
    case NC_BYTE:
      return grid::DataType::kInt8;
    case NC_UBYTE:
      return grid::DataType::kUint8;
    case NC_SHORT:
      return grid::DataType::kInt16;
    case NC_USHORT:
      return grid::DataType::kUint16;
    case NC_INT:
      return grid::DataType::kInt32;
    case NC_UINT:
      return grid::DataType::kUint32;
    case NC_INT64:
      return grid::DataType::kInt64;
    case NC_UINT64:
      return grid::DataType::kUint64;
    case NC_FLOAT:
      return grid::DataType::kFloat32;
    case NC_DOUBLE:
      return grid::DataType::kFloat64;
    default:
      return std::nullopt;
  }
}

nc_type ToNcType(grid::DataType type) {
  switch (type) {
    case grid::DataType::kInt8:
      return NC_BYTE;
    case grid::DataType::kUint8:
      return NC_UBYTE;
    case grid::DataType::kInt16:
      return NC_SHORT;
    case grid::DataType::kUint16:
      return NC_USHORT;
    case grid::DataType::kInt32:
      return NC_INT;
    case grid::DataType::kUint32:
      return NC_UINT;
    case grid::DataType::kInt64:
      return NC_INT64;
    case grid::DataType::kUint64:
      return NC_UINT64;
    case grid::DataType::kFloat32:
      return NC_FLOAT;
    case grid::DataType::kFloat64:
      break;
  }
  return NC_DOUBLE;
}

}  // namespace gridstore::internal_netcdf
