// Copyright 2026 The GridStore Authors.
//
// Imports a NetCDF file (classic, 64-bit offset, or netCDF-4/HDF5) into a GridStore dataset, and
// maps its structure to a DataSetMeta. The only code besides netcdf_exporter that includes
// netCDF-C. Mapping (DESIGN.md): the last two dimensions of a variable are x and y; with four
// dimensions the first two are t and z; with three, the leading one is z if it is vertical by CF
// conventions (axis "Z", a `positive` attribute, or pressure units) and t otherwise; with two,
// t = z = 1. Coordinate variables (1-D and 2-D, including auxiliary ones named by `coordinates`)
// go into the meta; bounds, character, string, scalar and 1-D data variables are skipped with a
// note; a variable with 5 or more dimensions is an error naming it, unless its first is a
// dimension of ensemble members (CF realization): then each member is a dataset of its own,
// "ID/m03" (docs/usage-import.md, "Forecast collections"). A CF forecast_reference_time gives
// the dataset's `run_time` attribute (ms since 1970).
//
// Values are kept exactly as stored (packed shorts stay shorts) with what is needed to unpack and
// label them. Memory stays bounded by the budget whatever the file size, while reading,
// compression and writing overlap on every core. Thread-compatible: one import per call.
#ifndef GRIDSTORE_IMPORTERS_NETCDF_NETCDF_IMPORTER_H_
#define GRIDSTORE_IMPORTERS_NETCDF_NETCDF_IMPORTER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gridstore/grid/grid_store.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::importers {

struct ImportProgress {
  int64_t planes_done = 0;
  int64_t planes_total = 0;
  int64_t bytes_done = 0;   // raw bytes read from the file so far
  int64_t bytes_total = 0;  // raw bytes of every selected variable
  std::string variable;     // the variable being read now
};

// Rows per frame of imported blocks unless the caller chooses (gridstore import --frame-rows).
inline constexpr int64_t kDefaultImportFrameRows = 16;

// The layout of a new dataset unless the caller chooses one: grid::DefaultBlockLayout's block
// shape for the store (`distributed`: a RADOS store, storage::IsDistributedUri), framed
// kDefaultImportFrameRows rows at a time.
inline grid::BlockLayout ImportLayoutFor(bool distributed) {
  grid::BlockLayout layout = grid::DefaultBlockLayout(distributed);
  layout.frame_rows = kDefaultImportFrameRows;
  return layout;
}

struct NetCdfImportOptions {
  // The dataset id to create. Required.
  std::string dataset_id;
  // Variables to import, by NetCDF name; empty means every gridded variable. An unknown name is
  // InvalidArgument listing the gridded variables the file has.
  std::vector<std::string> variables;
  // Extra dataset attributes (the command's --attr KEY=VALUE), set after the file's global
  // attributes, so they win. `status` and `create_time` are set by the import itself.
  grid::Attributes attributes;
  // Block shape, codec and frames of the new dataset. Imports frame their blocks by default, so
  // that point and profile reads decompress part of a block instead of all of it; the default keeps
  // the compression ratio within a few % of unframed blocks (measured: docs/usage-import.md).
  grid::BlockLayout layout = ImportLayoutFor(/*distributed=*/false);
  // Replace an existing dataset of the same id completely. The new data is written beside the
  // old (GridStore::BeginReplacement), which stays readable until the new is whole and takes its
  // place in one atomic switch; a failure or kill leaves the old dataset as it was. Without it,
  // an existing id (also one left INIT by a failed import) is AlreadyExists.
  bool overwrite = false;
  // Lossy precision, by variable name (`gridstore import --keep-bits VAR=N`, `--keep-digits`):
  // values are rounded before compression to keep N explicit mantissa bits (netCDF-C's BitRound)
  // or N significant decimal digits (netCDF-C's Granular BitRound), bit for bit as netCDF-C's
  // nc_def_var_quantize, and the variable gets netCDF-C's attribute recording it. The fill value,
  // missing values, NaN and infinities are kept. InvalidArgument naming the variable for a name
  // not imported, a variable in both maps, an integer or packed variable (kept exactly), and N
  // outside 1..23 bits / 1..7 digits (float32) or 1..52 / 1..15 (float64).
  std::map<std::string, int> keep_bits;
  std::map<std::string, int> keep_digits;
  // Upper bound on the raw bytes of planes held at once (read buffers, the chunk cache of a
  // chunked file, planes queued for compression and writing). The import of a file larger than
  // this (or than RAM) still works. The default keeps a whole import under 512 MiB of memory
  // with the store's own (docs/benchmarks.md).
  size_t memory_budget_bytes = 256ull << 20;
  // Read variables stored in HDF5 chunks with only the deflate and shuffle filters (what nccopy
  // -d/-s and netCDF4-python's zlib/shuffle write) by inflating their chunks on every core
  // instead of through netCDF-C on one thread. The values are the same byte for byte; false
  // reads everything through netCDF-C (for comparison).
  bool parallel_inflate = true;
  // Threads inflating chunks when parallel_inflate applies; 0 means one per core (at most 8).
  int inflate_threads = 0;
  // Called from the importing thread after each plane is queued; may be empty.
  std::function<void(const ImportProgress&)> on_progress;
};

struct ImportSummary {
  std::string dataset_id;  // the first of `datasets`
  // Every dataset the import made or grew: one, or one per member of an ensemble ("ens/m00",
  // "ens/m01"...; docs/collections.md). The counts below are their totals; `variables` is one's.
  std::vector<std::string> datasets;
  int variables = 0;
  int64_t planes = 0;
  int64_t raw_bytes = 0;     // bytes of values imported
  int64_t stored_bytes = 0;  // compressed block bytes written
  double seconds = 0;
  // The most raw plane bytes the import held at once (read buffers + in-flight planes); at most
  // memory_budget_bytes, except that a single plane larger than the budget is always allowed.
  size_t peak_buffered_bytes = 0;
  // Planes read by inflating their chunks in parallel (NetCdfImportOptions::parallel_inflate);
  // the others were read through netCDF-C.
  int64_t planes_from_chunks = 0;
  // What was not imported and why ("skipped 'time_bnds': bounds variable"), one sentence each.
  std::vector<std::string> notes;
  // The dataset's status afterwards: DONE, or INGESTING while a run arrives (append).
  std::string status = "DONE";
  // Append: the run's steps, and those complete for every variable.
  int64_t steps = 0, complete_steps = 0;
};

// Reads the structure of the NetCDF file at `path` (no data) and returns the dataset meta an
// import would create: variables with their (t, z, x, y) shapes, types, fill values, packing and
// attributes; coordinates; global attributes. `notes` (may be null) receives what would be
// skipped. Errors name the file: NotFound (no such file), InvalidArgument (not a NetCDF file, a
// variable with 5 or more dimensions, an unknown --variables name), DataLoss (truncated or
// corrupt file).
Result<grid::DataSetMeta> ReadNetCdfMeta(const std::string& path,
                                         const NetCdfImportOptions& options,
                                         std::vector<std::string>* notes = nullptr);

// Imports the file into `store`: writes the meta with status INIT, then every plane, then the
// meta with status DONE and create_time (ms since the epoch). On failure the error names the file,
// variable and what went wrong, and what was written is removed: a new dataset is deleted, a
// replaced one (overwrite) is left as it was. Only a process killed mid-import leaves a dataset
// behind, visibly not DONE (GridStore::DeleteDataSet removes it, or an overwrite replaces it).
// If the failure is detected before anything is written (bad file, unknown variable, existing
// id), nothing is written at all. The netCDF lock is held only around netCDF calls. Callers that
// want the store settled (no log to replay at the next open) call GridStore::Flush afterwards.
Result<ImportSummary> ImportNetCdf(grid::GridStore* store, const std::string& path,
                                   const NetCdfImportOptions& options);

// Imports several NetCDF files split along time (a run or a series written one file per step,
// month or year) as one dataset: the union of their times, in time order whatever the order of
// `paths`, each file's planes written at its times. Everything else must agree: variables' types,
// shapes besides time, fill values and packing; coordinates besides time (grid, levels). Time
// coordinates may have different units ("days since" another date): they are converted to the
// first file's. Errors as ImportNetCdf, and FailedPrecondition naming the file, variable or
// coordinate and both values where files disagree, InvalidArgument for a file without a time
// axis or a variable repeated at one time in two files. Whole or absent, as ImportNetCdf.
// The dataset meta ImportNetCdfFiles would create, reading the files' structure only; its errors.
Result<grid::DataSetMeta> ReadNetCdfFilesMeta(const std::vector<std::string>& paths,
                                              const NetCdfImportOptions& options);
Result<ImportSummary> ImportNetCdfFiles(grid::GridStore* store,
                                        const std::vector<std::string>& paths,
                                        const NetCdfImportOptions& options);

// The same in two halves (importers/import.h's PlanImport and RunImport are built on them): the
// files opened once, checked, joined along time and planned; then written. The plan keeps the
// files open until it is destroyed. PlanNetCdfImport errors as ReadNetCdfFilesMeta,
// RunNetCdfImport as ImportNetCdfFiles. `on_progress`, if set, replaces the options' callback.
struct NetCdfImportPlan;
Result<std::shared_ptr<const NetCdfImportPlan>> PlanNetCdfImport(
    const std::vector<std::string>& paths, const NetCdfImportOptions& options);
// The dataset's meta (the first member's if the variables have a member dimension: CF
// `realization`, or a leading dimension named realization, ensemble, member or number, which
// makes one dataset per member, "ID/m03", as GRIB's ensembles do).
const grid::DataSetMeta& PlannedMeta(const NetCdfImportPlan& plan);
// Every dataset's meta: one per member, or the one. Valid while `plan` lives.
std::vector<const grid::DataSetMeta*> PlannedMetas(const NetCdfImportPlan& plan);
const std::vector<std::string>& PlannedNotes(const NetCdfImportPlan& plan);
Result<ImportSummary> RunNetCdfImport(
    grid::GridStore* store, const NetCdfImportPlan& plan,
    std::function<void(const ImportProgress&)> on_progress = nullptr);

}  // namespace gridstore::importers

#endif  // GRIDSTORE_IMPORTERS_NETCDF_NETCDF_IMPORTER_H_
