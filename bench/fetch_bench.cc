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
//            [--nc-chunk-cache off|default] [--store DIR] [--repeat]
// By default each timed place is new to the engines (reopened after validation: only the page
// cache holds what validation read); --repeat keeps them open, so the timed read repeats the
// validation's (RocksDB's block cache may then hold the blocks: the earlier figures).
// --store DIR benchmarks another store holding the same dataset (e.g. imported with
// `gridstore import --frame-rows N`) instead of WORK_DIR/store.
// --wait-idle 85 waits before each phase (at most --wait-idle-max, 600 s) until the CPUs were 85%
// idle for 3 s; the other load during each phase is reported either way.
// Prints human tables on stdout (progress on stderr) and, with --json, everything including every
// sample.
//
// This file runs the steps and phases; the engines are fetch_bench_engines.h, the page cache and
// the load of the machine fetch_bench_machine.h, zstd's decode speed fetch_bench_decode.cc and
// the tables and JSON fetch_bench_report.h.
#include "bench/fetch_bench.h"

#include <sys/mman.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zstd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "bench/fetch_bench_engines.h"
#include "bench/fetch_bench_machine.h"
#include "bench/fetch_bench_report.h"
#include "bench/fetch_queries.h"
#include "gridstore/grid/grid_store.h"

#ifndef GRIDSTORE_BUILD_TYPE
#define GRIDSTORE_BUILD_TYPE "?"
#endif

namespace gridstore::bench::fetch {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

Options ParseArgs(int argc, char** argv) {
  Options o;
  CLI::App app(
      "The fetch benchmark: GridStore and netCDF-C read the same boxes of the same data "
      "side by side. WORK_DIR is made by fetch_bench_data.");
  SetUpCommandLine(app);
  app.add_option("WORK_DIR", o.work, "fetch_bench_data's work directory")->required();
  app.add_option("--warm-runs", o.warm_runs, "Timed warm runs per query")
      ->check(CLI::Range(1, 1000000));
  app.add_flag("--repeat", o.repeat,
               "Time places the engines just read in validation (their caches warm), not new ones");
  app.add_option("--cold-runs", o.cold_runs, "Timed cold runs per query")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--seed", o.seed, "Seed of the positions")
      ->check(CLI::Range(uint64_t{0}, uint64_t{1} << 30));
  app.add_option("--json", o.json_path, "Also write everything, every sample included, here");
  app.add_option("--queries", o.queries, "The queries to run (default: all)")
      ->delimiter(',')
      ->check(CLI::IsMember({"Q1", "Q2", "Q3", "Q4", "Q5", "Q6"}));
  bool no_cold = false;
  app.add_flag("--no-cold", no_cold, "Skip the cold runs");
  app.add_option("--wait-idle", o.wait_idle,
                 "Before each phase, wait until the CPUs were this many percent idle for 3 s "
                 "(0: do not wait)")
      ->check(CLI::Range(0, 100));
  app.add_option("--wait-idle-max", o.wait_idle_max, "Seconds to wait for idle CPUs at most")
      ->check(CLI::Range(0, 86400));
  std::string chunk_cache = "off";
  app.add_option("--nc-chunk-cache", chunk_cache, "netCDF-C's HDF5 chunk cache: off or default")
      ->check(CLI::IsMember({"off", "default"}));
  app.add_option("--store", o.store,
                 "Benchmark this store (holding the same dataset) instead of WORK_DIR/store");
  ParseCommandLine(app, argc, argv);
  o.cold = !no_cold;
  o.nc_chunk_cache = chunk_cache == "default";
  return o;
}

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

// Whether the store's blocks are cut into frames (a framed store caches whole-block decodes only).
bool IsFramedStore(const std::string& path, const std::string& id) {
  auto store = CheckResult(grid::GridStore::Open(path, {.read_only = true}), "opening " + path);
  const grid::DataSetMeta meta = CheckResult(store->GetDataSetMeta(id), "meta of " + id);
  return meta.layout.frame_rows > 0 && meta.layout.frame_rows < meta.layout.block_x;
}

// Step 1: the engines. nc-contiguous is the reference for validation.
void MakeEngines(Run* run) {
  const DataSet& d = run->data;
  run->store_path = run->options.store.empty() ? d.formats.front().path : run->options.store;
  run->framed_store = IsFramedStore(run->store_path, d.id);
  const std::string& path = run->store_path;
  run->engines.push_back(std::make_unique<GridStoreEngine>(kGs1, path, d.id, 1, false));
  run->engines.push_back(std::make_unique<GridStoreEngine>(kGs2, path, d.id, 2, false));
  run->cache_engines.push_back(std::make_unique<GridStoreEngine>(kGs1Cache, path, d.id, 1, true));
  run->cache_engines.push_back(std::make_unique<GridStoreEngine>(kGs2Cache, path, d.id, 2, true));
  for (const char* name : {"nc-deflate", "nc-blosc-zstd", "nc-contiguous"}) {
    for (const Format& f : d.formats) {
      if (f.name != name) continue;
      run->engines.push_back(
          std::make_unique<NetCdfEngine>(name, f.path, d.variables, run->options.nc_chunk_cache));
      run->nc_names.push_back(name);
    }
  }
  for (auto& e : run->engines) {
    if (e->name() == "nc-contiguous") run->reference = e.get();
  }
  if (run->reference == nullptr) Die("no nc-contiguous variant to validate against");
}

// Step 2: what the data and the machine are.
void DescribeRun(Run* run) {
  const Options& o = run->options;
  json& report = run->report;
  report["bench"] = "fetch";
  report["date"] = UtcNow();
  report["work_dir"] = o.work;
  report["store"] = run->store_path;
  report["data"] = run->data.manifest["data"];
  report["generation"] = run->data.manifest.value("steps", json::object());
  utsname uts{};
  uname(&uts);
  report["machine"] = {{"cpu", ReadFirstLine("/proc/cpuinfo", "model name")},
                       {"cores", sysconf(_SC_NPROCESSORS_ONLN)},
                       {"memory", ReadFirstLine("/proc/meminfo", "MemTotal")},
                       {"kernel", std::string(uts.release)},
                       {"netcdf", NetCdfVersion()},
                       {"zstd", ZSTD_versionString()},
                       {"build_type", GRIDSTORE_BUILD_TYPE}};
}

// Step 3: how the warm and cold runs measure. Cold runs need to drop the page cache (root).
void DescribeMethod(Run* run) {
  const Options& o = run->options;
  run->cold = o.cold;
  if (run->cold && !DropPageCache()) {
    run->cold = false;
    run->cold_note = "cold runs skipped: cannot write /proc/sys/vm/drop_caches (needs root)";
  } else if (run->cold) {
    const std::vector<Format>& formats = run->data.formats;
    const Format& contiguous = *std::find_if(
        formats.begin(), formats.end(), [](const Format& f) { return f.name == "nc-contiguous"; });
    const double left = ResidentFraction(contiguous.path);
    run->cold_note =
        "page cache dropped before every cold run (sync; echo 3 > "
        "/proc/sys/vm/drop_caches), checked once: " +
        Fixed(100 * left, 2) + "% of " + fs::path(contiguous.path).filename().string() +
        " resident after a drop; then a fresh open: GridStore::Open(read_only) + "
        "GetDataFetcher, or nc_open + nc_inq_varid (+ chunk cache setting); the open and "
        "the fetch are timed separately; program code locked in RAM (mlockall)";
  } else {
    run->cold_note = "cold runs skipped (--no-cold)";
  }
  run->warm_note =
      "the page cache holds every byte read (each position was fetched by every engine "
      "in the validation pass just before" +
      std::string(o.repeat ? "; the engines stayed open, so their own caches hold it too"
                           : ", then every engine was reopened: each timed place is new to it") +
      "); GridStore's decompressed-block cache OFF "
      "(FetchOptions::use_cache = false); netCDF-C's HDF5 chunk cache " +
      std::string(o.nc_chunk_cache ? "at its default" : "OFF (nc_set_var_chunk_cache size 0)") +
      "; RocksDB's own block cache of stored (compressed) SST blocks at its default (64 MB); "
      "'cache on' = the same box fetched twice with use_cache = true, the second timed";
  run->report["method"] = {{"warm", run->warm_note},
                           {"cold", run->cold_note},
                           {"warm_runs", o.warm_runs},
                           {"cold_runs", run->cold ? o.cold_runs : 0},
                           {"seed", o.seed},
                           {"threads",
                            "gridstore-1t: FetchOptions::parallelism 1 (the calling thread); "
                            "gridstore-2t: parallelism 2 (the caller + 1 pool worker); "
                            "GridStoreOptions::threads = max(1, parallelism - 1); "
                            "netCDF-C: one thread"},
                           {"validation",
                            "every position through every engine, bit-exact against "
                            "nc-contiguous; every timed result's XXH3 against that"}};
}

// Step 4: zstd's decode speed on the store's own blocks.
void MeasureDecoding(Run* run) {
  std::fprintf(stderr, "measuring zstd decode speed on the store's blocks...\n");
  {
    GridStoreEngine probe("probe", run->store_path, run->data.id, 1, false);
    probe.Open();
    run->speed = MeasureDecodeSpeed(probe.store(), run->data, run->options.seed);
    probe.Close();
  }
  const DecodeSpeed& speed = run->speed;
  run->report["decode_speed"] = {
      {"blocks_sampled", speed.blocks},
      {"sample_raw_bytes", speed.raw_bytes},
      {"sample_stored_bytes", speed.stored_bytes},
      {"zstd_decompress_mb_per_cpu_s", speed.zstd_mb_s},
      {"decode_block_mb_per_cpu_s", speed.decode_block_mb_s},
      {"how",
       "one thread: ZSTD_decompressDCtx of the payloads (after the 36-byte header) of a "
       "pseudo-random sample of the store's blocks, repeated for >= 1 s of thread CPU "
       "time; decode_block = grid::DecodeBlock (zstd + unshuffle + XXH3 check)"}};
}

// ---- Per query ----

// Phase 1, validation (which also warms the page cache): every position through every engine,
// each result compared value by value with the reference's; a mismatch exits 1. Returns the
// XXH3 of each position's result.
std::vector<uint64_t> Validate(Run* run, const Query& q, const std::vector<Request>& requests) {
  const int n = static_cast<int>(requests.size());
  std::vector<uint64_t> hashes(n);
  std::fprintf(stderr, "%s %s (%s): validating %d positions...\n", q.id.c_str(), q.name.c_str(),
               BoxString(q.shape).c_str(), n);
  for (auto& e : run->engines) e->Open();
  for (auto& e : run->cache_engines) e->Open();
  for (int i = 0; i < n; ++i) {
    const Output expected = run->reference->Fetch(requests[i]);
    hashes[i] = Hash(expected);
    for (auto* list : {&run->engines, &run->cache_engines}) {
      for (auto& e : *list) {
        if (e.get() == run->reference) continue;
        const Output got = e->Fetch(requests[i]);
        if (!SameValues(got, expected, requests[i], q.id + " " + e->name() + " vs nc-contiguous")) {
          std::exit(1);
        }
      }
    }
  }
  return hashes;
}

// Exits 1 unless a timed result is the one validated.
void CheckTimed(const Output& out, uint64_t validated, const Query& q, int i,
                const std::string& engine) {
  if (Hash(out) != validated) {
    std::fprintf(stderr, "MISMATCH %s %s run %d: result differs from the validated one\n",
                 q.id.c_str(), engine.c_str(), i);
    std::exit(1);
  }
}

// Every cache-on engine fetches request i twice; the second fetch is timed.
void TimeCachedRun(Run* run, const Request& request, uint64_t validated, int i, QueryResult* qr) {
  for (auto& e : run->cache_engines) {
    e->Fetch(request);  // fills the cache
    const Output out = e->Fetch(request);
    CheckTimed(out, validated, qr->query, i, e->name());
    // A framed store caches only whole-block decodes: a point or a narrow box decodes its
    // frames again (docs/design/blocks-and-layouts.md).
    if (out.stats.cache_hits != out.stats.blocks && !run->framed_store) {
      Die(e->name() + ": expected every block from the cache, got " +
          std::to_string(out.stats.cache_hits) + " of " + std::to_string(out.stats.blocks));
    }
    qr->runs[e->name()].warm.push_back(out.seconds);
  }
}

// Phase 2, warm: engines interleaved per position, in rotating order. Closes the engines.
void TimeWarmRuns(Run* run, const std::vector<Request>& requests,
                  const std::vector<uint64_t>& hashes, QueryResult* qr) {
  const Options& o = run->options;
  qr->warm_waited = WaitIdle(o.wait_idle, o.wait_idle_max);
  std::fprintf(stderr, "%s: %d warm runs (waited %.0f s for idle CPUs)...\n", qr->query.id.c_str(),
               o.warm_runs, qr->warm_waited);
  const LoadMeter warm_load;
  const size_t engines = run->engines.size();
  for (int i = 0; i < o.warm_runs; ++i) {
    for (size_t k = 0; k < engines; ++k) {
      Engine& e = *run->engines[(k + static_cast<size_t>(i)) % engines];
      const Output out = e.Fetch(requests[i]);
      CheckTimed(out, hashes[i], qr->query, i, e.name());
      EngineRuns& r = qr->runs[e.name()];
      r.warm.push_back(out.seconds);
      r.blocks.push_back(static_cast<double>(out.stats.blocks));
      r.bytes_decoded.push_back(static_cast<double>(out.stats.bytes_decompressed));
      r.bytes_read.push_back(static_cast<double>(out.stats.bytes_read));
      r.bytes_returned = 0;
      for (const auto& v : out.values) r.bytes_returned += v.size_bytes();
    }
    TimeCachedRun(run, requests[i], hashes[i], i, qr);
  }
  qr->warm_other_cores = warm_load.OtherCores();
  for (auto& e : run->engines) e->Close();
  for (auto& e : run->cache_engines) e->Close();
}

// Phase 3, cold: a fresh engine after every drop of the page cache, the open and the fetch timed
// apart. Locks the program's pages first (once) so that a cold run does not page it back in.
void TimeColdRuns(Run* run, const std::vector<Request>& requests,
                  const std::vector<uint64_t>& hashes, QueryResult* qr) {
  const Options& o = run->options;
  if (!run->locked) {
    // Every library and filter plugin is loaded by now; keep their pages through the drops.
    run->locked = mlockall(MCL_CURRENT) == 0;
    if (!run->locked) std::fprintf(stderr, "warning: mlockall failed: %s\n", std::strerror(errno));
  }
  qr->cold_waited = WaitIdle(o.wait_idle, o.wait_idle_max);
  std::fprintf(stderr, "%s: %d cold runs (waited %.0f s for idle CPUs)...\n", qr->query.id.c_str(),
               o.cold_runs, qr->cold_waited);
  const LoadMeter cold_load;
  const size_t engines = run->engines.size();
  for (int i = 0; i < o.cold_runs; ++i) {
    for (size_t k = 0; k < engines; ++k) {
      const Engine& proto = *run->engines[(k + static_cast<size_t>(i)) % engines];
      std::unique_ptr<Engine> e = proto.Clone();
      if (!DropPageCache()) Die("dropping the page cache failed");
      const auto t0 = Clock::now();
      e->Open();
      const double open_seconds = Since(t0);
      const Output out = e->Fetch(requests[i]);
      e->Close();
      CheckTimed(out, hashes[i], qr->query, i, e->name());
      EngineRuns& r = qr->runs[e->name()];
      r.cold_open.push_back(open_seconds);
      r.cold_query.push_back(out.seconds);
      r.cold_total.push_back(open_seconds + out.seconds);
      r.cold_bytes_decoded.push_back(static_cast<double>(out.stats.bytes_decompressed));
    }
  }
  qr->cold_other_cores = cold_load.OtherCores();
}

// Step 5: every query asked for, through its three phases.
void RunQueries(Run* run) {
  const Options& o = run->options;
  for (const Query& q : MakeQueries(run->data.shape)) {
    if (!o.queries.empty() && !o.queries.count(q.id)) continue;
    QueryResult qr;
    qr.query = q;
    const int n = std::max(o.warm_runs, run->cold ? o.cold_runs : 0);
    const std::vector<Request> requests =
        MakeRequests(q, run->data.variables, run->data.shape, n, o.seed);
    const std::vector<uint64_t> hashes = Validate(run, q, requests);
    if (!o.repeat) {
      // Each place is new to the engines (issue 33): reopened, no engine's own caches (RocksDB's
      // block cache, HDF5's) hold what validation read; the page cache still does.
      for (auto* list : {&run->engines, &run->cache_engines}) {
        for (auto& e : *list) {
          e->Close();
          e->Open();
        }
      }
    }
    TimeWarmRuns(run, requests, hashes, &qr);
    if (run->cold) TimeColdRuns(run, requests, hashes, &qr);
    run->results.push_back(std::move(qr));
  }
  if (run->cold && !run->locked) {
    run->report["method"]["cold"] = run->cold_note +=
        " (mlockall FAILED: code pages may have been re-read)";
  }
}

// Step 6: the JSON report, if asked for.
void WriteJson(Run* run) {
  json& report = run->report;
  report["formats"] = FormatsJson(run->data);
  report["queries"] = QueriesJson(*run);
  report["total_seconds"] = Since(run->started);
  const std::string& path = run->options.json_path;
  if (path.empty()) return;
  std::ofstream out(path);
  out << report.dump(1) << "\n";
  if (!out) Die("cannot write " + path);
  std::printf("JSON: %s\n", path.c_str());
}

}  // namespace
}  // namespace gridstore::bench::fetch

int main(int argc, char** argv) {
  namespace fetch = gridstore::bench::fetch;
  fetch::Run run;
  run.options = fetch::ParseArgs(argc, argv);
  setenv("BLOSC_NTHREADS", "1", 1);  // blosc decompresses on the calling thread only
  run.data = fetch::LoadDataSet(run.options.work);
  run.started = gridstore::bench::Clock::now();
  fetch::MakeEngines(&run);
  fetch::DescribeRun(&run);
  fetch::DescribeMethod(&run);
  fetch::MeasureDecoding(&run);
  fetch::RunQueries(&run);
  fetch::PrintReport(run);
  fetch::WriteJson(&run);
  return 0;
}
