// Copyright 2026 The GridStore Authors.
//
// Imports GRIB files (edition 1 or 2, read with ecCodes) into a GridStore dataset. Mapping
// (docs/usage-import.md, "GRIB"): fields grouped into variables by (shortName, typeOfLevel) —
// named shortName where that is unique, else shortName_typeOfLevel; an ensemble
// (numberOfForecastsInEnsemble > 1, or several perturbationNumbers) makes one dataset per member,
// `<id>/m<NN>` (NN the perturbationNumber, two digits at least), each with the variables a
// deterministic file would have; t = the distinct validity times (coordinate `time`, the
// reference time as its attribute, `step` beside it); z = the distinct levels of the level type,
// with units; x, y = the grid's rows and points in ecCodes' value order, with 1-D
// latitude/longitude for regular_ll and regular_gg and 2-D ones (ecCodes' own) for rotated and
// projected grids, and the grid's CF grid mapping as the scalar coordinate `crs`. Missing points
// (the bitmap) read as NaN. Values are stored as float32 unless asked for float64.
//
// Every dataset gets the forecast collection attributes (docs/collections.md): `collection`
// "<centre>/<kind>" ("ecmf/ens" for control and perturbed members, else the dataType: "ecmf/fc",
// "ecmf/an"), `run_time` (the reference time in ms since 1970; the earliest for analyses of
// several times; forecasts of several runs are refused unless the attributes name the run) and,
// in an ensemble, `member`. Attributes the caller gives win.
//
// Many files make one dataset (a run published one file per step): the union of their fields,
// which must share one grid. A run can also grow as its files arrive (`append`): each import adds
// its steps, marks them complete once written, and readers in other processes read the complete
// steps meanwhile (status INGESTING); `finish` or `expected_steps` marks the run DONE.
// Streams: one decoded field at a time plus the writer's bounded queue.
#ifndef GRIDSTORE_IMPORTERS_GRIB_GRIB_IMPORTER_H_
#define GRIDSTORE_IMPORTERS_GRIB_GRIB_IMPORTER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gridstore/grid/grid_store.h"
#include "gridstore/importers/netcdf/netcdf_importer.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::importers {

struct GribImportOptions {
  std::string dataset_id;  // required
  // Extra dataset attributes, set after the file's (they win).
  grid::Attributes attributes;
  grid::BlockLayout layout = ImportLayoutFor(/*distributed=*/false);
  // Replace an existing dataset (it stays readable until the new one is whole).
  bool overwrite = false;
  // kFloat32 (the default: GRIB packing rarely carries more than 24 bits) or kFloat64 (ecCodes'
  // decoded doubles as they are).
  grid::DataType type = grid::DataType::kFloat32;
  // Raw bytes of planes queued for compression and writing at most.
  size_t memory_budget_bytes = 64ull << 20;
  std::function<void(const ImportProgress&)> on_progress;
  // Add the files' steps and new variables to dataset_id, a run arriving step by step, creating
  // it if it does not exist (docs/usage-import.md, "A run arriving step by step"). The dataset
  // is INGESTING while it grows: a step is readable once every level of it is written. New steps
  // must be later than the stored ones; grid, levels and reference time must match.
  bool append = false;
  // With append: mark the run DONE after this import.
  bool finish = false;
  // With append: mark the run DONE once this many steps are complete for every variable (0: only
  // `finish` does).
  int64_t expected_steps = 0;
  // With append, if not empty: the files' names (without folders) are added to this string
  // attribute of the dataset, one per line, in the meta write that marks their steps complete: a
  // record of what the run holds (`gridstore ingest` skips the files it lists).
  std::string sources_attribute;
};

// True if `path` holds GRIB (by content, never by name).
bool IsGribFile(const std::string& path);

// Reads every message of `path` as an import would (its structure, every header, every field's
// values and grid) and keeps nothing: OK if an import could read it. Errors as ReadGribMeta.
// `gridstore ingest` runs this in a child process before it imports a file, so that a file on
// which ecCodes itself crashes costs that file, never the ingest.
Status CheckGribFile(const std::string& path);

// The dataset meta an import of `paths` would create (without append; the first member's of
// an ensemble), reading headers only.
// Errors name the file and field: NotFound, InvalidArgument (not GRIB; a grid without fixed rows
// such as reduced_gg; fields on different grids; a duplicate field), DataLoss (a truncated or
// corrupt message), FailedPrecondition (ecCodes missing).
Result<grid::DataSetMeta> ReadGribMeta(const std::vector<std::string>& paths,
                                       const GribImportOptions& options,
                                       std::vector<std::string>* notes = nullptr);
inline Result<grid::DataSetMeta> ReadGribMeta(const std::string& path,
                                              const GribImportOptions& options,
                                              std::vector<std::string>* notes = nullptr) {
  return ReadGribMeta(std::vector<std::string>{path}, options, notes);
}

// Imports `paths` as dataset options.dataset_id (an ensemble as one dataset per member, written
// in one pass over the files). Without append: meta INIT, every field's plane,
// then DONE with create_time; on failure nothing of it remains (a replaced dataset stays as it
// was); errors as ReadGribMeta, and AlreadyExists without overwrite. With append: the dataset
// grows (created INGESTING with create_time if absent) and the steps written are marked complete;
// FailedPrecondition naming file, variable and time for a step before the last stored one, a step
// already complete, a step with only some of its levels, another run's file, another grid or
// levels, or a dataset whose status is neither DONE nor INGESTING. A failure while writing leaves
// its steps not complete (readers refuse them); the same import again completes them.
Result<ImportSummary> ImportGrib(grid::GridStore* store, const std::vector<std::string>& paths,
                                 const GribImportOptions& options);

// The same in two halves, so that a caller can check the files (and show the meta) before it
// opens or creates a store, without reading their headers twice. PlanGribImport errors as
// ReadGribMeta; RunGribImport as ImportGrib.
struct GribImportPlan;
Result<std::shared_ptr<const GribImportPlan>> PlanGribImport(const std::vector<std::string>& paths,
                                                             const GribImportOptions& options);
// The first dataset's meta (the only one unless the files are an ensemble).
const grid::DataSetMeta& PlannedMeta(const GribImportPlan& plan);
// Every dataset's meta, in member order: one per member of an ensemble, else one. Valid while
// `plan` lives.
std::vector<const grid::DataSetMeta*> PlannedMetas(const GribImportPlan& plan);
// `on_progress`, if set, replaces the planned options' callback.
Result<ImportSummary> RunGribImport(
    grid::GridStore* store, const GribImportPlan& plan,
    std::function<void(const ImportProgress&)> on_progress = nullptr);
inline Result<ImportSummary> ImportGrib(grid::GridStore* store, const std::string& path,
                                        const GribImportOptions& options) {
  return ImportGrib(store, std::vector<std::string>{path}, options);
}

}  // namespace gridstore::importers

#endif  // GRIDSTORE_IMPORTERS_GRIB_GRIB_IMPORTER_H_
