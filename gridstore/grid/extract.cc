// Copyright 2026 The GridStore Authors.
//
// Reading an extraction: every box of the plan in one batched read, then the values of each
// point (weighted over its bilinear corners) or of each area cell inside the feature.
#include "gridstore/grid/extract.h"

#include <cmath>

#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/internal/extract_internal.h"

namespace gridstore::grid {
namespace {

// The value at absolute (t, z) of a 1x1-cell box, as a double.
double CellValue(const Grid4D& g, int64_t t, int64_t z) {
  return g.ValueAsDouble(t - g.origin()[kT], z - g.origin()[kZ], 0, 0);
}

// [time][level][x][y] over the area box: each box read covers some of its columns; cells outside
// the feature, or in no box, are NaN.
std::vector<double> AreaValues(const ExtractPlan& plan, const std::vector<GridDataSet>& read,
                               const std::string& name) {
  const int64_t nx = plan.area[2], ny = plan.area[3];
  const size_t nz = plan.levels.size(), plane = size_t(nx * ny);
  std::vector<double> values(plan.times.size() * nz * plane, NAN);
  for (const GridDataSet& box : read) {
    const Grid4D& g = *box.GetVariable(name);
    const int64_t y0 = g.origin()[kY] - plan.area[1];
    for (size_t i = 0; i < plan.times.size(); ++i) {
      for (size_t j = 0; j < nz; ++j) {
        const int64_t t = plan.times[i] - g.origin()[kT], z = plan.levels[j] - g.origin()[kZ];
        for (int64_t x = 0; x < nx; ++x) {
          for (int64_t y = 0; y < g.shape()[kY]; ++y) {
            const size_t cell = size_t(x * ny + y0 + y);
            if (plan.mask[cell]) values[(i * nz + j) * plane + cell] = g.ValueAsDouble(t, z, x, y);
          }
        }
      }
    }
  }
  return values;
}

std::vector<double> PointValues(const ExtractPlan& plan, const std::vector<GridDataSet>& read,
                                const std::string& name) {
  std::vector<double> values;
  size_t box = 0;
  for (size_t p = 0; p < plan.points.size(); ++p) {
    const ExtractPlan::Point& point = plan.points[p];
    const int n = std::max(1, point.weights.count);
    for (size_t i = 0; i < plan.num_times(); ++i) {
      for (size_t j = 0; j < plan.num_levels(); ++j) {
        double value = 0;
        for (int k = 0; k < n; ++k) {
          const double w = point.weights.count == 0 ? 1 : point.weights.weights[size_t(k)];
          value += w * CellValue(*read[box + size_t(k)].GetVariable(name), plan.TimeOf(p, i),
                                 plan.LevelOf(p, j));
        }
        values.push_back(value);
      }
    }
    box += size_t(n);
  }
  return values;
}

}  // namespace

Result<ExtractPlan> PlanExtract(const DataSetMeta& meta, const ExtractRequest& request) {
  GRIDSTORE_ASSIGN_OR_RETURN(internal_grid::ResolvedExtract r,
                             internal_grid::ResolveExtract(meta, request));
  return std::move(r.plan);
}

Result<Extraction> Extract(GridStore& store, std::string_view dataset,
                           const ExtractRequest& request) {
  GRIDSTORE_ASSIGN_OR_RETURN(std::unique_ptr<GridDataFetcher> fetcher,
                             store.GetDataFetcher(dataset));
  GRIDSTORE_ASSIGN_OR_RETURN(internal_grid::ResolvedExtract r,
                             internal_grid::ResolveExtract(fetcher->meta(), request));
  fetcher->SetVariablesToGet(request.variables);
  fetcher->set_options({.unpack = request.unpack, .allow_incomplete = request.allow_incomplete});
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<GridDataSet> read, fetcher->FetchBoxes(r.plan.boxes));
  Extraction out;
  out.incarnation = fetcher->meta().incarnation;
  out.generation = fetcher->meta().generation;
  out.grid = r.grid;
  out.time_axis = std::move(*r.time_axis);
  out.level_axis = std::move(*r.level_axis);
  if (!read.empty()) out.stats = read[0].stats;
  for (const VariableMeta* var : r.variables) {
    Extraction::Variable v;
    v.meta = *var;
    v.values = r.plan.kind == FeatureKind::kArea ? AreaValues(r.plan, read, var->name)
                                                 : PointValues(r.plan, read, var->name);
    out.variables.push_back(std::move(v));
  }
  out.plan = std::move(r.plan);
  return out;
}

}  // namespace gridstore::grid
