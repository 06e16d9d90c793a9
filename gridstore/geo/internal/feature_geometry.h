// Copyright 2026 The GridStore Authors.
//
// The geometry of extraction features: WKT polygons (parsed, validated and tested for containing
// cell centres with GEOS, the only code that includes it), WKT line strings with optional
// per-vertex level (Z) and time (M), and distances to and samples along paths on the sphere.
#ifndef GRIDSTORE_GEO_INTERNAL_FEATURE_GEOMETRY_H_
#define GRIDSTORE_GEO_INTERNAL_FEATURE_GEOMETRY_H_

#include <array>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "gridstore/geo/coordinates.h"
#include "gridstore/util/result.h"

namespace gridstore::internal_grid {

// A polygon (or multipolygon) in lon/lat degrees, CRS84 axis order.
class LonLatPolygon {
 public:
  // InvalidArgument quoting the WKT if it does not parse, is not a (MULTI)POLYGON, or is not
  // valid (self-intersecting, with GEOS's reason and location).
  static Result<std::unique_ptr<LonLatPolygon>> FromWkt(std::string_view wkt);
  ~LonLatPolygon();

  // {west, south, east, north} of the polygon, in its own longitudes.
  const std::array<double, 4>& bounds() const { return bounds_; }
  // True if `p` is inside (the boundary included); `p`'s longitude is moved by multiples of
  // 360 to the polygon's.
  bool Contains(const grid::LonLat& p) const;

 private:
  LonLatPolygon() = default;
  struct Geos;
  std::unique_ptr<Geos> geos_;
  std::array<double, 4> bounds_{};
};

struct PathVertex {
  grid::LonLat at;
  std::optional<double> z;  // LINESTRING Z / ZM: a level, in the level coordinate's units
  std::optional<double> m;  // LINESTRING M / ZM: a time, in seconds since 1970-01-01T00:00:00Z
};

// A LINESTRING, LINESTRING Z, LINESTRING M or LINESTRING ZM (EDR's trajectory; "LINESTRINGZ"
// written together too). InvalidArgument quoting the WKT and saying what is wrong otherwise.
Result<std::vector<PathVertex>> ParseLineString(std::string_view wkt);

// Great-circle distance from `p` to the path (the nearest point on any of its great-circle
// segments), in km.
double DistanceToPathKm(const grid::LonLat& p, const std::vector<PathVertex>& path);

// Points along the path at most `spacing_km` apart, vertices included, with Z and M interpolated
// linearly along each segment.
std::vector<PathVertex> SamplePath(const std::vector<PathVertex>& path, double spacing_km);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_GEO_INTERNAL_FEATURE_GEOMETRY_H_
