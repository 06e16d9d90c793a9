// Copyright 2026 The GridStore Authors.
//
// Forecast collections written with the library alone (no importer), for the writers' and the
// service's tests: "test/ens", 3 runs 12 h apart x 4 members, each run with its own number of
// 6-hourly steps (4, 3, 2), of "t" (float32, K, levels 850 and 500 hPa) and "msl" (float64, Pa,
// no level: a second group of variables); "test/det", one deterministic run of 2 steps; and
// "plain/one", a dataset outside any collection. An 8 x 10 lat/lon grid (lat 60..53, lon
// -10..8). Every value is a known function of its run, member, step, level and cell (EnsT,
// EnsMsl), exact in float32, so that answers are checked value by value.
#ifndef GRIDSTORE_TESTS_FORMATS_COLLECTION_TESTUTIL_H_
#define GRIDSTORE_TESTS_FORMATS_COLLECTION_TESTUTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "gridstore/forecast/collection.h"
#include "gridstore/grid/grid_store.h"
#include "tests/grid/grid_testutil.h"
#include "tests/model/model_testutil.h"

namespace gridstore::testing {

inline constexpr int kEnsRuns = 3, kEnsMembers = 4;
inline constexpr int64_t kEnsLat = 8, kEnsLon = 10;
inline constexpr int64_t kHourMs = 3'600'000;
inline constexpr int64_t kEnsFirstRunMs = 1'795'478'400'000;  // 2026-11-24T00:00:00Z
inline constexpr double kEnsLevels[] = {850, 500};

inline int64_t EnsRunMs(int r) { return kEnsFirstRunMs + r * 12 * kHourMs; }
inline int EnsSteps(int r) { return 4 - r; }
inline double EnsLat(int64_t x) { return 60.0 - double(x); }
inline double EnsLon(int64_t y) { return -10.0 + 2.0 * double(y); }

// The members differ unevenly, so that percentiles are not their mean.
inline double EnsMemberOffset(int m) {
  constexpr double kOffsets[] = {0, 1.5, -0.75, 3.5};
  return m < 0 ? 0 : kOffsets[m];
}
inline double EnsT(int r, int m, int s, int z, int64_t x, int64_t y) {
  return 250 + 5 * r + EnsMemberOffset(m) + 0.5 * s + 10 * z + 0.25 * double(x) + 0.125 * double(y);
}
inline double EnsMsl(int r, int m, int s, int64_t x, int64_t y) {
  return 100000 + 100 * r + 10 * EnsMemberOffset(m) + s + double(x) + 0.5 * double(y);
}

inline std::string EnsId(const std::string& collection, int r, int m) {
  return collection + "/" + forecast::FormatIsoMs(EnsRunMs(r)) +
         (m < 0 ? "" : "/m" + std::to_string(m));
}

// One dataset of run `r` (steps EnsSteps(r)), member `m` (-1: none) of `collection` ("": a
// dataset outside any collection, id `id`).
inline Status WriteEnsDataset(grid::GridStore& store, const std::string& collection, int r, int m,
                              int steps, std::string id = "") {
  if (id.empty()) id = EnsId(collection, r, m);
  grid::VariableMeta t = MakeVariable("t", grid::DataType::kFloat32, {steps, 2, kEnsLat, kEnsLon});
  t.dimension_names = {"time", "plev", "lat", "lon"};
  t.attributes["units"] = grid::AttributeValue::String("K");
  t.attributes["long_name"] = grid::AttributeValue::String("air temperature");
  t.attributes["standard_name"] = grid::AttributeValue::String("air_temperature");
  grid::VariableMeta msl =
      MakeVariable("msl", grid::DataType::kFloat64, {steps, 1, kEnsLat, kEnsLon});
  msl.dimension_names = {"time", "", "lat", "lon"};
  msl.attributes["units"] = grid::AttributeValue::String("Pa");
  grid::DataSetMeta meta = MakeMeta(id, {t, msl}, 4, 4);
  std::vector<double> lats, lons, hours;
  for (int64_t x = 0; x < kEnsLat; ++x) lats.push_back(EnsLat(x));
  for (int64_t y = 0; y < kEnsLon; ++y) lons.push_back(EnsLon(y));
  for (int s = 0; s < steps; ++s) hours.push_back(6.0 * s);
  meta.coordinates = {
      Coord1D("lat", lats, "degrees_north"), Coord1D("lon", lons, "degrees_east"),
      Coord1D("time", hours, "hours since " + forecast::FormatIsoMs(EnsRunMs(r)), "time"),
      Coord1D("plev", {kEnsLevels[0], kEnsLevels[1]}, "hPa")};
  if (!collection.empty()) {
    meta.attributes[std::string(forecast::kCollectionAttribute)] =
        grid::AttributeValue::String(collection);
    meta.attributes[std::string(forecast::kRunTimeAttribute)] =
        grid::AttributeValue::Int64(EnsRunMs(r));
    if (m >= 0) {
      meta.attributes[std::string(forecast::kMemberAttribute)] = grid::AttributeValue::Int64(m);
    }
  }
  GRIDSTORE_RETURN_IF_ERROR(store.PutDataSetMeta(meta));
  GRIDSTORE_ASSIGN_OR_RETURN(auto writer, store.GetDataWriter(id));
  for (int s = 0; s < steps; ++s) {
    for (int z = 0; z < 2; ++z) {
      grid::Grid2D plane(grid::DataType::kFloat32, kEnsLat, kEnsLon);
      for (int64_t x = 0; x < kEnsLat; ++x) {
        for (int64_t y = 0; y < kEnsLon; ++y) {
          plane.data<float>()[size_t(x * kEnsLon + y)] = float(EnsT(r, m, s, z, x, y));
        }
      }
      GRIDSTORE_RETURN_IF_ERROR(writer->WriteGrid2D("t", s, z, plane));
    }
    grid::Grid2D plane(grid::DataType::kFloat64, kEnsLat, kEnsLon);
    for (int64_t x = 0; x < kEnsLat; ++x) {
      for (int64_t y = 0; y < kEnsLon; ++y) {
        plane.data<double>()[size_t(x * kEnsLon + y)] = EnsMsl(r, m, s, x, y);
      }
    }
    GRIDSTORE_RETURN_IF_ERROR(writer->WriteGrid2D("msl", s, 0, plane));
  }
  return writer->Flush();
}

// "test/ens", "test/det" and "plain/one", as the file's comment says.
inline Status WriteTestCollections(grid::GridStore& store) {
  for (int r = 0; r < kEnsRuns; ++r) {
    for (int m = 0; m < kEnsMembers; ++m) {
      GRIDSTORE_RETURN_IF_ERROR(WriteEnsDataset(store, "test/ens", r, m, EnsSteps(r)));
    }
  }
  GRIDSTORE_RETURN_IF_ERROR(WriteEnsDataset(store, "test/det", 2, -1, 2));
  GRIDSTORE_RETURN_IF_ERROR(WriteEnsDataset(store, "", 0, -1, 2, "plain/one"));
  GRIDSTORE_RETURN_IF_ERROR(forecast::EnsureCollectionIndex(store));
  return store.Flush();
}

}  // namespace gridstore::testing

#endif  // GRIDSTORE_TESTS_FORMATS_COLLECTION_TESTUTIL_H_
