// Copyright 2026 The GridStore Authors.
#include "gridstore/blocks/grid_data_writer.h"

#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/storage/rocksdb/rocksdb_kv_store.h"
#include "tests/grid/grid_testutil.h"
#include "tests/storage/fault_injection_kv_store.h"

namespace gridstore::grid {
namespace {

using testing::MakeMeta;
using testing::MakeVariable;
using testing::PatternPlane;
using testing::ReferenceVariable;
using testing::ScopedTempDir;

class GridDataWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
    meta_ = MakeMeta("run",
                     {MakeVariable("T", DataType::kFloat32, {3, 2, 37, 45}),
                      MakeVariable("ps", DataType::kInt16, {3, 1, 37, 45})},
                     16, 16);
    ASSERT_OK(store_->PutDataSetMeta(meta_));
    ASSERT_OK_AND_ASSIGN(writer_, store_->GetDataWriter("run"));
  }

  ScopedTempDir dir_;
  std::unique_ptr<GridStore> store_;
  DataSetMeta meta_;
  std::unique_ptr<GridDataWriter> writer_;
};

TEST_F(GridDataWriterTest, UnknownVariableIsRefusedAndListsTheKnownOnes) {
  Grid2D plane(DataType::kFloat32, 37, 45);
  EXPECT_STATUS(writer_->WriteGrid2D("Q", 0, 0, plane), kInvalidArgument,
                "dataset 'run' has no variable 'Q'", "T, ps");
  EXPECT_STATUS(writer_->SubmitGrid2D("Q", 0, 0, plane), kInvalidArgument, "'Q'");
}

TEST_F(GridDataWriterTest, TimeAndLevelOutsideTheShapeAreOutOfRange) {
  Grid2D plane(DataType::kFloat32, 37, 45);
  EXPECT_STATUS(writer_->WriteGrid2D("T", 3, 0, plane), kOutOfRange, "variable 'T'",
                "t = 3 is outside [0, 3)");
  EXPECT_STATUS(writer_->WriteGrid2D("T", -1, 0, plane), kOutOfRange, "t = -1");
  EXPECT_STATUS(writer_->WriteGrid2D("T", 0, 2, plane), kOutOfRange, "z = 2 is outside [0, 2)");
  EXPECT_STATUS(writer_->SubmitGrid2D("T", 0, -5, plane), kOutOfRange, "z = -5");
}

TEST_F(GridDataWriterTest, PlaneOfWrongTypeOrShapeIsRefused) {
  EXPECT_STATUS(writer_->WriteGrid2D("T", 0, 0, Grid2D(DataType::kFloat64, 37, 45)),
                kInvalidArgument, "variable 'T'",
                "plane has type float64 but the variable is float32");
  EXPECT_STATUS(writer_->WriteGrid2D("T", 0, 0, Grid2D(DataType::kFloat32, 45, 37)),
                kInvalidArgument, "plane is 45x37", "37x45");
  EXPECT_STATUS(writer_->SubmitGrid2D("ps", 0, 0, Grid2D(DataType::kInt16, 37, 44)),
                kInvalidArgument, "variable 'ps'", "37x44");
}

TEST_F(GridDataWriterTest, WriteGrid2DSplitsIntoBlocksAndCountsThem) {
  ASSERT_OK(writer_->WriteGrid2D("T", 1, 1, PatternPlane(meta_.variables[0], 0, 1, 1)));
  WriteStats stats = writer_->stats();
  EXPECT_EQ(stats.planes, 1);
  EXPECT_EQ(stats.blocks, 3 * 3);  // ceil(37/16) x ceil(45/16)
  EXPECT_EQ(stats.raw_bytes, 37 * 45 * 4);
  EXPECT_GT(stats.stored_bytes, 0);
  int keys = 0;
  ASSERT_OK(
      KvStoreOf(store_.get())
          ->Scan({}, storage::Table::kData,
                 PlaneDataRange("run", writer_->meta().key_incarnation(), "T", kPlaneLayout, 1, 1),
                 [&](std::string_view, std::string_view) {
                   ++keys;
                   return true;
                 }));
  EXPECT_EQ(keys, 9);
}

TEST_F(GridDataWriterTest, SubmitPipelineWithTinyBudgetStoresEveryPlane) {
  WriteGridOptions options;
  options.max_pending_bytes = 37 * 45 * 4;  // one plane in flight at a time
  options.batch_bytes = 2000;               // many small batches
  ASSERT_OK_AND_ASSIGN(auto writer, store_->GetDataWriter("run", options));
  ReferenceVariable ref(meta_.variables[0]);
  for (int t = 0; t < 3; ++t) {
    for (int z = 0; z < 2; ++z) {
      Grid2D plane = PatternPlane(meta_.variables[0], 7, t, z);
      ref.SetPlane(t, z, plane);
      ASSERT_OK(writer->SubmitGrid2D("T", t, z, std::move(plane)));
    }
  }
  ASSERT_OK(writer->Flush());
  EXPECT_EQ(writer->stats().planes, 6);
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("run"));
  fetcher->SetVariablesToGet({"T"});
  ASSERT_OK_AND_ASSIGN(GridDataSet result, fetcher->Fetch());
  EXPECT_EQ(ref.Compare(*result.GetVariable("T")), "");
}

TEST_F(GridDataWriterTest, RewritingAPlaneReplacesCachedBlocks) {
  ASSERT_OK(writer_->WriteGrid2D("T", 0, 0, PatternPlane(meta_.variables[0], 1, 0, 0)));
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("run"));
  fetcher->SetVariablesToGet({"T"});
  fetcher->SetOriginShape({0, 0, 0, 0}, {1, 1, 37, 45});
  ASSERT_OK(fetcher->Fetch().status());  // now cached
  Grid2D second = PatternPlane(meta_.variables[0], 2, 0, 0);
  ASSERT_OK(writer_->WriteGrid2D("T", 0, 0, second));
  ASSERT_OK_AND_ASSIGN(GridDataSet result, fetcher->Fetch());
  EXPECT_EQ(std::memcmp(result.GetVariable("T")->bytes(), second.bytes(), second.size_bytes()), 0);
}

TEST(GridDataWriterFaultTest, FailedWritesSurfaceFromWriteAndFlush) {
  ScopedTempDir dir;
  ASSERT_OK_AND_ASSIGN(auto base, storage::OpenRocksDbKvStore({}, dir.Sub("db")));
  auto faulty = std::make_unique<testing::FaultInjectionKvStore>(base.get());
  testing::FaultInjectionKvStore* fault = faulty.get();
  ASSERT_OK_AND_ASSIGN(auto store, OpenGridStore(std::move(faulty), {.create_if_missing = true}));
  DataSetMeta meta = MakeMeta("d", {MakeVariable("T", DataType::kFloat32, {4, 1, 64, 64})}, 16, 16);
  ASSERT_OK(store->PutDataSetMeta(meta));
  fault->FailWritesAfter(0, Status::Unavailable("disk on fire"));
  ASSERT_OK_AND_ASSIGN(auto writer, store->GetDataWriter("d"));
  EXPECT_STATUS(writer->WriteGrid2D("T", 0, 0, PatternPlane(meta.variables[0], 0, 0, 0)),
                kUnavailable, "disk on fire", "dataset 'd'");
  for (int t = 0; t < 4; ++t) {
    Status s = writer->SubmitGrid2D("T", t, 0, PatternPlane(meta.variables[0], 0, t, 0));
    if (!s.ok()) EXPECT_STATUS(s, kUnavailable, "disk on fire");
  }
  EXPECT_STATUS(writer->Flush(), kUnavailable, "disk on fire");
  // The error is sticky: later submits report it instead of queueing more work.
  EXPECT_STATUS(writer->SubmitGrid2D("T", 0, 0, PatternPlane(meta.variables[0], 0, 0, 0)),
                kUnavailable, "disk on fire");
}

// Issue 29, 1.3: a dataset published with planes never written read them back as 0.0.
TEST_F(GridDataWriterTest, Issue29FinishRefusesPlanesNeverWrittenAndNamesThem) {
  for (int t = 0; t < 3; ++t) {
    ASSERT_OK(writer_->WriteGrid2D("ps", t, 0, PatternPlane(meta_.variables[1], 0, t, 0)));
  }
  ASSERT_OK(writer_->WriteGrid2D("T", 0, 0, PatternPlane(meta_.variables[0], 0, 0, 0)));
  ASSERT_OK(writer_->WriteGrid2D("T", 0, 1, PatternPlane(meta_.variables[0], 0, 0, 1)));
  ASSERT_OK(writer_->WriteGrid2D("T", 2, 0, PatternPlane(meta_.variables[0], 0, 2, 0)));
  EXPECT_EQ(writer_->MissingPlanes(),
            std::vector<std::string>{"'T': 2 of 3 step(s) not (wholly) written: t 1-2"});
  ASSERT_OK_AND_ASSIGN(const DataSetMeta before, store_->GetDataSetMeta("run"));
  EXPECT_STATUS(writer_->Finish(), kFailedPrecondition, "dataset 'run' is not complete",
                "'T': 2 of 3 step(s)", "t 1-2", "allow_missing");
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
  EXPECT_EQ(meta.generation, before.generation);  // nothing published
  ASSERT_OK(writer_->WriteGrid2D("T", 1, 0, PatternPlane(meta_.variables[0], 0, 1, 0)));
  ASSERT_OK(writer_->WriteGrid2D("T", 1, 1, PatternPlane(meta_.variables[0], 0, 1, 1)));
  ASSERT_OK(writer_->WriteGrid2D("T", 2, 1, PatternPlane(meta_.variables[0], 0, 2, 1)));
  EXPECT_TRUE(writer_->MissingPlanes().empty());
  ASSERT_OK(writer_->Finish({.attributes = {{"source", AttributeValue::String("test")}}}));
  ASSERT_OK_AND_ASSIGN(meta, store_->GetDataSetMeta("run"));
  EXPECT_EQ(meta.status(), kStatusDone);
  EXPECT_EQ(StringAttribute(meta.attributes, "source"), "test");
  EXPECT_TRUE(meta.attributes.count(std::string(kCreateTimeAttribute)));
  EXPECT_STATUS(writer_->WriteGrid2D("T", 0, 0, PatternPlane(meta_.variables[0], 0, 0, 0)),
                kFailedPrecondition, "finished");
}

TEST_F(GridDataWriterTest, Issue29FinishWithAllowMissingReadsTheFillValue) {
  ASSERT_OK(writer_->WriteGrid2D("ps", 0, 0, PatternPlane(meta_.variables[1], 0, 0, 0)));
  ASSERT_OK(writer_->Finish({.allow_missing = true}));
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
  EXPECT_EQ(meta.status(), kStatusDone);
  // Neither variable had a fill value: each gets netCDF's default, and its planes read as it.
  ASSERT_TRUE(meta.variables[0].has_fill_value());
  EXPECT_EQ(meta.variables[0].FillValueAsDouble(), double(9.9692099683868690e+36f));
  EXPECT_EQ(meta.variables[1].FillValueAsDouble(), -32767);
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("run"));
  fetcher->SetVariablesToGet({"T", "ps"});
  ASSERT_OK_AND_ASSIGN(GridDataSet result, fetcher->Fetch());
  for (float v : result.GetVariable("T")->data<float>()) ASSERT_EQ(v, 9.9692099683868690e+36f);
  auto ps = result.GetVariable("ps")->data<int16_t>();
  const int64_t plane = 37 * 45;
  EXPECT_NE(ps[0], -32767);  // written
  for (int64_t i = plane; i < 3 * plane; ++i) ASSERT_EQ(ps[size_t(i)], -32767);
}

TEST_F(GridDataWriterTest, Issue29ReplacementWriterFinishSwitchesReaders) {
  ASSERT_OK(writer_->Finish({.allow_missing = true}));
  DataSetMeta staged = meta_;
  ASSERT_OK_AND_ASSIGN(staged, store_->BeginReplacement(staged));
  ASSERT_OK_AND_ASSIGN(auto writer, store_->GetReplacementWriter(staged));
  EXPECT_STATUS(writer->Finish(), kFailedPrecondition, "'T': 3 of 3", "'ps': 3 of 3");
  for (int t = 0; t < 3; ++t) {
    for (int z = 0; z < 2; ++z) {
      ASSERT_OK(writer->WriteGrid2D("T", t, z, PatternPlane(meta_.variables[0], 1, t, z)));
    }
    ASSERT_OK(writer->WriteGrid2D("ps", t, 0, PatternPlane(meta_.variables[1], 1, t, 0)));
  }
  ASSERT_OK(writer->Finish());
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
  EXPECT_EQ(meta.status(), kStatusDone);
  EXPECT_EQ(meta.incarnation, staged.incarnation);
}

}  // namespace
}  // namespace gridstore::grid
