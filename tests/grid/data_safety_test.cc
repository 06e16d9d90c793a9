// Copyright 2026 The GridStore Authors.
//
// Regression tests of issue 12 ("Data safety") at the library level: replacements that keep the
// old dataset until the new one is whole, every variable checked before a layout change, and
// several writers of one store (two GridStores over one key-value store stand for two
// processes sharing a RADOS pool) kept consistent by conditional writes and meta stamps.
#include <atomic>
#include <map>
#include <set>
#include <thread>

#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/storage/memory/memory_kv_store.h"
#include "tests/grid/grid_testutil.h"
#include "tests/storage/fault_injection_kv_store.h"

namespace gridstore::grid {
namespace {

using testing::FaultInjectionKvStore;
using testing::MakeMeta;
using testing::MakeVariable;
using testing::PatternPlane;
using testing::PatternValue;
using testing::ScopedTempDir;

DataSetMeta OnePlaneMeta(const std::string& id) {
  return MakeMeta(id, {MakeVariable("T", DataType::kFloat32, {2, 1, 20, 20})}, 8, 8);
}

// Writes every plane of `meta`'s variable T with PatternValue(salt, ...).
void WriteAll(GridDataWriter* writer, const DataSetMeta& meta, int salt) {
  for (int t = 0; t < 2; ++t) {
    ASSERT_OK(writer->WriteGrid2D("T", t, 0, PatternPlane(meta.variables[0], salt, t, 0)));
  }
}

// The value of T at (1, 0, 5, 7), or the fetch's error.
Result<float> ValueAt(GridStore* store, const std::string& id) {
  GRIDSTORE_ASSIGN_OR_RETURN(auto fetcher, store->GetDataFetcher(id));
  fetcher->SetOriginShape({1, 0, 5, 7}, {1, 1, 1, 1});
  GRIDSTORE_ASSIGN_OR_RETURN(GridDataSet got, fetcher->Fetch());
  return got.GetVariable("T")->data<float>()[0];
}

float Expected(int salt) { return static_cast<float>(PatternValue(salt, 1, 0, 5, 7)); }

int64_t CountKeys(storage::KvStore* kv, const storage::KeyRange& range) {
  int64_t n = 0;
  EXPECT_OK(kv->Scan({}, storage::Table::kData, range, [&](std::string_view, std::string_view) {
    ++n;
    return true;
  }));
  return n;
}

class ReplacementTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
    meta_ = OnePlaneMeta("run");
    ASSERT_OK(store_->PutDataSetMeta(meta_));
    ASSERT_OK_AND_ASSIGN(auto writer, store_->GetDataWriter("run"));
    WriteAll(writer.get(), meta_, 1);
    ASSERT_OK_AND_ASSIGN(meta_, store_->GetDataSetMeta("run"));
  }

  ScopedTempDir dir_;
  std::unique_ptr<GridStore> store_;
  DataSetMeta meta_;
};

// Issue 12 item 5: the old dataset stays readable, whole and unchanged, until the replacement
// is committed; then the new one is read and the old blocks are gone.
TEST_F(ReplacementTest, ReadersSeeTheOldDataUntilTheSwitch) {
  ASSERT_OK_AND_ASSIGN(DataSetMeta staged, store_->BeginReplacement(meta_));
  EXPECT_NE(staged.incarnation, meta_.incarnation);
  ASSERT_OK_AND_ASSIGN(auto writer, store_->GetReplacementWriter(staged));
  WriteAll(writer.get(), staged, 2);
  ASSERT_OK(writer->Flush());
  ASSERT_OK_AND_ASSIGN(float before, ValueAt(store_.get(), "run"));
  EXPECT_EQ(before, Expected(1));

  staged.attributes["version"] = AttributeValue::Int64(2);
  ASSERT_OK(store_->CommitReplacement(staged));
  ASSERT_OK_AND_ASSIGN(float after, ValueAt(store_.get(), "run"));
  EXPECT_EQ(after, Expected(2));
  ASSERT_OK_AND_ASSIGN(DataSetMeta now, store_->GetDataSetMeta("run"));
  EXPECT_EQ(now.incarnation, staged.incarnation);
  EXPECT_EQ(now.attributes.at("version").AsDouble(), 2);
  EXPECT_EQ(
      CountKeys(KvStoreOf(store_.get()), IncarnationDataRange("run", meta_.key_incarnation())), 0);
  ASSERT_OK_AND_ASSIGN(VerifyReport report, store_->Verify(""));
  EXPECT_TRUE(report.ok());
  EXPECT_TRUE(report.orphans.empty());
  EXPECT_EQ(report.blocks, 2 * 9);
}

TEST_F(ReplacementTest, AbandonLeavesTheOldDatasetAndNoBlocks) {
  ASSERT_OK_AND_ASSIGN(DataSetMeta staged, store_->BeginReplacement(meta_));
  {
    ASSERT_OK_AND_ASSIGN(auto writer, store_->GetReplacementWriter(staged));
    WriteAll(writer.get(), staged, 2);
  }
  ASSERT_OK(store_->AbandonReplacement(staged));
  ASSERT_OK_AND_ASSIGN(float value, ValueAt(store_.get(), "run"));
  EXPECT_EQ(value, Expected(1));
  EXPECT_EQ(CountKeys(KvStoreOf(store_.get()), IncarnationDataRange("run", staged.incarnation)), 0);
  ASSERT_OK_AND_ASSIGN(DataSetMeta now, store_->GetDataSetMeta("run"));
  EXPECT_EQ(now, meta_);
  EXPECT_STATUS(store_->CommitReplacement(staged), kFailedPrecondition, "not in progress");
}

TEST_F(ReplacementTest, DeleteDuringAReplacementMakesItsCommitFail) {
  ASSERT_OK_AND_ASSIGN(DataSetMeta staged, store_->BeginReplacement(meta_));
  {
    ASSERT_OK_AND_ASSIGN(auto writer, store_->GetReplacementWriter(staged));
    WriteAll(writer.get(), staged, 2);
  }
  ASSERT_OK(store_->DeleteDataSet("run"));
  EXPECT_STATUS(store_->CommitReplacement(staged), kFailedPrecondition, "removed meanwhile");
  EXPECT_STATUS(store_->GetDataSetMeta("run"), kNotFound, "");
  EXPECT_EQ(CountKeys(KvStoreOf(store_.get()), DataSetDataRange("run")), 0);
}

TEST_F(ReplacementTest, CommitRefusesOtherVariables) {
  ASSERT_OK_AND_ASSIGN(DataSetMeta staged, store_->BeginReplacement(meta_));
  DataSetMeta changed = staged;
  changed.variables[0].shape[kT] = 3;
  EXPECT_STATUS(store_->CommitReplacement(changed), kInvalidArgument, "variables or layout");
  ASSERT_OK(store_->CommitReplacement(staged));  // no blocks: every value reads as fill
}

// A replacement can also create a dataset that did not exist.
TEST_F(ReplacementTest, ReplacementOfANewIdCreatesIt) {
  ASSERT_OK_AND_ASSIGN(DataSetMeta staged, store_->BeginReplacement(OnePlaneMeta("fresh")));
  {
    ASSERT_OK_AND_ASSIGN(auto writer, store_->GetReplacementWriter(staged));
    WriteAll(writer.get(), staged, 3);
  }
  EXPECT_STATUS(store_->GetDataSetMeta("fresh"), kNotFound, "");
  ASSERT_OK(store_->CommitReplacement(staged));
  ASSERT_OK_AND_ASSIGN(float value, ValueAt(store_.get(), "fresh"));
  EXPECT_EQ(value, Expected(3));
}

// A store opened after a crash: a replacement no one is writing is removed by the next
// replacement of its id (and listed by Verify until then).
TEST_F(ReplacementTest, NextReplacementRemovesAnAbandonedOne) {
  ASSERT_OK_AND_ASSIGN(DataSetMeta dead, store_->BeginReplacement(meta_));
  {
    ASSERT_OK_AND_ASSIGN(auto writer, store_->GetReplacementWriter(dead));
    WriteAll(writer.get(), dead, 2);
  }
  store_.reset();  // the process "dies"
  ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(dir_.Sub("store")));
  ASSERT_OK_AND_ASSIGN(DataSetMeta next, store_->BeginReplacement(meta_));
  EXPECT_EQ(CountKeys(KvStoreOf(store_.get()), IncarnationDataRange("run", dead.incarnation)), 0);
  ASSERT_OK(store_->AbandonReplacement(next));
  ASSERT_OK_AND_ASSIGN(VerifyReport report, store_->Verify(""));
  EXPECT_TRUE(report.orphans.empty());
}

// Issue 12 item 10: one PutDataSetMeta changing an empty variable's type and a written one's
// shape is refused for the written one (it used to stop at the first changed variable).
TEST(MetaChangeTest, EveryVariableIsCheckedBeforeALayoutChange) {
  ASSERT_OK_AND_ASSIGN(auto store, GridStore::Open("memory://", {.create_if_missing = true}));
  DataSetMeta meta = MakeMeta("d", {MakeVariable("A", DataType::kFloat32, {1, 1, 4, 4}),
                                    MakeVariable("B", DataType::kFloat32, {1, 1, 4, 4})});
  ASSERT_OK(store->PutDataSetMeta(meta));
  ASSERT_OK_AND_ASSIGN(auto writer, store->GetDataWriter("d"));
  ASSERT_OK(writer->WriteGrid2D("B", 0, 0, PatternPlane(meta.variables[1], 0, 0, 0)));
  DataSetMeta changed = meta;
  changed.variables[0].type = DataType::kFloat64;
  changed.variables[1].shape = {1, 2, 4, 4};
  EXPECT_STATUS(store->PutDataSetMeta(changed), kFailedPrecondition, "'B' cannot change shape");
  ASSERT_OK_AND_ASSIGN(DataSetMeta stored, store->GetDataSetMeta("d"));
  EXPECT_EQ(stored.variables[1].shape, (Shape4{1, 1, 4, 4}));
  // The empty variable alone may change.
  changed.variables[1] = meta.variables[1];
  EXPECT_OK(store->PutDataSetMeta(changed));
}

// Issue 12 item 8: only an empty key-value store becomes a GridStore store.
TEST(StoreCreationTest, ForeignKeyValueStoreIsRefused) {
  std::unique_ptr<storage::KvStore> kv = storage::NewMemoryKvStore();
  ASSERT_OK(kv->Put({}, storage::Table::kData, "someone else's", "data"));
  EXPECT_STATUS(OpenGridStore(std::move(kv), {.create_if_missing = true}), kFailedPrecondition,
                "not a GridStore store", "holds data");
  EXPECT_OK(OpenGridStore(storage::NewMemoryKvStore(), {.create_if_missing = true}).status());
  EXPECT_STATUS(GridStore::Open("memory://", {.threads = 100000}), kInvalidArgument,
                "thread count 100000");
}

// Two GridStores over one key-value store: two processes sharing a store.
class SharedStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK(OpenGridStore(std::make_unique<FaultInjectionKvStore>(base_.get()),
                            {.create_if_missing = true})
                  .status());
    ASSERT_OK_AND_ASSIGN(a_, Open());
    ASSERT_OK_AND_ASSIGN(b_, Open());
  }
  Result<std::unique_ptr<GridStore>> Open() {
    return OpenGridStore(std::make_unique<FaultInjectionKvStore>(base_.get()), {});
  }

  std::unique_ptr<storage::KvStore> base_ = storage::NewMemoryKvStore();
  std::unique_ptr<GridStore> a_, b_;
};

// Issue 12 item 14: a cached meta is checked against the stored stamp before it is used, so a
// dataset another writer deleted and re-created is never planned from the old meta.
TEST_F(SharedStoreTest, CachedMetaOfARecreatedDatasetIsNotUsed) {
  DataSetMeta meta = OnePlaneMeta("x");
  ASSERT_OK(a_->PutDataSetMeta(meta));
  ASSERT_OK_AND_ASSIGN(DataSetMeta cached, a_->GetDataSetMeta("x"));
  ASSERT_OK(b_->DeleteDataSet("x"));
  meta.variables[0].shape = {1, 1, 30, 30};
  ASSERT_OK(b_->PutDataSetMeta(meta));
  ASSERT_OK_AND_ASSIGN(auto writer, b_->GetDataWriter("x"));
  ASSERT_OK(writer->WriteGrid2D("T", 0, 0, PatternPlane(meta.variables[0], 5, 0, 0)));
  ASSERT_OK_AND_ASSIGN(DataSetMeta seen, a_->GetDataSetMeta("x"));
  EXPECT_NE(seen.incarnation, cached.incarnation);
  EXPECT_EQ(seen.variables[0].shape, (Shape4{1, 1, 30, 30}));
  ASSERT_OK_AND_ASSIGN(auto fetcher, a_->GetDataFetcher("x"));
  ASSERT_OK_AND_ASSIGN(GridDataSet got, fetcher->Fetch());
  EXPECT_EQ(got.GetVariable("T")->at<float>(0, 0, 3, 4),
            static_cast<float>(PatternValue(5, 0, 0, 3, 4)));
}

// A fetcher planned before its dataset was deleted or replaced says so instead of returning fill
// values for the blocks that vanished.
TEST_F(SharedStoreTest, FetchOfADatasetReplacedMeanwhileFailsInsteadOfReturningFill) {
  DataSetMeta meta = OnePlaneMeta("x");
  ASSERT_OK(a_->PutDataSetMeta(meta));
  {
    ASSERT_OK_AND_ASSIGN(auto writer, a_->GetDataWriter("x"));
    WriteAll(writer.get(), meta, 1);
  }
  ASSERT_OK_AND_ASSIGN(auto fetcher, a_->GetDataFetcher("x"));
  ASSERT_OK(b_->DeleteDataSet("x"));
  EXPECT_STATUS(fetcher->Fetch(), kNotFound, "'x' was deleted while it was being read");
  ASSERT_OK(b_->PutDataSetMeta(meta));
  EXPECT_STATUS(fetcher->Fetch(), kAborted, "'x' was replaced while it was being read");
}

// Issue 12 item 14, the reproduction: writers in several "processes" set `status` of a few ids
// at once while an index on status exists; afterwards every posting matches its meta.
TEST_F(SharedStoreTest, RacingWritersKeepIndexEntriesAndMetasInAgreement) {
  MetaIndexSchema schema{{{"status", IndexFieldType::kString}}};
  ASSERT_OK(a_->CreateMetaIndex("by_status", schema));
  std::vector<std::unique_ptr<GridStore>> writers;
  for (int w = 0; w < 3; ++w) {
    ASSERT_OK_AND_ASSIGN(auto s, Open());
    writers.push_back(std::move(s));
  }
  std::vector<std::thread> threads;
  for (int w = 0; w < 3; ++w) {
    threads.emplace_back([&, w] {
      std::mt19937 rng(w);
      for (int i = 0; i < 300; ++i) {
        DataSetMeta meta;
        meta.id = "id" + std::to_string(rng() % 4);
        meta.set_status(std::string(1, static_cast<char>('A' + rng() % 4)));
        if (rng() % 10 == 0) {
          Status s = writers[w]->DeleteDataSet(meta.id);
          ASSERT_TRUE(s.ok() || s.IsNotFound()) << s;
        } else {
          ASSERT_OK(writers[w]->PutDataSetMeta(meta));
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  std::map<std::string, std::string> status_of;
  ASSERT_OK_AND_ASSIGN(auto metas, b_->ListDataSets());
  for (const DataSetMeta& m : metas) status_of[m.id] = m.status();
  for (char c : std::string("ABCD")) {
    ASSERT_OK_AND_ASSIGN(
        QueryResult result,
        b_->QueryDataSets("by_status", QueryBuilder::Equal("status", std::string(1, c))));
    std::set<std::string> indexed;
    for (const DataSetMeta& m : result.metas) {
      indexed.insert(m.id);
      EXPECT_EQ(status_of[m.id], std::string(1, c)) << m.id;
    }
    for (const auto& [id, status] : status_of) {
      EXPECT_EQ(indexed.count(id) > 0, status == std::string(1, c)) << id << " " << status;
    }
  }
}

// An index created by one writer is maintained by another that read the definitions before.
TEST_F(SharedStoreTest, IndexCreatedByAnotherWriterIsMaintained) {
  DataSetMeta meta;
  meta.id = "m";
  meta.set_status("A");
  ASSERT_OK(a_->PutDataSetMeta(meta));  // a_ now holds the (empty) index definitions
  ASSERT_OK(b_->CreateMetaIndex("by_status", {{{"status", IndexFieldType::kString}}}));
  meta.set_status("B");
  ASSERT_OK(a_->PutDataSetMeta(meta));
  ASSERT_OK_AND_ASSIGN(QueryResult b,
                       b_->QueryDataSets("by_status", QueryBuilder::Equal("status", "B")));
  ASSERT_EQ(b.metas.size(), 1u);
  ASSERT_OK_AND_ASSIGN(QueryResult a,
                       b_->QueryDataSets("by_status", QueryBuilder::Equal("status", "A")));
  EXPECT_TRUE(a.metas.empty());
}

}  // namespace
}  // namespace gridstore::grid
