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
#include <string>
#include <utility>
#include <vector>

#include "gridstore/grid/grid.h"
#include "gridstore/grid/grid_data_writer.h"
#include "gridstore/grid/names.h"
#include "gridstore/importers/internal/cf_mapping.h"
#include "gridstore/importers/internal/dataset_publish.h"
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

  // Whole or absent (internal/dataset_publish.h): INIT while written, DONE when whole; a
  // failure removes what was written (a replacement leaves the old dataset as it was).
  grid::WriteGridOptions write_options;
  write_options.max_pending_bytes = slabs.max_pending;
  GRIDSTORE_ASSIGN_OR_RETURN(auto publisher, internal_importers::DatasetPublisher::Begin(
                                                 store, meta, options.overwrite, write_options));
  size_t peak_buffered_bytes = 0;
  GRIDSTORE_RETURN_IF_ERROR(
      WritePlanes(path, options, plan, ncid, slabs, publisher->writer(), &peak_buffered_bytes));
  GRIDSTORE_RETURN_IF_ERROR(publisher->Publish());
  const grid::WriteStats& stats = publisher->stats();

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
