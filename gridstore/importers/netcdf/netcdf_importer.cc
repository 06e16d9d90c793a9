// Copyright 2026 The GridStore Authors.
//
// NetCDF import: the entry points. The work is in internal/: netcdf_file (opening the file,
// its structure, netCDF-C errors as a Status), cf_mapping (the CF rules, pure functions of the
// structure), netcdf_slab_reader (streaming planes into the writer). The import validates
// everything it can before it writes.
#include "gridstore/importers/netcdf/netcdf_importer.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gridstore/blocks/grid_data_writer.h"
#include "gridstore/importers/internal/dataset_publish.h"
#include "gridstore/importers/internal/run_merge.h"
#include "gridstore/importers/netcdf/internal/cf_mapping.h"
#include "gridstore/importers/netcdf/internal/import_precision.h"
#include "gridstore/importers/netcdf/internal/netcdf_api.h"
#include "gridstore/importers/netcdf/internal/netcdf_file.h"
#include "gridstore/importers/netcdf/internal/netcdf_slab_reader.h"
#include "gridstore/importers/netcdf/internal/netcdf_util.h"
#include "gridstore/model/cf_time.h"
#include "gridstore/model/grid.h"
#include "gridstore/model/names.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::importers {
namespace {

using grid::AttributeValue;
using grid::DataSetMeta;
using internal_importers::FileStructure;
using internal_importers::ImportPlan;
using internal_importers::NcFile;
using internal_importers::NetCdfLock;
using internal_importers::NetCdfMutex;
using internal_importers::OpenNetCdf;
using internal_importers::PlanImport;
using internal_importers::PlanSlabs;
using internal_importers::ReadCoordinateValues;
using internal_importers::ReadStructure;
using internal_importers::SlabPlan;
using internal_importers::WritePlanes;

}  // namespace

namespace {

// An import's file, opened and read, and what importing it writes.
struct OpenedImport {
  std::unique_ptr<NcFile> file;
  std::unique_ptr<FileStructure> structure;  // the plan points into it
  ImportPlan plan;
  SlabPlan slabs;
};

// Opens `path` and plans its import: everything that can be checked is checked before the
// first write. The netCDF lock (the library is not thread-safe) is held only here, around netCDF
// calls, never across store I/O, so other imports and exports in this process wait on nothing
// but netCDF.
Result<OpenedImport> OpenAndPlan(const std::string& path, const NetCdfImportOptions& options) {
  GRIDSTORE_RETURN_IF_ERROR(internal_importers::LoadNetCdf());
  NetCdfLock lock(NetCdfMutex());
  OpenedImport opened;
  GRIDSTORE_ASSIGN_OR_RETURN(opened.file, OpenNetCdf(path));
  const int ncid = opened.file->id();
  GRIDSTORE_ASSIGN_OR_RETURN(FileStructure structure, ReadStructure(ncid, path));
  opened.structure = std::make_unique<FileStructure>(std::move(structure));
  GRIDSTORE_ASSIGN_OR_RETURN(opened.plan, PlanImport(path, options, *opened.structure));
  GRIDSTORE_RETURN_IF_ERROR(internal_importers::PlanPrecision(path, options, &opened.plan));
  GRIDSTORE_RETURN_IF_ERROR(ReadCoordinateValues(ncid, path, &opened.plan));
  GRIDSTORE_RETURN_IF_ERROR(opened.plan.meta.Validate().WithContext("importing " + Quote(path)));
  opened.slabs = PlanSlabs(ncid, opened.plan, options.memory_budget_bytes);
  return opened;
}

}  // namespace

Result<grid::DataSetMeta> ReadNetCdfMeta(const std::string& path,
                                         const NetCdfImportOptions& options,
                                         std::vector<std::string>* notes) {
  GRIDSTORE_ASSIGN_OR_RETURN(OpenedImport opened, OpenAndPlan(path, options));
  if (notes) *notes = std::move(opened.plan.notes);
  return std::move(opened.plan.meta);
}

Result<ImportSummary> ImportNetCdf(grid::GridStore* store, const std::string& path,
                                   const NetCdfImportOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  if (options.dataset_id.empty()) {
    return Status::InvalidArgument("no dataset id given for importing " + Quote(path));
  }
  GRIDSTORE_ASSIGN_OR_RETURN(OpenedImport opened, OpenAndPlan(path, options));
  ImportPlan& plan = opened.plan;
  const SlabPlan& slabs = opened.slabs;
  const int ncid = opened.file->id();
  DataSetMeta& meta = plan.meta;

  // Whole or absent (internal/dataset_publish.h): INIT while written, DONE when whole; a
  // failure removes what was written (a replacement leaves the old dataset as it was).
  grid::WriteGridOptions write_options;
  write_options.max_pending_bytes = slabs.max_pending;
  write_options.bulk_load = true;  // marked DONE (or complete) only after Flush
  GRIDSTORE_ASSIGN_OR_RETURN(auto publisher, internal_importers::DatasetPublisher::Begin(
                                                 store, meta, options.overwrite, write_options));
  internal_importers::WriteTally tally;
  GRIDSTORE_RETURN_IF_ERROR(
      WritePlanes(path, options, plan, ncid, slabs, publisher->writer(), &tally));
  GRIDSTORE_RETURN_IF_ERROR(publisher->Publish());
  const grid::WriteStats& stats = publisher->stats();

  ImportSummary summary;
  summary.dataset_id = meta.id;
  summary.variables = static_cast<int>(meta.variables.size());
  summary.planes = stats.planes;
  summary.raw_bytes = stats.raw_bytes;
  summary.stored_bytes = stats.stored_bytes;
  summary.peak_buffered_bytes = tally.peak;
  summary.planes_from_chunks = tally.planes_from_chunks;
  summary.notes = std::move(plan.notes);
  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

namespace {

// The first time of `meta` (its time coordinate: the variables' t dimension), as a date.
Result<grid::CivilTime> FirstTime(const DataSetMeta& meta, const std::string& path) {
  for (const grid::VariableMeta& v : meta.variables) {
    const grid::Coordinate* time = meta.FindCoordinate(v.dimension_names[grid::kT]);
    if (v.dimension_names[grid::kT].empty() || time == nullptr || time->values.empty()) continue;
    auto units = grid::TimeUnits::Parse(grid::StringAttribute(time->attributes, "units"),
                                        grid::StringAttribute(time->attributes, "calendar"));
    if (!units.ok()) {
      return units.status().WithContext(Quote(path) + ": time coordinate " + Quote(time->name));
    }
    return units->ToCivil(time->values.front());
  }
  return Status::InvalidArgument(Quote(path) +
                                 " has no time axis: files make one dataset along time only");
}

bool Before(const grid::CivilTime& a, const grid::CivilTime& b) {
  return std::tie(a.year, a.month, a.day, a.hour, a.minute, a.microsecond) <
         std::tie(b.year, b.month, b.day, b.hour, b.minute, b.microsecond);
}

// The files' metas joined along time, in time order: *order gets the files' order, *t_of each
// file's t -> the dataset's, *along_time each file's variables along time (the others, such as a
// land mask, are taken from the first file).
Result<DataSetMeta> JoinAlongTime(const std::vector<std::string>& paths,
                                  const NetCdfImportOptions& options, std::vector<size_t>* order,
                                  std::vector<std::vector<int64_t>>* t_of,
                                  std::vector<std::vector<std::string>>* along_time,
                                  std::vector<std::string>* notes) {
  std::vector<DataSetMeta> metas;
  std::vector<grid::CivilTime> first;
  for (const std::string& path : paths) {
    std::vector<std::string> file_notes;
    GRIDSTORE_ASSIGN_OR_RETURN(DataSetMeta meta, ReadNetCdfMeta(path, options, &file_notes));
    GRIDSTORE_ASSIGN_OR_RETURN(grid::CivilTime t0, FirstTime(meta, path));
    metas.push_back(std::move(meta));
    first.push_back(t0);
    if (notes->empty()) *notes = std::move(file_notes);
  }
  order->resize(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) (*order)[i] = i;
  std::stable_sort(order->begin(), order->end(),
                   [&](size_t a, size_t b) { return Before(first[a], first[b]); });
  t_of->assign(paths.size(), {});
  DataSetMeta joined = metas[order->front()];
  for (int64_t t = 0; t < joined.variables.front().shape[grid::kT]; ++t) {
    (*t_of)[order->front()].push_back(t);
  }
  std::set<std::pair<std::string, int64_t>> written;
  along_time->assign(paths.size(), {});
  for (size_t k = 0; k < order->size(); ++k) {
    const size_t i = (*order)[k];
    if (k > 0) {
      GRIDSTORE_ASSIGN_OR_RETURN(
          internal_importers::RunMerge merge,
          internal_importers::MergeIntoRun(joined, metas[i], Quote(paths[i])));
      joined = std::move(merge.merged);
      (*t_of)[i] = std::move(merge.t_of);
    }
    for (const grid::VariableMeta& v : metas[i].variables) {
      if (v.dimension_names[grid::kT].empty()) continue;
      (*along_time)[i].push_back(v.name);
      for (int64_t t : (*t_of)[i]) {
        if (!written.insert({v.name, t}).second) {
          return Status::InvalidArgument(Quote(paths[i]) + ": variable " + Quote(v.name) +
                                         " at a time another of the files has it too");
        }
      }
    }
  }
  return joined;
}

}  // namespace

Result<grid::DataSetMeta> ReadNetCdfFilesMeta(const std::vector<std::string>& paths,
                                              const NetCdfImportOptions& options) {
  if (paths.size() == 1) return ReadNetCdfMeta(paths[0], options);
  std::vector<size_t> order;
  std::vector<std::vector<int64_t>> t_of;
  std::vector<std::vector<std::string>> along_time;
  std::vector<std::string> notes;
  return JoinAlongTime(paths, options, &order, &t_of, &along_time, &notes);
}

Result<ImportSummary> ImportNetCdfFiles(grid::GridStore* store,
                                        const std::vector<std::string>& paths,
                                        const NetCdfImportOptions& options) {
  if (paths.size() == 1) return ImportNetCdf(store, paths[0], options);
  if (paths.empty()) return Status::InvalidArgument("no NetCDF file given to import");
  const auto started = std::chrono::steady_clock::now();
  ImportSummary summary;
  std::vector<size_t> order;
  std::vector<std::vector<int64_t>> t_of;
  std::vector<std::vector<std::string>> along_time;
  GRIDSTORE_ASSIGN_OR_RETURN(
      DataSetMeta meta, JoinAlongTime(paths, options, &order, &t_of, &along_time, &summary.notes));
  grid::WriteGridOptions write_options;
  write_options.max_pending_bytes = options.memory_budget_bytes / 2;
  write_options.bulk_load = true;  // marked DONE (or complete) only after Flush
  GRIDSTORE_ASSIGN_OR_RETURN(auto publisher, internal_importers::DatasetPublisher::Begin(
                                                 store, meta, options.overwrite, write_options));
  for (size_t i : order) {
    // Opened again, one file at a time, and checked against what was planned. Variables without
    // time come from the first file only.
    NetCdfImportOptions file_options = options;
    if (i != order.front()) {
      file_options.variables = along_time[i];
      auto not_here = [&](const auto& entry) {
        return std::find(along_time[i].begin(), along_time[i].end(), entry.first) ==
               along_time[i].end();
      };
      std::erase_if(file_options.keep_bits, not_here);
      std::erase_if(file_options.keep_digits, not_here);
    }
    if (file_options.variables.empty() && i != order.front()) continue;
    GRIDSTORE_ASSIGN_OR_RETURN(OpenedImport opened, OpenAndPlan(paths[i], file_options));
    if (opened.plan.meta.variables.size() > meta.variables.size() ||
        (i != order.front() &&
         static_cast<int64_t>(t_of[i].size()) != opened.plan.meta.variables[0].shape[grid::kT])) {
      return Status::Aborted(Quote(paths[i]) + " changed while it was imported");
    }
    internal_importers::WriteTally tally;
    GRIDSTORE_RETURN_IF_ERROR(WritePlanes(paths[i], file_options, opened.plan, opened.file->id(),
                                          opened.slabs, publisher->writer(), &tally, &t_of[i]));
    summary.peak_buffered_bytes = std::max(summary.peak_buffered_bytes, tally.peak);
    summary.planes_from_chunks += tally.planes_from_chunks;
  }
  GRIDSTORE_RETURN_IF_ERROR(publisher->Publish());
  summary.dataset_id = meta.id;
  summary.variables = static_cast<int>(meta.variables.size());
  summary.planes = publisher->stats().planes;
  summary.raw_bytes = publisher->stats().raw_bytes;
  summary.stored_bytes = publisher->stats().stored_bytes;
  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

}  // namespace gridstore::importers
