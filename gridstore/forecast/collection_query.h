// Copyright 2026 The GridStore Authors.
//
// Asking a collection (docs/collections.md): which runs, which members, a feature (everything
// ExtractRequest takes) and what to return: the members' values, ensemble statistics over them,
// or a cross-run view (THREDDS's names): constant forecast time (one valid time from every run:
// dprog/dt), constant offset (one lead time from every run: a series over run times) or best
// (for each valid time the newest run that covers it). Derived quantities (wind speed and
// direction) and unit conversion apply to every answer. The command's `extract COLLECTION`, the
// service's EDR instances and Python's collections all call ExtractCollection.
//
//   CollectionRequest r;
//   r.collection = "ecmf/ens";                   // the latest complete run, every member
//   r.statistics = "p10,p50,p90,prob<273.15";
//   r.extract.variables = {"2t"};
//   r.extract.points = {{116.4, 39.9}};
//   GRIDSTORE_ASSIGN_OR_RETURN(CollectionExtraction e, ExtractCollection(*store, r));
//   // e.slices[s]: statistic e.slices[s].statistic of run e.slices[s].run_time_ms
#ifndef GRIDSTORE_FORECAST_COLLECTION_QUERY_H_
#define GRIDSTORE_FORECAST_COLLECTION_QUERY_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/forecast/collection.h"
#include "gridstore/geo/extract.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/util/result.h"

namespace gridstore::forecast {

enum class RunView { kRuns, kConstantValidTime, kConstantLead, kBest };
// "runs", "constant forecast time", "constant offset", "best".
std::string_view RunViewName(RunView view);

struct CollectionRequest {
  std::string collection;
  // Which runs: "latest" (the newest complete run), "latest-N" (N complete runs before it), an
  // ISO run time, "ISO/ISO" (inclusive; ".." for an open end) or "all". Empty: "latest", or
  // "all" for the cross-run views.
  std::string runs;
  // Which members: "all" or a list "0,3,5" (empty: all). A deterministic collection has none.
  std::string members;
  // Ensemble statistics instead of the members (ParseStatistics: "mean,spread,p10,prob>273.15").
  // Thresholds are in the output units (after `units`).
  std::string statistics;
  // At most one cross-run view: a valid time (ISO; constant forecast time), a lead time (a
  // duration, "24h"; constant offset), or best.
  std::string valid_time;
  std::string lead;
  bool best = false;
  // Output units (comma-separated, udunits2: "degC,hPa"); empty: as stored.
  std::string units;
  // The feature, times (within each run, by valid time), levels and variables (derived names
  // allowed, derived.h). The cross-run views set each run's times themselves: `time` then only
  // narrows best's valid times, and must be empty for the other two.
  grid::ExtractRequest extract;
};

// One run's values of one member or one statistic.
struct CollectionSlice {
  int64_t run_time_ms = 0;
  int64_t member = kNoMember;  // kNoMember for a deterministic run or a statistic
  std::string statistic;       // "" unless a statistic ("mean", "p90", "prob>273.15")
  std::string dataset;         // the dataset read ("" for a statistic)
  // One result per group of variables on the same axes (geo/extract.h, ExtractEvery); each
  // plan's times are the valid times this slice answers.
  std::vector<grid::Extraction> groups;
};

struct CollectionExtraction {
  std::string collection;
  RunView view = RunView::kRuns;
  bool has_members = false;     // slices carry member numbers
  bool has_statistics = false;  // slices carry statistics
  // Run-major, then member or statistic (in the order asked).
  std::vector<CollectionSlice> slices;
  // What was left out and why: runs that do not cover the valid time or lead, variable groups
  // the request does not fit.
  std::vector<std::string> notes;
};

// The runs `request` selects, oldest first, as ExtractCollection chooses them (also for the
// service's instance lists and Python). Errors as ExtractCollection's for the run selection.
Result<std::vector<const Run*>> SelectRuns(const Collection& collection, std::string_view runs);

// Answers `request`. Errors, each naming what is wrong: NotFound for an unknown collection (the
// known ones named), a run time that does not exist (the nearest runs named) or a member that
// does not exist (the members named); InvalidArgument for a bad run, member or statistic spec, a
// statistic over fewer than two members, two cross-run views at once, a lead that is not a
// duration, members or statistics of a deterministic collection, derived quantities or units
// with packed values; OutOfRange for a valid time or lead no run covers (the runs' span named);
// FailedPrecondition if no run is complete yet; and ExtractEvery's errors for the feature.
Result<CollectionExtraction> ExtractCollection(grid::GridStore& store,
                                               const CollectionRequest& request);

}  // namespace gridstore::forecast

#endif  // GRIDSTORE_FORECAST_COLLECTION_QUERY_H_
