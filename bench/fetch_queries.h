// Copyright 2026 The GridStore Authors.
//
// The fetch queries of the performance issue (docs/benchmarks.md, "Fetch"), shared by every
// benchmark that times them: fetch_bench (GridStore vs netCDF-C) and rados_bench (RADOS vs
// RocksDB). Same seed, same boxes.
#ifndef GRIDSTORE_BENCH_FETCH_QUERIES_H_
#define GRIDSTORE_BENCH_FETCH_QUERIES_H_

#include <xxhash.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "gridstore/model/grid.h"

namespace gridstore::bench {

struct Query {
  std::string id, name;
  grid::Shape4 shape;  // clamped to the data's shape
  bool all_variables = false;
};

inline std::vector<Query> MakeQueries(const grid::Shape4& s) {
  auto clamp = [&](grid::Shape4 box) {
    for (int a = 0; a < grid::kRank; ++a) box[a] = std::min(box[a], s[a]);
    return box;
  };
  return {
      {"Q1", "point time series", clamp({s[0], 1, 1, 1}), false},
      {"Q2", "whole plane", clamp({1, 1, s[2], s[3]}), false},
      {"Q3", "region 100x200", clamp({1, 1, 100, 200}), false},
      {"Q4", "all variables at a point", clamp({1, 1, 1, 1}), true},
      {"Q5", "4-D box", clamp({6, 5, 200, 400}), false},
      {"Q6", "vertical profile", clamp({1, s[1], 1, 1}), false},
  };
}

inline std::string BoxString(const grid::Shape4& s) {
  return std::to_string(s[0]) + "x" + std::to_string(s[1]) + "x" + std::to_string(s[2]) + "x" +
         std::to_string(s[3]);
}

struct Request {
  std::vector<std::string> variables;
  grid::Shape4 origin{}, shape{};
};

// SplitMix64: small, and the same on every platform (std distributions are not).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int64_t Below(int64_t n) { return static_cast<int64_t>(Next() % static_cast<uint64_t>(n)); }

 private:
  uint64_t state_;
};

// `n` boxes of query `q` at pseudo-random positions of data of `shape`, each of one random
// variable (every variable for an all-variables query).
inline std::vector<Request> MakeRequests(const Query& q, const std::vector<std::string>& variables,
                                         const grid::Shape4& shape, int n, uint64_t seed) {
  Rng rng(seed * 1000003 + XXH3_64bits(q.id.data(), q.id.size()));
  std::vector<Request> requests(n);
  for (Request& r : requests) {
    if (q.all_variables) {
      r.variables = variables;
    } else {
      r.variables = {variables[rng.Below(static_cast<int64_t>(variables.size()))]};
    }
    r.shape = q.shape;
    for (int a = 0; a < grid::kRank; ++a) r.origin[a] = rng.Below(shape[a] - q.shape[a] + 1);
  }
  return requests;
}

}  // namespace gridstore::bench

#endif  // GRIDSTORE_BENCH_FETCH_QUERIES_H_
