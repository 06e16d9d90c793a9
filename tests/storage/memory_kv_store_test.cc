// Copyright 2026 The GridStore Authors.
//
// The memory backend runs the conformance suite, and so does FaultInjectionKvStore over it with no
// faults set (it must forward faithfully). The wrapper's own fault behaviour is tested here too.

#include "gridstore/storage/memory/memory_kv_store.h"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/storage/fault_injection_kv_store.h"
#include "tests/storage/kv_store_conformance.h"
#include "tests/test_util.h"

namespace gridstore::testing {
namespace {

using storage::KeyRange;
using storage::KvStore;
using storage::ReadOptions;
using storage::Table;
using storage::WriteBatch;
using storage::WriteOptions;

INSTANTIATE_TEST_SUITE_P(Memory, KvStoreConformanceTest,
                         ::testing::Values(KvStoreFactory{
                             "Memory",
                             [](const std::string& /*dir*/) -> Result<std::unique_ptr<KvStore>> {
                               return storage::NewMemoryKvStore();
                             }}),
                         KvStoreFactoryName);

// Owns the store it wraps, so the conformance suite can hold it as one KvStore. The holder base
// comes first so the wrapped store is built before the wrapper is given its address.
struct WrappedStoreHolder {
  std::unique_ptr<KvStore> wrapped;
};
class OwningFaultInjectionKvStore : private WrappedStoreHolder, public FaultInjectionKvStore {
 public:
  explicit OwningFaultInjectionKvStore(std::unique_ptr<KvStore> base)
      : WrappedStoreHolder{std::move(base)}, FaultInjectionKvStore(wrapped.get()) {}
};

INSTANTIATE_TEST_SUITE_P(FaultInjectionOverMemory, KvStoreConformanceTest,
                         ::testing::Values(KvStoreFactory{
                             "FaultInjectionOverMemory",
                             [](const std::string& /*dir*/) -> Result<std::unique_ptr<KvStore>> {
                               return std::unique_ptr<KvStore>(
                                   std::make_unique<OwningFaultInjectionKvStore>(
                                       storage::NewMemoryKvStore()));
                             }}),
                         KvStoreFactoryName);

class FaultInjectionKvStoreTest : public ::testing::Test {
 protected:
  std::unique_ptr<KvStore> base_ = storage::NewMemoryKvStore();
  FaultInjectionKvStore store_{base_.get()};
};

TEST_F(FaultInjectionKvStoreTest, FailWritesAfterLetsTheFirstNThroughThenFailsWithoutForwarding) {
  store_.FailWritesAfter(2, Status::Unavailable("injected write fault"));
  ASSERT_OK(store_.Put(WriteOptions{}, Table::kMeta, "a", "1"));
  WriteBatch batch;
  batch.Put(Table::kMeta, "b", "2");
  ASSERT_OK(store_.Write(WriteOptions{}, batch));
  EXPECT_STATUS(store_.Put(WriteOptions{}, Table::kMeta, "c", "3"), kUnavailable, "injected");
  EXPECT_STATUS(store_.Delete(WriteOptions{}, Table::kMeta, "a"), kUnavailable, "injected");
  EXPECT_STATUS(store_.DeleteRange(WriteOptions{}, Table::kMeta, KeyRange{"a", "z"}), kUnavailable,
                "injected");
  EXPECT_STATUS(store_.Write(WriteOptions{}, batch), kUnavailable, "injected");
  EXPECT_EQ(store_.writes(), 6);

  // Nothing failed reached the wrapped store; reads still work.
  std::string value;
  ASSERT_OK(store_.Get(ReadOptions{}, Table::kMeta, "a", &value));
  EXPECT_EQ(value, "1");
  EXPECT_STATUS(base_->Get(ReadOptions{}, Table::kMeta, "c", &value), kNotFound, "");
  EXPECT_EQ(store_.reads(), 1);
}

TEST_F(FaultInjectionKvStoreTest, FailReadsAfterFailsGetMultiGetAndScan) {
  ASSERT_OK(store_.Put(WriteOptions{}, Table::kData, "k", "v"));
  store_.FailReadsAfter(1, Status::DataLoss("injected read fault"));
  std::string value = "untouched";
  ASSERT_OK(store_.Get(ReadOptions{}, Table::kData, "k", &value));
  value = "untouched";
  EXPECT_STATUS(store_.Get(ReadOptions{}, Table::kData, "k", &value), kDataLoss, "injected");
  EXPECT_EQ(value, "untouched");

  std::vector<std::string> values;
  std::vector<Status> statuses;
  store_.MultiGet(ReadOptions{}, Table::kData, {"k", "missing"}, &values, &statuses);
  ASSERT_EQ(statuses.size(), 2u);
  ASSERT_EQ(values.size(), 2u);
  for (const Status& s : statuses) EXPECT_STATUS(s, kDataLoss, "injected");

  bool called = false;
  EXPECT_STATUS(store_.Scan(ReadOptions{}, Table::kData, KeyRange{},
                            [&](std::string_view, std::string_view) {
                              called = true;
                              return true;
                            }),
                kDataLoss, "injected");
  EXPECT_FALSE(called);
  EXPECT_EQ(store_.reads(), 4);
  // Writes are unaffected by a read fault.
  EXPECT_OK(store_.Put(WriteOptions{}, Table::kData, "k2", "v"));
}

TEST_F(FaultInjectionKvStoreTest, CorruptValuesFlipsTheMiddleByteOfReadsOnly) {
  ASSERT_OK(store_.Put(WriteOptions{}, Table::kData, "k", "abcde"));
  ASSERT_OK(store_.Put(WriteOptions{}, Table::kData, "empty", ""));
  store_.CorruptValues(true);
  std::string value;
  ASSERT_OK(store_.Get(ReadOptions{}, Table::kData, "k", &value));
  EXPECT_EQ(value.size(), 5u);
  EXPECT_EQ(value.substr(0, 2), "ab");
  EXPECT_EQ(value[2], static_cast<char>(~static_cast<unsigned char>('c')));
  EXPECT_EQ(value.substr(3), "de");

  std::vector<std::string> values;
  std::vector<Status> statuses;
  store_.MultiGet(ReadOptions{}, Table::kData, {"k", "empty", "missing"}, &values, &statuses);
  ASSERT_EQ(values.size(), 3u);
  EXPECT_EQ(values[0], value);
  EXPECT_EQ(values[1], "");
  EXPECT_TRUE(statuses[2].IsNotFound());

  ASSERT_OK(base_->Get(ReadOptions{}, Table::kData, "k", &value));
  EXPECT_EQ(value, "abcde") << "the stored value must stay intact";
  store_.CorruptValues(false);
  ASSERT_OK(store_.Get(ReadOptions{}, Table::kData, "k", &value));
  EXPECT_EQ(value, "abcde");
}

TEST_F(FaultInjectionKvStoreTest, ResetClearsFaultsAndCounters) {
  store_.FailWritesAfter(0, Status::Unavailable("w"));
  store_.FailReadsAfter(0, Status::Unavailable("r"));
  store_.CorruptValues(true);
  EXPECT_FALSE(store_.Put(WriteOptions{}, Table::kMeta, "k", "value").ok());
  std::string value;
  EXPECT_FALSE(store_.Get(ReadOptions{}, Table::kMeta, "k", &value).ok());
  store_.Reset();
  EXPECT_EQ(store_.writes(), 0);
  EXPECT_EQ(store_.reads(), 0);
  ASSERT_OK(store_.Put(WriteOptions{}, Table::kMeta, "k", "value"));
  ASSERT_OK(store_.Get(ReadOptions{}, Table::kMeta, "k", &value));
  EXPECT_EQ(value, "value");
  EXPECT_EQ(store_.writes(), 1);
  EXPECT_EQ(store_.reads(), 1);
}

TEST_F(FaultInjectionKvStoreTest, CountsCallsFromManyThreads) {
  store_.FailWritesAfter(100, Status::Unavailable("injected"));
  std::atomic<int> ok{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        if (store_.Put(WriteOptions{}, Table::kData, std::to_string(t * 1000 + i), "v").ok()) ++ok;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(store_.writes(), 200);
  EXPECT_EQ(ok.load(), 100);
  ASSERT_OK_AND_ASSIGN(uint64_t size, base_->ApproximateSize(Table::kData, KeyRange{}));
  EXPECT_GT(size, 0u);
}

}  // namespace
}  // namespace gridstore::testing
