// Copyright 2026 The GridStore Authors.
#include "bench/derived_fields.h"

#include <netcdf.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <tuple>

#include "bench/bench_common.h"

namespace gridstore::bench {
namespace {

constexpr double kDeepTemperature = 275.15;  // K
constexpr double kThermoclineScale = 400.0;  // m
constexpr float kUvtFill = -999.0f;          // _FillValue of T, U, V in nc4uvt.nc

bool IsTosFill(float v) { return !(std::fabs(v) < 1.0e19f); }

size_t DimensionLength(int ncid, const char* name, const std::string& path) {
  int dim;
  size_t n = 0;
  CheckNc(nc_inq_dimid(ncid, name, &dim), "dimension '" + std::string(name) + "' of " + path);
  CheckNc(nc_inq_dimlen(ncid, dim, &n), "dimension '" + std::string(name) + "' of " + path);
  return n;
}

std::vector<float> ReadFloats(int ncid, const char* name, size_t n, const std::string& path) {
  int id;
  CheckNc(nc_inq_varid(ncid, name, &id), "variable '" + std::string(name) + "' in " + path);
  std::vector<float> v(n);
  CheckNc(nc_get_var_float(ncid, id, v.data()), "reading '" + std::string(name) + "'");
  return v;
}

// Bilinear interpolation of one source month onto the target grid; land (by nearest source cell)
// is kTosFill, sea points weigh only their sea neighbours, so coasts do not smear the 1e20 fill
// into the sea.
void RegridTos(const TosSource& s, size_t month, const std::vector<Bracket>& by,
               const std::vector<Bracket>& bx, std::vector<double>* out) {
  const float* f = s.tos.data() + month * s.ny * s.nx;
  out->resize(by.size() * bx.size());
  for (size_t i = 0; i < by.size(); ++i) {
    const Bracket& y = by[i];
    for (size_t j = 0; j < bx.size(); ++j) {
      const Bracket& x = bx[j];
      double& dst = (*out)[i * bx.size() + j];
      if (IsTosFill(f[y.nearest * s.nx + x.nearest])) {
        dst = kTosFill;
        continue;
      }
      const size_t rows[2] = {y.lo, y.hi};
      const size_t cols[2] = {x.lo, x.hi};
      const double wy[2] = {1 - y.w, y.w};
      const double wx[2] = {1 - x.w, x.w};
      double sum = 0, weight = 0;
      for (int a = 0; a < 2; ++a) {
        for (int c = 0; c < 2; ++c) {
          const float v = f[rows[a] * s.nx + cols[c]];
          const double w = wy[a] * wx[c];
          if (!IsTosFill(v) && w > 0) {
            sum += w * v;
            weight += w;
          }
        }
      }
      dst = weight > 0 ? sum / weight : static_cast<double>(f[y.nearest * s.nx + x.nearest]);
    }
  }
}

}  // namespace

std::vector<double> ReadCoordinate(int ncid, const char* name, size_t n) {
  int id;
  CheckNc(nc_inq_varid(ncid, name, &id), std::string("variable '") + name + "'");
  std::vector<double> v(n);
  CheckNc(nc_get_var_double(ncid, id, v.data()), std::string("reading '") + name + "'");
  return v;
}

std::string TextAttribute(int ncid, int varid, const char* name) {
  size_t len = 0;
  if (nc_inq_attlen(ncid, varid, name, &len) != NC_NOERR) return "";
  std::string s(len, '\0');
  if (nc_get_att_text(ncid, varid, name, s.data()) != NC_NOERR) return "";
  return s;
}

void PutText(int ncid, int varid, const char* name, const std::string& value) {
  CheckNc(nc_put_att_text(ncid, varid, name, value.size(), value.c_str()),
          std::string("attribute '") + name + "'");
}

void PutCoordinateAttributes(int ncid, const CoordinateVariables& v, const std::string& time_units,
                             const std::string& calendar) {
  if (v.time >= 0) {
    PutText(ncid, v.time, "standard_name", "time");
    PutText(ncid, v.time, "units", time_units.empty() ? "days since 2001-1-1" : time_units);
    PutText(ncid, v.time, "calendar", calendar.empty() ? "360_day" : calendar);
    PutText(ncid, v.time, "axis", "T");
  }
  for (const auto& [id, standard_name, units] :
       {std::tuple{v.depth, "depth", "m"}, std::tuple{v.plev, "air_pressure", "hPa"}}) {
    if (id < 0) continue;
    PutText(ncid, id, "standard_name", standard_name);
    PutText(ncid, id, "units", units);
    PutText(ncid, id, "positive", "down");
    PutText(ncid, id, "axis", "Z");
  }
  if (v.lat >= 0) {
    PutText(ncid, v.lat, "standard_name", "latitude");
    PutText(ncid, v.lat, "units", "degrees_north");
    PutText(ncid, v.lat, "axis", "Y");
  }
  if (v.lon >= 0) {
    PutText(ncid, v.lon, "standard_name", "longitude");
    PutText(ncid, v.lon, "units", "degrees_east");
    PutText(ncid, v.lon, "axis", "X");
  }
}

Bracket BracketClamped(const std::vector<double>& nodes, double v) {
  Bracket b;
  const size_t n = nodes.size();
  if (v <= nodes.front()) return {0, 0, 0, 0};
  if (v >= nodes.back()) return {n - 1, n - 1, 0, n - 1};
  const size_t hi =
      static_cast<size_t>(std::upper_bound(nodes.begin(), nodes.end(), v) - nodes.begin());
  b.lo = hi - 1;
  b.hi = hi;
  b.w = (v - nodes[b.lo]) / (nodes[b.hi] - nodes[b.lo]);
  b.nearest = b.w < 0.5 ? b.lo : b.hi;
  return b;
}

Bracket BracketPeriodic(const std::vector<double>& nodes, double v) {
  const size_t n = nodes.size();
  const double front = nodes.front();
  while (v < front) v += 360.0;
  while (v >= front + 360.0) v -= 360.0;
  Bracket b;
  if (v >= nodes.back()) {
    // Between the last node and the first one, across the seam.
    const double span = front + 360.0 - nodes.back();
    b.lo = n - 1;
    b.hi = 0;
    b.w = (v - nodes.back()) / span;
  } else {
    const size_t hi =
        static_cast<size_t>(std::upper_bound(nodes.begin(), nodes.end(), v) - nodes.begin());
    b.lo = hi - 1;
    b.hi = hi;
    b.w = (v - nodes[b.lo]) / (nodes[b.hi] - nodes[b.lo]);
  }
  b.nearest = b.w < 0.5 ? b.lo : b.hi;
  return b;
}

TosSource ReadTosSource(const std::string& path) {
  int ncid;
  CheckNc(nc_open(path.c_str(), NC_NOWRITE, &ncid), "opening '" + path + "'");
  TosSource s;
  s.path = path;
  s.nt = DimensionLength(ncid, "time", path);
  s.ny = DimensionLength(ncid, "lat", path);
  s.nx = DimensionLength(ncid, "lon", path);
  s.time = ReadCoordinate(ncid, "time", s.nt);
  s.lat = ReadCoordinate(ncid, "lat", s.ny);
  s.lon = ReadCoordinate(ncid, "lon", s.nx);
  int tid;
  CheckNc(nc_inq_varid(ncid, "time", &tid), "variable 'time'");
  s.time_units = TextAttribute(ncid, tid, "units");
  s.calendar = TextAttribute(ncid, tid, "calendar");
  s.tos = ReadFloats(ncid, "tos", s.nt * s.ny * s.nx, path);
  nc_close(ncid);
  if (s.ny < 2 || s.nx < 2 || s.nt < 1) Die("'" + path + "' has too small a 'tos' to interpolate");
  return s;
}

TargetGrid MakeTargetGrid(const TosSource& s, size_t lat, size_t lon) {
  TargetGrid g;
  g.lat.resize(lat);
  g.lon.resize(lon);
  for (size_t i = 0; i < lat; ++i) {
    g.lat[i] = lat == 1 ? s.lat.front()
                        : s.lat.front() + (s.lat.back() - s.lat.front()) * static_cast<double>(i) /
                                              static_cast<double>(lat - 1);
  }
  for (size_t j = 0; j < lon; ++j) {
    g.lon[j] = 360.0 * static_cast<double>(j) / static_cast<double>(lon);
  }
  return g;
}

ThetaoDeriver::ThetaoDeriver(const TosSource& source, const TargetGrid& grid, size_t times)
    : source_(source), grid_(grid), position_(times), time_(times) {
  const TosSource& s = source_;
  for (size_t i = 0; i < times; ++i) {
    position_[i] = times == 1 ? 0.0
                              : static_cast<double>(s.nt - 1) * static_cast<double>(i) /
                                    static_cast<double>(times - 1);
    const size_t lo = std::min(static_cast<size_t>(position_[i]), s.nt - 1);
    const size_t hi = std::min(lo + 1, s.nt - 1);
    const double w = position_[i] - static_cast<double>(lo);
    time_[i] = s.time[lo] * (1 - w) + s.time[hi] * w;
  }
  by_.resize(grid.lat.size());
  bx_.resize(grid.lon.size());
  for (size_t i = 0; i < grid.lat.size(); ++i) by_[i] = BracketClamped(s.lat, grid.lat[i]);
  for (size_t j = 0; j < grid.lon.size(); ++j) bx_[j] = BracketPeriodic(s.lon, grid.lon[j]);
}

double ThetaoDeriver::Depth(size_t k) { return 10.0 * (std::pow(2.0, static_cast<double>(k)) - 1); }

// Interpolates the two months around time t horizontally (keeping both for the next time) and
// blends them linearly in time into surface_.
void ThetaoDeriver::PrepareSurface(size_t t) {
  const TosSource& s = source_;
  const size_t lo = std::min(static_cast<size_t>(position_[t]), s.nt - 1);
  const size_t hi = std::min(lo + 1, s.nt - 1);
  const double w = position_[t] - static_cast<double>(lo);
  if (have_a_ != lo) {
    if (have_b_ == lo) {
      std::swap(month_a_, month_b_);
      std::swap(have_a_, have_b_);
    } else {
      RegridTos(s, lo, by_, bx_, &month_a_);
      have_a_ = lo;
    }
  }
  if (w > 0 && have_b_ != hi) {
    RegridTos(s, hi, by_, bx_, &month_b_);
    have_b_ = hi;
  }
  const size_t plane = grid_.points();
  surface_.resize(plane);
  for (size_t p = 0; p < plane; ++p) {
    const double a = month_a_[p];
    surface_[p] = (w > 0 && a < 1.0e19) ? a * (1 - w) + month_b_[p] * w : a;
  }
  surface_time_ = t;
}

void ThetaoDeriver::Plane(size_t t, double depth, float* out) {
  if (surface_time_ != t) PrepareSurface(t);
  const double decay = std::exp(-depth / kThermoclineScale);
  const size_t plane = grid_.points();
  for (size_t p = 0; p < plane; ++p) {
    const double v = surface_[p];
    out[p] = v >= 1.0e19 ? kTosFill
                         : static_cast<float>(kDeepTemperature + (v - kDeepTemperature) * decay);
  }
}

UvtSource ReadUvtSource(const std::string& path) {
  int ncid;
  CheckNc(nc_open(path.c_str(), NC_NOWRITE, &ncid), "opening '" + path + "'");
  UvtSource s;
  s.path = path;
  const size_t nt = DimensionLength(ncid, "time", path);
  s.nlev = DimensionLength(ncid, "lev", path);
  s.ny = DimensionLength(ncid, "lat", path);
  s.nx = DimensionLength(ncid, "lon", path);
  if (nt < 1 || s.ny < 2 || s.nx < 2) Die("'" + path + "' has too small a grid to interpolate");
  s.lev = ReadCoordinate(ncid, "lev", s.nlev);
  s.lat = ReadCoordinate(ncid, "lat", s.ny);
  s.lon = ReadCoordinate(ncid, "lon", s.nx);
  // Only the first time (the file has one).
  const size_t n = s.nlev * s.ny * s.nx;
  for (auto [name, dst] : {std::pair{"T", &s.t}, std::pair{"U", &s.u}, std::pair{"V", &s.v}}) {
    *dst = ReadFloats(ncid, name, nt * n, path);
    dst->resize(n);
    if (std::count(dst->begin(), dst->end(), kUvtFill) != 0) {
      Die(std::string("'") + name + "' of '" + path + "' has fill values; not expected");
    }
  }
  nc_close(ncid);
  return s;
}

AtmosphereDeriver::AtmosphereDeriver(const UvtSource& source, const TargetGrid& grid)
    : source_(source), grid_(grid), by_(grid.lat.size()) {
  for (size_t i = 0; i < grid.lat.size(); ++i) by_[i] = BracketClamped(source.lat, grid.lat[i]);
}

void AtmosphereDeriver::Plane(AtmosphereVariable variable, size_t t, size_t k, float* out) const {
  const UvtSource& s = source_;
  const std::vector<float>& field = variable == AtmosphereVariable::kTemperature    ? s.t
                                    : variable == AtmosphereVariable::kEastwardWind ? s.u
                                                                                    : s.v;
  const float* f = field.data() + k * s.ny * s.nx;
  // The pattern drifts eastward: the value at longitude L comes from L - shift.
  const double shift = kDriftDegreesPerStep * static_cast<double>(t);
  std::vector<Bracket> bx(grid_.lon.size());
  for (size_t j = 0; j < bx.size(); ++j) bx[j] = BracketPeriodic(s.lon, grid_.lon[j] - shift);
  const bool seasonal = variable == AtmosphereVariable::kTemperature;
  const double season = kSeasonalAmplitude * (s.lev[k] / 1000.0) *
                        std::cos(2 * std::numbers::pi * (static_cast<double>(t) - 6.0) / 12.0);
  for (size_t i = 0; i < by_.size(); ++i) {
    const Bracket& y = by_[i];
    const float* row_lo = f + y.lo * s.nx;
    const float* row_hi = f + y.hi * s.nx;
    const double add = seasonal ? season * std::sin(grid_.lat[i] * std::numbers::pi / 180.0) : 0.0;
    float* dst = out + i * bx.size();
    for (size_t j = 0; j < bx.size(); ++j) {
      const Bracket& x = bx[j];
      const double lo = row_lo[x.lo] * (1 - x.w) + row_lo[x.hi] * x.w;
      const double hi = row_hi[x.lo] * (1 - x.w) + row_hi[x.hi] * x.w;
      dst[j] = static_cast<float>(lo * (1 - y.w) + hi * y.w + add);
    }
  }
}

}  // namespace gridstore::bench
