// Copyright 2026 The GridStore Authors.
//
// A run that grows step by step with a series layout (issue 33, part 3): each block of steps goes
// to the series layout in the write that completes it, fetches read the steps it holds from it and
// later ones from the planes, always exact; planes of held steps are refused; a finished run that
// grows again keeps only whole blocks until the new ones complete.
#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/grid_verify.h"
#include "tests/grid/grid_testutil.h"
#include "tests/grid/series_testutil.h"

namespace gridstore::grid {
namespace {

using ::testing::HasSubstr;
using testing::MakeMeta;
using testing::MakeVariable;
using testing::PatternPlane;

// At most 13 steps (3 blocks of 4 and a last one of 1), 2 levels, 40 x 50 points.
constexpr Shape4 kFinal = {13, 2, 40, 50};
const SeriesLayout kGrowing{.block_t = 4, .tile_x = 8, .tile_y = 8, .frame_points = 4};

class GrowingSeriesTest : public testing::SeriesTestBase {
 protected:
  GrowingSeriesTest() : SeriesTestBase(kFinal) {}
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
    DataSetMeta meta =
        MakeMeta("run", {MakeVariable("T", DataType::kFloat32, {1, 2, 40, 50})}, 16, 16);
    meta.layout.frame_rows = 4;
    meta.set_status(kStatusIngesting);
    ASSERT_OK(store_->PutDataSetMeta(meta));
  }

  // Appends step t as the GRIB importer does: grows t, writes the step's planes, then marks it
  // complete (and the run DONE if `last`).
  void Append(int64_t t, bool last = false) {
    ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
    meta.variables[0].shape[kT] = t + 1;
    ASSERT_OK(store_->UpdateDataSetMeta(meta));
    ASSERT_NO_FATAL_FAILURE(WriteSteps(meta, t, t + 1));
    ASSERT_OK_AND_ASSIGN(meta, store_->GetDataSetMeta("run"));
    meta.variables[0].complete_steps.Add(t, t + 1);
    if (last) {
      meta.variables[0].complete_steps = {};
      meta.set_status(kStatusDone);
    }
    ASSERT_OK(store_->UpdateDataSetMeta(meta));
  }
  // Writes the planes of steps [begin, end) (and into the reference).
  void WriteSteps(const DataSetMeta& meta, int64_t begin, int64_t end) {
    ASSERT_OK_AND_ASSIGN(auto writer, store_->GetDataWriter("run"));
    for (int64_t t = begin; t < end; ++t) {
      for (int64_t z = 0; z < kFinal[kZ]; ++z) {
        Grid2D plane = PatternPlane(meta.variables[0], 1, t, z);
        reference_.SetPlane(t, z, plane);
        ASSERT_OK(writer->WriteGrid2D("T", t, z, plane));
      }
    }
    ASSERT_OK(writer->Flush());
  }
  int64_t HeldSteps() {
    auto meta = store_->GetDataSetMeta("run");
    EXPECT_OK(meta.status());
    return meta.ok() && meta->series ? meta->series->steps : -2;
  }
};

TEST_F(GrowingSeriesTest, BlocksOfStepsJoinTheSeriesLayoutAsTheyComplete) {
  ASSERT_NO_FATAL_FAILURE(Append(0));
  ASSERT_OK_AND_ASSIGN(RelayoutReport report, store_->AddSeriesLayout("run", kGrowing));
  EXPECT_EQ(report.layout.block_t, 4);
  EXPECT_EQ(report.layout.steps, 0);
  EXPECT_EQ(report.blocks_written, 0);
  for (int64_t t = 1; t < kFinal[kT]; ++t) {
    SCOPED_TRACE("after step " + std::to_string(t));
    const bool last = t + 1 == kFinal[kT];
    ASSERT_NO_FATAL_FAILURE(Append(t, last));
    const int64_t held = last ? kSeriesAllSteps : (t + 1) / 4 * 4;
    EXPECT_EQ(HeldSteps(), held);
    // A point's series over every step so far: the held blocks from the series layout, the
    // steps after them from the planes; exact either way.
    const FetchPlan point = FetchAndCompare({0, 1, 17, 33}, {t + 1, 1, 1, 1});
    ASSERT_EQ(point.variables.size(), 1u);
    if (held == 0) {
      EXPECT_EQ(point.variables[0].layout, "plane");
    } else {
      const int64_t in_series = held < 0 ? t + 1 : held;
      EXPECT_EQ(point.variables[0].layout, "series");
      EXPECT_EQ(point.variables[0].blocks, (in_series + 3) / 4 + (t + 1 - in_series));
    }
    // Forced to the series layout, and an area across tiles, levels and the held steps' end.
    FetchAndCompare({0, 1, 17, 33}, {t + 1, 1, 1, 1}, FetchLayout::kSeries);
    FetchAndCompare({0, 0, 5, 6}, {t + 1, 2, 12, 20}, FetchLayout::kSeries);
    FetchAndCompare({t, 0, 0, 0}, {1, 2, 40, 50});
  }
  ASSERT_OK_AND_ASSIGN(VerifyReport verified, Verify(store_.get(), "run"));
  EXPECT_EQ(verified.problems.size(), 0u);
  for (const VerifyProblem& p : verified.problems) ADD_FAILURE() << p.message;
  ASSERT_OK_AND_ASSIGN(DataSetMeta done, store_->GetDataSetMeta("run"));
  ASSERT_TRUE(done.series.has_value());
  EXPECT_TRUE(done.series->ready);
  EXPECT_EQ(SeriesLayoutToString(*done.series), "4 steps x 8x8 points, frames of 4 points");
}

TEST_F(GrowingSeriesTest, PlanesOfHeldStepsAreRefusedLaterOnesWritten) {
  ASSERT_NO_FATAL_FAILURE(Append(0));
  ASSERT_OK(store_->AddSeriesLayout("run", kGrowing).status());
  for (int64_t t = 1; t < 5; ++t) ASSERT_NO_FATAL_FAILURE(Append(t));
  EXPECT_EQ(HeldSteps(), 4);
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
  EXPECT_THAT(SeriesLayoutToString(*meta.series), HasSubstr("growing: steps 0-3 so far"));
  ASSERT_OK_AND_ASSIGN(auto writer, store_->GetDataWriter("run"));
  Status s = writer->WriteGrid2D("T", 2, 0, PatternPlane(meta.variables[0], 9, 2, 0));
  EXPECT_TRUE(s.IsFailedPrecondition()) << s;
  EXPECT_THAT(s.message(), HasSubstr("step t = 2 is held in the series layout (steps 0-3)"));
  EXPECT_OK(writer->WriteGrid2D("T", 4, 0, PatternPlane(meta.variables[0], 1, 4, 0)));
  ASSERT_OK(writer->Flush());
  FetchAndCompare({0, 0, 0, 0}, {5, 2, 40, 50});
}

TEST_F(GrowingSeriesTest, AFinishedRunThatGrowsAgainKeepsWholeBlocksUntilTheNextComplete) {
  for (int64_t t = 0; t < 6; ++t) {
    ASSERT_NO_FATAL_FAILURE(Append(t, t == 5));
    if (t == 0) ASSERT_OK(store_->AddSeriesLayout("run", kGrowing).status());
  }
  EXPECT_EQ(HeldSteps(), kSeriesAllSteps);  // blocks of 4 and 2 steps
  // Arriving again: the short block of steps 4-5 is no longer held, then written whole.
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
  meta.set_status(kStatusIngesting);
  meta.variables[0].complete_steps.Add(0, 6);
  ASSERT_OK(store_->UpdateDataSetMeta(meta));
  EXPECT_EQ(HeldSteps(), kSeriesAllSteps);
  ASSERT_NO_FATAL_FAILURE(Append(6));
  EXPECT_EQ(HeldSteps(), 4);
  FetchAndCompare({0, 1, 17, 33}, {7, 1, 1, 1}, FetchLayout::kSeries);
  ASSERT_NO_FATAL_FAILURE(Append(7));
  EXPECT_EQ(HeldSteps(), 8);
  const FetchPlan plan = FetchAndCompare({0, 1, 17, 33}, {8, 1, 1, 1});
  EXPECT_EQ(plan.variables[0].layout, "series");
  EXPECT_EQ(plan.variables[0].blocks, 2);
  ASSERT_OK_AND_ASSIGN(VerifyReport verified, Verify(store_.get(), "run"));
  EXPECT_EQ(verified.problems.size(), 0u);
  for (const VerifyProblem& p : verified.problems) ADD_FAILURE() << p.message;
}

TEST_F(GrowingSeriesTest, ChoicesAndRefusalsForARunStillArriving) {
  ASSERT_NO_FATAL_FAILURE(Append(0));
  SeriesLayout whole = kGrowing;
  whole.block_t = kSeriesWholeSeries;
  Status s = store_->AddSeriesLayout("run", whole).status();
  EXPECT_TRUE(s.IsInvalidArgument()) << s;
  EXPECT_THAT(s.message(), HasSubstr("needs a finished run"));
  // Left to choose: kGrowingSeriesSteps per block, whatever the run's length so far; asked
  // again (an import asking for it with each step), the stored layout stands.
  SeriesLayout chosen = kGrowing;
  chosen.block_t = kSeriesChoose;
  ASSERT_OK_AND_ASSIGN(RelayoutReport report, store_->AddSeriesLayout("run", chosen));
  EXPECT_EQ(report.layout.block_t, kGrowingSeriesSteps);
  ASSERT_NO_FATAL_FAILURE(Append(1));
  ASSERT_OK_AND_ASSIGN(report, store_->AddSeriesLayout("run", chosen));
  EXPECT_EQ(report.layout.block_t, kGrowingSeriesSteps);
  EXPECT_TRUE(report.already_ready);
  SeriesLayout other = kGrowing;
  s = store_->AddSeriesLayout("run", other).status();
  EXPECT_TRUE(s.IsFailedPrecondition()) << s;
  EXPECT_THAT(s.message(), HasSubstr("another series layout"));
  // A variable changing shape otherwise, or added, is still refused.
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
  meta.variables.push_back(MakeVariable("U", DataType::kFloat32, meta.variables[0].shape));
  EXPECT_TRUE(store_->UpdateDataSetMeta(meta).IsFailedPrecondition());
}

// A layout left behind (here: steps marked complete by PutDataSetMetas, which writes metas only)
// is reported by verify, read exactly meanwhile, and caught up by AddSeriesLayout.
TEST_F(GrowingSeriesTest, ALayoutLeftBehindIsReportedAndCaughtUp) {
  ASSERT_NO_FATAL_FAILURE(Append(0));
  ASSERT_OK(store_->AddSeriesLayout("run", kGrowing).status());
  for (int64_t t = 1; t < 6; ++t) ASSERT_NO_FATAL_FAILURE(Append(t));
  ASSERT_EQ(HeldSteps(), 4);
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
  meta.variables[0].shape[kT] = 8;
  ASSERT_OK(store_->PutDataSetMetas({meta}));
  ASSERT_NO_FATAL_FAILURE(WriteSteps(meta, 6, 8));
  meta.variables[0].complete_steps.Add(0, 8);
  ASSERT_OK(store_->PutDataSetMetas({meta}));
  EXPECT_EQ(HeldSteps(), 4);
  ASSERT_OK_AND_ASSIGN(VerifyReport verified, Verify(store_.get(), "run"));
  ASSERT_EQ(verified.problems.size(), 1u);
  EXPECT_THAT(verified.problems[0].message, HasSubstr("holds 4 steps but could hold 8"));
  FetchAndCompare({0, 1, 17, 33}, {8, 1, 1, 1}, FetchLayout::kSeries);

  ASSERT_OK_AND_ASSIGN(RelayoutReport caught_up, store_->AddSeriesLayout("run", kGrowing));
  EXPECT_EQ(caught_up.layout.steps, 8);
  EXPECT_GT(caught_up.blocks_written, 0);
  EXPECT_EQ(HeldSteps(), 8);
  ASSERT_OK_AND_ASSIGN(verified, Verify(store_.get(), "run"));
  EXPECT_EQ(verified.problems.size(), 0u);
  const FetchPlan plan = FetchAndCompare({0, 1, 17, 33}, {8, 1, 1, 1});
  EXPECT_EQ(plan.variables[0].blocks, 2);
}

}  // namespace
}  // namespace gridstore::grid
