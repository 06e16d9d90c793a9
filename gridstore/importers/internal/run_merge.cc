// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/internal/run_merge.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "gridstore/grid/cf_time.h"
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
      VariableMeta added = v;
      added.shape[grid::kT] = steps;
      added.dimension_names[grid::kT] = "time";
      added.complete_steps = {};
      out.variables.push_back(std::move(added));
      m->variable_of.push_back(out.variables.size() - 1);
      continue;
    }
    if (have->type != v.type) {
      return Status::FailedPrecondition(
          source + ": variable " + Quote(v.name) + " is " + std::string(DataTypeName(v.type)) +
          ", but in " + dataset + " it is " + std::string(DataTypeName(have->type)) +
          " (import with the same --type)");
    }
    for (int axis = grid::kZ; axis < grid::kRank; ++axis) {
      if (have->shape[axis] != v.shape[axis] ||
          have->dimension_names[axis] != v.dimension_names[axis]) {
        return Status::FailedPrecondition(
            source + ": variable " + Quote(v.name) + " has " + std::to_string(v.shape[axis]) +
            " along " + std::string(grid::AxisName(axis)) + " (" +
            Quote(v.dimension_names[axis]) + "), but in " + dataset + " " +
            std::to_string(have->shape[axis]) + " (" + Quote(have->dimension_names[axis]) +
            "): a run's levels and grid cannot change");
      }
    }
    m->variable_of.push_back(static_cast<size_t>(have - out.variables.data()));
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
  Coordinate* time = FindCoordinate(&out, "time");
  const Coordinate* in_time = incoming.FindCoordinate("time");
  if (time == nullptr || time->dimensions != std::vector<std::string>{"time"}) {
    return Status::FailedPrecondition(dataset +
                                      " has no 1-D coordinate 'time', so it cannot grow along "
                                      "time; it was not made by a GRIB import");
  }
  if (in_time == nullptr || in_time->dimensions != std::vector<std::string>{"time"}) {
    return Status::InvalidArgument(source + " has no time axis to append");
  }
  Coordinate* step = FindCoordinate(&out, "step");
  GRIDSTORE_RETURN_IF_ERROR(MergeTimes(dataset, source, *in_time, incoming.FindCoordinate("step"),
                                       time, step, &m.t_of));
  const int64_t steps = static_cast<int64_t>(time->values.size());

  // The grid and the levels: as stored, or new (a level type the run did not have yet).
  for (const Coordinate& c : incoming.coordinates) {
    if (c.name == "time" || c.name == "step") continue;
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
      return Status::FailedPrecondition(source + ": coordinate " + Quote(c.name) + " is " +
                                        Values(c.values) + ", but in " + dataset + " it is " +
                                        Values(have->values) +
                                        ": a run's grid and levels cannot change");
    }
  }
  GRIDSTORE_RETURN_IF_ERROR(MergeVariables(dataset, source, incoming, steps, &m));
  for (VariableMeta& v : out.variables) {
    if (v.dimension_names[grid::kT] == "time") v.shape[grid::kT] = steps;
  }
  return m;
}

}  // namespace gridstore::internal_importers
