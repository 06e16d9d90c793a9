// Copyright 2026 The GridStore Authors.
//
// make_derived_netcdf: writes a large netCDF-4 file, uncompressed and contiguous (so that reading
// it is cheap for every tool that imports or rewrites it), derived deterministically from a real
// field: `tos` (sea surface temperature, IPSL-CM4, 24 months x 170 x 180, land = _FillValue 1e20)
// of tos_O1_2001-2002.nc in ../shared/data.
//
// Derivation (no randomness; the same arguments give the same bytes of data):
//   - horizontal: bilinear interpolation of the sea points onto a finer regular lat/lon grid
//     (default 570 x 2880, lat -79.5..89.5, lon 0..359.875 every 0.125 degrees, periodic in lon).
//     Land is decided by the nearest source cell and stays _FillValue; sea points weigh only the
//     sea neighbours of the four around them, so coasts do not smear the 1e20 fill into the sea.
//   - time: linear interpolation between the 24 monthly fields (with the default 24 times, these
//     are exactly the source months).
//   - depth: a smooth thermocline, T(d) = Tdeep + (Tsurface - Tdeep) * exp(-d / 400 m), with
//     Tdeep = 275.15 K and depths 0, 10, 30, 70, 150, 310, 630, 1270 m (10 * (2^k - 1)).
// The result is float sea_water_temperature(time, depth, lat, lon) with CF attributes and
// coordinate variables. Default: 24 x 8 x 570 x 2880 float32 = 1.26 GB.
//
// Usage: make_derived_netcdf OUT.nc [--source FILE] [--times N] [--levels N] [--lat N] [--lon N]
// (--source defaults to $GRIDSTORE_TEST_DATA/tos_O1_2001-2002.nc, else ../shared/data/...).
#include <netcdf.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr float kFill = 1.0e20f;
constexpr double kDeepTemperature = 275.15;  // K
constexpr double kThermoclineScale = 400.0;  // m

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "make_derived_netcdf: %s\n", message.c_str());
  std::exit(1);
}

void Check(int rc, const std::string& what) {
  if (rc != NC_NOERR) Die(what + ": " + nc_strerror(rc));
}

struct Options {
  std::string out;
  std::string source;
  size_t times = 24;
  size_t levels = 8;
  size_t lat = 570;
  size_t lon = 2880;
};

size_t ParseCount(const char* flag, const char* text) {
  char* end = nullptr;
  const long long v = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0' || v < 1 || v > 1000000) {
    Die(std::string(flag) + " wants a positive count, not '" + text + "'");
  }
  return static_cast<size_t>(v);
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  // As the tests find ../shared/data: $GRIDSTORE_TEST_DATA, else relative to the project root.
  const char* data = std::getenv("GRIDSTORE_TEST_DATA");
  o.source = std::string(data ? data : "../shared/data") + "/tos_O1_2001-2002.nc";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) Die(a + " wants a value");
      return argv[++i];
    };
    if (a == "--source") {
      o.source = value();
    } else if (a == "--times") {
      o.times = ParseCount("--times", value());
    } else if (a == "--levels") {
      o.levels = ParseCount("--levels", value());
    } else if (a == "--lat") {
      o.lat = ParseCount("--lat", value());
    } else if (a == "--lon") {
      o.lon = ParseCount("--lon", value());
    } else if (a == "-h" || a == "--help") {
      std::printf(
          "usage: make_derived_netcdf OUT.nc [--source tos_O1_2001-2002.nc] [--times 24] "
          "[--levels 8] [--lat 570] [--lon 2880]\n");
      std::exit(0);
    } else if (!a.empty() && a[0] == '-') {
      Die("unknown option " + a);
    } else if (o.out.empty()) {
      o.out = a;
    } else {
      Die("more than one output path");
    }
  }
  if (o.out.empty()) Die("no output path (usage: make_derived_netcdf OUT.nc [options])");
  return o;
}

// The source field, read whole: tos[time][lat][lon], with its coordinates.
struct Source {
  size_t nt = 0, ny = 0, nx = 0;  // time, lat, lon
  std::vector<double> time, lat, lon;
  std::vector<float> tos;
  std::string time_units, calendar;
};

std::vector<double> ReadCoordinate(int ncid, const char* name, size_t n) {
  int id;
  Check(nc_inq_varid(ncid, name, &id), std::string("variable '") + name + "'");
  std::vector<double> v(n);
  Check(nc_get_var_double(ncid, id, v.data()), std::string("reading '") + name + "'");
  return v;
}

std::string TextAttribute(int ncid, int varid, const char* name) {
  size_t len = 0;
  if (nc_inq_attlen(ncid, varid, name, &len) != NC_NOERR) return "";
  std::string s(len, '\0');
  if (nc_get_att_text(ncid, varid, name, s.data()) != NC_NOERR) return "";
  return s;
}

Source ReadSource(const std::string& path) {
  int ncid;
  Check(nc_open(path.c_str(), NC_NOWRITE, &ncid), "opening '" + path + "'");
  Source s;
  int dim;
  Check(nc_inq_dimid(ncid, "time", &dim), "dimension 'time'");
  Check(nc_inq_dimlen(ncid, dim, &s.nt), "dimension 'time'");
  Check(nc_inq_dimid(ncid, "lat", &dim), "dimension 'lat'");
  Check(nc_inq_dimlen(ncid, dim, &s.ny), "dimension 'lat'");
  Check(nc_inq_dimid(ncid, "lon", &dim), "dimension 'lon'");
  Check(nc_inq_dimlen(ncid, dim, &s.nx), "dimension 'lon'");
  s.time = ReadCoordinate(ncid, "time", s.nt);
  s.lat = ReadCoordinate(ncid, "lat", s.ny);
  s.lon = ReadCoordinate(ncid, "lon", s.nx);
  int tid;
  Check(nc_inq_varid(ncid, "time", &tid), "variable 'time'");
  s.time_units = TextAttribute(ncid, tid, "units");
  s.calendar = TextAttribute(ncid, tid, "calendar");
  int vid;
  Check(nc_inq_varid(ncid, "tos", &vid), "variable 'tos' in '" + path + "'");
  s.tos.resize(s.nt * s.ny * s.nx);
  Check(nc_get_var_float(ncid, vid, s.tos.data()), "reading 'tos'");
  nc_close(ncid);
  if (s.ny < 2 || s.nx < 2 || s.nt < 1) Die("'" + path + "' has too small a 'tos' to interpolate");
  return s;
}

bool IsFill(float v) { return !(std::fabs(v) < 1.0e19f); }

// Where a target coordinate falls between two source nodes: index of the lower node and weight
// of the upper one.
struct Bracket {
  size_t lo = 0, hi = 0;
  double w = 0;
  size_t nearest = 0;
};

// Along latitude: clamped at both ends.
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

// Along longitude: periodic over 360 degrees (source nodes ascending, within one turn).
Bracket BracketPeriodic(const std::vector<double>& nodes, double v) {
  const size_t n = nodes.size();
  Bracket b;
  if (v < nodes.front() || v >= nodes.back()) {
    // Between the last node and the first one, across the seam.
    const double span = nodes.front() + 360.0 - nodes.back();
    double d = v - nodes.back();
    if (d < 0) d += 360.0;
    b.lo = n - 1;
    b.hi = 0;
    b.w = d / span;
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

// Bilinear interpolation of one source month onto the target grid; land (by nearest source cell)
// is kFill, sea points weigh only their sea neighbours.
void Regrid(const Source& s, size_t month, const std::vector<Bracket>& by,
            const std::vector<Bracket>& bx, std::vector<double>* out) {
  const float* f = s.tos.data() + month * s.ny * s.nx;
  out->resize(by.size() * bx.size());
  for (size_t i = 0; i < by.size(); ++i) {
    const Bracket& y = by[i];
    for (size_t j = 0; j < bx.size(); ++j) {
      const Bracket& x = bx[j];
      double& dst = (*out)[i * bx.size() + j];
      if (IsFill(f[y.nearest * s.nx + x.nearest])) {
        dst = kFill;
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
          if (!IsFill(v) && w > 0) {
            sum += w * v;
            weight += w;
          }
        }
      }
      dst = weight > 0 ? sum / weight : static_cast<double>(f[y.nearest * s.nx + x.nearest]);
    }
  }
}

void PutText(int ncid, int varid, const char* name, const std::string& value) {
  Check(nc_put_att_text(ncid, varid, name, value.size(), value.c_str()),
        std::string("attribute '") + name + "'");
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = ParseArgs(argc, argv);
  const auto started = std::chrono::steady_clock::now();
  const Source s = ReadSource(o.source);

  // Target coordinates.
  std::vector<double> lat(o.lat), lon(o.lon), depth(o.levels), time(o.times);
  for (size_t i = 0; i < o.lat; ++i) {
    lat[i] = o.lat == 1 ? s.lat.front()
                        : s.lat.front() + (s.lat.back() - s.lat.front()) * static_cast<double>(i) /
                                              static_cast<double>(o.lat - 1);
  }
  for (size_t j = 0; j < o.lon; ++j)
    lon[j] = 360.0 * static_cast<double>(j) / static_cast<double>(o.lon);
  for (size_t k = 0; k < o.levels; ++k)
    depth[k] = 10.0 * (std::pow(2.0, static_cast<double>(k)) - 1);
  // Target time i sits at fractional source month position p(i).
  std::vector<double> position(o.times);
  for (size_t i = 0; i < o.times; ++i) {
    position[i] = o.times == 1 ? 0.0
                               : static_cast<double>(s.nt - 1) * static_cast<double>(i) /
                                     static_cast<double>(o.times - 1);
    const size_t lo = std::min(static_cast<size_t>(position[i]), s.nt - 1);
    const size_t hi = std::min(lo + 1, s.nt - 1);
    const double w = position[i] - static_cast<double>(lo);
    time[i] = s.time[lo] * (1 - w) + s.time[hi] * w;
  }
  std::vector<Bracket> by(o.lat), bx(o.lon);
  for (size_t i = 0; i < o.lat; ++i) by[i] = BracketClamped(s.lat, lat[i]);
  for (size_t j = 0; j < o.lon; ++j) bx[j] = BracketPeriodic(s.lon, lon[j]);

  // netCDF-4, every variable contiguous and uncompressed, no prefill.
  int ncid;
  Check(nc_create(o.out.c_str(), NC_CLOBBER | NC_NETCDF4, &ncid), "creating '" + o.out + "'");
  int old_fill;
  Check(nc_set_fill(ncid, NC_NOFILL, &old_fill), "nc_set_fill");
  int d_time, d_depth, d_lat, d_lon;
  Check(nc_def_dim(ncid, "time", o.times, &d_time), "dimension 'time'");
  Check(nc_def_dim(ncid, "depth", o.levels, &d_depth), "dimension 'depth'");
  Check(nc_def_dim(ncid, "lat", o.lat, &d_lat), "dimension 'lat'");
  Check(nc_def_dim(ncid, "lon", o.lon, &d_lon), "dimension 'lon'");
  int v_time, v_depth, v_lat, v_lon, v_temp;
  Check(nc_def_var(ncid, "time", NC_DOUBLE, 1, &d_time, &v_time), "variable 'time'");
  Check(nc_def_var(ncid, "depth", NC_DOUBLE, 1, &d_depth, &v_depth), "variable 'depth'");
  Check(nc_def_var(ncid, "lat", NC_DOUBLE, 1, &d_lat, &v_lat), "variable 'lat'");
  Check(nc_def_var(ncid, "lon", NC_DOUBLE, 1, &d_lon, &v_lon), "variable 'lon'");
  const int dims[4] = {d_time, d_depth, d_lat, d_lon};
  Check(nc_def_var(ncid, "thetao", NC_FLOAT, 4, dims, &v_temp), "variable 'thetao'");
  for (int v : {v_time, v_depth, v_lat, v_lon, v_temp}) {
    Check(nc_def_var_chunking(ncid, v, NC_CONTIGUOUS, nullptr), "contiguous storage");
  }
  PutText(ncid, v_time, "standard_name", "time");
  PutText(ncid, v_time, "units", s.time_units.empty() ? "days since 2001-1-1" : s.time_units);
  PutText(ncid, v_time, "calendar", s.calendar.empty() ? "360_day" : s.calendar);
  PutText(ncid, v_time, "axis", "T");
  PutText(ncid, v_depth, "standard_name", "depth");
  PutText(ncid, v_depth, "units", "m");
  PutText(ncid, v_depth, "positive", "down");
  PutText(ncid, v_depth, "axis", "Z");
  PutText(ncid, v_lat, "standard_name", "latitude");
  PutText(ncid, v_lat, "units", "degrees_north");
  PutText(ncid, v_lat, "axis", "Y");
  PutText(ncid, v_lon, "standard_name", "longitude");
  PutText(ncid, v_lon, "units", "degrees_east");
  PutText(ncid, v_lon, "axis", "X");
  PutText(ncid, v_temp, "standard_name", "sea_water_potential_temperature");
  PutText(ncid, v_temp, "long_name", "Sea water potential temperature (derived from tos)");
  PutText(ncid, v_temp, "units", "K");
  Check(nc_put_att_float(ncid, v_temp, "_FillValue", NC_FLOAT, 1, &kFill), "_FillValue");
  Check(nc_put_att_float(ncid, v_temp, "missing_value", NC_FLOAT, 1, &kFill), "missing_value");
  PutText(ncid, v_temp, "coordinates", "time depth lat lon");
  PutText(ncid, NC_GLOBAL, "Conventions", "CF-1.8");
  PutText(ncid, NC_GLOBAL, "title",
          "Benchmark input derived from a real field: IPSL-CM4 sea surface temperature");
  PutText(ncid, NC_GLOBAL, "source_file", o.source.substr(o.source.find_last_of('/') + 1));
  PutText(ncid, NC_GLOBAL, "history",
          "GridStore bench/make_derived_netcdf: tos of tos_O1_2001-2002.nc bilinearly "
          "interpolated (sea points only, land kept as _FillValue) onto a finer grid, linearly "
          "in time, and extended in depth by T(d) = 275.15 + (tos - 275.15) * exp(-d / 400 m)");
  PutText(ncid, NC_GLOBAL, "comment",
          "Derived for benchmarking; not a physical ocean analysis. Deterministic: regenerate "
          "with the same arguments.");
  Check(nc_enddef(ncid), "nc_enddef");
  Check(nc_put_var_double(ncid, v_time, time.data()), "writing 'time'");
  Check(nc_put_var_double(ncid, v_depth, depth.data()), "writing 'depth'");
  Check(nc_put_var_double(ncid, v_lat, lat.data()), "writing 'lat'");
  Check(nc_put_var_double(ncid, v_lon, lon.data()), "writing 'lon'");

  // One time at a time: interpolate the two bracketing months horizontally (cached), blend in
  // time, then write every depth.
  const size_t plane = o.lat * o.lon;
  std::vector<double> month_a, month_b, surface(plane);
  size_t have_a = SIZE_MAX, have_b = SIZE_MAX;
  std::vector<float> out(plane);
  size_t land = 0;
  for (size_t i = 0; i < o.times; ++i) {
    const size_t lo = std::min(static_cast<size_t>(position[i]), s.nt - 1);
    const size_t hi = std::min(lo + 1, s.nt - 1);
    const double w = position[i] - static_cast<double>(lo);
    if (have_a != lo) {
      if (have_b == lo) {
        std::swap(month_a, month_b);
        std::swap(have_a, have_b);
      } else {
        Regrid(s, lo, by, bx, &month_a);
        have_a = lo;
      }
    }
    if (w > 0 && have_b != hi) {
      Regrid(s, hi, by, bx, &month_b);
      have_b = hi;
    }
    for (size_t p = 0; p < plane; ++p) {
      const double a = month_a[p];
      surface[p] = (w > 0 && a < 1.0e19) ? a * (1 - w) + month_b[p] * w : a;
    }
    for (size_t k = 0; k < o.levels; ++k) {
      const double decay = std::exp(-depth[k] / kThermoclineScale);
      for (size_t p = 0; p < plane; ++p) {
        const double t = surface[p];
        out[p] = t >= 1.0e19
                     ? kFill
                     : static_cast<float>(kDeepTemperature + (t - kDeepTemperature) * decay);
      }
      if (i == 0 && k == 0) land = static_cast<size_t>(std::count(out.begin(), out.end(), kFill));
      const size_t start[4] = {i, k, 0, 0};
      const size_t count[4] = {1, 1, o.lat, o.lon};
      Check(nc_put_vara_float(ncid, v_temp, start, count, out.data()), "writing 'thetao'");
    }
  }
  Check(nc_close(ncid), "closing '" + o.out + "'");

  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const double raw = static_cast<double>(o.times * o.levels * plane) * 4.0;
  std::printf(
      "derived %s from the real field 'tos' of %s (%zu months x %zu lat x %zu lon, land = "
      "_FillValue 1e20): float thetao(time %zu, depth %zu, lat %zu, lon %zu) = %.0f bytes "
      "(%.2f GB) raw, netCDF-4 contiguous uncompressed; bilinear in space (sea points), linear "
      "in time, exp(-depth/400 m) thermocline; %.1f%% of each plane is land fill; %.1f s\n",
      o.out.c_str(), o.source.c_str(), s.nt, s.ny, s.nx, o.times, o.levels, o.lat, o.lon, raw,
      raw / 1e9, 100.0 * static_cast<double>(land) / static_cast<double>(plane), seconds);
  return 0;
}
