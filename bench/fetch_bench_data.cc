// Copyright 2026 The GridStore Authors.
//
// fetch_bench_data: writes the inputs of the fetch benchmark (bench/fetch_bench, issue 5) into a
// work directory. One dataset of four float32 variables over (time, level, lat, lon), derived
// deterministically from real fields in ../shared/data (bench/derived_fields.h):
//   thetao(time, depth, lat, lon)  from tos of tos_O1_2001-2002.nc
//   ta, ua, va(time, plev, lat, lon)  from T, U, V of nc4uvt.nc
// default 24 x 10 x 570 x 2880 each (1.58 GB raw per variable, 6.3 GB in all), stored four ways:
//   fields_contiguous.nc   netCDF-4, contiguous, uncompressed (written first; the others are
//                          copies of it)
//   fields_deflate.nc      netCDF-4, chunks (1, 1, bx, by), shuffle + deflate (level 1)
//   fields_blosc_zstd.nc   netCDF-4, chunks (1, 1, bx, by), HDF5 filter 32001 (blosc) with blosc's
//                          zstd codec at blosc clevel 2 (= zstd level 3) and byte shuffle. Debian
//                          12 ships no HDF5 plugin for plain zstd (filter 32015), and its
//                          netCDF-C 4.9.0 is built without zstd: nc_def_var_zstandard returns
//                          NC_NOERR and adds no filter. The blosc plugin is Debian's
//                          hdf5-filter-plugin-blosc-serial (found without HDF5_PLUGIN_PATH).
//   store/                 a GridStore store (RocksDB) with dataset "bench", imported from the
//                          contiguous file by importers::ImportNetCdf with blocks bx x by and the
//                          given codec, then reopened read-write once so that its write-ahead log
//                          is replayed and flushed (the store is then at its settled size).
// and manifest.json, which says what was derived from what and what each output is.
//
// Each output is written under a .tmp name and renamed when complete, so an existing output is a
// complete one and is skipped: rerunning after an interruption redoes only what is missing.
// manifest.json holds the parameters; a work directory made with other parameters is refused.
//
// Usage: fetch_bench_data WORK_DIR [--times 24] [--levels 10] [--lat 570] [--lon 2880]
//            [--block 256x256] [--codec shuffle-zstd:3] [--deflate-level 1] [--blosc-clevel 2]
//            [--no-blosc] [--data DIR]
// (--data defaults to $GRIDSTORE_TEST_DATA, else ../shared/data).
#include <netcdf.h>
#include <netcdf_filter.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "bench/derived_fields.h"
#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/importers/netcdf/netcdf_importer.h"
#include "gridstore/model/grid_meta.h"

namespace {

namespace fs = std::filesystem;
namespace grid = gridstore::grid;
namespace importers = gridstore::importers;
using gridstore::bench::AtmosphereVariable;
using gridstore::bench::CheckNc;
using gridstore::bench::CheckResult;
using gridstore::bench::Clock;
using gridstore::bench::Die;
using gridstore::bench::PutCoordinateAttributes;
using gridstore::bench::PutText;
using gridstore::bench::Since;
using nlohmann::json;

constexpr unsigned kBloscFilterId = 32001;  // H5Z_FILTER_BLOSC, registered with The HDF Group
constexpr unsigned kBloscZstdCode = 5;      // BLOSC_ZSTD in c-blosc's compressor codes
constexpr char kDataSetId[] = "bench";
constexpr int kMaxUvtLevels = 14;  // pressure levels of nc4uvt.nc

struct Options {
  std::string work;
  std::string data;
  size_t times = 24;
  size_t levels = 10;
  size_t lat = 570;
  size_t lon = 2880;
  int64_t block_x = 256;
  int64_t block_y = 256;
  std::string codec = "shuffle-zstd:3";
  int deflate_level = 1;
  int blosc_clevel = 2;
  bool blosc = true;

  json Params() const {
    return {{"times", times},
            {"levels", levels},
            {"lat", lat},
            {"lon", lon},
            {"block", {block_x, block_y}},
            {"codec", codec},
            {"deflate_level", deflate_level},
            {"blosc_clevel", blosc_clevel}};
  }
};

Options ParseArgs(int argc, char** argv) {
  Options o;
  const char* data = std::getenv("GRIDSTORE_TEST_DATA");
  o.data = data ? data : "../shared/data";
  CLI::App app(
      "Writes the inputs of the fetch benchmark (bench/fetch_bench) into WORK_DIR: four "
      "fields derived from real data, as netCDF-4 variants and a GridStore store.");
  gridstore::bench::SetUpCommandLine(app);
  app.add_option("WORK_DIR", o.work, "The work directory (made if missing)")->required();
  app.add_option("--times", o.times, "Time steps")->check(CLI::Range(size_t{1}, size_t{100000}));
  app.add_option("--levels", o.levels, "Vertical levels (nc4uvt.nc has 14)")
      ->check(CLI::Range(size_t{1}, size_t{kMaxUvtLevels}));
  app.add_option("--lat", o.lat, "Latitude rows")->check(CLI::Range(size_t{2}, size_t{100000}));
  app.add_option("--lon", o.lon, "Longitude columns")->check(CLI::Range(size_t{2}, size_t{100000}));
  gridstore::bench::AddBlockShapeOption(app, "--block", &o.block_x, &o.block_y,
                                        "Blocks of the store and chunks of the compressed files");
  app.add_option("--codec", o.codec, "The store's codec")
      ->check(gridstore::bench::CodecValidator());
  app.add_option("--deflate-level", o.deflate_level, "fields_deflate.nc's deflate level")
      ->check(CLI::Range(1, 9));
  app.add_option("--blosc-clevel", o.blosc_clevel, "fields_blosc_zstd.nc's blosc clevel")
      ->check(CLI::Range(1, 9));
  bool no_blosc = false;
  app.add_flag("--no-blosc", no_blosc, "Do not write fields_blosc_zstd.nc");
  app.add_option("--data", o.data,
                 "The real data: tos_O1_2001-2002.nc and nc4uvt.nc; by default "
                 "$GRIDSTORE_TEST_DATA, else ../shared/data");
  gridstore::bench::ParseCommandLine(app, argc, argv);
  o.blosc = !no_blosc;
  return o;
}

// ---- What is written ----

struct Field {
  const char* name;
  const char* standard_name;
  const char* long_name;
  const char* units;
  bool ocean;                     // vertical axis depth (m); else plev (hPa)
  AtmosphereVariable atmosphere;  // which nc4uvt variable, if !ocean
  const char* source_file;
  const char* source_variable;
};

constexpr Field kFields[] = {
    {"thetao", "sea_water_potential_temperature",
     "Sea water potential temperature (derived from tos)", "K", true,
     AtmosphereVariable::kTemperature, "tos_O1_2001-2002.nc", "tos"},
    {"ta", "air_temperature", "Air temperature (derived from T)", "K", false,
     AtmosphereVariable::kTemperature, "nc4uvt.nc", "T"},
    {"ua", "eastward_wind", "Eastward wind (derived from U)", "m s-1", false,
     AtmosphereVariable::kEastwardWind, "nc4uvt.nc", "U"},
    {"va", "northward_wind", "Northward wind (derived from V)", "m s-1", false,
     AtmosphereVariable::kNorthwardWind, "nc4uvt.nc", "V"},
};

std::string Derivation(const Field& f) {
  if (f.ocean) {
    return "tos of tos_O1_2001-2002.nc (IPSL-CM4 SST, 24 months x 170 x 180) bilinearly "
           "interpolated over sea points (land kept as _FillValue 1e20), linear in time between "
           "months, T(d) = 275.15 + (tos - 275.15) * exp(-d / 400 m) at depths 10 * (2^k - 1) m";
  }
  std::string s = std::string(f.source_variable) +
                  " of nc4uvt.nc (one monthly field, 64 Gaussian lat x 128 lon) at its pressure "
                  "levels 1000 hPa upwards, bilinearly interpolated, drifting eastward 15 degrees "
                  "per time step";
  if (f.atmosphere == AtmosphereVariable::kTemperature) {
    s += ", plus a seasonal cycle 6 K * (p / 1000 hPa) * sin(lat) * cos(2 pi (t - 6) / 12)";
  }
  return s;
}

enum class Storage { kContiguous, kDeflate, kBloscZstd };

struct Variant {
  const char* name;  // as the fetch benchmark reports it
  const char* file;
  Storage storage;
};

constexpr Variant kVariants[] = {
    {"nc-contiguous", "fields_contiguous.nc", Storage::kContiguous},
    {"nc-deflate", "fields_deflate.nc", Storage::kDeflate},
    {"nc-blosc-zstd", "fields_blosc_zstd.nc", Storage::kBloscZstd},
};

std::string Describe(const Variant& v, const Options& o) {
  const std::string chunks = "chunks 1x1x" + std::to_string(std::min<int64_t>(o.block_x, o.lat)) +
                             "x" + std::to_string(std::min<int64_t>(o.block_y, o.lon));
  switch (v.storage) {
    case Storage::kContiguous:
      return "netCDF-4, contiguous, uncompressed";
    case Storage::kDeflate:
      return "netCDF-4, " + chunks + ", shuffle + deflate level " +
             std::to_string(o.deflate_level) + " (nc_def_var_deflate)";
    case Storage::kBloscZstd:
      return "netCDF-4, " + chunks + ", HDF5 filter 32001 (blosc, Debian " +
             "hdf5-filter-plugin-blosc-serial / c-blosc 1.21): blosc's zstd codec at blosc " +
             "clevel " + std::to_string(o.blosc_clevel) + " (= zstd level " +
             std::to_string(o.blosc_clevel * 2 - 1) + "), byte shuffle, one blosc thread";
  }
  return "";
}

struct Coordinates {
  std::vector<double> time, depth, plev, lat, lon;
  std::string time_units, calendar;
};

// The coordinates of a fields file, each a dimension and a variable of that name.
enum Coordinate { kTime, kDepth, kPlev, kLat, kLon, kCoordinates };
constexpr const char* kCoordinateNames[kCoordinates] = {"time", "depth", "plev", "lat", "lon"};

// The dimension and coordinate variable ids of a fields file, by Coordinate.
struct CoordinateIds {
  int dim[kCoordinates], var[kCoordinates];
};

// Defines the dimensions and the coordinate variables (contiguous) with their CF attributes.
CoordinateIds DefineCoordinates(int ncid, const Options& o, const Coordinates& c) {
  CoordinateIds i;
  const size_t lengths[kCoordinates] = {o.times, o.levels, o.levels, o.lat, o.lon};
  for (int k = 0; k < kCoordinates; ++k) {
    CheckNc(nc_def_dim(ncid, kCoordinateNames[k], lengths[k], &i.dim[k]),
            std::string("dimension '") + kCoordinateNames[k] + "'");
  }
  for (int k = 0; k < kCoordinates; ++k) {
    CheckNc(nc_def_var(ncid, kCoordinateNames[k], NC_DOUBLE, 1, &i.dim[k], &i.var[k]),
            std::string("variable '") + kCoordinateNames[k] + "'");
  }
  for (int v : i.var) {
    CheckNc(nc_def_var_chunking(ncid, v, NC_CONTIGUOUS, nullptr), "contiguous coordinates");
  }
  PutCoordinateAttributes(ncid,
                          {.time = i.var[kTime],
                           .depth = i.var[kDepth],
                           .plev = i.var[kPlev],
                           .lat = i.var[kLat],
                           .lon = i.var[kLon]},
                          c.time_units, c.calendar);
  return i;
}

// Sets the storage of field variable `id`: contiguous, or chunked with deflate or blosc-zstd.
void DefineFieldStorage(int ncid, int id, Storage storage, const Options& o) {
  if (storage == Storage::kContiguous) {
    CheckNc(nc_def_var_chunking(ncid, id, NC_CONTIGUOUS, nullptr), "contiguous storage");
    return;
  }
  const size_t chunks[4] = {1, 1, static_cast<size_t>(std::min<int64_t>(o.block_x, o.lat)),
                            static_cast<size_t>(std::min<int64_t>(o.block_y, o.lon))};
  CheckNc(nc_def_var_chunking(ncid, id, NC_CHUNKED, chunks), "chunking");
  if (storage == Storage::kDeflate) {
    CheckNc(nc_def_var_deflate(ncid, id, /*shuffle=*/1, /*deflate=*/1, o.deflate_level), "deflate");
  } else {
    // The blosc filter's parameters: 4 slots it fills itself (filter and blosc versions,
    // type size, chunk bytes), then clevel, shuffle (1 = byte shuffle) and the compressor.
    // Not nc_def_var_blosc: netCDF-C 4.9.0 built without blosc makes that a silent no-op.
    const unsigned params[7] = {
        0, 0, 0, 0, static_cast<unsigned>(o.blosc_clevel), 1, kBloscZstdCode};
    CheckNc(nc_def_var_filter(ncid, id, kBloscFilterId, 7, params),
            "blosc filter (HDF5 filter 32001; Debian: hdf5-filter-plugin-blosc-serial)");
  }
}

// Defines field `f` over (time, depth or plev, lat, lon) with its attributes; returns its id.
int DefineField(int ncid, const Field& f, const CoordinateIds& i, Storage storage,
                const Options& o) {
  const int dims[4] = {i.dim[kTime], f.ocean ? i.dim[kDepth] : i.dim[kPlev], i.dim[kLat],
                       i.dim[kLon]};
  int id;
  CheckNc(nc_def_var(ncid, f.name, NC_FLOAT, 4, dims, &id),
          std::string("variable '") + f.name + "'");
  DefineFieldStorage(ncid, id, storage, o);
  PutText(ncid, id, "standard_name", f.standard_name);
  PutText(ncid, id, "long_name", f.long_name);
  PutText(ncid, id, "units", f.units);
  if (f.ocean) {
    const float fill = gridstore::bench::kTosFill;
    CheckNc(nc_put_att_float(ncid, id, "_FillValue", NC_FLOAT, 1, &fill), "_FillValue");
    CheckNc(nc_put_att_float(ncid, id, "missing_value", NC_FLOAT, 1, &fill), "missing_value");
  }
  PutText(ncid, id, "source_file", f.source_file);
  PutText(ncid, id, "source_variable", f.source_variable);
  PutText(ncid, id, "derivation", Derivation(f));
  return id;
}

void PutGlobalAttributes(int ncid) {
  PutText(ncid, NC_GLOBAL, "Conventions", "CF-1.8");
  PutText(ncid, NC_GLOBAL, "title",
          "GridStore fetch benchmark input derived from real fields (tos_O1_2001-2002.nc, "
          "nc4uvt.nc)");
  PutText(ncid, NC_GLOBAL, "history",
          "GridStore bench/fetch_bench_data; derivations in each variable's 'derivation' "
          "attribute and bench/derived_fields.h");
  PutText(ncid, NC_GLOBAL, "comment",
          "Derived for benchmarking; not a physical analysis. Deterministic: regenerate with "
          "the same arguments.");
}

// Creates `path` with the dimensions, coordinates and (empty) fields of the dataset, stored as
// `storage` says; returns the ncid (in data mode) and the fields' variable ids.
int CreateFieldsFile(const std::string& path, Storage storage, const Options& o,
                     const Coordinates& c, std::vector<int>* field_ids) {
  int ncid;
  CheckNc(nc_create(path.c_str(), NC_CLOBBER | NC_NETCDF4, &ncid), "creating '" + path + "'");
  int old_fill;
  CheckNc(nc_set_fill(ncid, NC_NOFILL, &old_fill), "nc_set_fill");
  const CoordinateIds i = DefineCoordinates(ncid, o, c);
  field_ids->clear();
  for (const Field& f : kFields) field_ids->push_back(DefineField(ncid, f, i, storage, o));
  PutGlobalAttributes(ncid);
  CheckNc(nc_enddef(ncid), "nc_enddef");
  const std::vector<double>* values[kCoordinates] = {&c.time, &c.depth, &c.plev, &c.lat, &c.lon};
  for (int k = 0; k < kCoordinates; ++k) {
    CheckNc(nc_put_var_double(ncid, i.var[k], values[k]->data()),
            std::string("writing '") + kCoordinateNames[k] + "'");
  }
  return ncid;
}

uint64_t TreeBytes(const fs::path& path) {
  if (fs::is_regular_file(path)) return fs::file_size(path);
  uint64_t total = 0;
  for (const auto& e : fs::recursive_directory_iterator(path)) {
    if (e.is_regular_file()) total += e.file_size();
  }
  return total;
}

void WritePlane(int ncid, int varid, size_t t, size_t z, const Options& o, const float* plane,
                const char* name) {
  const size_t start[4] = {t, z, 0, 0};
  const size_t count[4] = {1, 1, o.lat, o.lon};
  CheckNc(nc_put_vara_float(ncid, varid, start, count, plane),
          std::string("writing '") + name + "'");
}

// Step 1: derive every field plane by plane into the contiguous file.
void DeriveContiguous(const Options& o, const std::string& path) {
  const auto tos = gridstore::bench::ReadTosSource(o.data + "/tos_O1_2001-2002.nc");
  const auto uvt = gridstore::bench::ReadUvtSource(o.data + "/nc4uvt.nc");
  if (uvt.nlev < o.levels) Die("nc4uvt.nc has only " + std::to_string(uvt.nlev) + " levels");
  const auto target = gridstore::bench::MakeTargetGrid(tos, o.lat, o.lon);
  gridstore::bench::ThetaoDeriver thetao(tos, target, o.times);
  const gridstore::bench::AtmosphereDeriver atmosphere(uvt, target);

  Coordinates c;
  c.time = thetao.time();
  c.time_units = tos.time_units;
  c.calendar = tos.calendar;
  for (size_t k = 0; k < o.levels; ++k) {
    c.depth.push_back(gridstore::bench::ThetaoDeriver::Depth(k));
    c.plev.push_back(uvt.lev[k]);
  }
  c.lat = target.lat;
  c.lon = target.lon;
  std::vector<int> ids;
  const int ncid = CreateFieldsFile(path, Storage::kContiguous, o, c, &ids);
  std::vector<float> plane(target.points());
  for (size_t f = 0; f < std::size(kFields); ++f) {
    const Field& field = kFields[f];
    for (size_t t = 0; t < o.times; ++t) {
      for (size_t z = 0; z < o.levels; ++z) {
        if (field.ocean) {
          thetao.Plane(t, c.depth[z], plane.data());
        } else {
          atmosphere.Plane(field.atmosphere, t, z, plane.data());
        }
        WritePlane(ncid, ids[f], t, z, o, plane.data(), field.name);
      }
    }
    std::printf("  derived %s\n", field.name);
    std::fflush(stdout);
  }
  CheckNc(nc_close(ncid), "closing '" + path + "'");
}

// Steps 2-3: copy the contiguous file into a chunked, compressed variant, plane by plane.
void Convert(const Options& o, const std::string& from, const std::string& to, Storage storage) {
  int in;
  CheckNc(nc_open(from.c_str(), NC_NOWRITE, &in), "opening '" + from + "'");
  Coordinates c;
  c.time = gridstore::bench::ReadCoordinate(in, "time", o.times);
  c.depth = gridstore::bench::ReadCoordinate(in, "depth", o.levels);
  c.plev = gridstore::bench::ReadCoordinate(in, "plev", o.levels);
  c.lat = gridstore::bench::ReadCoordinate(in, "lat", o.lat);
  c.lon = gridstore::bench::ReadCoordinate(in, "lon", o.lon);
  int tid;
  CheckNc(nc_inq_varid(in, "time", &tid), "variable 'time'");
  c.time_units = gridstore::bench::TextAttribute(in, tid, "units");
  c.calendar = gridstore::bench::TextAttribute(in, tid, "calendar");
  std::vector<int> ids;
  const int out = CreateFieldsFile(to, storage, o, c, &ids);
  std::vector<float> plane(o.lat * o.lon);
  for (size_t f = 0; f < std::size(kFields); ++f) {
    int in_id;
    CheckNc(nc_inq_varid(in, kFields[f].name, &in_id), "variable in '" + from + "'");
    for (size_t t = 0; t < o.times; ++t) {
      for (size_t z = 0; z < o.levels; ++z) {
        const size_t start[4] = {t, z, 0, 0};
        const size_t count[4] = {1, 1, o.lat, o.lon};
        CheckNc(nc_get_vara_float(in, in_id, start, count, plane.data()), "reading " + from);
        WritePlane(out, ids[f], t, z, o, plane.data(), kFields[f].name);
      }
    }
  }
  if (storage == Storage::kBloscZstd) {
    // Make sure the filter really is there with zstd inside (a build without the plugin fails
    // above; this guards against a silent no-op like nc_def_var_blosc's).
    size_t n = 0;
    unsigned params[16];
    CheckNc(nc_inq_var_filter_info(out, ids[0], kBloscFilterId, &n, params), "blosc filter");
    if (n < 7 || params[6] != kBloscZstdCode) Die("the blosc filter was not set up with zstd");
  }
  CheckNc(nc_close(out), "closing '" + to + "'");
  nc_close(in);
}

// Step 4: import the contiguous file into a new store, then settle it.
json ImportStore(const Options& o, const std::string& from, const std::string& dir) {
  // The import's defaults (frames, a dictionary per variable) but for the block shape and codec.
  grid::BlockLayout layout = importers::NetCdfImportOptions{}.layout;
  layout.block_x = o.block_x;
  layout.block_y = o.block_y;
  layout.codec = *grid::ParseCodecOptions(o.codec);
  importers::ImportSummary summary;
  {
    auto store = CheckResult(grid::GridStore::Open(dir, {.create_if_missing = true}),
                             "opening store " + dir);
    importers::NetCdfImportOptions options;
    options.dataset_id = kDataSetId;
    options.layout = layout;
    summary = CheckResult(importers::ImportNetCdf(store.get(), from, options), "importing " + from);
  }
  // Reopening read-write replays the import's write-ahead log into table files and deletes it
  // (docs/benchmarks.md, "Bytes after import vs settled"); without this every read-only open of
  // the benchmark would replay gigabytes of log.
  const uint64_t after_import = TreeBytes(dir);
  const auto settle_start = Clock::now();
  CheckResult(grid::GridStore::Open(dir), "reopening store " + dir);
  return {{"import_seconds", summary.seconds},
          {"raw_bytes", summary.raw_bytes},
          {"block_bytes", summary.stored_bytes},
          {"dir_bytes_after_import", after_import},
          {"settle_seconds", Since(settle_start)}};
}

json LoadJson(const fs::path& path) {
  std::ifstream in(path);
  json j = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) Die(path.string() + " is not valid JSON; delete it (or the work dir)");
  return j;
}

void SaveJson(const fs::path& path, const json& j) {
  const fs::path tmp = path.string() + ".tmp";
  std::ofstream(tmp) << j.dump(2) << "\n";
  fs::rename(tmp, path);
}

// The manifest of `work`, empty if there is none; dies if it was made with other parameters.
// The parameters go in first: any output in the directory was made with them.
json OpenManifest(const Options& o, const fs::path& work, const fs::path& manifest_path) {
  json manifest;
  if (fs::exists(manifest_path)) {
    manifest = LoadJson(manifest_path);
    if (manifest["params"] != o.Params()) {
      Die(work.string() + " holds data made with other parameters (" + manifest["params"].dump() +
          "); use another work directory or delete it");
    }
  }
  manifest["params"] = o.Params();
  SaveJson(manifest_path, manifest);
  return manifest;
}

// Runs `make(tmp)` unless `name` exists in `work`, then renames tmp to name and records the
// step's record under manifest["steps"][name].
void RunStep(const fs::path& work, const fs::path& manifest_path, json& manifest,
             const std::string& name, const std::function<json(const std::string&)>& make) {
  const fs::path final_path = work / name;
  if (fs::exists(final_path)) {
    std::printf("%-22s exists, skipped\n", name.c_str());
    return;
  }
  const fs::path tmp = final_path.string() + ".tmp";
  fs::remove_all(tmp);  // left by an interrupted run
  std::printf("%-22s writing...\n", name.c_str());
  std::fflush(stdout);
  const auto start = Clock::now();
  json record = make(tmp.string());
  fs::rename(tmp, final_path);
  record["seconds"] = Since(start);
  std::printf("%-22s done in %.1f s\n", name.c_str(), record["seconds"].get<double>());
  manifest["steps"][name] = record;
  SaveJson(manifest_path, manifest);
}

// Writes whatever output is missing: the contiguous file, its compressed copies, the store.
void WriteOutputs(const Options& o, const fs::path& work, const fs::path& manifest_path,
                  json& manifest) {
  auto step = [&](const std::string& name, const std::function<json(const std::string&)>& make) {
    RunStep(work, manifest_path, manifest, name, make);
  };
  const std::string contiguous = (work / kVariants[0].file).string();
  step(kVariants[0].file, [&](const std::string& tmp) {
    DeriveContiguous(o, tmp);
    return json::object();
  });
  for (const Variant& v : kVariants) {
    if (v.storage == Storage::kContiguous) continue;
    if (v.storage == Storage::kBloscZstd && !o.blosc) continue;
    step(v.file, [&](const std::string& tmp) {
      Convert(o, contiguous, tmp, v.storage);
      return json::object();
    });
  }
  step("store", [&](const std::string& tmp) { return ImportStore(o, contiguous, tmp); });
}

// What the benchmark reads: the data's provenance.
json DescribeData(const Options& o, double raw) {
  json variables = json::array();
  for (const Field& f : kFields) {
    variables.push_back({{"name", f.name},
                         {"units", f.units},
                         {"vertical", f.ocean ? "depth" : "plev"},
                         {"source_file", f.source_file},
                         {"source_variable", f.source_variable},
                         {"derivation", Derivation(f)}});
  }
  return {{"description",
           "derived deterministically from real fields in ../shared/data (tos_O1_2001-2002.nc, "
           "nc4uvt.nc) on a regular grid, lat -79.5..89.5, lon 0..360 (bench/derived_fields.h)"},
          {"shape", {o.times, o.levels, o.lat, o.lon}},
          {"type", "float32"},
          {"raw_bytes", static_cast<uint64_t>(raw)},
          {"variables", variables}};
}

// What the benchmark reads: every format with its size.
json DescribeFormats(const Options& o, const fs::path& work, const json& store_step) {
  json formats = json::array();
  formats.push_back({{"name", "gridstore"},
                     {"path", "store"},
                     {"dataset", kDataSetId},
                     {"description", "GridStore (RocksDB), blocks " + std::to_string(o.block_x) +
                                         "x" + std::to_string(o.block_y) + ", " + o.codec +
                                         ", imported by importers::ImportNetCdf"},
                     {"bytes", TreeBytes(work / "store")},
                     {"block_bytes", store_step.value("block_bytes", uint64_t{0})}});
  for (const Variant& v : kVariants) {
    if (!fs::exists(work / v.file)) continue;
    formats.push_back({{"name", v.name},
                       {"path", v.file},
                       {"description", Describe(v, o)},
                       {"bytes", TreeBytes(work / v.file)}});
  }
  return formats;
}

void PrintFormats(const json& formats, double raw) {
  for (const json& f : formats) {
    std::printf("%-14s %15llu bytes  ratio %6.3f  %s\n", f["name"].get<std::string>().c_str(),
                static_cast<unsigned long long>(f["bytes"].get<uint64_t>()),
                raw / f["bytes"].get<double>(), f["description"].get<std::string>().c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = ParseArgs(argc, argv);
  // One blosc thread whatever the environment says, as for the benchmark's reads.
  setenv("BLOSC_NTHREADS", "1", 1);
  const fs::path work = o.work;
  fs::create_directories(work);
  const fs::path manifest_path = work / "manifest.json";
  json manifest = OpenManifest(o, work, manifest_path);

  const double raw = 4.0 * std::size(kFields) * o.times * o.levels * o.lat * o.lon;
  std::printf(
      "fetch_bench_data: %s: %zu variables x %zu t x %zu z x %zu x %zu float32 = %.2f GB "
      "raw\n",
      work.c_str(), std::size(kFields), o.times, o.levels, o.lat, o.lon, raw / 1e9);
  WriteOutputs(o, work, manifest_path, manifest);

  manifest["data"] = DescribeData(o, raw);
  manifest["formats"] = DescribeFormats(o, work, manifest["steps"]["store"]);
  SaveJson(manifest_path, manifest);
  PrintFormats(manifest["formats"], raw);
  return 0;
}
