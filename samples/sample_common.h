// Copyright 2026 The GridStore Authors.
//
// What the samples share: the sample dataset's shape, the synthetic field written into it, and
// small helpers. Samples include only GridStore's public headers.
#ifndef GRIDSTORE_SAMPLES_SAMPLE_COMMON_H_
#define GRIDSTORE_SAMPLES_SAMPLE_COMMON_H_

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "gridstore/grid/grid_store.h"

namespace samples {

inline constexpr const char* kDataSetId = "sample/gfs-2026-11-21T00Z";
// (t, z, x, y): 8 forecast times, 16 levels, a 90 x 180 latitude-longitude grid.
inline constexpr gridstore::grid::Shape4 kShape = {8, 16, 90, 180};
inline const char* const kVariables[] = {"temperature", "pressure", "humidity"};

// The value written at (variable, t, z, x, y): a smooth field, different for every index.
inline float SampleValue(int variable, int64_t t, int64_t z, int64_t x, int64_t y) {
  return static_cast<float>(100.0 * variable + 10.0 * t + z +
                            std::sin(x * 0.1) * std::cos(y * 0.05));
}

// The grid's coordinates: latitudes 89 .. -89 every 2 degrees (north first, as in GRIB-derived
// files), longitudes 0 .. 358 every 2 degrees.
inline double LatitudeOf(int64_t x) { return 89.0 - 2.0 * static_cast<double>(x); }
inline double LongitudeOf(int64_t y) { return 2.0 * static_cast<double>(y); }

// Prints the error and exits non-zero if `status` is not OK.
inline void Check(const gridstore::Status& status, const char* what) {
  if (!status.ok()) {
    std::fprintf(stderr, "%s failed: %s\n", what, status.ToString().c_str());
    std::exit(1);
  }
}

template <typename T>
T CheckResult(gridstore::Result<T> result, const char* what) {
  Check(result.status(), what);
  return std::move(result).value();
}

// The store path: the first argument, else ./sample-store.
inline std::string StorePath(int argc, char** argv) { return argc > 1 ? argv[1] : "sample-store"; }

// Compares a fetched box of `variable` with SampleValue; exits non-zero on a mismatch.
inline void Verify(const gridstore::grid::Grid4D& grid, int variable) {
  const auto& o = grid.origin();
  const auto& s = grid.shape();
  for (int64_t t = 0; t < s[0]; ++t)
    for (int64_t z = 0; z < s[1]; ++z)
      for (int64_t x = 0; x < s[2]; ++x)
        for (int64_t y = 0; y < s[3]; ++y) {
          float want = SampleValue(variable, o[0] + t, o[1] + z, o[2] + x, o[3] + y);
          if (grid.at<float>(t, z, x, y) != want) {
            std::fprintf(stderr, "wrong value at (%ld, %ld, %ld, %ld)\n", long(o[0] + t),
                         long(o[1] + z), long(o[2] + x), long(o[3] + y));
            std::exit(1);
          }
        }
}

// Opens the sample store and fetches `shape` at `origin` of `variables` (empty: all).
inline gridstore::grid::GridDataSet FetchSample(int argc, char** argv,
                                                std::vector<std::string> variables,
                                                const gridstore::grid::Shape4& origin,
                                                const gridstore::grid::Shape4& shape) {
  using namespace gridstore::grid;
  auto store = CheckResult(GridStore::Open(StorePath(argc, argv)), "opening the store");
  auto fetcher = CheckResult(store->GetDataFetcher(kDataSetId), "GetDataFetcher");
  fetcher->SetVariablesToGet(std::move(variables));
  fetcher->SetOriginShape(origin, shape);
  GridDataSet result = CheckResult(fetcher->Fetch(), "Fetch");
  std::printf("fetched %zu variable(s), %ld blocks (%ld read, %ld from cache), %ld bytes read\n",
              result.variables.size(), long(result.stats.blocks), long(result.stats.blocks_read),
              long(result.stats.cache_hits), long(result.stats.bytes_read));
  return result;
}

}  // namespace samples

#endif  // GRIDSTORE_SAMPLES_SAMPLE_COMMON_H_
