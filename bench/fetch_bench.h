// Copyright 2026 The GridStore Authors.
//
// What the files of the fetch benchmark share (bench/fetch_bench.cc runs it): its options, the
// data as fetch_bench_data described it, and a run: its engines, how it measured and what it
// measured. One thread builds and reads a Run.
#ifndef GRIDSTORE_BENCH_FETCH_BENCH_H_
#define GRIDSTORE_BENCH_FETCH_BENCH_H_

#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "bench/fetch_bench_engines.h"
#include "bench/fetch_queries.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/model/grid.h"

namespace gridstore::bench::fetch {

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
  bool repeat = false;  // time places the engines just read (their own caches warm)
};

// ---- The data, as fetch_bench_data described it ----

struct Format {
  std::string name, path, description;
  uint64_t bytes = 0;        // on disk (a store: its whole directory)
  uint64_t block_bytes = 0;  // a store: its blocks alone
};

struct DataSet {
  nlohmann::json manifest;
  std::string id;
  grid::Shape4 shape{};
  std::vector<std::string> variables;
  uint64_t raw_bytes = 0;
  std::vector<Format> formats;  // gridstore first
};

// ---- zstd decode speed on the store's own blocks (fetch_bench_decode.cc) ----

struct DecodeSpeed {
  int blocks = 0;
  uint64_t raw_bytes = 0, stored_bytes = 0;
  double zstd_mb_s = 0;          // ZSTD_decompressDCtx of the payloads, raw MB per CPU second
  double decode_block_mb_s = 0;  // grid::DecodeBlock (zstd + unshuffle + XXH3 check)
};

// Decodes a pseudo-random sample of 256 of the dataset's blocks in `store` on this thread, each
// rate over at least a second of its CPU time. All zeros if the blocks are not compressed.
DecodeSpeed MeasureDecodeSpeed(grid::GridStore* store, const DataSet& d, uint64_t seed);

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

struct Run {
  Options options;
  DataSet data;
  Clock::time_point started;
  std::string store_path;  // the store benchmarked
  bool framed_store = false;
  // GridStore with 1 and 2 threads (cache off) and every netCDF variant present; the same
  // GridStore engines with the cache on. `reference` (nc-contiguous) is one of `engines`.
  std::vector<std::unique_ptr<Engine>> engines, cache_engines;
  std::vector<std::string> nc_names;
  Engine* reference = nullptr;
  bool cold = true;     // cold runs happen (asked for, and the page cache can be dropped)
  bool locked = false;  // mlockall succeeded
  std::string warm_note, cold_note;
  nlohmann::json report;  // filled as the run goes; the queries are added at the end
  DecodeSpeed speed;
  std::vector<QueryResult> results;
};

}  // namespace gridstore::bench::fetch

#endif  // GRIDSTORE_BENCH_FETCH_BENCH_H_
