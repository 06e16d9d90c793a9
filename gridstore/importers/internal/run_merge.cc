// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/internal/run_merge.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "gridstore/model/cf_time.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_importers {
namespace {

using grid::Coordinate;
using grid::DataSetMeta;
using grid::VariableMeta;

Coordinate* FindCoordinate(DataSetMeta* meta, std::string_view name) {
  for (Coordinate& c : meta->coordinates) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string Values(const std::vector<double>& values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size() && i < 6; ++i) {
    s += (i > 0 ? ", " : "") + FormatDouble(values[i]);
  }
  return s + (values.size() > 6 ? ", ... (" + std::to_string(values.size()) + " values)]" : "]");
}

bool IsSubset(const std::vector<double>& part, const std::vector<double>& whole) {
  for (double v : part) {
    if (std::find(whole.begin(), whole.end(), v) == whole.end()) return false;
  }
  return true;
}

// A time as text for messages; the raw number if it has no date.
std::string Iso(const grid::TimeUnits& units, double value) {
  auto iso = units.ToIso(value);
  return iso.ok() ? *iso : FormatDouble(value);
}

Result<grid::TimeUnits> UnitsOf(const Coordinate& time, const std::string& owner) {
  auto units = grid::TimeUnits::Parse(grid::StringAttribute(time.attributes, "units"),
                                      grid::StringAttribute(time.attributes, "calendar"));
  if (!units.ok()) return units.status().WithContext(owner + ": its time coordinate");
  return units;
}

// The name of the time dimension: the variables' t dimension ("time" if none has one yet).
std::string TimeDimension(const DataSetMeta& meta) {
  for (const VariableMeta& v : meta.variables) {
    if (!v.dimension_names[grid::kT].empty()) return v.dimension_names[grid::kT];
  }
  return "time";
}

// A time coordinate (and a step beside it) of one value made 1-D, so that it can grow.
void GiveTimeADimension(DataSetMeta* meta) {
  for (const char* name : {"time", "step"}) {
    Coordinate* c = FindCoordinate(meta, name);
    if (c != nullptr && c->dimensions.empty()) {
      c->dimensions = {"time"};
      c->shape = {1};
    }
  }
  for (VariableMeta& v : meta->variables) {
    if (v.dimension_names[grid::kT].empty() && v.shape[grid::kT] == 1) {
      v.dimension_names[grid::kT] = "time";
    }
  }
}

// Places the incoming times into `time` (and `step`, if the dataset has one): a time already
// there maps to it, a later one is appended; *t_of gets each incoming time's index.
Status MergeTimes(const std::string& dataset, const std::string& source, const Coordinate& in_time,
                  const Coordinate* in_step, Coordinate* time, Coordinate* step,
                  std::vector<int64_t>* t_of) {
  const std::string ref = grid::StringAttribute(time->attributes, "reference_time");
  const std::string in_ref = grid::StringAttribute(in_time.attributes, "reference_time");
  if (!ref.empty() && !in_ref.empty() && ref != in_ref) {
    return Status::FailedPrecondition(source + " belongs to the run of " + in_ref + ", but " +
                                      dataset + " is the run of " + ref +
                                      ": append only the files of one run");
  }
  if (step != nullptr && in_step == nullptr) {
    return Status::FailedPrecondition(source + " has fields of several reference times, but " +
                                      dataset + " is one run (it has a step coordinate)");
  }
  GRIDSTORE_ASSIGN_OR_RETURN(const grid::TimeUnits units, UnitsOf(*time, dataset));
  GRIDSTORE_ASSIGN_OR_RETURN(const grid::TimeUnits in_units, UnitsOf(in_time, source));
  if (units.calendar() != in_units.calendar()) {
    return Status::FailedPrecondition(
        source + "'s calendar is " + Quote(std::string(grid::CalendarName(in_units.calendar()))) +
        ", but " + dataset + "'s is " + Quote(std::string(grid::CalendarName(units.calendar()))));
  }
  // Times are compared to the microsecond, in the dataset's units.
  auto micros = [&](double v) { return std::llround(v * double(units.unit_microseconds())); };
  for (size_t i = 0; i < in_time.values.size(); ++i) {
    GRIDSTORE_ASSIGN_OR_RETURN(grid::CivilTime civil, in_units.ToCivil(in_time.values[i]));
    const double value = units.FromCivil(civil);
    int64_t index = -1;
    for (size_t j = 0; j < time->values.size(); ++j) {
      if (micros(time->values[j]) == micros(value)) index = static_cast<int64_t>(j);
    }
    if (index < 0) {
      if (!time->values.empty() && micros(value) < micros(time->values.back())) {
        return Status::FailedPrecondition(
            source + ": time " + Iso(units, value) + " falls before the last step stored in " +
            dataset + " (" + Iso(units, time->values.back()) +
            ") and is not one of its steps: a run grows in time order; import the whole run "
            "again with --overwrite to insert a step");
      }
      index = static_cast<int64_t>(time->values.size());
      time->values.push_back(value);
      // Integer times of another file's units may land between integers here.
      if (!grid::IsFloatingPoint(time->type) && value != std::round(value)) {
        time->type = grid::DataType::kFloat64;
      }
      if (step != nullptr) step->values.push_back(in_step->values[i]);
    }
    t_of->push_back(index);
  }
  time->shape = {static_cast<int64_t>(time->values.size())};
  if (step != nullptr) step->shape = time->shape;
  return Status::OK();
}

// The incoming variables: as stored (same type, levels and grid), or new with `steps` steps, none
// of them complete yet.
Status MergeVariables(const std::string& dataset, const std::string& source,
                      const DataSetMeta& incoming, int64_t steps, RunMerge* m) {
  DataSetMeta& out = m->merged;
  for (const VariableMeta& v : incoming.variables) {
    VariableMeta* have = out.FindVariable(v.name);
    if (have == nullptr) {
      // A new variable lies on one of the grids the dataset has.
      bool known_grid = out.variables.empty();
      for (const VariableMeta& o : out.variables) {
        known_grid |= o.dimension_names[grid::kX] == v.dimension_names[grid::kX] &&
                      o.dimension_names[grid::kY] == v.dimension_names[grid::kY] &&
                      o.shape[grid::kX] == v.shape[grid::kX] &&
                      o.shape[grid::kY] == v.shape[grid::kY];
      }
      if (!known_grid) {
        return Status::FailedPrecondition(
            source + ": variable " + Quote(v.name) + " lies on a grid (" +
            Quote(v.dimension_names[grid::kX]) + " " + std::to_string(v.shape[grid::kX]) + " x " +
            Quote(v.dimension_names[grid::kY]) + " " + std::to_string(v.shape[grid::kY]) +
            ") that no variable of " + dataset + " has");
      }
      VariableMeta added = v;
      added.shape[grid::kT] = steps;
      added.dimension_names[grid::kT] = TimeDimension(out);
      added.complete_steps = {};
      out.variables.push_back(std::move(added));
      m->variable_of.push_back(out.variables.size() - 1);
      continue;
    }
    if (have->type != v.type) {
      return Status::FailedPrecondition(source + ": variable " + Quote(v.name) + " is " +
                                        std::string(DataTypeName(v.type)) + ", but in " + dataset +
                                        " it is " + std::string(DataTypeName(have->type)) +
                                        " (import with the same --type)");
    }
    if (have->fill_value != v.fill_value || have->packing != v.packing) {
      return Status::FailedPrecondition(
          source + ": variable " + Quote(v.name) + " has another " +
          (have->packing != v.packing ? "packing (scale_factor, add_offset)" : "fill value") +
          " than in " + dataset + ": its stored values would mean something else");
    }
    for (int axis = grid::kZ; axis < grid::kRank; ++axis) {
      if (have->shape[axis] != v.shape[axis] ||
          have->dimension_names[axis] != v.dimension_names[axis]) {
        return Status::FailedPrecondition(
            source + ": variable " + Quote(v.name) + " has " + std::to_string(v.shape[axis]) +
            " along " + std::string(grid::AxisName(axis)) + " (" + Quote(v.dimension_names[axis]) +
            "), but in " + dataset + " " + std::to_string(have->shape[axis]) + " (" +
            Quote(have->dimension_names[axis]) + "): a run's levels and grid cannot change");
      }
    }
    m->variable_of.push_back(static_cast<size_t>(have - out.variables.data()));
  }
  return Status::OK();
}

// Other coordinates along time (time_bnds(time, bnds)): the rows of the incoming times that were
// appended, appended. Time must be their first dimension.
Status AppendRows(const std::string& dataset, const std::string& source,
                  const DataSetMeta& incoming, const std::string& time_name, size_t stored_steps,
                  RunMerge* m) {
  for (const Coordinate& c : m->merged.coordinates) {
    if (c.name == time_name || c.name == "step" || c.dimensions.empty() ||
        c.dimensions.front() != time_name || incoming.FindCoordinate(c.name) != nullptr) {
      continue;
    }
    return Status::FailedPrecondition(source + " has no coordinate " + Quote(c.name) + ", which " +
                                      dataset + " has along " + Quote(time_name));
  }
  for (const Coordinate& c : incoming.coordinates) {
    if (c.name == time_name || c.name == "step") continue;
    const auto along = std::find(c.dimensions.begin(), c.dimensions.end(), time_name);
    if (along == c.dimensions.end()) continue;
    Coordinate* have = FindCoordinate(&m->merged, c.name);
    if (along != c.dimensions.begin() || have == nullptr || have->dimensions != c.dimensions ||
        !std::equal(have->shape.begin() + 1, have->shape.end(), c.shape.begin() + 1)) {
      return Status::Unimplemented(source + ": coordinate " + Quote(c.name) + " along " +
                                   Quote(time_name) + " does not match " + dataset +
                                   "'s; only coordinates with time first can be joined");
    }
    size_t row = 1;
    for (size_t d = 1; d < c.shape.size(); ++d) row *= size_t(c.shape[d]);
    for (size_t i = 0; i < m->t_of.size(); ++i) {
      if (size_t(m->t_of[i]) < stored_steps) continue;
      have->values.insert(have->values.end(), c.values.begin() + long(i * row),
                          c.values.begin() + long((i + 1) * row));
      ++have->shape[0];
    }
  }
  return Status::OK();
}

}  // namespace

Result<RunMerge> MergeIntoRun(const DataSetMeta& existing, const DataSetMeta& incoming,
                              const std::string& source) {
  const std::string dataset = "dataset " + Quote(existing.id);
  RunMerge m;
  m.merged = existing;
  DataSetMeta& out = m.merged;
  if (existing.status() == grid::kStatusDone) {
    // Complete as it stands: every step it has so far stays readable while it grows.
    for (VariableMeta& v : out.variables) v.complete_steps.Add(0, v.shape[grid::kT]);
  }
  GiveTimeADimension(&out);
  const std::string name = TimeDimension(out), in_name = TimeDimension(incoming);
  Coordinate* time = FindCoordinate(&out, name);
  const Coordinate* in_time = incoming.FindCoordinate(in_name);
  if (time == nullptr || time->dimensions != std::vector<std::string>{name}) {
    return Status::FailedPrecondition(dataset + " has no 1-D time coordinate to grow along");
  }
  if (in_time == nullptr || in_time->dimensions != std::vector<std::string>{in_name}) {
    return Status::InvalidArgument(source + " has no time axis to add");
  }
  if (in_name != name) {
    return Status::FailedPrecondition(source + "'s time dimension is " + Quote(in_name) + ", but " +
                                      dataset + "'s is " + Quote(name));
  }
  Coordinate* step = FindCoordinate(&out, "step");
  const size_t stored_steps = time->values.size();
  GRIDSTORE_RETURN_IF_ERROR(
      MergeTimes(dataset, source, *in_time, incoming.FindCoordinate("step"), time, step, &m.t_of));
  const int64_t steps = static_cast<int64_t>(time->values.size());
  GRIDSTORE_RETURN_IF_ERROR(AppendRows(dataset, source, incoming, name, stored_steps, &m));

  // The grid and the levels: as stored, or new (a level type the run did not have yet).
  for (const Coordinate& c : incoming.coordinates) {
    if (c.name == name || c.name == "step") continue;
    if (std::find(c.dimensions.begin(), c.dimensions.end(), name) != c.dimensions.end()) continue;
    Coordinate* have = FindCoordinate(&out, c.name);
    if (have == nullptr) {
      out.coordinates.push_back(c);
    } else if (have->dimensions != c.dimensions || have->shape != c.shape ||
               have->values != c.values) {
      if (IsSubset(c.values, have->values) && grid::StringAttribute(c.attributes, "axis") == "Z") {
        return Status::FailedPrecondition(
            source + " brings levels " + Values(c.values) + " of " + Quote(c.name) + ", but " +
            dataset + " has " + Values(have->values) +
            ": a step arrives whole in one import (pass all of its files together)");
      }
      return Status::FailedPrecondition(
          source + ": coordinate " + Quote(c.name) + " is " + Values(c.values) + ", but in " +
          dataset + " it is " + Values(have->values) + ": a run's grid and levels cannot change");
    }
  }
  GRIDSTORE_RETURN_IF_ERROR(MergeVariables(dataset, source, incoming, steps, &m));
  for (VariableMeta& v : out.variables) {
    if (v.dimension_names[grid::kT] == name) v.shape[grid::kT] = steps;
  }
  return m;
}

}  // namespace gridstore::internal_importers
