// Copyright 2026 The GridStore Authors.
#include "bench/fetch_bench_engines.h"

#include <netcdf.h>
#include <xxhash.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "bench/bench_common.h"

namespace gridstore::bench::fetch {

GridStoreEngine::GridStoreEngine(std::string name, std::string path, std::string dataset,
                                 int parallelism, bool use_cache)
    : Engine(std::move(name)),
      path_(std::move(path)),
      dataset_(std::move(dataset)),
      parallelism_(parallelism),
      use_cache_(use_cache) {}

void GridStoreEngine::Open() {
  // Pool workers = parallelism - 1: the calling thread works too (util/thread_pool.h).
  store_ = CheckResult(
      grid::GridStore::Open(path_, {.read_only = true, .threads = std::max(1, parallelism_ - 1)}),
      "opening " + path_);
  fetcher_ = CheckResult(store_->GetDataFetcher(dataset_), "dataset " + dataset_);
  grid::FetchOptions options;
  options.parallelism = parallelism_;
  options.use_cache = use_cache_;
  fetcher_->set_options(options);
}

void GridStoreEngine::Close() {
  fetcher_.reset();
  store_.reset();
}

Output GridStoreEngine::Fetch(const Request& r) {
  fetcher_->SetVariablesToGet(r.variables);
  fetcher_->SetOriginShape(r.origin, r.shape);
  const auto start = Clock::now();
  auto result = fetcher_->Fetch();
  Output out;
  out.seconds = Since(start);
  out.gs = CheckResult(std::move(result), name());
  out.stats = out.gs.stats;
  for (const std::string& v : r.variables) {
    const grid::Grid4D* g = out.gs.GetVariable(v);
    if (g == nullptr || g->type() != grid::DataType::kFloat32) Die(name() + ": no float " + v);
    out.values.push_back(g->data<float>());
  }
  return out;
}

std::unique_ptr<Engine> GridStoreEngine::Clone() const {
  return std::make_unique<GridStoreEngine>(name(), path_, dataset_, parallelism_, use_cache_);
}

NetCdfEngine::NetCdfEngine(std::string name, std::string path, std::vector<std::string> variables,
                           bool chunk_cache)
    : Engine(std::move(name)),
      path_(std::move(path)),
      variables_(std::move(variables)),
      chunk_cache_(chunk_cache) {}

void NetCdfEngine::Open() {
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

void NetCdfEngine::Close() {
  if (ncid_ >= 0) nc_close(ncid_);
  ncid_ = -1;
}

Output NetCdfEngine::Fetch(const Request& r) {
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

std::unique_ptr<Engine> NetCdfEngine::Clone() const {
  return std::make_unique<NetCdfEngine>(name(), path_, variables_, chunk_cache_);
}

uint64_t Hash(const Output& out) {
  uint64_t h = 0;
  for (const auto& v : out.values) h = XXH3_64bits_withSeed(v.data(), v.size_bytes(), h);
  return h;
}

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
    const grid::Shape4& s = r.shape;
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

}  // namespace gridstore::bench::fetch
