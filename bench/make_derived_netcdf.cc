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
// The derivation itself is bench/derived_fields.h (ThetaoDeriver), shared with fetch_bench_data.
//
// Usage: make_derived_netcdf OUT.nc [--source FILE] [--times N] [--levels N] [--lat N] [--lon N]
// (--source defaults to $GRIDSTORE_TEST_DATA/tos_O1_2001-2002.nc, else ../shared/data/...).
#include <netcdf.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "bench/derived_fields.h"

namespace {

using gridstore::bench::CheckNc;
using gridstore::bench::Die;
using gridstore::bench::kTosFill;
using gridstore::bench::PutCoordinateAttributes;
using gridstore::bench::PutText;

struct Options {
  std::string out;
  std::string source;
  size_t times = 24;
  size_t levels = 8;
  size_t lat = 570;
  size_t lon = 2880;
};

Options ParseArgs(int argc, char** argv) {
  Options o;
  // As the tests find ../shared/data: $GRIDSTORE_TEST_DATA, else relative to the project root.
  const char* data = std::getenv("GRIDSTORE_TEST_DATA");
  o.source = std::string(data ? data : "../shared/data") + "/tos_O1_2001-2002.nc";
  CLI::App app(
      "Writes a large netCDF-4 file (contiguous, uncompressed) derived from the real "
      "field 'tos' of tos_O1_2001-2002.nc.");
  gridstore::bench::SetUpCommandLine(app);
  app.add_option("OUT.nc", o.out, "The file to write")->required();
  app.add_option("--source", o.source,
                 "tos_O1_2001-2002.nc; by default in $GRIDSTORE_TEST_DATA, else ../shared/data");
  const auto count = CLI::Range(size_t{1}, size_t{1000000});
  app.add_option("--times", o.times, "Time steps")->check(count);
  app.add_option("--levels", o.levels, "Depth levels")->check(count);
  app.add_option("--lat", o.lat, "Latitude rows")->check(count);
  app.add_option("--lon", o.lon, "Longitude columns")->check(count);
  gridstore::bench::ParseCommandLine(app, argc, argv);
  return o;
}

// The variable ids of the output file.
struct OutputIds {
  int v_time, v_depth, v_lat, v_lon, v_temp;
};

// Defines the dimensions and variables of the output, every variable contiguous and
// uncompressed, with their CF attributes.
OutputIds DefineVariables(int ncid, const Options& o, const gridstore::bench::TosSource& s) {
  int d_time, d_depth, d_lat, d_lon;
  CheckNc(nc_def_dim(ncid, "time", o.times, &d_time), "dimension 'time'");
  CheckNc(nc_def_dim(ncid, "depth", o.levels, &d_depth), "dimension 'depth'");
  CheckNc(nc_def_dim(ncid, "lat", o.lat, &d_lat), "dimension 'lat'");
  CheckNc(nc_def_dim(ncid, "lon", o.lon, &d_lon), "dimension 'lon'");
  OutputIds v;
  CheckNc(nc_def_var(ncid, "time", NC_DOUBLE, 1, &d_time, &v.v_time), "variable 'time'");
  CheckNc(nc_def_var(ncid, "depth", NC_DOUBLE, 1, &d_depth, &v.v_depth), "variable 'depth'");
  CheckNc(nc_def_var(ncid, "lat", NC_DOUBLE, 1, &d_lat, &v.v_lat), "variable 'lat'");
  CheckNc(nc_def_var(ncid, "lon", NC_DOUBLE, 1, &d_lon, &v.v_lon), "variable 'lon'");
  const int dims[4] = {d_time, d_depth, d_lat, d_lon};
  CheckNc(nc_def_var(ncid, "thetao", NC_FLOAT, 4, dims, &v.v_temp), "variable 'thetao'");
  for (int id : {v.v_time, v.v_depth, v.v_lat, v.v_lon, v.v_temp}) {
    CheckNc(nc_def_var_chunking(ncid, id, NC_CONTIGUOUS, nullptr), "contiguous storage");
  }
  PutCoordinateAttributes(ncid,
                          {.time = v.v_time, .depth = v.v_depth, .lat = v.v_lat, .lon = v.v_lon},
                          s.time_units, s.calendar);
  PutText(ncid, v.v_temp, "standard_name", "sea_water_potential_temperature");
  PutText(ncid, v.v_temp, "long_name", "Sea water potential temperature (derived from tos)");
  PutText(ncid, v.v_temp, "units", "K");
  CheckNc(nc_put_att_float(ncid, v.v_temp, "_FillValue", NC_FLOAT, 1, &kTosFill), "_FillValue");
  CheckNc(nc_put_att_float(ncid, v.v_temp, "missing_value", NC_FLOAT, 1, &kTosFill),
          "missing_value");
  PutText(ncid, v.v_temp, "coordinates", "time depth lat lon");
  return v;
}

void PutGlobalAttributes(int ncid, const Options& o) {
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
}

// Writes every plane of thetao, one time at a time (the deriver keeps the interpolated months),
// then every depth; returns the number of land points of the first plane.
size_t WriteThetao(int ncid, int v_temp, const Options& o, gridstore::bench::ThetaoDeriver& deriver,
                   const std::vector<double>& depth) {
  std::vector<float> out(o.lat * o.lon);
  size_t land = 0;
  for (size_t i = 0; i < o.times; ++i) {
    for (size_t k = 0; k < o.levels; ++k) {
      deriver.Plane(i, depth[k], out.data());
      if (i == 0 && k == 0) {
        land = static_cast<size_t>(std::count(out.begin(), out.end(), kTosFill));
      }
      const size_t start[4] = {i, k, 0, 0};
      const size_t count[4] = {1, 1, o.lat, o.lon};
      CheckNc(nc_put_vara_float(ncid, v_temp, start, count, out.data()), "writing 'thetao'");
    }
  }
  return land;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = ParseArgs(argc, argv);
  const auto started = gridstore::bench::Clock::now();
  const gridstore::bench::TosSource s = gridstore::bench::ReadTosSource(o.source);
  const gridstore::bench::TargetGrid grid = gridstore::bench::MakeTargetGrid(s, o.lat, o.lon);
  gridstore::bench::ThetaoDeriver deriver(s, grid, o.times);
  std::vector<double> depth(o.levels);
  for (size_t k = 0; k < o.levels; ++k) depth[k] = gridstore::bench::ThetaoDeriver::Depth(k);

  // netCDF-4, every variable contiguous and uncompressed, no prefill.
  int ncid;
  CheckNc(nc_create(o.out.c_str(), NC_CLOBBER | NC_NETCDF4, &ncid), "creating '" + o.out + "'");
  int old_fill;
  CheckNc(nc_set_fill(ncid, NC_NOFILL, &old_fill), "nc_set_fill");
  const OutputIds v = DefineVariables(ncid, o, s);
  PutGlobalAttributes(ncid, o);
  CheckNc(nc_enddef(ncid), "nc_enddef");
  CheckNc(nc_put_var_double(ncid, v.v_time, deriver.time().data()), "writing 'time'");
  CheckNc(nc_put_var_double(ncid, v.v_depth, depth.data()), "writing 'depth'");
  CheckNc(nc_put_var_double(ncid, v.v_lat, grid.lat.data()), "writing 'lat'");
  CheckNc(nc_put_var_double(ncid, v.v_lon, grid.lon.data()), "writing 'lon'");
  const size_t land = WriteThetao(ncid, v.v_temp, o, deriver, depth);
  CheckNc(nc_close(ncid), "closing '" + o.out + "'");

  const double seconds = gridstore::bench::Since(started);
  const size_t plane = o.lat * o.lon;
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
