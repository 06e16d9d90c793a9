// Copyright 2026 The GridStore Authors.
#include "gridstore/geo/internal/feature_geometry.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <string>

#include "gridstore/features.h"
#if GRIDSTORE_HAVE_GEO
#include "gridstore/geo/internal/geo_libraries.h"
#endif
#include "gridstore/geo/internal/horizontal_grid_internal.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_grid {
namespace {

using Vec = std::array<double, 3>;

Vec Cross(const Vec& a, const Vec& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double Dot(const Vec& a, const Vec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
double Norm(const Vec& a) { return std::sqrt(Dot(a, a)); }
double Angle(const Vec& a, const Vec& b) { return std::atan2(Norm(Cross(a, b)), Dot(a, b)); }

grid::LonLat ToLonLat(const Vec& v) {
  constexpr double kDeg = 180 / M_PI;
  const double n = Norm(v);
  return {std::atan2(v[1], v[0]) * kDeg, std::asin(std::clamp(v[2] / n, -1.0, 1.0)) * kDeg};
}

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string Shorten(std::string_view wkt) {
  return Quote(wkt.size() > 80 ? std::string(wkt.substr(0, 77)) + "..." : std::string(wkt));
}

}  // namespace

// ---- Polygons (GEOS) ----

#if GRIDSTORE_HAVE_GEO
struct LonLatPolygon::Geos {
  GEOSContextHandle_t handle = nullptr;
  GEOSGeometry* geometry = nullptr;
  const GEOSPreparedGeometry* prepared = nullptr;
  ~Geos() {
    if (prepared != nullptr) geos::GEOSPreparedGeom_destroy_r(handle, prepared);
    if (geometry != nullptr) geos::GEOSGeom_destroy_r(handle, geometry);
    if (handle != nullptr) geos::GEOS_finish_r(handle);
  }
};

LonLatPolygon::~LonLatPolygon() = default;

Result<std::unique_ptr<LonLatPolygon>> LonLatPolygon::FromWkt(std::string_view wkt) {
  GRIDSTORE_RETURN_IF_ERROR(LoadGeos());
  std::unique_ptr<LonLatPolygon> polygon(new LonLatPolygon());
  polygon->geos_ = std::make_unique<Geos>();
  Geos& g = *polygon->geos_;
  g.handle = geos::GEOS_init_r();
  const std::string text(wkt);
  g.geometry = geos::GEOSGeomFromWKT_r(g.handle, text.c_str());
  if (g.geometry == nullptr) {
    return Status::InvalidArgument("polygon " + Shorten(wkt) +
                                   " is not WKT (expected POLYGON((LON LAT, ...)))");
  }
  const int type = geos::GEOSGeomTypeId_r(g.handle, g.geometry);
  if (type != GEOS_POLYGON && type != GEOS_MULTIPOLYGON) {
    return Status::InvalidArgument("polygon " + Shorten(wkt) + " is not a POLYGON or MULTIPOLYGON");
  }
  if (geos::GEOSisEmpty_r(g.handle, g.geometry) == 1) {
    return Status::InvalidArgument("polygon " + Shorten(wkt) + " is empty");
  }
  if (geos::GEOSisValid_r(g.handle, g.geometry) != 1) {
    char* reason = geos::GEOSisValidReason_r(g.handle, g.geometry);
    std::string why = reason != nullptr ? reason : "invalid";
    if (reason != nullptr) geos::GEOSFree_r(g.handle, reason);
    return Status::InvalidArgument("polygon " + Shorten(wkt) + " is not a valid polygon: " + why);
  }
  geos::GEOSGeom_getXMin_r(g.handle, g.geometry, &polygon->bounds_[0]);
  geos::GEOSGeom_getYMin_r(g.handle, g.geometry, &polygon->bounds_[1]);
  geos::GEOSGeom_getXMax_r(g.handle, g.geometry, &polygon->bounds_[2]);
  geos::GEOSGeom_getYMax_r(g.handle, g.geometry, &polygon->bounds_[3]);
  g.prepared = geos::GEOSPrepare_r(g.handle, g.geometry);
  return polygon;
}

bool LonLatPolygon::Contains(const grid::LonLat& p) const {
  const double west = bounds_[0];
  const double lon = p.lon - 360 * std::floor((p.lon - west) / 360);
  GEOSGeometry* point = geos::GEOSGeom_createPointFromXY_r(geos_->handle, lon, p.lat);
  const bool inside = geos::GEOSPreparedIntersects_r(geos_->handle, geos_->prepared, point) == 1;
  geos::GEOSGeom_destroy_r(geos_->handle, point);
  return inside;
}

#else  // Built without GEOS: polygons are Unimplemented, saying how to enable them.

struct LonLatPolygon::Geos {};

LonLatPolygon::~LonLatPolygon() = default;

Result<std::unique_ptr<LonLatPolygon>> LonLatPolygon::FromWkt(std::string_view wkt) {
  return Status::Unimplemented("polygon " + Shorten(wkt) + " needs GEOS: " + kEnableGeo);
}

bool LonLatPolygon::Contains(const grid::LonLat&) const { return false; }

#endif  // GRIDSTORE_HAVE_GEO

// ---- Line strings ----

Result<std::vector<PathVertex>> ParseLineString(std::string_view wkt) {
  const std::string text = Upper(Trim(wkt));
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("trajectory " + Shorten(wkt) + ": " + why);
  };
  if (text.rfind("LINESTRING", 0) != 0) return bad("not a LINESTRING");
  size_t pos = 10;
  while (pos < text.size() && text[pos] == ' ') ++pos;
  std::string dims;
  while (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'M')) dims += text[pos++];
  if (dims != "" && dims != "Z" && dims != "M" && dims != "ZM") return bad("dimensions " + dims);
  const size_t open = text.find('(', pos), close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos || close < open ||
      Trim(std::string_view(text).substr(pos, open - pos)) != "" ||
      Trim(std::string_view(text).substr(close + 1)) != "") {
    return bad("expected LINESTRING[ Z| M| ZM](LON LAT[ Z][ M], ...)");
  }
  std::vector<PathVertex> path;
  for (const std::string& item : SplitList(text.substr(open + 1, close - open - 1), ',')) {
    std::vector<double> values;
    std::string_view s = Trim(item);
    for (size_t used = 0; !s.empty();) {
      const std::optional<double> v = ParseDecimal(s, &used);
      if (!v) {  // not a finite decimal number ("0x10", "inf", "nan")
        const std::string_view token = s.substr(0, s.find(' '));
        return bad("vertex " + Quote(Trim(item)) + ": " + Quote(token) +
                   " is not a finite number (decimal)");
      }
      values.push_back(*v);
      s = Trim(s.substr(used));
    }
    if (!s.empty() || values.size() < 2 || values.size() > 4) {
      return bad("vertex " + Quote(Trim(item)) + " is not LON LAT[ Z][ M]");
    }
    const size_t expected = 2 + dims.size();
    if (!dims.empty() && values.size() != expected) {
      return bad("vertex " + Quote(Trim(item)) + " has " + std::to_string(values.size()) +
                 " values; LINESTRING " + dims + " has " + std::to_string(expected));
    }
    for (double value : values) {
      if (!std::isfinite(value)) {
        return bad("vertex " + Quote(Trim(item)) + " holds a value that is not a finite number");
      }
    }
    PathVertex v;
    v.at = {values[0], values[1]};
    if (v.at.lat < -90 || v.at.lat > 90) return bad("latitude out of [-90, 90]");
    // As for points (HorizontalGrid::FindNearest): longitudes wrap, but ten turns and more is a
    // mistake, and unwrapping 1e52 degrees one turn at a time never ends (found by the fuzzer).
    if (std::fabs(v.at.lon) > 3600) {
      return bad("vertex " + Quote(Trim(item)) + ": the longitude is beyond ten turns");
    }
    const bool has_z = dims.find('Z') != std::string::npos || (dims.empty() && values.size() >= 3);
    const bool has_m = dims.find('M') != std::string::npos || (dims.empty() && values.size() == 4);
    if (has_z) v.z = values[2];
    if (has_m) v.m = values[has_z ? 3 : 2];
    path.push_back(v);
  }
  if (path.size() < 2) return bad("a trajectory needs at least two vertices");
  return path;
}

double DistanceToPathKm(const grid::LonLat& p, const std::vector<PathVertex>& path) {
  const Vec q = ToUnitVector(p);
  double best = M_PI;
  for (size_t i = 0; i < path.size(); ++i) {
    const Vec a = ToUnitVector(path[i].at);
    best = std::min(best, Angle(q, a));
    if (i + 1 == path.size()) break;
    const Vec b = ToUnitVector(path[i + 1].at);
    Vec n = Cross(a, b);
    const double len = Norm(n);
    if (len < 1e-15) continue;
    for (double& c : n) c /= len;
    // The foot of the perpendicular from q onto the great circle, if it lies between a and b.
    const double off = Dot(q, n);
    Vec foot = {q[0] - off * n[0], q[1] - off * n[1], q[2] - off * n[2]};
    if (Norm(foot) < 1e-15) continue;
    if (std::fabs(Angle(a, foot) + Angle(foot, b) - Angle(a, b)) < 1e-12) {
      best = std::min(best, std::fabs(std::asin(std::clamp(off, -1.0, 1.0))));
    }
  }
  return best * grid::kEarthRadiusKm;
}

std::vector<PathVertex> SamplePath(const std::vector<PathVertex>& path, double spacing_km) {
  std::vector<PathVertex> out;
  for (size_t i = 0; i + 1 < path.size(); ++i) {
    const Vec a = ToUnitVector(path[i].at), b = ToUnitVector(path[i + 1].at);
    const double theta = Angle(a, b);
    const int n = std::max(1, int(std::ceil(theta * grid::kEarthRadiusKm / spacing_km)));
    for (int k = 0; k < n; ++k) {
      const double t = double(k) / n;
      PathVertex v = path[i];
      if (k > 0) {
        const double wa = std::sin((1 - t) * theta) / std::sin(theta),
                     wb = std::sin(t * theta) / std::sin(theta);
        v.at = ToLonLat({wa * a[0] + wb * b[0], wa * a[1] + wb * b[1], wa * a[2] + wb * b[2]});
        if (v.z) v.z = *path[i].z + t * (*path[i + 1].z - *path[i].z);
        if (v.m) v.m = *path[i].m + t * (*path[i + 1].m - *path[i].m);
      }
      out.push_back(v);
    }
  }
  out.push_back(path.back());
  return out;
}

}  // namespace gridstore::internal_grid
