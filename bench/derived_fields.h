// Copyright 2026 The GridStore Authors.
//
// Benchmark fields derived deterministically from small real files in ../shared/data (whose
// README asks benchmarks to derive larger data from them and to say so). Shared by
// make_derived_netcdf (import benchmark) and fetch_bench_data (fetch benchmark), with the CF
// attributes of the coordinates of the files they write.
//
// Every field lives on one target grid: `lat` rows evenly from the first to the last latitude of
// tos_O1_2001-2002.nc (-79.5..89.5 degrees) and `lon` columns every 360/lon degrees from 0; with
// the defaults 570 x 2880 that is the reference's example grid (0.125 degrees in longitude).
//   - thetao (sea water potential temperature, K) from `tos` of tos_O1_2001-2002.nc (IPSL-CM4,
//     24 monthly fields, 170 x 180, land = _FillValue 1e20): bilinear in space over sea points
//     only (land stays fill), linear in time between months, and a thermocline in depth,
//     T(d) = 275.15 + (tos - 275.15) * exp(-d / 400 m) at depths 10 * (2^k - 1) m.
//   - ta, ua, va (air temperature K, eastward and northward wind m/s) from T, U, V of nc4uvt.nc
//     (one monthly field, 14 pressure levels 1000..10 hPa, 64 Gaussian latitudes x 128
//     longitudes): level k is source level k; bilinear in space (periodic in longitude); in time
//     the pattern drifts eastward by 15 degrees per step (so no two of 24 steps are equal), and
//     ta adds a seasonal cycle 6 K * (p / 1000 hPa) * sin(lat) * cos(2 pi (t - 6) / 12), peaking
//     in northern July for monthly steps starting in January.
// No randomness: the same arguments give the same values, bit for bit.
#ifndef GRIDSTORE_BENCH_DERIVED_FIELDS_H_
#define GRIDSTORE_BENCH_DERIVED_FIELDS_H_

#include <cstddef>
#include <string>
#include <vector>

namespace gridstore::bench {

inline constexpr float kTosFill = 1.0e20f;

// The whole 1-D variable `name` of an open netCDF file, as doubles.
std::vector<double> ReadCoordinate(int ncid, const char* name, size_t n);
// A text attribute, or "" if there is none.
std::string TextAttribute(int ncid, int varid, const char* name);
// Writes text attribute `name` of variable `varid` (NC_GLOBAL: of the file), or dies.
void PutText(int ncid, int varid, const char* name, const std::string& value);

// The ids of the coordinate variables of a derived file; -1 for one the file does not have.
struct CoordinateVariables {
  int time = -1, depth = -1, plev = -1, lat = -1, lon = -1;
};
// Puts the CF attributes of the coordinate variables, in the order time (units `time_units` and
// `calendar`, by default "days since 2001-1-1" and "360_day"), depth (m), plev (hPa), both
// positive down, lat, lon; skips those with id -1.
void PutCoordinateAttributes(int ncid, const CoordinateVariables& v, const std::string& time_units,
                             const std::string& calendar);

// Where a target coordinate falls between two source nodes: indices of the lower and upper node,
// the weight of the upper one, and the nearest node.
struct Bracket {
  size_t lo = 0, hi = 0;
  double w = 0;
  size_t nearest = 0;
};
// Along latitude: clamped at both ends. `nodes` ascending.
Bracket BracketClamped(const std::vector<double>& nodes, double v);
// Along longitude: periodic over 360 degrees. `nodes` ascending within one turn; `v` any
// longitude (brought into [nodes.front(), nodes.front() + 360) first).
Bracket BracketPeriodic(const std::vector<double>& nodes, double v);

// `tos` of tos_O1_2001-2002.nc, read whole: tos[time][lat][lon], with its coordinates.
struct TosSource {
  std::string path;
  size_t nt = 0, ny = 0, nx = 0;  // time, lat, lon
  std::vector<double> time, lat, lon;
  std::vector<float> tos;
  std::string time_units, calendar;
};
TosSource ReadTosSource(const std::string& path);

// The target grid (see the top of this file).
struct TargetGrid {
  std::vector<double> lat, lon;
  size_t points() const { return lat.size() * lon.size(); }
};
TargetGrid MakeTargetGrid(const TosSource& tos, size_t lat, size_t lon);

// thetao(time, depth, lat, lon) from tos.
class ThetaoDeriver {
 public:
  ThetaoDeriver(const TosSource& source, const TargetGrid& grid, size_t times);

  // The time coordinate: target time i interpolated between the source months around it (with
  // as many times as months, exactly the source's times).
  const std::vector<double>& time() const { return time_; }
  // Depth of level k in metres: 10 * (2^k - 1).
  static double Depth(size_t k);

  // Writes the lat x lon plane at target time t and `depth` metres into out (land = kTosFill).
  // Cheapest when called with t in ascending order (interpolated months are kept).
  void Plane(size_t t, double depth, float* out);

 private:
  void PrepareSurface(size_t t);

  const TosSource& source_;
  const TargetGrid& grid_;
  std::vector<Bracket> by_, bx_;
  std::vector<double> position_;  // fractional source month of each target time
  std::vector<double> time_;
  std::vector<double> month_a_, month_b_, surface_;
  size_t have_a_ = static_cast<size_t>(-1), have_b_ = static_cast<size_t>(-1);
  size_t surface_time_ = static_cast<size_t>(-1);
};

// T, U, V of nc4uvt.nc, read whole: [lev][lat][lon] each, with coordinates.
struct UvtSource {
  std::string path;
  size_t nlev = 0, ny = 0, nx = 0;
  std::vector<double> lev, lat, lon;  // lev in hPa
  std::vector<float> t, u, v;
};
UvtSource ReadUvtSource(const std::string& path);

enum class AtmosphereVariable { kTemperature, kEastwardWind, kNorthwardWind };

// ta, ua, va(time, plev, lat, lon) from nc4uvt.nc.
class AtmosphereDeriver {
 public:
  static constexpr double kDriftDegreesPerStep = 15.0;
  static constexpr double kSeasonalAmplitude = 6.0;  // K at 1000 hPa, at the poles

  AtmosphereDeriver(const UvtSource& source, const TargetGrid& grid);
  // Writes the lat x lon plane of `variable` at target time t and source level k into out.
  // REQUIRES: k < source.nlev.
  void Plane(AtmosphereVariable variable, size_t t, size_t k, float* out) const;

 private:
  const UvtSource& source_;
  const TargetGrid& grid_;
  std::vector<Bracket> by_;
};

}  // namespace gridstore::bench

#endif  // GRIDSTORE_BENCH_DERIVED_FIELDS_H_
