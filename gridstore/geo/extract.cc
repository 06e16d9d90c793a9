// Copyright 2026 The GridStore Authors.
//
// Reading an extraction: every box of the plan in one batched read, then the values of each
// point (weighted over its bilinear corners) or of each area cell inside the feature.
#include "gridstore/geo/extract.h"

#include <cmath>

#include "gridstore/geo/internal/extract_internal.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/util/internal/strings.h"

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
  // The area index of a grid index along an axis (the area may wrap round a global grid).
  auto local = [&](int64_t index, int axis) {
    const int64_t d = index - plan.area[axis == kX ? 0 : 1];
    return plan.wrap_axis == axis ? (d + plan.wrap_period) % plan.wrap_period : d;
  };
  for (const GridDataSet& box : read) {
    const Grid4D& g = *box.GetVariable(name);
    const int64_t x0 = local(g.origin()[kX], kX), y0 = local(g.origin()[kY], kY);
    for (size_t i = 0; i < plan.times.size(); ++i) {
      for (size_t j = 0; j < nz; ++j) {
        const int64_t t = plan.times[i] - g.origin()[kT], z = plan.levels[j] - g.origin()[kZ];
        for (int64_t x = 0; x < g.shape()[kX]; ++x) {
          for (int64_t y = 0; y < g.shape()[kY]; ++y) {
            const size_t cell = size_t((x0 + x) * ny + y0 + y);
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
  values.reserve(plan.points.size() * plan.num_times() * plan.num_levels());
  // Each box's grid looked up once, not once per value (a 240-step series is 240 values).
  std::vector<const Grid4D*> grids(read.size());
  for (size_t b = 0; b < read.size(); ++b) grids[b] = read[b].GetVariable(name);
  size_t box = 0;
  for (size_t p = 0; p < plan.points.size(); ++p) {
    const ExtractPlan::Point& point = plan.points[p];
    const int n = std::max(1, point.weights.count);
    for (size_t i = 0; i < plan.num_times(); ++i) {
      for (size_t j = 0; j < plan.num_levels(); ++j) {
        double value = 0;
        for (int k = 0; k < n; ++k) {
          const double w = point.weights.count == 0 ? 1 : point.weights.weights[size_t(k)];
          value += w * CellValue(*grids[box + size_t(k)], plan.TimeOf(p, i), plan.LevelOf(p, j));
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
                             internal_grid::ResolveExtract(meta, request, nullptr));
  return std::move(r.plan);
}

const ExtractPlan& PlannedExtract::plan() const { return resolved_->plan; }

Result<std::vector<PlannedExtract>> PlanExtractions(GridStore& store,
                                                    std::shared_ptr<const DataSetMeta> meta,
                                                    const ExtractRequest& request,
                                                    std::vector<std::string>* left_out) {
  DerivedCache* grids = &store.derived_cache();
  auto plan_one = [&](const ExtractRequest& one) -> Result<PlannedExtract> {
    GRIDSTORE_ASSIGN_OR_RETURN(internal_grid::ResolvedExtract r,
                               internal_grid::ResolveExtract(*meta, one, grids));
    PlannedExtract planned;
    planned.meta_ = meta;
    planned.request_ = one;
    planned.resolved_ = std::make_shared<const internal_grid::ResolvedExtract>(std::move(r));
    return planned;
  };
  std::vector<PlannedExtract> out;
  if (!request.variables.empty()) {
    GRIDSTORE_ASSIGN_OR_RETURN(PlannedExtract one, plan_one(request));
    out.push_back(std::move(one));
    return out;
  }
  std::vector<std::string> reasons;
  Status first_error;
  for (const std::vector<std::string>& group : VariableGroups(*meta, &reasons, grids)) {
    ExtractRequest one = request;
    one.variables = group;
    Result<PlannedExtract> r = plan_one(one);
    if (r.ok()) {
      out.push_back(std::move(*r));
      continue;
    }
    // A group whose axes lack the time or level asked, or whose grid does not hold the place.
    const StatusCode code = r.status().code();
    if (code != StatusCode::kOutOfRange && code != StatusCode::kInvalidArgument &&
        code != StatusCode::kFailedPrecondition) {
      return r.status();
    }
    if (first_error.ok()) first_error = r.status();
    reasons.push_back(Join(group, ", ", [](const std::string& n) { return Quote(n); }) + ": " +
                      std::string(r.status().message()));
  }
  if (out.empty()) {
    if (!first_error.ok()) return first_error;
    return Status::InvalidArgument("dataset " + Quote(meta->id) +
                                   " has no variable with a horizontal grid" +
                                   (reasons.empty() ? "" : " (" + Join(reasons, "; ") + ")"));
  }
  if (left_out != nullptr) left_out->insert(left_out->end(), reasons.begin(), reasons.end());
  return out;
}

Result<Extraction> Extract(GridStore& store, const PlannedExtract& planned) {
  GRIDSTORE_ASSIGN_OR_RETURN(std::unique_ptr<GridDataFetcher> fetcher,
                             store.GetDataFetcher(planned.meta().id));
  return Extract(*fetcher, planned);
}

Result<Extraction> Extract(const GridDataFetcher& fetcher, const PlannedExtract& planned) {
  const DataSetMeta& meta = planned.meta();
  if (fetcher.meta().id != meta.id || fetcher.meta().incarnation != meta.incarnation ||
      fetcher.meta().generation != meta.generation) {
    return Status::Aborted("dataset " + Quote(meta.id) +
                           " changed since the extraction was planned; ask again");
  }
  const internal_grid::ResolvedExtract& r = *planned.resolved_;
  const ExtractRequest& request = planned.request_;
  const FetchRequest fetch{
      .variables = request.variables,
      .options = {.unpack = request.unpack, .allow_incomplete = request.allow_incomplete}};
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<GridDataSet> read,
                             fetcher.FetchBoxes(fetch, r.plan.boxes));
  Extraction out;
  out.meta = planned.meta_;
  out.grid = r.grid;
  out.time_axis = *r.time_axis;
  out.level_axis = *r.level_axis;
  if (!read.empty()) out.stats = read[0].stats;
  for (const VariableMeta* var : r.variables) {
    Extraction::Variable v;
    v.meta = *var;
    v.values = r.plan.kind == FeatureKind::kArea ? AreaValues(r.plan, read, var->name)
                                                 : PointValues(r.plan, read, var->name);
    out.variables.push_back(std::move(v));
  }
  out.plan = r.plan;
  return out;
}

Result<Extraction> Extract(GridStore& store, std::string_view dataset,
                           const ExtractRequest& request) {
  GRIDSTORE_ASSIGN_OR_RETURN(DataSetMeta meta, store.GetDataSetMeta(dataset));
  GRIDSTORE_ASSIGN_OR_RETURN(
      std::vector<PlannedExtract> planned,
      PlanExtractions(store, std::make_shared<const DataSetMeta>(std::move(meta)), request,
                      nullptr));
  return Extract(store, planned.front());
}

std::vector<std::vector<std::string>> VariableGroups(const DataSetMeta& meta,
                                                     std::vector<std::string>* left_out,
                                                     DerivedCache* grids) {
  std::vector<std::vector<std::string>> groups;
  std::vector<const VariableMeta*> firsts;
  for (const VariableMeta& v : meta.variables) {
    Result<std::shared_ptr<const HorizontalGrid>> g = internal_grid::CachedGrid(grids, meta, v);
    if (!g.ok()) {
      if (left_out != nullptr) {
        left_out->push_back(Quote(v.name) + ": " + std::string(g.status().message()));
      }
      continue;
    }
    size_t k = 0;
    while (k < firsts.size() && !internal_grid::ShareAxes(meta, *firsts[k], v)) ++k;
    if (k == firsts.size()) {
      firsts.push_back(&v);
      groups.emplace_back();
    }
    groups[k].push_back(v.name);
  }
  return groups;
}

Result<std::vector<Extraction>> ExtractEvery(GridStore& store, std::string_view dataset,
                                             const ExtractRequest& request,
                                             std::vector<std::string>* left_out) {
  GRIDSTORE_ASSIGN_OR_RETURN(DataSetMeta meta, store.GetDataSetMeta(dataset));
  GRIDSTORE_ASSIGN_OR_RETURN(
      std::vector<PlannedExtract> planned,
      PlanExtractions(store, std::make_shared<const DataSetMeta>(std::move(meta)), request,
                      left_out));
  std::vector<Extraction> out;
  for (const PlannedExtract& one : planned) {
    GRIDSTORE_ASSIGN_OR_RETURN(Extraction e, Extract(store, one));
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace gridstore::grid
