// Copyright 2026 The GridStore Authors.
//
// Libraries loaded when first needed (dlopen), so that a process that never uses them does not
// map them: netCDF-C and HDF5 (model/netcdf/, for importers/ and formats/), PROJ and GEOS (geo/),
// ecCodes (importers/grib/). Each user keeps a table of function pointers typed by decltype of the
// library's own declarations (see model/netcdf/netcdf_api.h) and fills it with FindSymbol.
#ifndef GRIDSTORE_UTIL_INTERNAL_SHARED_LIBRARY_H_
#define GRIDSTORE_UTIL_INTERNAL_SHARED_LIBRARY_H_

#include <string>
#include <string_view>

#include "gridstore/util/result.h"

namespace gridstore {

// Opens `library` (a soname or a path) with RTLD_NOW | RTLD_LOCAL: its symbols stay out of the
// global namespace, and a library the application links itself is shared, not loaded twice.
// FailedPrecondition "<what> is unavailable: cannot load <library> (<the loader's reason>);
// <remedy>" otherwise. The handle is never closed.
Result<void*> OpenSharedLibrary(const std::string& library, std::string_view what,
                                std::string_view remedy);

// The address of `name` in `handle`, or null with `name` appended to *missing (comma-separated).
void* FindSymbol(void* handle, const char* name, std::string* missing);

}  // namespace gridstore

#endif  // GRIDSTORE_UTIL_INTERNAL_SHARED_LIBRARY_H_
