// Copyright 2026 The GridStore Authors.
//
// Coordinates in the users' terms, read from a dataset's meta: where each (x, y) cell of a
// variable is on the Earth (HorizontalGrid: rectilinear 1-D latitude/longitude, or curvilinear
// from 2-D auxiliary latitude/longitude or from projected / rotated 1-D coordinates and a CF
// grid_mapping), and the values of its time and level axes (AxisCoordinate, times decoded with
// their CF calendar). Built once per (dataset meta, variable) and immutable: share them between
// threads freely.
#ifndef GRIDSTORE_GEO_COORDINATES_H_
#define GRIDSTORE_GEO_COORDINATES_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gridstore/model/cf_time.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::internal_grid {
class MonotonicAxis;
}  // namespace gridstore::internal_grid

namespace gridstore::grid {

inline constexpr double kEarthRadiusKm = 6371.0088;  // the mean radius (IUGG)

struct LonLat {
  double lon = 0;  // degrees east, any range
  double lat = 0;  // degrees north
};

// Great-circle distance in km (haversine on the mean sphere).
double GreatCircleKm(const LonLat& a, const LonLat& b);

// A cell of the (x, y) plane.
struct Cell {
  int64_t x = 0;
  int64_t y = 0;
  bool operator==(const Cell&) const = default;
};

// kUnstructured: a cell axis (along y, x of size 1) whose cells have their own latitude and
// longitude and no rows or columns: reduced Gaussian and lat/lon grids, CAM-SE `ncol`, UGRID mesh
// faces, a satellite's view. Points are answered by the nearest cell, areas by the cells whose
// centres lie inside; never interpolated.
enum class GridType { kRectilinear, kCurvilinear, kUnstructured };

class HorizontalGrid {
 public:
  // The horizontal coordinates of `var` in `meta`:
  // 1. 2-D auxiliary latitude and longitude named by its `coordinates` attribute over its x and
  //    y dimensions, in either order (CF: where they exist they are the truth);
  // 2. else 1-D coordinates of its x and y dimensions that are latitude and longitude
  //    (rectilinear);
  // 3. else 1-D projected or rotated coordinates and the grid mapping its `grid_mapping`
  //    attribute names, converted with PROJ (curvilinear);
  // 4. a variable with cells along y only (no x dimension) whose y dimension has 1-D latitude
  //    and longitude (in degrees or radians): unstructured.
  // InvalidArgument naming the variable and what is missing otherwise.
  static Result<std::shared_ptr<const HorizontalGrid>> Build(const DataSetMeta& meta,
                                                             const VariableMeta& var);
  ~HorizontalGrid();

  GridType type() const { return type_; }
  // "rectilinear (lat, lon)", "curvilinear (2-D lat2d, lon2d)", "curvilinear (grid_latitude,
  // grid_longitude and grid mapping rotated_latitude_longitude)".
  const std::string& description() const { return description_; }
  // The grid mapping coordinate's name, or "" if none.
  const std::string& grid_mapping() const { return grid_mapping_; }
  int64_t nx() const { return nx_; }
  int64_t ny() const { return ny_; }
  // The geographic centre of a cell (longitude as the source gives it).
  LonLat At(const Cell& cell) const;
  // Rectilinear only: true if x is the latitude axis (a (lat, lon) variable).
  bool x_is_latitude() const { return x_is_lat_; }
  // Rectilinear only: true if the longitudes go once round the Earth at a regular step (a global
  // 0..359 or -180..179 grid), so that the cell after the last one is the first.
  bool longitude_wraps() const;

  struct Nearest {
    Cell cell;
    double distance_km = 0;
  };
  // The cell whose centre is nearest `p` by great-circle distance. OutOfRange naming the point
  // and the grid's extent if `p` is outside the grid: beyond half a cell from a rectilinear
  // grid's edge, or farther than `tolerance_km` from the nearest centre of a curvilinear one (0:
  // the local cell spacing).
  Result<Nearest> FindNearest(const LonLat& p, double tolerance_km = 0) const;

  // Bilinear interpolation weights at `p`: up to four cells and weights summing to 1. On a
  // rectilinear grid, between the neighbouring rows and columns (linear in degrees); on a
  // curvilinear one, inside the cell quadrilateral that contains `p`. A point beyond the outer
  // centres but within half a cell of the edge takes the edge's values. OutOfRange as
  // FindNearest.
  struct Weights {
    std::array<Cell, 4> cells;
    std::array<double, 4> weights{};
    int count = 0;
  };
  Result<Weights> Bilinear(const LonLat& p) const;

  // The distance from a cell's centre to the nearest centre beside it along x or y: the grid's
  // spacing there (1 km for a single-cell grid).
  double SpacingKm(const Cell& cell) const;

  // Cells whose centres lie in the lon/lat box [west, east] x [south, north] (east < west
  // crosses the antimeridian), in x-major order.
  std::vector<Cell> CellsInBox(double west, double south, double east, double north) const;

  // About the bytes this grid holds (coordinates and k-d tree): its charge in a cache.
  size_t MemoryBytes() const;

  // The bounding index box of `cells`: {x0, y0, nx, ny}. REQUIRES: !cells.empty().
  static std::array<int64_t, 4> BoundsOf(const std::vector<Cell>& cells);

 private:
  HorizontalGrid() = default;
  struct KdTree;
  // Places every cell by projected or rotated 1-D coordinates and a CF grid mapping (PROJ).
  Status PlaceByMapping(const Coordinate& cx, const Coordinate& cy, const Coordinate& mapping);
  static Result<std::shared_ptr<const HorizontalGrid>> BuildUnstructured(const DataSetMeta& meta,
                                                                         const VariableMeta& var);
  // The distance from a cell's centre to the nearest other centre (a cell axis's spacing).
  double NeighbourKm(const Cell& cell) const;
  Result<Nearest> NearestRectilinear(const LonLat& p) const;
  Result<Nearest> NearestCurvilinear(const LonLat& p, double tolerance_km) const;
  Result<Weights> BilinearRectilinear(const LonLat& p) const;
  Result<Weights> BilinearCurvilinear(const LonLat& p) const;
  Status OutsideError(const LonLat& p, const std::string& why) const;
  void BuildKdTree();
  Status BuildAxes();
  // The smallest (or largest) distance to the centres beside `cell`.
  double SpacingKm(const Cell& cell, bool largest) const;

  GridType type_ = GridType::kRectilinear;
  std::string variable_, description_, grid_mapping_;
  int64_t nx_ = 0, ny_ = 0;
  // Rectilinear: the 1-D latitudes and longitudes; x_is_lat_ says which is along x.
  bool x_is_lat_ = true;
  std::vector<double> lat1_, lon1_;
  std::unique_ptr<internal_grid::MonotonicAxis> lat_axis_, lon_axis_;
  // Curvilinear: lat/lon of every cell, x-major (nx * ny).
  std::vector<double> lat2_, lon2_;
  std::unique_ptr<KdTree> tree_;
};

// How a single value selects from an axis: the value itself, or the value nearest it (within
// half a step of the outer values). EDR has no such parameter: `time-method` / `level-method`
// are GridStore's documented extension.
enum class AxisMatch { kExact, kNearest };

// The values of a variable's t or z axis with their meaning: times decoded with their CF units
// and calendar, levels with their units. An axis without a coordinate has plain index values.
class AxisCoordinate {
 public:
  // Axis kT or kZ of `var`. A time axis whose units or calendar are not CF is InvalidArgument.
  static Result<AxisCoordinate> Build(const DataSetMeta& meta, const VariableMeta& var, Axis axis);

  Axis axis() const { return axis_; }
  const std::string& name() const { return name_; }  // "" if the axis has no coordinate
  const std::string& units() const { return units_; }
  bool is_time() const { return time_units_.has_value(); }
  const TimeUnits* time_units() const { return time_units_ ? &*time_units_ : nullptr; }
  const std::vector<double>& values() const { return values_; }
  int64_t size() const { return static_cast<int64_t>(values_.size()); }
  // A value as text: ISO 8601 for times, else the number.
  std::string Label(int64_t index) const;

  // Indices selected by `spec`: "VALUE", "V1/V2" (an inclusive range; ".." for an open end), or
  // "V1,V2,..." (a list). Times are ISO 8601; levels are numbers in the axis's units, or with
  // units of their own that convert to them ("850hPa" on a Pa axis, "1.5 km" on metres). A single
  // value or list item must equal a coordinate value (times to the second, levels to 1e-6
  // relative); a range selects every value inside it. InvalidArgument / OutOfRange naming the axis,
  // the value and the coordinate's extent otherwise. Empty `spec`: every index.
  // With AxisMatch::kNearest, a single value or list item selects the nearest value instead.
  // A time range whose start is after its end is InvalidArgument (a level range may run either
  // way); a value given twice is selected once; an exact miss names the nearest values.
  Result<std::vector<int64_t>> Select(std::string_view spec,
                                      AxisMatch match = AxisMatch::kExact) const;
  // The index of the value nearest `value` (in the coordinate's units). OutOfRange naming the
  // axis and `label` if `value` lies beyond the outer values by more than half a step.
  Result<int64_t> NearestIndex(double value, std::string_view label) const;

 private:
  Result<double> ParseValue(std::string_view text) const;
  std::string Describe() const;
  // " (the nearest are A and B)" for a value that is not on the axis.
  std::string NearestHint(double v) const;
  Axis axis_ = Axis::kT;
  std::string variable_, name_, units_;
  std::optional<TimeUnits> time_units_;
  std::vector<double> values_;
};

// How a coordinate reads, for `info`: its first and last values in file order (ISO 8601 for
// times with CF units), and for a 1-D one its direction and, if regular, its step.
struct CoordinateSummary {
  std::string first, last;  // empty for a coordinate without values
  // "ascending", "descending", "constant", "unordered"; "" for a scalar or a 2-D coordinate.
  std::string direction;
  std::optional<double> step;  // the spacing of a regular 1-D coordinate (to 1e-6 relative)
  bool is_time = false;        // first and last are ISO dates
};
CoordinateSummary SummarizeCoordinate(const Coordinate& coordinate);

}  // namespace gridstore::grid

#endif  // GRIDSTORE_GEO_COORDINATES_H_
