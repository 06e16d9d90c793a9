// Copyright 2026 The GridStore Authors.
//
// The series layout (grid_meta.h, SeriesLayout): the planner's choice and what Explain says of it,
// consistency with the planes under every write that could break it, resuming a relayout that
// was killed, verification of both layouts, and the refusals. Values are compared with a
// reference array (grid_property_test covers random shapes, types and codecs).
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <thread>

#include "gridstore/blocks/internal/block_codec.h"
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
using testing::PatternPlane;

// 30 steps, 2 levels, 40 x 50 points in 16x16 plane blocks; series blocks of 8 steps over 8x8
// tiles (edges of every kind: 30 % 8, 40 % 8 = 0, 50 % 8).
constexpr Shape4 kShape = {30, 2, 40, 50};
const SeriesLayout kSeries{.block_t = 8, .tile_x = 8, .tile_y = 8, .frame_points = 4};

class SeriesLayoutTest : public testing::SeriesTestBase {
 protected:
  SeriesLayoutTest() : SeriesTestBase(kShape) {}
  void SetUp() override {
    Open();
    meta_ = MakeMeta("run", {MakeVariable("T", DataType::kFloat32, kShape)}, 16, 16);
    meta_.layout.frame_rows = 4;
    meta_.set_status(kStatusDone);
    ASSERT_NO_FATAL_FAILURE(testing::WritePatternPlanes(store_.get(), meta_, 1, &reference_));
  }
  void Open() {
    ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
  }
  DataSetMeta meta_;
};

TEST_F(SeriesLayoutTest, PlannerPicksTheCheaperLayoutAndExplainShowsBoth) {
  // No series layout: planes, and Explain has no series cost.
  FetchPlan before = FetchAndCompare({0, 1, 17, 33}, {30, 1, 1, 1});
  ASSERT_EQ(before.variables.size(), 1u);
  EXPECT_EQ(before.variables[0].layout, "plane");
  EXPECT_EQ(before.variables[0].series_blocks, -1);
  EXPECT_EQ(before.variables[0].blocks, 30);

  {
    ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("run"));
    fetcher->set_options(FetchOptions{.layout = FetchLayout::kSeries});
    EXPECT_STATUS(fetcher->Fetch(), kFailedPrecondition, "has no series layout", "relayout");
  }
  ASSERT_OK_AND_ASSIGN(RelayoutReport report, store_->AddSeriesLayout("run", kSeries));
  // 4 step blocks x 2 levels x 5 x 7 tiles.
  EXPECT_EQ(report.blocks_written, 4 * 2 * 5 * 7);
  EXPECT_EQ(report.blocks_resumed, 0);
  EXPECT_EQ(report.raw_bytes, meta_.variables[0].num_elements() * 4);
  EXPECT_GT(report.stored_bytes, 0);

  // A point series: 4 series blocks (one per 8 steps), one frame of 4 points each.
  FetchPlan point = FetchAndCompare({0, 1, 17, 33}, {30, 1, 1, 1});
  EXPECT_EQ(point.variables[0].layout, "series");
  EXPECT_EQ(point.variables[0].blocks, 4);
  EXPECT_EQ(point.variables[0].plane_blocks, 30);
  EXPECT_EQ(point.variables[0].series_blocks, 4);
  EXPECT_EQ(point.variables[0].series_bytes_to_decode, (8 + 8 + 8 + 6) * 4 * 4);
  EXPECT_THAT(point.layout, HasSubstr("series blocks 8 steps x 8x8 points"));
  // A small area over a few steps, crossing tiles and step blocks.
  EXPECT_EQ(FetchAndCompare({5, 0, 6, 14}, {6, 2, 4, 4}).variables[0].layout, "series");
  // A whole plane stays on the planes.
  EXPECT_EQ(FetchAndCompare({3, 1, 0, 0}, {1, 1, 40, 50}).variables[0].layout, "plane");
  // The whole variable decodes the same bytes either way; here the series blocks are bigger
  // (512 values against 256), so fewer, and the planner takes them.
  FetchPlan whole = FetchAndCompare({0, 0, 0, 0}, kShape);
  EXPECT_EQ(whole.variables[0].plane_bytes_to_decode, whole.variables[0].series_bytes_to_decode);
  EXPECT_EQ(whole.variables[0].layout, "series");

  // Forced either way, with the same values.
  for (FetchLayout forced : {FetchLayout::kPlanes, FetchLayout::kSeries}) {
    ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("run"));
    fetcher->SetOriginShape({0, 0, 0, 0}, {2, 1, 40, 50});
    fetcher->set_options(FetchOptions{.layout = forced});
    ASSERT_OK_AND_ASSIGN(GridDataSet got, fetcher->Fetch());
    EXPECT_EQ(reference_.Compare(*got.GetVariable("T")), "");
    ASSERT_OK_AND_ASSIGN(FetchPlan plan, fetcher->Explain());
    EXPECT_EQ(plan.variables[0].layout, forced == FetchLayout::kPlanes ? "plane" : "series");
  }
  // Batched points (as extract sends them) read each series block once.
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("run"));
  std::vector<Box> points;
  for (int64_t x = 0; x < 8; ++x) points.push_back(Box{{0, 0, x, 3}, {30, 1, 1, 1}});
  ASSERT_OK_AND_ASSIGN(std::vector<GridDataSet> got, fetcher->FetchBoxes(points));
  for (const GridDataSet& one : got) EXPECT_EQ(reference_.Compare(*one.GetVariable("T")), "");
  EXPECT_EQ(got[0].stats.blocks, 4);  // one tile, 4 step blocks
}

TEST_F(SeriesLayoutTest, UnpackedReadsMatchThePlanes) {
  DataSetMeta packed = meta_;
  packed.id = "packed";
  packed.variables[0].type = DataType::kInt16;
  packed.variables[0].packing = Packing{.scale_factor = 0.5, .add_offset = 100};
  packed.variables[0].set_fill_value<int16_t>(-1);
  packed.variables[0].packing->unpacked_type = DataType::kFloat32;
  ASSERT_OK(store_->PutDataSetMeta(packed));
  ASSERT_OK_AND_ASSIGN(auto writer, store_->GetDataWriter("packed"));
  for (int64_t t = 0; t < kShape[kT]; ++t) {
    ASSERT_OK(writer->WriteGrid2D("T", t, 0, PatternPlane(packed.variables[0], 2, t, 0)));
  }
  ASSERT_OK(writer->Flush());
  writer.reset();
  auto read = [&]() -> Result<GridDataSet> {
    GRIDSTORE_ASSIGN_OR_RETURN(auto fetcher, store_->GetDataFetcher("packed"));
    fetcher->SetOriginShape({0, 0, 3, 4}, {30, 2, 1, 2});
    fetcher->set_options(FetchOptions{.unpack = true});
    return fetcher->Fetch();
  };
  ASSERT_OK_AND_ASSIGN(GridDataSet planes, read());
  ASSERT_OK(store_->AddSeriesLayout("packed", kSeries).status());
  ASSERT_OK_AND_ASSIGN(GridDataSet series, read());
  const Grid4D& a = *planes.GetVariable("T");
  const Grid4D& b = *series.GetVariable("T");
  ASSERT_EQ(a.type(), b.type());
  ASSERT_EQ(a.size_bytes(), b.size_bytes());
  EXPECT_EQ(std::memcmp(a.bytes(), b.bytes(), a.size_bytes()), 0);  // NaN where fill, bitwise
}

TEST_F(SeriesLayoutTest, WritesThatWouldLeaveItStaleAreRefused) {
  ASSERT_OK(store_->AddSeriesLayout("run", kSeries).status());
  // A plane write: the series blocks would keep the old values.
  auto writer = store_->GetDataWriter("run");
  EXPECT_TRUE(writer.status().IsFailedPrecondition());
  EXPECT_THAT(writer.status().message(), HasSubstr("has a series layout"));
  // A variable of another shape, or one added: no series blocks would cover it. (Growing t is
  // allowed: growing_series_test.)
  DataSetMeta grown = meta_;
  grown.variables[0].shape[kX] = 41;
  Status s = store_->UpdateDataSetMeta(grown);
  EXPECT_TRUE(s.IsFailedPrecondition()) << s;
  EXPECT_THAT(s.message(), HasSubstr("cannot change shape"));
  DataSetMeta added = meta_;
  added.variables.push_back(MakeVariable("U", DataType::kFloat32, kShape));
  EXPECT_TRUE(store_->UpdateDataSetMeta(added).IsFailedPrecondition());
  // Attributes may change; the meta written back (without a series layout) keeps it.
  DataSetMeta renamed = meta_;
  renamed.attributes["model"] = AttributeValue::String("ifs");
  ASSERT_OK(store_->UpdateDataSetMeta(renamed));
  ASSERT_OK_AND_ASSIGN(DataSetMeta stored, store_->GetDataSetMeta("run"));
  ASSERT_TRUE(stored.series.has_value());
  EXPECT_TRUE(stored.series->ready);
  EXPECT_EQ(FetchAndCompare({0, 0, 1, 1}, {30, 1, 1, 1}).variables[0].layout, "series");

  // Dropped: planes again, every series block gone, and writes allowed.
  ASSERT_OK(store_->DropSeriesLayout("run"));
  EXPECT_EQ(FetchAndCompare({0, 0, 1, 1}, {30, 1, 1, 1}).variables[0].layout, "plane");
  std::string value;
  EXPECT_TRUE(KvStoreOf(store_.get())
                  ->Get({}, storage::Table::kData, SeriesKey(0, 0, 0, 0), &value)
                  .IsNotFound());
  EXPECT_OK(store_->GetDataWriter("run").status());
  EXPECT_TRUE(store_->DropSeriesLayout("run").IsNotFound());
}

TEST_F(SeriesLayoutTest, AWriterMadeBeforeARelayoutCannotLeaveItStale) {
  ASSERT_OK_AND_ASSIGN(auto early, store_->GetDataWriter("run"));
  ASSERT_OK(store_->AddSeriesLayout("run", kSeries).status());
  Status s = early->WriteGrid2D("T", 5, 0, PatternPlane(meta_.variables[0], 2, 5, 0));
  if (s.ok()) s = early->Flush();
  EXPECT_TRUE(s.IsFailedPrecondition()) << s;
  EXPECT_THAT(s.message(), HasSubstr("after this writer was made"));
  // Nothing was written: both layouts hold the old plane.
  EXPECT_EQ(FetchAndCompare({5, 0, 0, 0}, {1, 1, 40, 50}).variables[0].layout, "plane");
  EXPECT_EQ(FetchAndCompare({0, 0, 3, 3}, {30, 1, 1, 1}).variables[0].layout, "series");
  ASSERT_OK_AND_ASSIGN(VerifyReport report, Verify(store_.get(), "run"));
  EXPECT_TRUE(report.ok()) << report.problems[0].message;
  // Once the layout is dropped a new writer may write; the early one stays refused.
  ASSERT_OK(store_->DropSeriesLayout("run"));
  EXPECT_TRUE(early->WriteGrid2D("T", 5, 0, PatternPlane(meta_.variables[0], 2, 5, 0))
                  .IsFailedPrecondition());
  ASSERT_OK_AND_ASSIGN(auto late, store_->GetDataWriter("run"));
  ASSERT_OK(late->WriteGrid2D("T", 5, 0, PatternPlane(meta_.variables[0], 2, 5, 0)));
  ASSERT_OK(late->Flush());
}

TEST_F(SeriesLayoutTest, PlanesWrittenWhileARelayoutStartsNeverLeaveItStale) {
  // A writer rewrites planes over and over while the layout is added: every plane it wrote
  // before the layout started is in the series blocks, and none is written after.
  ASSERT_OK_AND_ASSIGN(auto writer, store_->GetDataWriter("run"));
  std::atomic<bool> stop{false};
  std::atomic<int> written{0};
  Status refused;
  std::thread rewriter([&] {
    // Until refused; once the layout is added the next write must be (one more try at most).
    for (int i = 0, tries_after_stop = 0; tries_after_stop < 2; ++i) {
      if (stop.load()) ++tries_after_stop;
      const int64_t t = i % kShape[kT], z = (i / kShape[kT]) % kShape[kZ];
      Status w = writer->WriteGrid2D("T", t, z, PatternPlane(meta_.variables[0], 3 + i, t, z));
      if (w.ok()) w = writer->Flush();
      if (!w.ok()) {
        refused = w;
        return;
      }
      written.fetch_add(1);
    }
  });
  while (written.load() < 5) std::this_thread::yield();
  ASSERT_OK(store_->AddSeriesLayout("run", kSeries).status());
  stop.store(true);
  rewriter.join();
  EXPECT_TRUE(refused.IsFailedPrecondition()) << refused;
  ASSERT_OK_AND_ASSIGN(VerifyReport report, Verify(store_.get(), "run"));
  EXPECT_TRUE(report.ok()) << report.problems[0].message;
}

TEST_F(SeriesLayoutTest, AReplacementStartsWithPlanesOnly) {
  ASSERT_OK(store_->AddSeriesLayout("run", kSeries).status());
  ASSERT_OK_AND_ASSIGN(DataSetMeta staged, store_->BeginReplacement(meta_));
  EXPECT_FALSE(staged.series.has_value());
  ASSERT_OK_AND_ASSIGN(auto writer, store_->GetReplacementWriter(staged));
  for (int64_t t = 0; t < kShape[kT]; ++t) {
    for (int64_t z = 0; z < kShape[kZ]; ++z) {
      Grid2D plane = PatternPlane(meta_.variables[0], 7, t, z);
      reference_.SetPlane(t, z, plane);
      ASSERT_OK(writer->WriteGrid2D("T", t, z, plane));
    }
  }
  ASSERT_OK(writer->Flush());
  ASSERT_OK(store_->CommitReplacement(staged));
  ASSERT_OK_AND_ASSIGN(DataSetMeta now, store_->GetDataSetMeta("run"));
  EXPECT_FALSE(now.series.has_value());
  EXPECT_EQ(FetchAndCompare({0, 0, 1, 1}, {30, 1, 1, 1}).variables[0].layout, "plane");
  // Added again, it holds the new values.
  ASSERT_OK(store_->AddSeriesLayout("run", kSeries).status());
  EXPECT_EQ(FetchAndCompare({0, 0, 1, 1}, {30, 1, 1, 1}).variables[0].layout, "series");
  ASSERT_OK_AND_ASSIGN(VerifyReport report, Verify(store_.get(), ""));
  EXPECT_TRUE(report.ok()) << report.problems[0].message;
  EXPECT_TRUE(report.orphans.empty());
}

// The child process of AKilledRelayoutIsIgnoredUntilResumed, run by it (a fresh process of
// this binary, started with exec rather than fork: the parent has RocksDB's threads, which a
// forked child would lack, and ThreadSanitizer refuses threads after a threaded fork). Exits 42
// half way through a relayout of the store named by $GRIDSTORE_TEST_RELAYOUT_STORE.
constexpr const char* kChildStoreVariable = "GRIDSTORE_TEST_RELAYOUT_STORE";
TEST(SeriesLayoutKilledChild, DISABLED_RelayoutsUntilHalfWayThenDies) {
  const char* path = std::getenv(kChildStoreVariable);
  if (path == nullptr) GTEST_SKIP() << "run by AKilledRelayoutIsIgnoredUntilResumed only";
  auto store = GridStore::Open(path);
  if (!store.ok()) _exit(2);
  RelayoutOptions options{.memory_budget_bytes = 8 * 8 * 8 * 4};  // one tile per group
  options.on_progress = [](int64_t done, int64_t total) {
    if (2 * done >= total) _exit(42);  // killed: no meta write, no flush
  };
  (void)(*store)->AddSeriesLayout("run", kSeries, options);
  _exit(1);
}

// A relayout killed half way (its process exits between two groups) leaves the layout "being
// written", which fetches ignore; run again, it writes only the groups that are missing.
TEST_F(SeriesLayoutTest, AKilledRelayoutIsIgnoredUntilResumed) {
  store_.reset();
  const std::string store_path = dir_.Sub("store");
  const std::string filter =
      "--gtest_filter=SeriesLayoutKilledChild.DISABLED_RelayoutsUntilHalfWayThenDies";
  const std::string also = "--gtest_also_run_disabled_tests";
  std::vector<char*> argv = {const_cast<char*>("/proc/self/exe"), const_cast<char*>(filter.c_str()),
                             const_cast<char*>(also.c_str()), nullptr};
  ASSERT_EQ(setenv(kChildStoreVariable, store_path.c_str(), 1), 0);
  pid_t child = 0;
  const int spawned = posix_spawn(&child, "/proc/self/exe", nullptr, nullptr, argv.data(), environ);
  unsetenv(kChildStoreVariable);
  ASSERT_EQ(spawned, 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 42);  // died half way, as planned

  Open();
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
  ASSERT_TRUE(meta.series.has_value());
  EXPECT_FALSE(meta.series->ready);
  FetchPlan plan = FetchAndCompare({0, 0, 1, 1}, {30, 1, 1, 1});
  EXPECT_EQ(plan.variables[0].layout, "plane");
  EXPECT_THAT(plan.layout, HasSubstr("being written"));
  ASSERT_OK_AND_ASSIGN(VerifyReport partial, Verify(store_.get(), "run"));
  EXPECT_TRUE(partial.ok()) << partial.problems[0].message;  // missing blocks are not damage yet

  // A group whose last block exists and another does not (what a killed run can leave on RADOS,
  // whose batches are not atomic) is written again, not skipped.
  storage::KvStore* kv = KvStoreOf(store_.get());
  std::string value;
  ASSERT_OK(kv->Get({}, storage::Table::kData, SeriesKey(0, 0, 0, 6), &value));
  ASSERT_OK(kv->Delete({}, storage::Table::kData, SeriesKey(0, 0, 0, 0)));

  // Another layout cannot start over it; the same one resumes.
  SeriesLayout other = kSeries;
  other.block_t = 16;
  EXPECT_TRUE(store_->AddSeriesLayout("run", other).status().IsFailedPrecondition());
  ASSERT_OK_AND_ASSIGN(RelayoutReport report, store_->AddSeriesLayout("run", kSeries));
  EXPECT_GT(report.blocks_resumed, 0);
  EXPECT_GT(report.blocks_written, 0);
  EXPECT_EQ(report.blocks_resumed + report.blocks_written, 4 * 2 * 5 * 7);
  EXPECT_EQ(FetchAndCompare({0, 1, 39, 49}, {30, 1, 1, 1}).variables[0].layout, "series");
  EXPECT_EQ(FetchAndCompare({0, 0, 0, 0}, {30, 1, 1, 1}).variables[0].layout, "series");
  ASSERT_OK_AND_ASSIGN(VerifyReport resumed, Verify(store_.get(), "run"));
  EXPECT_TRUE(resumed.ok()) << resumed.problems[0].message;
  ASSERT_OK_AND_ASSIGN(RelayoutReport again, store_->AddSeriesLayout("run", kSeries));
  EXPECT_TRUE(again.already_ready);
}

TEST_F(SeriesLayoutTest, VerifyChecksEverySeriesBlockAgainstThePlanes) {
  ASSERT_OK(store_->AddSeriesLayout("run", kSeries).status());
  ASSERT_OK_AND_ASSIGN(VerifyReport clean, Verify(store_.get(), "run"));
  EXPECT_TRUE(clean.ok());
  EXPECT_EQ(clean.blocks, 30 * 2 * 3 * 4 + 4 * 2 * 5 * 7);  // planes, then series blocks

  storage::KvStore* kv = KvStoreOf(store_.get());
  // Damaged bytes.
  std::string value;
  ASSERT_OK(kv->Get({}, storage::Table::kData, SeriesKey(1, 0, 2, 3), &value));
  value[value.size() - 2] ^= 1;
  ASSERT_OK(kv->Put({}, storage::Table::kData, SeriesKey(1, 0, 2, 3), value));
  // A well-formed block whose values are not the planes' (a stale copy).
  std::string raw(8 * 8 * 8 * 4, '\0'), stale;
  ASSERT_OK(EncodeBlock(CodecOptions{}, DataType::kFloat32, 64, 8, 4, raw, &stale));
  ASSERT_OK(kv->Put({}, storage::Table::kData, SeriesKey(0, 1, 0, 0), stale));
  // A missing one.
  ASSERT_OK(kv->Delete({}, storage::Table::kData, SeriesKey(3, 1, 4, 6)));

  ASSERT_OK_AND_ASSIGN(VerifyReport report, Verify(store_.get(), ""));
  ASSERT_EQ(report.problems.size(), 3u);
  std::string all;
  for (const auto& p : report.problems) all += p.message + "\n";
  EXPECT_THAT(all, HasSubstr("z 0, steps from 8, tile row 2, tile column 3 (series): "));
  EXPECT_THAT(all, HasSubstr("z 1, steps from 0, tile row 0, tile column 0 (series): differs "
                             "from the planes"));
  EXPECT_THAT(all, HasSubstr("z 1, steps from 24, tile row 4, tile column 6 (series): missing"));
  // A fetch of the missing block says so instead of returning fill values.
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("run"));
  fetcher->SetOriginShape({24, 1, 33, 49}, {6, 1, 1, 1});
  Status s = fetcher->Fetch().status();
  EXPECT_TRUE(s.IsAborted()) << s;
}

TEST_F(SeriesLayoutTest, RefusalsNameWhatIsWrong) {
  SeriesLayout bad = kSeries;
  bad.tile_x = -2;  // 0 is kSeriesChoose
  Status s = store_->AddSeriesLayout("run", bad).status();
  EXPECT_TRUE(s.IsInvalidArgument()) << s;
  EXPECT_THAT(s.message(), HasSubstr("series layout"));
  EXPECT_TRUE(store_->AddSeriesLayout("nope", kSeries).status().IsNotFound());

  DataSetMeta failed = meta_;
  failed.id = "failed";
  failed.set_status(kStatusInit);
  ASSERT_OK(store_->PutDataSetMeta(failed));
  s = store_->AddSeriesLayout("failed", kSeries).status();
  EXPECT_TRUE(s.IsFailedPrecondition()) << s;
  EXPECT_THAT(s.message(), HasSubstr("not DONE or INGESTING"));

  DataSetMeta empty;
  empty.id = "catalogue-entry";
  empty.set_status(kStatusDone);
  ASSERT_OK(store_->PutDataSetMeta(empty));
  EXPECT_TRUE(store_->AddSeriesLayout("catalogue-entry", kSeries).status().IsInvalidArgument());

  ASSERT_OK(store_->AddSeriesLayout("run", kSeries).status());
  SeriesLayout other = kSeries;
  other.tile_y = 4;
  s = store_->AddSeriesLayout("run", other).status();
  EXPECT_TRUE(s.IsFailedPrecondition()) << s;
  EXPECT_THAT(s.message(), HasSubstr("drop it first"));
}

}  // namespace
}  // namespace gridstore::grid
