// Copyright 2026 The GridStore Authors.
//
// Lossy precision at import (NetCdfImportOptions::keep_bits / keep_digits): checking the options
// against what the import writes, recording each variable's precision as netCDF-C's attribute,
// and rounding its planes before they are compressed (model/quantize.h does the arithmetic).
#ifndef GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_IMPORT_PRECISION_H_
#define GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_IMPORT_PRECISION_H_

#include <string>

#include "gridstore/importers/netcdf/internal/cf_mapping.h"
#include "gridstore/importers/netcdf/netcdf_importer.h"
#include "gridstore/model/grid.h"
#include "gridstore/model/quantize.h"
#include "gridstore/util/status.h"

namespace gridstore::internal_importers {

// Sets `precision` of the planned variables named in `options` and records it in their meta
// (netCDF-C's `_Quantize...` attribute). InvalidArgument naming the file (`path`) and variable for
// a name not among the imported variables, a name in both maps, a packed or integer variable,
// or a count out of range (grid::CheckPrecision).
Status PlanPrecision(const std::string& path, const importers::NetCdfImportOptions& options,
                     ImportPlan* plan);

// Rounds `plane` (a plane of `var`) to `precision`, keeping the fill value, the missing values,
// NaN and infinities. REQUIRES: `var`'s type is float32 or float64.
void QuantizePlane(const grid::Precision& precision, const grid::VariableMeta& var,
                   grid::Grid2D* plane);

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_IMPORT_PRECISION_H_
