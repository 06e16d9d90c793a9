// Copyright 2026 The GridStore Authors.
//
// Asking in the forecaster's terms: the humidity at Hangzhou (120.17E, 30.25N) at 850 hPa over
// the whole forecast, then at three cities at once, then inside a box around the Yangtze delta.
// Points resolve to the nearest grid cell by great-circle distance; all of them are read in one
// batched read.
#include "gridstore/geo/extract.h"
#include "sample_common.h"

int main(int argc, char** argv) {
  using namespace gridstore::grid;
  using samples::CheckResult;
  auto store = CheckResult(GridStore::Open(samples::StorePath(argc, argv), {.read_only = true}),
                           "opening the store");

  ExtractRequest series;
  series.variables = {"humidity"};
  series.points = {{120.17, 30.25}};
  series.level = "850";
  Extraction r = CheckResult(Extract(*store, samples::kDataSetId, series), "Extract");
  const ExtractPlan::Point& p = r.plan.points[0];
  std::printf("Hangzhou -> cell (%ld, %ld) at (%.1f, %.1f), %.1f km away\n", long(p.cell.x),
              long(p.cell.y), p.grid.lon, p.grid.lat, p.distance_km);
  for (size_t i = 0; i < r.plan.times.size(); ++i) {
    const double value = r.variables[0].values[i];
    const int64_t t = r.plan.times[i];
    // The sample field, at the cell the point resolved to (850 hPa is level index 3).
    if (value != samples::SampleValue(2, t, 3, p.cell.x, p.cell.y)) {
      std::fprintf(stderr, "wrong value at time %ld\n", long(t));
      return 1;
    }
    std::printf("  %s  %.3f\n", r.time_axis.Label(t).c_str(), value);
  }

  ExtractRequest cities;
  cities.variables = {"temperature", "humidity"};
  cities.points = {{116.40, 39.90}, {121.47, 31.23}, {113.26, 23.13}};  // Beijing, Shanghai, Canton
  cities.time = "2026-11-21T12:00:00Z";
  cities.level = "500";
  cities.method = InterpolationMethod::kBilinear;
  r = CheckResult(Extract(*store, samples::kDataSetId, cities), "Extract");
  for (size_t i = 0; i < cities.points.size(); ++i) {
    std::printf("city %zu: temperature %.3f, humidity %.3f (bilinear)\n", i,
                r.variables[0].values[i], r.variables[1].values[i]);
  }

  ExtractRequest area;
  area.variables = {"pressure"};
  area.bbox = std::array<double, 4>{118, 28, 123, 33};
  area.time = "2026-11-21T00:00:00Z/2026-11-21T06:00:00Z";
  area.level = "1000";
  r = CheckResult(Extract(*store, samples::kDataSetId, area), "Extract");
  std::printf("box: %ld x %ld cells, %zu times, %zu values, %ld blocks read\n",
              long(r.plan.area[2]), long(r.plan.area[3]), r.plan.times.size(),
              r.variables[0].values.size(), long(r.stats.blocks_read));
  return 0;
}
