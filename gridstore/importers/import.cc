// Copyright 2026 The GridStore Authors.
//
// PlanImport and RunImport: the format by content, the options against it, then the format's own
// planner (netcdf/, grib/), once; the run writes what was planned, then the series layout.
#include "gridstore/importers/import.h"

#include <utility>

#include "gridstore/model/names.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::importers {

class PlannedImport {
 public:
  FileFormat format = FileFormat::kNetCdf;
  std::vector<std::string> files;
  ImportOptions options;
  std::shared_ptr<const NetCdfImportPlan> netcdf;
  std::shared_ptr<const GribImportPlan> grib;
};

namespace {

// One format per dataset, told by content (never by name).
Result<FileFormat> FormatOf(const std::vector<std::string>& files) {
  size_t grib = 0;
  for (const std::string& file : files) grib += IsGribFile(file) ? 1 : 0;
  if (grib == 0) return FileFormat::kNetCdf;
  if (grib < files.size()) {
    for (const std::string& file : files) {
      if (!IsGribFile(file)) {
        return Status::InvalidArgument(Quote(file) + " is not GRIB, but " +
                                       Quote(files[0] == file ? files.back() : files[0]) +
                                       " is: one dataset comes from files of one format");
      }
    }
  }
  return FileFormat::kGrib;
}

Result<GribImportOptions> GribOptions(const std::string& file, const ImportOptions& o) {
  if (!o.variables.empty()) {
    return Status::InvalidArgument(Quote(file) +
                                   " is GRIB: choosing variables (--variables) applies to NetCDF "
                                   "files only (every field of a GRIB file is imported)");
  }
  if (!o.keep_bits.empty() || !o.keep_digits.empty()) {
    return Status::InvalidArgument(Quote(file) +
                                   " is GRIB: --keep-bits and --keep-digits apply to NetCDF files "
                                   "only (GRIB values are already packed to a precision)");
  }
  if ((o.finish || o.expected_steps > 0) && !o.append) {
    return Status::InvalidArgument("--finish and --expected-steps apply with --append");
  }
  if (o.append && o.overwrite) {
    return Status::InvalidArgument("--append and --overwrite exclude each other");
  }
  if (o.type && *o.type != grid::DataType::kFloat32 && *o.type != grid::DataType::kFloat64) {
    return Status::InvalidArgument("GRIB values are stored as float32 or float64");
  }
  GribImportOptions g;
  g.dataset_id = o.dataset_id;
  g.attributes = o.attributes;
  g.layout = o.layout;
  g.overwrite = o.overwrite;
  g.type = o.type.value_or(grid::DataType::kFloat32);
  g.append = o.append;
  g.finish = o.finish;
  g.expected_steps = o.expected_steps;
  g.sources_attribute = o.sources_attribute;
  return g;
}

Result<NetCdfImportOptions> NetCdfOptions(const std::string& file, const ImportOptions& o) {
  if (o.type || o.append || o.finish || o.expected_steps > 0 || !o.sources_attribute.empty()) {
    return Status::InvalidArgument(
        std::string(o.type ? "the value type (--type)"
                           : "a run arriving step by step (--append, --finish, "
                             "--expected-steps)") +
        " applies to GRIB files; " + Quote(file) + " is not GRIB");
  }
  NetCdfImportOptions n;
  n.dataset_id = o.dataset_id;
  n.variables = o.variables;
  n.attributes = o.attributes;
  n.layout = o.layout;
  n.overwrite = o.overwrite;
  n.keep_bits = o.keep_bits;
  n.keep_digits = o.keep_digits;
  n.inflate_threads = o.inflate_threads;
  return n;
}

}  // namespace

const char* FileFormatName(FileFormat format) {
  return format == FileFormat::kGrib ? "GRIB" : "NetCDF";
}

Result<std::shared_ptr<const PlannedImport>> PlanImport(const std::vector<std::string>& files,
                                                        const ImportOptions& options) {
  if (files.empty()) return Status::InvalidArgument("no file given to import");
  GRIDSTORE_RETURN_IF_ERROR(grid::ValidateDataSetId(options.dataset_id).WithContext("dataset id"));
  auto plan = std::make_shared<PlannedImport>();
  plan->files = files;
  plan->options = options;
  GRIDSTORE_ASSIGN_OR_RETURN(plan->format, FormatOf(files));
  if (plan->format == FileFormat::kGrib) {
    GRIDSTORE_ASSIGN_OR_RETURN(GribImportOptions grib, GribOptions(files[0], options));
    GRIDSTORE_ASSIGN_OR_RETURN(plan->grib, PlanGribImport(files, grib));
  } else {
    GRIDSTORE_ASSIGN_OR_RETURN(NetCdfImportOptions netcdf, NetCdfOptions(files[0], options));
    GRIDSTORE_ASSIGN_OR_RETURN(plan->netcdf, PlanNetCdfImport(files, netcdf));
  }
  return std::shared_ptr<const PlannedImport>(std::move(plan));
}

FileFormat PlannedFormat(const PlannedImport& plan) { return plan.format; }

const grid::DataSetMeta& PlannedDataSetMeta(const PlannedImport& plan) {
  return plan.format == FileFormat::kGrib ? PlannedMeta(*plan.grib) : PlannedMeta(*plan.netcdf);
}

const std::vector<std::string>& PlannedFiles(const PlannedImport& plan) { return plan.files; }

Result<ImportSummary> RunImport(grid::GridStore* store, const PlannedImport& plan,
                                const std::function<void(const ImportProgress&)>& on_progress,
                                SeriesOutcome* series,
                                const std::function<void(int64_t, int64_t)>& on_series_progress) {
  Result<ImportSummary> summary = plan.format == FileFormat::kGrib
                                      ? RunGribImport(store, *plan.grib, on_progress)
                                      : RunNetCdfImport(store, *plan.netcdf, on_progress);
  if (!summary.ok() || !plan.options.series) return summary;
  // Settled first: the series layout is written from the planes, and a failure there must not
  // cost the import.
  GRIDSTORE_RETURN_IF_ERROR(
      store->Flush().WithContext("the import succeeded, but settling the store failed"));
  SeriesOutcome outcome;
  if (summary->status != grid::kStatusDone) {
    outcome.not_yet =
        "the series layout is added when the run is complete (the import that finishes it, "
        "asking for the series layout too)";
  } else {
    grid::RelayoutOptions relayout;
    relayout.on_progress = on_series_progress;
    Result<grid::RelayoutReport> report =
        store->AddSeriesLayout(summary->dataset_id, *plan.options.series, relayout);
    if (report.ok()) {
      outcome.report = *report;
      outcome.added = true;
      outcome.status = store->Flush();
    } else {
      outcome.status = report.status();
    }
  }
  if (series != nullptr) *series = std::move(outcome);
  return summary;
}

}  // namespace gridstore::importers
