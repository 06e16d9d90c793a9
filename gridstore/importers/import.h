// Copyright 2026 The GridStore Authors.
//
// The one way files become a dataset (the command's `import` and `ingest`, Python's
// import_netcdf/import_grib): PlanImport reads and checks everything it can (the format by
// content, one format per dataset, NetCDF files joined along time, GRIB fields grouped into
// variables, every option against the format) and returns an immutable plan with the meta the
// import will create; RunImport writes it, then adds the series layout if asked. Each input file
// is opened once per import: the plan keeps what it opened. Planning touches no store, so a bad
// file or option leaves none behind.
#ifndef GRIDSTORE_IMPORTERS_IMPORT_H_
#define GRIDSTORE_IMPORTERS_IMPORT_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gridstore/grid/grid_store.h"
#include "gridstore/importers/grib/grib_importer.h"
#include "gridstore/importers/netcdf/netcdf_importer.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::importers {

enum class FileFormat { kNetCdf, kGrib };
const char* FileFormatName(FileFormat format);  // "NetCDF", "GRIB"

struct ImportOptions {
  std::string dataset_id;  // required
  // Both formats: extra dataset attributes (they win over the files'), block layout, replace.
  // `run_time` given as a string is an ISO 8601 time, stored as ms since 1970 (int64).
  grid::Attributes attributes;
  // Both formats: the forecast collection (docs/collections.md) and the run's reference time
  // (ISO 8601), instead of those the files say (GRIB: centre and dataType, dataDate/dataTime;
  // NetCDF: forecast_reference_time, and no collection unless given). Empty: from the files.
  // The same attribute in `attributes` with another value is InvalidArgument.
  std::string collection;
  std::string run_time;
  // The block shape is the embedded store's default; ImportLayoutFor gives a store's.
  grid::BlockLayout layout = ImportLayoutFor(/*distributed=*/false);
  bool overwrite = false;
  // NetCDF only (InvalidArgument naming the GRIB file otherwise): variables to import (empty:
  // every gridded one) and lossy precision by variable (NetCdfImportOptions has the rules).
  std::vector<std::string> variables;
  std::map<std::string, int> keep_bits, keep_digits;
  int inflate_threads = 0;  // threads inflating netCDF-4 chunks (0: one per core)
  // GRIB only (InvalidArgument naming the NetCDF file otherwise): value type, a run arriving step
  // by step (GribImportOptions has the rules).
  std::optional<grid::DataType> type;
  bool append = false, finish = false;
  int64_t expected_steps = 0;
  std::string sources_attribute;
  // After the import (once the run is complete), add the time-major series layout.
  std::optional<grid::SeriesLayout> series;
};

class PlannedImport;  // immutable once planned; holds the files it opened

// Plans importing `files` as one dataset. Errors name the file (and variable, field, option):
// NotFound, InvalidArgument (mixed formats, an option the format does not take, an unknown
// variable, files that cannot be joined), DataLoss (a corrupt file), FailedPrecondition (a
// format library missing).
Result<std::shared_ptr<const PlannedImport>> PlanImport(const std::vector<std::string>& files,
                                                        const ImportOptions& options);

FileFormat PlannedFormat(const PlannedImport& plan);
// The dataset's meta as the import will create it (before append merges it into a run); the
// first member's for an ensemble.
const grid::DataSetMeta& PlannedDataSetMeta(const PlannedImport& plan);
// Every dataset's meta: one per member of an ensemble (ids "<id>/m00"...), else one. Valid
// while `plan` lives.
std::vector<const grid::DataSetMeta*> PlannedDataSetMetas(const PlannedImport& plan);
const std::vector<std::string>& PlannedFiles(const PlannedImport& plan);

// What RunImport did after the import itself: the series layout's report, or why it was not
// added yet (a run still arriving).
struct SeriesOutcome {
  bool added = false;
  std::string not_yet;  // why not (empty if added or not asked for)
  grid::RelayoutReport report;
  Status status;  // adding it failed: the import itself stands (relayout can add it later)
};

// Writes the plan into `store`: whole or absent, as ImportNetCdfFiles and RunGribImport say;
// then, asked for, settles the store and adds the series layout to every dataset written (a run
// still arriving gets a growing one, GridStore::AddSeriesLayout, unless it asks for all steps in
// one block, which waits for the whole run) (*series, may be null, says what happened, the
// reports summed; its failure is there, not in the result). `on_progress` may be
// empty; `on_series_progress` (done, total blocks) too. A dataset in a forecast collection
// (attribute `collection`): the store gets the collection index (forecast::EnsureCollectionIndex)
// first, and FailedPrecondition naming both runs refuses a run on another horizontal grid than the
// collection's other datasets.
Result<ImportSummary> RunImport(
    grid::GridStore* store, const PlannedImport& plan,
    const std::function<void(const ImportProgress&)>& on_progress, SeriesOutcome* series = nullptr,
    const std::function<void(int64_t, int64_t)>& on_series_progress = nullptr);

}  // namespace gridstore::importers

#endif  // GRIDSTORE_IMPORTERS_IMPORT_H_
