// Copyright 2026 The GridStore Authors.
#include "gridstore/forecast/collection.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "gridstore/catalog/meta_query.h"
#include "gridstore/geo/coordinates.h"
#include "gridstore/model/cf_time.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::forecast {
namespace {

using grid::DataSetMeta;

const grid::TimeUnits& EpochMillis() {
  // Milliseconds as seconds with a fraction: TimeUnits counts whole units from the epoch.
  static const grid::TimeUnits units =
      *grid::TimeUnits::Parse("seconds since 1970-01-01 00:00:00", "standard");
  return units;
}

// The integer attribute `name`, or nullopt if absent; an error naming the dataset if it is not
// one integer.
Result<std::optional<int64_t>> IntegerAttribute(const DataSetMeta& meta, std::string_view name) {
  auto it = meta.attributes.find(name);
  if (it == meta.attributes.end()) return std::optional<int64_t>();
  const grid::AttributeValue& v = it->second;
  if (v.is_number() && v.size() == 1) {
    const double d = v.AsDouble();
    if (std::isfinite(d) && d == std::floor(d)) return std::optional<int64_t>(int64_t(d));
  }
  if (v.is_string()) {
    if (name == kRunTimeAttribute) {
      GRIDSTORE_ASSIGN_OR_RETURN(int64_t ms, ParseIsoMs(v.string_value(), name));
      return std::optional<int64_t>(ms);
    }
  }
  return Status::InvalidArgument(Quote(meta.id) + ": attribute " + Quote(name) + " = " +
                                 Quote(v.ToString()) + " is not an integer");
}

}  // namespace

Status EnsureCollectionIndex(grid::GridStore& store) {
  grid::MetaIndexSchema schema{{{std::string(kCollectionAttribute), grid::IndexFieldType::kString},
                                {std::string(kRunTimeAttribute), grid::IndexFieldType::kInt64},
                                {std::string(kMemberAttribute), grid::IndexFieldType::kInt64}}};
  GRIDSTORE_ASSIGN_OR_RETURN(auto indexes, store.ListMetaIndexes());
  for (const auto& index : indexes) {
    if (index.name == kCollectionIndex) return Status::OK();
  }
  return store.CreateMetaIndex(kCollectionIndex, schema);
}

Result<int64_t> ParseIsoMs(std::string_view text, std::string_view what) {
  auto civil = grid::ParseIsoTime(text, grid::Calendar::kStandard);
  if (!civil.ok()) {
    return Status::InvalidArgument(std::string(what) + " " + Quote(text) +
                                   " is not an ISO 8601 time (e.g. 2026-11-24T00:00Z)");
  }
  return static_cast<int64_t>(std::llround(EpochMillis().FromCivil(*civil) * 1000.0));
}

std::string FormatIsoMs(int64_t ms) {
  auto iso = EpochMillis().ToIso(static_cast<double>(ms) / 1000.0);
  return iso.ok() ? *iso : std::to_string(ms) + " ms";
}

std::string FormatLead(int64_t ms) {
  if (ms == 0) return "0";
  std::string sign = ms < 0 ? "-" : "+";
  int64_t m = ms < 0 ? -ms : ms;
  if (m % 3'600'000 == 0) return sign + std::to_string(m / 3'600'000) + " h";
  if (m % 60'000 == 0) return sign + std::to_string(m / 60'000) + " min";
  return sign + std::to_string(m / 1000) + " s";
}

Result<std::vector<int64_t>> ValidTimesMs(const DataSetMeta& meta, std::string_view variable) {
  const grid::VariableMeta* var = nullptr;
  for (const auto& v : meta.variables) {
    if (variable.empty() ? v.shape[grid::kT] > 1 || var == nullptr : v.name == variable) {
      var = &v;
      if (!variable.empty() || v.shape[grid::kT] > 1) break;
    }
  }
  if (var == nullptr) {
    return Status::NotFound("dataset " + Quote(meta.id) + " has no variable " + Quote(variable));
  }
  GRIDSTORE_ASSIGN_OR_RETURN(grid::AxisCoordinate axis,
                             grid::AxisCoordinate::Build(meta, *var, grid::Axis::kT));
  std::vector<int64_t> times;
  if (axis.time_units() == nullptr) {
    // No time axis with dates: one time, the run's own (a field valid at its reference time).
    auto run = meta.attributes.find(kRunTimeAttribute);
    if (var->shape[grid::kT] == 1 && run != meta.attributes.end() && run->second.is_number()) {
      return std::vector<int64_t>{int64_t(run->second.AsDouble())};
    }
    return Status::InvalidArgument("dataset " + Quote(meta.id) + ": variable " + Quote(var->name) +
                                   " has no time axis with dates");
  }
  for (double v : axis.values()) {
    GRIDSTORE_ASSIGN_OR_RETURN(grid::CivilTime civil, axis.time_units()->ToCivil(v));
    times.push_back(static_cast<int64_t>(std::llround(EpochMillis().FromCivil(civil) * 1000.0)));
  }
  return times;
}

bool Run::complete() const {
  return std::all_of(members.begin(), members.end(),
                     [](const RunMember& m) { return m.meta->status() == grid::kStatusDone; });
}

const RunMember* Run::Find(int64_t member) const {
  for (const RunMember& m : members) {
    if (m.member == member) return &m;
  }
  return nullptr;
}

const Run* Collection::Latest() const {
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    if (it->complete()) return &*it;
  }
  return nullptr;
}

const Run* Collection::Find(int64_t run_time_ms) const {
  for (const Run& r : runs) {
    if (r.run_time_ms == run_time_ms) return &r;
  }
  return nullptr;
}

bool Collection::has_members() const {
  for (const Run& r : runs) {
    for (const RunMember& m : r.members) {
      if (m.member != kNoMember) return true;
    }
  }
  return false;
}

std::vector<int64_t> Collection::Members() const {
  std::set<int64_t> all;
  for (const Run& r : runs) {
    for (const RunMember& m : r.members) {
      if (m.member != kNoMember) all.insert(m.member);
    }
  }
  return {all.begin(), all.end()};
}

std::vector<std::string> Collection::Variables() const {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const Run& r : runs) {
    for (const RunMember& m : r.members) {
      for (const auto& v : m.meta->variables) {
        if (seen.insert(v.name).second) names.push_back(v.name);
      }
    }
  }
  return names;
}

std::vector<int64_t> Collection::LeadsMs() const {
  std::set<int64_t> leads;
  for (const Run& r : runs) {
    if (r.members.empty()) continue;
    auto times = ValidTimesMs(*r.members.front().meta);
    if (!times.ok()) continue;
    for (int64_t t : *times) leads.insert(t - r.run_time_ms);
  }
  return {leads.begin(), leads.end()};
}

namespace {

// The collections of the datasets `query` selects (through kCollectionIndex when the store has
// it), by name.
Result<std::vector<Collection>> CollectionsOf(grid::GridStore& store, const grid::Query& query,
                                              std::vector<std::string>* left_out) {
  grid::QueryParams params;
  params.limit = -1;
  GRIDSTORE_ASSIGN_OR_RETURN(auto indexes, store.ListMetaIndexes());
  const bool indexed = std::any_of(indexes.begin(), indexes.end(),
                                   [](const auto& i) { return i.name == kCollectionIndex; });
  GRIDSTORE_ASSIGN_OR_RETURN(grid::QueryResult found,
                             store.QueryDataSets(indexed ? kCollectionIndex : "", query, params));
  std::map<std::string, std::map<int64_t, Run>> by_name;
  for (DataSetMeta& meta : found.metas) {
    const std::string name = grid::StringAttribute(meta.attributes, kCollectionAttribute);
    if (name.empty()) continue;
    auto run_time = IntegerAttribute(meta, kRunTimeAttribute);
    auto member = IntegerAttribute(meta, kMemberAttribute);
    Status bad = !run_time.ok() ? run_time.status() : !member.ok() ? member.status() : Status();
    if (bad.ok() && !run_time->has_value()) {
      bad = Status::InvalidArgument(Quote(meta.id) + " has no " + std::string(kRunTimeAttribute));
    }
    if (!bad.ok()) {
      if (left_out != nullptr) left_out->push_back(std::string(bad.message()));
      continue;
    }
    Run& run = by_name[name][**run_time];
    run.run_time_ms = **run_time;
    run.members.push_back(
        {member->value_or(kNoMember), std::make_shared<const DataSetMeta>(std::move(meta))});
  }
  std::vector<Collection> collections;
  for (auto& [name, runs] : by_name) {
    Collection c;
    c.name = name;
    for (auto& [time, run] : runs) {
      std::sort(run.members.begin(), run.members.end(),
                [](const RunMember& a, const RunMember& b) { return a.member < b.member; });
      c.runs.push_back(std::move(run));
    }
    collections.push_back(std::move(c));
  }
  return collections;
}

}  // namespace

Result<std::vector<Collection>> ListCollections(grid::GridStore& store,
                                                std::vector<std::string>* left_out) {
  return CollectionsOf(store, grid::QueryBuilder::Exists(std::string(kCollectionAttribute)),
                       left_out);
}

Result<Collection> GetCollection(grid::GridStore& store, std::string_view name) {
  // One collection's datasets only, through the index: a store of many collections and runs
  // costs this one's metas.
  GRIDSTORE_ASSIGN_OR_RETURN(
      std::vector<Collection> one,
      CollectionsOf(store,
                    grid::QueryBuilder::Equal(std::string(kCollectionAttribute), std::string(name)),
                    nullptr));
  if (!one.empty()) return std::move(one.front());
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<Collection> all, ListCollections(store));
  std::string names;
  for (const Collection& c : all) names += (names.empty() ? "" : ", ") + Quote(c.name);
  return Status::NotFound("no collection " + Quote(name) + " in the store" +
                          (names.empty() ? " (it has none)" : " (it has " + names + ")"));
}

Result<std::vector<std::string>> KeepNewestRuns(grid::GridStore& store, std::string_view collection,
                                                int64_t keep_runs, bool dry_run) {
  if (keep_runs < 1) {
    return Status::InvalidArgument("--keep-runs " + std::to_string(keep_runs) +
                                   ": keep at least one run");
  }
  GRIDSTORE_ASSIGN_OR_RETURN(Collection c, GetCollection(store, collection));
  std::vector<std::string> ids;
  const int64_t drop = std::max<int64_t>(0, int64_t(c.runs.size()) - keep_runs);
  for (int64_t r = 0; r < drop; ++r) {
    for (const RunMember& m : c.runs[size_t(r)].members) ids.push_back(m.meta->id);
  }
  if (dry_run) return ids;
  for (const std::string& id : ids) {
    Status deleted = store.DeleteDataSet(id);
    if (!deleted.ok() && !deleted.IsNotFound()) {
      return deleted.WithContext("retention of collection " + Quote(collection));
    }
  }
  return ids;
}

}  // namespace gridstore::forecast
