// Copyright 2026 The GridStore Authors.
//
// rados_bench: the same dataset in a RocksDB store and in a RADOS store, read side by side in one
// process (docs/benchmarks.md, "RADOS").
//
//   queries   the fetch queries of the performance issue (bench/fetch_queries.h), each request run
//             on every engine in rotation (RocksDB and RADOS, 1 and 2 fetch threads, block cache
//             off), every RADOS result compared value by value with RocksDB's;
//   multiget  KvStore::MultiGet of N random blocks (N = 1 ... 256) on each store: on RADOS the N
//             reads are in flight together, so the time should grow far slower than N;
//   workload  a parallel read workload on one store: N client threads, each with its own fetcher,
//             fetching random 100 x 200 regions of one variable for S seconds (cache off).
// Both are warm: every block of the dataset is read once first (plane by plane, untimed), so that
// RocksDB's come from the page cache and RADOS's from the OSDs' caches (when they are big enough:
// bench/rados_bench.sh gives each OSD 4 GiB).
//
// Usage: rados_bench --local DIR --rados URI --dataset ID [--warm-runs 50] [--seed 1]
//                    [--threads 1,4,16] [--seconds 10] [--only queries|multiget|workload]
//                    [--workload-store local|rados|both] [--json FILE]
// bench/rados_bench.sh builds the stores and runs it on 1 and 3 OSDs.

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_common.h"
#include "bench/fetch_queries.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/storage/kv_store_factory.h"

namespace {

namespace grid = gridstore::grid;
namespace bench = gridstore::bench;
using gridstore::bench::CheckResult;
using gridstore::bench::Clock;
using gridstore::bench::Die;
using gridstore::bench::Since;
using nlohmann::json;

struct Options {
  std::string local, rados, dataset;
  int warm_runs = 50;
  uint64_t seed = 1;
  std::vector<int> threads = {1, 4, 16};
  double seconds = 10;
  std::string only;  // "", "queries", "multiget" or "workload"
  std::string workload_store = "both";
  std::string json_path;
};

Options ParseArgs(int argc, char** argv) {
  Options o;
  CLI::App app(
      "The same dataset in a RocksDB store and in a RADOS store, read side by side: the "
      "fetch queries, KvStore::MultiGet, and a parallel read workload.");
  gridstore::bench::SetUpCommandLine(app);
  app.add_option("--local", o.local, "The RocksDB store (a directory)");
  app.add_option("--rados", o.rados, "The RADOS store (rados://POOL?conf=...)")->required();
  app.add_option("--dataset", o.dataset, "The dataset, the same in both")->required();
  app.add_option("--warm-runs", o.warm_runs, "Requests per query, calls per MultiGet size")
      ->check(CLI::Range(1, 1000000));
  app.add_option("--seed", o.seed, "Seed of the positions");
  app.add_option("--threads", o.threads, "Client threads of the workload, one run each")
      ->delimiter(',')
      ->check(CLI::Range(1, 1024));
  app.add_option("--seconds", o.seconds, "Seconds of each workload run")
      ->check(CLI::Range(0.001, 86400.0));
  app.add_option("--only", o.only, "Run one part only")
      ->check(CLI::IsMember({"queries", "multiget", "workload"}));
  app.add_option("--workload-store", o.workload_store, "The store(s) the workload reads")
      ->check(CLI::IsMember({"local", "rados", "both"}));
  app.add_option("--json", o.json_path, "Also write everything as JSON to this file");
  gridstore::bench::ParseCommandLine(app, argc, argv);
  if (o.local.empty() && (o.only != "workload" || o.workload_store != "rados")) {
    Die("--local is required unless --only workload --workload-store rados");
  }
  return o;
}

std::unique_ptr<grid::GridStore> OpenStore(const std::string& uri, int threads) {
  return CheckResult(
      grid::GridStore::Open(uri, {.read_only = true, .threads = std::max(1, threads)}),
      "opening " + uri);
}

std::unique_ptr<grid::GridDataFetcher> NewFetcher(grid::GridStore* store, const std::string& id,
                                                  int parallelism) {
  auto fetcher = CheckResult(store->GetDataFetcher(id), "dataset " + id);
  grid::FetchOptions options;
  options.parallelism = parallelism;
  options.use_cache = false;
  fetcher->set_options(options);
  return fetcher;
}

grid::GridDataSet FetchOrDie(grid::GridDataFetcher* fetcher, const bench::Request& r,
                             const std::string& who) {
  fetcher->SetVariablesToGet(r.variables);
  fetcher->SetOriginShape(r.origin, r.shape);
  return CheckResult(fetcher->Fetch(), who);
}

struct Summary {
  double p50 = 0, p99 = 0;
};
Summary Summarize(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  auto at = [&](double q) { return v[std::min(v.size() - 1, static_cast<size_t>(q * v.size()))]; };
  return {at(0.5), at(0.99)};
}
std::string Ms(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), seconds < 0.01 ? "%.3f" : "%.2f", seconds * 1e3);
  return buf;
}

// Reads every plane of every variable once, untimed: fills the page cache or the OSD caches.
void WarmUp(const std::string& uri, const std::string& id) {
  auto store = OpenStore(uri, 2);
  const grid::DataSetMeta meta = CheckResult(store->GetDataSetMeta(id), "meta of " + id);
  auto fetcher = NewFetcher(store.get(), id, 2);
  const auto start = Clock::now();
  int64_t blocks = 0;
  for (const auto& v : meta.variables) {
    for (int64_t t = 0; t < v.shape[0]; ++t) {
      for (int64_t z = 0; z < v.shape[1]; ++z) {
        bench::Request r{{v.name}, {t, z, 0, 0}, {1, 1, v.shape[2], v.shape[3]}};
        blocks += FetchOrDie(fetcher.get(), r, "warm-up of " + uri).stats.blocks_read;
      }
    }
  }
  std::fprintf(stderr, "warm-up of %s: %lld blocks in %.1f s\n", uri.c_str(),
               static_cast<long long>(blocks), Since(start));
}

// ---- queries ----

struct Engine {
  std::string name;
  std::unique_ptr<grid::GridStore> store;
  std::unique_ptr<grid::GridDataFetcher> fetcher;
};

json RunQueries(const Options& o) {
  std::vector<Engine> engines;
  for (const auto& [name, uri, threads] :
       {std::tuple<std::string, std::string, int>{"rocksdb-1t", o.local, 1},
        {"rocksdb-2t", o.local, 2},
        {"rados-1t", o.rados, 1},
        {"rados-2t", o.rados, 2}}) {
    Engine e{name, OpenStore(uri, threads - 1), nullptr};
    e.fetcher = NewFetcher(e.store.get(), o.dataset, threads);
    engines.push_back(std::move(e));
  }
  const grid::DataSetMeta meta =
      CheckResult(engines[0].store->GetDataSetMeta(o.dataset), "meta of " + o.dataset);
  std::vector<std::string> variables;
  for (const auto& v : meta.variables) variables.push_back(v.name);
  const grid::Shape4 shape = meta.variables.front().shape;

  json out = json::array();
  std::printf("## Queries: median / p99 ms (block cache off), ratio = RADOS / RocksDB median\n\n");
  std::printf(
      "| query | box | rocksdb-1t | rados-1t | ratio 1t | rocksdb-2t | rados-2t | ratio 2t "
      "| blocks read |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const bench::Query& q : bench::MakeQueries(shape)) {
    const auto requests = bench::MakeRequests(q, variables, shape, o.warm_runs, o.seed);
    std::map<std::string, std::vector<double>> times;
    int64_t blocks = 0;
    for (size_t i = 0; i < requests.size(); ++i) {
      grid::GridDataSet reference;
      // Rotate which engine goes first, so none always reads right after another warmed the OS.
      for (size_t k = 0; k < engines.size(); ++k) {
        Engine& e = engines[(i + k) % engines.size()];
        const auto start = Clock::now();
        grid::GridDataSet got = FetchOrDie(e.fetcher.get(), requests[i], e.name + " " + q.id);
        times[e.name].push_back(Since(start));
        if (e.name == "rados-1t") blocks += got.stats.blocks_read;
        if (reference.variables.empty()) {
          reference = std::move(got);
          continue;
        }
        for (const std::string& v : requests[i].variables) {
          const grid::Grid4D* a = reference.GetVariable(v);
          const grid::Grid4D* b = got.GetVariable(v);
          if (a == nullptr || b == nullptr || a->size_bytes() != b->size_bytes() ||
              std::memcmp(a->bytes(), b->bytes(), a->size_bytes()) != 0) {
            Die(e.name + " " + q.id + ": values differ from the other engines for " + v);
          }
        }
      }
    }
    std::map<std::string, Summary> s;
    for (auto& [name, t] : times) s[name] = Summarize(t);
    std::printf("| %s %s | %s | %s / %s | %s / %s | %.2f | %s / %s | %s / %s | %.2f | %lld |\n",
                q.id.c_str(), q.name.c_str(), bench::BoxString(q.shape).c_str(),
                Ms(s["rocksdb-1t"].p50).c_str(), Ms(s["rocksdb-1t"].p99).c_str(),
                Ms(s["rados-1t"].p50).c_str(), Ms(s["rados-1t"].p99).c_str(),
                s["rados-1t"].p50 / s["rocksdb-1t"].p50, Ms(s["rocksdb-2t"].p50).c_str(),
                Ms(s["rocksdb-2t"].p99).c_str(), Ms(s["rados-2t"].p50).c_str(),
                Ms(s["rados-2t"].p99).c_str(), s["rados-2t"].p50 / s["rocksdb-2t"].p50,
                static_cast<long long>(blocks / std::max<int64_t>(1, o.warm_runs)));
    json jq = {{"query", q.id},
               {"name", q.name},
               {"box", bench::BoxString(q.shape)},
               {"blocks_read_per_fetch", blocks / std::max<int64_t>(1, o.warm_runs)}};
    for (auto& [name, t] : times) {
      jq["engines"][name] = {
          {"p50_ms", s[name].p50 * 1e3}, {"p99_ms", s[name].p99 * 1e3}, {"runs_s", t}};
    }
    out.push_back(jq);
  }
  std::printf("\nEvery RADOS result equals RocksDB's, value by value (%d requests per query).\n\n",
              o.warm_runs);
  return out;
}

// ---- multiget ----

json RunMultiGet(const Options& o) {
  auto probe = OpenStore(o.rados, 1);
  const grid::DataSetMeta meta =
      CheckResult(probe->GetDataSetMeta(o.dataset), "meta of " + o.dataset);
  const grid::VariableMeta& var = meta.variables.front();
  const int64_t block_rows = (var.shape[2] + meta.layout.block_x - 1) / meta.layout.block_x;
  const int64_t block_cols = (var.shape[3] + meta.layout.block_y - 1) / meta.layout.block_y;
  std::map<std::string, std::unique_ptr<gridstore::storage::KvStore>> stores;
  for (const auto& [name, uri] :
       {std::pair<std::string, std::string>{"rocksdb", o.local}, {"rados", o.rados}}) {
    stores[name] =
        CheckResult(gridstore::storage::OpenKvStore(uri, {.read_only = true}), "opening " + uri);
  }
  json out = json::array();
  std::printf("## KvStore::MultiGet of N random blocks of '%s': median ms (%d calls each)\n\n",
              var.name.c_str(), o.warm_runs);
  std::printf("| N | rocksdb | rados | rados ms per block |\n|---:|---:|---:|---:|\n");
  bench::Rng rng(o.seed);
  for (int n : {1, 4, 16, 64, 256}) {
    std::map<std::string, std::vector<double>> times;
    for (int run = 0; run < o.warm_runs; ++run) {
      std::vector<std::string> keys;
      for (int i = 0; i < n; ++i) {
        keys.push_back(grid::DataKey(
            grid::BlockAddress{meta.id, meta.key_incarnation(), var.name, grid::kPlaneLayout,
                               static_cast<uint32_t>(rng.Below(var.shape[0])),
                               static_cast<uint32_t>(rng.Below(var.shape[1])),
                               static_cast<uint32_t>(rng.Below(block_rows)),
                               static_cast<uint32_t>(rng.Below(block_cols))}));
      }
      const std::vector<std::string_view> views(keys.begin(), keys.end());
      for (auto& [name, kv] : stores) {
        std::vector<std::string> values;
        std::vector<gridstore::Status> statuses;
        const auto start = Clock::now();
        kv->MultiGet({}, gridstore::storage::Table::kData, views, &values, &statuses);
        times[name].push_back(Since(start));
        for (const auto& st : statuses) {
          if (!st.ok()) Die(name + " MultiGet: " + st.ToString());
        }
      }
    }
    const double rocks = Summarize(times["rocksdb"]).p50, rados = Summarize(times["rados"]).p50;
    std::printf("| %d | %s | %s | %s |\n", n, Ms(rocks).c_str(), Ms(rados).c_str(),
                Ms(rados / n).c_str());
    out.push_back({{"n", n}, {"rocksdb_p50_ms", rocks * 1e3}, {"rados_p50_ms", rados * 1e3}});
  }
  std::printf("\n");
  return out;
}

// ---- workload ----

json RunWorkload(const Options& o, const std::string& which, const std::string& uri) {
  auto store = OpenStore(uri, 1);
  const grid::DataSetMeta meta =
      CheckResult(store->GetDataSetMeta(o.dataset), "meta of " + o.dataset);
  std::vector<std::string> variables;
  for (const auto& v : meta.variables) variables.push_back(v.name);
  const grid::Shape4 shape = meta.variables.front().shape;
  const bench::Query region = bench::MakeQueries(shape)[2];  // Q3, region 100 x 200

  json out = json::array();
  std::printf(
      "## Parallel read workload on %s: random %s regions, one variable each, cache off\n\n",
      which.c_str(), bench::BoxString(region.shape).c_str());
  std::printf(
      "| client threads | fetches/s | MB/s of values | blocks/s | p50 ms | p99 ms |\n"
      "|---:|---:|---:|---:|---:|---:|\n");
  for (int threads : o.threads) {
    std::atomic<bool> stop{false};
    std::vector<std::vector<double>> latencies(threads);
    std::vector<int64_t> bytes(threads, 0), blocks(threads, 0);
    std::vector<std::thread> workers;
    const auto start = Clock::now();
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        auto fetcher = NewFetcher(store.get(), o.dataset, 1);
        // Many requests, consumed in a loop: fresh positions for as long as the run lasts.
        const auto requests = bench::MakeRequests(region, variables, shape, 4096,
                                                  o.seed * 7919 + static_cast<uint64_t>(t));
        for (size_t i = 0; !stop; i = (i + 1) % requests.size()) {
          const auto begin = Clock::now();
          grid::GridDataSet got = FetchOrDie(fetcher.get(), requests[i], which);
          latencies[t].push_back(Since(begin));
          bytes[t] += static_cast<int64_t>(got.GetVariable(requests[i].variables[0])->size_bytes());
          blocks[t] += got.stats.blocks_read;
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(o.seconds));
    stop = true;
    for (std::thread& w : workers) w.join();
    const double elapsed = Since(start);
    std::vector<double> all;
    int64_t total_bytes = 0, total_blocks = 0;
    for (int t = 0; t < threads; ++t) {
      all.insert(all.end(), latencies[t].begin(), latencies[t].end());
      total_bytes += bytes[t];
      total_blocks += blocks[t];
    }
    const Summary s = Summarize(all);
    const double fetches = static_cast<double>(all.size()) / elapsed;
    std::printf("| %d | %.0f | %.1f | %.0f | %s | %s |\n", threads, fetches,
                static_cast<double>(total_bytes) / elapsed / 1e6,
                static_cast<double>(total_blocks) / elapsed, Ms(s.p50).c_str(), Ms(s.p99).c_str());
    out.push_back({{"threads", threads},
                   {"seconds", elapsed},
                   {"fetches_per_s", fetches},
                   {"mb_per_s", static_cast<double>(total_bytes) / elapsed / 1e6},
                   {"blocks_per_s", static_cast<double>(total_blocks) / elapsed},
                   {"p50_ms", s.p50 * 1e3},
                   {"p99_ms", s.p99 * 1e3}});
  }
  std::printf("\n");
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = ParseArgs(argc, argv);
  json report = {{"bench", "rados"},
                 {"local", o.local},
                 {"rados", o.rados},
                 {"dataset", o.dataset},
                 {"seed", o.seed}};
  if (!o.local.empty()) WarmUp(o.local, o.dataset);
  WarmUp(o.rados, o.dataset);
  if (o.only.empty() || o.only == "queries") report["queries"] = RunQueries(o);
  if ((o.only.empty() || o.only == "multiget") && !o.local.empty()) {
    report["multiget"] = RunMultiGet(o);
  }
  if (o.only.empty() || o.only == "workload") {
    if (o.workload_store != "rados")
      report["workload"]["rocksdb"] = RunWorkload(o, "RocksDB", o.local);
    if (o.workload_store != "local") report["workload"]["rados"] = RunWorkload(o, "RADOS", o.rados);
  }
  if (!o.json_path.empty()) {
    std::ofstream out(o.json_path);
    out << report.dump(1) << "\n";
    if (!out) Die("cannot write " + o.json_path);
  }
  return 0;
}
