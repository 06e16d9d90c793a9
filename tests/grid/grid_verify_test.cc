// Copyright 2026 The GridStore Authors.
#include "gridstore/grid/grid_verify.h"

#include <deque>

#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/model/internal/grid_keys.h"
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
      DataSetMeta meta =
          MakeMeta(id, {MakeVariable("T", DataType::kFloat32, {2, 1, 20, 20})}, 8, 8);
      meta.set_status(kStatusDone);
      ASSERT_OK(store_->PutDataSetMeta(meta));
      ASSERT_OK_AND_ASSIGN(auto writer, store_->GetDataWriter(id));
      for (int t = 0; t < 2; ++t)
        ASSERT_OK(writer->WriteGrid2D("T", t, 0, PatternPlane(meta.variables[0], 0, t, 0)));
    }
  }
  // The address of block (t, z, row, col) of variable T of dataset `id`, as stored now.
  BlockAddress Block(std::string_view id, uint32_t t, uint32_t z, uint32_t r, uint32_t c) {
    auto meta = store_->GetDataSetMeta(id);
    EXPECT_OK(meta.status());
    incarnations_.push_back(meta.ok() ? meta->key_incarnation() : 0);
    ids_.emplace_back(id);
    return BlockAddress{ids_.back(), incarnations_.back(), "T", kPlaneLayout, t, z, r, c};
  }
  void Corrupt(const BlockAddress& address) {
    std::string key = DataKey(address), value;
    ASSERT_OK(KvStoreOf(store_.get())->Get({}, storage::Table::kData, key, &value));
    value[value.size() - 3] ^= 1;
    ASSERT_OK(KvStoreOf(store_.get())->Put({}, storage::Table::kData, key, value));
  }

  ScopedTempDir dir_;
  std::unique_ptr<GridStore> store_;
  std::deque<std::string> ids_;  // backs the views of Block()
  std::vector<uint64_t> incarnations_;
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
  Corrupt(Block("b", 1, 0, 2, 1));
  ASSERT_OK_AND_ASSIGN(VerifyReport all, Verify(store_.get(), ""));
  ASSERT_EQ(all.problems.size(), 1u);
  EXPECT_EQ(all.problems[0].dataset, "b");
  EXPECT_THAT(all.problems[0].message,
              ::testing::HasSubstr("variable 'T', t=1, z=0, block (2, 1)"));
  ASSERT_OK_AND_ASSIGN(VerifyReport only_a, Verify(store_.get(), "a"));
  EXPECT_TRUE(only_a.ok());
  EXPECT_EQ(only_a.blocks, 18);
}

// Blocks no meta owns are garbage, not damage: listed apart, and Compact removes them.
TEST_F(GridVerifyTest, OrphanBlocksAreListedAndCompactRemovesThem) {
  ASSERT_OK(KvStoreOf(store_.get())->Delete({}, storage::Table::kMeta, MetaKey("a")));
  ASSERT_OK_AND_ASSIGN(VerifyReport report, Verify(store_.get(), ""));
  EXPECT_TRUE(report.ok());
  ASSERT_EQ(report.orphans.size(), 1u);
  EXPECT_EQ(report.orphans[0].dataset, "a");
  EXPECT_EQ(report.orphans[0].blocks, 18);
  EXPECT_GT(report.orphans[0].bytes, 0u);
  EXPECT_THAT(report.orphans[0].reason, ::testing::HasSubstr("no dataset meta"));
  EXPECT_STATUS(Verify(store_.get(), "missing"), kNotFound, "'missing'");

  ASSERT_OK_AND_ASSIGN(CompactReport compact, store_->Compact());
  EXPECT_EQ(compact.orphan_incarnations, 1);
  EXPECT_EQ(compact.orphan_blocks, 18);
  ASSERT_OK_AND_ASSIGN(report, Verify(store_.get(), ""));
  EXPECT_TRUE(report.orphans.empty());
  EXPECT_EQ(report.blocks, 18);  // b's, untouched
  EXPECT_TRUE(report.ok());
}

TEST_F(GridVerifyTest, BlockOfUnknownVariableIsReported) {
  std::string value;
  const BlockAddress t = Block("a", 0, 0, 0, 0);
  ASSERT_OK(KvStoreOf(store_.get())->Get({}, storage::Table::kData, DataKey(t), &value));
  BlockAddress q = t;
  q.variable = "Q";
  ASSERT_OK(KvStoreOf(store_.get())->Put({}, storage::Table::kData, DataKey(q), value));
  BlockAddress beyond = t;
  beyond.t = 7;
  ASSERT_OK(KvStoreOf(store_.get())->Put({}, storage::Table::kData, DataKey(beyond), value));
  ASSERT_OK_AND_ASSIGN(VerifyReport report, Verify(store_.get(), ""));
  ASSERT_EQ(report.problems.size(), 2u);
  EXPECT_THAT(report.problems[0].message, ::testing::HasSubstr("variable 'Q'"));
  EXPECT_THAT(report.problems[1].message, ::testing::HasSubstr("t=7"));
  EXPECT_THAT(report.problems[1].message, ::testing::HasSubstr("outside the variable's shape"));
}

// Every corrupt block is listed, not just the first (issue 12 item 6).
TEST_F(GridVerifyTest, EveryCorruptBlockIsListed) {
  Corrupt(Block("a", 0, 0, 0, 0));
  Corrupt(Block("a", 1, 0, 2, 2));
  Corrupt(Block("b", 1, 0, 1, 0));
  ASSERT_OK_AND_ASSIGN(VerifyReport report, Verify(store_.get(), ""));
  EXPECT_EQ(report.problems.size(), 3u);
  EXPECT_EQ(report.blocks, 36);
}

// An abandoned replacement (a killed import --overwrite) is garbage once no one writes it; the
// dataset it was to replace is untouched.
TEST_F(GridVerifyTest, AbandonedReplacementIsAnOrphan) {
  ASSERT_OK_AND_ASSIGN(DataSetMeta a, store_->GetDataSetMeta("a"));
  ASSERT_OK_AND_ASSIGN(DataSetMeta staged, store_->BeginReplacement(a));
  {
    ASSERT_OK_AND_ASSIGN(auto writer, store_->GetReplacementWriter(staged));
    ASSERT_OK(writer->WriteGrid2D("T", 0, 0, PatternPlane(a.variables[0], 9, 0, 0)));
  }
  ASSERT_OK_AND_ASSIGN(VerifyReport report, Verify(store_.get(), ""));
  EXPECT_EQ(report.replacements_in_progress, 1);  // this store is writing it
  EXPECT_TRUE(report.orphans.empty());
  // As if the process had died: another GridStore on the same key-value store.
  store_.reset();
  ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(dir_.Sub("store")));
  ASSERT_OK_AND_ASSIGN(report, Verify(store_.get(), ""));
  EXPECT_EQ(report.replacements_in_progress, 0);
  ASSERT_EQ(report.orphans.size(), 1u);
  EXPECT_EQ(report.orphans[0].blocks, 9);
  EXPECT_THAT(report.orphans[0].reason, ::testing::HasSubstr("abandoned replacement"));
  ASSERT_OK_AND_ASSIGN(CompactReport compact, store_->Compact());
  EXPECT_EQ(compact.replacements_removed, 1);
  ASSERT_OK_AND_ASSIGN(report, Verify(store_.get(), ""));
  EXPECT_TRUE(report.orphans.empty());
  EXPECT_TRUE(report.ok());
  EXPECT_EQ(report.blocks, 36);
}

}  // namespace
}  // namespace gridstore::grid
