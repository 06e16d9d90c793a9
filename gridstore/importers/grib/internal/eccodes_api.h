// Copyright 2026 The GridStore Authors.
//
// ecCodes, loaded when first needed (as netCDF-C is: netcdf_api.h says why): a process that never
// reads a GRIB file does not map libeccodes and its dependencies. Private to importers/; only
// grib_file.cc calls these.
#ifndef GRIDSTORE_IMPORTERS_GRIB_INTERNAL_ECCODES_API_H_
#define GRIDSTORE_IMPORTERS_GRIB_INTERNAL_ECCODES_API_H_

#include <eccodes.h>

#include "gridstore/util/status.h"

// Every ecCodes function the GRIB importer calls, with the exact types of eccodes.h (decltype).
// clang-format off
#define GRIDSTORE_ECCODES_FUNCTIONS(X) \
  X(codes_get_double) \
  X(codes_get_double_array) \
  X(codes_get_error_message) \
  X(codes_get_long) \
  X(codes_get_long_array) \
  X(codes_get_message) \
  X(codes_get_size) \
  X(codes_get_string) \
  X(codes_grib_multi_support_on) \
  X(codes_handle_delete) \
  X(codes_handle_new_from_file) \
  X(codes_is_defined) \
  X(codes_is_missing)
// clang-format on

namespace gridstore::internal_importers {

// Loads libeccodes (its soname as found at build time, or $GRIDSTORE_ECCODES_LIBRARY) and
// resolves the functions above, once per process. FailedPrecondition naming the library if it
// cannot (GRIB import is then unavailable; the rest of GridStore works).
Status LoadEcCodes();

namespace eccodes {
#define GRIDSTORE_ECCODES_DECLARE(name) extern decltype(&::name) name;
GRIDSTORE_ECCODES_FUNCTIONS(GRIDSTORE_ECCODES_DECLARE)
#undef GRIDSTORE_ECCODES_DECLARE
}  // namespace eccodes

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_GRIB_INTERNAL_ECCODES_API_H_
