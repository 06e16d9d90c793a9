// Copyright 2026 The GridStore Authors.
#include "grid/grid_verify.h"

#include "grid/grid_keys.h"
#include "tests/grid/grid_testutil.h"

namespace gridstore::grid {
namespace {

using testing::MakeMeta;
using testing::MakeVariable;
using testing::PatternPlane;
using testing::ScopedTempDir;

class GridVerifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
    for (std::string id : {"a", "b"}) {
      DataSetMeta meta = MakeMeta(id, {MakeVariable("T", DataType::kFloat32, {2, 1, 20, 20})}, 8, 8);
      meta.set_status(kStatusDone);
      ASSERT_OK(store_->PutDataSetMeta(meta));
      ASSERT_OK_AND_ASSIGN(auto writer, store_->GetDataWriter(id));
      for (int t = 0; t < 2; ++t)
        ASSERT_OK(writer->WriteGrid2D("T", t, 0, PatternPlane(meta.variables[0], 0, t, 0)));
    }
  }
  void Corrupt(const BlockAddress& address) {
    std::string key = DataKey(address), value;
    ASSERT_OK(store_->kv_store()->Get({}, storage::Table::kData, key, &value));
    value[value.size() - 3] ^= 1;
    ASSERT_OK(store_->kv_store()->Put({}, storage::Table::kData, key, value));
  }

  ScopedTempDir dir_;
  std::unique_ptr<GridStore> store_;
};

TEST_F(GridVerifyTest, CleanStoreHasNoProblems) {
  ASSERT_OK_AND_ASSIGN(VerifyReport report, Verify(store_.get(), ""));
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(report.datasets, 2);
  EXPECT_EQ(report.blocks, 2 * 2 * 9);
  EXPECT_GT(report.bytes_read, 0);
  EXPECT_EQ(report.datasets_not_done, 0);
}

TEST_F(GridVerifyTest, CorruptBlockIsReportedByName) {
  Corrupt(BlockAddress{"b", "T", kPlaneLayout, 1, 0, 2, 1});
  ASSERT_OK_AND_ASSIGN(VerifyReport all, Verify(store_.get(), ""));
  ASSERT_EQ(all.problems.size(), 1u);
  EXPECT_EQ(all.problems[0].dataset, "b");
  EXPECT_THAT(all.problems[0].message, ::testing::HasSubstr("variable 'T', t=1, z=0, block (2, 1)"));
  ASSERT_OK_AND_ASSIGN(VerifyReport only_a, Verify(store_.get(), "a"));
  EXPECT_TRUE(only_a.ok());
  EXPECT_EQ(only_a.blocks, 18);
}

TEST_F(GridVerifyTest, OrphanBlocksAndUnknownDataSet) {
  ASSERT_OK(store_->kv_store()->Delete({}, storage::Table::kMeta, MetaKey("a")));
  ASSERT_OK_AND_ASSIGN(VerifyReport report, Verify(store_.get(), ""));
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_EQ(report.problems[0].dataset, "a");
  EXPECT_THAT(report.problems[0].message, ::testing::HasSubstr("18 block(s) belong to no dataset"));
  EXPECT_STATUS(Verify(store_.get(), "missing"), kNotFound, "'missing'");
}

TEST_F(GridVerifyTest, BlockOfUnknownVariableIsReported) {
  std::string value;
  ASSERT_OK(store_->kv_store()->Get({}, storage::Table::kData,
                                    DataKey(BlockAddress{"a", "T", kPlaneLayout, 0, 0, 0, 0}), &value));
  ASSERT_OK(store_->kv_store()->Put({}, storage::Table::kData,
                                    DataKey(BlockAddress{"a", "Q", kPlaneLayout, 0, 0, 0, 0}), value));
  ASSERT_OK_AND_ASSIGN(VerifyReport report, Verify(store_.get(), "a"));
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_THAT(report.problems[0].message, ::testing::HasSubstr("variable 'Q'"));
}

}  // namespace
}  // namespace gridstore::grid
