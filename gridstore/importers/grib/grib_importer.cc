// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/grib/grib_importer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "gridstore/forecast/collection.h"
#include "gridstore/importers/grib/internal/grib_collection.h"
#include "gridstore/importers/grib/internal/grib_file.h"
#include "gridstore/importers/grib/internal/grib_mapping.h"
#include "gridstore/importers/internal/dataset_publish.h"
#include "gridstore/importers/internal/read_and_work.h"
#include "gridstore/importers/internal/run_merge.h"
#include "gridstore/model/cf_time.h"
#include "gridstore/model/grid.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::importers {

// The files' headers read and planned; the files are opened again, one at a time, to write.
// Outside the anonymous namespace: GribImportPlan, declared in the header, holds one.
struct PlannedGrib {
  std::vector<std::string> paths;
  std::vector<size_t> fields_per_file;
  // One plan per dataset: each member of an ensemble (members[k] its number), or the one
  // dataset of a deterministic file (member -1).
  std::vector<internal_importers::GribPlan> parts;
  std::vector<long> members;
  // Each field, in file order: the part it belongs to and its index there (its target).
  struct FieldAt {
    size_t part = 0, index = 0;
  };
  std::vector<FieldAt> field_at;
  std::vector<std::string> notes;
};

namespace {

using grid::DataSetMeta;
using internal_importers::GribFile;
using internal_importers::GribPlan;

// "'f006.grib2'", or "3 files ('f006.grib2', ...)".
std::string Source(const std::vector<std::string>& paths) {
  if (paths.size() == 1) return Quote(paths[0]);
  return std::to_string(paths.size()) + " files (" + Quote(paths[0]) + ", ...)";
}

// The options, checked before any file is read.
Status CheckOptions(const std::vector<std::string>& paths, const GribImportOptions& options) {
  if (paths.empty()) return Status::InvalidArgument("no GRIB file given to import");
  if (options.dataset_id.empty()) {
    return Status::InvalidArgument("no dataset id given for importing " + Source(paths));
  }
  if (options.type != grid::DataType::kFloat32 && options.type != grid::DataType::kFloat64) {
    return Status::InvalidArgument("GRIB values are stored as float32 or float64, not " +
                                   std::string(grid::DataTypeName(options.type)));
  }
  if (!options.append && (options.finish || options.expected_steps != 0)) {
    return Status::InvalidArgument(
        "finishing a run and its expected steps apply to appending (--append) only");
  }
  if (options.append && options.overwrite) {
    return Status::InvalidArgument("appending to a run and overwriting it exclude each other");
  }
  if (options.expected_steps < 0) {
    return Status::InvalidArgument("expected steps " + std::to_string(options.expected_steps) +
                                   " is negative");
  }
  return Status::OK();
}

// The dataset of one member (`member` -1: the whole deterministic file), planned from its fields
// (`indices` into `fields`) and labelled with the run's collection attributes; the caller's
// attributes win.
Result<GribPlan> PlanPart(const std::vector<std::string>& paths,
                          const std::vector<internal_importers::GribField>& fields,
                          const std::vector<size_t>& indices, long member,
                          const internal_importers::GribRun& run, const std::vector<double>& lats,
                          const std::vector<double>& lons, const GribImportOptions& options) {
  std::vector<internal_importers::GribField> part_fields;
  part_fields.reserve(indices.size());
  for (size_t i : indices) part_fields.push_back(fields[i]);
  // The grid's definition is read from a file's first field only.
  if (part_fields.front().grid_keys.empty()) {
    part_fields.front().grid_keys = fields.front().grid_keys;
  }
  const std::string id = member < 0
                             ? options.dataset_id
                             : internal_importers::MemberDatasetId(options.dataset_id, member);
  GRIDSTORE_ASSIGN_OR_RETURN(
      GribPlan plan,
      internal_importers::PlanGrib(
          paths, part_fields,
          {.id = id, .type = options.type, .time_dimension = options.append, .member = member},
          lats, lons));
  DataSetMeta& meta = plan.meta;
  meta.attributes[std::string(forecast::kCollectionAttribute)] =
      grid::AttributeValue::String(run.collection);
  meta.attributes[std::string(forecast::kRunTimeAttribute)] =
      grid::AttributeValue::Int64(run.run_time_ms);
  if (member >= 0) {
    meta.attributes[std::string(forecast::kMemberAttribute)] = grid::AttributeValue::Int64(member);
  }
  for (const auto& [name, value] : options.attributes) meta.attributes[name] = value;
  meta.layout = plan.rows == 1 ? grid::ForOneRowPlanes(options.layout) : options.layout;
  GRIDSTORE_RETURN_IF_ERROR(meta.Validate());
  return plan;
}

Result<PlannedGrib> ScanAndPlan(const std::vector<std::string>& paths,
                                const GribImportOptions& options) {
  GRIDSTORE_RETURN_IF_ERROR(CheckOptions(paths, options));
  PlannedGrib planned;
  planned.paths = paths;
  std::vector<internal_importers::GribField> fields;
  std::vector<double> values, lats, lons;
  for (size_t i = 0; i < paths.size(); ++i) {
    GRIDSTORE_ASSIGN_OR_RETURN(auto file, GribFile::Open(paths[i]));
    GRIDSTORE_ASSIGN_OR_RETURN(auto scanned, file->Scan(static_cast<int>(i)));
    planned.notes.insert(planned.notes.end(), file->notes().begin(), file->notes().end());
    // The grid's point coordinates, from the first field (every field must share its grid).
    if (i == 0) GRIDSTORE_RETURN_IF_ERROR(file->Next(&values, &lats, &lons));
    planned.fields_per_file.push_back(scanned.size());
    fields.insert(fields.end(), std::make_move_iterator(scanned.begin()),
                  std::make_move_iterator(scanned.end()));
  }
  GRIDSTORE_RETURN_IF_ERROR(internal_importers::CheckOneGrid(paths, fields));
  GRIDSTORE_ASSIGN_OR_RETURN(auto by_member, internal_importers::SplitByMember(paths, fields));
  // The collection and run (docs/collections.md); a run time the caller gives wins, and then
  // fields of several runs are its to join.
  GRIDSTORE_ASSIGN_OR_RETURN(
      internal_importers::GribRun run,
      internal_importers::IdentifyRun(
          paths, fields, options.attributes.count(std::string(forecast::kRunTimeAttribute)) > 0));
  planned.notes.insert(planned.notes.end(), run.notes.begin(), run.notes.end());
  planned.field_at.resize(fields.size());
  for (const auto& [member, indices] : by_member) {
    for (size_t k = 0; k < indices.size(); ++k) {
      planned.field_at[indices[k]] = {planned.parts.size(), k};
    }
    GRIDSTORE_ASSIGN_OR_RETURN(GribPlan plan,
                               PlanPart(paths, fields, indices, member, run, lats, lons, options));
    for (const std::string& note : plan.notes) {
      planned.notes.push_back(by_member.size() > 1 ? "dataset " + Quote(plan.meta.id) + ": " + note
                                                   : note);
    }
    planned.parts.push_back(std::move(plan));
    planned.members.push_back(member);
  }
  return planned;
}

// Where each planned field goes in the dataset written: its variable and t (z as planned).
struct Placement {
  std::vector<size_t> variable_of;  // plan variable -> dataset variable
  std::vector<int64_t> t_of;        // plan t -> dataset t
};

// Reads every planned field, file by file (one open at a time), and hands each to `take` with
// its index in the plan; stops early when `take` returns false.
template <typename Take>
Status ReadFields(const PlannedGrib& planned, Take take) {
  size_t field = 0;
  for (size_t f = 0; f < planned.paths.size(); ++f) {
    GRIDSTORE_ASSIGN_OR_RETURN(auto file, GribFile::Open(planned.paths[f]));
    for (size_t n = 0; n < planned.fields_per_file[f]; ++n, ++field) {
      GRIDSTORE_ASSIGN_OR_RETURN(auto message, file->NextMessage());
      if (!take(std::move(message), field)) return Status::OK();
    }
  }
  return Status::OK();
}

// Where one dataset's fields are written: its meta, placement and writer.
struct PartWrite {
  const DataSetMeta* meta = nullptr;
  const Placement* placement = nullptr;
  grid::GridDataWriter* writer = nullptr;
};

// Decodes every field and submits its plane to its dataset's writer (parts[k] for
// planned.parts[k]), as that dataset's placement says: one pass over the files whatever the
// number of members. This thread reads the fields, file by file; decoding (ecCodes' unpacking,
// the costly part) runs on one worker per core, which also hand the planes to the writers.
Status WriteFields(const PlannedGrib& planned, const std::vector<PartWrite>& parts,
                   const GribImportOptions& options, ImportProgress* progress) {
  const GribPlan& first = planned.parts.front();
  const int64_t rows = first.rows, columns = first.columns;
  const size_t plane_bytes = size_t(rows * columns) * grid::DataTypeSize(options.type);
  progress->planes_total = static_cast<int64_t>(planned.field_at.size());
  progress->bytes_total = progress->planes_total * static_cast<int64_t>(plane_bytes);
  auto variable_of = [&](size_t field) -> const grid::VariableMeta& {
    const PlannedGrib::FieldAt at = planned.field_at[field];
    const GribPlan::Target& target = planned.parts[at.part].targets[at.index];
    const PartWrite& part = parts[at.part];
    return part.meta->variables[part.placement->variable_of[target.variable]];
  };
  struct Job {
    std::unique_ptr<internal_importers::GribMessage> message;
    size_t field = 0;
  };
  auto read = [&](const std::function<bool(Job)>& push) {
    return ReadFields(planned,
                      [&](std::unique_ptr<internal_importers::GribMessage> message, size_t field) {
                        if (!push({std::move(message), field})) return false;
                        ++progress->planes_done;
                        progress->bytes_done += static_cast<int64_t>(plane_bytes);
                        progress->variable = variable_of(field).name;
                        if (options.on_progress) options.on_progress(*progress);
                        return true;
                      });
  };
  auto decode = [&](Job job) {
    // Straight into the plane of the stored type: no field of doubles between.
    grid::Grid2D plane(options.type, rows, columns);
    GRIDSTORE_RETURN_IF_ERROR(options.type == grid::DataType::kFloat32
                                  ? job.message->DecodeInto(plane.data<float>())
                                  : job.message->DecodeInto(plane.data<double>()));
    job.message.reset();  // its message's memory, before the plane is queued
    const PlannedGrib::FieldAt at = planned.field_at[job.field];
    const GribPlan::Target& target = planned.parts[at.part].targets[at.index];
    const PartWrite& part = parts[at.part];
    return part.writer->SubmitGrid2D(variable_of(job.field).name, part.placement->t_of[target.t],
                                     target.z, std::move(plane));
  };
  return internal_importers::ReadAndWork<Job>(internal_importers::WorkersPerCore(), 2, read,
                                              decode);
}

Placement Identity(const GribPlan& plan) {
  Placement p;
  for (size_t v = 0; v < plan.meta.variables.size(); ++v) p.variable_of.push_back(v);
  int64_t steps = 0;
  for (const auto& var : plan.meta.variables) steps = std::max(steps, var.shape[grid::kT]);
  for (int64_t t = 0; t < steps; ++t) p.t_of.push_back(t);
  return p;
}

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The time of step t of `meta`, for messages.
std::string StepTime(const DataSetMeta& meta, int64_t t) {
  const grid::Coordinate* time = meta.FindCoordinate("time");
  if (time == nullptr || t >= static_cast<int64_t>(time->values.size())) {
    return "step " + std::to_string(t);
  }
  auto units = grid::TimeUnits::Parse(grid::StringAttribute(time->attributes, "units"),
                                      grid::StringAttribute(time->attributes, "calendar"));
  auto iso = units.ok() ? units->ToIso(time->values[size_t(t)]) : Status::Internal("");
  return "time " + (iso.ok() ? *iso : std::to_string(t));
}

// The (variable, t) steps this import writes, each checked to bring every level and not to be
// complete already.
Result<std::map<std::pair<size_t, int64_t>, int64_t>> StepsWritten(const PlannedGrib& planned,
                                                                   const GribPlan& plan,
                                                                   const Placement& placement,
                                                                   const DataSetMeta& meta) {
  std::map<std::pair<size_t, int64_t>, int64_t> levels;
  for (const GribPlan::Target& target : plan.targets) {
    ++levels[{placement.variable_of[target.variable], placement.t_of[target.t]}];
  }
  const std::string source = Source(planned.paths);
  for (const auto& [step, count] : levels) {
    const grid::VariableMeta& var = meta.variables[step.first];
    if (var.complete_steps.Contains(step.second, step.second + 1)) {
      return Status::FailedPrecondition(
          source + ": variable " + Quote(var.name) + " at " + StepTime(meta, step.second) +
          " is already complete in dataset " + Quote(meta.id) +
          ": a step is written once (import the whole run with --overwrite to replace it)");
    }
    if (count != var.shape[grid::kZ]) {
      return Status::FailedPrecondition(
          source + " brings " + std::to_string(count) + " of the " +
          std::to_string(var.shape[grid::kZ]) + " levels of variable " + Quote(var.name) + " at " +
          StepTime(meta, step.second) +
          ": a step arrives whole in one import (pass all of its files together)");
    }
  }
  return levels;
}

// Marks the steps written complete (and the run DONE if finished); the run's meta afterwards.
Result<DataSetMeta> MarkComplete(grid::GridStore* store, const std::string& id,
                                 const std::map<std::pair<size_t, int64_t>, int64_t>& steps,
                                 const std::vector<std::string>& paths,
                                 const GribImportOptions& options, ImportSummary* summary) {
  GRIDSTORE_ASSIGN_OR_RETURN(DataSetMeta meta, store->GetDataSetMeta(id));
  if (meta.status() != grid::kStatusIngesting) {
    return Status::Aborted("dataset " + Quote(id) + " changed to status " + Quote(meta.status()) +
                           " while this import appended to it");
  }
  for (const auto& [step, count] : steps) {
    meta.variables[step.first].complete_steps.Add(step.second, step.second + 1);
  }
  if (!options.sources_attribute.empty()) {
    std::string sources = grid::StringAttribute(meta.attributes, options.sources_attribute);
    for (const std::string& path : paths) {
      sources += (sources.empty() ? "" : "\n") + std::filesystem::path(path).filename().string();
    }
    meta.attributes[options.sources_attribute] = grid::AttributeValue::String(sources);
  }
  int64_t complete = -1;
  for (const grid::VariableMeta& v : meta.variables) {
    complete =
        complete < 0 ? v.complete_steps.count() : std::min(complete, v.complete_steps.count());
    summary->steps = std::max(summary->steps, v.shape[grid::kT]);
  }
  summary->complete_steps = std::max<int64_t>(complete, 0);
  if (options.finish ||
      (options.expected_steps > 0 && summary->complete_steps >= options.expected_steps)) {
    for (grid::VariableMeta& v : meta.variables) {
      if (!v.complete_steps.Contains(0, v.shape[grid::kT])) {
        summary->notes.push_back(
            "variable " + Quote(v.name) + " has steps " + v.complete_steps.ToString() + " of " +
            std::to_string(v.shape[grid::kT]) + "; the others read as missing (NaN)");
      }
      v.complete_steps = {};
    }
    meta.set_status(grid::kStatusDone);
  }
  GRIDSTORE_RETURN_IF_ERROR(store->UpdateDataSetMeta(meta));
  return meta;
}

// The size of each dataset's write queue: the budget shared by the datasets written at once,
// one plane each at least.
grid::WriteGridOptions PartWriteOptions(const PlannedGrib& planned,
                                        const GribImportOptions& options) {
  const GribPlan& first = planned.parts.front();
  const size_t plane_bytes = size_t(first.rows * first.columns) * grid::DataTypeSize(options.type);
  grid::WriteGridOptions write_options;
  write_options.max_pending_bytes =
      std::max(options.memory_budget_bytes / planned.parts.size(), plane_bytes);
  write_options.bulk_load = true;  // marked DONE (or complete) only after Flush
  return write_options;
}

// One dataset of an append: what it becomes, where its fields go, the steps it gains.
struct AppendPart {
  DataSetMeta meta;
  Placement placement;
  bool create = false;
  std::map<std::pair<size_t, int64_t>, int64_t> steps;
};

// How part `k` of the plan joins its run (created if absent): checked, nothing written.
Result<AppendPart> PlanAppend(grid::GridStore* store, const PlannedGrib& planned, size_t k,
                              const GribImportOptions& options) {
  const GribPlan& plan = planned.parts[k];
  const std::string& id = plan.meta.id;
  AppendPart part;
  Result<DataSetMeta> existing = store->GetDataSetMeta(id);
  part.create = existing.status().IsNotFound();
  if (part.create) {
    part.meta = plan.meta;
    part.placement = Identity(plan);
    part.meta.attributes[std::string(grid::kCreateTimeAttribute)] =
        grid::AttributeValue::Int64(NowMillis());
  } else {
    if (!existing.ok()) return existing.status();
    const std::string status = existing->status();
    if (status != grid::kStatusDone && status != grid::kStatusIngesting) {
      return Status::FailedPrecondition(
          "dataset " + Quote(id) + " has status " + Quote(status) +
          " (an import in progress, or one that failed): delete it, or import with --overwrite");
    }
    GRIDSTORE_ASSIGN_OR_RETURN(
        internal_importers::RunMerge merge,
        internal_importers::MergeIntoRun(*existing, plan.meta, Source(planned.paths)));
    part.meta = std::move(merge.merged);
    part.placement = {std::move(merge.variable_of), std::move(merge.t_of)};
    // A run stored before it had them gains the collection attributes (docs/collections.md).
    for (std::string_view name : {forecast::kCollectionAttribute, forecast::kRunTimeAttribute,
                                  forecast::kMemberAttribute}) {
      auto have = plan.meta.attributes.find(name);
      if (have != plan.meta.attributes.end() && !part.meta.attributes.count(std::string(name))) {
        part.meta.attributes[std::string(name)] = have->second;
      }
    }
    for (const auto& [name, value] : options.attributes) part.meta.attributes[name] = value;
  }
  part.meta.set_status(grid::kStatusIngesting);
  GRIDSTORE_ASSIGN_OR_RETURN(part.steps, StepsWritten(planned, plan, part.placement, part.meta));
  GRIDSTORE_RETURN_IF_ERROR(part.meta.Validate());
  return part;
}

// Appends the files to the run options.dataset_id (GribImportOptions::append), or to each
// member's run <id>/mNN of an ensemble: every run checked before any is changed, then the
// files read once for all of them.
Result<ImportSummary> AppendGrib(grid::GridStore* store, const PlannedGrib& planned,
                                 const GribImportOptions& options) {
  std::vector<AppendPart> parts;
  for (size_t k = 0; k < planned.parts.size(); ++k) {
    GRIDSTORE_ASSIGN_OR_RETURN(AppendPart part, PlanAppend(store, planned, k, options));
    parts.push_back(std::move(part));
  }
  // Grow first (the new steps not complete, so no reader takes their blocks for data), then write,
  // then mark them complete.
  for (const AppendPart& part : parts) {
    GRIDSTORE_RETURN_IF_ERROR(part.create ? store->PutDataSetMeta(part.meta)
                                          : store->UpdateDataSetMeta(part.meta));
  }
  const grid::WriteGridOptions write_options = PartWriteOptions(planned, options);
  std::vector<std::unique_ptr<grid::GridDataWriter>> writers;
  std::vector<PartWrite> writes;
  for (const AppendPart& part : parts) {
    GRIDSTORE_ASSIGN_OR_RETURN(auto writer, store->GetDataWriter(part.meta.id, write_options));
    writes.push_back({&part.meta, &part.placement, writer.get()});
    writers.push_back(std::move(writer));
  }
  ImportProgress progress;
  Status written = WriteFields(planned, writes, options, &progress);
  ImportSummary summary;
  // Every member's blocks written, then one table flush makes them all durable: a flush per
  // member would roll the store's log once per member under readers in other processes.
  for (size_t k = 0; k < writers.size(); ++k) {
    Status flushed = k + 1 < writers.size() ? writers[k]->Drain() : writers[k]->Flush();
    if (written.ok()) written = flushed;
    const grid::WriteStats stats = writers[k]->stats();
    summary.planes += stats.planes;
    summary.raw_bytes += stats.raw_bytes;
    summary.stored_bytes += stats.stored_bytes;
  }
  writers.clear();
  const std::string what = parts.size() == 1 ? "dataset " + Quote(parts[0].meta.id)
                                             : std::to_string(parts.size()) + " datasets (" +
                                                   Quote(parts[0].meta.id) + ", ...)";
  if (!written.ok()) {
    return written.WithContext("appending to " + what +
                               " (its steps of this import stay incomplete; run it again)");
  }
  for (size_t k = 0; k < parts.size(); ++k) {
    ImportSummary one;
    GRIDSTORE_ASSIGN_OR_RETURN(
        DataSetMeta meta,
        MarkComplete(store, parts[k].meta.id, parts[k].steps, planned.paths, options, &one));
    summary.datasets.push_back(meta.id);
    if (k == 0) {
      summary.status = meta.status();
      summary.steps = one.steps;
      summary.complete_steps = one.complete_steps;
    } else {
      // The run is as far as its least complete member.
      if (meta.status() != grid::kStatusDone) summary.status = meta.status();
      summary.steps = std::max(summary.steps, one.steps);
      summary.complete_steps = std::min(summary.complete_steps, one.complete_steps);
    }
    summary.notes.insert(summary.notes.end(), one.notes.begin(), one.notes.end());
  }
  summary.dataset_id = summary.datasets.front();
  summary.variables = static_cast<int>(planned.parts.front().meta.variables.size());
  summary.notes.insert(summary.notes.begin(), planned.notes.begin(), planned.notes.end());
  return summary;
}

}  // namespace

bool IsGribFile(const std::string& path) { return internal_importers::LooksLikeGrib(path); }

Status CheckGribFile(const std::string& path) {
  GRIDSTORE_ASSIGN_OR_RETURN(auto file, GribFile::Open(path));
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<internal_importers::GribField> fields, file->Scan());
  std::vector<double> values, lats, lons;
  for (size_t i = 0; i < fields.size(); ++i) {
    // The grid's coordinates where the import reads them (the first field); values everywhere.
    GRIDSTORE_RETURN_IF_ERROR(
        file->Next(&values, i == 0 ? &lats : nullptr, i == 0 ? &lons : nullptr));
  }
  return Status::OK();
}

Result<grid::DataSetMeta> ReadGribMeta(const std::vector<std::string>& paths,
                                       const GribImportOptions& options,
                                       std::vector<std::string>* notes) {
  GRIDSTORE_ASSIGN_OR_RETURN(PlannedGrib planned, ScanAndPlan(paths, options));
  if (notes != nullptr) *notes = planned.notes;
  return std::move(planned.parts.front().meta);
}

struct GribImportPlan {
  PlannedGrib planned;
  GribImportOptions options;
};

Result<std::shared_ptr<const GribImportPlan>> PlanGribImport(const std::vector<std::string>& paths,
                                                             const GribImportOptions& options) {
  auto plan = std::make_shared<GribImportPlan>();
  GRIDSTORE_ASSIGN_OR_RETURN(plan->planned, ScanAndPlan(paths, options));
  plan->options = options;
  return std::shared_ptr<const GribImportPlan>(std::move(plan));
}

const grid::DataSetMeta& PlannedMeta(const GribImportPlan& plan) {
  return plan.planned.parts.front().meta;
}

std::vector<const grid::DataSetMeta*> PlannedMetas(const GribImportPlan& plan) {
  std::vector<const grid::DataSetMeta*> metas;
  for (const GribPlan& part : plan.planned.parts) metas.push_back(&part.meta);
  return metas;
}

Result<ImportSummary> ImportGrib(grid::GridStore* store, const std::vector<std::string>& paths,
                                 const GribImportOptions& options) {
  GRIDSTORE_ASSIGN_OR_RETURN(auto plan, PlanGribImport(paths, options));
  return RunGribImport(store, *plan);
}

Result<ImportSummary> RunGribImport(grid::GridStore* store, const GribImportPlan& import,
                                    std::function<void(const ImportProgress&)> on_progress) {
  const auto started = std::chrono::steady_clock::now();
  const PlannedGrib& planned = import.planned;
  GribImportOptions options = import.options;
  if (on_progress) options.on_progress = std::move(on_progress);
  ImportSummary summary;
  if (options.append) {
    GRIDSTORE_ASSIGN_OR_RETURN(summary, AppendGrib(store, planned, options));
  } else {
    // Every dataset begun (INIT, or a replacement beside the old), written in one pass over the
    // files, then published: a failure before publishing leaves none of them.
    const grid::WriteGridOptions write_options = PartWriteOptions(planned, options);
    std::vector<std::unique_ptr<internal_importers::DatasetPublisher>> publishers;
    std::vector<Placement> placements;
    for (const GribPlan& part : planned.parts) {
      GRIDSTORE_ASSIGN_OR_RETURN(auto publisher,
                                 internal_importers::DatasetPublisher::Begin(
                                     store, part.meta, options.overwrite, write_options));
      publishers.push_back(std::move(publisher));
      placements.push_back(Identity(part));
    }
    std::vector<PartWrite> writes;
    for (size_t k = 0; k < planned.parts.size(); ++k) {
      writes.push_back({&planned.parts[k].meta, &placements[k], publishers[k]->writer()});
    }
    ImportProgress progress;
    GRIDSTORE_RETURN_IF_ERROR(WriteFields(planned, writes, options, &progress));
    for (auto& publisher : publishers) GRIDSTORE_RETURN_IF_ERROR(publisher->FinishWrites());
    for (auto& publisher : publishers) {
      GRIDSTORE_RETURN_IF_ERROR(publisher->Publish());
      summary.datasets.push_back(publisher->meta().id);
      summary.planes += publisher->stats().planes;
      summary.raw_bytes += publisher->stats().raw_bytes;
      summary.stored_bytes += publisher->stats().stored_bytes;
    }
    summary.dataset_id = summary.datasets.front();
    summary.variables = static_cast<int>(planned.parts.front().meta.variables.size());
    summary.notes = planned.notes;
  }
  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

}  // namespace gridstore::importers
