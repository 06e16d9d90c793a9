// Copyright 2026 The GridStore Authors.
//
// plane_fetch_bench: the decoded throughput of whole-plane fetches (issue 18, part 3), in-process
// and warm, on 1 and 2 threads, beside the bound in the same run: zstd alone decompressing a
// sample of the variable's blocks on one core (fetch_bench's MeasureDecodeSpeed: every frame
// decompressed, no unshuffle, no checksum, no copy, no store read), per CPU second of the thread.
// Throughput = raw bytes of the planes / wall time; "of bound" = throughput / (threads x bound).
//
// Usage: plane_fetch_bench STORE DATASET VARIABLE [--runs 200] [--threads 1,2] [--seed 1] [--cache]
// Every run fetches one whole (t, z) plane of VARIABLE, chosen pseudo-randomly, with the block
// cache off (each run decodes every block it needs), or with --cache on, as FetchOptions has it by
// default, in a cache of 1 MiB (less than a plane, so planes are not in it when read): the cost
// of filling it.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "bench/fetch_bench.h"
#include "gridstore/grid/grid_store.h"

namespace {

namespace grid = gridstore::grid;
using gridstore::bench::Check;
using gridstore::bench::CheckResult;
using gridstore::bench::Clock;
using gridstore::bench::Die;
using gridstore::bench::Since;

struct PlaneBenchOptions {
  std::string store, dataset, variable;
  int runs = 200;
  std::vector<int> threads = {1, 2};
  uint64_t seed = 1;
  bool cache = false;
};

PlaneBenchOptions ParsePlaneBenchArgs(int argc, char** argv) {
  PlaneBenchOptions o;
  CLI::App app("Decoded throughput of whole-plane fetches on 1 and 2 threads, warm.");
  gridstore::bench::SetUpCommandLine(app);
  app.add_option("STORE", o.store, "The store")->required();
  app.add_option("DATASET", o.dataset, "The dataset")->required();
  app.add_option("VARIABLE", o.variable, "The variable whose planes are fetched")->required();
  app.add_option("--runs", o.runs, "Timed fetches per thread count")->check(CLI::Range(1, 100000));
  app.add_option("--threads", o.threads, "Thread counts (FetchOptions::parallelism)")
      ->delimiter(',')
      ->check(CLI::Range(1, 64));
  app.add_option("--seed", o.seed, "Seed of the planes chosen");
  app.add_flag("--cache", o.cache,
               "Fetch with the decoded-block cache on (FetchOptions' default; each plane is "
               "still read once: the cache is filled, not hit)");
  gridstore::bench::ParseCommandLine(app, argc, argv);
  return o;
}

struct PlaneTimes {
  double median_ms = 0, best_ms = 0;
  int64_t bytes = 0;  // per fetch
};

PlaneTimes TimePlanes(const PlaneBenchOptions& o, int threads) {
  auto store = CheckResult(grid::GridStore::Open(o.store, {.read_only = true,
                                                           .threads = std::max(1, threads - 1),
                                                           .block_cache_bytes = size_t{1} << 20}),
                           "opening " + o.store);
  auto fetcher = CheckResult(store->GetDataFetcher(o.dataset), "dataset " + o.dataset);
  grid::FetchOptions options;
  options.parallelism = threads;
  options.use_cache = o.cache;
  fetcher->set_options(options);
  const grid::VariableMeta* var = fetcher->meta().FindVariable(o.variable);
  if (var == nullptr) Die("no variable " + o.variable + " in " + o.dataset);
  const grid::Shape4 shape = var->shape;
  fetcher->SetVariablesToGet({o.variable});
  std::mt19937_64 rng(o.seed);
  std::vector<double> ms;
  PlaneTimes t;
  for (int run = -3; run < o.runs; ++run) {  // 3 untimed runs warm the page cache and the pool
    const int64_t ti = static_cast<int64_t>(rng() % static_cast<uint64_t>(shape[0]));
    const int64_t zi = static_cast<int64_t>(rng() % static_cast<uint64_t>(shape[1]));
    fetcher->SetOriginShape({ti, zi, 0, 0}, {1, 1, shape[2], shape[3]});
    const auto start = Clock::now();
    auto result = fetcher->Fetch();
    const double seconds = Since(start);
    const grid::GridDataSet data = CheckResult(std::move(result), "fetching a plane");
    t.bytes = static_cast<int64_t>(data.GetVariable(o.variable)->size_bytes());
    if (run >= 0) ms.push_back(seconds * 1e3);
  }
  std::sort(ms.begin(), ms.end());
  t.median_ms = ms[ms.size() / 2];
  t.best_ms = ms.front();
  return t;
}

// zstd's decode speed on one core, MB of raw bytes per CPU second, on the variable's blocks.
double ZstdBoundMbPerSecond(const PlaneBenchOptions& o) {
  auto store = CheckResult(grid::GridStore::Open(o.store, {.read_only = true}), "opening store");
  const grid::DataSetMeta meta =
      CheckResult(store->GetDataSetMeta(o.dataset), "dataset " + o.dataset);
  const grid::VariableMeta* var = meta.FindVariable(o.variable);
  if (var == nullptr) Die("no variable " + o.variable + " in " + o.dataset);
  gridstore::bench::fetch::DataSet d;
  d.id = o.dataset;
  d.shape = var->shape;
  d.variables = {o.variable};
  return gridstore::bench::fetch::MeasureDecodeSpeed(store.get(), d, o.seed).zstd_mb_s;
}

}  // namespace

int main(int argc, char** argv) {
  const PlaneBenchOptions o = ParsePlaneBenchArgs(argc, argv);
  const double bound = ZstdBoundMbPerSecond(o) / 1e3;  // GB/s on one core
  std::printf("zstd alone on one core: %.2f GB/s of raw bytes (the bound per thread)\n\n", bound);
  std::printf(
      "| threads | median ms | best ms | GB/s (median) | GB/s (best) | of bound (median) |\n");
  std::printf("|---:|---:|---:|---:|---:|---:|\n");
  for (int threads : o.threads) {
    const PlaneTimes t = TimePlanes(o, threads);
    const double gbs = static_cast<double>(t.bytes) / t.median_ms / 1e6;
    std::printf("| %d | %.3f | %.3f | %.2f | %.2f | %.0f%% |\n", threads, t.median_ms, t.best_ms,
                gbs, static_cast<double>(t.bytes) / t.best_ms / 1e6, 100 * gbs / (threads * bound));
  }
  return 0;
}
