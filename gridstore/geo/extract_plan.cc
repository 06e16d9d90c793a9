// Copyright 2026 The GridStore Authors.
//
// Planning an extraction: a feature (points, an area, a trajectory) resolved against the
// dataset's coordinates into cells, times, levels and the index boxes to read.
#include <algorithm>
#include <cmath>

#include "gridstore/geo/extract.h"
#include "gridstore/geo/internal/extract_internal.h"
#include "gridstore/geo/internal/feature_geometry.h"
#include "gridstore/grid/derived_cache.h"
#include "gridstore/model/internal/grid_messages.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_grid {
namespace {

using grid::Cell;
using grid::ExtractPlan;
using grid::ExtractRequest;
using grid::HorizontalGrid;
using grid::LonLat;

constexpr double kKmPerDegree = M_PI * grid::kEarthRadiusKm / 180;
constexpr size_t kMaxTrajectorySamples = 200'000;
// Cell tests one area may cost (cells in its box x the test's cost): about a second of CPU.
constexpr double kMaxAreaWork = 2e7;

std::string PointText(const LonLat& p) {
  return "(" + FormatDouble(p.lon) + ", " + FormatDouble(p.lat) + ")";
}

Status CheckFeature(const ExtractRequest& r) {
  const int features = (r.points.empty() ? 0 : 1) + (r.bbox ? 1 : 0) + (r.polygon.empty() ? 0 : 1) +
                       (r.radius ? 1 : 0) + (r.trajectory.empty() ? 0 : 1);
  if (features != 1) {
    return Status::InvalidArgument(
        features == 0 ? "no feature to extract: give points, a bbox, a polygon, a radius or a "
                        "trajectory"
                      : "give one feature to extract (points, a bbox, a polygon, a radius or a "
                        "trajectory), not " +
                            std::to_string(features));
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
  if (r.radius && (!(r.radius->km > 0) || !std::isfinite(r.radius->km) ||
                   std::fabs(r.radius->centre.lat) > 90)) {
    return Status::InvalidArgument("radius: the distance " + FormatDouble(r.radius->km) +
                                   " km must be positive and the centre " +
                                   PointText(r.radius->centre) + " on the Earth");
  }
  if (!(r.tolerance_km >= 0) || !std::isfinite(r.tolerance_km)) {
    return Status::InvalidArgument("the tolerance " + FormatDouble(r.tolerance_km) +
                                   " km must be a number of km, 0 or more (0: the local cell "
                                   "spacing)");
  }
  if (r.corridor_width_km != 0 && (r.trajectory.empty() || !(r.corridor_width_km > 0))) {
    return Status::InvalidArgument(r.trajectory.empty() ? "a corridor width needs a trajectory"
                                                        : "the corridor width must be positive");
  }
  return Status::OK();
}

Result<std::vector<const grid::VariableMeta*>> ResolveVariables(const grid::DataSetMeta& meta,
                                                                const ExtractRequest& r) {
  std::vector<const grid::VariableMeta*> vars;
  for (const std::string& name : r.variables) {
    const grid::VariableMeta* v = meta.FindVariable(name);
    if (v == nullptr) return NoSuchVariable(meta, name);
    if (!vars.empty() && !ShareAxes(meta, *vars[0], *v)) {
      return Status::InvalidArgument("variables " + Quote(vars[0]->name) + " and " + Quote(name) +
                                     " lie on different grids or levels (shape, dimensions or "
                                     "level coordinates differ); extract them separately");
    }
    vars.push_back(v);
  }
  return vars;
}

// The nearest cell (and bilinear weights) of `p`.
Result<ExtractPlan::Point> Locate(const ExtractRequest& r, const HorizontalGrid& grid,
                                  const LonLat& p) {
  ExtractPlan::Point point;
  point.requested = p;
  GRIDSTORE_ASSIGN_OR_RETURN(const HorizontalGrid::Nearest n, grid.FindNearest(p, r.tolerance_km));
  point.cell = n.cell;
  point.grid = grid.At(n.cell);
  point.distance_km = n.distance_km;
  if (r.method == grid::InterpolationMethod::kBilinear) {
    GRIDSTORE_ASSIGN_OR_RETURN(point.weights, grid.Bilinear(p));
  }
  return point;
}

// The cells among those in the lon/lat box whose centres pass `inside`, as the plan's area.
// `work_per_cell` is what testing one cell costs (a corridor's path segments): over
// kMaxAreaWork in all, ResourceExhausted before any is tested (issue 29, 4.6: an 800-vertex
// corridor took 4.5 s of a server's CPU).
template <typename Inside>
Status PlanArea(const std::array<double, 4>& box, const std::string& what, Inside inside,
                ResolvedExtract* r, double work_per_cell = 1) {
  std::vector<Cell> cells = r->grid->CellsInBox(box[0], box[1], box[2], box[3]);
  const double work = double(cells.size()) * work_per_cell;
  if (work > kMaxAreaWork) {
    return Status::ResourceExhausted(
        what + " asks for " + FormatDouble(std::round(work / 1e6)) + " million cell tests (" +
        std::to_string(cells.size()) + " cells in its box x " + FormatDouble(work_per_cell) +
        "); the most one request may take is " + FormatDouble(kMaxAreaWork / 1e6) +
        " million: narrow the area or simplify the path");
  }
  std::erase_if(cells, [&](const Cell& c) { return !inside(r->grid->At(c)); });
  if (cells.empty()) {
    return Status::OutOfRange(what + " holds no cell centre of variable " +
                              Quote(r->variables[0]->name) + "'s grid (" + r->grid->description() +
                              ")");
  }
  ExtractPlan& plan = r->plan;
  plan.kind = grid::FeatureKind::kArea;
  plan.lon_from = box[0];
  plan.area = HorizontalGrid::BoundsOf(cells);
  if (r->grid->longitude_wraps()) {
    // The area in the order of the asked longitudes, east from the west edge: its first column
    // is the cell nearest east of the edge, and the grid's columns follow modulo its width.
    const int axis = r->grid->x_is_latitude() ? grid::kY : grid::kX;
    const int64_t period = axis == grid::kY ? r->grid->ny() : r->grid->nx();
    auto column = [&](const Cell& c) { return axis == grid::kY ? c.y : c.x; };
    const Cell* first = &cells[0];
    for (const Cell& c : cells) {
      if (plan.Lon(r->grid->At(c).lon) < plan.Lon(r->grid->At(*first).lon)) first = &c;
    }
    const int64_t start = column(*first);
    int64_t width = 0;
    for (const Cell& c : cells) width = std::max(width, (column(c) - start + period) % period + 1);
    plan.wrap_axis = axis;
    plan.wrap_period = period;
    plan.area[axis == grid::kY ? 1 : 0] = start;
    plan.area[axis == grid::kY ? 3 : 2] = width;
  }
  plan.mask.assign(size_t(plan.area[2] * plan.area[3]), 0);
  for (const Cell& c : cells) {
    int64_t x = c.x - plan.area[0], y = c.y - plan.area[1];
    if (plan.wrap_axis == grid::kX) x = (x + plan.wrap_period) % plan.wrap_period;
    if (plan.wrap_axis == grid::kY) y = (y + plan.wrap_period) % plan.wrap_period;
    plan.mask[size_t(x * plan.area[3] + y)] = 1;
  }
  return Status::OK();
}

// The lon/lat box around `box` widened by `km` on every side (all longitudes near a pole).
std::array<double, 4> Widen(const std::array<double, 4>& box, double km) {
  const double dlat = km / kKmPerDegree;
  const double south = std::max(-90.0, box[1] - dlat), north = std::min(90.0, box[3] + dlat);
  const double max_abs_lat = std::max(std::fabs(south), std::fabs(north));
  if (max_abs_lat >= 89.999) return {-180, south, 180, north};
  const double dlon = dlat / std::cos(max_abs_lat * M_PI / 180);
  if (box[2] - box[0] + 2 * dlon >= 360) return {-180, south, 180, north};
  return {box[0] - dlon, south, box[2] + dlon, north};
}

// The path's lon/lat box, its longitudes unwrapped so that a path across 180 stays narrow.
std::array<double, 4> PathBox(const std::vector<PathVertex>& path) {
  std::array<double, 4> box = {INFINITY, INFINITY, -INFINITY, -INFINITY};
  double previous = path[0].at.lon;
  for (const PathVertex& v : path) {
    double lon = v.at.lon;
    while (lon - previous > 180) lon -= 360;
    while (lon - previous < -180) lon += 360;
    previous = lon;
    box = {std::min(box[0], lon), std::min(box[1], v.at.lat), std::max(box[2], lon),
           std::max(box[3], v.at.lat)};
  }
  return box;
}

// A trajectory vertex's time (M, Unix seconds) as an index of the time axis.
Result<int64_t> TimeIndexOf(double unix_seconds, const grid::AxisCoordinate& axis) {
  if (!axis.is_time()) {
    return Status::InvalidArgument(
        "the trajectory gives times (M), but the variable has no time "
        "coordinate");
  }
  GRIDSTORE_ASSIGN_OR_RETURN(
      const grid::TimeUnits unix_time,
      grid::TimeUnits::Parse("seconds since 1970-01-01", "proleptic_gregorian"));
  GRIDSTORE_ASSIGN_OR_RETURN(const grid::CivilTime t, unix_time.ToCivil(unix_seconds));
  const std::string iso = grid::FormatIsoTime(t);
  GRIDSTORE_ASSIGN_OR_RETURN(const double value, axis.time_units()->FromIso(iso));
  return axis.NearestIndex(value, "trajectory time " + iso);
}

Status PlanTrajectory(const ExtractRequest& request, ResolvedExtract* r) {
  GRIDSTORE_ASSIGN_OR_RETURN(const std::vector<PathVertex> path,
                             ParseLineString(request.trajectory));
  double spacing = INFINITY;
  for (const PathVertex& v : path) {
    GRIDSTORE_ASSIGN_OR_RETURN(const HorizontalGrid::Nearest n,
                               r->grid->FindNearest(v.at, request.tolerance_km));
    spacing = std::min(spacing, r->grid->SpacingKm(n.cell));
  }
  ExtractPlan& plan = r->plan;
  plan.kind = grid::FeatureKind::kTrajectory;
  plan.lon_from = path[0].at.lon - 180;
  plan.time_per_point = path[0].m.has_value();
  plan.level_per_point = path[0].z.has_value();
  // Refused before sampling: a long path on a fine grid would otherwise fill memory first.
  double length_km = 0;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    length_km += grid::GreatCircleKm(path[i].at, path[i + 1].at);
  }
  const double estimate = length_km / (spacing / 2) + double(path.size());
  if (!(estimate <= double(kMaxTrajectorySamples))) {
    return Status::InvalidArgument(
        "the trajectory is " + FormatDouble(std::round(length_km)) + " km long: about " +
        FormatDouble(std::round(estimate)) + " samples at half this grid's spacing, which is " +
        FormatDouble(std::round(spacing * 1000) / 1000) + " km at its vertices; the most is " +
        std::to_string(kMaxTrajectorySamples) + ": split it");
  }
  const std::vector<PathVertex> samples = SamplePath(path, spacing / 2);
  for (const PathVertex& v : samples) {
    auto located = Locate(request, *r->grid, v.at);
    if (!located.ok()) {
      return located.status().WithContext("along the trajectory at " + PointText(v.at));
    }
    ExtractPlan::Point point = *located;
    if (v.m) {
      GRIDSTORE_ASSIGN_OR_RETURN(point.time, TimeIndexOf(*v.m, *r->time_axis));
    }
    if (v.z) {
      GRIDSTORE_ASSIGN_OR_RETURN(
          point.level, r->level_axis->NearestIndex(*v.z, "trajectory level " + FormatDouble(*v.z)));
    }
    // One sample per cell crossed (and time and level).
    const bool same = !plan.points.empty() && plan.points.back().cell == point.cell &&
                      plan.points.back().time == point.time &&
                      plan.points.back().level == point.level;
    if (!same || request.method == grid::InterpolationMethod::kBilinear) {
      plan.points.push_back(point);
    }
  }
  return Status::OK();
}

Status PlanFeature(const ExtractRequest& request, ResolvedExtract* r) {
  if (!request.points.empty()) {
    // Answers in the first point's convention: within 180 degrees of where it was asked.
    r->plan.lon_from = request.points[0].lon - 180;
    for (const LonLat& p : request.points) {
      GRIDSTORE_ASSIGN_OR_RETURN(ExtractPlan::Point point, Locate(request, *r->grid, p));
      r->plan.points.push_back(point);
    }
    return Status::OK();
  }
  if (request.bbox) {
    const auto& b = *request.bbox;
    return PlanArea(
        b,
        "bbox " + FormatDouble(b[0]) + "," + FormatDouble(b[1]) + "," + FormatDouble(b[2]) + "," +
            FormatDouble(b[3]),
        [](const LonLat&) { return true; }, r);
  }
  if (!request.polygon.empty()) {
    GRIDSTORE_ASSIGN_OR_RETURN(std::unique_ptr<LonLatPolygon> polygon,
                               LonLatPolygon::FromWkt(request.polygon));
    return PlanArea(
        polygon->bounds(), "the polygon", [&](const LonLat& c) { return polygon->Contains(c); }, r);
  }
  if (request.radius) {
    const grid::Radius& radius = *request.radius;
    const LonLat c = radius.centre;
    return PlanArea(
        Widen({c.lon, c.lat, c.lon, c.lat}, radius.km),
        "the circle of " + FormatDouble(radius.km) + " km around " + PointText(c),
        [&](const LonLat& p) { return grid::GreatCircleKm(p, c) <= radius.km; }, r);
  }
  if (request.corridor_width_km > 0) {
    GRIDSTORE_ASSIGN_OR_RETURN(const std::vector<PathVertex> path,
                               ParseLineString(request.trajectory));
    const double half = request.corridor_width_km / 2;
    return PlanArea(
        Widen(PathBox(path), half),
        "the corridor " + FormatDouble(request.corridor_width_km) + " km wide",
        [&](const LonLat& p) { return DistanceToPathKm(p, path) <= half; }, r,
        double(std::max<size_t>(1, path.size() - 1)));
  }
  return PlanTrajectory(request, r);
}

// The boxes to read: per point (or bilinear corner) one cell over its times and levels, or the
// area's box; and what reading them costs, for Explain.
void PlanBoxes(const grid::DataSetMeta& meta, ResolvedExtract* r) {
  ExtractPlan& plan = r->plan;
  const auto [t_lo, t_hi] = std::minmax_element(plan.times.begin(), plan.times.end());
  const auto [z_lo, z_hi] = std::minmax_element(plan.levels.begin(), plan.levels.end());
  const int64_t t0 = *t_lo, nt = *t_hi - *t_lo + 1, z0 = *z_lo, nz = *z_hi - *z_lo + 1;
  if (plan.kind == grid::FeatureKind::kArea) {
    // One box per run of columns (along the longitude axis if it wraps, else y) that hold a cell
    // inside and are next to each other in the grid: an area across the antimeridian on a
    // -180..180 grid (or across 0 on a 0..360 one) reads its two ends, not the width between.
    const int64_t nx = plan.area[2], ny = plan.area[3];
    const bool along_x = plan.wrap_axis == grid::kX;
    const int64_t n = along_x ? nx : ny;
    std::vector<bool> used(size_t(n), false);
    for (int64_t x = 0; x < nx; ++x)
      for (int64_t y = 0; y < ny; ++y)
        used[size_t(along_x ? x : y)] =
            used[size_t(along_x ? x : y)] || plan.mask[size_t(x * ny + y)];
    auto grid_index = [&](int64_t i) {
      const Cell c = plan.AreaCell(along_x ? i : 0, along_x ? 0 : i);
      return along_x ? c.x : c.y;
    };
    for (int64_t i = 0; i < n;) {
      if (!used[size_t(i)]) {
        ++i;
        continue;
      }
      int64_t end = i + 1;
      while (end < n && used[size_t(end)] && grid_index(end) == grid_index(end - 1) + 1) ++end;
      const Cell first = plan.AreaCell(along_x ? i : 0, along_x ? 0 : i);
      plan.boxes.push_back(along_x ? grid::Box{{t0, z0, first.x, first.y}, {nt, nz, end - i, ny}}
                                   : grid::Box{{t0, z0, first.x, first.y}, {nt, nz, nx, end - i}});
      i = end;
    }
  }
  for (const ExtractPlan::Point& p : plan.points) {
    const int64_t pt0 = plan.time_per_point ? p.time : t0, pnt = plan.time_per_point ? 1 : nt;
    const int64_t pz0 = plan.level_per_point ? p.level : z0, pnz = plan.level_per_point ? 1 : nz;
    const int n = std::max(1, p.weights.count);
    for (int k = 0; k < n; ++k) {
      const Cell& c = p.weights.count == 0 ? p.cell : p.weights.cells[size_t(k)];
      plan.boxes.push_back(grid::Box{{pt0, pz0, c.x, c.y}, {pnt, pnz, 1, 1}});
    }
  }
  // Costed by the fetch planner itself, so that the plan names the layout the read will use.
  plan.read = grid::ExplainBoxes(meta, r->variables, plan.boxes);
  plan.blocks = plan.read.blocks;
  plan.max_bytes_to_decode = plan.read.bytes_to_decode;
}

}  // namespace

bool ShareAxes(const grid::DataSetMeta& meta, const grid::VariableMeta& a,
               const grid::VariableMeta& b) {
  if (a.shape != b.shape || a.dimension_names != b.dimension_names) return false;
  for (grid::Axis axis : {grid::Axis::kT, grid::Axis::kZ}) {
    if (!a.dimension_names[grid::Index(axis)].empty()) continue;  // the same named dimension
    Result<grid::AxisCoordinate> x = grid::AxisCoordinate::Build(meta, a, axis);
    Result<grid::AxisCoordinate> y = grid::AxisCoordinate::Build(meta, b, axis);
    if (x.ok() != y.ok() || (x.ok() && x->name() != y->name())) return false;
  }
  return true;
}

// Horizontal grids are built once per dataset incarnation, meta generation and variable, in
// the store's derived cache: the k-d tree of a large curvilinear grid takes far longer than a
// point read.
Result<std::shared_ptr<const HorizontalGrid>> CachedGrid(grid::DerivedCache* cache,
                                                         const grid::DataSetMeta& meta,
                                                         const grid::VariableMeta& var) {
  // A meta never stored has no identity to key it by.
  if (cache == nullptr || meta.incarnation == 0) return HorizontalGrid::Build(meta, var);
  return cache->GetOrBuild<HorizontalGrid>(
      grid::DerivedCache::Key{meta.id, meta.incarnation, meta.generation, "grid/" + var.name},
      [&]() -> Result<std::pair<std::shared_ptr<const HorizontalGrid>, size_t>> {
        GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const HorizontalGrid> g,
                                   HorizontalGrid::Build(meta, var));
        const size_t bytes = g->MemoryBytes();
        return std::pair{std::move(g), bytes};
      });
}

// No time asked for means every time there is data for: of a run still arriving (INGESTING),
// the steps complete for every requested variable (a time asked for is read or refused as asked).
Status KeepCompleteSteps(const grid::DataSetMeta& meta, const ExtractRequest& request,
                         ResolvedExtract* r) {
  if (request.allow_incomplete || meta.status() != grid::kStatusIngesting) return Status::OK();
  std::vector<int64_t> complete;
  for (int64_t t : r->plan.times) {
    bool all = true;
    for (const grid::VariableMeta* v : r->variables) all &= v->complete_steps.Contains(t, t + 1);
    if (all) complete.push_back(t);
  }
  if (complete.empty()) {
    return Status::FailedPrecondition("dataset " + Quote(meta.id) +
                                      " is still being ingested and no step of it is complete "
                                      "for every requested variable yet");
  }
  r->plan.times = std::move(complete);
  return Status::OK();
}

Result<ResolvedExtract> ResolveExtract(const grid::DataSetMeta& meta, const ExtractRequest& request,
                                       grid::DerivedCache* grids) {
  GRIDSTORE_RETURN_IF_ERROR(CheckFeature(request));
  ResolvedExtract r;
  GRIDSTORE_ASSIGN_OR_RETURN(r.variables, ResolveVariables(meta, request));
  const grid::VariableMeta& var = *r.variables[0];
  GRIDSTORE_ASSIGN_OR_RETURN(r.grid, CachedGrid(grids, meta, var));
  r.plan.grid_description = r.grid->description();
  GRIDSTORE_ASSIGN_OR_RETURN(grid::AxisCoordinate time,
                             grid::AxisCoordinate::Build(meta, var, grid::Axis::kT));
  GRIDSTORE_ASSIGN_OR_RETURN(grid::AxisCoordinate level,
                             grid::AxisCoordinate::Build(meta, var, grid::Axis::kZ));
  r.time_axis = std::move(time);
  r.level_axis = std::move(level);
  GRIDSTORE_RETURN_IF_ERROR(PlanFeature(request, &r));
  for (ExtractPlan::Point& p : r.plan.points) p.grid.lon = r.plan.Lon(p.grid.lon);
  // A trajectory's own times / levels replace --time / --level.
  if (r.plan.time_per_point) {
    for (const auto& p : r.plan.points) r.plan.times.push_back(p.time);
  } else {
    GRIDSTORE_ASSIGN_OR_RETURN(r.plan.times, r.time_axis->Select(request.time, request.time_match));
    if (Trim(request.time).empty()) GRIDSTORE_RETURN_IF_ERROR(KeepCompleteSteps(meta, request, &r));
  }
  if (r.plan.level_per_point) {
    for (const auto& p : r.plan.points) r.plan.levels.push_back(p.level);
  } else {
    GRIDSTORE_ASSIGN_OR_RETURN(r.plan.levels,
                               r.level_axis->Select(request.level, request.level_match));
  }
  if (r.plan.times.empty() || r.plan.levels.empty()) {
    return Status::InvalidArgument("the request selects no " +
                                   std::string(r.plan.times.empty() ? "time" : "level"));
  }
  PlanBoxes(meta, &r);
  return r;
}

}  // namespace gridstore::internal_grid
