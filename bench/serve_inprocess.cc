// Copyright 2026 The GridStore Authors.
//
// The in-process half of bench/serve_load.sh: the same random queries as its wrk script (point
// time series at random places; boxes of --box degrees at a random time), answered by
// EdrService::Handle without HTTP, and by grid::Extract alone (no encoding), on --threads threads
// for --seconds each. Prints requests/s and p50/p99 latency per query kind and path.
//
// Usage: serve_inprocess STORE DATASET [--seconds S] [--threads N] [--box DEG]
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>
#include <vector>

#include "bench/bench_common.h"
#include "gridstore/geo/extract.h"
#include "gridstore/server/edr_service.h"
#include "gridstore/server/query_string.h"

namespace gridstore::bench {
namespace {

struct Options {
  std::string store, dataset;
  double seconds = 10, box = 25;
  int threads = 2;
};

struct Extent {
  double w, s, e, n;
  std::vector<std::string> times;
  std::vector<std::string> variables;
};

// One random query: its EDR target and the same request for grid::Extract.
struct Query {
  std::string target;
  grid::ExtractRequest request;
};

Query RandomQuery(bool position, const Options& o, const Extent& x, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  Query q;
  q.request.variables = x.variables;
  char buf[512];
  const std::string id = server::PercentEncode(o.dataset);
  if (position) {
    const double lon = x.w + u(rng) * (x.e - x.w), lat = x.s + u(rng) * (x.n - x.s);
    std::snprintf(buf, sizeof(buf), "/collections/%s/position?coords=POINT(%.4f%%20%.4f)",
                  id.c_str(), lon, lat);
    q.request.points = {{lon, lat}};
  } else {
    const double lon = x.w + u(rng) * (x.e - x.w - o.box), lat = x.s + u(rng) * (x.n - x.s - o.box);
    const std::string& t = x.times[size_t(u(rng) * double(x.times.size())) % x.times.size()];
    std::snprintf(buf, sizeof(buf), "/collections/%s/cube?bbox=%.4f,%.4f,%.4f,%.4f&datetime=%s",
                  id.c_str(), lon, lat, lon + o.box, lat + o.box, t.c_str());
    q.request.bbox = std::array<double, 4>{lon, lat, lon + o.box, lat + o.box};
    q.request.time = t;
  }
  q.target = buf;
  return q;
}

// Runs `fn(query)` on o.threads threads for o.seconds; prints rate and latency.
template <typename Fn>
void Measure(const char* what, bool position, const Options& o, const Extent& x, Fn fn) {
  std::atomic<bool> stop{false};
  std::vector<std::vector<double>> ms(size_t(o.threads));
  std::vector<std::thread> threads;
  const auto start = Clock::now();
  for (int t = 0; t < o.threads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(unsigned(15 + t));
      while (!stop) {
        const Query q = RandomQuery(position, o, x, rng);
        const auto begin = Clock::now();
        fn(q);
        ms[size_t(t)].push_back(Since(begin) * 1000);
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration<double>(o.seconds));
  stop = true;
  for (auto& th : threads) th.join();
  const double elapsed = Since(start);
  std::vector<double> all;
  for (const auto& v : ms) all.insert(all.end(), v.begin(), v.end());
  std::sort(all.begin(), all.end());
  std::printf("| %s | %s | %.0f | %.2f | %.2f |\n", position ? "point series" : "200x200 box", what,
              double(all.size()) / elapsed, all[all.size() / 2],
              all[std::min(all.size() - 1, size_t(double(all.size()) * 0.99))]);
}

int Main(int argc, char** argv) {
  CLI::App app("The in-process half of bench/serve_load.sh");
  Options o;
  SetUpCommandLine(app);
  app.add_option("STORE", o.store, "Store URI")->required();
  app.add_option("DATASET", o.dataset, "Dataset id")->required();
  app.add_option("--seconds", o.seconds, "Seconds per measurement");
  app.add_option("--threads", o.threads, "Threads (default 2: the cores of the benchmark machine)");
  app.add_option("--box", o.box, "Box side in degrees (serve_load.sh passes its own)");
  ParseCommandLine(app, argc, argv);
  auto source = CheckResult(server::StoreSource::Open(o.store, {}), "opening the store");
  server::EdrService service(source.get(), {});
  const server::HttpResponse doc = service.Handle(
      {.method = "GET", .target = "/collections/" + server::PercentEncode(o.dataset)});
  if (doc.status != 200) Die("no collection: " + doc.body);
  const auto c = nlohmann::json::parse(doc.body);
  const auto& bbox = c["extent"]["spatial"]["bbox"][0];
  Extent x{bbox[0], bbox[1], bbox[2], bbox[3], {}, {}};
  for (const auto& t : c["extent"]["temporal"]["values"]) x.times.push_back(t);
  for (const auto& v : c["gridstore"]["default_parameters"]) x.variables.push_back(v);
  std::printf(
      "| query | in-process path | requests/s | p50 (ms) | p99 (ms) |\n|---|---|---|---|---|\n");
  for (bool position : {true, false}) {
    Measure("EdrService::Handle (no HTTP)", position, o, x, [&](const Query& q) {
      const server::HttpResponse r = service.Handle({.method = "GET", .target = q.target});
      if (r.status != 200) Die(q.target + ": " + r.body);
    });
    Measure("grid::Extract (no encoding)", position, o, x, [&](const Query& q) {
      CheckResult(grid::Extract(*source->Current(), o.dataset, q.request), "extracting");
    });
  }
  return 0;
}

}  // namespace
}  // namespace gridstore::bench

int main(int argc, char** argv) { return gridstore::bench::Main(argc, argv); }
