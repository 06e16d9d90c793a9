// Copyright 2026 The GridStore Authors.
//
// PlanImport and RunImport: the format by content, the options against it, then the format's own
// planner (netcdf/, grib/), once; the run writes what was planned, then the series layout.
#include "gridstore/importers/import.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "gridstore/forecast/collection.h"
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

// --collection and --run folded into the attributes (which the formats' planners apply last, so
// that they win over what the files say), and the collection attributes given checked: run_time
// as ISO text becomes ms since 1970 (int64), the collection is a string, a member an integer.
Result<grid::Attributes> ForecastAttributes(const ImportOptions& o) {
  grid::Attributes attributes = o.attributes;
  const std::string collection(forecast::kCollectionAttribute);
  const std::string run_time(forecast::kRunTimeAttribute);
  const std::string member(forecast::kMemberAttribute);
  if (auto it = attributes.find(run_time); it != attributes.end()) {
    const grid::AttributeValue& v = it->second;
    if (v.is_string()) {
      GRIDSTORE_ASSIGN_OR_RETURN(int64_t ms,
                                 forecast::ParseIsoMs(v.string_value(), "--attr run_time"));
      it->second = grid::AttributeValue::Int64(ms);
    } else if (!v.is_number() || v.size() != 1 || v.AsDouble() != std::floor(v.AsDouble())) {
      return Status::InvalidArgument(
          "--attr run_time=" + v.ToString() +
          ": give an ISO 8601 time (2017-01-01T00:00Z) or ms since 1970");
    } else {
      it->second = grid::AttributeValue::Int64(static_cast<int64_t>(v.AsDouble()));
    }
  }
  if (auto it = attributes.find(member); it != attributes.end()) {
    const grid::AttributeValue& v = it->second;
    if (!v.is_number() || v.size() != 1 || v.AsDouble() != std::floor(v.AsDouble())) {
      return Status::InvalidArgument("--attr member=" + v.ToString() +
                                     ": an ensemble member is an integer");
    }
    it->second = grid::AttributeValue::Int64(static_cast<int64_t>(v.AsDouble()));
  }
  if (auto it = attributes.find(collection); it != attributes.end()) {
    if (!it->second.is_string() || it->second.string_value().empty()) {
      return Status::InvalidArgument("--attr collection=" + it->second.ToString() +
                                     ": a collection is a name such as ecmf/ens");
    }
  }
  // A flag and --attr of the same attribute: one value, or a mistake.
  auto set = [&](const std::string& name, grid::AttributeValue value,
                 const std::string& flag) -> Status {
    auto it = attributes.find(name);
    if (it != attributes.end() && !(it->second == value)) {
      return Status::InvalidArgument(flag + " and --attr " + name + "=" + it->second.ToString() +
                                     " disagree: give it once");
    }
    attributes[name] = std::move(value);
    return Status::OK();
  };
  if (!o.collection.empty()) {
    GRIDSTORE_RETURN_IF_ERROR(set(collection, grid::AttributeValue::String(o.collection),
                                  "--collection " + Quote(o.collection)));
  }
  if (!o.run_time.empty()) {
    GRIDSTORE_ASSIGN_OR_RETURN(int64_t ms, forecast::ParseIsoMs(o.run_time, "--run"));
    GRIDSTORE_RETURN_IF_ERROR(
        set(run_time, grid::AttributeValue::Int64(ms), "--run " + Quote(o.run_time)));
  }
  return attributes;
}

// A dataset in a collection must say its run: ListCollections leaves it out otherwise.
Status CheckRunTime(const grid::DataSetMeta& meta, const std::string& file) {
  auto collection = meta.attributes.find(forecast::kCollectionAttribute);
  if (collection == meta.attributes.end()) return Status::OK();
  if (meta.attributes.count(forecast::kRunTimeAttribute) == 0) {
    return Status::InvalidArgument(
        Quote(file) + " has no run time (no forecast_reference_time), but dataset " +
        Quote(meta.id) + " is to be in collection " + Quote(collection->second.ToString()) +
        ": give the run's reference time with --run ISO");
  }
  return Status::OK();
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
  GRIDSTORE_ASSIGN_OR_RETURN(plan->options.attributes, ForecastAttributes(options));
  GRIDSTORE_ASSIGN_OR_RETURN(plan->format, FormatOf(files));
  if (plan->format == FileFormat::kGrib) {
    GRIDSTORE_ASSIGN_OR_RETURN(GribImportOptions grib, GribOptions(files[0], plan->options));
    GRIDSTORE_ASSIGN_OR_RETURN(plan->grib, PlanGribImport(files, grib));
  } else {
    GRIDSTORE_ASSIGN_OR_RETURN(NetCdfImportOptions netcdf, NetCdfOptions(files[0], plan->options));
    GRIDSTORE_ASSIGN_OR_RETURN(plan->netcdf, PlanNetCdfImport(files, netcdf));
  }
  for (const grid::DataSetMeta* meta : PlannedDataSetMetas(*plan)) {
    GRIDSTORE_RETURN_IF_ERROR(CheckRunTime(*meta, files[0]));
  }
  return std::shared_ptr<const PlannedImport>(std::move(plan));
}

FileFormat PlannedFormat(const PlannedImport& plan) { return plan.format; }

const grid::DataSetMeta& PlannedDataSetMeta(const PlannedImport& plan) {
  return plan.format == FileFormat::kGrib ? PlannedMeta(*plan.grib) : PlannedMeta(*plan.netcdf);
}

std::vector<const grid::DataSetMeta*> PlannedDataSetMetas(const PlannedImport& plan) {
  return plan.format == FileFormat::kGrib ? PlannedMetas(*plan.grib) : PlannedMetas(*plan.netcdf);
}

const std::vector<std::string>& PlannedFiles(const PlannedImport& plan) { return plan.files; }

namespace {

// The horizontal grid of a dataset, as its first variable has it: rows and columns, the
// coordinates over its horizontal dimensions only (1-D latitude and longitude, 2-D ones, a cell
// axis's), by name, and its grid mapping.
struct HorizontalGrid {
  int64_t rows = 0, columns = 0;
  std::vector<const grid::Coordinate*> coordinates;
  const grid::Coordinate* mapping = nullptr;
};

HorizontalGrid HorizontalOf(const grid::DataSetMeta& meta) {
  HorizontalGrid h;
  if (meta.variables.empty()) return h;
  const grid::VariableMeta& v = meta.variables.front();
  h.rows = v.shape[grid::kX];
  h.columns = v.shape[grid::kY];
  const std::string& x = v.dimension_names[grid::kX];
  const std::string& y = v.dimension_names[grid::kY];
  for (const grid::Coordinate& c : meta.coordinates) {
    if (c.dimensions.empty()) continue;
    if (std::all_of(c.dimensions.begin(), c.dimensions.end(),
                    [&](const std::string& d) { return !d.empty() && (d == x || d == y); })) {
      h.coordinates.push_back(&c);
    }
  }
  std::sort(h.coordinates.begin(), h.coordinates.end(),
            [](const grid::Coordinate* a, const grid::Coordinate* b) { return a->name < b->name; });
  const std::string mapping = grid::StringAttribute(v.attributes, "grid_mapping");
  if (!mapping.empty()) h.mapping = meta.FindCoordinate(mapping);
  return h;
}

// How grid `a` differs from `b` of the same size ("" if it does not).
std::string GridDifference(const HorizontalGrid& a, const HorizontalGrid& b) {
  std::vector<std::string> names_a, names_b;
  for (const grid::Coordinate* c : a.coordinates) names_a.push_back(c->name);
  for (const grid::Coordinate* c : b.coordinates) names_b.push_back(c->name);
  if (names_a != names_b) {
    return "its coordinates are " + Join(names_a, ", ", Quote) + ", not " +
           Join(names_b, ", ", Quote);
  }
  for (size_t i = 0; i < a.coordinates.size(); ++i) {
    const grid::Coordinate& ca = *a.coordinates[i];
    const grid::Coordinate& cb = *b.coordinates[i];
    if (ca.dimensions != cb.dimensions || ca.shape != cb.shape || ca.values != cb.values) {
      return "coordinate " + Quote(ca.name) + " differs";
    }
  }
  if ((a.mapping == nullptr) != (b.mapping == nullptr) ||
      (a.mapping != nullptr && a.mapping->attributes != b.mapping->attributes)) {
    return "its grid mapping differs";
  }
  return "";
}

std::string RunText(const grid::DataSetMeta& meta) {
  auto it = meta.attributes.find(forecast::kRunTimeAttribute);
  if (it == meta.attributes.end() || !it->second.is_number()) return "(no run time)";
  return forecast::FormatIsoMs(static_cast<int64_t>(it->second.AsDouble()));
}

// The collection's runs share one horizontal grid: the planned datasets are compared with one
// other dataset of the collection (not one this import writes).
Status CheckCollectionGrid(grid::GridStore& store, const std::string& collection,
                           const std::vector<const grid::DataSetMeta*>& metas) {
  std::set<std::string> ours;
  for (const grid::DataSetMeta* meta : metas) ours.insert(meta->id);
  grid::QueryParams params;
  params.limit = static_cast<int64_t>(ours.size()) + 1;
  GRIDSTORE_ASSIGN_OR_RETURN(
      grid::QueryResult found,
      store.QueryDataSets(
          forecast::kCollectionIndex,
          grid::QueryBuilder::Equal(std::string(forecast::kCollectionAttribute), collection),
          params));
  const grid::DataSetMeta* other = nullptr;
  for (const grid::DataSetMeta& meta : found.metas) {
    if (!ours.count(meta.id)) {
      other = &meta;
      break;
    }
  }
  if (other == nullptr) return Status::OK();
  const grid::DataSetMeta& mine = *metas.front();
  const HorizontalGrid a = HorizontalOf(mine), b = HorizontalOf(*other);
  const std::string size_a = std::to_string(a.columns) + "x" + std::to_string(a.rows);
  const std::string size_b = std::to_string(b.columns) + "x" + std::to_string(b.rows);
  const std::string run = "run " + RunText(mine) + " of collection " + Quote(collection);
  const std::string theirs =
      "the collection's run " + RunText(*other) + " (dataset " + Quote(other->id) + ")";
  const std::string hint =
      ": the runs of a collection share one grid (import it into another collection with "
      "--collection)";
  if (a.rows != b.rows || a.columns != b.columns) {
    return Status::FailedPrecondition(run + " is on a " + size_a + " grid; " + theirs + " is on " +
                                      size_b + hint);
  }
  const std::string why = GridDifference(a, b);
  if (!why.empty()) {
    return Status::FailedPrecondition(run + " is on another " + size_a + " grid than " + theirs +
                                      " (" + why + ")" + hint);
  }
  return Status::OK();
}

}  // namespace

Result<ImportSummary> RunImport(grid::GridStore* store, const PlannedImport& plan,
                                const std::function<void(const ImportProgress&)>& on_progress,
                                SeriesOutcome* series,
                                const std::function<void(int64_t, int64_t)>& on_series_progress) {
  const std::vector<const grid::DataSetMeta*> metas = PlannedDataSetMetas(plan);
  auto collection = metas.front()->attributes.find(forecast::kCollectionAttribute);
  if (collection != metas.front()->attributes.end() && collection->second.is_string()) {
    GRIDSTORE_RETURN_IF_ERROR(forecast::EnsureCollectionIndex(*store));
    GRIDSTORE_RETURN_IF_ERROR(
        CheckCollectionGrid(*store, collection->second.string_value(), metas));
  }
  Result<ImportSummary> summary = plan.format == FileFormat::kGrib
                                      ? RunGribImport(store, *plan.grib, on_progress)
                                      : RunNetCdfImport(store, *plan.netcdf, on_progress);
  if (summary.ok() && summary->datasets.empty()) summary->datasets = {summary->dataset_id};
  if (!summary.ok() || !plan.options.series) return summary;
  // Settled first: the series layout is written from the planes, and a failure there must not
  // cost the import.
  GRIDSTORE_RETURN_IF_ERROR(
      store->Flush().WithContext("the import succeeded, but settling the store failed"));
  SeriesOutcome outcome;
  // All steps in one block (--series-steps all) waits for the whole run too: a run still
  // arriving has no last step to end the block at.
  const bool whole_series = plan.options.series->block_t == grid::kSeriesWholeSeries;
  if (summary->status != grid::kStatusDone &&
      (summary->status != grid::kStatusIngesting || whole_series)) {
    outcome.not_yet =
        "the series layout is added when the run is complete (the import that finishes it, "
        "asking for the series layout too)";
  } else {
    // A run still arriving gets a growing layout: each block of steps written once complete.
    grid::RelayoutOptions relayout;
    relayout.on_progress = on_series_progress;
    for (const std::string& id : summary->datasets) {
      Result<grid::RelayoutReport> report =
          store->AddSeriesLayout(id, *plan.options.series, relayout);
      if (!report.ok()) {
        outcome.status = report.status();
        break;
      }
      outcome.report.blocks_written += report->blocks_written;
      outcome.report.blocks_resumed += report->blocks_resumed;
      outcome.report.raw_bytes += report->raw_bytes;
      outcome.report.stored_bytes += report->stored_bytes;
      outcome.report.already_ready = report->already_ready;
      outcome.report.layout = report->layout;
    }
    if (outcome.status.ok()) {
      outcome.added = true;
      outcome.status = store->Flush();
    }
  }
  if (series != nullptr) *series = std::move(outcome);
  return summary;
}

}  // namespace gridstore::importers
