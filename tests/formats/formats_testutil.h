// Copyright 2026 The GridStore Authors.
//
// The store the formats tests extract from: a 10 x 12 lat/lon grid, two times, two levels, and
// two variables: "t" (float32, K, with a fill value written at one cell) and a variable whose
// name holds a comma, quotes and spaces (m s-1; netCDF refuses control characters in names). Every
// feature kind of geo/extract.h fits it.
#ifndef GRIDSTORE_TESTS_FORMATS_FORMATS_TESTUTIL_H_
#define GRIDSTORE_TESTS_FORMATS_FORMATS_TESTUTIL_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "gridstore/features.h"
#include "gridstore/geo/extract.h"
#include "gridstore/grid/grid_store.h"
#include "tests/grid/grid_testutil.h"
#include "tests/test_util.h"

namespace gridstore::testing {

inline constexpr int64_t kLat = 10, kLon = 12;
inline constexpr float kFill = -999.0f;
// The cell whose value is the fill value at every time and level.
inline constexpr int64_t kFillX = 2, kFillY = 3;
inline const std::string kOddName = "wind, \"gust\" max";

inline double LatOf(int64_t x) { return 60.0 - 1.5 * double(x); }   // 60 .. 46.5
inline double LonOf(int64_t y) { return -30.0 + 2.0 * double(y); }  // -30 .. -8

class FormatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_,
                         grid::GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
    grid::VariableMeta t = MakeVariable("t", grid::DataType::kFloat32, {2, 2, kLat, kLon});
    t.dimension_names = {"time", "plev", "lat", "lon"};
    t.set_fill_value(kFill);
    t.attributes["units"] = grid::AttributeValue::String("K");
    t.attributes["long_name"] = grid::AttributeValue::String("air temperature");
    t.attributes["standard_name"] = grid::AttributeValue::String("air_temperature");
    grid::VariableMeta odd = MakeVariable(kOddName, grid::DataType::kFloat64, {2, 2, kLat, kLon});
    odd.dimension_names = t.dimension_names;
    odd.attributes["units"] = grid::AttributeValue::String("m s-1");
    meta_ = MakeMeta("run", {t, odd}, 4, 4);
    std::vector<double> lats, lons;
    for (int64_t x = 0; x < kLat; ++x) lats.push_back(LatOf(x));
    for (int64_t y = 0; y < kLon; ++y) lons.push_back(LonOf(y));
    meta_.coordinates = {Coord1D("lat", lats, "degrees_north"),
                         Coord1D("lon", lons, "degrees_east"),
                         Coord1D("time", {0, 6}, "hours since 2026-11-25 00:00:00"),
                         Coord1D("plev", {850, 500}, "hPa")};
    ASSERT_OK(store_->PutDataSetMeta(meta_));
    ASSERT_OK_AND_ASSIGN(auto writer, store_->GetDataWriter("run"));
    for (int64_t tt = 0; tt < 2; ++tt) {
      for (int64_t z = 0; z < 2; ++z) {
        grid::Grid2D plane = PatternPlane(meta_.variables[0], 1, tt, z);
        plane.data<float>()[kFillX * kLon + kFillY] = kFill;
        ASSERT_OK(writer->WriteGrid2D("t", tt, z, plane));
        ASSERT_OK(writer->WriteGrid2D(kOddName, tt, z, PatternPlane(meta_.variables[1], 2, tt, z)));
      }
    }
    ASSERT_OK(writer->Flush());
  }

  // Every variable of the dataset, unpacked (what the front ends extract by default).
  Result<grid::Extraction> ExtractAll(grid::ExtractRequest request) {
    request.variables = {"t", kOddName};
    request.unpack = true;
    return grid::Extract(*store_, "run", request);
  }

  ScopedTempDir dir_;
  std::unique_ptr<grid::GridStore> store_;
  grid::DataSetMeta meta_;
};

// One request of each feature kind the front ends offer, named for messages.
struct NamedRequest {
  std::string name;
  grid::ExtractRequest request;
};

inline std::vector<NamedRequest> EveryFeatureKind() {
  std::vector<NamedRequest> out;
  grid::ExtractRequest r;
  r.points = {{-24.0, 57.0}, {-12.0, 49.5}};
  out.push_back({"position", r});
  r = {};
  r.points = {{-24.0, 57.0}};
  r.time = "2026-11-25T06:00:00Z";
  out.push_back({"point at one time", r});
  r = {};
  r.bbox = std::array<double, 4>{-27.0, 50.0, -15.0, 56.0};
  out.push_back({"area (bbox)", r});
  r = {};
  r.polygon = "POLYGON((-28 48, -10 48, -10 58, -28 58, -28 48))";
  // A polygon is GEOS's: not a feature of a build without it (features.command checks that).
  if (GRIDSTORE_HAVE_GEO) out.push_back({"polygon", r});
  r = {};
  r.radius = grid::Radius{{-20.0, 53.0}, 250.0};
  out.push_back({"radius", r});
  r = {};
  r.trajectory = "LINESTRING(-26 57, -14 50)";
  out.push_back({"trajectory", r});
  r = {};
  r.trajectory = "LINESTRING(-26 57, -14 50)";
  r.corridor_width_km = 200;
  out.push_back({"corridor", r});
  return out;
}

}  // namespace gridstore::testing

#endif  // GRIDSTORE_TESTS_FORMATS_FORMATS_TESTUTIL_H_
