// Copyright 2026 The GridStore Authors.
//
// HorizontalGrid lookups: nearest cells on rectilinear grids, bilinear weights on both kinds,
// and the cells inside a lon/lat box.
#include <algorithm>
#include <cmath>

#include "gridstore/geo/coordinates.h"
#include "gridstore/geo/internal/horizontal_grid_internal.h"
#include "gridstore/geo/internal/monotonic_axis.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::grid {

using internal_grid::MonotonicAxis;
using internal_grid::TangentPlane;

namespace {

int64_t Wrap(int64_t i, int64_t n) { return ((i % n) + n) % n; }

std::string Range(const MonotonicAxis& axis) {
  return FormatDouble(axis.lower_edge()) + " .. " + FormatDouble(axis.upper_edge());
}

// Inverse bilinear map of (u, v) in the quadrilateral p0 p1 p2 p3 (counter-clockwise or not):
// (s, t) with p = (1-s)(1-t) p0 + s(1-t) p1 + s t p2 + (1-s) t p3, by Newton's method.
bool InverseBilinear(const std::array<std::array<double, 2>, 4>& p, double u, double v, double* s,
                     double* t) {
  double ss = 0.5, tt = 0.5;
  for (int iter = 0; iter < 30; ++iter) {
    double f[2], ds[2], dt[2];
    for (int k = 0; k < 2; ++k) {
      f[k] = (1 - ss) * (1 - tt) * p[0][k] + ss * (1 - tt) * p[1][k] + ss * tt * p[2][k] +
             (1 - ss) * tt * p[3][k] - (k == 0 ? u : v);
      ds[k] = (1 - tt) * (p[1][k] - p[0][k]) + tt * (p[2][k] - p[3][k]);
      dt[k] = (1 - ss) * (p[3][k] - p[0][k]) + ss * (p[2][k] - p[1][k]);
    }
    const double det = ds[0] * dt[1] - ds[1] * dt[0];
    if (std::fabs(det) < 1e-300) return false;
    const double step_s = (f[0] * dt[1] - f[1] * dt[0]) / det;
    const double step_t = (ds[0] * f[1] - ds[1] * f[0]) / det;
    ss -= step_s;
    tt -= step_t;
    if (std::fabs(step_s) < 1e-13 && std::fabs(step_t) < 1e-13) break;
  }
  *s = ss;
  *t = tt;
  return std::isfinite(ss) && std::isfinite(tt);
}

}  // namespace

Status HorizontalGrid::BuildAxes() {
  lat_axis_ = std::make_unique<MonotonicAxis>(lat1_, false);
  lon_axis_ = std::make_unique<MonotonicAxis>(lon1_, true);
  if (!lat_axis_->monotonic() || !lon_axis_->monotonic()) {
    return Status::InvalidArgument("variable " + Quote(variable_) + ": its " +
                                   (lat_axis_->monotonic() ? "longitudes" : "latitudes") +
                                   " are not strictly monotonic, so points cannot be located");
  }
  return Status::OK();
}

Result<HorizontalGrid::Nearest> HorizontalGrid::NearestRectilinear(const LonLat& p) const {
  const std::optional<double> fy = lat_axis_->Position(p.lat);
  if (!fy) {
    return OutsideError(p, "its latitudes span " + Range(*lat_axis_) + " (to the cell edges)");
  }
  const std::optional<double> fx = lon_axis_->Position(p.lon);
  if (!fx) {
    return OutsideError(p, "its longitudes span " + Range(*lon_axis_) + " (to the cell edges)");
  }
  const int64_t nlat = lat_axis_->size(), nlon = lon_axis_->size();
  // The nearest column is the one nearest in longitude, for every row.
  const int64_t ilon = Wrap(std::llround(*fx), nlon);
  const LonLat column{lon1_[size_t(ilon)], p.lat};
  // On that column's meridian the nearest point is at latitude atan(tan(lat) / cos(dlon)),
  // poleward of p's: try the rows around both.
  constexpr double kRad = M_PI / 180;
  const double dlon = (p.lon - column.lon) * kRad;
  std::vector<double> around = {*fy};
  if (std::cos(dlon) > 1e-12) {
    const double lat_star = std::atan(std::tan(p.lat * kRad) / std::cos(dlon)) / kRad;
    if (auto f = lat_axis_->Position(std::clamp(lat_star, lat_axis_->min(), lat_axis_->max()))) {
      around.push_back(*f);
    }
  }
  Nearest best{{0, 0}, std::numeric_limits<double>::infinity()};
  for (double f : around) {
    for (int64_t i = int64_t(std::floor(f)) - 1; i <= int64_t(std::floor(f)) + 2; ++i) {
      if (i < 0 || i >= nlat) continue;
      const double d = GreatCircleKm(p, LonLat{column.lon, lat1_[size_t(i)]});
      if (d < best.distance_km) {
        best.distance_km = d;
        best.cell = x_is_lat_ ? Cell{i, ilon} : Cell{ilon, i};
      }
    }
  }
  return best;
}

Result<HorizontalGrid::Weights> HorizontalGrid::Bilinear(const LonLat& p) const {
  if (!std::isfinite(p.lon) || !std::isfinite(p.lat) || p.lat < -90 || p.lat > 90 ||
      std::fabs(p.lon) > 3600) {
    return FindNearest(p).status();  // the same error
  }
  if (type_ == GridType::kRectilinear) return BilinearRectilinear(p);
  if (type_ == GridType::kUnstructured) {
    return Status::InvalidArgument(
        "variable " + Quote(variable_) + " lies on an unstructured grid (" + description_ +
        "): its cells have no rows and columns to interpolate between; use method nearest");
  }
  return BilinearCurvilinear(p);
}

Result<HorizontalGrid::Weights> HorizontalGrid::BilinearRectilinear(const LonLat& p) const {
  GRIDSTORE_RETURN_IF_ERROR(NearestRectilinear(p).status());  // inside the grid
  const double fy = *lat_axis_->Position(p.lat), fx = *lon_axis_->Position(p.lon);
  const int64_t nlat = lat_axis_->size(), nlon = lon_axis_->size();
  const int64_t i0 = std::min<int64_t>(int64_t(std::floor(fy)), nlat - 1);
  const int64_t j0 = int64_t(std::floor(fx));
  const double ty = fy - double(i0), tx = fx - double(j0);
  Weights w;
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 2; ++b) {
      const double weight = (a ? ty : 1 - ty) * (b ? tx : 1 - tx);
      if (weight == 0) continue;
      const int64_t i = std::min(i0 + a, nlat - 1), j = Wrap(j0 + b, nlon);
      w.cells[size_t(w.count)] = x_is_lat_ ? Cell{i, j} : Cell{j, i};
      w.weights[size_t(w.count)] = weight;
      ++w.count;
    }
  }
  return w;
}

Result<HorizontalGrid::Weights> HorizontalGrid::BilinearCurvilinear(const LonLat& p) const {
  GRIDSTORE_ASSIGN_OR_RETURN(const Nearest nearest, NearestCurvilinear(p, 0));
  const TangentPlane plane(p);
  // The four cell quadrilaterals that share the nearest centre as a corner.
  for (int64_t x0 = nearest.cell.x - 1; x0 <= nearest.cell.x; ++x0) {
    for (int64_t y0 = nearest.cell.y - 1; y0 <= nearest.cell.y; ++y0) {
      if (x0 < 0 || y0 < 0 || x0 + 1 >= nx_ || y0 + 1 >= ny_) continue;
      const std::array<Cell, 4> corners = {Cell{x0, y0}, Cell{x0 + 1, y0}, Cell{x0 + 1, y0 + 1},
                                           Cell{x0, y0 + 1}};
      std::array<std::array<double, 2>, 4> uv;
      bool ok = true;
      for (size_t k = 0; k < 4; ++k) ok &= plane.Project(At(corners[k]), &uv[k][0], &uv[k][1]);
      double s = 0, t = 0;
      if (!ok || !InverseBilinear(uv, 0, 0, &s, &t)) continue;
      constexpr double kEps = 1e-9;
      if (s < -kEps || s > 1 + kEps || t < -kEps || t > 1 + kEps) continue;
      s = std::clamp(s, 0.0, 1.0);
      t = std::clamp(t, 0.0, 1.0);
      Weights w;
      w.cells = corners;
      w.weights = {(1 - s) * (1 - t), s * (1 - t), s * t, (1 - s) * t};
      w.count = 4;
      return w;
    }
  }
  // Inside the tolerance but in no cell: beyond the outer centres, near the edge.
  Weights w;
  w.cells[0] = nearest.cell;
  w.weights[0] = 1;
  w.count = 1;
  return w;
}

bool HorizontalGrid::longitude_wraps() const {
  if (type_ != GridType::kRectilinear || lon1_.size() < 2) return false;
  const double n = double(lon1_.size());
  const double step = (lon1_.back() - lon1_.front()) / (n - 1);
  for (size_t j = 1; j < lon1_.size(); ++j) {
    if (std::fabs(lon1_[j] - lon1_[j - 1] - step) > 1e-3 * std::fabs(step)) return false;
  }
  return std::fabs(std::fabs(step) * n - 360) < 1e-3 * std::fabs(step);
}

std::vector<Cell> HorizontalGrid::CellsInBox(double west, double south, double east,
                                             double north) const {
  std::vector<Cell> cells;
  // Longitude `lon` inside [west, east], going east from west (so east < west crosses 180).
  const double span = east >= west ? east - west : east - west + 360;
  auto lon_inside = [&](double lon) {
    const double d = lon - west - 360 * std::floor((lon - west) / 360);
    return d <= span + 1e-12 || span >= 360;
  };
  if (type_ == GridType::kRectilinear) {
    // Rows and columns apart: O(rows + columns + cells inside), not O(all cells).
    std::vector<int64_t> rows, columns;
    for (size_t i = 0; i < lat1_.size(); ++i) {
      if (lat1_[i] >= south && lat1_[i] <= north) rows.push_back(int64_t(i));
    }
    for (size_t j = 0; j < lon1_.size(); ++j) {
      if (lon_inside(lon1_[j])) columns.push_back(int64_t(j));
    }
    const std::vector<int64_t>& xs = x_is_lat_ ? rows : columns;
    const std::vector<int64_t>& ys = x_is_lat_ ? columns : rows;
    for (int64_t x : xs) {
      for (int64_t y : ys) cells.push_back(Cell{x, y});
    }
    return cells;
  }
  for (int64_t x = 0; x < nx_; ++x) {
    for (int64_t y = 0; y < ny_; ++y) {
      const LonLat c = At(Cell{x, y});
      if (c.lat >= south && c.lat <= north && lon_inside(c.lon)) cells.push_back(Cell{x, y});
    }
  }
  return cells;
}

std::array<int64_t, 4> HorizontalGrid::BoundsOf(const std::vector<Cell>& cells) {
  int64_t x0 = cells[0].x, x1 = cells[0].x, y0 = cells[0].y, y1 = cells[0].y;
  for (const Cell& c : cells) {
    x0 = std::min(x0, c.x);
    x1 = std::max(x1, c.x);
    y0 = std::min(y0, c.y);
    y1 = std::max(y1, c.y);
  }
  return {x0, y0, x1 - x0 + 1, y1 - y0 + 1};
}

}  // namespace gridstore::grid
