// Copyright 2026 The GridStore Authors.
#include "gridstore/grid/grid_store.h"

#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/storage/kv_store.h"
#include "tests/grid/grid_testutil.h"

namespace gridstore::grid {
namespace {

using testing::MakeMeta;
using testing::MakeVariable;
using testing::PatternPlane;
using testing::ScopedTempDir;

class GridStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(path(), {.create_if_missing = true}));
  }
  std::string path() const { return dir_.Sub("store"); }

  // Number of keys of `table` in `range`.
  int CountKeys(storage::Table table, const storage::KeyRange& range) {
    int n = 0;
    EXPECT_OK(
        KvStoreOf(store_.get())->Scan({}, table, range, [&](std::string_view, std::string_view) {
          ++n;
          return true;
        }));
    return n;
  }

  // Creates `id` with one float32 variable "T" of shape (2, 2, 20, 30) and writes every plane.
  void CreateAndFill(const std::string& id) {
    DataSetMeta meta = MakeMeta(id, {MakeVariable("T", DataType::kFloat32, {2, 2, 20, 30})}, 8, 8);
    ASSERT_OK(store_->PutDataSetMeta(meta));
    ASSERT_OK_AND_ASSIGN(auto writer, store_->GetDataWriter(id));
    for (int t = 0; t < 2; ++t)
      for (int z = 0; z < 2; ++z)
        ASSERT_OK(writer->WriteGrid2D("T", t, z, PatternPlane(meta.variables[0], 1, t, z)));
  }

  ScopedTempDir dir_;
  std::unique_ptr<GridStore> store_;
};

TEST_F(GridStoreTest, CreateStoreIsIdempotent) {
  EXPECT_OK(store_->CreateStore());
  EXPECT_OK(store_->CreateStore());
  store_.reset();
  ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(path()));
  EXPECT_OK(store_->CreateStore());
}

TEST_F(GridStoreTest, OpenMissingStoreWithoutCreateIsNotFound) {
  auto missing = GridStore::Open(dir_.Sub("nothing-here"));
  EXPECT_STATUS(missing, kNotFound, "nothing-here");
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("nothing-here")));
}

TEST_F(GridStoreTest, OpenKeyValueStoreWithoutMarkerIsNotAStore) {
  auto opened = GridStore::Open("memory://");
  EXPECT_STATUS(opened, kFailedPrecondition, "not a GridStore store");
}

TEST_F(GridStoreTest, GetMissingDataSetIsNotFound) {
  EXPECT_STATUS(store_->GetDataSetMeta("nope"), kNotFound, "dataset 'nope' does not exist");
  EXPECT_STATUS(store_->GetDataFetcher("nope"), kNotFound, "nope");
  EXPECT_STATUS(store_->GetDataWriter("nope"), kNotFound, "nope");
  EXPECT_STATUS(store_->DeleteDataSet("nope"), kNotFound, "nope");
}

TEST_F(GridStoreTest, PutThenGetRoundTripsMeta) {
  DataSetMeta meta =
      MakeMeta("run/2026-11-21T00", {MakeVariable("T", DataType::kInt16, {3, 4, 5, 6})});
  meta.variables[0].set_fill_value<int16_t>(-32767);
  meta.variables[0].packing = Packing{0.01, 273.15, DataType::kFloat32};
  meta.attributes["source"] = AttributeValue::String("ECMWF");
  meta.attributes["resolution"] = AttributeValue::Double(0.25);
  meta.set_status(kStatusInit);
  ASSERT_OK(store_->PutDataSetMeta(meta));
  ASSERT_OK_AND_ASSIGN(DataSetMeta got, store_->GetDataSetMeta(meta.id));
  EXPECT_NE(got.incarnation, 0u);
  EXPECT_EQ(got.generation, 1u);
  EXPECT_TRUE(got.incarnation_in_keys);
  meta.incarnation = got.incarnation;
  meta.generation = got.generation;
  EXPECT_EQ(got, meta);
}

TEST_F(GridStoreTest, InvalidMetaIsRefused) {
  DataSetMeta meta = MakeMeta("bad", {MakeVariable("T", DataType::kFloat32, {1, 1, 0, 5})});
  EXPECT_STATUS(store_->PutDataSetMeta(meta), kInvalidArgument, "T");
  DataSetMeta nul =
      MakeMeta(std::string("a\0b", 3), {MakeVariable("T", DataType::kFloat32, {1, 1, 2, 2})});
  EXPECT_STATUS(store_->PutDataSetMeta(nul), kInvalidArgument, "NUL");
}

TEST_F(GridStoreTest, UpdateOfMissingDataSetIsNotFound) {
  DataSetMeta meta = MakeMeta("x", {MakeVariable("T", DataType::kFloat32, {1, 1, 2, 2})});
  EXPECT_STATUS(store_->UpdateDataSetMeta(meta), kNotFound, "'x'");
  ASSERT_OK(store_->PutDataSetMeta(meta));
  meta.set_status(kStatusDone);
  EXPECT_OK(store_->UpdateDataSetMeta(meta));
  ASSERT_OK_AND_ASSIGN(DataSetMeta got, store_->GetDataSetMeta("x"));
  EXPECT_EQ(got.status(), kStatusDone);
}

TEST_F(GridStoreTest, LayoutMayChangeBeforeDataIsWritten) {
  DataSetMeta meta = MakeMeta("x", {MakeVariable("T", DataType::kFloat32, {1, 1, 20, 20})});
  ASSERT_OK(store_->PutDataSetMeta(meta));
  meta.layout.block_x = 5;
  meta.variables[0].shape = {2, 2, 20, 20};
  meta.variables[0].type = DataType::kFloat64;
  EXPECT_OK(store_->PutDataSetMeta(meta));
}

TEST_F(GridStoreTest, ShapeTypeAndLayoutChangesAfterDataAreRefused) {
  CreateAndFill("d");
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("d"));

  DataSetMeta shape = meta;
  shape.variables[0].shape[kX] = 21;
  EXPECT_STATUS(store_->PutDataSetMeta(shape), kFailedPrecondition, "'d' has data",
                "variable 'T' cannot change shape", "[2, 2, 20, 30] -> [2, 2, 21, 30]");
  // Along t a variable may grow (a run appended step by step), never shrink.
  DataSetMeta fewer = meta;
  fewer.variables[0].shape[kT] = 1;
  EXPECT_STATUS(store_->PutDataSetMeta(fewer), kFailedPrecondition,
                "[2, 2, 20, 30] -> [1, 2, 20, 30]");
  DataSetMeta more = meta;
  more.variables[0].shape[kT] = 5;
  EXPECT_OK(store_->UpdateDataSetMeta(more));
  ASSERT_OK_AND_ASSIGN(meta, store_->GetDataSetMeta("d"));
  EXPECT_EQ(meta.variables[0].shape[kT], 5);
  DataSetMeta type = meta;
  type.variables[0].type = DataType::kFloat64;
  EXPECT_STATUS(store_->UpdateDataSetMeta(type), kFailedPrecondition, "cannot change type",
                "float32 -> float64");
  DataSetMeta layout = meta;
  layout.layout.block_y = 16;
  EXPECT_STATUS(store_->PutDataSetMeta(layout), kFailedPrecondition, "block layout");
  DataSetMeta codec = meta;
  codec.layout.codec.level = 9;
  EXPECT_STATUS(store_->PutDataSetMeta(codec), kFailedPrecondition, "block layout");
  DataSetMeta removed = meta;
  removed.variables.clear();
  removed.variables.push_back(MakeVariable("U", DataType::kFloat32, {1, 1, 2, 2}));
  EXPECT_STATUS(store_->PutDataSetMeta(removed), kFailedPrecondition, "'T' cannot be removed");

  // Attributes and new variables may change freely.
  DataSetMeta added = meta;
  added.attributes["note"] = AttributeValue::String("checked");
  added.variables.push_back(MakeVariable("U", DataType::kFloat32, {1, 1, 2, 2}));
  EXPECT_OK(store_->PutDataSetMeta(added));
  ASSERT_OK_AND_ASSIGN(DataSetMeta got, store_->GetDataSetMeta("d"));
  EXPECT_EQ(got.incarnation, meta.incarnation);
  EXPECT_EQ(got.variables.size(), 2u);
}

TEST_F(GridStoreTest, DeleteRemovesMetaDataAndIndexOnlyOfThatDataSet) {
  CreateAndFill("a");
  CreateAndFill("a/b");
  CreateAndFill("b");
  // An index entry of each dataset, as the meta-query index will keep them.
  for (std::string id : {"a", "a/b"}) {
    ASSERT_OK(KvStoreOf(store_.get())
                  ->Put({}, storage::Table::kIndex, DataSetIndexRange(id).begin + "k", "v"));
  }
  const int blocks = CountKeys(storage::Table::kData, DataSetDataRange("a"));
  EXPECT_EQ(blocks, 2 * 2 * 3 * 4);  // (t, z) planes x ceil(20/8) x ceil(30/8)

  ASSERT_OK(store_->DeleteDataSet("a"));
  EXPECT_STATUS(store_->GetDataSetMeta("a"), kNotFound, "'a'");
  EXPECT_EQ(CountKeys(storage::Table::kData, DataSetDataRange("a")), 0);
  EXPECT_EQ(CountKeys(storage::Table::kIndex, DataSetIndexRange("a")), 0);
  // Neighbours untouched, including "a/b" whose id starts with "a".
  EXPECT_EQ(CountKeys(storage::Table::kData, DataSetDataRange("a/b")), blocks);
  EXPECT_EQ(CountKeys(storage::Table::kIndex, DataSetIndexRange("a/b")), 1);
  EXPECT_EQ(CountKeys(storage::Table::kData, DataSetDataRange("b")), blocks);
  EXPECT_OK(store_->GetDataSetMeta("a/b").status());
  EXPECT_STATUS(store_->DeleteDataSet("a"), kNotFound, "'a'");
}

TEST_F(GridStoreTest, RecreatedDataSetDoesNotSeeOldBlocks) {
  CreateAndFill("d");
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("d"));
  ASSERT_OK(fetcher->Fetch().status());  // fills the block cache
  ASSERT_OK(store_->DeleteDataSet("d"));
  DataSetMeta meta = MakeMeta("d", {MakeVariable("T", DataType::kFloat32, {2, 2, 20, 30})}, 8, 8);
  meta.variables[0].set_fill_value<float>(-1.0f);
  ASSERT_OK(store_->PutDataSetMeta(meta));
  ASSERT_OK_AND_ASSIGN(fetcher, store_->GetDataFetcher("d"));
  ASSERT_OK_AND_ASSIGN(GridDataSet result, fetcher->Fetch());
  for (float v : result.GetVariable("T")->data<float>()) ASSERT_EQ(v, -1.0f);
  EXPECT_EQ(result.stats.cache_hits, 0);
}

TEST_F(GridStoreTest, DeleteRemovesOrphanBlocksWithoutMeta) {
  CreateAndFill("d");
  ASSERT_OK(KvStoreOf(store_.get())->Delete({}, storage::Table::kMeta, MetaKey("d")));
  EXPECT_OK(store_->DeleteDataSet("d"));
  EXPECT_EQ(CountKeys(storage::Table::kData, DataSetDataRange("d")), 0);
}

TEST_F(GridStoreTest, ListDataSetsIsOrderedById) {
  for (std::string id : {"c", "a", "a/b", "b b"}) {
    ASSERT_OK(
        store_->PutDataSetMeta(MakeMeta(id, {MakeVariable("T", DataType::kUint8, {1, 1, 1, 1})})));
  }
  ASSERT_OK_AND_ASSIGN(auto metas, store_->ListDataSets());
  std::vector<std::string> ids;
  for (const auto& m : metas) ids.push_back(m.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"a", "a/b", "b b", "c"}));
}

TEST_F(GridStoreTest, ReopenedStoreFetchesIdenticalValues) {
  CreateAndFill("d");
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("d"));
  ASSERT_OK_AND_ASSIGN(GridDataSet before, fetcher->Fetch());
  fetcher.reset();
  store_.reset();
  ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(path()));
  ASSERT_OK_AND_ASSIGN(fetcher, store_->GetDataFetcher("d"));
  ASSERT_OK_AND_ASSIGN(GridDataSet after, fetcher->Fetch());
  const Grid4D& a = *before.GetVariable("T");
  const Grid4D& b = *after.GetVariable("T");
  ASSERT_EQ(a.size_bytes(), b.size_bytes());
  EXPECT_EQ(std::memcmp(a.bytes(), b.bytes(), a.size_bytes()), 0);
  EXPECT_EQ(after.stats.blocks_read, after.stats.blocks);  // really read back, not cached
}

TEST_F(GridStoreTest, ReadOnlyStoreFetchesButRefusesWrites) {
  CreateAndFill("d");
  store_.reset();
  ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(path(), {.read_only = true}));
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("d"));
  EXPECT_OK(fetcher->Fetch().status());
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("d"));
  EXPECT_STATUS(store_->PutDataSetMeta(meta), kFailedPrecondition, "read-only");
  EXPECT_STATUS(store_->DeleteDataSet("d"), kFailedPrecondition, "read-only");
  EXPECT_STATUS(store_->GetDataWriter("d"), kFailedPrecondition, "read-only");
}

TEST_F(GridStoreTest, ApproximateSizeGrowsWithData) {
  CreateAndFill("d");
  ASSERT_OK_AND_ASSIGN(uint64_t size, store_->ApproximateDataSetSize("d"));
  EXPECT_GT(size, 0u);
}

}  // namespace
}  // namespace gridstore::grid
