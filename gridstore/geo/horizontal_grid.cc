// Copyright 2026 The GridStore Authors.
//
// HorizontalGrid: which coordinates place a variable's cells (Build), and nearest-point lookups
// on rectilinear grids (by the 1-D axes) and curvilinear ones (by a k-d tree of unit vectors).
#include <algorithm>
#include <cmath>
#include <nanoflann.hpp>
#include <tuple>

#include "gridstore/geo/coordinates.h"
#include "gridstore/geo/internal/grid_mapping.h"
#include "gridstore/geo/internal/horizontal_grid_internal.h"
#include "gridstore/geo/internal/monotonic_axis.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::grid {

using internal_grid::MonotonicAxis;
using internal_grid::ToUnitVector;

namespace {

// The string attribute trimmed and in lower case, for comparing CF names and units.
std::string StringAttr(const Attributes& attributes, std::string_view name) {
  std::string s(Trim(StringAttribute(attributes, name)));
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool IsLatitude(const Coordinate& c) {
  const std::string sn = StringAttr(c.attributes, "standard_name");
  if (sn == "latitude") return true;
  if (!sn.empty()) return false;  // grid_latitude, projection_y_coordinate, ...
  const std::string units = StringAttr(c.attributes, "units");
  for (const char* u :
       {"degrees_north", "degree_north", "degree_n", "degrees_n", "degreen", "degreesn"}) {
    if (units == u) return true;
  }
  return (c.name == "lat" || c.name == "latitude" || c.name == "nav_lat") &&
         (units.empty() || units == "degrees");
}

bool IsLongitude(const Coordinate& c) {
  const std::string sn = StringAttr(c.attributes, "standard_name");
  if (sn == "longitude") return true;
  if (!sn.empty()) return false;
  const std::string units = StringAttr(c.attributes, "units");
  for (const char* u :
       {"degrees_east", "degree_east", "degree_e", "degrees_e", "degreee", "degreese"}) {
    if (units == u) return true;
  }
  return (c.name == "lon" || c.name == "longitude" || c.name == "nav_lon") &&
         (units.empty() || units == "degrees");
}

// The 1-D coordinate of dimension `dim`, or null.
// The 1-D coordinate of dimension `dim` with one value per index of an axis of `extent`, or null.
const Coordinate* AxisCoordinateOf(const DataSetMeta& meta, const std::string& dim,
                                   int64_t extent) {
  const Coordinate* c = meta.FindCoordinate(dim);
  return c != nullptr && c->dimensions.size() == 1 && c->dimensions[0] == dim &&
                 c->values.size() == size_t(extent)
             ? c
             : nullptr;
}

// `c`'s values as an x-major (nx, ny) array, transposing a (y, x) coordinate.
std::vector<double> AsXMajor(const Coordinate& c, const std::string& xdim, int64_t nx, int64_t ny) {
  if (c.dimensions[0] == xdim) return c.values;
  std::vector<double> out(static_cast<size_t>(nx * ny));
  for (int64_t x = 0; x < nx; ++x) {
    for (int64_t y = 0; y < ny; ++y) out[x * ny + y] = c.values[y * nx + x];
  }
  return out;
}

bool IsProjectedX(const Coordinate& c) {
  const std::string sn = StringAttr(c.attributes, "standard_name");
  return sn == "projection_x_coordinate" || sn == "grid_longitude" ||
         (sn.empty() && StringAttr(c.attributes, "axis") == "x");
}

// The 2-D auxiliary latitude and longitude that `var`'s `coordinates` attribute names over its
// x and y dimensions (either order), or nulls.
std::pair<const Coordinate*, const Coordinate*> AuxiliaryLatLon(const DataSetMeta& meta,
                                                                const VariableMeta& var,
                                                                int64_t cells) {
  const std::string& xdim = var.dimension_names[kX];
  const std::string& ydim = var.dimension_names[kY];
  auto over_xy = [&](const Coordinate& c) {
    return c.dimensions.size() == 2 && c.values.size() == size_t(cells) &&
           ((c.dimensions[0] == xdim && c.dimensions[1] == ydim) ||
            (c.dimensions[0] == ydim && c.dimensions[1] == xdim));
  };
  const Coordinate *lat = nullptr, *lon = nullptr;
  auto it = var.attributes.find("coordinates");
  if (it == var.attributes.end() || !it->second.is_string()) return {lat, lon};
  for (const std::string& name : SplitWhitespace(it->second.string_value())) {
    const Coordinate* c = meta.FindCoordinate(name);
    if (c == nullptr || !over_xy(*c)) continue;
    if (IsLatitude(*c)) lat = c;
    if (IsLongitude(*c)) lon = c;
  }
  return {lat, lon};
}

// Values that cannot be a latitude or longitude (netCDF's default fill 9.97e36, -999 where the
// writer had no position) become NaN: such a cell has no place. Returns the number of usable
// values. Issue 29, 2.6: a grid whose coordinates are all fill used to place every point on one
// cell 11,408 km away.
size_t MaskUnusable(std::vector<double>* values, double limit) {
  size_t usable = 0;
  for (double& v : *values) {
    if (std::isfinite(v) && std::fabs(v) <= limit) {
      ++usable;
    } else {
      v = NAN;
    }
  }
  return usable;
}

// Masks (MaskUnusable) cells whose latitude or longitude is unusable, both to NaN; returns the
// number of cells left with a place.
size_t MaskUnplaced(std::vector<double>* lat, std::vector<double>* lon) {
  MaskUnusable(lat, 90);
  MaskUnusable(lon, 720);
  size_t placed = 0;
  for (size_t i = 0; i < lat->size(); ++i) {
    if (std::isnan((*lat)[i]) || std::isnan((*lon)[i])) {
      (*lat)[i] = (*lon)[i] = NAN;
    } else {
      ++placed;
    }
  }
  return placed;
}

// A 2-D latitude or longitude over the variable's x and y dimensions that no `coordinates`
// attribute names (MM5 writes `lat(x_cross, y_cross)` with units and standard_name only).
std::pair<const Coordinate*, const Coordinate*> UnnamedLatLon(const DataSetMeta& meta,
                                                              const VariableMeta& var,
                                                              int64_t cells) {
  const std::string& xdim = var.dimension_names[kX];
  const std::string& ydim = var.dimension_names[kY];
  const Coordinate *lat = nullptr, *lon = nullptr;
  for (const Coordinate& c : meta.coordinates) {
    if (c.dimensions.size() != 2 || c.values.size() != size_t(cells)) continue;
    if (!((c.dimensions[0] == xdim && c.dimensions[1] == ydim) ||
          (c.dimensions[0] == ydim && c.dimensions[1] == xdim))) {
      continue;
    }
    if (lat == nullptr && IsLatitude(c)) lat = &c;
    if (lon == nullptr && IsLongitude(c)) lon = &c;
  }
  return {lat, lon};
}

// The grid mapping `var` names ("crs", or "crs" of CF-1.7's "crs: lat lon"), or "".
std::string GridMappingName(const VariableMeta& var) {
  const auto it = var.attributes.find("grid_mapping");
  if (it == var.attributes.end() || !it->second.is_string()) return "";
  const std::vector<std::string> words = SplitWhitespace(it->second.string_value());
  if (words.empty()) return "";
  return words[0].back() == ':' ? words[0].substr(0, words[0].size() - 1) : words[0];
}

}  // namespace

double GreatCircleKm(const LonLat& a, const LonLat& b) {
  constexpr double kRad = M_PI / 180;
  const double dlat = (b.lat - a.lat) * kRad, dlon = (b.lon - a.lon) * kRad;
  const double h =
      std::sin(dlat / 2) * std::sin(dlat / 2) +
      std::cos(a.lat * kRad) * std::cos(b.lat * kRad) * std::sin(dlon / 2) * std::sin(dlon / 2);
  return 2 * kEarthRadiusKm * std::asin(std::min(1.0, std::sqrt(h)));
}

// ---- The k-d tree of a curvilinear grid ----

struct HorizontalGrid::KdTree {
  struct Points {
    std::vector<std::array<double, 3>> xyz;
    size_t kdtree_get_point_count() const { return xyz.size(); }
    double kdtree_get_pt(size_t i, size_t d) const { return xyz[i][d]; }
    template <class Box>
    bool kdtree_get_bbox(Box&) const {
      return false;
    }
  };
  using Index = nanoflann::KDTreeSingleIndexAdaptor<nanoflann::L2_Simple_Adaptor<double, Points>,
                                                    Points, 3, size_t>;
  Points points;
  std::vector<size_t> cells;  // the cell (x * ny + y) of each point
  std::unique_ptr<Index> index;
};

HorizontalGrid::~HorizontalGrid() = default;

void HorizontalGrid::BuildKdTree() {
  tree_ = std::make_unique<KdTree>();
  // Cells without a place (NaN: a fill value in the coordinates, off a geostationary disk) are
  // nobody's nearest: the tree holds the others, and `cells` maps back.
  for (size_t i = 0; i < lat2_.size(); ++i) {
    if (!std::isfinite(lon2_[i]) || !std::isfinite(lat2_[i])) continue;
    tree_->points.xyz.push_back(ToUnitVector(LonLat{lon2_[i], lat2_[i]}));
    tree_->cells.push_back(i);
  }
  if (tree_->cells.empty()) return;  // no cell has a place (FindNearest says so)
  tree_->index = std::make_unique<KdTree::Index>(3, tree_->points,
                                                 nanoflann::KDTreeSingleIndexAdaptorParams(16));
}

// ---- Build ----

size_t HorizontalGrid::MemoryBytes() const {
  size_t bytes =
      sizeof(*this) + (lat1_.size() + lon1_.size() + lat2_.size() + lon2_.size()) * sizeof(double);
  if (lat_axis_) bytes += lat1_.size() * sizeof(double);  // each axis keeps its values once more
  if (lon_axis_) bytes += lon1_.size() * sizeof(double);
  // Each point: its x, y, z, its cell, and about one index slot of the tree.
  if (tree_) bytes += tree_->cells.size() * (3 * sizeof(double) + 2 * sizeof(size_t));
  return bytes;
}

Result<std::shared_ptr<const HorizontalGrid>> HorizontalGrid::Build(const DataSetMeta& meta,
                                                                    const VariableMeta& var) {
  const std::string& xdim = var.dimension_names[kX];
  const std::string& ydim = var.dimension_names[kY];
  const std::string where = "variable " + Quote(var.name);
  if (xdim.empty() && !ydim.empty() && var.shape[kX] == 1) return BuildUnstructured(meta, var);
  if (xdim.empty() || ydim.empty()) {
    return Status::InvalidArgument(where +
                                   " has no horizontal coordinates: it lacks an x or y dimension");
  }
  std::shared_ptr<HorizontalGrid> g(new HorizontalGrid());
  g->variable_ = var.name;
  g->nx_ = var.shape[kX];
  g->ny_ = var.shape[kY];
  auto [lat2, lon2] = AuxiliaryLatLon(meta, var, g->nx_ * g->ny_);
  if (lat2 == nullptr || lon2 == nullptr)
    std::tie(lat2, lon2) = UnnamedLatLon(meta, var, g->nx_ * g->ny_);
  g->grid_mapping_ = GridMappingName(var);
  std::string unusable;  // why 2-D coordinates that exist were not used
  if (lat2 != nullptr && lon2 != nullptr) {
    g->lat2_ = AsXMajor(*lat2, xdim, g->nx_, g->ny_);
    g->lon2_ = AsXMajor(*lon2, xdim, g->nx_, g->ny_);
    if (MaskUnplaced(&g->lat2_, &g->lon2_) > 0) {
      g->type_ = GridType::kCurvilinear;
      g->description_ = "curvilinear (2-D " + lat2->name + ", " + lon2->name + ")";
      g->BuildKdTree();
      return std::shared_ptr<const HorizontalGrid>(std::move(g));
    }
    unusable = "; its 2-D " + Quote(lat2->name) + " and " + Quote(lon2->name) +
               " hold no usable latitude/longitude (every value is a fill value or out of range)";
    g->lat2_.clear();
    g->lon2_.clear();
  }
  // 2. 1-D latitude and longitude.
  const Coordinate* cx = AxisCoordinateOf(meta, xdim, g->nx_);
  const Coordinate* cy = AxisCoordinateOf(meta, ydim, g->ny_);
  if (cx != nullptr && cy != nullptr &&
      ((IsLatitude(*cx) && IsLongitude(*cy)) || (IsLongitude(*cx) && IsLatitude(*cy)))) {
    g->type_ = GridType::kRectilinear;
    g->x_is_lat_ = IsLatitude(*cx);
    const Coordinate& lat = g->x_is_lat_ ? *cx : *cy;
    const Coordinate& lon = g->x_is_lat_ ? *cy : *cx;
    g->lat1_ = lat.values;
    g->lon1_ = lon.values;
    g->description_ = "rectilinear (" + lat.name + ", " + lon.name + ")";
    GRIDSTORE_RETURN_IF_ERROR(g->BuildAxes());
    return std::shared_ptr<const HorizontalGrid>(std::move(g));
  }
  // 3. Projected or rotated 1-D coordinates and a grid mapping.
  const Coordinate* mapping =
      g->grid_mapping_.empty() ? nullptr : meta.FindCoordinate(g->grid_mapping_);
  if (cx != nullptr && cy != nullptr && mapping != nullptr) {
    GRIDSTORE_RETURN_IF_ERROR(g->PlaceByMapping(*cx, *cy, *mapping).WithContext(where));
    return std::shared_ptr<const HorizontalGrid>(std::move(g));
  }
  return Status::InvalidArgument(
      where + " has no horizontal coordinates: its dimensions " + Quote(xdim) + " and " +
      Quote(ydim) +
      " have no latitude/longitude coordinate variables, it names no 2-D latitude and longitude "
      "in its `coordinates` attribute, and no usable grid_mapping" +
      unusable);
}

Status HorizontalGrid::PlaceByMapping(const Coordinate& cx, const Coordinate& cy,
                                      const Coordinate& mapping) {
  const bool x_is_easting = IsProjectedX(cx);
  const Coordinate& east = x_is_easting ? cx : cy;
  const Coordinate& north = x_is_easting ? cy : cx;
  std::vector<double> xs(size_t(nx_ * ny_)), ys(xs.size());
  for (int64_t x = 0; x < nx_; ++x) {
    for (int64_t y = 0; y < ny_; ++y) {
      xs[x * ny_ + y] = x_is_easting ? east.values[x] : east.values[y];
      ys[x * ny_ + y] = x_is_easting ? north.values[y] : north.values[x];
    }
  }
  std::vector<std::string> notes;
  GRIDSTORE_RETURN_IF_ERROR(internal_grid::ToGeographic(
      mapping, StringAttribute(east.attributes, "units"), xs, ys, &lon2_, &lat2_, &notes));
  type_ = GridType::kCurvilinear;
  description_ =
      "curvilinear (" + north.name + ", " + east.name + " and grid mapping " + mapping.name + ")";
  if (!notes.empty()) description_ += "; note: " + Join(notes, "; ");
  BuildKdTree();
  return Status::OK();
}

Result<std::shared_ptr<const HorizontalGrid>> HorizontalGrid::BuildUnstructured(
    const DataSetMeta& meta, const VariableMeta& var) {
  const std::string& dim = var.dimension_names[kY];
  const int64_t n = var.shape[kY];
  const Coordinate *lat = nullptr, *lon = nullptr;
  for (const Coordinate& c : meta.coordinates) {
    if (c.dimensions.size() != 1 || c.dimensions[0] != dim || c.values.size() != size_t(n))
      continue;
    if (lat == nullptr && IsLatitude(c)) lat = &c;
    if (lon == nullptr && IsLongitude(c)) lon = &c;
  }
  if (lat == nullptr || lon == nullptr) {
    return Status::InvalidArgument("variable " + Quote(var.name) + " has its cells along " +
                                   Quote(dim) +
                                   " only, which has no 1-D latitude and longitude: its cells "
                                   "cannot be placed");
  }
  std::shared_ptr<HorizontalGrid> g(new HorizontalGrid());
  g->variable_ = var.name;
  g->type_ = GridType::kUnstructured;
  g->nx_ = 1;
  g->ny_ = n;
  g->lat2_ = lat->values;
  g->lon2_ = lon->values;
  // UGRID allows radians (its node and face coordinates often are).
  for (auto [c, values] : {std::pair{lat, &g->lat2_}, std::pair{lon, &g->lon2_}}) {
    const std::string units = StringAttr(c->attributes, "units");
    if (units.starts_with("rad")) {
      for (double& v : *values) v *= 180 / M_PI;
    }
  }
  if (MaskUnplaced(&g->lat2_, &g->lon2_) == 0) {
    return Status::InvalidArgument("variable " + Quote(var.name) + ": its cells' " +
                                   Quote(lat->name) + " and " + Quote(lon->name) +
                                   " hold no usable latitude/longitude");
  }
  g->description_ = "unstructured (" + std::to_string(n) + " cells along " + dim + "; " +
                    lat->name + ", " + lon->name + ")";
  g->BuildKdTree();
  return std::shared_ptr<const HorizontalGrid>(std::move(g));
}

double HorizontalGrid::NeighbourKm(const Cell& cell) const {
  const LonLat c = At(cell);
  if (!std::isfinite(c.lat) || tree_->cells.size() < 2) return 1;
  const std::array<double, 3> q = ToUnitVector(c);
  size_t index[2];
  double chord2[2];
  tree_->index->knnSearch(q.data(), 2, index, chord2);
  const double d = 2 * kEarthRadiusKm * std::asin(std::min(1.0, std::sqrt(chord2[1]) / 2));
  return d > 0 ? d : 1;
}

double HorizontalGrid::SpacingKm(const Cell& cell) const { return SpacingKm(cell, false); }

double HorizontalGrid::SpacingKm(const Cell& cell, bool largest) const {
  // A cell axis has no neighbours by index: the nearest other centre, and (for the tolerance of
  // a point between cells, which can lie farther on an irregular mesh) half as much again.
  if (type_ == GridType::kUnstructured) return NeighbourKm(cell) * (largest ? 1.5 : 1.0);
  const LonLat c = At(cell);
  double spacing = largest ? 0 : INFINITY;
  for (const auto& [dx, dy] : {std::pair{-1, 0}, {1, 0}, {0, -1}, {0, 1}}) {
    const Cell n{cell.x + dx, cell.y + dy};
    if (n.x < 0 || n.y < 0 || n.x >= nx_ || n.y >= ny_) continue;
    const double d = GreatCircleKm(c, At(n));
    if (d > 0) spacing = largest ? std::max(spacing, d) : std::min(spacing, d);
  }
  return spacing > 0 && std::isfinite(spacing) ? spacing : 1;
}

LonLat HorizontalGrid::At(const Cell& cell) const {
  if (type_ != GridType::kRectilinear) {
    const size_t i = size_t(cell.x * ny_ + cell.y);
    return {lon2_[i], lat2_[i]};
  }
  const int64_t ilat = x_is_lat_ ? cell.x : cell.y, ilon = x_is_lat_ ? cell.y : cell.x;
  return {lon1_[size_t(ilon)], lat1_[size_t(ilat)]};
}

Status HorizontalGrid::OutsideError(const LonLat& p, const std::string& why) const {
  return Status::OutOfRange("point (lon " + FormatDouble(p.lon) + ", lat " + FormatDouble(p.lat) +
                            ") is outside the grid of variable " + Quote(variable_) + ": " + why);
}

Result<HorizontalGrid::Nearest> HorizontalGrid::FindNearest(const LonLat& p,
                                                            double tolerance_km) const {
  // Longitudes wrap, but ten turns and more is a mistake, not a place (and loses precision).
  constexpr double kMaxLongitude = 3600;
  if (!std::isfinite(p.lon) || !std::isfinite(p.lat) || p.lat < -90 || p.lat > 90 ||
      std::fabs(p.lon) > kMaxLongitude) {
    return Status::InvalidArgument(
        "point (lon " + FormatDouble(p.lon) + ", lat " + FormatDouble(p.lat) +
        ") is not on the Earth (latitude must be in [-90, 90], longitude a finite number of "
        "degrees, wrapped modulo 360)");
  }
  if (type_ == GridType::kRectilinear) {
    Result<Nearest> inside = NearestRectilinear(p);
    if (inside.ok() || !(tolerance_km > 0)) return inside;
    // Outside the grid, but a tolerance was given: the nearest edge cell, if close enough.
    Nearest best{{0, 0}, INFINITY};
    const int64_t ilat_near = std::min_element(lat1_.begin(), lat1_.end(),
                                               [&](double a, double b) {
                                                 return std::fabs(a - p.lat) < std::fabs(b - p.lat);
                                               }) -
                              lat1_.begin();
    for (size_t j = 0; j < lon1_.size(); ++j) {
      const double d = GreatCircleKm(p, LonLat{lon1_[j], lat1_[size_t(ilat_near)]});
      if (d < best.distance_km) {
        best.distance_km = d;
        best.cell = x_is_lat_ ? Cell{ilat_near, int64_t(j)} : Cell{int64_t(j), ilat_near};
      }
    }
    if (best.distance_km > tolerance_km) return inside.status();
    return best;
  }
  return NearestCurvilinear(p, tolerance_km);
}

Result<HorizontalGrid::Nearest> HorizontalGrid::NearestCurvilinear(const LonLat& p,
                                                                   double tolerance_km) const {
  if (tree_->cells.empty()) {
    return OutsideError(p, "no cell of the grid has a usable latitude and longitude");
  }
  const std::array<double, 3> q = ToUnitVector(p);
  size_t index = 0;
  double chord2 = 0;
  tree_->index->knnSearch(q.data(), 1, &index, &chord2);
  index = tree_->cells[index];
  const Cell cell{int64_t(index) / ny_, int64_t(index) % ny_};
  const double distance = 2 * kEarthRadiusKm * std::asin(std::min(1.0, std::sqrt(chord2) / 2));
  const double tolerance = tolerance_km > 0 ? tolerance_km : SpacingKm(cell, /*largest=*/true);
  if (distance > tolerance) {
    return OutsideError(p, "the nearest cell centre is " +
                               FormatDouble(std::round(distance * 10) / 10) +
                               " km away, beyond the tolerance of " +
                               FormatDouble(std::round(tolerance * 10) / 10) + " km");
  }
  return Nearest{cell, distance};
}

}  // namespace gridstore::grid
