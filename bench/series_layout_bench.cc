// Copyright 2026 The GridStore Authors.
//
// The series layout (issue 18, part 1), side by side in one run: point and small-area time
// series read from the planes and from the series layout of the same dataset, whole planes read
// as the planner chooses (they must not get slower), and the extra storage.
//
// The dataset: `ta` (air temperature) derived from nc4uvt.nc of ../shared/data (bench/
// derived_fields.h: bilinear onto 570 x 2880, drifting east 15 degrees a step), by default
// 241 steps x 10 levels x 570 x 2880 float32 (15.8 GB raw), planes 256x256 with frames of 16
// rows, shuffle-zstd:3 (import's defaults); series blocks of 256 steps over 16x16 points and
// --series-levels levels (default 1). Kept in WORK_DIR/store: a second run reuses it (and resumes
// an interrupted relayout; a store holds one series layout, so another --series-levels needs
// another WORK_DIR).
//
// Usage: series_layout_bench WORK_DIR [--times 241] [--levels 10] [--lat 570] [--lon 2880]
//            [--series-levels 1] [--points 48] [--repeats 3] [--data DIR]
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "bench/derived_fields.h"
#include "gridstore/grid/grid_store.h"

namespace {

namespace grid = gridstore::grid;
using gridstore::bench::AtmosphereDeriver;
using gridstore::bench::AtmosphereVariable;
using gridstore::bench::Check;
using gridstore::bench::CheckResult;
using gridstore::bench::Clock;
using gridstore::bench::Since;

struct Params {
  std::string work_dir, data;
  int64_t times = 241, levels = 10, lat = 570, lon = 2880, series_levels = 1;
  int points = 48, repeats = 3;
};

// Writes `ta` plane by plane through the import pipeline's writer.
void WriteDataSet(grid::GridStore* store, const Params& p) {
  const gridstore::bench::UvtSource uvt = gridstore::bench::ReadUvtSource(p.data + "/nc4uvt.nc");
  const gridstore::bench::TosSource tos =
      gridstore::bench::ReadTosSource(p.data + "/tos_O1_2001-2002.nc");
  const auto target = gridstore::bench::MakeTargetGrid(tos, p.lat, p.lon);
  const AtmosphereDeriver deriver(uvt, target);
  grid::DataSetMeta meta;
  meta.id = "ta";
  meta.set_status(grid::kStatusInit);
  meta.layout.frame_rows = 16;
  grid::VariableMeta var;
  var.name = "ta";
  var.shape = {p.times, p.levels, p.lat, p.lon};
  meta.variables.push_back(var);
  Check(store->PutDataSetMeta(meta), "creating the dataset");
  auto writer = CheckResult(store->GetDataWriter("ta"), "writer");
  const auto start = Clock::now();
  for (int64_t t = 0; t < p.times; ++t) {
    for (int64_t z = 0; z < p.levels; ++z) {
      grid::Grid2D plane(grid::DataType::kFloat32, p.lat, p.lon);
      deriver.Plane(AtmosphereVariable::kTemperature, static_cast<size_t>(t),
                    static_cast<size_t>(z), plane.data<float>().data());
      Check(writer->SubmitGrid2D("ta", t, z, std::move(plane)), "writing");
    }
    std::fprintf(stderr, "\rwriting planes: step %ld of %ld", long(t + 1), long(p.times));
  }
  Check(writer->Flush(), "writing");
  writer.reset();
  meta.set_status(grid::kStatusDone);
  Check(store->UpdateDataSetMeta(meta), "finishing the dataset");
  Check(store->Flush(), "flushing");
  std::fprintf(stderr, "\nwrote %ld planes in %.1f s\n", long(p.times * p.levels), Since(start));
}

// Median seconds of one fetch of each box, forced to `layout`, over `repeats` passes after a
// warm-up pass (so both layouts read from a warm page cache: their difference is the blocks and
// bytes they decode, not the disk).
double MedianFetch(grid::GridStore* store, const std::vector<grid::Box>& boxes,
                   grid::FetchLayout layout, int repeats, int64_t* blocks) {
  std::vector<double> seconds;
  for (int pass = 0; pass <= repeats; ++pass) {
    for (const grid::Box& box : boxes) {
      auto fetcher = CheckResult(store->GetDataFetcher("ta"), "fetcher");
      fetcher->SetOriginShape(box.origin, box.shape);
      fetcher->set_options(grid::FetchOptions{.use_cache = false, .layout = layout});
      const auto start = Clock::now();
      grid::GridDataSet got = CheckResult(fetcher->Fetch(), "fetch");
      if (pass > 0) seconds.push_back(Since(start));
      *blocks = got.stats.blocks;
    }
  }
  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  return seconds[seconds.size() / 2];
}

void Compare(grid::GridStore* store, const std::string& name, const std::vector<grid::Box>& boxes,
             grid::FetchLayout a, grid::FetchLayout b, int repeats) {
  int64_t blocks_a = 0, blocks_b = 0;
  const double ta = MedianFetch(store, boxes, a, repeats, &blocks_a);
  const double tb = MedianFetch(store, boxes, b, repeats, &blocks_b);
  auto label = [](grid::FetchLayout l) {
    return l == grid::FetchLayout::kPlanes   ? "planes"
           : l == grid::FetchLayout::kSeries ? "series"
                                             : "planner";
  };
  std::printf("| %s | %s: %.3f ms (%ld blocks) | %s: %.3f ms (%ld blocks) | %.1fx |\n",
              name.c_str(), label(a), ta * 1e3, long(blocks_a), label(b), tb * 1e3, long(blocks_b),
              ta / tb);
}

}  // namespace

int main(int argc, char** argv) {
  Params p;
  const char* env = std::getenv("GRIDSTORE_TEST_DATA");
  p.data = env != nullptr ? env : "../shared/data";
  CLI::App app("Series layout against planes: time series, planes, storage");
  gridstore::bench::SetUpCommandLine(app);
  app.add_option("WORK_DIR", p.work_dir, "Where the store is kept")->required();
  app.add_option("--times", p.times, "Steps")->check(CLI::Range(1, 100000));
  app.add_option("--levels", p.levels, "Levels (at most nc4uvt.nc's 14)")->check(CLI::Range(1, 14));
  app.add_option("--lat", p.lat, "Rows")->check(CLI::Range(2, 100000));
  app.add_option("--lon", p.lon, "Columns")->check(CLI::Range(2, 100000));
  app.add_option("--series-levels", p.series_levels, "Levels per series block")
      ->check(CLI::Range(1, 14));
  app.add_option("--points", p.points, "Random points (and areas) read")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--repeats", p.repeats, "Timed passes")->check(CLI::Range(1, 100));
  app.add_option("--data", p.data, "The folder of ../shared/data");
  gridstore::bench::ParseCommandLine(app, argc, argv);

  std::filesystem::create_directories(p.work_dir);
  auto store = CheckResult(
      grid::GridStore::Open(p.work_dir + "/store", {.create_if_missing = true}), "opening");
  auto meta = store->GetDataSetMeta("ta");
  if (!meta.ok()) {
    WriteDataSet(store.get(), p);
    meta = store->GetDataSetMeta("ta");
  }
  const grid::Shape4 shape = CheckResult(std::move(meta), "meta").variables[0].shape;
  const uint64_t planes_bytes = CheckResult(store->ApproximateDataSetSize("ta"), "size");
  const auto start = Clock::now();
  const grid::RelayoutReport report = CheckResult(
      store->AddSeriesLayout("ta", grid::SeriesLayout{.block_z = p.series_levels}), "relayout");
  const double relayout_seconds = Since(start);
  Check(store->Flush(), "flushing");
  const uint64_t both_bytes = CheckResult(store->ApproximateDataSetSize("ta"), "size");

  std::printf("dataset ta: %ld x %ld x %ld x %ld float32, %.2f GB raw\n", long(shape[0]),
              long(shape[1]), long(shape[2]), long(shape[3]),
              shape[0] * shape[1] * shape[2] * shape[3] * 4 / 1e9);
  if (!report.already_ready) {
    std::printf("relayout: %.1f s, %.2f GB of values in %.2f GB of series blocks\n",
                relayout_seconds, report.raw_bytes / 1e9, report.stored_bytes / 1e9);
  }
  std::printf("stored: planes %.2f GB, planes + series %.2f GB (+%.0f%%)\n\n", planes_bytes / 1e9,
              both_bytes / 1e9, 100.0 * (double(both_bytes) - planes_bytes) / planes_bytes);

  std::mt19937_64 rng(20261126);
  std::vector<grid::Box> points, areas, sections, planes;
  for (int i = 0; i < p.points; ++i) {
    const int64_t z = rng() % shape[1], x = rng() % (shape[2] - 2), y = rng() % (shape[3] - 2);
    points.push_back(grid::Box{{0, z, x, y}, {shape[0], 1, 1, 1}});
    areas.push_back(grid::Box{{0, z, x, y}, {shape[0], 1, 3, 3}});
    sections.push_back(grid::Box{{0, 0, x, y}, {shape[0], shape[1], 1, 1}});
    if (i < 8)
      planes.push_back(grid::Box{{int64_t(rng() % shape[0]), z, 0, 0}, {1, 1, shape[2], shape[3]}});
  }
  std::printf(
      "series layout: %s\n",
      grid::SeriesLayoutToString(*CheckResult(store->GetDataSetMeta("ta"), "meta").series).c_str());
  std::printf("| read (median of %d x %d) | A | B | A / B |\n|---|---|---|---|\n", p.points,
              p.repeats);
  Compare(store.get(), "point series, all steps", points, grid::FetchLayout::kPlanes,
          grid::FetchLayout::kSeries, p.repeats);
  Compare(store.get(), "3x3 area series, all steps", areas, grid::FetchLayout::kPlanes,
          grid::FetchLayout::kSeries, p.repeats);
  Compare(store.get(), "time-height section: a point, all steps, all levels", sections,
          grid::FetchLayout::kPlanes, grid::FetchLayout::kSeries, p.repeats);
  Compare(store.get(), "whole plane (1 step, 1 level)", planes, grid::FetchLayout::kPlanes,
          grid::FetchLayout::kCheapest, p.repeats);
  return 0;
}
