// Copyright 2026 The GridStore Authors.
//
// random_places_bench: issue 33, part 0. Reads boxes at pseudo-random places (a fixed seed),
// each place once, in-process through the library with the decoded-block cache off, as a user
// asks: not the same box again and again. Five shapes, as the issue and the Python benchmark
// name them:
//   series   all t, one z, one point        region  one t, one z, 100 x 200
//   profile  one t, all z, one point        plane   one t, one z, the whole (x, y) plane
//   box4d    6 t x 5 z x 200 x 300
// Before timing, the process reads one pass of other random boxes (another seed) of every
// shape, so that it has touched the store's table files and code once, as a running server has;
// then every place of every shape is read once and timed. --repeat times one place per shape
// read again and again instead (the figure the earlier benchmarks gave, kept apart).
// --fresh-first times a fresh process: the store's open, then the first box of each shape.
//
// The places are written to --places FILE (JSON: shape -> list of [origin, shape] pairs in
// (t, z, x, y) order) so that a peer reads exactly the same boxes (bench/random_places_zarr.py;
// bench/random_places_vs_zarr.sh runs both). Prints one JSON object on stdout:
//   {"mode": ..., "open_ms": ..., "shapes": {NAME: {"ms": [...], "median_ms", "mean_ms",
//    "blocks", "bytes_read", "bytes_decoded"}}}
//
// Usage: random_places_bench STORE DATASET VARIABLE [--places FILE] [--n 30] [--seed 1]
//            [--threads 2] [--repeat] [--fresh-first] [--cache] [--only SHAPE]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "bench/fetch_queries.h"
#include "gridstore/grid/grid_store.h"

namespace gridstore::bench {
namespace {

using nlohmann::json;

struct Options {
  std::string store, dataset, variable, places_path;
  int n = 30;
  uint64_t seed = 1;
  int threads = 2;
  bool repeat = false;
  bool fresh_first = false;
  bool cache = false;
  std::string only;  // one shape's name, or all
};

struct Shape {
  std::string name;
  grid::Shape4 box;
};

std::vector<Shape> Shapes(const grid::Shape4& s) {
  auto clamp = [&](grid::Shape4 box) {
    for (int a = 0; a < grid::kRank; ++a) box[a] = std::min(box[a], s[a]);
    return box;
  };
  return {{"series", clamp({s[0], 1, 1, 1})},
          {"profile", clamp({1, s[1], 1, 1})},
          {"region", clamp({1, 1, 100, 200})},
          {"plane", clamp({1, 1, s[2], s[3]})},
          {"box4d", clamp({6, 5, 200, 300})}};
}

// `n` origins of boxes of `box` within `s`, from `seed` and the shape's name.
std::vector<grid::Shape4> Places(const Shape& shape, const grid::Shape4& s, int n, uint64_t seed) {
  Rng rng(seed * 1000003 + XXH3_64bits(shape.name.data(), shape.name.size()));
  std::vector<grid::Shape4> origins(n);
  for (grid::Shape4& o : origins) {
    for (int a = 0; a < grid::kRank; ++a) o[a] = rng.Below(s[a] - shape.box[a] + 1);
  }
  return origins;
}

struct Timed {
  double ms = 0;
  grid::FetchStats stats;
};

Timed FetchOnce(const grid::GridDataFetcher& fetcher, const Options& o, const grid::Shape4& origin,
                const grid::Shape4& box) {
  grid::FetchRequest request;
  request.variables = {o.variable};
  request.box = grid::Box{origin, box};
  request.options.use_cache = o.cache;
  request.options.parallelism = o.threads;
  const auto start = Clock::now();
  auto result = fetcher.Fetch(request);
  Timed t;
  t.ms = Since(start) * 1e3;
  t.stats = CheckResult(std::move(result), "fetching " + BoxString(box)).stats;
  return t;
}

json Summary(const std::vector<Timed>& runs) {
  std::vector<double> ms;
  int64_t blocks = 0, read = 0, decoded = 0;
  for (const Timed& t : runs) {
    ms.push_back(t.ms);
    blocks += t.stats.blocks_read;
    read += t.stats.bytes_read;
    decoded += t.stats.bytes_decompressed;
  }
  std::vector<double> sorted = ms;
  std::sort(sorted.begin(), sorted.end());
  const double n = static_cast<double>(runs.size());
  return {{"ms", ms},
          {"median_ms", sorted[sorted.size() / 2]},
          {"mean_ms", std::accumulate(ms.begin(), ms.end(), 0.0) / n},
          {"blocks", static_cast<double>(blocks) / n},
          {"bytes_read", static_cast<double>(read) / n},
          {"bytes_decoded", static_cast<double>(decoded) / n}};
}

int Run(const Options& o) {
  const auto open_start = Clock::now();
  auto store = CheckResult(
      grid::GridStore::Open(o.store, {.read_only = true, .threads = std::max(1, o.threads - 1)}),
      "opening " + o.store);
  auto fetcher = CheckResult(store->GetDataFetcher(o.dataset), "dataset " + o.dataset);
  const double open_ms = Since(open_start) * 1e3;
  const grid::VariableMeta* var = fetcher->meta().FindVariable(o.variable);
  if (var == nullptr) Die("no variable " + o.variable + " in " + o.dataset);
  std::vector<Shape> shapes = Shapes(var->shape);
  if (!o.only.empty()) {
    std::erase_if(shapes, [&](const Shape& s) { return s.name != o.only; });
    if (shapes.empty()) Die("no shape " + o.only + " (series, profile, region, plane, box4d)");
  }

  json places = json::object();
  for (const Shape& shape : shapes) {
    json list = json::array();
    for (const grid::Shape4& origin : Places(shape, var->shape, o.n, o.seed)) {
      list.push_back({origin, shape.box});
    }
    places[shape.name] = list;
  }
  if (!o.places_path.empty()) {
    std::ofstream out(o.places_path);
    out << places.dump() << "\n";
    if (!out) Die("cannot write " + o.places_path);
  }

  json report = {{"mode", o.fresh_first ? "fresh-first"
                          : o.repeat    ? "repeat"
                                        : "random"},
                 {"open_ms", open_ms},
                 {"threads", o.threads},
                 {"cache", o.cache},
                 {"shapes", json::object()}};
  if (o.fresh_first) {
    // The first box of each shape in this fresh process, in order: the first pays for what
    // opening left for later.
    for (const Shape& shape : shapes) {
      const grid::Shape4 origin = places[shape.name][0][0].get<grid::Shape4>();
      report["shapes"][shape.name] = Summary({FetchOnce(*fetcher, o, origin, shape.box)});
    }
  } else {
    for (const Shape& shape : shapes) {  // one pass elsewhere: table files and code touched
      for (const grid::Shape4& origin : Places(shape, var->shape, 3, o.seed + 7919)) {
        FetchOnce(*fetcher, o, origin, shape.box);
      }
    }
    for (const Shape& shape : shapes) {
      std::vector<Timed> runs;
      for (const json& place : places[shape.name]) {
        const grid::Shape4 origin = place[0].get<grid::Shape4>();
        if (o.repeat) {
          FetchOnce(*fetcher, o, origin, shape.box);
          FetchOnce(*fetcher, o, origin, shape.box);
          runs.push_back(FetchOnce(*fetcher, o, origin, shape.box));
        } else {
          runs.push_back(FetchOnce(*fetcher, o, origin, shape.box));
        }
      }
      report["shapes"][shape.name] = Summary(runs);
    }
  }
  std::printf("%s\n", report.dump().c_str());
  return 0;
}

}  // namespace
}  // namespace gridstore::bench

int main(int argc, char** argv) {
  using namespace gridstore::bench;
  Options o;
  CLI::App app{"Reads random places once each (issue 33, part 0)"};
  SetUpCommandLine(app);
  app.add_option("store", o.store, "Store directory")->required();
  app.add_option("dataset", o.dataset, "Dataset id")->required();
  app.add_option("variable", o.variable, "Variable")->required();
  app.add_option("--places", o.places_path, "Write the places read (JSON) to this file");
  app.add_option("--n", o.n, "Places per shape")->check(CLI::Range(1, 100000));
  app.add_option("--seed", o.seed, "Seed of the places");
  app.add_option("--threads", o.threads, "FetchOptions::parallelism")->check(CLI::Range(1, 64));
  app.add_flag("--repeat", o.repeat, "Read each place three times, time the third");
  app.add_flag("--fresh-first", o.fresh_first,
               "Time the open and the first box of each shape in this fresh process");
  app.add_option("--only", o.only, "Read only this shape (series, profile, region, plane, box4d)");
  app.add_flag("--cache", o.cache, "Fetch with the decoded-block cache on");
  ParseCommandLine(app, argc, argv);
  return Run(o);
}
