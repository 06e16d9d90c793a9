// Copyright 2026 The GridStore Authors.
//
// Decades of hourly data at a point (issue 33, part 2), in-process, side by side with netCDF-C in
// one run: a point's whole 40-year series from the series layout (block cache off and on), the
// blocks it reads, the meta's size and decode time (a regular time axis as start + step against
// the same meta with its 350,640 times as raw doubles), and netCDF-C reading the same series from
// a netCDF-4 file of the same values chunked for time series. bench/decades_bench.sh adds the
// HTTP and whole-process figures.
//
// The dataset, built on the first run into WORK_DIR (kept for the next): 2 m temperature of
// ERA5 (era5-2mt-2019-03-uk.grib of ../shared/grib: 744 hourly fields of 33 x 49 points, March
// 2019 over the UK), mirrored into 64 x 64 points and repeated over 40 years of hours (350,640
// steps, "hours since 1985-01-01"), each repetition shifted by a few tenths of a kelvin and every
// value by a deterministic hash of at most 0.01 K, so that no two years are the same bytes.
// Planes 64x64 with frames of 16 rows, shuffle-zstd:3 (import's defaults), then the series layout
// as `relayout --add series` chooses it for this dataset. The netCDF peer: t2m(time, latitude,
// longitude) float, chunks of (350640, 1, 1) (one point's whole series), shuffle + deflate 1.
//
// Usage: decades_bench WORK_DIR [--grib FILE] [--points 30] [--repeats 5] [--steps 350640]
#include <eccodes.h>
#include <netcdf.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "gridstore/grid/grid_store.h"

namespace {

namespace grid = gridstore::grid;
using gridstore::bench::Check;
using gridstore::bench::CheckNc;
using gridstore::bench::CheckResult;
using gridstore::bench::Clock;
using gridstore::bench::Since;

constexpr int64_t kSide = 64;
constexpr const char* kId = "decades";

struct Params {
  std::string work_dir, grib;
  int64_t steps = 350640;
  int points = 30, repeats = 5;
};

// The real field: `steps` hourly planes of nj x ni values (north to south, west to east).
struct Source {
  int64_t steps = 0, nj = 0, ni = 0;
  double lat0 = 0, lon0 = 0, step_deg = 0;
  std::vector<float> values;
};

Source ReadGrib(const std::string& path) {
  FILE* in = std::fopen(path.c_str(), "rb");
  if (in == nullptr) {
    std::fprintf(stderr, "decades_bench: cannot open %s\n", path.c_str());
    std::exit(1);
  }
  Source s;
  int err = 0;
  std::vector<double> buf;
  while (codes_handle* h = codes_handle_new_from_file(nullptr, in, PRODUCT_GRIB, &err)) {
    long ni = 0, nj = 0;
    codes_get_long(h, "Ni", &ni);
    codes_get_long(h, "Nj", &nj);
    if (s.steps == 0) {
      s.ni = ni;
      s.nj = nj;
      codes_get_double(h, "latitudeOfFirstGridPointInDegrees", &s.lat0);
      codes_get_double(h, "longitudeOfFirstGridPointInDegrees", &s.lon0);
      codes_get_double(h, "iDirectionIncrementInDegrees", &s.step_deg);
    }
    size_t n = 0;
    codes_get_size(h, "values", &n);
    buf.resize(n);
    codes_get_double_array(h, "values", buf.data(), &n);
    for (double v : buf) s.values.push_back(static_cast<float>(v));
    ++s.steps;
    codes_handle_delete(h);
  }
  std::fclose(in);
  return s;
}

// Index into a mirrored repetition of [0, n): 0 1 .. n-1 n-2 .. 1 0 1 ..
int64_t Mirror(int64_t i, int64_t n) {
  const int64_t k = i % (2 * n - 2);
  return k < n ? k : 2 * n - 2 - k;
}

uint32_t Hash(uint64_t v) {
  v ^= v >> 33;
  v *= 0xff51afd7ed558ccdULL;
  v ^= v >> 33;
  v *= 0xc4ceb9fe1a85ec53ULL;
  return static_cast<uint32_t>(v ^ (v >> 33));
}

// The benchmark's value at step t, row x (north to south), column y.
float Value(const Source& s, int64_t t, int64_t x, int64_t y) {
  const int64_t rep = t / s.steps, st = t % s.steps;
  const float real = s.values[(st * s.nj + Mirror(x, s.nj)) * s.ni + Mirror(y, s.ni)];
  const float shift = 0.1f * static_cast<float>(rep % 11 - 5);
  const float noise =
      0.01f *
      (static_cast<float>(Hash(uint64_t(t) << 12 | uint64_t(x * kSide + y)) & 0xff) / 255.0f -
       0.5f);
  return real + shift + noise;
}

grid::DataSetMeta MakeMeta(const Source& s, int64_t steps) {
  grid::DataSetMeta meta;
  meta.id = kId;
  meta.set_status(grid::kStatusInit);
  meta.layout.block_x = meta.layout.block_y = kSide;
  meta.layout.frame_rows = 16;
  grid::VariableMeta var;
  var.name = "t2m";
  var.shape = {steps, 1, kSide, kSide};
  var.dimension_names = {"time", "", "latitude", "longitude"};
  var.set_fill_value(std::nanf(""));
  var.attributes.emplace("units", grid::AttributeValue::String("K"));
  var.attributes.emplace("long_name", grid::AttributeValue::String("2 metre temperature"));
  meta.variables.push_back(var);
  grid::Coordinate time;
  time.name = "time";
  time.dimensions = {"time"};
  time.shape = {steps};
  time.type = grid::DataType::kInt64;
  time.values.resize(static_cast<size_t>(steps));
  for (int64_t t = 0; t < steps; ++t) time.values[size_t(t)] = static_cast<double>(t);
  time.attributes.emplace("units", grid::AttributeValue::String("hours since 1985-01-01 00:00:00"));
  time.attributes.emplace("calendar", grid::AttributeValue::String("proleptic_gregorian"));
  time.attributes.emplace("standard_name", grid::AttributeValue::String("time"));
  meta.coordinates.push_back(time);
  for (const char* axis : {"latitude", "longitude"}) {
    grid::Coordinate c;
    c.name = axis;
    c.dimensions = {axis};
    c.shape = {kSide};
    const bool lat = axis[1] == 'a';
    for (int64_t i = 0; i < kSide; ++i) {
      c.values.push_back(lat ? s.lat0 - s.step_deg * double(i) : s.lon0 + s.step_deg * double(i));
    }
    c.attributes.emplace("units",
                         grid::AttributeValue::String(lat ? "degrees_north" : "degrees_east"));
    c.attributes.emplace("standard_name", grid::AttributeValue::String(axis));
    meta.coordinates.push_back(c);
  }
  return meta;
}

void MakeStore(grid::GridStore* store, const Source& s, const Params& p) {
  grid::DataSetMeta meta = MakeMeta(s, p.steps);
  Check(store->PutDataSetMeta(meta), "creating the dataset");
  auto writer = CheckResult(store->GetDataWriter(kId), "writer");
  auto start = Clock::now();
  for (int64_t t = 0; t < p.steps; ++t) {
    grid::Grid2D plane(grid::DataType::kFloat32, kSide, kSide);
    float* out = plane.data<float>().data();
    for (int64_t x = 0; x < kSide; ++x) {
      for (int64_t y = 0; y < kSide; ++y) out[x * kSide + y] = Value(s, t, x, y);
    }
    Check(writer->SubmitGrid2D("t2m", t, 0, std::move(plane)), "writing");
    if (t % 8760 == 0)
      std::fprintf(stderr, "\rwriting planes: step %ld of %ld", long(t), long(p.steps));
  }
  Check(writer->Finish(), "finishing the dataset");
  writer.reset();
  std::fprintf(stderr, "\nwrote %ld planes in %.1f s\n", long(p.steps), Since(start));
  start = Clock::now();
  // As `relayout --add series` asks: every side chosen for the dataset. A budget of 1 GiB of
  // values per group (6 groups here) instead of the command's 64 MiB: every group reads every
  // step's plane once.
  grid::SeriesLayout choose{.block_t = grid::kSeriesChoose,
                            .tile_x = grid::kSeriesChoose,
                            .tile_y = grid::kSeriesChoose,
                            .block_z = grid::kSeriesChoose,
                            .frame_points = grid::kSeriesChoose};
  grid::RelayoutOptions options;
  options.memory_budget_bytes = size_t{1} << 30;
  options.on_progress = [](int64_t done, int64_t total) {
    std::fprintf(stderr, "\rrelayout: %.0f%%", 100.0 * double(done) / double(total));
  };
  grid::RelayoutReport report =
      CheckResult(store->AddSeriesLayout(kId, choose, options), "adding the series layout");
  Check(store->Flush(), "flushing");
  std::fprintf(stderr, "\nseries layout (%s): %ld blocks, %.0f MB stored, in %.1f s\n",
               grid::SeriesLayoutToString(report.layout).c_str(), long(report.blocks_written),
               double(report.stored_bytes) / 1e6, Since(start));
}

void MakeNetCdf(const std::string& path, const Source& s, const Params& p) {
  const auto start = Clock::now();
  const std::string tmp = path + ".tmp";
  int nc = 0, dims[3], var = 0, vt = 0, vlat = 0, vlon = 0;
  CheckNc(nc_create(tmp.c_str(), NC_NETCDF4 | NC_CLOBBER, &nc), "nc_create");
  CheckNc(nc_def_dim(nc, "time", size_t(p.steps), &dims[0]), "dim");
  CheckNc(nc_def_dim(nc, "latitude", kSide, &dims[1]), "dim");
  CheckNc(nc_def_dim(nc, "longitude", kSide, &dims[2]), "dim");
  CheckNc(nc_def_var(nc, "time", NC_INT64, 1, &dims[0], &vt), "var");
  CheckNc(nc_def_var(nc, "latitude", NC_DOUBLE, 1, &dims[1], &vlat), "var");
  CheckNc(nc_def_var(nc, "longitude", NC_DOUBLE, 1, &dims[2], &vlon), "var");
  CheckNc(nc_def_var(nc, "t2m", NC_FLOAT, 3, dims, &var), "var");
  const size_t chunks[3] = {size_t(p.steps), 1, 1};
  CheckNc(nc_def_var_chunking(nc, var, NC_CHUNKED, chunks), "chunking");
  CheckNc(nc_def_var_deflate(nc, var, 1, 1, 1), "deflate");
  const char* units = "hours since 1985-01-01 00:00:00";
  CheckNc(nc_put_att_text(nc, vt, "units", std::strlen(units), units), "att");
  CheckNc(nc_enddef(nc), "enddef");
  const grid::DataSetMeta meta = MakeMeta(s, p.steps);
  std::vector<long long> hours(size_t(p.steps));
  for (int64_t t = 0; t < p.steps; ++t) hours[size_t(t)] = t;
  CheckNc(nc_put_var_longlong(nc, vt, hours.data()), "time");
  CheckNc(nc_put_var_double(nc, vlat, meta.coordinates[1].values.data()), "lat");
  CheckNc(nc_put_var_double(nc, vlon, meta.coordinates[2].values.data()), "lon");
  std::vector<float> series(size_t(p.steps));
  for (int64_t x = 0; x < kSide; ++x) {
    for (int64_t y = 0; y < kSide; ++y) {
      for (int64_t t = 0; t < p.steps; ++t) series[size_t(t)] = Value(s, t, x, y);
      const size_t at[3] = {0, size_t(x), size_t(y)}, count[3] = {size_t(p.steps), 1, 1};
      CheckNc(nc_put_vara_float(nc, var, at, count, series.data()), "writing t2m");
    }
    std::fprintf(stderr, "\rnetCDF peer: row %ld of %ld", long(x + 1), long(kSide));
  }
  CheckNc(nc_close(nc), "nc_close");
  std::filesystem::rename(tmp, path);
  std::fprintf(stderr, "\nwrote the netCDF peer in %.1f s\n", Since(start));
}

struct Quantiles {
  double p50 = 0, p90 = 0;
};
Quantiles Of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v[std::min(v.size() - 1, v.size() * 9 / 10)]};
}

struct MetaFigures {
  double open_s = 0, first_meta_s = 0, first_raw_s = 0, compact_s = 0, raw_s = 0;
  size_t compact_bytes = 0, raw_bytes = 0;
};

struct SeriesFigures {
  Quantiles off, on;
  grid::FetchStats stats;
  double planes_s = 0;
  std::string first_series;  // the first point's values, to check the peer's against
};

// The meta: stored bytes and decode time, compact against raw, and the store's open.
MetaFigures MeasureMeta(const Params& p, const std::string& store_path) {
  std::unique_ptr<grid::GridStore> store;
  // A small store of two metas without data: "compact", the dataset's meta, and "raw", the same
  // with one time made fractional so that its axis is stored as 350,640 raw doubles, as every
  // meta was before version 7. Read first after an open, in alternating order, over 5 opens.
  const std::string meta_store = p.work_dir + "/meta-store";
  {
    store = CheckResult(grid::GridStore::Open(store_path, {}), "open");
    grid::DataSetMeta m = CheckResult(store->GetDataSetMeta(kId), "meta");
    store = CheckResult(grid::GridStore::Open(meta_store, {.create_if_missing = true}), "open");
    if (!store->GetDataSetMeta("raw").ok()) {
      m.series.reset();
      m.id = "compact";
      Check(store->PutDataSetMeta(m), "storing the compact meta");
      m.id = "raw";
      m.coordinates[0].values[1] += 0.5;
      Check(store->PutDataSetMeta(m), "storing the raw-axis meta");
      Check(store->Flush(), "flushing");
    }
    store.reset();
  }
  std::vector<double> open_times, first_compact, first_raw;
  for (int i = 0; i < 6; ++i) {
    store = CheckResult(grid::GridStore::Open(meta_store, {}), "open");
    (void)store->GetDataSetMeta("no-such-dataset");
    std::vector<std::pair<const char*, std::vector<double>*>> order = {{"compact", &first_compact},
                                                                       {"raw", &first_raw}};
    if (i % 2 == 1) std::swap(order[0], order[1]);  // neither always pays the first read
    for (auto [id, out] : order) {
      const auto t0 = Clock::now();
      CheckResult(store->GetDataSetMeta(id), "meta");
      out->push_back(Since(t0));
    }
    store.reset();
    const auto start = Clock::now();
    store = CheckResult(grid::GridStore::Open(store_path, {}), "open");
    open_times.push_back(Since(start));
    store.reset();
  }
  MetaFigures f;
  f.open_s = Of(open_times).p50;
  f.first_meta_s = Of(first_compact).p50;
  f.first_raw_s = Of(first_raw).p50;
  store = CheckResult(grid::GridStore::Open(store_path, {}), "open");
  const grid::DataSetMeta meta = CheckResult(store->GetDataSetMeta(kId), "meta");
  grid::DataSetMeta raw_meta = meta;
  raw_meta.coordinates[0].values[1] += 0.5;
  const std::string compact = meta.Encode(), raw = raw_meta.Encode();
  auto decode_p50 = [](const std::string& bytes) {
    std::vector<double> s;
    for (int i = 0; i < 200; ++i) {
      const auto start = Clock::now();
      auto m = grid::DataSetMeta::Decode(bytes);
      s.push_back(Since(start));
      if (!m.ok()) std::exit(1);
    }
    return Of(s).p50;
  };
  f.compact_s = decode_p50(compact);
  f.raw_s = decode_p50(raw);
  f.compact_bytes = compact.size();
  f.raw_bytes = raw.size();
  return f;
}

// A point's whole series, in-process, cache off and on, and the same from the planes once.
SeriesFigures MeasureSeries(grid::GridStore* store, const Params& p, int64_t steps,
                            const std::vector<std::pair<int64_t, int64_t>>& points) {
  auto series = [&](bool cache, grid::GridDataSet* last) {
    std::vector<double> s;
    for (int pass = 0; pass <= p.repeats; ++pass) {
      for (auto [x, y] : points) {
        const auto start = Clock::now();
        auto fetcher = CheckResult(store->GetDataFetcher(kId), "fetcher");
        fetcher->SetOriginShape({0, 0, x, y}, {steps, 1, 1, 1});
        fetcher->set_options(grid::FetchOptions{.use_cache = cache});
        *last = CheckResult(fetcher->Fetch(), "fetch");
        if (pass > 0) s.push_back(Since(start));
      }
    }
    return Of(s);
  };
  SeriesFigures f;
  grid::GridDataSet last;
  f.off = series(false, &last);
  f.stats = last.stats;
  f.on = series(true, &last);
  // The same series from the planes, once, for the values and the figure.
  auto planes_start = Clock::now();
  auto pf = CheckResult(store->GetDataFetcher(kId), "fetcher");
  pf->SetOriginShape({0, 0, points[0].first, points[0].second}, {steps, 1, 1, 1});
  pf->set_options(grid::FetchOptions{.use_cache = false, .layout = grid::FetchLayout::kPlanes});
  const grid::GridDataSet from_planes = CheckResult(pf->Fetch(), "fetch planes");
  f.planes_s = Since(planes_start);
  auto sf = CheckResult(store->GetDataFetcher(kId), "fetcher");
  sf->SetOriginShape({0, 0, points[0].first, points[0].second}, {steps, 1, 1, 1});
  const grid::GridDataSet from_series = CheckResult(sf->Fetch(), "fetch series");
  const auto& a = *from_planes.GetVariable("t2m");
  const auto& b = *from_series.GetVariable("t2m");
  if (std::memcmp(a.bytes(), b.bytes(), a.size_bytes()) != 0) {
    gridstore::bench::Die("the series layout and the planes differ");
  }
  f.first_series.resize(b.size_bytes());
  std::memcpy(f.first_series.data(), b.bytes(), b.size_bytes());
  return f;
}

// netCDF-C, the same points, the file open once (warm); `expected` is the first point's series.
Quantiles MeasureNetCdf(const std::string& nc_path, const Params& p, int64_t steps,
                        const std::vector<std::pair<int64_t, int64_t>>& points,
                        const std::string& expected) {
  int nc = 0, var = 0;
  CheckNc(nc_open(nc_path.c_str(), NC_NOWRITE, &nc), "nc_open");
  CheckNc(nc_inq_varid(nc, "t2m", &var), "t2m");
  // No decoded-chunk cache, as GridStore's "cache off": each read inflates its chunk.
  CheckNc(nc_set_var_chunk_cache(nc, var, 0, 0, 0.0f), "nc_set_var_chunk_cache");
  std::vector<float> buf(size_t(steps), 0.0f);
  std::vector<double> nc_s;
  for (int pass = 0; pass <= p.repeats; ++pass) {
    for (auto [x, y] : points) {
      const size_t at[3] = {0, size_t(x), size_t(y)}, count[3] = {size_t(steps), 1, 1};
      const auto start = Clock::now();
      CheckNc(nc_get_vara_float(nc, var, at, count, buf.data()), "nc_get_vara_float");
      if (pass > 0) nc_s.push_back(Since(start));
    }
  }
  {
    const size_t at[3] = {0, size_t(points[0].first), size_t(points[0].second)};
    const size_t count[3] = {size_t(steps), 1, 1};
    CheckNc(nc_get_vara_float(nc, var, at, count, buf.data()), "nc_get_vara_float");
    if (std::memcmp(buf.data(), expected.data(), expected.size()) != 0) {
      gridstore::bench::Die("netCDF and GridStore differ");
    }
  }
  CheckNc(nc_close(nc), "nc_close");
  return Of(nc_s);
}

void Print(const grid::DataSetMeta& meta, int64_t steps, const MetaFigures& m,
           const SeriesFigures& sf, const Quantiles& peer) {
  std::printf("dataset: %ld hourly steps x 64 x 64 float32; series layout %s\n", long(steps),
              grid::SeriesLayoutToString(*meta.series).c_str());
  std::printf("| what | GridStore | netCDF-C | ratio |\n|---|---|---|---|\n");
  std::printf("| store open (the 5.3 GB store), p50 of 6 | %.2f ms | | |\n", m.open_s * 1e3);
  std::printf(
      "| first read of the meta after an open (a store of the two metas), p50 of 6: "
      "start + step / raw doubles (before) | %.3f / %.3f ms | | %.1fx |\n",
      m.first_meta_s * 1e3, m.first_raw_s * 1e3, m.first_raw_s / m.first_meta_s);
  std::printf("| meta decode p50, time axis as start + step (%zu B) | %.4f ms | | |\n",
              m.compact_bytes, m.compact_s * 1e3);
  std::printf("| meta decode p50, time axis as raw doubles (%zu B, before) | %.4f ms | | |\n",
              m.raw_bytes, m.raw_s * 1e3);
  std::printf(
      "| point's 40-year series, cache off: p50 / p90 | %.2f / %.2f ms | %.2f / %.2f ms | "
      "%.1fx |\n",
      sf.off.p50 * 1e3, sf.off.p90 * 1e3, peer.p50 * 1e3, peer.p90 * 1e3, peer.p50 / sf.off.p50);
  std::printf("| point's 40-year series, cache on: p50 / p90 | %.2f / %.2f ms | | %.1fx |\n",
              sf.on.p50 * 1e3, sf.on.p90 * 1e3, peer.p50 / sf.on.p50);
  std::printf("| blocks read / bytes read / decoded (cache off) | %ld / %.2f MB / %.2f MB | | |\n",
              long(sf.stats.blocks_read), double(sf.stats.bytes_read) / 1e6,
              double(sf.stats.bytes_decompressed) / 1e6);
  std::printf("| the same series from the planes (once, cache off) | %.0f ms | | %.0fx slower |\n",
              sf.planes_s * 1e3, sf.planes_s / sf.off.p50);
}

}  // namespace

int main(int argc, char** argv) {
  Params p;
  p.grib = "../shared/grib/era5-2mt-2019-03-uk.grib";
  CLI::App app("Decades of hourly data at a point: GridStore's series layout against netCDF-C");
  gridstore::bench::SetUpCommandLine(app);
  app.add_option("WORK_DIR", p.work_dir, "Where the store and the netCDF file are kept")
      ->required();
  app.add_option("--grib", p.grib, "The real field (ERA5 hourly 2 m temperature)");
  app.add_option("--steps", p.steps, "Hourly steps (40 years: 350640)")
      ->check(CLI::Range(int64_t{744}, int64_t{1} << 20));
  app.add_option("--points", p.points, "Random points (fixed seed)")->check(CLI::Range(1, 4096));
  app.add_option("--repeats", p.repeats, "Passes over the points after a warm-up pass")
      ->check(CLI::Range(1, 100));
  gridstore::bench::ParseCommandLine(app, argc, argv);
  std::filesystem::create_directories(p.work_dir);
  const std::string store_path = p.work_dir + "/store", nc_path = p.work_dir + "/decades.nc";

  Source source;
  auto store = CheckResult(grid::GridStore::Open(store_path, {.create_if_missing = true}), "open");
  if (!store->GetDataSetMeta(kId).ok()) {
    source = ReadGrib(p.grib);
    MakeStore(store.get(), source, p);
  }
  if (!std::filesystem::exists(nc_path)) {
    if (source.steps == 0) source = ReadGrib(p.grib);
    MakeNetCdf(nc_path, source, p);
  }
  (void)store->DeleteDataSet("decades-raw-axis");  // left by an earlier version of this bench
  store.reset();

  const MetaFigures m = MeasureMeta(p, store_path);
  store = CheckResult(grid::GridStore::Open(store_path, {}), "open");
  const grid::DataSetMeta meta = CheckResult(store->GetDataSetMeta(kId), "meta");
  const int64_t steps = meta.variables[0].shape[grid::kT];
  std::mt19937_64 rng(33);
  std::vector<std::pair<int64_t, int64_t>> points;
  for (int i = 0; i < p.points; ++i) {
    points.emplace_back(int64_t(rng() % kSide), int64_t(rng() % kSide));
  }
  const SeriesFigures sf = MeasureSeries(store.get(), p, steps, points);
  const Quantiles peer = MeasureNetCdf(nc_path, p, steps, points, sf.first_series);
  Print(meta, steps, m, sf, peer);
  return 0;
}
