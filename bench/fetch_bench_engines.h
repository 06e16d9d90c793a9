// Copyright 2026 The GridStore Authors.
//
// The reading engines of the fetch benchmark (bench/fetch_bench.cc): GridStore, with a given
// parallelism and the decompressed-block cache on or off, and netCDF-C over one of
// fetch_bench_data's files. Each engine reads one box of one or more variables and returns the
// values as float spans. An engine is used by one thread at a time.
#ifndef GRIDSTORE_BENCH_FETCH_BENCH_ENGINES_H_
#define GRIDSTORE_BENCH_FETCH_BENCH_ENGINES_H_

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "bench/fetch_queries.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/model/grid.h"

namespace gridstore::bench::fetch {

// One fetch's result: a span of floats per requested variable (in request order) over storage
// owned here, and what the fetch cost.
struct Output {
  grid::GridDataSet gs;
  std::vector<std::unique_ptr<float[]>> nc;
  std::vector<std::span<const float>> values;
  grid::FetchStats stats;  // GridStore only
  double seconds = 0;      // the fetch alone
};

// Every failure (of Open or Fetch) dies with a message: a benchmark that cannot read has nothing
// to report.
class Engine {
 public:
  explicit Engine(std::string name) : name_(std::move(name)) {}
  virtual ~Engine() = default;
  const std::string& name() const { return name_; }
  virtual void Open() = 0;
  virtual void Close() = 0;
  // REQUIRES: open.
  virtual Output Fetch(const Request& request) = 0;
  // A new, closed engine of the same configuration (cold runs open a fresh one every time).
  virtual std::unique_ptr<Engine> Clone() const = 0;

 private:
  std::string name_;
};

// The store read-only, FetchOptions::parallelism `parallelism` (GridStoreOptions::threads =
// parallelism - 1: the calling thread works too) and FetchOptions::use_cache `use_cache`.
class GridStoreEngine final : public Engine {
 public:
  GridStoreEngine(std::string name, std::string path, std::string dataset, int parallelism,
                  bool use_cache);

  void Open() override;
  void Close() override;
  Output Fetch(const Request& r) override;
  std::unique_ptr<Engine> Clone() const override;

  // The open store. REQUIRES: open.
  grid::GridStore* store() { return store_.get(); }

 private:
  const std::string path_, dataset_;
  const int parallelism_;
  const bool use_cache_;
  std::unique_ptr<grid::GridStore> store_;
  std::unique_ptr<grid::GridDataFetcher> fetcher_;
};

// nc_get_vara_float, one call per variable; the HDF5 chunk cache of chunked variables off unless
// `chunk_cache` (then at netCDF-C's default).
class NetCdfEngine final : public Engine {
 public:
  NetCdfEngine(std::string name, std::string path, std::vector<std::string> variables,
               bool chunk_cache);

  void Open() override;
  void Close() override;
  Output Fetch(const Request& r) override;
  std::unique_ptr<Engine> Clone() const override;

 private:
  const std::string path_;
  const std::vector<std::string> variables_;
  const bool chunk_cache_;
  int ncid_ = -1;
  std::map<std::string, int> ids_;
};

// XXH3 of every value of `out`, variable after variable.
uint64_t Hash(const Output& out);

// True if `a` and `b` hold the same bit patterns (so fill values and NaNs compare too); else
// prints to stderr where they first differ ("MISMATCH what: ...") and returns false.
bool SameValues(const Output& a, const Output& b, const Request& r, const std::string& what);

}  // namespace gridstore::bench::fetch

#endif  // GRIDSTORE_BENCH_FETCH_BENCH_ENGINES_H_
