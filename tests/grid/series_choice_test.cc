// Copyright 2026 The GridStore Authors.
//
// The series layout's geometry chosen for the dataset (model/internal/series_choice.h) and given
// explicitly: a long series in one block of small tiles, blocks of any steps (not dividing the
// series), values equal to the planes value by value, the planner counting the recorded geometry.
#include "gridstore/model/internal/series_choice.h"

#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/grid_verify.h"
#include "tests/grid/grid_testutil.h"
#include "tests/grid/series_testutil.h"

namespace gridstore::grid {
namespace {

using internal_meta::ResolveSeriesLayout;
using testing::MakeMeta;
using testing::MakeVariable;

constexpr SeriesLayout kChoose{.block_t = kSeriesChoose,
                               .tile_x = kSeriesChoose,
                               .tile_y = kSeriesChoose,
                               .block_z = kSeriesChoose,
                               .frame_points = kSeriesChoose};

DataSetMeta MetaOf(int64_t steps, DataType type, int64_t levels = 1) {
  return MakeMeta("run", {MakeVariable("T", type, {steps, levels, 64, 64})}, 64, 64);
}

TEST(SeriesChoiceTest, ShortSeriesKeepTheOldDefaults) {
  for (int64_t steps : {1, 24, 241, 256}) {
    ASSERT_OK_AND_ASSIGN(SeriesLayout got,
                         ResolveSeriesLayout(MetaOf(steps, DataType::kFloat64), kChoose));
    EXPECT_EQ(got, SeriesLayout{}) << steps;
  }
}

TEST(SeriesChoiceTest, LongSeriesGetAllStepsAndSmallTiles) {
  // 40 years hourly, float32: a row is 1.4 MB, so one point per frame, two per block.
  ASSERT_OK_AND_ASSIGN(SeriesLayout got,
                       ResolveSeriesLayout(MetaOf(350640, DataType::kFloat32), kChoose));
  EXPECT_EQ(
      got,
      (SeriesLayout{.block_t = 350640, .tile_x = 1, .tile_y = 2, .block_z = 1, .frame_points = 1}));
  // A year hourly: 35 KB rows, frames of 7 points, blocks of 7x16 points (about 4 MiB).
  ASSERT_OK_AND_ASSIGN(got, ResolveSeriesLayout(MetaOf(8760, DataType::kFloat32), kChoose));
  EXPECT_EQ(got, (SeriesLayout{
                     .block_t = 8760, .tile_x = 7, .tile_y = 16, .block_z = 1, .frame_points = 7}));
  // Beyond 2^20 steps: equal blocks of at most 2^20.
  ASSERT_OK_AND_ASSIGN(got, ResolveSeriesLayout(MetaOf(2100000, DataType::kInt8), kChoose));
  EXPECT_EQ(got.block_t, 700000);
  // What is given is kept, the rest follows it.
  SeriesLayout partial = kChoose;
  partial.block_t = 1000;
  partial.tile_x = 2;
  ASSERT_OK_AND_ASSIGN(got, ResolveSeriesLayout(MetaOf(350640, DataType::kFloat32), partial));
  EXPECT_EQ(
      got,
      (SeriesLayout{.block_t = 1000, .tile_x = 2, .tile_y = 16, .block_z = 1, .frame_points = 16}));
  // "All": the whole series, short or long.
  partial = kChoose;
  partial.block_t = kSeriesWholeSeries;
  ASSERT_OK_AND_ASSIGN(got, ResolveSeriesLayout(MetaOf(24, DataType::kFloat32), partial));
  EXPECT_EQ(got.block_t, 24);
  // A block_t given long for a short series keeps tiles within a block's bound on values.
  partial.block_t = 1 << 20;
  ASSERT_OK_AND_ASSIGN(got, ResolveSeriesLayout(MetaOf(24, DataType::kFloat32), partial));
  DataSetMeta with = MetaOf(24, DataType::kFloat32);
  with.series = got;
  EXPECT_OK(with.Validate());
}

TEST(SeriesChoiceTest, InvalidRequestsNameTheField) {
  SeriesLayout bad = kChoose;
  bad.block_t = -2;
  EXPECT_STATUS(ResolveSeriesLayout(MetaOf(10, DataType::kFloat32), bad), kInvalidArgument,
                "steps per block -2 is invalid");
  bad = kChoose;
  bad.tile_y = kSeriesWholeSeries;
  EXPECT_STATUS(ResolveSeriesLayout(MetaOf(10, DataType::kFloat32), bad), kInvalidArgument,
                "points per tile along y -1 is invalid");
  bad = kChoose;
  bad.frame_points = -5;
  EXPECT_STATUS(ResolveSeriesLayout(MetaOf(10, DataType::kFloat32), bad), kInvalidArgument,
                "points per frame -5");
}

// 20,000 steps of 6 x 7 points: long enough that the choice makes small tiles (80 KB rows: frames
// of 3 points, tiles of 3x16), with edge tiles along x.
constexpr Shape4 kLong = {20000, 1, 6, 7};

class SeriesChoiceStoreTest : public testing::SeriesTestBase {
 protected:
  SeriesChoiceStoreTest() : SeriesTestBase(kLong) {}
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
    DataSetMeta meta = MakeMeta("run", {MakeVariable("T", DataType::kFloat32, kLong)}, 8, 8);
    meta.set_status(kStatusDone);
    ASSERT_NO_FATAL_FAILURE(testing::WritePatternPlanes(store_.get(), meta, 3, &reference_));
  }
};

TEST_F(SeriesChoiceStoreTest, ChosenGeometryIsRecordedAndReadsEqualThePlanes) {
  ASSERT_OK_AND_ASSIGN(RelayoutReport report, store_->AddSeriesLayout("run", kChoose));
  const SeriesLayout expected{
      .block_t = 20000, .tile_x = 3, .tile_y = 16, .block_z = 1, .frame_points = 3};
  EXPECT_EQ(report.layout, expected);
  EXPECT_EQ(report.blocks_written, 2);  // tile rows 0-2 and 3-5, one tile column
  ASSERT_OK_AND_ASSIGN(DataSetMeta stored, store_->GetDataSetMeta("run"));
  ASSERT_TRUE(stored.series.has_value());
  SeriesLayout ready = expected;
  ready.ready = true;
  EXPECT_EQ(*stored.series, ready);

  // A point's whole series: one block, one frame of 3 points.
  FetchPlan point = FetchAndCompare({0, 0, 4, 5}, {20000, 1, 1, 1});
  EXPECT_EQ(point.variables[0].layout, "series");
  EXPECT_EQ(point.variables[0].series_blocks, 1);
  EXPECT_EQ(point.variables[0].plane_blocks, 20000);
  EXPECT_EQ(point.variables[0].series_bytes_to_decode, 3 * 20000 * 4);
  // Part of the series, an area across both tile rows, and everything, forced to the series.
  FetchAndCompare({12345, 0, 0, 6}, {77, 1, 1, 1}, FetchLayout::kSeries);
  FetchAndCompare({100, 0, 1, 2}, {900, 1, 4, 3}, FetchLayout::kSeries);
  FetchAndCompare({0, 0, 0, 0}, kLong, FetchLayout::kSeries);
  // Asking again with the choice is the same layout (a resumed relayout asks it so).
  ASSERT_OK_AND_ASSIGN(RelayoutReport again, store_->AddSeriesLayout("run", kChoose));
  EXPECT_TRUE(again.already_ready);
  ASSERT_OK_AND_ASSIGN(VerifyReport verify, store_->Verify("run"));
  EXPECT_TRUE(verify.problems.empty());
}

TEST_F(SeriesChoiceStoreTest, GivenStepsPerBlockNotDividingTheSeries) {
  const SeriesLayout given{
      .block_t = 7001, .tile_x = 4, .tile_y = 3, .block_z = 1, .frame_points = 2};
  ASSERT_OK_AND_ASSIGN(RelayoutReport report, store_->AddSeriesLayout("run", given));
  EXPECT_EQ(report.layout, given);
  EXPECT_EQ(report.blocks_written, 3 * 2 * 3);  // 3 step blocks (the last 5,998) x 2 x 3 tiles
  FetchPlan point = FetchAndCompare({0, 0, 5, 6}, {20000, 1, 1, 1}, FetchLayout::kSeries);
  EXPECT_EQ(point.variables[0].series_blocks, 3);
  // Point (5, 6) is in an edge tile of 2x1 points: one frame (2 rows) per block.
  EXPECT_EQ(point.variables[0].series_bytes_to_decode, 2 * 20000 * 4);
  FetchAndCompare({7000, 0, 0, 0}, {2, 1, 6, 7}, FetchLayout::kSeries);  // across a block edge
  FetchAndCompare({0, 0, 0, 0}, kLong, FetchLayout::kSeries);
  ASSERT_OK_AND_ASSIGN(VerifyReport verify, store_->Verify("run"));
  EXPECT_TRUE(verify.problems.empty());
  // Invalid sides are refused with the field named, and the layout stays as it was.
  ASSERT_OK(store_->DropSeriesLayout("run"));
  SeriesLayout bad = given;
  bad.block_t = -3;
  EXPECT_STATUS(store_->AddSeriesLayout("run", bad).status(), kInvalidArgument,
                "adding a series layout to dataset 'run'", "steps per block -3 is invalid");
  bad.block_t = (1 << 20) + 1;
  EXPECT_STATUS(store_->AddSeriesLayout("run", bad).status(), kInvalidArgument,
                "each side must be in [1, 1048576]");
  ASSERT_OK_AND_ASSIGN(DataSetMeta stored, store_->GetDataSetMeta("run"));
  EXPECT_FALSE(stored.series.has_value());
}

}  // namespace
}  // namespace gridstore::grid
