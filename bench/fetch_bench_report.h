// Copyright 2026 The GridStore Authors.
//
// What the fetch benchmark (bench/fetch_bench.cc) prints and writes: statistics of timings, the
// human tables on stdout and the JSON report of a run.
#ifndef GRIDSTORE_BENCH_FETCH_BENCH_REPORT_H_
#define GRIDSTORE_BENCH_FETCH_BENCH_REPORT_H_

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/fetch_bench.h"

namespace gridstore::bench::fetch {

// ---- Statistics ----

struct Summary {
  size_t n = 0;
  double p50 = 0, p99 = 0, mean = 0;
};

// Nearest-rank percentiles (p99 of fewer than 100 samples is the largest but at most one).
Summary Summarize(std::vector<double> v);
double Median(std::vector<double> v);
// The summary in milliseconds, with every sample.
nlohmann::json SummaryJson(const std::vector<double>& seconds);

// ---- Numbers as text ----

// Milliseconds to 3 significant digits: 0.0123, 1.23, 12.3, 123, 1234.
std::string Ms(double seconds);
// "1.23x", "12.3x".
std::string Ratio(double r);
// `v` with `digits` decimals.
std::string Fixed(double v, int digits);
// 1,234,567.
std::string Thousands(uint64_t v);

// ---- The report ----

// Prints the tables of a finished run (every query of run.results) on stdout.
void PrintReport(const Run& run);
// The formats of the data, with their sizes and compression ratios.
nlohmann::json FormatsJson(const DataSet& d);
// Each query's figures: GridStore's decoding work, every engine's timings and the ratios of
// netCDF over GridStore.
nlohmann::json QueriesJson(const Run& run);

}  // namespace gridstore::bench::fetch

#endif  // GRIDSTORE_BENCH_FETCH_BENCH_REPORT_H_
