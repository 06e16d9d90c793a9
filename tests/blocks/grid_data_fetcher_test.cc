// Copyright 2026 The GridStore Authors.
#include "gridstore/blocks/grid_data_fetcher.h"

#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <tuple>

#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/grid_verify.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/model/eigen_view.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/storage/rocksdb/rocksdb_kv_store.h"
#include "tests/grid/grid_testutil.h"
#include "tests/storage/fault_injection_kv_store.h"

namespace gridstore::grid {
namespace {

using testing::MakeMeta;
using testing::MakeVariable;
using testing::PatternPlane;
using testing::PatternValue;
using testing::ScopedTempDir;

class GridDataFetcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
    VariableMeta temp = MakeVariable("T", DataType::kFloat32, {4, 3, 40, 50});
    temp.dimension_names = {"time", "level", "lat", "lon"};
    temp.set_fill_value<float>(-999.0f);
    VariableMeta sfc = MakeVariable("ps", DataType::kFloat64, {4, 1, 40, 50});
    meta_ = MakeMeta("run", {temp, sfc}, 16, 16);
    ASSERT_OK(store_->PutDataSetMeta(meta_));
    ASSERT_OK_AND_ASSIGN(auto writer, store_->GetDataWriter("run"));
    for (int t = 0; t < 4; ++t) {
      for (int z = 0; z < 3; ++z) {
        if (t == 3 && z == 2) continue;  // left unwritten on purpose
        ASSERT_OK(writer->WriteGrid2D("T", t, z, PatternPlane(meta_.variables[0], 1, t, z)));
      }
      ASSERT_OK(writer->WriteGrid2D("ps", t, 0, PatternPlane(meta_.variables[1], 2, t, 0)));
    }
    ASSERT_OK_AND_ASSIGN(fetcher_, store_->GetDataFetcher("run"));
  }

  ScopedTempDir dir_;
  std::unique_ptr<GridStore> store_;
  DataSetMeta meta_;
  std::unique_ptr<GridDataFetcher> fetcher_;
};

TEST_F(GridDataFetcherTest, BoxAcrossBlocksMatchesSource) {
  fetcher_->SetVariablesToGet({"T"});
  fetcher_->SetOriginShape({1, 1, 10, 12}, {2, 2, 20, 30});
  ASSERT_OK_AND_ASSIGN(GridDataSet result, fetcher_->Fetch());
  const Grid4D& g = *result.GetVariable("T");
  EXPECT_EQ(g.origin(), (Shape4{1, 1, 10, 12}));
  auto tensor = TensorView<float>(g);
  for (int t = 0; t < 2; ++t)
    for (int z = 0; z < 2; ++z)
      for (int x = 0; x < 20; ++x)
        for (int y = 0; y < 30; ++y)
          ASSERT_EQ(tensor(t, z, x, y),
                    static_cast<float>(PatternValue(1, 1 + t, 1 + z, 10 + x, 12 + y)));
  // Rows 10..29 touch blocks 0..1, columns 12..41 touch blocks 0..2: 6 blocks per plane.
  EXPECT_EQ(result.stats.blocks, 2 * 2 * 6);
  EXPECT_EQ(result.stats.blocks_read, 24);
  EXPECT_GT(result.stats.bytes_read, 0);
  EXPECT_EQ(result.stats.bytes_decompressed,
            4 * 6 * 16 * 16 * 4);  // 6 whole 16x16 float blocks a plane
}

TEST_F(GridDataFetcherTest, ManyBoxesReadEachBlockOnceAndEqualSeparateFetches) {
  fetcher_->SetVariablesToGet({"T", "ps"});
  fetcher_->set_options({.use_cache = false, .allow_incomplete = true});
  std::vector<Box> boxes;
  std::mt19937 rng(17);
  for (int i = 0; i < 300; ++i) {
    // Scattered points and small boxes, many in the same blocks; ps has one level.
    const int64_t x = rng() % 38, y = rng() % 47;
    boxes.push_back(
        Box{{int64_t(rng() % 4), 0, x, y}, {1, 1, 1 + int64_t(rng() % 3), 1 + int64_t(rng() % 4)}});
  }
  ASSERT_OK_AND_ASSIGN(std::vector<GridDataSet> many, fetcher_->FetchBoxes(boxes));
  ASSERT_EQ(many.size(), boxes.size());
  std::set<std::tuple<std::string, int64_t, int64_t, int64_t>> blocks;  // distinct blocks
  for (size_t i = 0; i < boxes.size(); ++i) {
    fetcher_->SetOriginShape(boxes[i].origin, boxes[i].shape);
    ASSERT_OK_AND_ASSIGN(GridDataSet one, fetcher_->Fetch());
    for (const char* v : {"T", "ps"}) {
      const Grid4D& a = *many[i].GetVariable(v);
      const Grid4D& b = *one.GetVariable(v);
      ASSERT_EQ(a.origin(), b.origin());
      ASSERT_EQ(a.shape(), b.shape());
      ASSERT_EQ(std::memcmp(a.bytes(), b.bytes(), a.size_bytes()), 0) << "box " << i;
      for (int64_t x = boxes[i].origin[kX] / 16;
           x <= (boxes[i].origin[kX] + boxes[i].shape[kX] - 1) / 16; ++x)
        for (int64_t y = boxes[i].origin[kY] / 16;
             y <= (boxes[i].origin[kY] + boxes[i].shape[kY] - 1) / 16; ++y)
          blocks.insert({v, boxes[i].origin[kT], x, y});
    }
  }
  // One task per distinct block, however many boxes share it.
  EXPECT_EQ(many[0].stats.blocks, int64_t(blocks.size()));
  EXPECT_EQ(many[0].stats.blocks_read, int64_t(blocks.size()));
  EXPECT_LT(int64_t(blocks.size()), 2 * 300);
  ASSERT_OK_AND_ASSIGN(auto none, fetcher_->FetchBoxes({}));
  EXPECT_TRUE(none.empty());
  auto bad = fetcher_->FetchBoxes({Box{{0, 0, 39, 0}, {1, 1, 2, 1}}});
  EXPECT_TRUE(bad.status().IsOutOfRange());
}

TEST_F(GridDataFetcherTest, ExplainPredictsWhatFetchDoes) {
  fetcher_->SetVariablesToGet({"T", "ps"});
  fetcher_->SetOriginShape({1, 0, 10, 12}, {2, 1, 20, 30});
  ASSERT_OK_AND_ASSIGN(FetchPlan plan, fetcher_->Explain());
  fetcher_->set_options({.use_cache = false});
  ASSERT_OK_AND_ASSIGN(GridDataSet result, fetcher_->Fetch());
  EXPECT_EQ(plan.blocks, result.stats.blocks);
  EXPECT_EQ(plan.bytes_to_decode, result.stats.bytes_decompressed);
  EXPECT_EQ(plan.bytes_returned, result.stats.bytes_returned);
  ASSERT_EQ(plan.variables.size(), 2u);
  EXPECT_EQ(plan.variables[1].name, "ps");
  EXPECT_EQ(plan.variables[1].bytes_returned, 2 * 20 * 30 * 8);
  EXPECT_EQ(plan.layout, "plane blocks 16x16, shuffle-zstd:3");
  fetcher_->SetOriginShape({1, 0, 10, 12}, {2, 1, 99, 30});
  EXPECT_STATUS(fetcher_->Explain(), kOutOfRange, "axis x");
}

TEST_F(GridDataFetcherTest, WholePlaneProfileAndPointSeries) {
  fetcher_->SetVariablesToGet({"T"});
  fetcher_->SetOriginShape({0, 0, 0, 0}, {1, 1, 40, 50});
  ASSERT_OK_AND_ASSIGN(GridDataSet plane, fetcher_->Fetch());
  EXPECT_EQ(plane.GetVariable("T")->size(), 40u * 50u);
  EXPECT_EQ(plane.GetVariable("T")->at<float>(0, 0, 39, 49),
            static_cast<float>(PatternValue(1, 0, 0, 39, 49)));

  fetcher_->SetOriginShape({2, 0, 5, 7}, {1, 3, 1, 1});
  ASSERT_OK_AND_ASSIGN(GridDataSet profile, fetcher_->Fetch());
  for (int z = 0; z < 3; ++z) {
    EXPECT_EQ(profile.GetVariable("T")->data<float>()[z],
              static_cast<float>(PatternValue(1, 2, z, 5, 7)));
  }
  EXPECT_EQ(profile.stats.blocks, 3);

  fetcher_->SetOriginShape({0, 2, 33, 49}, {4, 1, 1, 1});
  ASSERT_OK_AND_ASSIGN(GridDataSet series, fetcher_->Fetch());
  auto values = series.GetVariable("T")->data<float>();
  for (int t = 0; t < 3; ++t)
    EXPECT_EQ(values[t], static_cast<float>(PatternValue(1, t, 2, 33, 49)));
  EXPECT_EQ(values[3], -999.0f);  // (t=3, z=2) was never written: the fill value
  EXPECT_EQ(series.stats.blocks_missing, 1);
}

TEST_F(GridDataFetcherTest, AllVariablesWholeByDefault) {
  ASSERT_OK_AND_ASSIGN(GridDataSet result, fetcher_->Fetch());
  ASSERT_EQ(result.variables.size(), 2u);
  EXPECT_EQ(result.GetVariable("ps")->shape(), (Shape4{4, 1, 40, 50}));
  EXPECT_EQ(result.GetVariable("ps")->type(), DataType::kFloat64);
  EXPECT_EQ(result.GetVariable("ps")->at<double>(3, 0, 1, 2), PatternValue(2, 3, 0, 1, 2));
}

TEST_F(GridDataFetcherTest, SecondFetchIsServedFromTheCache) {
  fetcher_->SetVariablesToGet({"ps"});
  ASSERT_OK_AND_ASSIGN(GridDataSet first, fetcher_->Fetch());
  EXPECT_EQ(first.stats.cache_hits, 0);
  ASSERT_OK_AND_ASSIGN(GridDataSet second, fetcher_->Fetch());
  EXPECT_EQ(second.stats.cache_hits, second.stats.blocks);
  EXPECT_EQ(second.stats.bytes_read, 0);
  EXPECT_EQ(std::memcmp(first.GetVariable("ps")->bytes(), second.GetVariable("ps")->bytes(),
                        first.GetVariable("ps")->size_bytes()),
            0);
  fetcher_->set_options({.use_cache = false});
  ASSERT_OK_AND_ASSIGN(GridDataSet third, fetcher_->Fetch());
  EXPECT_EQ(third.stats.cache_hits, 0);
}

TEST_F(GridDataFetcherTest, InvalidBoxesNameVariableAxisAndBound) {
  fetcher_->SetVariablesToGet({"T"});
  fetcher_->SetOriginShape({0, 0, -1, 0}, {1, 1, 1, 1});
  EXPECT_STATUS(fetcher_->Fetch(), kInvalidArgument, "variable 'T'", "axis x (lat)",
                "origin -1 is negative");
  fetcher_->SetOriginShape({0, 0, 0, 0}, {1, 0, 1, 1});
  EXPECT_STATUS(fetcher_->Fetch(), kInvalidArgument, "axis z (level)", "shape 0");
  fetcher_->SetOriginShape({0, 0, 0, 40}, {1, 1, 1, 11});
  EXPECT_STATUS(fetcher_->Fetch(), kOutOfRange, "variable 'T'", "axis y (lon)",
                "origin 40 + shape 11 exceeds the extent 50");
  fetcher_->SetOriginShape({4, 0, 0, 0}, {1, 1, 1, 1});
  EXPECT_STATUS(fetcher_->Fetch(), kOutOfRange, "axis t (time)", "origin 4");
  fetcher_->SetOriginShape({0, 0, 0, 0}, {1, 1, 1, std::numeric_limits<int64_t>::max()});
  EXPECT_STATUS(fetcher_->Fetch(), kOutOfRange, "axis y");
  // A box valid for T but not for the surface field ps (one level).
  fetcher_->SetVariablesToGet({"T", "ps"});
  fetcher_->SetOriginShape({0, 1, 0, 0}, {1, 1, 1, 1});
  EXPECT_STATUS(fetcher_->Fetch(), kOutOfRange, "variable 'ps'", "axis z");
}

TEST_F(GridDataFetcherTest, UnknownAndRepeatedVariablesAreInvalid) {
  fetcher_->SetVariablesToGet({"T", "nope"});
  EXPECT_STATUS(fetcher_->Fetch(), kInvalidArgument, "no variable 'nope'", "T, ps");
  fetcher_->SetVariablesToGet({"T", "T"});
  EXPECT_STATUS(fetcher_->Fetch(), kInvalidArgument, "'T' is requested twice");
}

TEST_F(GridDataFetcherTest, CorruptBlockIsDataLossNamingIt) {
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
  std::string key =
      DataKey(BlockAddress{"run", meta.key_incarnation(), "T", kPlaneLayout, 1, 2, 1, 2});
  std::string value;
  ASSERT_OK(KvStoreOf(store_.get())->Get({}, storage::Table::kData, key, &value));
  value[value.size() / 2] ^= 0x5a;
  ASSERT_OK(KvStoreOf(store_.get())->Put({}, storage::Table::kData, key, value));
  fetcher_->SetVariablesToGet({"T"});
  fetcher_->SetOriginShape({1, 2, 20, 40}, {1, 1, 5, 5});
  EXPECT_STATUS(fetcher_->Fetch(), kDataLoss, "dataset 'run'", "variable 'T'", "t=1", "z=2",
                "block (1, 2)");
  // Truncated to a few bytes.
  ASSERT_OK(KvStoreOf(store_.get())->Put({}, storage::Table::kData, key, value.substr(0, 5)));
  EXPECT_STATUS(fetcher_->Fetch(), kDataLoss, "variable 'T'", "block (1, 2)");
  // Blocks elsewhere still read fine.
  fetcher_->SetOriginShape({1, 2, 0, 0}, {1, 1, 16, 16});
  EXPECT_OK(fetcher_->Fetch().status());
}

TEST_F(GridDataFetcherTest, StoreErrorsPassThroughWithContext) {
  ScopedTempDir dir;
  ASSERT_OK_AND_ASSIGN(auto base, storage::OpenRocksDbKvStore({}, dir.Sub("db")));
  auto faulty = std::make_unique<testing::FaultInjectionKvStore>(base.get());
  testing::FaultInjectionKvStore* fault = faulty.get();
  ASSERT_OK_AND_ASSIGN(auto store, OpenGridStore(std::move(faulty), {.create_if_missing = true}));
  ASSERT_OK(store->PutDataSetMeta(meta_));
  ASSERT_OK_AND_ASSIGN(auto writer, store->GetDataWriter("run"));
  ASSERT_OK(writer->WriteGrid2D("ps", 0, 0, PatternPlane(meta_.variables[1], 2, 0, 0)));
  ASSERT_OK_AND_ASSIGN(auto fetcher, store->GetDataFetcher("run"));
  fetcher->SetVariablesToGet({"ps"});
  fault->FailReadsAfter(0, Status::Unavailable("cluster unreachable"));
  EXPECT_STATUS(fetcher->Fetch(), kUnavailable, "cluster unreachable", "variable 'ps'");
  fault->Reset();
  fault->CorruptValues(true);
  EXPECT_STATUS(fetcher->Fetch(), kDataLoss, "variable 'ps'");
  fault->Reset();
  EXPECT_OK(fetcher->Fetch().status());
}

// A store whose dataset frames its 16x16 blocks every 4 rows.
TEST(GridDataFetcherFramesTest, PointReadsDecodeOneFrame) {
  ScopedTempDir dir;
  ASSERT_OK_AND_ASSIGN(auto store, GridStore::Open(dir.Sub("store"), {.create_if_missing = true}));
  DataSetMeta meta =
      MakeMeta("framed", {MakeVariable("T", DataType::kFloat32, {3, 1, 40, 50})}, 16, 16);
  meta.layout.frame_rows = 4;
  ASSERT_OK(store->PutDataSetMeta(meta));
  ASSERT_OK_AND_ASSIGN(auto writer, store->GetDataWriter("framed"));
  for (int t = 0; t < 3; ++t) {
    ASSERT_OK(writer->WriteGrid2D("T", t, 0, PatternPlane(meta.variables[0], 1, t, 0)));
  }
  ASSERT_OK(writer->Flush());
  ASSERT_OK_AND_ASSIGN(auto fetcher, store->GetDataFetcher("framed"));
  fetcher->set_options({.use_cache = false});

  // One point's time series: one frame of 4 rows x 16 columns per block.
  fetcher->SetOriginShape({0, 0, 21, 33}, {3, 1, 1, 1});
  ASSERT_OK_AND_ASSIGN(FetchPlan plan, fetcher->Explain());
  EXPECT_EQ(plan.layout, "plane blocks 16x16, shuffle-zstd:3, frames of 4 rows");
  ASSERT_OK_AND_ASSIGN(GridDataSet point, fetcher->Fetch());
  for (int t = 0; t < 3; ++t) {
    EXPECT_EQ(point.GetVariable("T")->data<float>()[t],
              static_cast<float>(PatternValue(1, t, 0, 21, 33)));
  }
  EXPECT_EQ(point.stats.blocks_read, 3);
  EXPECT_EQ(point.stats.bytes_decompressed, 3 * 4 * 16 * 4);
  EXPECT_EQ(plan.bytes_to_decode, point.stats.bytes_decompressed);

  // Rows 14..17 straddle blocks 0 and 1: frame 3 of block 0, frame 0 of block 1; the last block
  // row holds rows 32..39, two frames, of which rows 36..38 need one.
  fetcher->SetOriginShape({1, 0, 14, 0}, {1, 1, 4, 50});
  ASSERT_OK_AND_ASSIGN(plan, fetcher->Explain());
  ASSERT_OK_AND_ASSIGN(GridDataSet band, fetcher->Fetch());
  EXPECT_EQ(band.stats.bytes_decompressed, 2 * 4 * 50 * 4);
  EXPECT_EQ(plan.bytes_to_decode, band.stats.bytes_decompressed);
  fetcher->SetOriginShape({2, 0, 36, 7}, {1, 1, 3, 20});
  ASSERT_OK_AND_ASSIGN(plan, fetcher->Explain());
  ASSERT_OK_AND_ASSIGN(GridDataSet edge, fetcher->Fetch());
  EXPECT_EQ(edge.stats.bytes_decompressed, 4 * 16 * 4 + 4 * 16 * 4);  // two block columns
  EXPECT_EQ(plan.bytes_to_decode, edge.stats.bytes_decompressed);
  EXPECT_EQ(edge.GetVariable("T")->at<float>(0, 0, 2, 19),
            static_cast<float>(PatternValue(1, 2, 0, 38, 26)));

  // With the cache: each decoded frame is cached on its own, so a point read misses once (one
  // frame per block), then hits without decoding; a whole-plane read caches every frame.
  fetcher->set_options({.use_cache = true});
  fetcher->SetOriginShape({0, 0, 21, 33}, {3, 1, 1, 1});
  ASSERT_OK_AND_ASSIGN(GridDataSet first, fetcher->Fetch());
  EXPECT_EQ(first.stats.cache_hits, 0);
  EXPECT_EQ(first.stats.bytes_decompressed, 3 * 4 * 16 * 4);
  ASSERT_OK_AND_ASSIGN(GridDataSet again, fetcher->Fetch());
  EXPECT_EQ(again.stats.cache_hits, 3);
  EXPECT_EQ(again.stats.bytes_decompressed, 0);
  EXPECT_EQ(std::memcmp(again.GetVariable("T")->bytes(), point.GetVariable("T")->bytes(), 12), 0);
  // Rows 20..27 need frames 1 and 2 of block row 1: frame 1 is cached, frame 2 is not, so the
  // block is read and both frames decoded.
  fetcher->SetOriginShape({0, 0, 20, 30}, {1, 1, 8, 3});
  ASSERT_OK_AND_ASSIGN(GridDataSet partial, fetcher->Fetch());
  EXPECT_EQ(partial.stats.cache_hits, 0);
  EXPECT_EQ(partial.stats.bytes_decompressed, 2 * (2 * 4 * 16 * 4));
  for (int x = 0; x < 8; ++x) {
    for (int y = 0; y < 3; ++y) {
      EXPECT_EQ(partial.GetVariable("T")->at<float>(0, 0, x, y),
                static_cast<float>(PatternValue(1, 0, 0, 20 + x, 30 + y)));
    }
  }
  fetcher->ClearOriginShape();
  ASSERT_OK_AND_ASSIGN(GridDataSet all, fetcher->Fetch());
  EXPECT_EQ(all.GetVariable("T")->at<float>(2, 0, 39, 49),
            static_cast<float>(PatternValue(1, 2, 0, 39, 49)));
  ASSERT_OK_AND_ASSIGN(all, fetcher->Fetch());
  EXPECT_EQ(all.stats.cache_hits, all.stats.blocks);
  EXPECT_EQ(all.stats.bytes_decompressed, 0);
  fetcher->SetOriginShape({1, 0, 5, 2}, {2, 1, 30, 40});
  ASSERT_OK_AND_ASSIGN(GridDataSet cached, fetcher->Fetch());
  EXPECT_EQ(cached.stats.cache_hits, cached.stats.blocks);
  for (int t = 0; t < 2; ++t) {
    for (int x = 0; x < 30; ++x) {
      for (int y = 0; y < 40; ++y) {
        ASSERT_EQ(cached.GetVariable("T")->at<float>(t, 0, x, y),
                  static_cast<float>(PatternValue(1, 1 + t, 0, 5 + x, 2 + y)));
      }
    }
  }

  // A rewritten plane drops its cached frames: the next read sees the new values.
  ASSERT_OK(writer->WriteGrid2D("T", 1, 0, PatternPlane(meta.variables[0], 7, 1, 0)));
  ASSERT_OK_AND_ASSIGN(GridDataSet rewritten, fetcher->Fetch());
  EXPECT_EQ(rewritten.GetVariable("T")->at<float>(0, 0, 0, 0),
            static_cast<float>(PatternValue(7, 1, 0, 5, 2)));
  EXPECT_EQ(rewritten.GetVariable("T")->at<float>(1, 0, 29, 39),
            static_cast<float>(PatternValue(1, 2, 0, 34, 41)));
}

// Datasets without frames (frame_rows 0: every store written before frames existed) keep their
// format and still read, a point then costing the whole block; also after reopening the store.
TEST(GridDataFetcherFramesTest, UnframedBlocksStillRead) {
  ScopedTempDir dir;
  DataSetMeta meta = MakeMeta("old", {MakeVariable("T", DataType::kInt16, {2, 1, 20, 20})}, 16, 16);
  {
    ASSERT_OK_AND_ASSIGN(auto store,
                         GridStore::Open(dir.Sub("store"), {.create_if_missing = true}));
    ASSERT_OK(store->PutDataSetMeta(meta));
    ASSERT_OK_AND_ASSIGN(auto writer, store->GetDataWriter("old"));
    for (int t = 0; t < 2; ++t) {
      ASSERT_OK(writer->WriteGrid2D("T", t, 0, PatternPlane(meta.variables[0], 3, t, 0)));
    }
  }
  ASSERT_OK_AND_ASSIGN(auto store, GridStore::Open(dir.Sub("store"), {.read_only = true}));
  ASSERT_OK_AND_ASSIGN(auto fetcher, store->GetDataFetcher("old"));
  EXPECT_EQ(fetcher->meta().layout.frame_rows, 0);
  fetcher->set_options({.use_cache = false});
  fetcher->SetOriginShape({0, 0, 5, 17}, {2, 1, 1, 1});
  ASSERT_OK_AND_ASSIGN(GridDataSet point, fetcher->Fetch());
  for (int t = 0; t < 2; ++t) {
    EXPECT_EQ(point.GetVariable("T")->data<int16_t>()[t],
              static_cast<int16_t>(PatternValue(3, t, 0, 5, 17)));
  }
  EXPECT_EQ(point.stats.bytes_decompressed, 2 * 16 * 4 * 2);  // whole 16x4 edge blocks
}

TEST(GridDataFetcherUnpackTest, PackedShortsUnpackWithFillAndMissingAsNaN) {
  ASSERT_OK_AND_ASSIGN(auto store, GridStore::Open("memory://", {.create_if_missing = true}));
  VariableMeta var = MakeVariable("t2m", DataType::kInt16, {1, 1, 2, 3});
  var.set_fill_value<int16_t>(-32767);
  var.missing_values = {-32766};
  var.packing = Packing{0.5, 250.0, DataType::kFloat32};
  VariableMeta plain = MakeVariable("count", DataType::kInt32, {1, 1, 2, 3});
  VariableMeta real = MakeVariable("q", DataType::kFloat32, {1, 1, 2, 3});
  real.set_fill_value<float>(1e20f);
  DataSetMeta meta = MakeMeta("era5", {var, plain, real}, 2, 2);
  ASSERT_OK(store->PutDataSetMeta(meta));
  ASSERT_OK_AND_ASSIGN(auto writer, store->GetDataWriter("era5"));
  ASSERT_OK(writer->WriteGrid2D(
      "t2m", 0, 0, Grid2D::FromValues<int16_t>(2, 3, {0, 2, -32767, -32766, -4, 100})));
  ASSERT_OK(
      writer->WriteGrid2D("count", 0, 0, Grid2D::FromValues<int32_t>(2, 3, {1, 2, 3, 4, 5, 6})));
  ASSERT_OK(
      writer->WriteGrid2D("q", 0, 0, Grid2D::FromValues<float>(2, 3, {1, 1e20f, 3, 4, 5, 6})));
  ASSERT_OK_AND_ASSIGN(auto fetcher, store->GetDataFetcher("era5"));

  ASSERT_OK_AND_ASSIGN(GridDataSet raw, fetcher->Fetch());
  EXPECT_EQ(raw.GetVariable("t2m")->type(), DataType::kInt16);
  EXPECT_EQ(raw.GetVariable("t2m")->data<int16_t>()[2], -32767);

  fetcher->set_options({.unpack = true});
  ASSERT_OK_AND_ASSIGN(GridDataSet unpacked, fetcher->Fetch());
  const Grid4D& t2m = *unpacked.GetVariable("t2m");
  ASSERT_EQ(t2m.type(), DataType::kFloat32);  // the packing attributes' type
  auto v = t2m.data<float>();
  EXPECT_EQ(v[0], 250.0f);
  EXPECT_EQ(v[1], 251.0f);
  EXPECT_TRUE(std::isnan(v[2]));  // fill
  EXPECT_TRUE(std::isnan(v[3]));  // missing_value
  EXPECT_EQ(v[4], 248.0f);
  EXPECT_EQ(v[5], 300.0f);
  ASSERT_EQ(unpacked.GetVariable("count")->type(), DataType::kFloat64);
  EXPECT_EQ(unpacked.GetVariable("count")->data<double>()[5], 6.0);
  ASSERT_EQ(unpacked.GetVariable("q")->type(), DataType::kFloat32);
  EXPECT_TRUE(std::isnan(unpacked.GetVariable("q")->data<float>()[1]));
  EXPECT_EQ(unpacked.GetVariable("q")->data<float>()[2], 3.0f);
}

// Floats without packing are masked in place: the fill and every missing value the type can
// hold become NaN (three marks take the general path), a missing value float cannot hold matches
// nothing, and a double variable keeps its type.
TEST(GridDataFetcherUnpackTest, FloatsMaskedInPlace) {
  ASSERT_OK_AND_ASSIGN(auto store, GridStore::Open("memory://", {.create_if_missing = true}));
  VariableMeta f = MakeVariable("f", DataType::kFloat32, {1, 1, 2, 4});
  f.set_fill_value<float>(-999.0f);
  f.missing_values = {1e20, 7.0, 0.1};  // 1e20 and 0.1 are not floats: they match no value
  VariableMeta d = MakeVariable("d", DataType::kFloat64, {1, 1, 2, 4});
  d.set_fill_value<double>(-1.0);
  d.missing_values = {2.0, 3.0};
  ASSERT_OK(store->PutDataSetMeta(MakeMeta("m", {f, d}, 2, 2)));
  ASSERT_OK_AND_ASSIGN(auto writer, store->GetDataWriter("m"));
  ASSERT_OK(writer->WriteGrid2D(
      "f", 0, 0, Grid2D::FromValues<float>(2, 4, {-999.0f, 1e20f, 7.0f, 0.1f, 1, 2, 3, -999.0f})));
  ASSERT_OK(writer->WriteGrid2D(
      "d", 0, 0, Grid2D::FromValues<double>(2, 4, {-1.0, 2.0, 3.0, 4.0, 5, 6, 3.0, 8})));
  ASSERT_OK_AND_ASSIGN(auto fetcher, store->GetDataFetcher("m"));
  fetcher->set_options({.unpack = true});
  ASSERT_OK_AND_ASSIGN(GridDataSet got, fetcher->Fetch());
  ASSERT_EQ(got.GetVariable("f")->type(), DataType::kFloat32);
  auto fv = got.GetVariable("f")->data<float>();
  EXPECT_TRUE(std::isnan(fv[0]));
  EXPECT_EQ(fv[1], 1e20f);  // not the double 1e20
  EXPECT_TRUE(std::isnan(fv[2]));
  EXPECT_EQ(fv[3], 0.1f);  // not the double 0.1
  EXPECT_EQ(fv[4], 1.0f);
  EXPECT_TRUE(std::isnan(fv[7]));
  ASSERT_EQ(got.GetVariable("d")->type(), DataType::kFloat64);
  auto dv = got.GetVariable("d")->data<double>();
  EXPECT_TRUE(std::isnan(dv[0]) && std::isnan(dv[1]) && std::isnan(dv[2]) && std::isnan(dv[6]));
  EXPECT_EQ(dv[3], 4.0);
  EXPECT_EQ(dv[7], 8.0);
}

// A plane large enough for a dictionary: a smooth field with some fine structure, different for
// every (salt, t).
Grid2D SmoothPlane(int64_t x, int64_t y, int salt, int t) {
  Grid2D plane(DataType::kFloat32, x, y);
  auto data = plane.data<float>();
  for (int64_t i = 0; i < x; ++i) {
    for (int64_t j = 0; j < y; ++j) {
      data[i * y + j] = 250.0f + salt + 30.0f * std::sin(i * 0.03f + t) * std::cos(j * 0.02f) +
                        0.01f * static_cast<float>((i * 7 + j * 13 + t) % 11);
    }
  }
  return plane;
}

// Framed layouts get a per-variable dictionary, trained from the first plane and stored before
// any block compressed with it; both write paths use it, fetches and verify find it, and a
// missing one is a clear error, never wrong data.
TEST(GridDataFetcherFramesTest, DictionaryIsTrainedStoredAndRequired) {
  ScopedTempDir dir;
  DataSetMeta meta = MakeMeta("dict",
                              {MakeVariable("T", DataType::kFloat32, {4, 1, 300, 300}),
                               MakeVariable("small", DataType::kFloat32, {1, 1, 20, 20})},
                              64, 64);
  meta.layout.frame_rows = 8;
  std::string key;
  std::vector<Grid2D> planes;
  for (int t = 0; t < 4; ++t) planes.push_back(SmoothPlane(300, 300, 1, t));
  {
    ASSERT_OK_AND_ASSIGN(auto store,
                         GridStore::Open(dir.Sub("store"), {.create_if_missing = true}));
    ASSERT_OK(store->PutDataSetMeta(meta));
    ASSERT_OK_AND_ASSIGN(auto writer, store->GetDataWriter("dict"));
    const uint64_t inc = writer->meta().key_incarnation();
    key = DictionaryKey("dict", inc, "T");
    ASSERT_OK(writer->WriteGrid2D("T", 0, 0, planes[0]));
    std::string stored;
    ASSERT_OK(KvStoreOf(store.get())->Get({}, storage::Table::kData, key, &stored));
    ASSERT_OK_AND_ASSIGN(auto dictionary, BlockDictionary::Load(stored));
    for (int t = 1; t < 4; ++t) ASSERT_OK(writer->SubmitGrid2D("T", t, 0, Grid2D(planes[t])));
    ASSERT_OK(writer->WriteGrid2D("small", 0, 0, SmoothPlane(20, 20, 2, 0)));
    ASSERT_OK(writer->Flush());
    // Too small to train on: no dictionary, and its blocks do not need one.
    EXPECT_STATUS(
        KvStoreOf(store.get())
            ->Get({}, storage::Table::kData, DictionaryKey("dict", inc, "small"), &stored),
        kNotFound, "");
    // Every block of T needs the dictionary (no plane was written before it existed).
    int flagged = 0;
    ASSERT_OK(KvStoreOf(store.get())
                  ->Scan({}, storage::Table::kData, VariableDataRange("dict", inc, "T"),
                         [&](std::string_view k, std::string_view v) {
                           if (k != key) flagged += BlockNeedsDictionary(v);
                           return true;
                         }));
    EXPECT_EQ(flagged, 4 * 5 * 5);
  }
  {
    ASSERT_OK_AND_ASSIGN(auto store, GridStore::Open(dir.Sub("store"), {}));
    ASSERT_OK_AND_ASSIGN(auto fetcher, store->GetDataFetcher("dict"));
    fetcher->SetVariablesToGet({"T"});
    fetcher->SetOriginShape({0, 0, 37, 101}, {4, 1, 70, 130});
    ASSERT_OK_AND_ASSIGN(GridDataSet got, fetcher->Fetch());
    for (int t = 0; t < 4; ++t) {
      for (int x = 0; x < 70; ++x) {
        for (int y = 0; y < 130; ++y) {
          ASSERT_EQ(got.GetVariable("T")->at<float>(t, 0, x, y),
                    planes[t].data<float>()[(37 + x) * 300 + 101 + y]);
        }
      }
    }
    ASSERT_OK_AND_ASSIGN(VerifyReport report, Verify(store.get(), "dict"));
    EXPECT_TRUE(report.problems.empty());

    // Without its dictionary the variable cannot be read, and says why.
    ASSERT_OK(KvStoreOf(store.get())->Delete({}, storage::Table::kData, key));
  }
  ASSERT_OK_AND_ASSIGN(auto store, GridStore::Open(dir.Sub("store"), {}));
  ASSERT_OK_AND_ASSIGN(auto fetcher, store->GetDataFetcher("dict"));
  fetcher->SetVariablesToGet({"T"});
  fetcher->SetOriginShape({2, 0, 5, 5}, {1, 1, 1, 1});
  EXPECT_STATUS(fetcher->Fetch().status(), kDataLoss,
                "dictionary of dataset 'dict', variable 'T' is missing");
  ASSERT_OK_AND_ASSIGN(VerifyReport report, Verify(store.get(), "dict"));
  ASSERT_EQ(report.problems.size(), 100u);
  EXPECT_THAT(report.problems[0].message, ::testing::HasSubstr("is missing"));

  // A deleted and re-created dataset trains its own dictionary; nothing of the old one leaks.
  ASSERT_OK(store->DeleteDataSet("dict"));
  ASSERT_OK(store->PutDataSetMeta(meta));
  ASSERT_OK_AND_ASSIGN(auto writer, store->GetDataWriter("dict"));
  ASSERT_OK(writer->WriteGrid2D("T", 2, 0, SmoothPlane(300, 300, 9, 2)));
  ASSERT_OK(writer->Flush());
  ASSERT_OK_AND_ASSIGN(fetcher, store->GetDataFetcher("dict"));
  fetcher->SetVariablesToGet({"T"});
  fetcher->SetOriginShape({2, 0, 5, 5}, {1, 1, 1, 1});
  ASSERT_OK_AND_ASSIGN(GridDataSet again, fetcher->Fetch());
  EXPECT_EQ(again.GetVariable("T")->at<float>(0, 0, 0, 0),
            SmoothPlane(300, 300, 9, 2).data<float>()[5 * 300 + 5]);
}

}  // namespace
}  // namespace gridstore::grid
