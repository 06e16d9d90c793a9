// Copyright 2026 The GridStore Authors.
//
// Imports a GRIB file (edition 1 or 2, read with ecCodes) into a GridStore dataset. Mapping
// (docs/usage-import.md, "GRIB"): fields grouped into variables by (shortName, typeOfLevel) —
// named shortName where that is unique, else shortName_typeOfLevel; t = the distinct validity
// times (coordinate `time`, the reference time as its attribute, `step` beside it); z = the
// distinct levels of the level type, with units; x, y = the grid's rows and points in ecCodes'
// value order, with 1-D latitude/longitude for regular_ll and regular_gg and 2-D ones (ecCodes'
// own) for rotated and projected grids. Missing points (the bitmap) read as NaN. Values are
// stored as float32 unless asked for float64. Streams: one decoded field at a time plus the
// writer's bounded queue.
#ifndef GRIDSTORE_IMPORTERS_GRIB_IMPORTER_H_
#define GRIDSTORE_IMPORTERS_GRIB_IMPORTER_H_

#include <functional>
#include <string>

#include "gridstore/grid/grid_meta.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/importers/netcdf_importer.h"
#include "gridstore/util/result.h"

namespace gridstore::importers {

struct GribImportOptions {
  std::string dataset_id;  // required
  // Extra dataset attributes, set after the file's (they win).
  grid::Attributes attributes;
  grid::BlockLayout layout = {.frame_rows = kDefaultImportFrameRows};
  // Replace an existing dataset (it stays readable until the new one is whole).
  bool overwrite = false;
  // kFloat32 (the default: GRIB packing rarely carries more than 24 bits) or kFloat64 (ecCodes'
  // decoded doubles as they are).
  grid::DataType type = grid::DataType::kFloat32;
  // Raw bytes of planes queued for compression and writing at most.
  size_t memory_budget_bytes = 256ull << 20;
  std::function<void(const ImportProgress&)> on_progress;
};

// True if `path` holds GRIB (by content, never by name).
bool IsGribFile(const std::string& path);

// The dataset meta an import of `path` would create, reading headers only. Errors name the file
// and field: NotFound, InvalidArgument (not GRIB; a grid without fixed rows such as reduced_gg;
// fields on different grids; a duplicate field), Unimplemented (an ensemble), DataLoss (a
// truncated or corrupt message), FailedPrecondition (ecCodes missing).
Result<grid::DataSetMeta> ReadGribMeta(const std::string& path, const GribImportOptions& options,
                                       std::vector<std::string>* notes = nullptr);

// Imports `path` as dataset options.dataset_id: meta INIT, every field's plane, then DONE with
// create_time. On failure nothing of it remains (a replaced dataset stays as it was). Errors as
// ReadGribMeta, and AlreadyExists without overwrite.
Result<ImportSummary> ImportGrib(grid::GridStore* store, const std::string& path,
                                 const GribImportOptions& options);

}  // namespace gridstore::importers

#endif  // GRIDSTORE_IMPORTERS_GRIB_IMPORTER_H_
