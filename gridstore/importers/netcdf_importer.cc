// Copyright 2026 The GridStore Authors.
//
// NetCDF import: the entry points. The work is in internal/: netcdf_file (opening the file,
// its structure, netCDF-C errors as a Status), cf_mapping (the CF rules, pure functions of the
// structure), netcdf_slab_reader (streaming planes into the writer). The import validates
// everything it can before it writes.
#include "gridstore/importers/netcdf_importer.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gridstore/grid/grid.h"
#include "gridstore/grid/grid_data_writer.h"
#include "gridstore/grid/names.h"
#include "gridstore/importers/internal/cf_mapping.h"
#include "gridstore/importers/internal/netcdf_api.h"
#include "gridstore/importers/internal/netcdf_file.h"
#include "gridstore/importers/internal/netcdf_slab_reader.h"
#include "gridstore/importers/internal/netcdf_util.h"
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

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

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

  auto existing = store->GetDataSetMeta(meta.id);
  if (existing.ok() && !options.overwrite) {
    return Status::AlreadyExists("dataset " + Quote(meta.id) + " already exists (status " +
                                 Quote(existing->status()) + "); use --overwrite to replace it");
  }
  if (!existing.ok() && !existing.status().IsNotFound()) return existing.status();

  // A new dataset is published as INIT at once, so that readers can tell an import in progress
  // (or one that died) from a complete one. A replacement is written beside the dataset it
  // replaces, which stays readable, and takes its place in one atomic switch at the end: a
  // failure or a kill at any moment leaves the old dataset or the new one, never neither.
  const bool replace = existing.ok();
  std::optional<DataSetMeta> staged;
  // What a failed import leaves: nothing. A replacement is dropped (the old dataset stays), a new
  // dataset deleted. (A killed one cannot clean up: it stays visibly INIT.)
  auto discard = [&] {
    if (replace) {
      store->AbandonReplacement(*staged).IgnoreError();
    } else {
      store->DeleteDataSet(meta.id).IgnoreError();
    }
  };
  grid::WriteGridOptions write_options;
  write_options.max_pending_bytes = slabs.max_pending;
  std::unique_ptr<grid::GridDataWriter> writer;
  if (replace) {
    GRIDSTORE_ASSIGN_OR_RETURN(staged, store->BeginReplacement(meta));
    auto made = store->GetReplacementWriter(*staged, write_options);
    if (!made.ok()) {
      store->AbandonReplacement(*staged).IgnoreError();
      return made.status();
    }
    writer = std::move(made).value();
    meta = *staged;
  } else {
    GRIDSTORE_RETURN_IF_ERROR(store->PutDataSetMeta(meta));
    GRIDSTORE_ASSIGN_OR_RETURN(writer, store->GetDataWriter(meta.id, write_options));
  }
  size_t peak_buffered_bytes = 0;
  Status written =
      WritePlanes(path, options, plan, ncid, slabs, writer.get(), &peak_buffered_bytes);
  const grid::WriteStats stats = writer->stats();
  writer.reset();
  if (!written.ok()) {
    discard();
    return written;
  }

  meta.set_status(grid::kStatusDone);
  meta.attributes[std::string(grid::kCreateTimeAttribute)] = AttributeValue::Int64(NowMillis());
  Status published = replace ? store->CommitReplacement(meta) : store->UpdateDataSetMeta(meta);
  if (!published.ok()) {
    discard();
    return published;
  }

  ImportSummary summary;
  summary.dataset_id = meta.id;
  summary.variables = static_cast<int>(meta.variables.size());
  summary.planes = stats.planes;
  summary.raw_bytes = stats.raw_bytes;
  summary.stored_bytes = stats.stored_bytes;
  summary.peak_buffered_bytes = peak_buffered_bytes;
  summary.notes = std::move(plan.notes);
  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

}  // namespace gridstore::importers
