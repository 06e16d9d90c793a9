// Copyright 2026 The GridStore Authors.
//
// Series blocks over several levels (SeriesLayout::block_z): a point's time-height section is
// one block per block of steps, decoding one or two frames; a single-level series still decodes
// one frame; every box reads the same values from either layout; Explain's costs; verification
// names the levels of a bad block. series_layout_test covers the rest of the layout.
#include <random>

#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/grid_verify.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/model/internal/grid_keys.h"
#include "tests/grid/grid_testutil.h"
#include "tests/grid/series_testutil.h"

namespace gridstore::grid {
namespace {

using ::testing::HasSubstr;
using testing::MakeMeta;
using testing::MakeVariable;

// 20 steps, 5 levels, 12 x 14 points; series blocks of 8 steps x 2 levels over 4x4 tiles, frames
// of 3 rows: edge blocks along t (20 % 8), z (5 % 2) and y (14 % 4).
constexpr Shape4 kLevelsShape = {20, 5, 12, 14};
const SeriesLayout kLevelsLayout{
    .block_t = 8, .tile_x = 4, .tile_y = 4, .block_z = 2, .frame_points = 3};

class SeriesLevelsTest : public testing::SeriesTestBase {
 protected:
  SeriesLevelsTest() : SeriesTestBase(kLevelsShape) {}
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
    DataSetMeta meta = MakeMeta("run", {MakeVariable("T", DataType::kFloat32, kLevelsShape)}, 8, 8);
    meta.set_status(kStatusDone);
    ASSERT_NO_FATAL_FAILURE(testing::WritePatternPlanes(store_.get(), meta, 3, &reference_));
    ASSERT_OK_AND_ASSIGN(report_, store_->AddSeriesLayout("run", kLevelsLayout));
  }
  RelayoutReport report_;
};

TEST_F(SeriesLevelsTest, ATimeHeightSectionIsOneBlockPerStepBlock) {
  // 3 step blocks x 3 level blocks x 3 x 4 tiles.
  EXPECT_EQ(report_.blocks_written, 3 * 3 * 3 * 4);
  EXPECT_EQ(report_.raw_bytes,
            MakeVariable("T", DataType::kFloat32, kLevelsShape).num_elements() * 4);

  // Point (5, 6) is point 6 of its tile: rows 12 and 13 of a two-level block (frame 4, rows
  // 12-14), row 6 of the one-level edge block (frame 2, rows 6-8): 3 rows per block.
  FetchPlan section = FetchAndCompare({0, 0, 5, 6}, {20, 5, 1, 1});
  ASSERT_EQ(section.variables.size(), 1u);
  EXPECT_EQ(section.variables[0].layout, "series");
  EXPECT_EQ(section.variables[0].series_blocks, 3 * 3);
  EXPECT_EQ(section.variables[0].plane_blocks, 20 * 5);
  EXPECT_EQ(section.variables[0].series_bytes_to_decode, 3 * 3 * 20 * 4);
  EXPECT_THAT(section.layout, HasSubstr("8 steps x 4x4 points x 2 levels, frames of 3 rows"));

  // One level of one point: one frame of 3 rows per step block, as with blocks of one level.
  FetchPlan series = FetchAndCompare({0, 3, 5, 6}, {20, 1, 1, 1});
  EXPECT_EQ(series.variables[0].layout, "series");
  EXPECT_EQ(series.variables[0].series_blocks, 3);
  EXPECT_EQ(series.variables[0].series_bytes_to_decode, 3 * 20 * 4);

  // Two levels of point 5 (5, 5): rows 10-11, inside frame 3 (rows 9-11).
  FetchPlan inside = FetchAndCompare({0, 0, 5, 5}, {20, 2, 1, 1});
  EXPECT_EQ(inside.variables[0].series_bytes_to_decode, 3 * 20 * 4);
  // Point 7 (5, 7): rows 14-15 straddle frames 4 (12-14) and 5 (15-17).
  FetchPlan straddling = FetchAndCompare({0, 0, 5, 7}, {20, 2, 1, 1});
  EXPECT_EQ(straddling.variables[0].series_bytes_to_decode, 6 * 20 * 4);

  // A whole plane stays on the planes.
  EXPECT_EQ(FetchAndCompare({4, 2, 0, 0}, {1, 1, 12, 14}).variables[0].layout, "plane");
}

TEST_F(SeriesLevelsTest, EveryBoxReadsTheSameValuesFromEitherLayout) {
  std::mt19937_64 rng(7);
  for (int q = 0; q < 60; ++q) {
    Shape4 origin, shape;
    for (int a = 0; a < kRank; ++a) {
      origin[a] = static_cast<int64_t>(rng() % kLevelsShape[a]);
      shape[a] = 1 + static_cast<int64_t>(rng() % (kLevelsShape[a] - origin[a]));
    }
    SCOPED_TRACE("box " + std::to_string(q));
    for (FetchLayout layout : {FetchLayout::kPlanes, FetchLayout::kSeries}) {
      FetchAndCompare(origin, shape, layout);
    }
  }
  // Batched points at several levels read each series block once.
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("run"));
  std::vector<Box> points;
  for (int64_t z = 0; z < 5; ++z) points.push_back(Box{{0, z, 9, 13}, {20, 1, 1, 1}});
  fetcher->set_options(FetchOptions{.layout = FetchLayout::kSeries});
  ASSERT_OK_AND_ASSIGN(std::vector<GridDataSet> got, fetcher->FetchBoxes(points));
  for (const GridDataSet& one : got) EXPECT_EQ(reference_.Compare(*one.GetVariable("T")), "");
  EXPECT_EQ(got[0].stats.blocks, 3 * 3);
}

TEST_F(SeriesLevelsTest, VerifyNamesTheLevelsOfABadBlock) {
  ASSERT_OK_AND_ASSIGN(VerifyReport clean, Verify(store_.get(), "run"));
  EXPECT_TRUE(clean.ok());
  EXPECT_EQ(clean.blocks, 20 * 5 * 2 * 2 + 3 * 3 * 3 * 4);  // planes, then series blocks

  storage::KvStore* kv = KvStoreOf(store_.get());
  std::string value;
  ASSERT_OK(kv->Get({}, storage::Table::kData, SeriesKey(1, 1, 2, 3), &value));
  value[value.size() - 2] ^= 1;
  ASSERT_OK(kv->Put({}, storage::Table::kData, SeriesKey(1, 1, 2, 3), value));
  ASSERT_OK(kv->Delete({}, storage::Table::kData, SeriesKey(2, 2, 0, 0)));
  // A key past the last level block.
  ASSERT_OK(kv->Put({}, storage::Table::kData, SeriesKey(2, 3, 0, 0), value));

  ASSERT_OK_AND_ASSIGN(VerifyReport report, Verify(store_.get(), ""));
  std::string all;
  for (const auto& p : report.problems) all += p.message + "\n";
  EXPECT_THAT(all, HasSubstr("z 2-3, steps from 8, tile row 2, tile column 3 (series): "));
  EXPECT_THAT(all, HasSubstr("z 4, steps from 16, tile row 0, tile column 0 (series): missing"));
  EXPECT_THAT(all, HasSubstr("outside the variable's shape"));
  EXPECT_EQ(report.problems.size(), 3u) << all;
}

}  // namespace
}  // namespace gridstore::grid
