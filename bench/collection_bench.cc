// Copyright 2026 The GridStore Authors.
//
// Forecast collections (issue 31), in-process, warm: the questions forecasters ask of a whole
// ensemble or of many runs, answered by forecast::ExtractCollection (the function the command,
// the service and Python call):
//   - a meteogram: every member of the latest run, every step, several variables at a point,
//     with percentiles (the 51 members x 240 steps x 5 variables), from the series
//     layout and from the planes;
//   - constant forecast time: one valid time from each of 40 runs at a point (dprog/dt);
//   - constant offset and best over the same 40 runs.
// The fields are real: ERA5 2 m temperature over the UK, hourly for March 2019
// (../shared/grib/era5-2mt-2019-03-uk.grib, 744 fields on 33 x 49 points), imported once; each
// member, step and variable takes a field of it at an hour offset, scaled and shifted per
// variable, so values vary as weather does. Kept in WORK_DIR: a second run reuses the store.
//
// Usage: collection_bench WORK_DIR --grib FILE [--members 51] [--steps 240] [--variables 5]
//            [--runs 40] [--repeats 20]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "gridstore/forecast/collection_query.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/importers/import.h"

namespace {

namespace grid = gridstore::grid;
namespace forecast = gridstore::forecast;
using gridstore::bench::Check;
using gridstore::bench::CheckResult;
using gridstore::bench::Clock;
using gridstore::bench::Since;

struct Params {
  std::string work_dir, grib;
  int64_t members = 51, steps = 240, variables = 5, runs = 40;
  int repeats = 20;
  std::string only;  // one question's name (for a profiler), or all
};

constexpr int64_t kHour = 3'600'000;
constexpr int64_t kFirstRun = 1'551'398'400'000;  // 2019-03-01T00:00:00Z

const char* kNames[] = {"2t", "10u", "10v", "msl", "tcc", "sp", "d2m", "skt"};

// The source: 744 hourly planes of ERA5 2 m temperature.
struct Source {
  grid::DataSetMeta meta;
  std::vector<grid::Grid2D> planes;
};

Source ReadSource(grid::GridStore* store, const std::string& grib) {
  Source s;
  if (!store->GetDataSetMeta("source").ok()) {
    gridstore::importers::ImportOptions options;
    options.dataset_id = "source";
    auto plan = CheckResult(gridstore::importers::PlanImport({grib}, options), "planning " + grib);
    CheckResult(gridstore::importers::RunImport(store, *plan, nullptr), "importing " + grib);
  }
  s.meta = CheckResult(store->GetDataSetMeta("source"), "the source");
  auto fetcher = CheckResult(store->GetDataFetcher("source"), "a fetcher");
  const grid::VariableMeta& v = s.meta.variables.front();
  gridstore::grid::FetchRequest request;
  request.variables = {v.name};
  auto all = CheckResult(fetcher->Fetch(request), "reading the source");
  for (int64_t t = 0; t < v.shape[grid::kT]; ++t) {
    grid::Grid2D plane(grid::DataType::kFloat32, v.shape[grid::kX], v.shape[grid::kY]);
    auto out = plane.data<float>();
    const grid::Grid4D& grid4 = *all.GetVariable(v.name);
    for (int64_t x = 0; x < v.shape[grid::kX]; ++x)
      for (int64_t y = 0; y < v.shape[grid::kY]; ++y)
        out[size_t(x * v.shape[grid::kY] + y)] = float(grid4.ValueAsDouble(t, 0, x, y));
    s.planes.push_back(std::move(plane));
  }
  return s;
}

// One dataset of the collection: `steps` steps of `variables` variables from the source.
void WriteDataSet(grid::GridStore* store, const Source& source, const std::string& collection,
                  const std::string& id, int64_t run, int64_t member, int64_t steps,
                  int64_t variables, bool series) {
  if (store->GetDataSetMeta(id).ok()) return;
  grid::DataSetMeta meta = source.meta;
  meta.id = id;
  meta.set_status(grid::kStatusInit);
  const grid::VariableMeta base = meta.variables.front();
  meta.variables.clear();
  for (int64_t v = 0; v < variables; ++v) {
    grid::VariableMeta var = base;
    var.name = kNames[v];
    var.shape[grid::kT] = steps;
    meta.variables.push_back(var);
  }
  // Valid times: the run plus 0, 1, ... hours.
  for (grid::Coordinate& c : meta.coordinates) {
    if (c.name == "time") {
      c.values.clear();
      for (int64_t t = 0; t < steps; ++t) c.values.push_back(double(t));
      c.shape = {steps};
      c.attributes["units"] = grid::AttributeValue::String(
          "hours since " + forecast::FormatIsoMs(kFirstRun + run * 12 * kHour));
    }
  }
  meta.attributes[std::string(forecast::kCollectionAttribute)] =
      grid::AttributeValue::String(collection);
  meta.attributes[std::string(forecast::kRunTimeAttribute)] =
      grid::AttributeValue::Int64(kFirstRun + run * 12 * kHour);
  if (member >= 0) {
    meta.attributes[std::string(forecast::kMemberAttribute)] = grid::AttributeValue::Int64(member);
  }
  Check(store->PutDataSetMeta(meta), "creating " + id);
  auto writer = CheckResult(store->GetDataWriter(id), "a writer");
  const int64_t n = int64_t(source.planes.size());
  for (int64_t v = 0; v < variables; ++v) {
    for (int64_t t = 0; t < steps; ++t) {
      const grid::Grid2D& src =
          source.planes[size_t((t + 3 * (member + 1) + 12 * run + 97 * v) % n)];
      grid::Grid2D plane(grid::DataType::kFloat32, src.x(), src.y());
      auto in = src.data<float>();
      auto out = plane.data<float>();
      const float scale = 1.0f + 0.01f * float(v), shift = -10.0f * float(v);
      for (size_t i = 0; i < out.size(); ++i) out[i] = in[i] * scale + shift;
      Check(writer->SubmitGrid2D(kNames[v], t, 0, std::move(plane)), "writing " + id);
    }
  }
  Check(writer->Flush(), "flushing " + id);
  meta.set_status(grid::kStatusDone);
  Check(store->UpdateDataSetMeta(meta), "completing " + id);
  if (series) {
    grid::SeriesLayout layout;
    layout.block_t = steps;
    CheckResult(store->AddSeriesLayout(id, layout), "the series layout of " + id);
  }
}

// Median milliseconds of `repeats` runs of `query` (after one warm-up).
template <typename Query>
double MedianMs(int repeats, Query query) {
  query();
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    const auto start = Clock::now();
    query();
    ms.push_back(Since(start) * 1000);
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  Params p;
  CLI::App app("Forecast collections: meteograms and cross-run views, in-process");
  gridstore::bench::SetUpCommandLine(app);
  app.add_option("WORK_DIR", p.work_dir, "Where the store is kept")->required();
  app.add_option("--grib", p.grib, "era5-2mt-2019-03-uk.grib (../shared/grib)")->required();
  app.add_option("--members", p.members, "Members of the ensemble run");
  app.add_option("--steps", p.steps, "Steps of each run (hourly)");
  app.add_option("--variables", p.variables, "Variables of the meteogram (at most 8)");
  app.add_option("--runs", p.runs, "Runs of the deterministic collection");
  app.add_option("--repeats", p.repeats, "Timed repeats per question (median reported)");
  app.add_option("--only", p.only,
                 "Ask only this question (meteogram, members, planes, valid, lead, best)");
  gridstore::bench::ParseCommandLine(app, argc, argv);
  if (p.variables < 1 || p.variables > 8) gridstore::bench::Die("--variables is 1 to 8");
  std::filesystem::create_directories(p.work_dir);
  auto store = CheckResult(
      grid::GridStore::Open(p.work_dir + "/store", {.create_if_missing = true}), "the store");
  const auto build = Clock::now();
  const Source source = ReadSource(store.get(), p.grib);
  Check(forecast::EnsureCollectionIndex(*store), "the collection index");
  for (int64_t m = 0; m < p.members; ++m) {
    const std::string m_id = "/m" + std::to_string(m);
    WriteDataSet(store.get(), source, "bench/ens", "ens/series" + m_id, 0, m, p.steps, p.variables,
                 true);
    WriteDataSet(store.get(), source, "bench/ens-planes", "ens/planes" + m_id, 0, m, p.steps,
                 p.variables, false);
  }
  for (int64_t r = 0; r < p.runs; ++r) {
    WriteDataSet(store.get(), source, "bench/det", "det/" + std::to_string(r), r, -1,
                 std::min<int64_t>(p.steps, 120), 1, true);
  }
  std::printf("store ready in %.1f s (%ld members x %ld steps x %ld variables; %ld runs)\n",
              Since(build), long(p.members), long(p.steps), long(p.variables), long(p.runs));

  forecast::CollectionRequest meteogram;
  meteogram.collection = "bench/ens";
  meteogram.statistics = "p10,p50,p90";
  for (int64_t v = 0; v < p.variables; ++v) meteogram.extract.variables.push_back(kNames[v]);
  meteogram.extract.points = {{-1.5, 52.5}};
  auto ask = [&](const forecast::CollectionRequest& r) {
    return [&store, r] { CheckResult(forecast::ExtractCollection(*store, r), "the query"); };
  };
  forecast::CollectionRequest members = meteogram;
  members.statistics = "";
  forecast::CollectionRequest planes = meteogram;
  planes.collection = "bench/ens-planes";
  forecast::CollectionRequest valid;
  valid.collection = "bench/det";
  valid.extract.variables = {"2t"};
  valid.extract.points = {{-1.5, 52.5}};
  valid.valid_time = forecast::FormatIsoMs(kFirstRun + (p.runs - 1) * 12 * kHour);
  forecast::CollectionRequest lead = valid;
  lead.valid_time = "";
  lead.lead = "24h";
  forecast::CollectionRequest best = lead;
  best.lead = "";
  best.best = true;
  struct Question {
    const char* name;
    const char* text;
    const forecast::CollectionRequest* request;
  };
  const Question questions[] = {
      {"meteogram", "meteogram: members x steps x variables, p10/p50/p90 (series)", &meteogram},
      {"members", "meteogram: every member's values (series)", &members},
      {"planes", "meteogram: p10/p50/p90 from the planes", &planes},
      {"valid", "constant forecast time across the runs", &valid},
      {"lead", "constant offset (+24 h) across the runs", &lead},
      {"best", "best (every valid time, newest run)", &best},
  };
  std::printf("%-58s %10s\n", "question (warm, in-process, median)", "ms");
  for (const Question& q : questions) {
    if (!p.only.empty() && p.only != q.name) continue;
    std::printf("%-58s %10.2f\n", q.text, MedianMs(p.repeats, ask(*q.request)));
  }
  return 0;
}
