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
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "gridstore/blocks/grid_data_writer.h"
#include "gridstore/forecast/collection.h"
#include "gridstore/importers/internal/dataset_publish.h"
#include "gridstore/importers/internal/member_id.h"
#include "gridstore/importers/internal/run_merge.h"
#include "gridstore/importers/netcdf/internal/cf_mapping.h"
#include "gridstore/importers/netcdf/internal/import_precision.h"
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
using internal_importers::PlanFileImport;
using internal_importers::PlannedVariable;
using internal_importers::PlanSlabs;
using internal_importers::ReadCoordinateValues;
using internal_importers::ReadStructure;
using internal_importers::SlabPlan;
using internal_importers::WritePlanes;

}  // namespace

// An import's file, opened and read, and what importing it writes (NetCdfImportPlan's parts).
struct OpenedImport {
  std::string path;
  std::unique_ptr<NcFile> file;
  std::unique_ptr<FileStructure> structure;  // the plan points into it
  NetCdfImportOptions options;               // the options it was planned with
  ImportPlan plan;
  SlabPlan slabs;
  std::vector<int64_t> t_of;  // the file's t -> the dataset's (empty: the same)
};

namespace {

// Plans the import of the opened file with `options`: everything that can be checked is checked
// before the first write. The netCDF lock (the library is not thread-safe) is held only here,
// around netCDF calls, never across store I/O, so other imports and exports in this process wait
// on nothing but netCDF.
Status PlanOpened(const NetCdfImportOptions& options, OpenedImport* opened) {
  NetCdfLock lock(NetCdfMutex());
  const int ncid = opened->file->id();
  opened->options = options;
  GRIDSTORE_ASSIGN_OR_RETURN(opened->plan,
                             PlanFileImport(opened->path, options, *opened->structure));
  GRIDSTORE_RETURN_IF_ERROR(
      internal_importers::PlanPrecision(opened->path, options, &opened->plan));
  GRIDSTORE_RETURN_IF_ERROR(ReadCoordinateValues(ncid, opened->path, &opened->plan));
  GRIDSTORE_RETURN_IF_ERROR(
      internal_importers::ReadMembers(ncid, opened->path, *opened->structure, &opened->plan));
  // The run's reference time (docs/collections.md), unless the caller gives it.
  const std::string run_time(forecast::kRunTimeAttribute);
  if (options.attributes.count(run_time) == 0) {
    GRIDSTORE_ASSIGN_OR_RETURN(std::optional<int64_t> run,
                               internal_importers::ReadRunTime(
                                   ncid, opened->path, *opened->structure, &opened->plan.notes));
    if (run) opened->plan.meta.attributes[run_time] = AttributeValue::Int64(*run);
  }
  GRIDSTORE_RETURN_IF_ERROR(
      opened->plan.meta.Validate().WithContext("importing " + Quote(opened->path)));
  opened->slabs = PlanSlabs(ncid, opened->plan, options.memory_budget_bytes);
  return Status::OK();
}

// Opens `path` (once per import: the plan keeps it open) and plans it.
Result<std::unique_ptr<OpenedImport>> OpenAndPlan(const std::string& path,
                                                  const NetCdfImportOptions& options) {
  GRIDSTORE_RETURN_IF_ERROR(internal_importers::LoadNetCdf());
  auto opened = std::make_unique<OpenedImport>();
  opened->path = path;
  {
    NetCdfLock lock(NetCdfMutex());
    GRIDSTORE_ASSIGN_OR_RETURN(opened->file, OpenNetCdf(path));
    GRIDSTORE_ASSIGN_OR_RETURN(FileStructure structure, ReadStructure(opened->file->id(), path));
    opened->structure = std::make_unique<FileStructure>(std::move(structure));
  }
  GRIDSTORE_RETURN_IF_ERROR(PlanOpened(options, opened.get()));
  return opened;
}

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

}  // namespace

struct NetCdfImportPlan {
  NetCdfImportOptions options;
  std::vector<std::unique_ptr<OpenedImport>> files;  // in time order; each written in turn
  DataSetMeta meta;                                  // the dataset the files make together
  std::vector<std::string> notes;
  // Variables with a member dimension: one dataset per member ("ID/m03"), each `meta` with its
  // id and `member` attribute; members[k] is the index along the dimension of member_metas[k].
  std::vector<DataSetMeta> member_metas;
  std::vector<int64_t> member_index;
};

namespace {

// The files joined along time, in time order: each file's t -> the dataset's, and each later
// file replanned (from the structure already read, not opened again) for its variables along
// time only (the others, such as a land mask, come from the first file).
Status JoinAlongTime(NetCdfImportPlan* plan) {
  std::vector<grid::CivilTime> first;
  for (const auto& file : plan->files) {
    GRIDSTORE_ASSIGN_OR_RETURN(grid::CivilTime t0, FirstTime(file->plan.meta, file->path));
    first.push_back(t0);
  }
  std::vector<size_t> order(plan->files.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return Before(first[a], first[b]); });
  std::vector<std::unique_ptr<OpenedImport>> sorted;
  for (size_t i : order) sorted.push_back(std::move(plan->files[i]));
  plan->files = std::move(sorted);
  DataSetMeta joined = plan->files.front()->plan.meta;
  std::set<std::pair<std::string, int64_t>> written;
  std::vector<std::unique_ptr<OpenedImport>> kept;
  for (size_t k = 0; k < plan->files.size(); ++k) {
    OpenedImport& file = *plan->files[k];
    std::vector<int64_t> t_of;
    if (k == 0) {
      for (int64_t t = 0; t < joined.variables.front().shape[grid::kT]; ++t) t_of.push_back(t);
    } else {
      GRIDSTORE_ASSIGN_OR_RETURN(
          internal_importers::RunMerge merge,
          internal_importers::MergeIntoRun(joined, file.plan.meta, Quote(file.path)));
      joined = std::move(merge.merged);
      t_of = std::move(merge.t_of);
    }
    std::vector<std::string> along_time;
    for (const grid::VariableMeta& v : file.plan.meta.variables) {
      if (v.dimension_names[grid::kT].empty()) continue;
      along_time.push_back(v.name);
      for (int64_t t : t_of) {
        if (!written.insert({v.name, t}).second) {
          return Status::InvalidArgument(Quote(file.path) + ": variable " + Quote(v.name) +
                                         " at a time another of the files has it too");
        }
      }
    }
    file.t_of = std::move(t_of);
    if (k > 0 && along_time.size() != file.plan.meta.variables.size()) {
      if (along_time.empty()) continue;  // nothing of it along time: not read at all
      NetCdfImportOptions file_options = plan->options;
      file_options.variables = along_time;
      auto not_here = [&](const auto& entry) {
        return std::find(along_time.begin(), along_time.end(), entry.first) == along_time.end();
      };
      std::erase_if(file_options.keep_bits, not_here);
      std::erase_if(file_options.keep_digits, not_here);
      GRIDSTORE_RETURN_IF_ERROR(PlanOpened(file_options, &file));
    }
    kept.push_back(std::move(plan->files[k]));
  }
  plan->files = std::move(kept);
  plan->meta = std::move(joined);
  return Status::OK();
}

// An ensemble along a member dimension: one dataset per member, the same in every file.
Status PlanMembers(NetCdfImportPlan* plan) {
  const ImportPlan& first = plan->files.front()->plan;
  for (const auto& file : plan->files) {
    if (file->plan.members != first.members) {
      return Status::InvalidArgument(Quote(file->path) + " has other ensemble members than " +
                                     Quote(plan->files.front()->path) +
                                     ": files of one import share their members");
    }
  }
  const std::string member(forecast::kMemberAttribute);
  for (size_t k = 0; k < first.members.size(); ++k) {
    DataSetMeta meta = plan->meta;
    meta.id = internal_importers::MemberDatasetId(plan->meta.id, first.members[k]);
    if (plan->options.attributes.count(member) == 0) {
      meta.attributes[member] = AttributeValue::Int64(first.members[k]);
    }
    GRIDSTORE_RETURN_IF_ERROR(meta.Validate());
    plan->member_metas.push_back(std::move(meta));
    plan->member_index.push_back(static_cast<int64_t>(k));
  }
  return Status::OK();
}

// Files of one dataset are one run: InvalidArgument naming two files of different
// forecast_reference_times (a run time the caller gives joins them).
Status CheckOneRun(const NetCdfImportPlan& plan) {
  const std::string run_time(forecast::kRunTimeAttribute);
  if (plan.options.attributes.count(run_time) > 0) return Status::OK();
  const OpenedImport* first = nullptr;
  for (const auto& file : plan.files) {
    auto run = file->plan.meta.attributes.find(run_time);
    if (run == file->plan.meta.attributes.end()) continue;
    if (first == nullptr) {
      first = file.get();
      continue;
    }
    const grid::AttributeValue& first_run = first->plan.meta.attributes.at(run_time);
    if (!(run->second == first_run)) {
      return Status::InvalidArgument(
          Quote(file->path) + " is of the run of " +
          forecast::FormatIsoMs(static_cast<int64_t>(run->second.AsDouble())) + ", " +
          Quote(first->path) + " of " +
          forecast::FormatIsoMs(static_cast<int64_t>(first_run.AsDouble())) +
          " (forecast_reference_time): import each run separately (or name the run with --run)");
    }
  }
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<const NetCdfImportPlan>> PlanNetCdfImport(
    const std::vector<std::string>& paths, const NetCdfImportOptions& options) {
  if (paths.empty()) return Status::InvalidArgument("no NetCDF file given to import");
  auto plan = std::make_shared<NetCdfImportPlan>();
  plan->options = options;
  for (const std::string& path : paths) {
    GRIDSTORE_ASSIGN_OR_RETURN(std::unique_ptr<OpenedImport> opened, OpenAndPlan(path, options));
    if (plan->files.empty()) plan->notes = opened->plan.notes;
    plan->files.push_back(std::move(opened));
  }
  GRIDSTORE_RETURN_IF_ERROR(CheckOneRun(*plan));
  if (plan->files.size() == 1) {
    plan->meta = plan->files.front()->plan.meta;
  } else {
    GRIDSTORE_RETURN_IF_ERROR(JoinAlongTime(plan.get()));
  }
  GRIDSTORE_RETURN_IF_ERROR(PlanMembers(plan.get()));
  return std::shared_ptr<const NetCdfImportPlan>(std::move(plan));
}

const grid::DataSetMeta& PlannedMeta(const NetCdfImportPlan& plan) {
  return plan.member_metas.empty() ? plan.meta : plan.member_metas.front();
}

std::vector<const grid::DataSetMeta*> PlannedMetas(const NetCdfImportPlan& plan) {
  if (plan.member_metas.empty()) return {&plan.meta};
  std::vector<const grid::DataSetMeta*> metas;
  for (const DataSetMeta& meta : plan.member_metas) metas.push_back(&meta);
  return metas;
}
const std::vector<std::string>& PlannedNotes(const NetCdfImportPlan& plan) { return plan.notes; }

Result<ImportSummary> RunNetCdfImport(grid::GridStore* store, const NetCdfImportPlan& plan,
                                      std::function<void(const ImportProgress&)> on_progress) {
  const auto started = std::chrono::steady_clock::now();
  if (plan.meta.id.empty()) return Status::InvalidArgument("no dataset id given to import");
  // Whole or absent (internal/dataset_publish.h): INIT while written, DONE when whole; a
  // failure removes what was written (a replacement leaves the old dataset as it was). An
  // ensemble: every member's dataset begun, each written in turn (its slice of every file),
  // then all published, so that a failure leaves none of them.
  grid::WriteGridOptions write_options;
  write_options.max_pending_bytes = plan.files.size() == 1 ? plan.files.front()->slabs.max_pending
                                                           : plan.options.memory_budget_bytes / 2;
  write_options.bulk_load = true;  // marked DONE (or complete) only after Flush
  const std::vector<const DataSetMeta*> metas = PlannedMetas(plan);
  std::vector<std::unique_ptr<internal_importers::DatasetPublisher>> publishers;
  for (const DataSetMeta* meta : metas) {
    GRIDSTORE_ASSIGN_OR_RETURN(auto publisher,
                               internal_importers::DatasetPublisher::Begin(
                                   store, *meta, plan.options.overwrite, write_options));
    publishers.push_back(std::move(publisher));
  }
  ImportSummary summary;
  for (size_t k = 0; k < publishers.size(); ++k) {
    for (const auto& file : plan.files) {
      NetCdfImportOptions options = file->options;
      if (on_progress) options.on_progress = on_progress;
      ImportPlan member_plan;
      const ImportPlan* file_plan = &file->plan;
      if (!plan.member_metas.empty()) {
        member_plan = file->plan;
        for (PlannedVariable& pv : member_plan.variables) pv.member_index = plan.member_index[k];
        file_plan = &member_plan;
      }
      internal_importers::WriteTally tally;
      GRIDSTORE_RETURN_IF_ERROR(WritePlanes(file->path, options, *file_plan, file->file->id(),
                                            file->slabs, publishers[k]->writer(), &tally,
                                            plan.files.size() == 1 ? nullptr : &file->t_of));
      summary.peak_buffered_bytes = std::max(summary.peak_buffered_bytes, tally.peak);
      summary.planes_from_chunks += tally.planes_from_chunks;
    }
    GRIDSTORE_RETURN_IF_ERROR(publishers[k]->FinishWrites());
  }
  for (auto& publisher : publishers) {
    GRIDSTORE_RETURN_IF_ERROR(publisher->Publish());
    const grid::WriteStats& stats = publisher->stats();
    summary.datasets.push_back(publisher->meta().id);
    summary.planes += stats.planes;
    summary.raw_bytes += stats.raw_bytes;
    summary.stored_bytes += stats.stored_bytes;
  }
  summary.dataset_id = summary.datasets.front();
  summary.variables = static_cast<int>(plan.meta.variables.size());
  summary.notes = plan.notes;
  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

Result<grid::DataSetMeta> ReadNetCdfMeta(const std::string& path,
                                         const NetCdfImportOptions& options,
                                         std::vector<std::string>* notes) {
  GRIDSTORE_ASSIGN_OR_RETURN(auto plan, PlanNetCdfImport({path}, options));
  if (notes) *notes = plan->notes;
  return PlannedMeta(*plan);
}

Result<ImportSummary> ImportNetCdf(grid::GridStore* store, const std::string& path,
                                   const NetCdfImportOptions& options) {
  return ImportNetCdfFiles(store, {path}, options);
}

Result<grid::DataSetMeta> ReadNetCdfFilesMeta(const std::vector<std::string>& paths,
                                              const NetCdfImportOptions& options) {
  GRIDSTORE_ASSIGN_OR_RETURN(auto plan, PlanNetCdfImport(paths, options));
  return PlannedMeta(*plan);
}

Result<ImportSummary> ImportNetCdfFiles(grid::GridStore* store,
                                        const std::vector<std::string>& paths,
                                        const NetCdfImportOptions& options) {
  if (options.dataset_id.empty()) {
    return Status::InvalidArgument("no dataset id given for importing " +
                                   (paths.empty() ? std::string("no file") : Quote(paths[0])));
  }
  GRIDSTORE_ASSIGN_OR_RETURN(auto plan, PlanNetCdfImport(paths, options));
  return RunNetCdfImport(store, *plan, options.on_progress);
}

}  // namespace gridstore::importers
