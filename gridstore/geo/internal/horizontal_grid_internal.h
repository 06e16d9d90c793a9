// Copyright 2026 The GridStore Authors.
//
// Geometry shared by the horizontal grid's files: points as unit vectors, and the local
// tangent plane in which cells are tested for containing a point.
#ifndef GRIDSTORE_GEO_INTERNAL_HORIZONTAL_GRID_INTERNAL_H_
#define GRIDSTORE_GEO_INTERNAL_HORIZONTAL_GRID_INTERNAL_H_

#include <array>
#include <cmath>

#include "gridstore/geo/coordinates.h"

namespace gridstore::internal_grid {

// The point on the unit sphere: chord distances between them order as great-circle distances.
inline std::array<double, 3> ToUnitVector(const grid::LonLat& p) {
  constexpr double kRad = M_PI / 180;
  const double lat = p.lat * kRad, lon = p.lon * kRad;
  return {std::cos(lat) * std::cos(lon), std::cos(lat) * std::sin(lon), std::sin(lat)};
}

// Gnomonic projection onto the plane tangent at `centre`: great circles become straight lines,
// so a cell's edges stay straight and "inside" is decided as on a plane.
class TangentPlane {
 public:
  explicit TangentPlane(const grid::LonLat& centre) {
    constexpr double kRad = M_PI / 180;
    c_ = ToUnitVector(centre);
    const double lon = centre.lon * kRad, lat = centre.lat * kRad;
    east_ = {-std::sin(lon), std::cos(lon), 0};
    north_ = {-std::sin(lat) * std::cos(lon), -std::sin(lat) * std::sin(lon), std::cos(lat)};
  }
  // False for a point on the far hemisphere (no projection).
  bool Project(const grid::LonLat& p, double* u, double* v) const {
    const std::array<double, 3> q = ToUnitVector(p);
    const double d = Dot(q, c_);
    if (d <= 1e-9) return false;
    *u = Dot(q, east_) / d;
    *v = Dot(q, north_) / d;
    return true;
  }

 private:
  static double Dot(const std::array<double, 3>& a, const std::array<double, 3>& b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
  }
  std::array<double, 3> c_, east_, north_;
};

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_GEO_INTERNAL_HORIZONTAL_GRID_INTERNAL_H_
