// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/grib_importer.h"

#include <chrono>
#include <cmath>
#include <memory>
#include <utility>
#include <vector>

#include "gridstore/grid/grid.h"
#include "gridstore/importers/internal/dataset_publish.h"
#include "gridstore/importers/internal/grib_file.h"
#include "gridstore/importers/internal/grib_mapping.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::importers {
namespace {

using internal_importers::GribFile;
using internal_importers::GribPlan;

struct OpenedGrib {
  std::unique_ptr<GribFile> file;
  GribPlan plan;
};

Result<OpenedGrib> OpenAndPlan(const std::string& path, const GribImportOptions& options) {
  if (options.dataset_id.empty()) {
    return Status::InvalidArgument("no dataset id given for importing " + Quote(path));
  }
  if (options.type != grid::DataType::kFloat32 && options.type != grid::DataType::kFloat64) {
    return Status::InvalidArgument("GRIB values are stored as float32 or float64, not " +
                                   std::string(grid::DataTypeName(options.type)));
  }
  OpenedGrib opened;
  GRIDSTORE_ASSIGN_OR_RETURN(opened.file, GribFile::Open(path));
  GRIDSTORE_ASSIGN_OR_RETURN(auto fields, opened.file->Scan());
  // The grid's point coordinates, from the first field (every field must share its grid).
  std::vector<double> values, lats, lons;
  GRIDSTORE_RETURN_IF_ERROR(opened.file->Next(&values, &lats, &lons));
  GRIDSTORE_ASSIGN_OR_RETURN(
      opened.plan,
      internal_importers::PlanGrib(path, options.dataset_id, fields, options.type, lats, lons));
  for (const auto& [name, value] : options.attributes) opened.plan.meta.attributes[name] = value;
  opened.plan.meta.layout = options.layout;
  GRIDSTORE_RETURN_IF_ERROR(opened.plan.meta.Validate());
  GRIDSTORE_RETURN_IF_ERROR(opened.file->Rewind());
  return opened;
}

// A decoded field as a plane of the stored type.
grid::Grid2D ToPlane(const std::vector<double>& values, grid::DataType type, int64_t rows,
                     int64_t columns) {
  grid::Grid2D plane(type, rows, columns);
  if (type == grid::DataType::kFloat32) {
    auto out = plane.data<float>();
    for (size_t i = 0; i < values.size(); ++i) out[i] = static_cast<float>(values[i]);
  } else {
    auto out = plane.data<double>();
    std::copy(values.begin(), values.end(), out.begin());
  }
  return plane;
}

}  // namespace

bool IsGribFile(const std::string& path) { return internal_importers::LooksLikeGrib(path); }

Result<grid::DataSetMeta> ReadGribMeta(const std::string& path, const GribImportOptions& options,
                                       std::vector<std::string>* notes) {
  GRIDSTORE_ASSIGN_OR_RETURN(OpenedGrib opened, OpenAndPlan(path, options));
  if (notes != nullptr) *notes = opened.plan.notes;
  return std::move(opened.plan.meta);
}

Result<ImportSummary> ImportGrib(grid::GridStore* store, const std::string& path,
                                 const GribImportOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  GRIDSTORE_ASSIGN_OR_RETURN(OpenedGrib opened, OpenAndPlan(path, options));
  const GribPlan& plan = opened.plan;
  grid::WriteGridOptions write_options;
  write_options.max_pending_bytes = options.memory_budget_bytes;
  GRIDSTORE_ASSIGN_OR_RETURN(auto publisher,
                             internal_importers::DatasetPublisher::Begin(
                                 store, plan.meta, options.overwrite, write_options));
  ImportProgress progress;
  progress.planes_total = static_cast<int64_t>(plan.targets.size());
  const size_t plane_bytes = size_t(plan.rows * plan.columns) * grid::DataTypeSize(options.type);
  progress.bytes_total = progress.planes_total * static_cast<int64_t>(plane_bytes);
  std::vector<double> values;
  for (const GribPlan::Target& target : plan.targets) {
    GRIDSTORE_RETURN_IF_ERROR(opened.file->Next(&values));
    const grid::VariableMeta& var = plan.meta.variables[target.variable];
    if (static_cast<int64_t>(values.size()) != plan.rows * plan.columns) {
      return Status::DataLoss(Quote(path) + ": field " + std::to_string(progress.planes_done + 1) +
                              " decoded to " + std::to_string(values.size()) + " values, not " +
                              std::to_string(plan.rows * plan.columns));
    }
    GRIDSTORE_RETURN_IF_ERROR(publisher->writer()->SubmitGrid2D(
        var.name, target.t, target.z, ToPlane(values, options.type, plan.rows, plan.columns)));
    ++progress.planes_done;
    progress.bytes_done += static_cast<int64_t>(plane_bytes);
    progress.variable = var.name;
    if (options.on_progress) options.on_progress(progress);
  }
  GRIDSTORE_RETURN_IF_ERROR(publisher->Publish());
  ImportSummary summary;
  summary.dataset_id = plan.meta.id;
  summary.variables = static_cast<int>(plan.meta.variables.size());
  summary.planes = publisher->stats().planes;
  summary.raw_bytes = publisher->stats().raw_bytes;
  summary.stored_bytes = publisher->stats().stored_bytes;
  summary.notes = plan.notes;
  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

}  // namespace gridstore::importers
