// Copyright 2026 The GridStore Authors.
//
// Extraction in coordinates, with the OGC API-EDR query types: values at lon/lat points (nearest
// cell or bilinear), in areas (bbox, polygon, radius, corridor) and along trajectories, over times
// and levels chosen by value. A request resolves to index boxes (PlanExtract), all of which are
// read in one batched read (GridDataFetcher::FetchBoxes), so that 1,000 scattered points cost one
// read of the blocks they lie in. The command's `extract`, and later the HTTP service and the
// Python package, are thin layers over Extract; formats/ writes the results.
//
// Example: the 850 hPa temperature at Hangzhou over a forecast, as doubles:
//   ExtractRequest request;
//   request.variables = {"t"};
//   request.points = {{120.17, 30.25}};
//   request.level = "850";
//   GRIDSTORE_ASSIGN_OR_RETURN(Extraction r, Extract(*store, "ecmwf/2026-11-25T00Z", request));
//   // r.variables[0].values[i] at time r.time_axis.Label(r.plan.times[i])
#ifndef GRIDSTORE_GEO_EXTRACT_H_
#define GRIDSTORE_GEO_EXTRACT_H_

#include <array>
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gridstore/blocks/grid_data_fetcher.h"
#include "gridstore/geo/coordinates.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::grid {

class DerivedCache;
class GridStore;

enum class InterpolationMethod { kNearest, kBilinear };

// A circle on the Earth: the cells whose centres are within `km` of `centre`.
struct Radius {
  LonLat centre;
  double km = 0;
};

struct ExtractRequest {
  std::vector<std::string> variables;  // at least one
  // Exactly one feature (the OGC API-EDR query types):
  // - position: one or more points;
  std::vector<LonLat> points;
  // - area: a bbox {west, south, east, north} (east < west crosses the antimeridian), or a WKT
  //   POLYGON / MULTIPOLYGON in lon/lat order; the cube query is a bbox with time and level
  //   ranges;
  std::optional<std::array<double, 4>> bbox;
  std::string polygon;
  // - radius: a centre and a distance;
  std::optional<Radius> radius;
  // - trajectory: a WKT LINESTRING, with per-vertex level (Z) and time (M: Unix seconds) in
  //   LINESTRING Z / M / ZM; with a corridor width, the cells within width / 2 of the path.
  std::string trajectory;
  double corridor_width_km = 0;
  // Times and levels: "" (all), a value, "V1/V2" (a range, ".." for an open end) or a list
  // "V1,V2"; times in ISO 8601, levels in the level coordinate's units. A trajectory's own M / Z
  // replace them.
  std::string time;
  std::string level;
  // A single time / level (or list item) not on the axis: an error naming the nearest values
  // (kExact), or the nearest value (kNearest; `--time-method` / `--level-method nearest`).
  AxisMatch time_match = AxisMatch::kExact;
  AxisMatch level_match = AxisMatch::kExact;
  InterpolationMethod method = InterpolationMethod::kNearest;  // points and trajectories
  // How far the nearest cell centre may be: on curvilinear and unstructured grids 0 is the local
  // cell spacing; on rectilinear ones a point outside the grid is taken within it (0: never).
  double tolerance_km = 0;
  bool unpack = true;  // values as floating point, NaN where missing
  bool allow_incomplete = false;
};

enum class FeatureKind { kPosition, kArea, kTrajectory };

// Where the request landed on the grid, computed without reading data.
struct ExtractPlan {
  struct Point {
    LonLat requested;
    Cell cell;    // the nearest cell
    LonLat grid;  // its centre
    double distance_km = 0;
    HorizontalGrid::Weights weights;  // bilinear only (count 0 for nearest)
    int64_t time = -1, level = -1;    // a trajectory vertex's own time / level index, or -1
  };
  FeatureKind kind = FeatureKind::kPosition;
  std::string grid_description;  // HorizontalGrid::description()
  // Position: the points requested; trajectory: samples along the path, one per cell crossed.
  std::vector<Point> points;
  // Area (bbox, polygon, radius, corridor): the index box of the cells inside, and which of
  // them are (x-major over the box; 1 inside).
  std::array<int64_t, 4> area = {0, 0, 0, 0};  // x0, y0, nx, ny
  std::vector<uint8_t> mask;
  // On a grid whose longitudes go round the Earth, an area runs east from the feature's west edge
  // and may pass the grid's last column (Europe on a 0..357 grid): along `wrap_axis` (kX or kY;
  // -1 if none) the area's grid indices are taken modulo `wrap_period`. AreaCell maps.
  int wrap_axis = -1;
  int64_t wrap_period = 0;
  // Longitudes are answered in the request's convention: lon_from + ((lon - lon_from) mod 360),
  // so that a point asked at -129.09 on a 0..360 grid answers -129.1, not 230.9 (NaN: as the
  // grid has them).
  double lon_from = NAN;
  std::vector<int64_t> times, levels;  // selected indices
  // True if each point carries its own time / level (a trajectory with M / Z): the values then
  // have one time / level per point.
  bool time_per_point = false, level_per_point = false;
  std::vector<Box> boxes;           // what is read
  FetchPlan read;                   // how: per variable the layout read, its blocks and bytes
  int64_t blocks = 0;               // distinct blocks read (all variables)
  int64_t max_bytes_to_decode = 0;  // raw bytes decoded at most (the frames holding the boxes)

  // The grid cell of area cell (x, y), 0 <= x < area[2], 0 <= y < area[3].
  Cell AreaCell(int64_t x, int64_t y) const {
    Cell c{area[0] + x, area[1] + y};
    if (wrap_axis == kX) c.x %= wrap_period;
    if (wrap_axis == kY) c.y %= wrap_period;
    return c;
  }
  // A longitude of the grid in the request's convention (lon_from).
  double Lon(double lon) const {
    // A whole number of turns off, so that 329 becomes exactly -31.
    return std::isnan(lon_from) ? lon : lon - 360 * std::floor((lon - lon_from) / 360);
  }
  size_t num_times() const { return time_per_point ? 1 : times.size(); }
  size_t num_levels() const { return level_per_point ? 1 : levels.size(); }
  // The time / level index of value (point p, i-th time / level).
  int64_t TimeOf(size_t p, size_t i) const { return time_per_point ? points[p].time : times[i]; }
  int64_t LevelOf(size_t p, size_t i) const {
    return level_per_point ? points[p].level : levels[i];
  }
};

// The values, as doubles (NaN where missing), for each variable.
struct Extraction {
  // The dataset's meta this was planned and read against: every label (coordinates, attributes,
  // units) comes from it, never from a meta read later.
  std::shared_ptr<const DataSetMeta> meta;
  ExtractPlan plan;
  std::shared_ptr<const HorizontalGrid> grid;
  AxisCoordinate time_axis, level_axis;
  struct Variable {
    VariableMeta meta;
    // Points: [point][time][level] (num_times() x num_levels() per point); area:
    // [time][level][x][y] over the area box (cells outside NaN).
    std::vector<double> values;
  };
  std::vector<Variable> variables;
  FetchStats stats;
};

}  // namespace gridstore::grid
namespace gridstore::internal_grid {
struct ResolvedExtract;  // geo/internal/extract_internal.h
}  // namespace gridstore::internal_grid
namespace gridstore::grid {

// An extraction planned once against one meta: the grid, the axes, the variables and the boxes
// to read, resolved. Immutable; Extract reads it, front ends size their answer from plan().
class PlannedExtract {
 public:
  const DataSetMeta& meta() const { return *meta_; }
  const ExtractPlan& plan() const;
  const std::vector<std::string>& variables() const { return request_.variables; }

 private:
  friend Result<std::vector<PlannedExtract>> PlanExtractions(
      GridStore& store, std::shared_ptr<const DataSetMeta> meta, const ExtractRequest& request,
      std::vector<std::string>* left_out);
  friend Result<Extraction> Extract(const GridDataFetcher& fetcher, const PlannedExtract& planned);
  std::shared_ptr<const DataSetMeta> meta_;
  ExtractRequest request_;
  std::shared_ptr<const internal_grid::ResolvedExtract> resolved_;
};

// Plans `request` against `meta`, once: with variables, one plan (errors as PlanExtract); with
// none, one plan per group of VariableGroups, each on its own axes, a group the request does not
// fit (a time or level its axes lack) left out with its reason in *left_out (may be null), and
// an error only if no group can answer. Horizontal grids come from (and go to) the store's
// derived cache; nothing is read but `meta`.
Result<std::vector<PlannedExtract>> PlanExtractions(GridStore& store,
                                                    std::shared_ptr<const DataSetMeta> meta,
                                                    const ExtractRequest& request,
                                                    std::vector<std::string>* left_out);

// Reads what `planned` planned, in one batched read through `fetcher`, from the dataset as it
// was planned: Aborted ("changed since it was planned; ask again") if the fetcher reads another
// state of it (replaced, rewritten or relaid out since).
Result<Extraction> Extract(const GridDataFetcher& fetcher, const PlannedExtract& planned);
// The same through a fetcher of `store` made now.
Result<Extraction> Extract(GridStore& store, const PlannedExtract& planned);

// Resolves `request` against the dataset's meta. All variables must share one horizontal grid
// and time/level axes. Errors: InvalidArgument naming what is wrong (no feature or two, an
// unknown variable, a variable without horizontal coordinates, a bad time or level), OutOfRange
// for a point outside the grid or a time/level not in the coordinate; nothing is read, and the
// horizontal grid is built anew (PlanExtractions keeps it in the store's cache).
Result<ExtractPlan> PlanExtract(const DataSetMeta& meta, const ExtractRequest& request);

// Plans, then reads every box in one batched read and interpolates.
Result<Extraction> Extract(GridStore& store, std::string_view dataset,
                           const ExtractRequest& request);

// The variables of `meta` that have a horizontal grid, grouped so that each group shares one
// grid and time/level axes (shape and dimension names): what one Extract can read together.
// The others go to *left_out (if not null) as "'NAME': why". Grids are kept in `grids` (the
// store's derived cache; null: built every time).
std::vector<std::vector<std::string>> VariableGroups(const DataSetMeta& meta,
                                                     std::vector<std::string>* left_out,
                                                     DerivedCache* grids = nullptr);

// "Every variable at a place" in one call: `request` with no variables extracts every group of
// VariableGroups, each with its own axes (one Extraction per group, in meta order). A group the
// request does not fit (a time or level its axes lack) is left out, its reason in *left_out;
// an error only if no group can answer. With variables, the same as Extract (one result).
Result<std::vector<Extraction>> ExtractEvery(GridStore& store, std::string_view dataset,
                                             const ExtractRequest& request,
                                             std::vector<std::string>* left_out);

}  // namespace gridstore::grid

#endif  // GRIDSTORE_GEO_EXTRACT_H_
