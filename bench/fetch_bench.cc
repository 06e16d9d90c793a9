// Copyright 2026 The GridStore Authors.
//
// fetch_bench: the fetch benchmark of issue 5. GridStore and netCDF-C read the same boxes of the
// same data (written by bench/fetch_bench_data into WORK_DIR), side by side in one run:
//   Q1 one point's time series (all t, one z)   Q4 every variable at one point, one t, one z
//   Q2 a whole (x, y) plane                      Q5 a 4-D box 6 t x 5 z x 200 x 400 (throughput)
//   Q3 a 100 x 200 region at one t, z            Q6 a vertical profile (all z, one t, one point)
// Each query runs at deterministic pseudo-random positions (and, except Q4, on a random one of the
// variables); the same positions for every engine. Engines:
//   gridstore-1t, gridstore-2t   the store read-only, FetchOptions::parallelism 1 or 2 (the caller
//                                plus a pool worker), FetchOptions::use_cache = false: every block
//                                is read and decompressed (the main figures);
//   gridstore-1t/2t cache on     the same box fetched twice with use_cache = true, the second timed
//                                (every block from the decompressed-block cache; an extra column);
//   nc-deflate, nc-blosc-zstd, nc-contiguous
//                                netCDF-C nc_get_vara_float, one call per variable, HDF5 chunk
//                                cache off for the chunked files (no decoded-chunk cache on either
//                                side), single-threaded as netCDF-C is.
// Phases per query: (1) validation: every position through every engine, each result compared
// value by value (bit patterns) with nc-contiguous's, a mismatch exits 1; this also warms the page
// cache. (2) warm: timed runs, engines interleaved per position. (3) cold: before every run the
// page cache is dropped (sync; echo 3 > /proc/sys/vm/drop_caches; needs root) and the engine is
// opened afresh (GridStore::Open read-only + GetDataFetcher, or nc_open + nc_inq_varid), the open
// and the query timed separately. Every timed result's XXH3 hash is compared with the validated
// one. Code pages are locked (mlockall) before the first cold run so that a cold run measures
// reading data, not paging the program back in.
//
// Also measured in the same run: zstd's single-core decode speed on a sample of the store's own
// blocks (ZSTD_decompressDCtx of their payloads), which turns the bytes GridStore decoded
// (FetchStats::bytes_decompressed) into a lower bound on the time of a fetch on one core.
//
// Usage: fetch_bench WORK_DIR [--warm-runs 200] [--cold-runs 30] [--seed 1] [--json FILE]
//            [--queries Q1,Q2,...] [--no-cold] [--wait-idle PERCENT] [--wait-idle-max SECONDS]
//            [--nc-chunk-cache off|default] [--store DIR]
// --store DIR benchmarks another store holding the same dataset (e.g. imported with
// `gridstore import --frame-rows N`) instead of WORK_DIR/store.
// --wait-idle 85 waits before each phase (at most --wait-idle-max, 600 s) until the CPUs were 85%
// idle for 3 s; the other load during each phase is reported either way.
// Prints human tables on stdout (progress on stderr) and, with --json, everything including every
// sample.
#include <fcntl.h>
#include <netcdf.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "bench/fetch_queries.h"
#include "gridstore/grid/grid.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/internal/block_codec.h"
#include "gridstore/grid/internal/grid_keys.h"
#include "gridstore/grid/internal/grid_store_impl.h"

#ifndef GRIDSTORE_BUILD_TYPE
#define GRIDSTORE_BUILD_TYPE "?"
#endif

namespace {

namespace fs = std::filesystem;
namespace grid = gridstore::grid;
using grid::Shape4;
using nlohmann::json;
using Clock = std::chrono::steady_clock;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "fetch_bench: %s\n", message.c_str());
  std::exit(1);
}

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// ---- Options ----

struct Options {
  std::string work;
  // Another GridStore store holding the same dataset (e.g. imported with other frames) to
  // benchmark instead of WORK_DIR's; empty: the manifest's.
  std::string store;
  int warm_runs = 200;
  int cold_runs = 30;
  uint64_t seed = 1;
  std::string json_path;
  std::set<std::string> queries;  // empty: all
  bool cold = true;
  int wait_idle = 0;        // percent; 0: do not wait
  int wait_idle_max = 600;  // seconds per wait
  bool nc_chunk_cache = false;
};

int ParseInt(const std::string& flag, const std::string& text, int lo, int hi) {
  char* end = nullptr;
  const long v = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || v < lo || v > hi) {
    Die(flag + " wants an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) +
        "], not '" + text + "'");
  }
  return static_cast<int>(v);
}

Options ParseArgs(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Die(a + " wants a value");
      return argv[++i];
    };
    if (a == "--warm-runs") {
      o.warm_runs = ParseInt(a, value(), 1, 1000000);
    } else if (a == "--cold-runs") {
      o.cold_runs = ParseInt(a, value(), 1, 1000000);
    } else if (a == "--seed") {
      o.seed = static_cast<uint64_t>(ParseInt(a, value(), 0, 1 << 30));
    } else if (a == "--json") {
      o.json_path = value();
    } else if (a == "--queries") {
      std::stringstream list(value());
      for (std::string q; std::getline(list, q, ',');) o.queries.insert(q);
    } else if (a == "--no-cold") {
      o.cold = false;
    } else if (a == "--wait-idle") {
      o.wait_idle = ParseInt(a, value(), 0, 100);
    } else if (a == "--wait-idle-max") {
      o.wait_idle_max = ParseInt(a, value(), 0, 86400);
    } else if (a == "--store") {
      o.store = value();
    } else if (a == "--nc-chunk-cache") {
      const std::string v = value();
      if (v != "off" && v != "default") Die("--nc-chunk-cache wants off or default");
      o.nc_chunk_cache = v == "default";
    } else if (a == "-h" || a == "--help") {
      std::printf(
          "usage: fetch_bench WORK_DIR [--warm-runs 200] [--cold-runs 30] [--seed 1] "
          "[--json FILE]\n"
          "           [--queries Q1,Q2,...] [--no-cold] [--wait-idle PERCENT]\n"
          "           [--wait-idle-max SECONDS]\n"
          "           [--nc-chunk-cache off|default] [--store DIR]\n"
          "WORK_DIR is made by fetch_bench_data.\n");
      std::exit(0);
    } else if (!a.empty() && a[0] == '-') {
      Die("unknown option " + a);
    } else if (o.work.empty()) {
      o.work = a;
    } else {
      Die("more than one work directory");
    }
  }
  if (o.work.empty()) Die("no work directory (usage: fetch_bench WORK_DIR [options])");
  return o;
}

// ---- The data, as fetch_bench_data described it ----

struct Format {
  std::string name, path, description;
  uint64_t bytes = 0;        // on disk (a store: its whole directory)
  uint64_t block_bytes = 0;  // a store: its blocks alone
};

struct DataSet {
  json manifest;
  std::string id;
  Shape4 shape{};
  std::vector<std::string> variables;
  uint64_t raw_bytes = 0;
  std::vector<Format> formats;  // gridstore first
};

DataSet LoadDataSet(const fs::path& work) {
  std::ifstream in(work / "manifest.json");
  if (!in) Die("no " + (work / "manifest.json").string() + ": run fetch_bench_data first");
  DataSet d;
  d.manifest = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (d.manifest.is_discarded() || !d.manifest.contains("formats")) {
    Die((work / "manifest.json").string() + " is incomplete: rerun fetch_bench_data");
  }
  const json& data = d.manifest["data"];
  for (int a = 0; a < grid::kRank; ++a) d.shape[a] = data["shape"][a].get<int64_t>();
  for (const json& v : data["variables"]) d.variables.push_back(v["name"]);
  d.raw_bytes = data["raw_bytes"];
  for (const json& f : d.manifest["formats"]) {
    d.formats.push_back({f["name"], (work / f["path"].get<std::string>()).string(),
                         f["description"], f["bytes"], f.value("block_bytes", uint64_t{0})});
    if (f["name"] == "gridstore") d.id = f["dataset"];
  }
  if (d.id.empty() || d.formats.front().name != "gridstore") Die("the manifest names no store");
  return d;
}

// ---- Queries: bench/fetch_queries.h ----

using gridstore::bench::BoxString;
using gridstore::bench::MakeQueries;
using gridstore::bench::Query;
using gridstore::bench::Request;
using gridstore::bench::Rng;

std::vector<Request> MakeRequests(const Query& q, const DataSet& d, int n, uint64_t seed) {
  return gridstore::bench::MakeRequests(q, d.variables, d.shape, n, seed);
}

// ---- Engines ----

// One fetch's result: a span of floats per requested variable (in request order) over storage
// owned here, and what the fetch cost.
struct Output {
  grid::GridDataSet gs;
  std::vector<std::unique_ptr<float[]>> nc;
  std::vector<std::span<const float>> values;
  grid::FetchStats stats;  // GridStore only
  double seconds = 0;      // the fetch alone
};

class Engine {
 public:
  explicit Engine(std::string name) : name_(std::move(name)) {}
  virtual ~Engine() = default;
  const std::string& name() const { return name_; }
  virtual void Open() = 0;
  virtual void Close() = 0;
  virtual Output Fetch(const Request& request) = 0;
  // A new, closed engine of the same configuration (cold runs open a fresh one every time).
  virtual std::unique_ptr<Engine> Clone() const = 0;

 private:
  std::string name_;
};

class GridStoreEngine final : public Engine {
 public:
  GridStoreEngine(std::string name, std::string path, std::string dataset, int parallelism,
                  bool use_cache)
      : Engine(std::move(name)),
        path_(std::move(path)),
        dataset_(std::move(dataset)),
        parallelism_(parallelism),
        use_cache_(use_cache) {}

  void Open() override {
    // Pool workers = parallelism - 1: the calling thread works too (util/thread_pool.h).
    auto store =
        grid::GridStore::Open(path_, {.read_only = true, .threads = std::max(1, parallelism_ - 1)});
    if (!store.ok()) Die("opening " + path_ + ": " + store.status().ToString());
    store_ = std::move(store).value();
    auto fetcher = store_->GetDataFetcher(dataset_);
    if (!fetcher.ok()) Die("dataset " + dataset_ + ": " + fetcher.status().ToString());
    fetcher_ = std::move(fetcher).value();
    grid::FetchOptions options;
    options.parallelism = parallelism_;
    options.use_cache = use_cache_;
    fetcher_->set_options(options);
  }

  void Close() override {
    fetcher_.reset();
    store_.reset();
  }

  Output Fetch(const Request& r) override {
    fetcher_->SetVariablesToGet(r.variables);
    fetcher_->SetOriginShape(r.origin, r.shape);
    const auto start = Clock::now();
    auto result = fetcher_->Fetch();
    Output out;
    out.seconds = Since(start);
    if (!result.ok()) Die(name() + ": " + result.status().ToString());
    out.gs = std::move(result).value();
    out.stats = out.gs.stats;
    for (const std::string& v : r.variables) {
      const grid::Grid4D* g = out.gs.GetVariable(v);
      if (g == nullptr || g->type() != grid::DataType::kFloat32) Die(name() + ": no float " + v);
      out.values.push_back(g->data<float>());
    }
    return out;
  }

  std::unique_ptr<Engine> Clone() const override {
    return std::make_unique<GridStoreEngine>(name(), path_, dataset_, parallelism_, use_cache_);
  }

  grid::GridStore* store() { return store_.get(); }

 private:
  const std::string path_, dataset_;
  const int parallelism_;
  const bool use_cache_;
  std::unique_ptr<grid::GridStore> store_;
  std::unique_ptr<grid::GridDataFetcher> fetcher_;
};

void CheckNc(int rc, const std::string& what) {
  if (rc != NC_NOERR) Die(what + ": " + nc_strerror(rc));
}

class NetCdfEngine final : public Engine {
 public:
  NetCdfEngine(std::string name, std::string path, std::vector<std::string> variables,
               bool chunk_cache)
      : Engine(std::move(name)),
        path_(std::move(path)),
        variables_(std::move(variables)),
        chunk_cache_(chunk_cache) {}

  void Open() override {
    CheckNc(nc_open(path_.c_str(), NC_NOWRITE, &ncid_), "opening " + path_);
    for (const std::string& v : variables_) {
      int id;
      CheckNc(nc_inq_varid(ncid_, v.c_str(), &id), "variable " + v + " in " + path_);
      ids_[v] = id;
      int storage = NC_CONTIGUOUS;
      CheckNc(nc_inq_var_chunking(ncid_, id, &storage, nullptr), "chunking of " + v);
      // No decoded-chunk cache, like GridStore with use_cache = false. Each nc_get_vara call
      // still decodes every chunk it touches exactly once.
      if (storage == NC_CHUNKED && !chunk_cache_) {
        CheckNc(nc_set_var_chunk_cache(ncid_, id, 0, 0, 0.0f), "chunk cache of " + v);
      }
    }
  }

  void Close() override {
    if (ncid_ >= 0) nc_close(ncid_);
    ncid_ = -1;
  }

  Output Fetch(const Request& r) override {
    Output out;
    const size_t start[4] = {static_cast<size_t>(r.origin[0]), static_cast<size_t>(r.origin[1]),
                             static_cast<size_t>(r.origin[2]), static_cast<size_t>(r.origin[3])};
    const size_t count[4] = {static_cast<size_t>(r.shape[0]), static_cast<size_t>(r.shape[1]),
                             static_cast<size_t>(r.shape[2]), static_cast<size_t>(r.shape[3])};
    const size_t n = count[0] * count[1] * count[2] * count[3];
    std::vector<int> ids;
    for (const std::string& v : r.variables) ids.push_back(ids_.at(v));
    const auto t0 = Clock::now();
    // As GridStore does, allocate the (uninitialised) result inside the timed region.
    for (int id : ids) {
      out.nc.emplace_back(new float[n]);
      const int rc = nc_get_vara_float(ncid_, id, start, count, out.nc.back().get());
      if (rc != NC_NOERR) Die(name() + ": nc_get_vara_float: " + nc_strerror(rc));
    }
    out.seconds = Since(t0);
    for (const auto& buffer : out.nc) out.values.emplace_back(buffer.get(), n);
    return out;
  }

  std::unique_ptr<Engine> Clone() const override {
    return std::make_unique<NetCdfEngine>(name(), path_, variables_, chunk_cache_);
  }

 private:
  const std::string path_;
  const std::vector<std::string> variables_;
  const bool chunk_cache_;
  int ncid_ = -1;
  std::map<std::string, int> ids_;
};

uint64_t Hash(const Output& out) {
  uint64_t h = 0;
  for (const auto& v : out.values) h = XXH3_64bits_withSeed(v.data(), v.size_bytes(), h);
  return h;
}

// Compares bit patterns (so fill values and NaNs compare too); on a difference prints where.
bool SameValues(const Output& a, const Output& b, const Request& r, const std::string& what) {
  if (a.values.size() != b.values.size()) {
    std::fprintf(stderr, "MISMATCH %s: %zu vs %zu variables\n", what.c_str(), a.values.size(),
                 b.values.size());
    return false;
  }
  for (size_t v = 0; v < a.values.size(); ++v) {
    const auto& x = a.values[v];
    const auto& y = b.values[v];
    if (x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size_bytes()) == 0) continue;
    size_t i = 0;
    while (i < std::min(x.size(), y.size()) && std::memcmp(&x[i], &y[i], sizeof(float)) == 0) ++i;
    const Shape4& s = r.shape;
    const int64_t yy = static_cast<int64_t>(i) % s[3];
    const int64_t xx = static_cast<int64_t>(i) / s[3] % s[2];
    const int64_t zz = static_cast<int64_t>(i) / (s[3] * s[2]) % s[1];
    const int64_t tt = static_cast<int64_t>(i) / (s[3] * s[2] * s[1]);
    std::fprintf(stderr,
                 "MISMATCH %s: variable %s, box origin (%lld, %lld, %lld, %lld) shape %s: %zu vs "
                 "%zu values; first difference at (t, z, x, y) = (%lld, %lld, %lld, %lld): %.9g "
                 "vs %.9g\n",
                 what.c_str(), r.variables[v].c_str(), static_cast<long long>(r.origin[0]),
                 static_cast<long long>(r.origin[1]), static_cast<long long>(r.origin[2]),
                 static_cast<long long>(r.origin[3]), BoxString(s).c_str(), x.size(), y.size(),
                 static_cast<long long>(r.origin[0] + tt), static_cast<long long>(r.origin[1] + zz),
                 static_cast<long long>(r.origin[2] + xx), static_cast<long long>(r.origin[3] + yy),
                 i < x.size() ? x[i] : NAN, i < y.size() ? y[i] : NAN);
    return false;
  }
  return true;
}

// ---- The machine ----

// Drops the page cache (and dentries and inodes). False if not permitted.
bool DropPageCache() {
  sync();
  const int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
  if (fd < 0) return false;
  const bool ok = write(fd, "3\n", 2) == 2;
  close(fd);
  return ok;
}

// Fraction of the bytes of `path` (a file, or every file under a directory) in the page cache.
double ResidentFraction(const fs::path& path) {
  uint64_t resident = 0, total = 0;
  auto add = [&](const fs::path& file) {
    const int fd = open(file.c_str(), O_RDONLY);
    if (fd < 0) return;
    const uint64_t size = fs::file_size(file);
    if (size > 0) {
      void* map = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
      if (map != MAP_FAILED) {
        const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        std::vector<unsigned char> in_core((size + page - 1) / page);
        if (mincore(map, size, in_core.data()) == 0) {
          for (unsigned char c : in_core) resident += (c & 1) ? page : 0;
          total += in_core.size() * page;
        }
        munmap(map, size);
      }
    }
    close(fd);
  };
  if (fs::is_directory(path)) {
    for (const auto& e : fs::recursive_directory_iterator(path)) {
      if (e.is_regular_file()) add(e.path());
    }
  } else {
    add(path);
  }
  return total == 0 ? 0.0 : static_cast<double>(resident) / static_cast<double>(total);
}

// The aggregate CPU line of /proc/stat: idle (idle + iowait) and total jiffies.
std::pair<uint64_t, uint64_t> CpuJiffies() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  in >> cpu;
  uint64_t v, idle = 0, total = 0;
  for (int i = 0; i < 8 && in >> v; ++i) {
    total += v;
    if (i == 3 || i == 4) idle += v;
  }
  return {idle, total};
}

// Waits (at most `max_seconds`) until the CPUs were at least `percent` idle for 3 seconds in a
// row; the machine may be shared. Returns the seconds waited, negative if it gave up.
double WaitIdle(int percent, int max_seconds) {
  if (percent <= 0) return 0;
  const auto start = Clock::now();
  int good = 0;
  auto last = CpuJiffies();
  while (good < 3) {
    if (Since(start) > max_seconds) return -Since(start);
    usleep(1000000);
    const auto now = CpuJiffies();
    const double total = static_cast<double>(now.second - last.second);
    const double idle = total > 0 ? 100.0 * static_cast<double>(now.first - last.first) / total : 0;
    good = idle >= percent ? good + 1 : 0;
    last = now;
  }
  return Since(start);
}

double ProcessCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// How busy the machine was with other work during a phase: busy CPU time of the whole machine
// (/proc/stat) minus this process's CPU time, per wall second. 0 on an otherwise idle machine;
// 1 means one core was taken by something else all along. Shows which figures were disturbed.
class LoadMeter {
 public:
  LoadMeter() : start_(Clock::now()), jiffies_(CpuJiffies()), own_(ProcessCpuSeconds()) {}
  double OtherCores() const {
    const auto now = CpuJiffies();
    const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
    const double busy =
        static_cast<double>((now.second - jiffies_.second) - (now.first - jiffies_.first)) / tick;
    const double wall = Since(start_);
    return wall > 0 ? std::max(0.0, busy - (ProcessCpuSeconds() - own_)) / wall : 0;
  }

 private:
  Clock::time_point start_;
  std::pair<uint64_t, uint64_t> jiffies_;
  double own_;
};

std::string ReadFirstLine(const std::string& path, const std::string& prefix) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) {
      const size_t colon = line.find(':');
      return colon == std::string::npos ? line
                                        : line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "?";
}

// "4.9.0" of nc_inq_libvers()'s "4.9.0 of Aug  7 2022 23:41:41 $".
std::string NetCdfVersion() {
  const std::string v = nc_inq_libvers();
  return v.substr(0, v.find(' '));
}

std::string UtcNow() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

// ---- zstd decode speed on the store's own blocks ----

struct DecodeSpeed {
  int blocks = 0;
  uint64_t raw_bytes = 0, stored_bytes = 0;
  double zstd_mb_s = 0;          // ZSTD_decompressDCtx of the payloads, raw MB per CPU second
  double decode_block_mb_s = 0;  // grid::DecodeBlock (zstd + unshuffle + XXH3 check)
};

DecodeSpeed MeasureDecodeSpeed(grid::GridStore* store, const DataSet& d, uint64_t seed) {
  const grid::DataSetMeta meta = [&] {
    auto m = store->GetDataSetMeta(d.id);
    if (!m.ok()) Die("meta of " + d.id + ": " + m.status().ToString());
    return *m;
  }();
  const int64_t bx = meta.layout.block_x, by = meta.layout.block_y;
  const int64_t rows = (d.shape[2] + bx - 1) / bx, cols = (d.shape[3] + by - 1) / by;
  Rng rng(seed ^ 0xdec0de);
  struct Sample {
    std::string block;
    uint32_t rows, cols;
    const grid::BlockDictionary* dictionary;  // the variable's, if its frames use one
  };
  // Each variable's dictionary (framed layouts), as the fetcher would use it.
  std::map<std::string, std::shared_ptr<const grid::BlockDictionary>> dictionaries;
  for (const std::string& v : d.variables) {
    std::string stored;
    const gridstore::Status st =
        grid::KvStoreOf(store)->Get({}, gridstore::storage::Table::kData,
                                    grid::DictionaryKey(d.id, meta.key_incarnation(), v), &stored);
    if (st.IsNotFound()) continue;
    if (!st.ok()) Die("reading the dictionary of " + v + ": " + st.ToString());
    auto dict = grid::BlockDictionary::Load(stored);
    if (!dict.ok()) Die("dictionary of " + v + ": " + dict.status().ToString());
    dictionaries[v] = *dict;
  }
  std::vector<Sample> sample;
  DecodeSpeed speed;
  for (int i = 0; i < 256; ++i) {
    const std::string& v = d.variables[rng.Below(static_cast<int64_t>(d.variables.size()))];
    const grid::BlockAddress a{d.id,
                               meta.key_incarnation(),
                               v,
                               grid::kPlaneLayout,
                               static_cast<uint32_t>(rng.Below(d.shape[0])),
                               static_cast<uint32_t>(rng.Below(d.shape[1])),
                               static_cast<uint32_t>(rng.Below(rows)),
                               static_cast<uint32_t>(rng.Below(cols))};
    Sample s;
    const gridstore::Status st = grid::KvStoreOf(store)->Get({}, gridstore::storage::Table::kData,
                                                             grid::DataKey(a), &s.block);
    if (!st.ok()) Die("reading a sample block: " + st.ToString());
    auto header = grid::ReadBlockHeader(s.block);
    if (!header.ok()) Die("sample block: " + header.status().ToString());
    if (header->codec == grid::Codec::kNone) return speed;  // nothing to decompress
    s.rows = header->rows;
    s.cols = header->cols;
    s.dictionary = header->dictionary ? dictionaries[v].get() : nullptr;
    if (header->dictionary && s.dictionary == nullptr)
      Die("the dictionary of " + v + " is missing");
    speed.raw_bytes += header->raw_size;
    speed.stored_bytes += s.block.size();
    sample.push_back(std::move(s));
  }
  speed.blocks = static_cast<int>(sample.size());
  constexpr size_t kHeader = 36;  // docs/format.md, "Blocks"
  std::vector<char> out(static_cast<size_t>(bx * by * 8));
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  // Repeat the sample until at least a second of this thread's CPU has gone into it.
  auto rate = [&](auto&& decode) {
    decode();  // warm the caches and the context
    const double start = ThreadCpuSeconds();
    uint64_t bytes = 0;
    do {
      bytes += decode();
    } while (ThreadCpuSeconds() - start < 1.0);
    return static_cast<double>(bytes) / (ThreadCpuSeconds() - start) / 1e6;
  };
  speed.zstd_mb_s = rate([&] {
    uint64_t bytes = 0;
    for (const Sample& s : sample) {
      // A framed block (format version 2): frame_rows, count, size table, then the frames.
      std::vector<std::string_view> units;
      if (static_cast<uint8_t>(s.block[2]) == grid::kFramedBlockVersion) {
        uint32_t frames;
        std::memcpy(&frames, s.block.data() + kHeader + 4, 4);
        size_t offset = kHeader + 8 + 4 * size_t{frames};
        for (uint32_t f = 0; f < frames; ++f) {
          uint32_t size;
          std::memcpy(&size, s.block.data() + kHeader + 8 + 4 * size_t{f}, 4);
          units.push_back(std::string_view(s.block).substr(offset, size));
          offset += size;
        }
      } else {
        units.push_back(std::string_view(s.block).substr(kHeader));
      }
      for (std::string_view u : units) {
        const size_t n =
            s.dictionary != nullptr
                ? ZSTD_decompress_usingDDict(
                      dctx, out.data(), out.size(), u.data(), u.size(),
                      static_cast<const ZSTD_DDict*>(s.dictionary->decompression_dictionary()))
                : ZSTD_decompressDCtx(dctx, out.data(), out.size(), u.data(), u.size());
        if (ZSTD_isError(n)) Die(std::string("zstd: ") + ZSTD_getErrorName(n));
        bytes += n;
      }
    }
    return bytes;
  });
  speed.decode_block_mb_s = rate([&] {
    uint64_t bytes = 0;
    for (const Sample& s : sample) {
      const gridstore::Status st = grid::DecodeBlock(s.block, grid::DataType::kFloat32, s.rows,
                                                     s.cols, out.data(), s.dictionary);
      if (!st.ok()) Die("DecodeBlock: " + st.ToString());
      bytes += uint64_t{s.rows} * s.cols * 4;
    }
    return bytes;
  });
  ZSTD_freeDCtx(dctx);
  return speed;
}

// ---- Statistics ----

struct Summary {
  size_t n = 0;
  double p50 = 0, p99 = 0, mean = 0;
};

// Nearest-rank percentiles (p99 of fewer than 100 samples is the largest but at most one).
Summary Summarize(std::vector<double> v) {
  Summary s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  auto rank = [&](double p) {
    const size_t r = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));
    return v[std::clamp<size_t>(r, 1, v.size()) - 1];
  };
  s.p50 = rank(0.50);
  s.p99 = rank(0.99);
  s.mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  return s;
}

json SummaryJson(const std::vector<double>& seconds) {
  const Summary s = Summarize(seconds);
  std::vector<double> ms;
  for (double x : seconds) ms.push_back(std::round(x * 1e7) / 1e4);  // ms, 0.1 us resolution
  return {{"n", s.n},
          {"p50_ms", s.p50 * 1e3},
          {"p99_ms", s.p99 * 1e3},
          {"mean_ms", s.mean * 1e3},
          {"samples_ms", ms}};
}

double Median(std::vector<double> v) { return Summarize(std::move(v)).p50; }

// 3 significant digits: 0.0123, 1.23, 12.3, 123, 1234.
std::string Ms(double seconds) {
  const double ms = seconds * 1e3;
  char buf[32];
  if (ms < 0.1) {
    std::snprintf(buf, sizeof buf, "%.4f", ms);
  } else if (ms < 1) {
    std::snprintf(buf, sizeof buf, "%.3f", ms);
  } else if (ms < 10) {
    std::snprintf(buf, sizeof buf, "%.2f", ms);
  } else if (ms < 100) {
    std::snprintf(buf, sizeof buf, "%.1f", ms);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f", ms);
  }
  return buf;
}

std::string Ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof buf, r < 10 ? "%.2fx" : "%.1fx", r);
  return buf;
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string Thousands(uint64_t v) {
  const std::string digits = std::to_string(v);
  std::string s;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) s += ',';
    s += digits[i];
  }
  return s;
}

// ---- The run ----

// Timings of one engine on one query.
struct EngineRuns {
  std::vector<double> warm, cold_query, cold_open, cold_total;
  std::vector<double> blocks, bytes_decoded, bytes_read, cold_bytes_decoded;  // GridStore
  uint64_t bytes_returned = 0;
};

struct QueryResult {
  Query query;
  std::map<std::string, EngineRuns> runs;  // by engine name
  // Other work on the machine during the warm and cold phases, in cores (LoadMeter), and the
  // seconds waited for idle CPUs before each phase (negative: gave up waiting).
  double warm_other_cores = 0, cold_other_cores = 0;
  double warm_waited = 0, cold_waited = 0;
};

constexpr const char* kGs1 = "gridstore-1t";
constexpr const char* kGs2 = "gridstore-2t";
constexpr const char* kGs1Cache = "gridstore-1t cache on";
constexpr const char* kGs2Cache = "gridstore-2t cache on";

}  // namespace

int main(int argc, char** argv) {
  const Options o = ParseArgs(argc, argv);
  setenv("BLOSC_NTHREADS", "1", 1);  // blosc decompresses on the calling thread only
  const DataSet d = LoadDataSet(o.work);
  const auto started = Clock::now();

  // Engines: GridStore with 1 and 2 threads (cache off), the same with the cache on, and every
  // netCDF variant present. nc-contiguous is the reference for validation.
  std::vector<std::unique_ptr<Engine>> engines;  // main engines, cache off
  std::vector<std::unique_ptr<Engine>> cache_engines;
  const std::string store_path = o.store.empty() ? d.formats.front().path : o.store;
  const bool framed_store = [&] {
    auto store = grid::GridStore::Open(store_path, {.read_only = true});
    if (!store.ok()) Die("opening " + store_path + ": " + store.status().ToString());
    auto meta = (*store)->GetDataSetMeta(d.id);
    if (!meta.ok()) Die("meta of " + d.id + ": " + meta.status().ToString());
    return meta->layout.frame_rows > 0 && meta->layout.frame_rows < meta->layout.block_x;
  }();
  engines.push_back(std::make_unique<GridStoreEngine>(kGs1, store_path, d.id, 1, false));
  engines.push_back(std::make_unique<GridStoreEngine>(kGs2, store_path, d.id, 2, false));
  cache_engines.push_back(std::make_unique<GridStoreEngine>(kGs1Cache, store_path, d.id, 1, true));
  cache_engines.push_back(std::make_unique<GridStoreEngine>(kGs2Cache, store_path, d.id, 2, true));
  std::vector<std::string> nc_names;
  for (const char* name : {"nc-deflate", "nc-blosc-zstd", "nc-contiguous"}) {
    for (const Format& f : d.formats) {
      if (f.name != name) continue;
      engines.push_back(
          std::make_unique<NetCdfEngine>(name, f.path, d.variables, o.nc_chunk_cache));
      nc_names.push_back(name);
    }
  }
  Engine* reference = nullptr;
  for (auto& e : engines) {
    if (e->name() == "nc-contiguous") reference = e.get();
  }
  if (reference == nullptr) Die("no nc-contiguous variant to validate against");

  json report;
  report["bench"] = "fetch";
  report["date"] = UtcNow();
  report["work_dir"] = o.work;
  report["store"] = store_path;
  report["data"] = d.manifest["data"];
  report["generation"] = d.manifest.value("steps", json::object());

  // ---- Machine and method ----
  utsname uts{};
  uname(&uts);
  const std::string cpu = ReadFirstLine("/proc/cpuinfo", "model name");
  const std::string mem = ReadFirstLine("/proc/meminfo", "MemTotal");
  report["machine"] = {{"cpu", cpu},
                       {"cores", sysconf(_SC_NPROCESSORS_ONLN)},
                       {"memory", mem},
                       {"kernel", std::string(uts.release)},
                       {"netcdf", NetCdfVersion()},
                       {"zstd", ZSTD_versionString()},
                       {"build_type", GRIDSTORE_BUILD_TYPE}};
  bool cold = o.cold;
  std::string cold_note;
  if (cold && !DropPageCache()) {
    cold = false;
    cold_note = "cold runs skipped: cannot write /proc/sys/vm/drop_caches (needs root)";
  } else if (cold) {
    const Format& contiguous =
        *std::find_if(d.formats.begin(), d.formats.end(),
                      [](const Format& f) { return f.name == "nc-contiguous"; });
    const double left = ResidentFraction(contiguous.path);
    cold_note =
        "page cache dropped before every cold run (sync; echo 3 > "
        "/proc/sys/vm/drop_caches), checked once: " +
        Fixed(100 * left, 2) + "% of " + fs::path(contiguous.path).filename().string() +
        " resident after a drop; then a fresh open: GridStore::Open(read_only) + "
        "GetDataFetcher, or nc_open + nc_inq_varid (+ chunk cache setting); the open and "
        "the fetch are timed separately; program code locked in RAM (mlockall)";
  } else {
    cold_note = "cold runs skipped (--no-cold)";
  }
  const std::string warm_note =
      "the page cache holds every byte read (each position was fetched by every engine "
      "in the validation pass just before); GridStore's decompressed-block cache OFF "
      "(FetchOptions::use_cache = false); netCDF-C's HDF5 chunk cache " +
      std::string(o.nc_chunk_cache ? "at its default" : "OFF (nc_set_var_chunk_cache size 0)") +
      "; RocksDB's own block cache of stored (compressed) SST blocks at its default (64 MB); "
      "'cache on' = the same box fetched twice with use_cache = true, the second timed";
  report["method"] = {{"warm", warm_note},
                      {"cold", cold_note},
                      {"warm_runs", o.warm_runs},
                      {"cold_runs", cold ? o.cold_runs : 0},
                      {"seed", o.seed},
                      {"threads",
                       "gridstore-1t: FetchOptions::parallelism 1 (the calling thread); "
                       "gridstore-2t: parallelism 2 (the caller + 1 pool worker); "
                       "GridStoreOptions::threads = max(1, parallelism - 1); "
                       "netCDF-C: one thread"},
                      {"validation",
                       "every position through every engine, bit-exact against "
                       "nc-contiguous; every timed result's XXH3 against that"}};

  // ---- zstd decode speed ----
  std::fprintf(stderr, "measuring zstd decode speed on the store's blocks...\n");
  DecodeSpeed speed;
  {
    GridStoreEngine probe("probe", store_path, d.id, 1, false);
    probe.Open();
    speed = MeasureDecodeSpeed(probe.store(), d, o.seed);
    probe.Close();
  }
  report["decode_speed"] = {
      {"blocks_sampled", speed.blocks},
      {"sample_raw_bytes", speed.raw_bytes},
      {"sample_stored_bytes", speed.stored_bytes},
      {"zstd_decompress_mb_per_cpu_s", speed.zstd_mb_s},
      {"decode_block_mb_per_cpu_s", speed.decode_block_mb_s},
      {"how",
       "one thread: ZSTD_decompressDCtx of the payloads (after the 36-byte header) of a "
       "pseudo-random sample of the store's blocks, repeated for >= 1 s of thread CPU "
       "time; decode_block = grid::DecodeBlock (zstd + unshuffle + XXH3 check)"}};

  // ---- Queries ----
  std::vector<QueryResult> results;
  bool locked = false;
  auto wait_idle = [&] { return WaitIdle(o.wait_idle, o.wait_idle_max); };
  for (const Query& q : MakeQueries(d.shape)) {
    if (!o.queries.empty() && !o.queries.count(q.id)) continue;
    QueryResult qr;
    qr.query = q;
    const int n = std::max(o.warm_runs, cold ? o.cold_runs : 0);
    const std::vector<Request> requests = MakeRequests(q, d, n, o.seed);
    std::vector<uint64_t> hashes(n);

    // (1) Validation, which also warms the page cache.
    std::fprintf(stderr, "%s %s (%s): validating %d positions...\n", q.id.c_str(), q.name.c_str(),
                 BoxString(q.shape).c_str(), n);
    for (auto& e : engines) e->Open();
    for (auto& e : cache_engines) e->Open();
    for (int i = 0; i < n; ++i) {
      const Output expected = reference->Fetch(requests[i]);
      hashes[i] = Hash(expected);
      for (auto* list : {&engines, &cache_engines}) {
        for (auto& e : *list) {
          if (e.get() == reference) continue;
          const Output got = e->Fetch(requests[i]);
          if (!SameValues(got, expected, requests[i],
                          q.id + " " + e->name() + " vs nc-contiguous")) {
            return 1;
          }
        }
      }
    }

    // (2) Warm: engines interleaved per position, in rotating order.
    qr.warm_waited = wait_idle();
    std::fprintf(stderr, "%s: %d warm runs (waited %.0f s for idle CPUs)...\n", q.id.c_str(),
                 o.warm_runs, qr.warm_waited);
    const LoadMeter warm_load;
    auto check = [&](const Output& out, int i, const std::string& engine) {
      if (Hash(out) != hashes[i]) {
        std::fprintf(stderr, "MISMATCH %s %s run %d: result differs from the validated one\n",
                     q.id.c_str(), engine.c_str(), i);
        std::exit(1);
      }
    };
    for (int i = 0; i < o.warm_runs; ++i) {
      for (size_t k = 0; k < engines.size(); ++k) {
        Engine& e = *engines[(k + static_cast<size_t>(i)) % engines.size()];
        const Output out = e.Fetch(requests[i]);
        check(out, i, e.name());
        EngineRuns& r = qr.runs[e.name()];
        r.warm.push_back(out.seconds);
        r.blocks.push_back(static_cast<double>(out.stats.blocks));
        r.bytes_decoded.push_back(static_cast<double>(out.stats.bytes_decompressed));
        r.bytes_read.push_back(static_cast<double>(out.stats.bytes_read));
        r.bytes_returned = 0;
        for (const auto& v : out.values) r.bytes_returned += v.size_bytes();
      }
      for (auto& e : cache_engines) {
        e->Fetch(requests[i]);  // fills the cache
        const Output out = e->Fetch(requests[i]);
        check(out, i, e->name());
        // A framed store caches only whole-block decodes: a point or a narrow box decodes its
        // frames again (docs/design-notes.md).
        if (out.stats.cache_hits != out.stats.blocks && !framed_store) {
          Die(e->name() + ": expected every block from the cache, got " +
              std::to_string(out.stats.cache_hits) + " of " + std::to_string(out.stats.blocks));
        }
        qr.runs[e->name()].warm.push_back(out.seconds);
      }
    }
    qr.warm_other_cores = warm_load.OtherCores();
    for (auto& e : engines) e->Close();
    for (auto& e : cache_engines) e->Close();

    // (3) Cold: a fresh engine after every drop of the page cache.
    if (cold) {
      if (!locked) {
        // Every library and filter plugin is loaded by now; keep their pages through the drops.
        locked = mlockall(MCL_CURRENT) == 0;
        if (!locked) std::fprintf(stderr, "warning: mlockall failed: %s\n", std::strerror(errno));
      }
      qr.cold_waited = wait_idle();
      std::fprintf(stderr, "%s: %d cold runs (waited %.0f s for idle CPUs)...\n", q.id.c_str(),
                   o.cold_runs, qr.cold_waited);
      const LoadMeter cold_load;
      for (int i = 0; i < o.cold_runs; ++i) {
        for (size_t k = 0; k < engines.size(); ++k) {
          const Engine& proto = *engines[(k + static_cast<size_t>(i)) % engines.size()];
          std::unique_ptr<Engine> e = proto.Clone();
          if (!DropPageCache()) Die("dropping the page cache failed");
          const auto t0 = Clock::now();
          e->Open();
          const double open_seconds = Since(t0);
          const Output out = e->Fetch(requests[i]);
          e->Close();
          check(out, i, e->name());
          EngineRuns& r = qr.runs[e->name()];
          r.cold_open.push_back(open_seconds);
          r.cold_query.push_back(out.seconds);
          r.cold_total.push_back(open_seconds + out.seconds);
          r.cold_bytes_decoded.push_back(static_cast<double>(out.stats.bytes_decompressed));
        }
      }
      qr.cold_other_cores = cold_load.OtherCores();
    }
    results.push_back(std::move(qr));
  }

  if (cold && !locked) {
    report["method"]["cold"] = cold_note += " (mlockall FAILED: code pages may have been re-read)";
  }

  // ---- Report ----
  const double raw = static_cast<double>(d.raw_bytes);
  std::printf("# GridStore fetch benchmark (bench/fetch_bench), %s\n\n",
              report["date"].get<std::string>().c_str());
  std::printf("Data: %s: %zu variables (", o.work.c_str(), d.variables.size());
  for (size_t i = 0; i < d.variables.size(); ++i) {
    std::printf("%s%s", i ? ", " : "", d.variables[i].c_str());
  }
  std::printf(") x %s (t x z x lat x lon) float32 = %s bytes raw.\n", BoxString(d.shape).c_str(),
              Thousands(d.raw_bytes).c_str());
  std::printf("DERIVED data, %s:\n", d.manifest["data"]["description"].get<std::string>().c_str());
  for (const json& v : d.manifest["data"]["variables"]) {
    std::printf("  %-7s from %s: %s\n", v["name"].get<std::string>().c_str(),
                v["source_file"].get<std::string>().c_str(),
                v["derivation"].get<std::string>().c_str());
  }
  std::printf("Machine: %s, %ld cores, %s RAM, Linux %s, netCDF %s, zstd %s, %s build.\n\n",
              cpu.c_str(), sysconf(_SC_NPROCESSORS_ONLN), mem.c_str(), uts.release,
              NetCdfVersion().c_str(), ZSTD_versionString(), GRIDSTORE_BUILD_TYPE);

  std::printf("## Formats (compression ratio = raw bytes / bytes on disk)\n\n");
  std::printf("| format | what | bytes on disk | ratio |\n|---|---|---:|---:|\n");
  json formats = json::array();
  for (const Format& f : d.formats) {
    std::string what = f.description;
    if (f.block_bytes > 0) {
      what += "; directory size (settled, no WAL); the blocks alone: " + Thousands(f.block_bytes) +
              " bytes, ratio " + Fixed(raw / static_cast<double>(f.block_bytes), 3);
    }
    std::printf("| %s | %s | %s | %.3f |\n", f.name.c_str(), what.c_str(),
                Thousands(f.bytes).c_str(), raw / static_cast<double>(f.bytes));
    formats.push_back({{"name", f.name},
                       {"description", f.description},
                       {"bytes", f.bytes},
                       {"ratio", raw / static_cast<double>(f.bytes)}});
    if (f.block_bytes > 0) formats.back()["block_bytes"] = f.block_bytes;
  }
  report["formats"] = formats;
  std::printf(
      "\nzstd single-core decode speed, measured in this run: %.0f MB/s (ZSTD_decompressDCtx "
      "on %d of the store's blocks, %.2f MB raw, ratio %.2f); whole grid::DecodeBlock "
      "(zstd + unshuffle + XXH3): %.0f MB/s.\n\n",
      speed.zstd_mb_s, speed.blocks, static_cast<double>(speed.raw_bytes) / 1e6,
      static_cast<double>(speed.raw_bytes) /
          static_cast<double>(std::max<uint64_t>(1, speed.stored_bytes)),
      speed.decode_block_mb_s);

  std::printf(
      "Queries (positions pseudo-random, seed %llu; one random variable per run except Q4):\n",
      static_cast<unsigned long long>(o.seed));
  for (const QueryResult& qr : results) {
    std::printf("  %s %-26s box %s (t x z x x x y)%s\n", qr.query.id.c_str(), qr.query.name.c_str(),
                BoxString(qr.query.shape).c_str(),
                qr.query.all_variables ? ", every variable" : "");
  }
  std::printf("\nWarm: %s.\nCold: %s.\nThreads: %s.\nValidation: %s: all equal.\n\n",
              warm_note.c_str(), cold_note.c_str(),
              report["method"]["threads"].get<std::string>().c_str(),
              report["method"]["validation"].get<std::string>().c_str());

  // One table of medians / p99 with ratios netCDF / GridStore.
  auto timing_table = [&](const char* title, auto member) {
    std::printf("## %s: median / p99 ms; ratio = netCDF median / GridStore median (1t, 2t)\n\n",
                title);
    std::printf("| query | gridstore-1t | gridstore-2t |");
    for (const std::string& nc : nc_names) std::printf(" %s | ratio 1t, 2t |", nc.c_str());
    std::printf("\n|---|---:|---:|");
    for (size_t i = 0; i < nc_names.size(); ++i) std::printf("---:|---:|");
    std::printf("\n");
    for (const QueryResult& qr : results) {
      const Summary g1 = Summarize(qr.runs.at(kGs1).*member);
      const Summary g2 = Summarize(qr.runs.at(kGs2).*member);
      std::printf("| %s %s | %s / %s | %s / %s |", qr.query.id.c_str(), qr.query.name.c_str(),
                  Ms(g1.p50).c_str(), Ms(g1.p99).c_str(), Ms(g2.p50).c_str(), Ms(g2.p99).c_str());
      for (const std::string& nc : nc_names) {
        const Summary s = Summarize(qr.runs.at(nc).*member);
        std::printf(" %s / %s | %s, %s |", Ms(s.p50).c_str(), Ms(s.p99).c_str(),
                    Ratio(s.p50 / g1.p50).c_str(), Ratio(s.p50 / g2.p50).c_str());
      }
      std::printf("\n");
    }
    std::printf("\n");
  };
  timing_table("Warm (GridStore block cache off)", &EngineRuns::warm);
  if (cold) {
    timing_table("Cold, fetch after a fresh open", &EngineRuns::cold_query);
    timing_table("Cold, open + fetch", &EngineRuns::cold_total);
    std::printf("## Cold open alone: median / p99 ms\n\n| query |");
    for (auto& e : engines) std::printf(" %s |", e->name().c_str());
    std::printf("\n|---|");
    for (size_t i = 0; i < engines.size(); ++i) std::printf("---:|");
    std::printf("\n");
    for (const QueryResult& qr : results) {
      std::printf("| %s |", qr.query.id.c_str());
      for (auto& e : engines) {
        const Summary s = Summarize(qr.runs.at(e->name()).cold_open);
        std::printf(" %s / %s |", Ms(s.p50).c_str(), Ms(s.p99).c_str());
      }
      std::printf("\n");
    }
    std::printf("\n");
  }

  std::printf(
      "## GridStore's decoding work (warm medians) and its bound\n\n"
      "bound = bytes decoded / zstd single-core decode speed (%.0f MB/s): the fetch's zstd work "
      "alone on one core; 2 threads can at best halve it.\n\n",
      speed.zstd_mb_s);
  std::printf(
      "| query | blocks | bytes decoded | bytes read (stored) | bytes returned | bound 1 core | "
      "1t / bound | 2t / (bound / 2) | 1t cache on | 2t cache on |\n"
      "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const QueryResult& qr : results) {
    const EngineRuns& r1 = qr.runs.at(kGs1);
    const double decoded = Median(r1.bytes_decoded);
    const double bound = speed.zstd_mb_s > 0 ? decoded / (speed.zstd_mb_s * 1e6) : 0;
    const double t1 = Median(r1.warm), t2 = Median(qr.runs.at(kGs2).warm);
    const Summary c1 = Summarize(qr.runs.at(kGs1Cache).warm);
    const Summary c2 = Summarize(qr.runs.at(kGs2Cache).warm);
    std::printf("| %s | %.0f | %s | %s | %s | %s ms | %s | %s | %s / %s | %s / %s |\n",
                qr.query.id.c_str(), Median(r1.blocks),
                Thousands(static_cast<uint64_t>(decoded)).c_str(),
                Thousands(static_cast<uint64_t>(Median(r1.bytes_read))).c_str(),
                Thousands(r1.bytes_returned).c_str(), Ms(bound).c_str(),
                bound > 0 ? Ratio(t1 / bound).c_str() : "-",
                bound > 0 ? Ratio(t2 / (bound / 2)).c_str() : "-", Ms(c1.p50).c_str(),
                Ms(c1.p99).c_str(), Ms(c2.p50).c_str(), Ms(c2.p99).c_str());
  }
  std::printf("\n");

  std::printf(
      "## Q5 throughput: MB/s of result (bytes returned / median time)\n\n| engine | warm "
      "|%s\n|---|---:|%s\n",
      cold ? " cold fetch | cold open + fetch |" : "", cold ? "---:|---:|" : "");
  for (const QueryResult& qr : results) {
    if (qr.query.id != "Q5") continue;
    const double bytes = static_cast<double>(qr.runs.at(kGs1).bytes_returned);
    std::vector<std::string> names;
    for (auto& e : engines) names.push_back(e->name());
    names.push_back(kGs1Cache);
    names.push_back(kGs2Cache);
    for (const std::string& name : names) {
      const EngineRuns& r = qr.runs.at(name);
      std::printf("| %s | %.0f |", name.c_str(), bytes / Median(r.warm) / 1e6);
      if (cold && !r.cold_query.empty()) {
        std::printf(" %.0f | %.0f |", bytes / Median(r.cold_query) / 1e6,
                    bytes / Median(r.cold_total) / 1e6);
      } else if (cold) {
        std::printf(" - | - |");
      }
      std::printf("\n");
    }
  }
  std::printf(
      "\n## Other load on the (shared) machine during each phase, in cores (machine busy time "
      "minus this process's, per second), and seconds waited for idle CPUs before it\n\n"
      "| query | warm: other load | waited | cold: other load | waited |\n"
      "|---|---:|---:|---:|---:|\n");
  for (const QueryResult& qr : results) {
    std::printf("| %s | %.2f | %.0f | %s | %s |\n", qr.query.id.c_str(), qr.warm_other_cores,
                qr.warm_waited, cold ? Fixed(qr.cold_other_cores, 2).c_str() : "-",
                cold ? Fixed(qr.cold_waited, 0).c_str() : "-");
  }
  std::printf("\nTotal run time %.0f s.\n", Since(started));

  // ---- JSON ----
  json queries = json::array();
  for (const QueryResult& qr : results) {
    json q = {{"id", qr.query.id},
              {"name", qr.query.name},
              {"box", qr.query.shape},
              {"all_variables", qr.query.all_variables}};
    const EngineRuns& r1 = qr.runs.at(kGs1);
    const double decoded = Median(r1.bytes_decoded);
    q["gridstore"] = {
        {"blocks_median", Median(r1.blocks)},
        {"bytes_decoded_median", decoded},
        {"bytes_read_median", Median(r1.bytes_read)},
        {"bytes_returned", r1.bytes_returned},
        {"bound_1core_ms", speed.zstd_mb_s > 0 ? decoded / (speed.zstd_mb_s * 1e6) * 1e3 : 0.0}};
    json engines_json = json::object();
    for (const auto& [name, r] : qr.runs) {
      json e = {{"warm", SummaryJson(r.warm)}};
      if (!r.cold_query.empty()) {
        e["cold_fetch"] = SummaryJson(r.cold_query);
        e["cold_open"] = SummaryJson(r.cold_open);
        e["cold_open_plus_fetch"] = SummaryJson(r.cold_total);
      }
      if (qr.query.id == "Q5" && !r.warm.empty()) {
        e["warm_mb_per_s"] = static_cast<double>(r1.bytes_returned) / Median(r.warm) / 1e6;
      }
      engines_json[name] = e;
    }
    q["engines"] = engines_json;
    json ratios = json::object();
    for (const std::string& nc : nc_names) {
      const EngineRuns& n = qr.runs.at(nc);
      json r = {{"warm_vs_1t", Median(n.warm) / Median(r1.warm)},
                {"warm_vs_2t", Median(n.warm) / Median(qr.runs.at(kGs2).warm)}};
      if (cold) {
        r["cold_fetch_vs_1t"] = Median(n.cold_query) / Median(r1.cold_query);
        r["cold_fetch_vs_2t"] = Median(n.cold_query) / Median(qr.runs.at(kGs2).cold_query);
        r["cold_open_plus_fetch_vs_1t"] = Median(n.cold_total) / Median(r1.cold_total);
        r["cold_open_plus_fetch_vs_2t"] =
            Median(n.cold_total) / Median(qr.runs.at(kGs2).cold_total);
      }
      ratios[nc] = r;
    }
    q["ratios_netcdf_over_gridstore"] = ratios;
    q["machine_load"] = {{"warm_other_cores", qr.warm_other_cores},
                         {"warm_waited_s", qr.warm_waited},
                         {"cold_other_cores", qr.cold_other_cores},
                         {"cold_waited_s", qr.cold_waited}};
    queries.push_back(q);
  }
  report["queries"] = queries;
  report["total_seconds"] = Since(started);
  if (!o.json_path.empty()) {
    std::ofstream out(o.json_path);
    out << report.dump(1) << "\n";
    if (!out) Die("cannot write " + o.json_path);
    std::printf("JSON: %s\n", o.json_path.c_str());
  }
  return 0;
}
