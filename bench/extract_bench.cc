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
#include <memory>
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

Options ParseOptions(int argc, char** argv) {
  CLI::App app("Extraction by coordinates vs the index fetch it resolves to");
  Options o;
  SetUpCommandLine(app);
  app.add_option("STORE", o.store, "Store URI")->required();
  app.add_option("DATASET", o.dataset, "Dataset id")->required();
  app.add_option("--variable", o.variable, "Variable");
  app.add_option("--runs", o.runs, "Runs per query (the median is reported)");
  app.add_option("--seed", o.seed, "Random seed for the points");
  ParseCommandLine(app, argc, argv);
  return o;
}

// What every measured query reads: the store (block cache off), the dataset's meta, the variable.
struct Bench {
  const Options& o;
  std::unique_ptr<grid::GridStore> store;
  grid::DataSetMeta meta;
  const grid::VariableMeta* var = nullptr;
  std::string first_time;  // the label of the first time step
};

// Median time of extracting `request` in coordinates.
double ExtractMs(const Bench& b, const grid::ExtractRequest& request) {
  return MedianMs(
      b.o.runs, [&] { CheckResult(grid::Extract(*b.store, b.o.dataset, request), "extracting"); });
}

// Scattered points at one time: extract vs one index fetch of each cell, one by one.
void AddScatteredPointRows(const Bench& b, std::mt19937& rng, std::vector<Row>& rows) {
  std::uniform_real_distribution<double> lon(-179, 179), lat(-60, 60);
  for (int n : {1, 100, 10000}) {
    grid::ExtractRequest request;
    request.variables = {b.o.variable};
    request.time = b.first_time;
    for (int i = 0; i < n; ++i) request.points.push_back({lon(rng), lat(rng)});
    const grid::ExtractPlan plan = CheckResult(grid::PlanExtract(b.meta, request), "planning");
    const double extract_ms = ExtractMs(b, request);
    auto fetcher = CheckResult(b.store->GetDataFetcher(b.o.dataset), "a fetcher");
    fetcher->SetVariablesToGet({b.o.variable});
    const double fetch_ms = MedianMs(std::max(1, b.o.runs / (n >= 10000 ? 9 : 1)), [&] {
      for (const auto& p : plan.points) {
        fetcher->SetOriginShape({0, 0, p.cell.x, p.cell.y}, {1, 1, 1, 1});
        CheckResult(fetcher->Fetch(), "fetching");
      }
    });
    rows.push_back({std::to_string(n) + " scattered point(s), one time", extract_ms, fetch_ms,
                    std::to_string(n) + " index fetch(es) of the same cells"});
  }
}

// A point time series: by lon/lat vs by index.
Row TimeSeriesRow(const Bench& b) {
  grid::ExtractRequest request;
  request.variables = {b.o.variable};
  request.points = {{120.17, 30.25}};  // Hangzhou's nearest sea cell or not: the cost is the same
  const grid::ExtractPlan plan = CheckResult(grid::PlanExtract(b.meta, request), "planning");
  const grid::Cell cell = plan.points[0].cell;
  const double extract_ms = ExtractMs(b, request);
  auto fetcher = CheckResult(b.store->GetDataFetcher(b.o.dataset), "a fetcher");
  fetcher->SetVariablesToGet({b.o.variable});
  fetcher->SetOriginShape({0, 0, cell.x, cell.y}, {b.var->shape[grid::kT], 1, 1, 1});
  const double fetch_ms = MedianMs(b.o.runs, [&] { CheckResult(fetcher->Fetch(), "fetching"); });
  return {"point time series (" + std::to_string(b.var->shape[grid::kT]) + " times) by lon/lat",
          extract_ms, fetch_ms, "the same cell by index"};
}

// A province-sized polygon (about Zhejiang: 5 x 4 degrees, concave) vs its bounding box.
Row PolygonRow(const Bench& b) {
  grid::ExtractRequest request;
  request.variables = {b.o.variable};
  request.time = b.first_time;
  request.polygon =
      "POLYGON((118 27, 121 27.2, 123 28, 122.8 30, 123 31.2, 120.5 31.2, 119.5 29.5, "
      "118.2 30, 118 27))";
  const grid::ExtractPlan plan = CheckResult(grid::PlanExtract(b.meta, request), "planning");
  const double extract_ms = ExtractMs(b, request);
  const double fetch_ms = MedianMs(b.o.runs, [&] {
    auto fetcher = CheckResult(b.store->GetDataFetcher(b.o.dataset), "a fetcher");
    fetcher->SetVariablesToGet({b.o.variable});
    fetcher->SetOriginShape({0, 0, plan.area[0], plan.area[1]}, {1, 1, plan.area[2], plan.area[3]});
    CheckResult(fetcher->Fetch(), "fetching");
  });
  int64_t inside = 0;
  for (uint8_t m : plan.mask) inside += m;
  return {"province polygon (" + std::to_string(inside) + " cells inside)", extract_ms, fetch_ms,
          "fetch of its bounding box (" + std::to_string(plan.area[2]) + "x" +
              std::to_string(plan.area[3]) + ")"};
}

int Main(int argc, char** argv) {
  const Options o = ParseOptions(argc, argv);
  Bench b{.o = o,
          .store = CheckResult(
              grid::GridStore::Open(o.store, {.read_only = true, .block_cache_bytes = 0}),
              "opening the store")};
  b.meta = CheckResult(b.store->GetDataSetMeta(o.dataset), "reading the meta");
  b.var = b.meta.FindVariable(o.variable);
  if (b.var == nullptr) Die("no variable " + o.variable);
  auto hgrid = CheckResult(grid::HorizontalGrid::Build(b.meta, *b.var), "its grid");
  const grid::AxisCoordinate time =
      CheckResult(grid::AxisCoordinate::Build(b.meta, *b.var, grid::Axis::kT), "its time axis");
  b.first_time = time.Label(0);
  std::mt19937 rng(o.seed);
  std::vector<Row> rows;
  AddScatteredPointRows(b, rng, rows);
  rows.push_back(TimeSeriesRow(b));
  rows.push_back(PolygonRow(b));
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
