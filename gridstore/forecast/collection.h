// Copyright 2026 The GridStore Authors.
//
// Forecast collections (docs/collections.md). A collection is a model or product ("ecmf/ens",
// "kwbc/fc"); a run is one reference time of it; a member one ensemble number (none for a
// deterministic model). Each (run, member) stays one 5-D dataset, so nothing below the catalog
// knows about collections: the grouping is three typed catalog attributes that every import
// fills, indexed together by kCollectionIndex.
//
//   GRIDSTORE_ASSIGN_OR_RETURN(Collection ens, GetCollection(*store, "ecmf/ens"));
//   const Run* run = ens.Latest();  // the newest run whose every member is complete
//   for (const RunMember& m : run->members) ... m.member, m.meta->id
#ifndef GRIDSTORE_FORECAST_COLLECTION_H_
#define GRIDSTORE_FORECAST_COLLECTION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/grid/grid_store.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::forecast {

// The catalog attributes of a dataset in a collection. `collection` is a string, `run_time` the
// reference time in milliseconds since 1970-01-01 UTC (int64), `member` the ensemble number
// (int64; absent for a deterministic model).
inline constexpr std::string_view kCollectionAttribute = "collection";
inline constexpr std::string_view kRunTimeAttribute = "run_time";
inline constexpr std::string_view kMemberAttribute = "member";
// The meta index over (collection, run_time, member) that collection queries use.
inline constexpr std::string_view kCollectionIndex = "forecast_collections";
inline constexpr int64_t kNoMember = -1;

// Creates kCollectionIndex if the store lacks it (every import into a collection calls this).
Status EnsureCollectionIndex(grid::GridStore& store);

// An ISO 8601 time (as ParseIsoTime takes it, standard calendar) in ms since the epoch;
// InvalidArgument naming `what` and the text otherwise.
Result<int64_t> ParseIsoMs(std::string_view text, std::string_view what);
// "2017-01-01T00:00:00Z".
std::string FormatIsoMs(int64_t ms);
// A lead time as people write it: "+36 h", "36h", "1d12h", "90min" ("0" for none).
std::string FormatLead(int64_t ms);

// The valid times of the dataset's variable `variable` (the first with a time axis if empty) in
// ms since the epoch; one time (the run time) if it has no time axis. InvalidArgument naming the
// dataset if its time axis has no dates.
Result<std::vector<int64_t>> ValidTimesMs(const grid::DataSetMeta& meta,
                                          std::string_view variable = {});

struct RunMember {
  int64_t member = kNoMember;
  std::shared_ptr<const grid::DataSetMeta> meta;
};

struct Run {
  int64_t run_time_ms = 0;
  std::vector<RunMember> members;  // by member number (one, kNoMember, if deterministic)
  // True if every member's dataset is DONE (a run still arriving is INGESTING).
  bool complete() const;
  // The member `member`, or null.
  const RunMember* Find(int64_t member) const;
};

struct Collection {
  std::string name;
  std::vector<Run> runs;  // oldest first

  // The newest complete run, or null if none is complete.
  const Run* Latest() const;
  // The run at exactly `run_time_ms`, or null.
  const Run* Find(int64_t run_time_ms) const;
  bool has_members() const;
  // Every member number of any run, ascending (empty if deterministic).
  std::vector<int64_t> Members() const;
  // Every variable of any dataset, in the order first seen.
  std::vector<std::string> Variables() const;
  // Every lead time (valid - run time) of any run, in ms, ascending.
  std::vector<int64_t> LeadsMs() const;
};

// Every collection in the store (the datasets with a `collection` attribute, read through
// kCollectionIndex when the store has it), by name. A dataset whose `run_time` or `member` is
// not an integer is left out, and said in *left_out (may be null) as "ID: why".
Result<std::vector<Collection>> ListCollections(grid::GridStore& store,
                                                std::vector<std::string>* left_out = nullptr);
// One collection; NotFound naming the collections there are.
Result<Collection> GetCollection(grid::GridStore& store, std::string_view name);

// Retention per collection: deletes every run of `collection` but the newest `keep_runs`
// (complete or not: a run still arriving counts as the newest). The ids deleted (or, dry, that
// would be), oldest first. InvalidArgument for keep_runs < 1; NotFound for no such collection.
Result<std::vector<std::string>> KeepNewestRuns(grid::GridStore& store, std::string_view collection,
                                                int64_t keep_runs, bool dry_run);

}  // namespace gridstore::forecast

#endif  // GRIDSTORE_FORECAST_COLLECTION_H_
