// Copyright 2026 The GridStore Authors.
//
// Extraction in coordinates: values at lon/lat points (nearest cell or bilinear) and in lon/lat
// boxes, over times and levels chosen by value. A request resolves to index boxes (Plan), all of
// which are read in one batched read (GridDataFetcher::FetchBoxes), so that 1,000 scattered
// points cost one read of the blocks they lie in. The CLI's `extract`, and later the HTTP service
// and the Python package, are thin layers over Extract.
#ifndef GRIDSTORE_GRID_EXTRACT_H_
#define GRIDSTORE_GRID_EXTRACT_H_

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gridstore/grid/coordinates.h"
#include "gridstore/grid/grid_data_fetcher.h"
#include "gridstore/grid/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::grid {

class GridStore;

enum class InterpolationMethod { kNearest, kBilinear };

struct ExtractRequest {
  std::vector<std::string> variables;  // at least one
  // Exactly one feature: points (a position or several), or a bbox {west, south, east, north}
  // (east < west crosses the antimeridian).
  std::vector<LonLat> points;
  std::optional<std::array<double, 4>> bbox;
  // Times and levels: "" (all), a value, "V1/V2" (a range, ".." for an open end) or a list
  // "V1,V2"; times in ISO 8601, levels in the level coordinate's units.
  std::string time;
  std::string level;
  InterpolationMethod method = InterpolationMethod::kNearest;  // points only
  double tolerance_km = 0;  // curvilinear grids: 0 is the local cell spacing
  bool unpack = true;       // values as floating point, NaN where missing
  bool allow_incomplete = false;
};

// Where the request landed on the grid, computed without reading data.
struct ExtractPlan {
  struct Point {
    LonLat requested;
    Cell cell;    // the nearest cell
    LonLat grid;  // its centre
    double distance_km = 0;
    HorizontalGrid::Weights weights;  // bilinear only (count 0 for nearest)
  };
  std::string grid_description;  // HorizontalGrid::description()
  std::vector<Point> points;     // points requested
  // bbox requested: the index box of the cells inside, and which of them are (x-major over the
  // box; 1 inside).
  std::array<int64_t, 4> area = {0, 0, 0, 0};  // x0, y0, nx, ny
  std::vector<uint8_t> mask;
  std::vector<int64_t> times, levels;  // selected indices
  std::vector<Box> boxes;              // what is read
  int64_t blocks = 0;                  // distinct blocks read (all variables)
  int64_t max_bytes_to_decode = 0;     // their raw size: the most decoded (frames may cut it)
};

// The values, as doubles (NaN where missing), for each variable.
struct Extraction {
  ExtractPlan plan;
  std::shared_ptr<const HorizontalGrid> grid;
  AxisCoordinate time_axis, level_axis;
  struct Variable {
    VariableMeta meta;
    // Points: [point][time][level]; bbox: [time][level][x][y] over the area box (masked cells
    // NaN).
    std::vector<double> values;
  };
  std::vector<Variable> variables;
  FetchStats stats;
};

// Resolves `request` against the dataset's meta. All variables must share one horizontal grid
// and time/level axes. Errors: InvalidArgument naming what is wrong (no feature or two, an
// unknown variable, a variable without horizontal coordinates, a bad time or level), OutOfRange
// for a point outside the grid or a time/level not in the coordinate; nothing is read.
Result<ExtractPlan> PlanExtract(const DataSetMeta& meta, const ExtractRequest& request);

// Plans, then reads every box in one batched read and interpolates.
Result<Extraction> Extract(GridStore& store, std::string_view dataset,
                           const ExtractRequest& request);

}  // namespace gridstore::grid

#endif  // GRIDSTORE_GRID_EXTRACT_H_
