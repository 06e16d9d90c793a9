// Copyright 2026 The GridStore Authors.
//
// The rows of an extraction in long format, the one order every row writer shares (CSV of
// extractions, CSV and JSON of collections): one row per place (a point, a path sample, or a
// cell inside an area), time and level: points place-major, then time, then level; areas time,
// then level, then cell (x-major), cells outside the feature skipped.
#ifndef GRIDSTORE_FORMATS_INTERNAL_EXTRACTION_ROWS_H_
#define GRIDSTORE_FORMATS_INTERNAL_EXTRACTION_ROWS_H_

#include <cstddef>
#include <cstdint>

#include "gridstore/geo/extract.h"

namespace gridstore::internal_formats {

struct ExtractionRow {
  grid::LonLat at;    // where the user asked (for an area, the cell itself)
  grid::LonLat cell;  // the centre of the cell whose value the row holds
  double distance_km = 0;
  int64_t time = 0, level = 0;  // indices on the extraction's time and level axes
  size_t value_index = 0;       // of the row's value in every Extraction::Variable::values
};

// Calls fn(row) for each row of `r`, in the order above.
template <typename Fn>
void ForEachRow(const grid::Extraction& r, Fn&& fn) {
  const grid::ExtractPlan& plan = r.plan;
  ExtractionRow row;
  if (plan.kind != grid::FeatureKind::kArea) {
    const size_t nt = plan.num_times(), nz = plan.num_levels();
    for (size_t p = 0; p < plan.points.size(); ++p) {
      for (size_t i = 0; i < nt; ++i) {
        for (size_t j = 0; j < nz; ++j) {
          row.at = plan.points[p].requested;
          row.cell = plan.points[p].grid;
          row.distance_km = plan.points[p].distance_km;
          row.time = plan.TimeOf(p, i);
          row.level = plan.LevelOf(p, j);
          row.value_index = (p * nt + i) * nz + j;
          fn(row);
        }
      }
    }
    return;
  }
  const int64_t ny = plan.area[3];
  const size_t plane = size_t(plan.area[2] * ny);
  for (size_t i = 0; i < plan.times.size(); ++i) {
    for (size_t j = 0; j < plan.levels.size(); ++j) {
      for (size_t c = 0; c < plane; ++c) {
        if (!plan.mask[c]) continue;
        grid::LonLat cell = r.grid->At(plan.AreaCell(int64_t(c) / ny, int64_t(c) % ny));
        cell.lon = plan.Lon(cell.lon);
        row.at = row.cell = cell;
        row.distance_km = 0;
        row.time = plan.times[i];
        row.level = plan.levels[j];
        row.value_index = (i * plan.levels.size() + j) * plane + c;
        fn(row);
      }
    }
  }
}

}  // namespace gridstore::internal_formats

#endif  // GRIDSTORE_FORMATS_INTERNAL_EXTRACTION_ROWS_H_
