// Copyright 2026 The GridStore Authors.
//
// Ensemble statistics over members, computed in one pass over the members' values: mean, spread
// (the population standard deviation, as ensemble spread is usually defined), min, max,
// percentiles (linear interpolation between the sorted members: numpy's default, "linear") and
// the probability of a threshold (the fraction of members beyond it). A value missing (NaN) in
// any member is missing in every statistic, as numpy has it.
#ifndef GRIDSTORE_FORECAST_ENSEMBLE_STATS_H_
#define GRIDSTORE_FORECAST_ENSEMBLE_STATS_H_

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/util/result.h"

namespace gridstore::forecast {

struct Statistic {
  enum class Kind { kMean, kSpread, kMin, kMax, kPercentile, kProbAbove, kProbBelow };
  Kind kind = Kind::kMean;
  double value = 0;  // the percentile (0..100) or the threshold
  std::string name;  // as asked: "mean", "p10", "prob>273.15"
  // True for a probability (a fraction 0..1, no units).
  bool is_probability() const { return kind == Kind::kProbAbove || kind == Kind::kProbBelow; }
};

// "mean,spread,min,max,p10,p50,p90,prob>273.15,prob<0" (also "median" = p50, "std" = spread,
// "prob>=X" and "prob<=X"). InvalidArgument naming the item: an unknown name, a percentile
// outside 0..100, a threshold without a number, a statistic asked twice.
Result<std::vector<Statistic>> ParseStatistics(std::string_view text);

// The statistics of `members` (each one member's values, all of one length) at every value
// index: out[s][i] for statistic s. REQUIRES: at least one member; equal lengths.
std::vector<std::vector<double>> ComputeStatistics(
    std::span<const Statistic> statistics, std::span<const std::vector<double>* const> members);

}  // namespace gridstore::forecast

#endif  // GRIDSTORE_FORECAST_ENSEMBLE_STATS_H_
