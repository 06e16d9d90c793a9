// Copyright 2026 The GridStore Authors.
//
// Extraction in coordinates against the index fetch it resolves to, side by side in one run
// (issue 14): 1, 100 and 10,000 scattered points at one time; a point time series by lon/lat vs
// the same cell by index (target: within 1.2x); a province-sized polygon vs the fetch of its
// bounding index box. In-process library calls, medians of --runs, block cache off so that every
// run reads and decodes (the cost a first request pays).
//
// Usage: extract_bench STORE DATASET [--variable V] [--runs N] [--seed S]
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

#include "bench/bench_common.h"
#include "gridstore/geo/extract.h"
#include "gridstore/grid/grid_store.h"

namespace gridstore::bench {
namespace {

struct Options {
  std::string store, dataset, variable = "sea_water_temperature";
  int runs = 9;
  unsigned seed = 14;
};

template <typename Fn>
double MedianMs(int runs, Fn&& fn) {
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const auto start = Clock::now();
    fn();
    ms.push_back(Since(start) * 1000);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

struct Row {
  std::string what;
  double gridstore_ms, reference_ms;
  std::string reference;
};

void Print(const std::vector<Row>& rows) {
  std::printf("| query | extract (ms) | peer | peer (ms) | ratio |\n|---|---|---|---|---|\n");
  for (const Row& r : rows) {
    std::printf("| %s | %.3f | %s | %.3f | %.2fx |\n", r.what.c_str(), r.gridstore_ms,
                r.reference.c_str(), r.reference_ms, r.gridstore_ms / r.reference_ms);
  }
}

int Main(int argc, char** argv) {
  CLI::App app("Extraction by coordinates vs the index fetch it resolves to");
  Options o;
  SetUpCommandLine(app);
  app.add_option("STORE", o.store, "Store URI")->required();
  app.add_option("DATASET", o.dataset, "Dataset id")->required();
  app.add_option("--variable", o.variable, "Variable");
  app.add_option("--runs", o.runs, "Runs per query (the median is reported)");
  app.add_option("--seed", o.seed, "Random seed for the points");
  ParseCommandLine(app, argc, argv);

  auto store =
      CheckResult(grid::GridStore::Open(o.store, {.read_only = true, .block_cache_bytes = 0}),
                  "opening the store");
  const grid::DataSetMeta meta = CheckResult(store->GetDataSetMeta(o.dataset), "reading the meta");
  const grid::VariableMeta* var = meta.FindVariable(o.variable);
  if (var == nullptr) Die("no variable " + o.variable);
  auto hgrid = CheckResult(grid::HorizontalGrid::Build(meta, *var), "its grid");
  const grid::AxisCoordinate time =
      CheckResult(grid::AxisCoordinate::Build(meta, *var, grid::kT), "its time axis");
  const std::string first_time = time.Label(0);
  std::mt19937 rng(o.seed);
  std::uniform_real_distribution<double> lon(-179, 179), lat(-60, 60);
  std::vector<Row> rows;

  // Scattered points at one time: extract vs one index fetch of each cell, one by one.
  for (int n : {1, 100, 10000}) {
    grid::ExtractRequest request;
    request.variables = {o.variable};
    request.time = first_time;
    for (int i = 0; i < n; ++i) request.points.push_back({lon(rng), lat(rng)});
    const grid::ExtractPlan plan = CheckResult(grid::PlanExtract(meta, request), "planning");
    const double extract_ms = MedianMs(
        o.runs, [&] { CheckResult(grid::Extract(*store, o.dataset, request), "extracting"); });
    auto fetcher = CheckResult(store->GetDataFetcher(o.dataset), "a fetcher");
    fetcher->SetVariablesToGet({o.variable});
    const double fetch_ms = MedianMs(std::max(1, o.runs / (n >= 10000 ? 9 : 1)), [&] {
      for (const auto& p : plan.points) {
        fetcher->SetOriginShape({0, 0, p.cell.x, p.cell.y}, {1, 1, 1, 1});
        CheckResult(fetcher->Fetch(), "fetching");
      }
    });
    rows.push_back({std::to_string(n) + " scattered point(s), one time", extract_ms, fetch_ms,
                    std::to_string(n) + " index fetch(es) of the same cells"});
  }

  // A point time series: by lon/lat vs by index.
  {
    grid::ExtractRequest request;
    request.variables = {o.variable};
    request.points = {{120.17, 30.25}};  // Hangzhou's nearest sea cell or not: the cost is the same
    const grid::ExtractPlan plan = CheckResult(grid::PlanExtract(meta, request), "planning");
    const grid::Cell cell = plan.points[0].cell;
    const double extract_ms = MedianMs(
        o.runs, [&] { CheckResult(grid::Extract(*store, o.dataset, request), "extracting"); });
    auto fetcher = CheckResult(store->GetDataFetcher(o.dataset), "a fetcher");
    fetcher->SetVariablesToGet({o.variable});
    fetcher->SetOriginShape({0, 0, cell.x, cell.y}, {var->shape[grid::kT], 1, 1, 1});
    const double fetch_ms = MedianMs(o.runs, [&] { CheckResult(fetcher->Fetch(), "fetching"); });
    rows.push_back(
        {"point time series (" + std::to_string(var->shape[grid::kT]) + " times) by lon/lat",
         extract_ms, fetch_ms, "the same cell by index"});
  }

  // A province-sized polygon (about Zhejiang: 5 x 4 degrees, concave) vs its bounding box.
  {
    grid::ExtractRequest request;
    request.variables = {o.variable};
    request.time = first_time;
    request.polygon =
        "POLYGON((118 27, 121 27.2, 123 28, 122.8 30, 123 31.2, 120.5 31.2, 119.5 29.5, "
        "118.2 30, 118 27))";
    const grid::ExtractPlan plan = CheckResult(grid::PlanExtract(meta, request), "planning");
    const double extract_ms = MedianMs(
        o.runs, [&] { CheckResult(grid::Extract(*store, o.dataset, request), "extracting"); });
    const double fetch_ms = MedianMs(o.runs, [&] {
      auto fetcher = CheckResult(store->GetDataFetcher(o.dataset), "a fetcher");
      fetcher->SetVariablesToGet({o.variable});
      fetcher->SetOriginShape({0, 0, plan.area[0], plan.area[1]},
                              {1, 1, plan.area[2], plan.area[3]});
      CheckResult(fetcher->Fetch(), "fetching");
    });
    int64_t inside = 0;
    for (uint8_t m : plan.mask) inside += m;
    rows.push_back({"province polygon (" + std::to_string(inside) + " cells inside)", extract_ms,
                    fetch_ms,
                    "fetch of its bounding box (" + std::to_string(plan.area[2]) + "x" +
                        std::to_string(plan.area[3]) + ")"});
  }
  std::printf("%s: %s, %s\n\n", o.dataset.c_str(), o.variable.c_str(),
              hgrid->description().c_str());
  Print(rows);
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  std::printf("\npeak RSS %.1f MiB\n", double(usage.ru_maxrss) / 1024);
  return 0;
}

}  // namespace
}  // namespace gridstore::bench

int main(int argc, char** argv) { return gridstore::bench::Main(argc, argv); }
