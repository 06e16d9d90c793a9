// Copyright 2026 The GridStore Authors.
//
// The KvStore conformance suite (see kv_store_conformance.h). Every case opens a fresh store.
// Threaded cases are bounded by both an iteration count and a deadline so the suite stays fast
// on two cores and under sanitizers.

#include "tests/storage/kv_store_conformance.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gridstore::testing {
namespace {

using std::string_view_literals::operator""sv;

using namespace std::string_literals;  // "\x00..."s keeps embedded NULs
using storage::KeyRange;
using storage::ReadOptions;
using storage::Table;
using storage::WriteBatch;
using storage::WriteOptions;
using Entries = std::vector<std::pair<std::string, std::string>>;
using Clock = std::chrono::steady_clock;

constexpr auto kThreadedTestBudget = std::chrono::milliseconds(400);

// Fixed width, so that string order is numeric order.
std::string Counter(uint64_t i) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%020llu", static_cast<unsigned long long>(i));
  return buf;
}

// Collects failures seen on worker threads; the test thread asserts on them afterwards.
class FailureLog {
 public:
  void Add(std::string what) {
    std::lock_guard<std::mutex> lock(mu_);
    if (messages_.size() < 5) messages_.push_back(std::move(what));
    ++count_;
  }
  int count() {
    std::lock_guard<std::mutex> lock(mu_);
    return count_;
  }
  std::string Summary() {
    std::lock_guard<std::mutex> lock(mu_);
    std::string s;
    for (const std::string& m : messages_) s += m + "\n";
    return s;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> messages_;
  int count_ = 0;
};

Result<Entries> ScanAll(storage::KvStore& store, Table table, const KeyRange& range) {
  Entries out;
  Status s = store.Scan(ReadOptions{}, table, range, [&](std::string_view k, std::string_view v) {
    out.emplace_back(std::string(k), std::string(v));
    return true;
  });
  if (!s.ok()) return s;
  return out;
}

Result<Entries> ReverseScanAll(storage::KvStore& store, Table table, const KeyRange& range) {
  Entries out;
  Status s =
      store.ReverseScan(ReadOptions{}, table, range, [&](std::string_view k, std::string_view v) {
        out.emplace_back(std::string(k), std::string(v));
        return true;
      });
  if (!s.ok()) return s;
  return out;
}

std::vector<std::string> Keys(const Entries& entries) {
  std::vector<std::string> keys;
  for (const auto& e : entries) keys.push_back(e.first);
  return keys;
}

TEST_P(KvStoreConformanceTest, GetMissingKeyReturnsNotFoundAndLeavesValueAlone) {
  std::string value = "untouched";
  EXPECT_STATUS(store().Get(ReadOptions{}, Table::kData, "missing", &value), kNotFound, "");
  EXPECT_EQ(value, "untouched");
}

TEST_P(KvStoreConformanceTest, PutThenGetReturnsTheValue) {
  ASSERT_OK(store().Put(WriteOptions{}, Table::kMeta, "k", "v1"));
  std::string value;
  ASSERT_OK(store().Get(ReadOptions{}, Table::kMeta, "k", &value));
  EXPECT_EQ(value, "v1");
}

TEST_P(KvStoreConformanceTest, PutOverwritesThePreviousValue) {
  ASSERT_OK(store().Put(WriteOptions{}, Table::kMeta, "k", "a longer first value"));
  ASSERT_OK(store().Put(WriteOptions{}, Table::kMeta, "k", "v2"));
  std::string value = "stale contents";
  ASSERT_OK(store().Get(ReadOptions{}, Table::kMeta, "k", &value));
  EXPECT_EQ(value, "v2");
}

TEST_P(KvStoreConformanceTest, EmptyValueIsStoredAndDistinctFromMissing) {
  ASSERT_OK(store().Put(WriteOptions{}, Table::kData, "empty", ""));
  std::string value = "not empty";
  ASSERT_OK(store().Get(ReadOptions{}, Table::kData, "empty", &value));
  EXPECT_EQ(value, "");
}

TEST_P(KvStoreConformanceTest, BinaryKeysWithZeroAndFfBytesAreDistinct) {
  const std::vector<std::string> keys = {"\x00"s,     "\x00\x00"s, "a\x00"s,       "a\x00z"s,
                                         "a"s,        "\xff"s,     "\xff\xff"s,    "a\xff"s,
                                         "\x00\xff"s, "\xff\x00"s, "\x01\x00\x02"s};
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_OK(store().Put(WriteOptions{}, Table::kData, keys[i], "value\x00"s + std::to_string(i)));
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    std::string value;
    ASSERT_OK(store().Get(ReadOptions{}, Table::kData, keys[i], &value));
    EXPECT_EQ(value, "value\x00"s + std::to_string(i)) << "key #" << i;
  }
  std::string value;
  EXPECT_STATUS(store().Get(ReadOptions{}, Table::kData, "\x00\x00\x00"s, &value), kNotFound, "");
}

TEST_P(KvStoreConformanceTest, LargeValueRoundTrips) {
  std::string big(8 << 20, '\0');
  std::mt19937_64 rng(42);
  for (size_t i = 0; i + 8 <= big.size(); i += 8) {
    const uint64_t r = rng();
    std::memcpy(&big[i], &r, 8);
  }
  ASSERT_OK(store().Put(WriteOptions{}, Table::kData, "big", big));
  std::string value;
  ASSERT_OK(store().Get(ReadOptions{}, Table::kData, "big", &value));
  EXPECT_TRUE(value == big) << "8 MiB value differs (size " << value.size() << ")";
}

TEST_P(KvStoreConformanceTest, TablesAreIsolated) {
  ASSERT_OK(store().Put(WriteOptions{}, Table::kMeta, "same", "meta"));
  ASSERT_OK(store().Put(WriteOptions{}, Table::kData, "same", "data"));
  ASSERT_OK(store().Put(WriteOptions{}, Table::kIndex, "same", "index"));
  ASSERT_OK(store().Put(WriteOptions{}, Table::kMeta, "only-meta", "m"));
  for (auto [table, expected] : {std::pair{Table::kMeta, "meta"}, std::pair{Table::kData, "data"},
                                 std::pair{Table::kIndex, "index"}}) {
    std::string value;
    ASSERT_OK(store().Get(ReadOptions{}, table, "same", &value));
    EXPECT_EQ(value, expected);
  }
  std::string value;
  EXPECT_STATUS(store().Get(ReadOptions{}, Table::kData, "only-meta", &value), kNotFound, "");
  ASSERT_OK(store().Delete(WriteOptions{}, Table::kData, "same"));
  ASSERT_OK(store().Get(ReadOptions{}, Table::kMeta, "same", &value));
  ASSERT_OK_AND_ASSIGN(Entries index, ScanAll(store(), Table::kIndex, KeyRange{}));
  EXPECT_EQ(index, (Entries{{"same", "index"}}));
}

TEST_P(KvStoreConformanceTest, MultiGetHandlesPresentMissingAndDuplicateKeysInAnyOrder) {
  std::vector<std::string> present;
  for (int i = 0; i < 40; ++i) {
    present.push_back("key/" + Counter(i));
    ASSERT_OK(store().Put(WriteOptions{}, Table::kData, present.back(), "value-" + Counter(i)));
  }
  // Every present key, several twice, plus missing keys (also twice), shuffled.
  std::vector<std::string> wanted = present;
  for (int i = 0; i < 40; i += 3) wanted.push_back(present[i]);
  for (const char* missing : {"key/", "key/zzz", "a", "missing", "missing"})
    wanted.push_back(missing);
  std::shuffle(wanted.begin(), wanted.end(), std::mt19937(7));
  const std::vector<std::string_view> keys(wanted.begin(), wanted.end());

  // Junk in the outputs must not leak into the results.
  std::vector<std::string> values(3, "junk");
  std::vector<Status> statuses(100, Status::Internal("junk"));
  store().MultiGet(ReadOptions{}, Table::kData, keys, &values, &statuses);
  ASSERT_EQ(values.size(), keys.size());
  ASSERT_EQ(statuses.size(), keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    const std::string& key = wanted[i];
    if (key.starts_with("key/") && key.size() > 4 && key != "key/zzz") {
      ASSERT_OK(statuses[i]);
      EXPECT_EQ(values[i], "value-" + key.substr(4)) << "entry " << i;
    } else {
      EXPECT_EQ(statuses[i].code(), StatusCode::kNotFound) << "entry " << i << ": " << statuses[i];
    }
  }
}

TEST_P(KvStoreConformanceTest, MultiGetWithNoKeysReturnsEmptyResults) {
  ASSERT_OK(store().Put(WriteOptions{}, Table::kData, "k", "v"));
  std::vector<std::string> values = {"junk", "junk"};
  std::vector<Status> statuses = {Status::Internal("junk")};
  store().MultiGet(ReadOptions{}, Table::kData, {}, &values, &statuses);
  EXPECT_TRUE(values.empty());
  EXPECT_TRUE(statuses.empty());
}

TEST_P(KvStoreConformanceTest, MultiGetVisitHandsOverEachFoundValueOnce) {
  for (int i = 0; i < 20; ++i) {
    ASSERT_OK(store().Put(WriteOptions{}, Table::kData, "v/" + Counter(i), std::string(i, 'x')));
  }
  std::vector<std::string> wanted = {
      "v/" + Counter(3), "nope", "v/" + Counter(0), "v/" + Counter(3), "v/" + Counter(19), "v/zz"};
  const std::vector<std::string_view> keys(wanted.begin(), wanted.end());
  std::vector<Status> statuses(2, Status::Internal("junk"));
  std::vector<int> visits(keys.size(), 0);
  store().MultiGetVisit(ReadOptions{}, Table::kData, keys, &statuses,
                        [&](size_t i, std::string_view value) {
                          ASSERT_LT(i, keys.size());
                          ++visits[i];
                          // The value is the key's, and the store can be read meanwhile.
                          std::string again;
                          ASSERT_OK(store().Get(ReadOptions{}, Table::kData, keys[i], &again));
                          EXPECT_EQ(value, again) << "entry " << i;
                        });
  ASSERT_EQ(statuses.size(), keys.size());
  EXPECT_EQ(visits, (std::vector<int>{1, 0, 1, 1, 1, 0}));
  for (size_t i : {1, 5}) EXPECT_EQ(statuses[i].code(), StatusCode::kNotFound) << statuses[i];
  for (size_t i : {0, 2, 3, 4}) EXPECT_OK(statuses[i]);
}

TEST_P(KvStoreConformanceTest, DeleteRemovesTheKey) {
  ASSERT_OK(store().Put(WriteOptions{}, Table::kMeta, "a", "1"));
  ASSERT_OK(store().Put(WriteOptions{}, Table::kMeta, "b", "2"));
  ASSERT_OK(store().Delete(WriteOptions{}, Table::kMeta, "a"));
  std::string value;
  EXPECT_STATUS(store().Get(ReadOptions{}, Table::kMeta, "a", &value), kNotFound, "");
  ASSERT_OK(store().Get(ReadOptions{}, Table::kMeta, "b", &value));
  EXPECT_EQ(value, "2");
}

TEST_P(KvStoreConformanceTest, DeleteOfAbsentKeyIsOk) {
  EXPECT_OK(store().Delete(WriteOptions{}, Table::kIndex, "never-written"));
  ASSERT_OK(store().Put(WriteOptions{}, Table::kIndex, "k", "v"));
  ASSERT_OK(store().Delete(WriteOptions{}, Table::kIndex, "k"));
  EXPECT_OK(store().Delete(WriteOptions{}, Table::kIndex, "k"));
}

TEST_P(KvStoreConformanceTest, DeleteRangeRemovesExactlyBeginToEnd) {
  for (const std::string& k : {"a"s, "b"s, "b\x00"s, "bz"s, "c"s, "c\x00"s, "d"s}) {
    ASSERT_OK(store().Put(WriteOptions{}, Table::kData, k, "v"));
    ASSERT_OK(store().Put(WriteOptions{}, Table::kMeta, k, "v"));
  }
  ASSERT_OK(store().DeleteRange(WriteOptions{}, Table::kData, KeyRange{"b", "c"}));
  ASSERT_OK_AND_ASSIGN(Entries data, ScanAll(store(), Table::kData, KeyRange{}));
  EXPECT_EQ(Keys(data), (std::vector<std::string>{"a", "c", "c\x00"s, "d"}));
  ASSERT_OK_AND_ASSIGN(Entries meta, ScanAll(store(), Table::kMeta, KeyRange{}));
  EXPECT_EQ(meta.size(), 7u) << "DeleteRange reached another table";
  // An empty range is a no-op, not an error.
  ASSERT_OK(store().DeleteRange(WriteOptions{}, Table::kData, KeyRange{"c", "c"}));
  std::string value;
  ASSERT_OK(store().Get(ReadOptions{}, Table::kData, "c", &value));
  ASSERT_OK(store().DeleteRange(WriteOptions{}, Table::kMeta, KeyRange{"c", "c"}));
  ASSERT_OK(store().Get(ReadOptions{}, Table::kMeta, "c", &value));
  // The same range in the meta table.
  ASSERT_OK(store().DeleteRange(WriteOptions{}, Table::kMeta, KeyRange{"b", "c"}));
  ASSERT_OK_AND_ASSIGN(meta, ScanAll(store(), Table::kMeta, KeyRange{}));
  EXPECT_EQ(Keys(meta), (std::vector<std::string>{"a", "c", "c\x00"s, "d"}));
}

TEST_P(KvStoreConformanceTest, DeleteRangeRejectsEmptyEndAndReversedBounds) {
  ASSERT_OK(store().Put(WriteOptions{}, Table::kData, "a", "v"));
  ASSERT_OK(store().Put(WriteOptions{}, Table::kData, "b", "v"));
  EXPECT_STATUS(store().DeleteRange(WriteOptions{}, Table::kData, KeyRange{"a", ""}),
                kInvalidArgument, "end");
  EXPECT_STATUS(store().DeleteRange(WriteOptions{}, Table::kData, KeyRange{"b", "a"}),
                kInvalidArgument, "begin");
  ASSERT_OK_AND_ASSIGN(Entries data, ScanAll(store(), Table::kData, KeyRange{}));
  EXPECT_EQ(data.size(), 2u);
}

TEST_P(KvStoreConformanceTest, WriteBatchAppliesPutsDeletesAndRangesAcrossTables) {
  ASSERT_OK(store().Put(WriteOptions{}, Table::kMeta, "old", "x"));
  for (const char* k : {"r1", "r2", "r3", "s"}) {
    ASSERT_OK(store().Put(WriteOptions{}, Table::kIndex, k, "x"));
  }
  WriteBatch batch;
  batch.Put(Table::kMeta, "ds", "meta");
  batch.Put(Table::kData, "ds/block", "data");
  // Written, then deleted by the range below: operations apply in order.
  batch.Put(Table::kIndex, "r4", "index");
  batch.Delete(Table::kMeta, "old");
  batch.DeleteRange(Table::kIndex, "r", "s");
  batch.Put(Table::kIndex, "r9", "after the range");
  batch.Put(Table::kData, "ds/block", "data v2");  // the later put wins
  ASSERT_OK(store().Write(WriteOptions{}, batch));

  ASSERT_OK_AND_ASSIGN(Entries meta, ScanAll(store(), Table::kMeta, KeyRange{}));
  EXPECT_EQ(meta, (Entries{{"ds", "meta"}}));
  ASSERT_OK_AND_ASSIGN(Entries data, ScanAll(store(), Table::kData, KeyRange{}));
  EXPECT_EQ(data, (Entries{{"ds/block", "data v2"}}));
  ASSERT_OK_AND_ASSIGN(Entries index, ScanAll(store(), Table::kIndex, KeyRange{}));
  EXPECT_EQ(index, (Entries{{"r9", "after the range"}, {"s", "x"}}));
  EXPECT_OK(store().Write(WriteOptions{}, WriteBatch{}));
}

TEST_P(KvStoreConformanceTest, WriteBatchWithInvalidOpAppliesNothing) {
  WriteBatch batch;
  batch.Put(Table::kMeta, "a", "1");
  batch.Put(Table::kData, "b", "2");
  batch.DeleteRange(Table::kIndex, "x", "");  // unbounded: rejected
  EXPECT_STATUS(store().Write(WriteOptions{}, batch), kInvalidArgument, "end");
  std::string value;
  EXPECT_STATUS(store().Get(ReadOptions{}, Table::kMeta, "a", &value), kNotFound, "");
  EXPECT_STATUS(store().Get(ReadOptions{}, Table::kData, "b", &value), kNotFound, "");
}

// A writer commits batch i = {data:d=i, index:pair/a=i, index:pair/b=i, meta:x=i, index:x=i}.
// Readers must never see part of the meta + index operations: a snapshot scan sees pair/a ==
// pair/b, and reading meta:x before index:x never sees index:x older than meta:x. Data is atomic
// per key only, but lands before the batch's meta: data:d read after meta:x is never older.
TEST_P(KvStoreConformanceTest, WriteBatchIsAtomicForConcurrentReaders) {
  auto make_batch = [](uint64_t i) {
    WriteBatch batch;
    batch.Put(Table::kData, "d", Counter(i));
    batch.Put(Table::kIndex, "pair/a", Counter(i));
    batch.Put(Table::kIndex, "pair/b", Counter(i));
    batch.Put(Table::kMeta, "x", Counter(i));
    batch.Put(Table::kIndex, "x", Counter(i));
    return batch;
  };
  ASSERT_OK(store().Write(WriteOptions{}, make_batch(0)));

  FailureLog failures;
  std::atomic<bool> done{false};
  std::atomic<uint64_t> checks{0};
  const auto deadline = Clock::now() + kThreadedTestBudget;
  std::thread writer([&] {
    // Runs until both sides have done enough to interleave, whichever thread starts first.
    for (uint64_t i = 1; (i <= 1000 || checks < 1000) && Clock::now() < deadline; ++i) {
      Status s = store().Write(WriteOptions{}, make_batch(i));
      if (!s.ok()) failures.Add("Write: " + s.ToString());
    }
    done = true;
  });
  std::thread reader([&] {
    while (!done) {
      Entries pair;
      Status s = store().Scan(ReadOptions{}, Table::kIndex, KeyRange::Prefix("pair/"),
                              [&](std::string_view k, std::string_view v) {
                                pair.emplace_back(std::string(k), std::string(v));
                                return true;
                              });
      if (!s.ok() || pair.size() != 2 || pair[0].second != pair[1].second) {
        failures.Add("scan saw a torn batch: " + s.ToString() + " " + std::to_string(pair.size()) +
                     (pair.size() == 2 ? " " + pair[0].second + " vs " + pair[1].second : ""));
      }
      std::string meta, index, data;
      Status sm = store().Get(ReadOptions{}, Table::kMeta, "x", &meta);
      Status si = store().Get(ReadOptions{}, Table::kIndex, "x", &index);
      Status sd = store().Get(ReadOptions{}, Table::kData, "d", &data);
      if (!sm.ok() || !si.ok() || index < meta) {
        failures.Add("cross-table read saw a torn batch: meta=" + meta + " index=" + index);
      }
      if (!sd.ok() || data < meta) {
        failures.Add("data landed after its batch's meta: meta=" + meta + " data=" + data);
      }
      ++checks;
    }
  });
  writer.join();
  reader.join();
  EXPECT_EQ(failures.count(), 0) << failures.Summary();
  EXPECT_GT(checks.load(), 0u);
}

TEST_P(KvStoreConformanceTest, ScanReturnsKeysInBytewiseOrder) {
  // Unsigned byte order: 0x7f < 0x80 < UTF-8 lead bytes < 0xff; a prefix sorts first.
  const std::vector<std::string> sorted = {"\x00"s,
                                           "\x00\x00"s,
                                           "\x00\x01"s,
                                           "0",
                                           "9",
                                           "Z",
                                           "a",
                                           "a\x00"s,
                                           "ab",
                                           "a\xff"s,
                                           "z",
                                           "\x7f"s,
                                           "\x80"s,
                                           "\xc3\xa9"s,
                                           "\xe6\x97\xa5"s,
                                           "\xf0\x9f\x8c\xa7"s,
                                           "\xff"s,
                                           "\xff\x00"s,
                                           "\xff\xff"s};
  std::vector<std::string> shuffled = sorted;
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(1234));
  for (const std::string& k : shuffled) ASSERT_OK(store().Put(WriteOptions{}, Table::kIndex, k, k));
  ASSERT_OK_AND_ASSIGN(Entries all, ScanAll(store(), Table::kIndex, KeyRange{}));
  EXPECT_EQ(Keys(all), sorted);
  for (const auto& [k, v] : all) EXPECT_EQ(k, v);
}

TEST_P(KvStoreConformanceTest, ScanBeginIsInclusiveAndEndExclusive) {
  for (const std::string& k : {"a"s, "b"s, "b\x00"s, "ba"s, "c"s, "d"s}) {
    ASSERT_OK(store().Put(WriteOptions{}, Table::kData, k, "v"));
  }
  ASSERT_OK_AND_ASSIGN(Entries got, ScanAll(store(), Table::kData, KeyRange{"b", "c"}));
  EXPECT_EQ(Keys(got), (std::vector<std::string>{"b", "b\x00"s, "ba"}));
  // Bounds that are not keys themselves.
  ASSERT_OK_AND_ASSIGN(got, ScanAll(store(), Table::kData, KeyRange{"aa", "bb"}));
  EXPECT_EQ(Keys(got), (std::vector<std::string>{"b", "b\x00"s, "ba"}));
}

TEST_P(KvStoreConformanceTest, ScanWithEmptyEndIsUnbounded) {
  for (const std::string& k : {"a"s, "m"s, "z"s, "\xff\xff\xff"s}) {
    ASSERT_OK(store().Put(WriteOptions{}, Table::kData, k, "v"));
  }
  ASSERT_OK_AND_ASSIGN(Entries got, ScanAll(store(), Table::kData, KeyRange{"m", ""}));
  EXPECT_EQ(Keys(got), (std::vector<std::string>{"m", "z", "\xff\xff\xff"s}));
  ASSERT_OK_AND_ASSIGN(got, ScanAll(store(), Table::kData, KeyRange{}));
  EXPECT_EQ(got.size(), 4u);
}

TEST_P(KvStoreConformanceTest, ScanOfEmptyRangeCallsNothing) {
  for (const char* k : {"a", "b", "c"})
    ASSERT_OK(store().Put(WriteOptions{}, Table::kData, k, "v"));
  for (const KeyRange& range :
       {KeyRange{"b", "b"}, KeyRange{"c", "a"}, KeyRange{"d", ""}, KeyRange{"a0", "a1"}}) {
    ASSERT_OK_AND_ASSIGN(Entries got, ScanAll(store(), Table::kData, range));
    EXPECT_TRUE(got.empty()) << "[" << range.begin << ", " << range.end << ")";
  }
  ASSERT_OK_AND_ASSIGN(Entries empty_table, ScanAll(store(), Table::kMeta, KeyRange{}));
  EXPECT_TRUE(empty_table.empty());
}

TEST_P(KvStoreConformanceTest, ScanStopsWhenFnReturnsFalse) {
  for (int i = 0; i < 10; ++i)
    ASSERT_OK(store().Put(WriteOptions{}, Table::kData, Counter(i), "v"));
  std::vector<std::string> seen;
  ASSERT_OK(store().Scan(ReadOptions{}, Table::kData, KeyRange{},
                         [&](std::string_view k, std::string_view) {
                           seen.emplace_back(k);
                           return seen.size() < 3;
                         }));
  EXPECT_EQ(seen, (std::vector<std::string>{Counter(0), Counter(1), Counter(2)}));
}

// Meta and index scans are snapshots.
TEST_P(KvStoreConformanceTest, ScanSeesASnapshotTakenWhenItStarts) {
  for (const char* k : {"s/1", "s/2", "s/3", "s/4", "s/5"}) {
    ASSERT_OK(store().Put(WriteOptions{}, Table::kIndex, k, "old"));
  }
  Entries seen;
  bool wrote = false;
  ASSERT_OK(store().Scan(ReadOptions{}, Table::kIndex, KeyRange::Prefix("s/"),
                         [&](std::string_view k, std::string_view v) {
                           seen.emplace_back(std::string(k), std::string(v));
                           if (!wrote) {
                             // Writes into the part of the range not yet visited; fn may call back
                             // into the store.
                             wrote = true;
                             EXPECT_OK(store().Put(WriteOptions{}, Table::kIndex, "s/3", "new"));
                             EXPECT_OK(store().Put(WriteOptions{}, Table::kIndex, "s/4a", "new"));
                             EXPECT_OK(store().Delete(WriteOptions{}, Table::kIndex, "s/5"));
                           }
                           return true;
                         }));
  EXPECT_EQ(
      seen,
      (Entries{{"s/1", "old"}, {"s/2", "old"}, {"s/3", "old"}, {"s/4", "old"}, {"s/5", "old"}}));
  ASSERT_OK_AND_ASSIGN(Entries after, ScanAll(store(), Table::kIndex, KeyRange::Prefix("s/")));
  EXPECT_EQ(
      after,
      (Entries{{"s/1", "old"}, {"s/2", "old"}, {"s/3", "new"}, {"s/4", "old"}, {"s/4a", "new"}}));
}

// A data scan is not a snapshot on every backend, but keys nobody touches during the scan are each
// seen once with their value, in order, and a changed key is seen with its old or new value.
TEST_P(KvStoreConformanceTest, DataScanSeesKeysUntouchedDuringTheScan) {
  for (const char* k : {"s/1", "s/2", "s/3", "s/4", "s/5"}) {
    ASSERT_OK(store().Put(WriteOptions{}, Table::kData, k, "old"));
  }
  Entries seen;
  bool wrote = false;
  ASSERT_OK(store().Scan(ReadOptions{}, Table::kData, KeyRange::Prefix("s/"),
                         [&](std::string_view k, std::string_view v) {
                           seen.emplace_back(std::string(k), std::string(v));
                           if (!wrote) {
                             wrote = true;
                             EXPECT_OK(store().Put(WriteOptions{}, Table::kData, "s/3", "new"));
                             EXPECT_OK(store().Put(WriteOptions{}, Table::kData, "s/4a", "new"));
                             EXPECT_OK(store().Delete(WriteOptions{}, Table::kData, "s/5"));
                           }
                           return true;
                         }));
  std::map<std::string, std::string> by_key;
  for (size_t i = 0; i < seen.size(); ++i) {
    if (i > 0) {
      EXPECT_LT(seen[i - 1].first, seen[i].first) << "out of order or repeated";
    }
    by_key[seen[i].first] = seen[i].second;
  }
  EXPECT_EQ(by_key["s/1"], "old");
  EXPECT_EQ(by_key["s/2"], "old");
  EXPECT_EQ(by_key["s/4"], "old");
  EXPECT_TRUE(by_key["s/3"] == "old" || by_key["s/3"] == "new") << by_key["s/3"];
  for (const auto& [k, v] : by_key) {
    EXPECT_TRUE(k == "s/1" || k == "s/2" || k == "s/3" || k == "s/4" || k == "s/4a" || k == "s/5")
        << k;
  }
  ASSERT_OK_AND_ASSIGN(Entries after, ScanAll(store(), Table::kData, KeyRange::Prefix("s/")));
  EXPECT_EQ(
      after,
      (Entries{{"s/1", "old"}, {"s/2", "old"}, {"s/3", "new"}, {"s/4", "old"}, {"s/4a", "new"}}));
}

TEST_P(KvStoreConformanceTest, ScanOfPrefixRangeFindsExactlyThePrefixedKeys) {
  for (const std::string& k : {"a"s, "ab"s, "ab\x00"s, "abc"s, "ab\xff"s, "ac"s, "b"s}) {
    ASSERT_OK(store().Put(WriteOptions{}, Table::kMeta, k, "v"));
  }
  ASSERT_OK_AND_ASSIGN(Entries got, ScanAll(store(), Table::kMeta, KeyRange::Prefix("ab")));
  EXPECT_EQ(Keys(got), (std::vector<std::string>{"ab", "ab\x00"s, "abc", "ab\xff"s}));
}

TEST_P(KvStoreConformanceTest, ScanOfPrefixEndingInFfBytes) {
  for (const std::string& k : {"ab"s, "ab\xfe"s, "ab\xff"s, "ab\xff\x00"s, "ab\xff\xff"s,
                               "ab\xff\xff\x01"s, "ac"s, "ac\x00"s}) {
    ASSERT_OK(store().Put(WriteOptions{}, Table::kMeta, k, "v"));
  }
  ASSERT_OK_AND_ASSIGN(Entries got, ScanAll(store(), Table::kMeta, KeyRange::Prefix("ab\xff"s)));
  EXPECT_EQ(Keys(got),
            (std::vector<std::string>{"ab\xff"s, "ab\xff\x00"s, "ab\xff\xff"s, "ab\xff\xff\x01"s}));
  ASSERT_OK_AND_ASSIGN(got, ScanAll(store(), Table::kMeta, KeyRange::Prefix("ab\xff\xff"s)));
  EXPECT_EQ(Keys(got), (std::vector<std::string>{"ab\xff\xff"s, "ab\xff\xff\x01"s}));
}

TEST_P(KvStoreConformanceTest, ScanOfAllFfPrefixIsUnboundedAbove) {
  for (const std::string& k :
       {"\xfe"s, "\xff"s, "\xff\xfe"s, "\xff\xff"s, "\xff\xff\x00"s, "\xff\xff\xff\xff"s}) {
    ASSERT_OK(store().Put(WriteOptions{}, Table::kIndex, k, "v"));
  }
  const KeyRange range = KeyRange::Prefix("\xff\xff"s);
  EXPECT_TRUE(range.end.empty());
  ASSERT_OK_AND_ASSIGN(Entries got, ScanAll(store(), Table::kIndex, range));
  EXPECT_EQ(Keys(got),
            (std::vector<std::string>{"\xff\xff"s, "\xff\xff\x00"s, "\xff\xff\xff\xff"s}));
}

TEST_P(KvStoreConformanceTest, ReverseScanReturnsKeysInDescendingBytewiseOrder) {
  const std::vector<std::string> sorted = {"\x00"s,     "\x00\x01"s, "a",        "a\x00"s,
                                           "ab",        "a\xff"s,    "z",        "\x80"s,
                                           "\xc3\xa9"s, "\xff"s,     "\xff\xff"s};
  for (const std::string& k : sorted) ASSERT_OK(store().Put(WriteOptions{}, Table::kIndex, k, k));
  ASSERT_OK(store().Put(WriteOptions{}, Table::kMeta, "other table", "v"));
  ASSERT_OK_AND_ASSIGN(Entries all, ReverseScanAll(store(), Table::kIndex, KeyRange{}));
  EXPECT_EQ(Keys(all), std::vector<std::string>(sorted.rbegin(), sorted.rend()));
  for (const auto& [k, v] : all) EXPECT_EQ(k, v);
}

TEST_P(KvStoreConformanceTest, ReverseScanBeginIsInclusiveAndEndExclusive) {
  for (const std::string& k : {"a"s, "b"s, "b\x00"s, "ba"s, "c"s, "d"s}) {
    ASSERT_OK(store().Put(WriteOptions{}, Table::kData, k, "v"));
  }
  ASSERT_OK_AND_ASSIGN(Entries got, ReverseScanAll(store(), Table::kData, KeyRange{"b", "c"}));
  EXPECT_EQ(Keys(got), (std::vector<std::string>{"ba", "b\x00"s, "b"}));
  ASSERT_OK_AND_ASSIGN(got, ReverseScanAll(store(), Table::kData, KeyRange{"aa", "bb"}));
  EXPECT_EQ(Keys(got), (std::vector<std::string>{"ba", "b\x00"s, "b"}));
  ASSERT_OK_AND_ASSIGN(got, ReverseScanAll(store(), Table::kData, KeyRange{"c", ""}));
  EXPECT_EQ(Keys(got), (std::vector<std::string>{"d", "c"}));
  ASSERT_OK_AND_ASSIGN(got, ReverseScanAll(store(), Table::kData, KeyRange{"", "b"}));
  EXPECT_EQ(Keys(got), (std::vector<std::string>{"a"}));
  ASSERT_OK_AND_ASSIGN(got, ReverseScanAll(store(), Table::kData, KeyRange{"c", "c"}));
  EXPECT_TRUE(got.empty());
  ASSERT_OK_AND_ASSIGN(got, ReverseScanAll(store(), Table::kData, KeyRange{"d", "a"}));
  EXPECT_TRUE(got.empty());
  ASSERT_OK_AND_ASSIGN(got, ReverseScanAll(store(), Table::kData, KeyRange{"e", ""}));
  EXPECT_TRUE(got.empty());
}

TEST_P(KvStoreConformanceTest, ReverseScanMatchesScanReversedOnRandomRanges) {
  std::mt19937 rng(99);
  auto random_key = [&] {
    std::string k;
    const int n = std::uniform_int_distribution<int>(0, 3)(rng);
    for (int i = 0; i < n; ++i) {
      static const std::string kBytes =
          "\x00\x01"
          "ab"
          "\x7f\x80\xfe\xff"s;
      k.push_back(kBytes[rng() % kBytes.size()]);
    }
    return k;
  };
  for (int i = 0; i < 300; ++i) {
    ASSERT_OK(store().Put(WriteOptions{}, Table::kIndex, random_key(), std::to_string(i)));
  }
  for (int trial = 0; trial < 200; ++trial) {
    KeyRange range{random_key(), trial % 5 == 0 ? "" : random_key()};
    ASSERT_OK_AND_ASSIGN(Entries forward, ScanAll(store(), Table::kIndex, range));
    ASSERT_OK_AND_ASSIGN(Entries backward, ReverseScanAll(store(), Table::kIndex, range));
    std::reverse(forward.begin(), forward.end());
    EXPECT_EQ(backward, forward) << "range [" << range.begin << ", " << range.end << ")";
  }
}

// Stores that guess where a backward page starts (RADOS: from where an earlier reverse scan of the
// same prefix found the top key, and the key density near it) stay exact when the density changes
// under the guess: sparse keys first, then thousands of dense ones near the top, then the sparse
// ones alone again.
TEST_P(KvStoreConformanceTest, ReverseScanStaysExactWhenTheKeyDensityChanges) {
  auto number_key = [](uint64_t n) {
    std::string k = "n/";
    for (int s = 56; s >= 0; s -= 8) k.push_back(static_cast<char>((n >> s) & 0xff));
    return k;
  };
  const KeyRange all = KeyRange::Prefix("n/");
  auto check = [&](const KeyRange& range) {
    ASSERT_OK_AND_ASSIGN(Entries forward, ScanAll(store(), Table::kIndex, range));
    ASSERT_OK_AND_ASSIGN(Entries backward, ReverseScanAll(store(), Table::kIndex, range));
    std::reverse(forward.begin(), forward.end());
    EXPECT_EQ(backward, forward);
  };
  WriteBatch sparse;
  for (uint64_t i = 0; i < 40; ++i) sparse.Put(Table::kIndex, number_key(i << 56), "sparse");
  ASSERT_OK(store().Write(WriteOptions{}, sparse));
  check(all);
  WriteBatch dense;
  const uint64_t top = uint64_t{39} << 56;
  for (uint64_t i = 1; i <= 3000; ++i) dense.Put(Table::kIndex, number_key(top - i), "dense");
  ASSERT_OK(store().Write(WriteOptions{}, dense));
  check(all);
  check(KeyRange{number_key(top - 2000), number_key(top)});
  WriteBatch gone;
  gone.DeleteRange(Table::kIndex, number_key(top - 3000), number_key(top));
  ASSERT_OK(store().Write(WriteOptions{}, gone));
  check(all);
  check(KeyRange{number_key(0), number_key(uint64_t{20} << 56)});
}

TEST_P(KvStoreConformanceTest, ReverseScanStopsWhenFnReturnsFalse) {
  for (int i = 0; i < 10; ++i)
    ASSERT_OK(store().Put(WriteOptions{}, Table::kData, Counter(i), "v"));
  std::vector<std::string> seen;
  ASSERT_OK(store().ReverseScan(ReadOptions{}, Table::kData, KeyRange{},
                                [&](std::string_view k, std::string_view) {
                                  seen.emplace_back(k);
                                  return seen.size() < 3;
                                }));
  EXPECT_EQ(seen, (std::vector<std::string>{Counter(9), Counter(8), Counter(7)}));
}

TEST_P(KvStoreConformanceTest, ReverseScanSeesASnapshotTakenWhenItStarts) {
  for (const char* k : {"s/1", "s/2", "s/3", "s/4", "s/5"}) {
    ASSERT_OK(store().Put(WriteOptions{}, Table::kIndex, k, "old"));
  }
  Entries seen;
  bool wrote = false;
  ASSERT_OK(
      store().ReverseScan(ReadOptions{}, Table::kIndex, KeyRange::Prefix("s/"),
                          [&](std::string_view k, std::string_view v) {
                            seen.emplace_back(std::string(k), std::string(v));
                            if (!wrote) {
                              wrote = true;
                              EXPECT_OK(store().Put(WriteOptions{}, Table::kIndex, "s/3", "new"));
                              EXPECT_OK(store().Put(WriteOptions{}, Table::kIndex, "s/2a", "new"));
                              EXPECT_OK(store().Delete(WriteOptions{}, Table::kIndex, "s/1"));
                            }
                            return true;
                          }));
  EXPECT_EQ(
      seen,
      (Entries{{"s/5", "old"}, {"s/4", "old"}, {"s/3", "old"}, {"s/2", "old"}, {"s/1", "old"}}));
}

TEST_P(KvStoreConformanceTest, ConcurrentReadersSeeCorrectDataWhileAWriterWrites) {
  constexpr int kKeys = 200;
  auto key = [](int i) { return "r/" + Counter(i); };
  auto value = [](int i) { return std::string(64 + i % 50, static_cast<char>('a' + i % 26)); };
  WriteBatch populate;
  for (int i = 0; i < kKeys; ++i) populate.Put(Table::kData, key(i), value(i));
  ASSERT_OK(store().Write(WriteOptions{}, populate));

  FailureLog failures;
  std::atomic<int> readers_left{4};
  std::atomic<int> reads{0};
  const auto deadline = Clock::now() + kThreadedTestBudget;
  std::thread writer([&] {
    // Other keys, in the same table, interleaved with the readers' keys in key order.
    for (int i = 0; readers_left > 0 && i < 100000; ++i) {
      Status s = store().Put(WriteOptions{}, Table::kData, "r/" + Counter(i % kKeys) + "/w",
                             std::to_string(i));
      if (!s.ok()) failures.Add("Put: " + s.ToString());
    }
  });
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&, t] {
      std::mt19937 rng(t);
      for (int iter = 0; iter < 300 && Clock::now() < deadline; ++iter) {
        const int i = static_cast<int>(rng() % kKeys);
        std::string got;
        Status s = store().Get(ReadOptions{}, Table::kData, key(i), &got);
        if (!s.ok() || got != value(i)) failures.Add("Get " + key(i) + ": " + s.ToString());

        std::vector<std::string> wanted = {key(i), key((i + 7) % kKeys), "r/missing", key(i)};
        const std::vector<std::string_view> keys(wanted.begin(), wanted.end());
        std::vector<std::string> values;
        std::vector<Status> statuses;
        store().MultiGet(ReadOptions{}, Table::kData, keys, &values, &statuses);
        if (values.size() != 4 || statuses.size() != 4 || values[0] != value(i) ||
            values[1] != value((i + 7) % kKeys) || !statuses[2].IsNotFound() ||
            values[3] != value(i)) {
          failures.Add("MultiGet around " + key(i));
        }

        if (iter % 10 == 0) {
          int n = 0;
          Status scan = store().Scan(ReadOptions{}, Table::kData, KeyRange{"r/", "r/\xff"},
                                     [&](std::string_view k, std::string_view v) {
                                       if (k.ends_with("/w")) return true;  // the writer's keys
                                       if (k != key(n) || v != value(n))
                                         failures.Add("Scan at " + std::string(k));
                                       ++n;
                                       return true;
                                     });
          if (!scan.ok() || n != kKeys) failures.Add("Scan saw " + std::to_string(n) + " keys");
        }
        ++reads;
      }
      --readers_left;
    });
  }
  for (std::thread& r : readers) r.join();
  writer.join();
  EXPECT_EQ(failures.count(), 0) << failures.Summary();
  EXPECT_GT(reads.load(), 0);
}

TEST_P(KvStoreConformanceTest, ApproximateSizeIsZeroWhenEmptyAndPositiveAfterWrites) {
  ASSERT_OK_AND_ASSIGN(uint64_t empty, store().ApproximateSize(Table::kData, KeyRange{}));
  EXPECT_EQ(empty, 0u);
  // 4 MiB of incompressible values, enough for any backend to account for.
  std::mt19937_64 rng(3);
  for (int i = 0; i < 64; ++i) {
    std::string v(64 << 10, '\0');
    for (size_t j = 0; j < v.size(); j += 8) {
      const uint64_t r = rng();
      std::memcpy(&v[j], &r, 8);
    }
    ASSERT_OK(store().Put(WriteOptions{}, Table::kData, "blk/" + Counter(i), v));
  }
  ASSERT_OK_AND_ASSIGN(uint64_t all, store().ApproximateSize(Table::kData, KeyRange{}));
  EXPECT_GT(all, 0u);
  ASSERT_OK_AND_ASSIGN(uint64_t prefix,
                       store().ApproximateSize(Table::kData, KeyRange::Prefix("blk/")));
  EXPECT_GT(prefix, 0u);
  ASSERT_OK_AND_ASSIGN(uint64_t other_table, store().ApproximateSize(Table::kMeta, KeyRange{}));
  EXPECT_EQ(other_table, 0u);
}

TEST_P(KvStoreConformanceTest, SyncSucceeds) {
  ASSERT_OK(store().Put(WriteOptions{.sync = true}, Table::kMeta, "k", "v"));
  ASSERT_OK(store().Put(WriteOptions{}, Table::kMeta, "k2", "v"));
  EXPECT_OK(store().Sync());
}

TEST_P(KvStoreConformanceTest, FlushKeepsEveryWrite) {
  ASSERT_OK(store().Put(WriteOptions{}, Table::kMeta, "k", "v"));
  ASSERT_OK(store().Put(WriteOptions{}, Table::kData, "d", std::string(1000, 'x')));
  ASSERT_OK(store().Flush());
  std::string value;
  ASSERT_OK(store().Get(ReadOptions{}, Table::kMeta, "k", &value));
  EXPECT_EQ(value, "v");
  ASSERT_OK(store().Get(ReadOptions{}, Table::kData, "d", &value));
  EXPECT_EQ(value.size(), 1000u);
}

TEST_P(KvStoreConformanceTest, CompactRangeKeepsLiveKeysAndDropsDeletedOnes) {
  for (int i = 0; i < 50; ++i) {
    ASSERT_OK(store().Put(WriteOptions{}, Table::kData, "k" + std::to_string(100 + i),
                          std::string(2000, 'a' + i % 26)));
  }
  ASSERT_OK(store().DeleteRange(WriteOptions{}, Table::kData, KeyRange{"k110", "k140"}));
  ASSERT_OK(store().CompactRange(Table::kData, KeyRange{"k110", "k140"}));
  ASSERT_OK(store().CompactRange(Table::kData, KeyRange{}));
  ASSERT_OK_AND_ASSIGN(Entries all, ScanAll(store(), Table::kData, KeyRange{}));
  EXPECT_EQ(all.size(), 20u);
  for (const auto& [key, value] : all) {
    EXPECT_TRUE(key < "k110" || key >= "k140") << key;
    EXPECT_EQ(value.size(), 2000u);
  }
}

TEST_P(KvStoreConformanceTest, CheckIntegrityOfAHealthyStoreFindsNothing) {
  ASSERT_OK(store().Put(WriteOptions{}, Table::kData, "d", "v"));
  ASSERT_OK(store().Flush());
  std::vector<std::string> problems;
  ASSERT_OK(store().CheckIntegrity(&problems));
  EXPECT_TRUE(problems.empty()) << problems.front();
}

TEST_P(KvStoreConformanceTest, ExpectationsThatHoldLetTheBatchThrough) {
  ASSERT_OK(store().Put(WriteOptions{}, Table::kMeta, "m", "1"));
  WriteBatch batch;
  batch.Expect(Table::kMeta, "m", "1"sv);
  batch.Expect(Table::kIndex, "absent", std::nullopt);
  batch.Put(Table::kMeta, "m", "2");
  batch.Put(Table::kIndex, "i", "x");
  batch.Put(Table::kData, "d", "block");
  ASSERT_OK(store().Write(WriteOptions{}, batch));
  std::string value;
  ASSERT_OK(store().Get(ReadOptions{}, Table::kMeta, "m", &value));
  EXPECT_EQ(value, "2");
  ASSERT_OK(store().Get(ReadOptions{}, Table::kIndex, "i", &value));
  // With only expectations and data, nothing of the catalog changes, and that is fine too.
  WriteBatch only_expect;
  only_expect.Expect(Table::kMeta, "m", "2"sv);
  ASSERT_OK(store().Write(WriteOptions{}, only_expect));
}

TEST_P(KvStoreConformanceTest, FailedExpectationIsAbortedAndAppliesNoMetaOrIndexOperation) {
  ASSERT_OK(store().Put(WriteOptions{}, Table::kMeta, "m", "1"));
  for (auto expected :
       {std::optional<std::string_view>("0"sv), std::optional<std::string_view>()}) {
    WriteBatch batch;
    batch.Expect(Table::kMeta, "m", expected);
    batch.Put(Table::kMeta, "m", "2");
    batch.Delete(Table::kMeta, "other");
    batch.Put(Table::kIndex, "i", "x");
    EXPECT_STATUS(store().Write(WriteOptions{}, batch), kAborted, "table 'meta'");
    std::string value;
    ASSERT_OK(store().Get(ReadOptions{}, Table::kMeta, "m", &value));
    EXPECT_EQ(value, "1");
    EXPECT_STATUS(store().Get(ReadOptions{}, Table::kIndex, "i", &value), kNotFound, "");
  }
  WriteBatch absent;
  absent.Expect(Table::kIndex, "missing", "x"sv);
  absent.Put(Table::kMeta, "m", "3");
  EXPECT_STATUS(store().Write(WriteOptions{}, absent), kAborted, "table 'index'");
}

// Read-modify-write cycles made conditional lose no update however many writers race.
TEST_P(KvStoreConformanceTest, ConditionalIncrementsFromManyThreadsLoseNothing) {
  constexpr int kThreads = 4, kIncrements = 25;
  ASSERT_OK(store().Put(WriteOptions{}, Table::kMeta, "counter", "0"));
  std::atomic<int> aborted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < kIncrements; ++i) {
        while (true) {
          std::string value;
          ASSERT_OK(store().Get(ReadOptions{}, Table::kMeta, "counter", &value));
          WriteBatch batch;
          batch.Expect(Table::kMeta, "counter", std::string_view(value));
          batch.Put(Table::kMeta, "counter", std::to_string(std::stoi(value) + 1));
          Status s = store().Write(WriteOptions{}, batch);
          if (s.ok()) break;
          ASSERT_TRUE(s.IsAborted()) << s;
          ++aborted;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  std::string value;
  ASSERT_OK(store().Get(ReadOptions{}, Table::kMeta, "counter", &value));
  EXPECT_EQ(value, std::to_string(kThreads * kIncrements)) << aborted << " conflicts";
}

}  // namespace
}  // namespace gridstore::testing
