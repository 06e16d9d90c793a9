// Copyright 2026 The GridStore Authors.
#include "gridstore/grid/extract.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/internal/block_geometry.h"
#include "gridstore/grid/internal/grid_messages.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::grid {
namespace {

// What planning resolved, beyond the plan itself.
struct Resolved {
  ExtractPlan plan;
  std::shared_ptr<const HorizontalGrid> grid;
  std::vector<const VariableMeta*> variables;
  std::optional<AxisCoordinate> time_axis, level_axis;
};

Status CheckFeature(const ExtractRequest& r) {
  const int features = (r.points.empty() ? 0 : 1) + (r.bbox ? 1 : 0);
  if (features != 1) {
    return Status::InvalidArgument(features == 0
                                       ? "no feature to extract: give points or a bbox"
                                       : "give one feature to extract, not points and a bbox");
  }
  if (r.variables.empty()) return Status::InvalidArgument("no variables to extract");
  if (r.bbox) {
    const auto& [w, s, e, n] = *r.bbox;
    if (!(s <= n) || s < -90 || n > 90 || !std::isfinite(w) || !std::isfinite(e)) {
      return Status::InvalidArgument("bbox " + FormatDouble(w) + "," + FormatDouble(s) + "," +
                                     FormatDouble(e) + "," + FormatDouble(n) +
                                     " is not W,S,E,N with -90 <= S <= N <= 90");
    }
  }
  return Status::OK();
}

Result<std::vector<const VariableMeta*>> ResolveVariables(const DataSetMeta& meta,
                                                          const ExtractRequest& r) {
  std::vector<const VariableMeta*> vars;
  for (const std::string& name : r.variables) {
    const VariableMeta* v = meta.FindVariable(name);
    if (v == nullptr) return internal_grid::NoSuchVariable(meta, name);
    if (!vars.empty() &&
        (v->shape != vars[0]->shape || v->dimension_names != vars[0]->dimension_names)) {
      return Status::InvalidArgument(
          "variables " + Quote(vars[0]->name) + " and " + Quote(name) +
          " lie on different grids (shape or dimensions differ); extract them separately");
    }
    vars.push_back(v);
  }
  return vars;
}

Status PlanPoints(const ExtractRequest& r, Resolved* out) {
  for (const LonLat& p : r.points) {
    ExtractPlan::Point point;
    point.requested = p;
    GRIDSTORE_ASSIGN_OR_RETURN(const HorizontalGrid::Nearest n,
                               out->grid->FindNearest(p, r.tolerance_km));
    point.cell = n.cell;
    point.grid = out->grid->At(n.cell);
    point.distance_km = n.distance_km;
    if (r.method == InterpolationMethod::kBilinear) {
      GRIDSTORE_ASSIGN_OR_RETURN(point.weights, out->grid->Bilinear(p));
    }
    out->plan.points.push_back(point);
  }
  return Status::OK();
}

Status PlanArea(const ExtractRequest& r, Resolved* out) {
  const auto& [w, s, e, n] = *r.bbox;
  const std::vector<Cell> cells = out->grid->CellsInBox(w, s, e, n);
  if (cells.empty()) {
    return Status::OutOfRange("bbox " + FormatDouble(w) + "," + FormatDouble(s) + "," +
                              FormatDouble(e) + "," + FormatDouble(n) +
                              " holds no cell centre of variable " +
                              Quote(out->variables[0]->name) + "'s grid");
  }
  ExtractPlan& plan = out->plan;
  plan.area = HorizontalGrid::BoundsOf(cells);
  plan.mask.assign(size_t(plan.area[2] * plan.area[3]), 0);
  for (const Cell& c : cells) {
    plan.mask[size_t((c.x - plan.area[0]) * plan.area[3] + (c.y - plan.area[1]))] = 1;
  }
  return Status::OK();
}

// The boxes to read: per point (or bilinear corner) one cell, or the area's box; over the
// selected times' and levels' index range.
void PlanBoxes(Resolved* r) {
  ExtractPlan& plan = r->plan;
  const auto [t_lo, t_hi] = std::minmax_element(plan.times.begin(), plan.times.end());
  const auto [z_lo, z_hi] = std::minmax_element(plan.levels.begin(), plan.levels.end());
  const int64_t t0 = *t_lo, nt = *t_hi - *t_lo + 1, z0 = *z_lo, nz = *z_hi - *z_lo + 1;
  if (plan.points.empty()) {
    plan.boxes.push_back(
        Box{{t0, z0, plan.area[0], plan.area[1]}, {nt, nz, plan.area[2], plan.area[3]}});
  }
  for (const ExtractPlan::Point& p : plan.points) {
    if (p.weights.count == 0) {
      plan.boxes.push_back(Box{{t0, z0, p.cell.x, p.cell.y}, {nt, nz, 1, 1}});
    }
    for (int k = 0; k < p.weights.count; ++k) {
      const Cell& c = p.weights.cells[size_t(k)];
      plan.boxes.push_back(Box{{t0, z0, c.x, c.y}, {nt, nz, 1, 1}});
    }
  }
}

Result<Resolved> Resolve(const DataSetMeta& meta, const ExtractRequest& request) {
  GRIDSTORE_RETURN_IF_ERROR(CheckFeature(request));
  Resolved r;
  GRIDSTORE_ASSIGN_OR_RETURN(r.variables, ResolveVariables(meta, request));
  const VariableMeta& var = *r.variables[0];
  GRIDSTORE_ASSIGN_OR_RETURN(r.grid, HorizontalGrid::Build(meta, var));
  r.plan.grid_description = r.grid->description();
  GRIDSTORE_ASSIGN_OR_RETURN(AxisCoordinate time, AxisCoordinate::Build(meta, var, kT));
  GRIDSTORE_ASSIGN_OR_RETURN(AxisCoordinate level, AxisCoordinate::Build(meta, var, kZ));
  GRIDSTORE_ASSIGN_OR_RETURN(r.plan.times, time.Select(request.time));
  GRIDSTORE_ASSIGN_OR_RETURN(r.plan.levels, level.Select(request.level));
  r.time_axis = std::move(time);
  r.level_axis = std::move(level);
  if (!request.points.empty()) {
    GRIDSTORE_RETURN_IF_ERROR(PlanPoints(request, &r));
  } else {
    GRIDSTORE_RETURN_IF_ERROR(PlanArea(request, &r));
  }
  PlanBoxes(&r);
  // Distinct blocks the boxes touch, for Explain.
  const internal_grid::BlockGeometry g(var, meta.layout);
  std::set<std::tuple<int64_t, int64_t, int64_t, int64_t>> blocks;
  for (const Box& b : r.plan.boxes) {
    const auto range = g.BlocksOf(b.origin, b.shape);
    for (int64_t t : r.plan.times) {
      for (int64_t z : r.plan.levels) {
        for (int64_t br = range.r_begin; br < range.r_end; ++br) {
          for (int64_t bc = range.c_begin; bc < range.c_end; ++bc) {
            if (blocks.insert({t, z, br, bc}).second) {
              r.plan.max_bytes_to_decode += g.rows_of(br) * g.cols_of(bc) *
                                            int64_t(DataTypeSize(var.type)) *
                                            int64_t(r.variables.size());
            }
          }
        }
      }
    }
  }
  r.plan.blocks = int64_t(blocks.size() * r.variables.size());
  return r;
}

// The value at (t, z) of box `b`'s 1x1 cell, as a double.
double CellValue(const Grid4D& g, int64_t t, int64_t z) {
  return g.ValueAsDouble(t - g.origin()[kT], z - g.origin()[kZ], 0, 0);
}

}  // namespace

Result<ExtractPlan> PlanExtract(const DataSetMeta& meta, const ExtractRequest& request) {
  GRIDSTORE_ASSIGN_OR_RETURN(Resolved r, Resolve(meta, request));
  return std::move(r.plan);
}

Result<Extraction> Extract(GridStore& store, std::string_view dataset,
                           const ExtractRequest& request) {
  GRIDSTORE_ASSIGN_OR_RETURN(std::unique_ptr<GridDataFetcher> fetcher,
                             store.GetDataFetcher(dataset));
  GRIDSTORE_ASSIGN_OR_RETURN(Resolved r, Resolve(fetcher->meta(), request));
  fetcher->SetVariablesToGet(request.variables);
  fetcher->set_options({.unpack = request.unpack, .allow_incomplete = request.allow_incomplete});
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<GridDataSet> read, fetcher->FetchBoxes(r.plan.boxes));
  Extraction out;
  out.grid = r.grid;
  out.time_axis = std::move(*r.time_axis);
  out.level_axis = std::move(*r.level_axis);
  if (!read.empty()) out.stats = read[0].stats;
  const ExtractPlan& plan = r.plan;
  for (const VariableMeta* var : r.variables) {
    Extraction::Variable v;
    v.meta = *var;
    if (plan.points.empty()) {
      const Grid4D& g = *read[0].GetVariable(var->name);
      const int64_t nx = plan.area[2], ny = plan.area[3];
      for (int64_t t : plan.times) {
        for (int64_t z : plan.levels) {
          for (int64_t x = 0; x < nx; ++x) {
            for (int64_t y = 0; y < ny; ++y) {
              v.values.push_back(plan.mask[size_t(x * ny + y)]
                                     ? g.ValueAsDouble(t - g.origin()[kT], z - g.origin()[kZ], x, y)
                                     : NAN);
            }
          }
        }
      }
    } else {
      size_t box = 0;
      for (const ExtractPlan::Point& p : plan.points) {
        const int n = std::max(1, p.weights.count);
        for (int64_t t : plan.times) {
          for (int64_t z : plan.levels) {
            double value = 0;
            for (int k = 0; k < n; ++k) {
              const double w = p.weights.count == 0 ? 1 : p.weights.weights[size_t(k)];
              value += w * CellValue(*read[box + size_t(k)].GetVariable(var->name), t, z);
            }
            v.values.push_back(value);
          }
        }
        box += size_t(n);
      }
    }
    out.variables.push_back(std::move(v));
  }
  out.plan = std::move(r.plan);
  return out;
}

}  // namespace gridstore::grid
