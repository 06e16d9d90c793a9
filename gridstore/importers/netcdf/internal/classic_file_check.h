// Copyright 2026 The GridStore Authors.
//
// netCDF-C 4.9.0 opens a truncated classic file (CDF-1, CDF-2, CDF-5) and reads the missing data
// as zeros without an error, and a CDF-5 header cut short as a file with fewer variables. This
// check reads the classic header itself and compares its layout with the file's size.
#ifndef GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_CLASSIC_FILE_CHECK_H_
#define GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_CLASSIC_FILE_CHECK_H_

#include <string>

#include "gridstore/util/status.h"

namespace gridstore::internal_importers {

// DataLoss naming the first variable whose data lie past the end of the classic file at `path`,
// or saying the header does. OK otherwise, and also if this parser cannot follow a header that
// netCDF-C accepted for another reason (the disagreement would be ours).
Status CheckClassicFileSize(const std::string& path);

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_CLASSIC_FILE_CHECK_H_
