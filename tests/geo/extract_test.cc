// Copyright 2026 The GridStore Authors.
//
// grid::Extract on a real RocksDB store, property-tested with random features against
// independent computations: the brute-force nearest cell, the bilinear formula written out, a
// ray-casting point-in-polygon and great-circle distances over every cell; and the batched read
// (1,000 points cost the distinct blocks they lie in).
#include "gridstore/geo/extract.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "gridstore/grid/grid_store.h"
#include "tests/grid/grid_testutil.h"

namespace gridstore::grid {
namespace {

using testing::Coord1D;
using ::testing::HasSubstr;
using testing::MakeMeta;
using testing::MakeVariable;
using testing::PatternPlane;
using testing::PatternValue;

constexpr int64_t kTimes = 3, kLevels = 2, kLat = 60, kLon = 90;

double LatOf(int64_t x) { return 60.0 - 1.5 * double(x); }   // descending, 60 .. -28.5
double LonOf(int64_t y) { return -30.0 + 2.0 * double(y); }  // -30 .. 148

class ExtractTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
    VariableMeta v = MakeVariable("t", DataType::kFloat64, {kTimes, kLevels, kLat, kLon});
    v.dimension_names = {"time", "plev", "lat", "lon"};
    meta_ = MakeMeta("run", {v}, 16, 16);
    std::vector<double> lats, lons;
    for (int64_t x = 0; x < kLat; ++x) lats.push_back(LatOf(x));
    for (int64_t y = 0; y < kLon; ++y) lons.push_back(LonOf(y));
    meta_.coordinates = {Coord1D("lat", lats, "degrees_north"),
                         Coord1D("lon", lons, "degrees_east"),
                         Coord1D("time", {0, 6, 12}, "hours since 2026-11-25 00:00:00"),
                         Coord1D("plev", {850, 500}, "hPa")};
    ASSERT_OK(store_->PutDataSetMeta(meta_));
    ASSERT_OK_AND_ASSIGN(auto writer, store_->GetDataWriter("run"));
    for (int64_t t = 0; t < kTimes; ++t)
      for (int64_t z = 0; z < kLevels; ++z)
        ASSERT_OK(writer->WriteGrid2D("t", t, z, PatternPlane(meta_.variables[0], 1, t, z)));
    ASSERT_OK(writer->Flush());
  }

  // The cell nearest `p` by great-circle distance, trying every cell.
  static Cell BruteForceNearest(const LonLat& p) {
    Cell best;
    double d = INFINITY;
    for (int64_t x = 0; x < kLat; ++x)
      for (int64_t y = 0; y < kLon; ++y) {
        const double e = GreatCircleKm(p, {LonOf(y), LatOf(x)});
        if (e < d) d = e, best = {x, y};
      }
    return best;
  }

  testing::ScopedTempDir dir_;
  std::unique_ptr<GridStore> store_;
  DataSetMeta meta_;
};

TEST_F(ExtractTest, RandomPointsNearestEqualBruteForceAndOneReadServesThemAll) {
  std::mt19937 rng(21);
  std::uniform_real_distribution<double> lon(-30.9, 148.9), lat(-29.2, 60.7);
  ExtractRequest request;
  request.variables = {"t"};
  request.time = "2026-11-25T06:00:00Z";
  request.level = "500";
  for (int i = 0; i < 1000; ++i) request.points.push_back({lon(rng), lat(rng)});
  ASSERT_OK_AND_ASSIGN(Extraction r, Extract(*store_, "run", request));
  ASSERT_EQ(r.variables[0].values.size(), 1000u);
  std::set<std::pair<int64_t, int64_t>> blocks;
  for (size_t i = 0; i < 1000; ++i) {
    const Cell c = BruteForceNearest(request.points[i]);
    EXPECT_EQ(r.plan.points[i].cell, c) << i;
    EXPECT_EQ(r.variables[0].values[i], PatternValue(1, 1, 1, c.x, c.y));
    blocks.insert({c.x / 16, c.y / 16});
  }
  // One batched read: each block once, not one read per point.
  EXPECT_EQ(r.stats.blocks, int64_t(blocks.size()));
  EXPECT_EQ(r.stats.blocks_read, int64_t(blocks.size()));
  EXPECT_EQ(r.plan.blocks, int64_t(blocks.size()));
}

TEST_F(ExtractTest, RandomPointsBilinearEqualTheFormula) {
  std::mt19937 rng(22);
  std::uniform_real_distribution<double> lon(-30, 148), lat(-28.5, 60);
  ExtractRequest request;
  request.variables = {"t"};
  request.method = InterpolationMethod::kBilinear;
  for (int i = 0; i < 300; ++i) request.points.push_back({lon(rng), lat(rng)});
  ASSERT_OK_AND_ASSIGN(Extraction r, Extract(*store_, "run", request));
  ASSERT_EQ(r.variables[0].values.size(), 300u * kTimes * kLevels);
  for (size_t i = 0; i < 300; ++i) {
    const LonLat p = request.points[i];
    // The formula: the pattern is linear in x and y, and x, y are linear in lat and lon, so the
    // bilinear value is the pattern at the fractional indices.
    const double fx = (60.0 - p.lat) / 1.5, fy = (p.lon + 30.0) / 2.0;
    for (int64_t t = 0; t < kTimes; ++t)
      for (int64_t z = 0; z < kLevels; ++z) {
        const double expected = 1000.0 + t * 100.0 + z * 10.0 + fx * 0.5 + fy * 0.25;
        EXPECT_NEAR(r.variables[0].values[(i * kTimes + size_t(t)) * kLevels + size_t(z)], expected,
                    1e-9);
      }
  }
}

bool InRing(const std::vector<LonLat>& ring, double x, double y) {
  bool inside = false;
  for (size_t i = 0, j = ring.size() - 1; i < ring.size(); j = i++) {
    if ((ring[i].lat > y) != (ring[j].lat > y) &&
        x < (ring[j].lon - ring[i].lon) * (y - ring[i].lat) / (ring[j].lat - ring[i].lat) +
                ring[i].lon) {
      inside = !inside;
    }
  }
  return inside;
}

TEST_F(ExtractTest, RandomStarPolygonsAndCirclesHoldTheBruteForceCells) {
  GRIDSTORE_TEST_NEEDS(GEO);  // GEOS
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> cx(0, 120), cy(-10, 40), radius(3, 20), u(0, 1);
  for (int round = 0; round < 20; ++round) {
    // A star-shaped (so simple) polygon with 7 vertices around a random centre.
    const double x0 = cx(rng), y0 = cy(rng);
    std::vector<LonLat> ring;
    std::string wkt = "POLYGON((";
    for (int k = 0; k < 7; ++k) {
      const double a = 2 * M_PI * (k + 0.8 * u(rng)) / 7, r = radius(rng);
      ring.push_back({x0 + r * std::cos(a), y0 + r * std::sin(a)});
    }
    ring.push_back(ring[0]);
    for (size_t k = 0; k < ring.size(); ++k) {
      wkt += (k ? "," : "") + std::to_string(ring[k].lon) + " " + std::to_string(ring[k].lat);
    }
    wkt += "))";
    ExtractRequest request;
    request.variables = {"t"};
    request.time = "2026-11-25T00:00:00Z";
    request.level = "850";
    request.polygon = wkt;
    ASSERT_OK_AND_ASSIGN(Extraction r, Extract(*store_, "run", request));
    const auto [x0i, y0i, nx, ny] = r.plan.area;
    int64_t inside = 0;
    for (int64_t x = 0; x < kLat; ++x)
      for (int64_t y = 0; y < kLon; ++y) {
        if (!InRing(ring, LonOf(y), LatOf(x))) continue;
        ++inside;
        ASSERT_TRUE(x >= x0i && x < x0i + nx && y >= y0i && y < y0i + ny) << wkt;
        const size_t i = size_t((x - x0i) * ny + (y - y0i));
        EXPECT_EQ(r.plan.mask[i], 1) << wkt << " cell " << x << "," << y;
        EXPECT_EQ(r.variables[0].values[i], PatternValue(1, 0, 0, x, y));
      }
    int64_t masked = 0;
    for (uint8_t m : r.plan.mask) masked += m;
    EXPECT_EQ(masked, inside) << wkt;

    // A circle: the cells within the radius, by great-circle distance.
    request.polygon.clear();
    const double km = radius(rng) * 60;
    request.radius = Radius{{x0, y0}, km};
    ASSERT_OK_AND_ASSIGN(r, Extract(*store_, "run", request));
    int64_t within = 0;
    for (int64_t x = 0; x < kLat; ++x)
      for (int64_t y = 0; y < kLon; ++y)
        within += GreatCircleKm({x0, y0}, {LonOf(y), LatOf(x)}) <= km;
    masked = 0;
    for (uint8_t m : r.plan.mask) masked += m;
    EXPECT_EQ(masked, within) << x0 << " " << y0 << " " << km;
  }
}

TEST_F(ExtractTest, AnAreaAcrossTheAntimeridianReadsItsTwoEndsOnly) {
  // A global grid in -180..180 (columns -179 .. 179 every 2): a box from 170E to 170W holds the
  // first and last few columns.
  VariableMeta v = MakeVariable("g", DataType::kFloat32, {1, 1, 10, 180});
  v.dimension_names = {"", "", "lat", "lon"};
  DataSetMeta meta = MakeMeta("global", {v}, 16, 16);
  std::vector<double> lats, lons;
  for (int i = 0; i < 10; ++i) lats.push_back(-9 + 2.0 * i);
  for (int j = 0; j < 180; ++j) lons.push_back(-179 + 2.0 * j);
  meta.coordinates = {Coord1D("lat", lats, "degrees_north"), Coord1D("lon", lons, "degrees_east")};
  ASSERT_OK(store_->PutDataSetMeta(meta));
  ASSERT_OK_AND_ASSIGN(auto writer, store_->GetDataWriter("global"));
  ASSERT_OK(writer->WriteGrid2D("g", 0, 0, PatternPlane(meta.variables[0], 2, 0, 0)));
  ExtractRequest request;
  request.variables = {"g"};
  request.bbox = std::array<double, 4>{170, -5, -170, 5};
  ASSERT_OK_AND_ASSIGN(Extraction r, Extract(*store_, "global", request));
  const auto [x0, y0, nx, ny] = r.plan.area;
  // Issue 29, 3.1: the area runs east from 170 as one box of 10 columns (171 .. 189 in the asked
  // longitudes), wrapping past the grid's last column; two boxes are read: columns 175..179
  // and 0..4.
  EXPECT_EQ(ny, 10);
  EXPECT_EQ(r.plan.wrap_axis, kY);
  EXPECT_EQ(r.plan.wrap_period, 180);
  ASSERT_EQ(r.plan.boxes.size(), 2u);
  // Blocks of 16 columns: block 0 at the west end, blocks 10 and 11 at the east end; not all 12.
  EXPECT_EQ(r.stats.blocks, 3);
  int64_t inside = 0;
  double previous = -INFINITY;
  for (int64_t x = 0; x < nx; ++x)
    for (int64_t y = 0; y < ny; ++y) {
      const Cell cell = r.plan.AreaCell(x, y);
      const double lon = lons[size_t(cell.y)], lat = lats[size_t(cell.x)];
      const bool in = (lon >= 170 || lon <= -170) && lat >= -5 && lat <= 5;
      const double value = r.variables[0].values[size_t(x * ny + y)];
      ASSERT_EQ(r.plan.mask[size_t(x * ny + y)] == 1, in) << lon << " " << lat;
      if (x == 0) {  // the columns in the asked order: 171, 173, ... 189, without a jump
        EXPECT_GT(r.plan.Lon(lon), previous);
        previous = r.plan.Lon(lon);
      }
      if (in) {
        ++inside;
        EXPECT_EQ(value, float(PatternValue(2, 0, 0, cell.x, cell.y)));
      } else {
        EXPECT_TRUE(std::isnan(value));
      }
    }
  EXPECT_EQ(previous, 189);
  EXPECT_EQ(inside, 6 * 10);  // latitudes -5..5 (6 rows) x longitudes 171..179, -179..-171
}

// Issue 29, 4.6: a corridor costs cells x path segments; beyond the budget it is
// ResourceExhausted (HTTP 413) before any cell is tested, naming what to narrow.
TEST_F(ExtractTest, Issue29ACorridorBeyondItsWorkBudgetIsRefusedBeforeItRuns) {
  VariableMeta v = MakeVariable("g", DataType::kFloat32, {1, 1, 180, 360});
  v.dimension_names = {"", "", "lat", "lon"};
  DataSetMeta meta = MakeMeta("world", {v}, 64, 64);
  std::vector<double> lats, lons;
  for (int i = 0; i < 180; ++i) lats.push_back(-89.5 + i);
  for (int j = 0; j < 360; ++j) lons.push_back(-179.5 + j);
  meta.coordinates = {Coord1D("lat", lats, "degrees_north"), Coord1D("lon", lons, "degrees_east")};
  std::string path = "LINESTRING(";
  for (int i = 0; i < 800; ++i) {
    path += (i ? "," : "") + std::to_string(-170 + (i % 340)) + " " + (i % 2 ? "60" : "-60");
  }
  ExtractRequest request;
  request.variables = {"g"};
  request.trajectory = path + ")";
  request.corridor_width_km = 100;
  EXPECT_STATUS(PlanExtract(meta, request).status(), kResourceExhausted, "million cell tests",
                "x 799", "narrow the area or simplify the path");
  request.trajectory = "LINESTRING(-10 0.5, 10 0.5)";  // a short one is planned
  EXPECT_OK(PlanExtract(meta, request).status());
}

TEST_F(ExtractTest, ErrorsComeBeforeAnyRead) {
  ExtractRequest request;
  request.variables = {"t"};
  request.points = {{170, 0}};
  auto r = Extract(*store_, "run", request);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsOutOfRange());
  EXPECT_THAT(r.status().message(), HasSubstr("longitudes span -31 .. 149"));
  request.points = {{0, 0}};
  request.time = "2026-11-26";
  EXPECT_THAT(Extract(*store_, "run", request).status().message(),
              HasSubstr("there is no time '2026-11-26'"));
  request.time.clear();
  request.variables = {"nope"};
  EXPECT_THAT(Extract(*store_, "run", request).status().message(), HasSubstr("'nope'"));
}

// Issue 30: the horizontal grids planning builds live in the store that planned them (no
// process-wide cache), bounded by GridStoreOptions::derived_cache_bytes.
TEST_F(ExtractTest, Issue30GridsAreKeptByTheStoreWithinItsBudget) {
  ExtractRequest request;
  request.variables = {"t"};
  request.points = {{10, 5}};
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
  auto shared = std::make_shared<const DataSetMeta>(meta);
  EXPECT_EQ(store_->derived_cache().usage(), 0u);
  ASSERT_OK(PlanExtractions(*store_, shared, request, nullptr).status());
  const size_t kept = store_->derived_cache().usage();
  EXPECT_GT(kept, 0u);
  ASSERT_OK(PlanExtractions(*store_, shared, request, nullptr).status());
  EXPECT_EQ(store_->derived_cache().usage(), kept);  // the same grid, not a second one
  store_.reset();
  ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(dir_.Sub("store"), {.derived_cache_bytes = 0}));
  ASSERT_OK_AND_ASSIGN(Extraction e, Extract(*store_, "run", request));
  EXPECT_EQ(store_->derived_cache().usage(), 0u);
  EXPECT_FALSE(e.variables[0].values.empty());
}

// Issue 30: an extraction is planned once against one meta and read as planned; the result
// carries that very meta (its labels), and a dataset whose meta changed between planning and
// reading is Aborted, never read under labels of another meta.
TEST_F(ExtractTest, Issue30PlannedOnceReadAsPlannedAndAbortedIfChangedBetween) {
  ExtractRequest request;
  request.variables = {"t"};
  request.points = {{10, 5}};
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
  auto shared = std::make_shared<const DataSetMeta>(meta);
  ASSERT_OK_AND_ASSIGN(std::vector<PlannedExtract> planned,
                       PlanExtractions(*store_, shared, request, nullptr));
  ASSERT_EQ(planned.size(), 1u);
  EXPECT_EQ(planned[0].plan().points.size(), 1u);
  ASSERT_OK_AND_ASSIGN(Extraction e, Extract(*store_, planned[0]));
  EXPECT_EQ(e.meta.get(), shared.get());
  ASSERT_OK_AND_ASSIGN(Extraction direct, Extract(*store_, "run", request));
  EXPECT_EQ(e.variables[0].values, direct.variables[0].values);
  // Through a fetcher of the state planned against: the same values.
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GridDataFetcher> fetcher, store_->GetDataFetcher("run"));
  ASSERT_OK_AND_ASSIGN(Extraction via_fetcher, Extract(*fetcher, planned[0]));
  EXPECT_EQ(via_fetcher.variables[0].values, direct.variables[0].values);
  meta.attributes["note"] = AttributeValue::String("changed");
  ASSERT_OK(store_->PutDataSetMeta(meta));
  ASSERT_OK_AND_ASSIGN(fetcher, store_->GetDataFetcher("run"));
  EXPECT_TRUE(Extract(*fetcher, planned[0]).status().IsAborted());
  auto again = Extract(*store_, planned[0]);
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(again.status().IsAborted()) << again.status().ToString();
  EXPECT_THAT(again.status().message(), HasSubstr("changed since the extraction was planned"));
}

}  // namespace
}  // namespace gridstore::grid
