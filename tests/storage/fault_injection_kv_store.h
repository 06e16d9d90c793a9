// Copyright 2026 The GridStore Authors.
//
// FaultInjectionKvStore wraps a real KvStore and forwards every call to it, except the calls it
// has been told to fail (leveldb's EnvWrapper / SpecialEnv, not a mock: the data still lives in
// the wrapped store). Safe for concurrent use, like any KvStore; the fault settings may be
// changed while other threads are calling it.
//
//   auto base = storage::NewMemoryKvStore();
//   FaultInjectionKvStore store(base.get());
//   store.FailWritesAfter(2, Status::Unavailable("disk gone"));  // 3rd write onwards fails
#ifndef GRIDSTORE_TESTS_STORAGE_FAULT_INJECTION_KV_STORE_H_
#define GRIDSTORE_TESTS_STORAGE_FAULT_INJECTION_KV_STORE_H_

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gridstore/storage/kv_store.h"
#include "gridstore/util/result.h"
#include "gridstore/util/status.h"

namespace gridstore::testing {

class FaultInjectionKvStore : public storage::KvStore {
 public:
  // `base` is not owned and must outlive this object.
  explicit FaultInjectionKvStore(storage::KvStore* base) : base_(base) {}

  // From now on, the first `n` write calls (Put, Delete, DeleteRange, Write) are forwarded and
  // every later one returns `status` without reaching the wrapped store. REQUIRES: !status.ok().
  void FailWritesAfter(int n, Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    write_fault_ = Fault{writes_ + n, std::move(status)};
  }

  // Same for reads (Get, MultiGet, Scan). A failing MultiGet sets every entry's status to
  // `status`; a failing Scan calls fn never.
  void FailReadsAfter(int n, Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    read_fault_ = Fault{reads_ + n, std::move(status)};
  }

  // While on, Get and MultiGet return each (non-empty) value with its middle byte inverted, as
  // a flipped bit on disk would; the stored value is unchanged.
  void CorruptValues(bool on) {
    std::lock_guard<std::mutex> lock(mu_);
    corrupt_values_ = on;
  }

  // While on, every read call waits (holding no lock of the caller's) until it is turned off:
  // a store that hangs, to see what else waits on it.
  void HoldReads(bool on) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      hold_reads_ = on;
    }
    held_cv_.notify_all();
  }
  // Read calls waiting in HoldReads now.
  int held_reads() const {
    std::lock_guard<std::mutex> lock(mu_);
    return held_reads_;
  }

  // Stops all failures and corruption and zeroes the call counters.
  void Reset() {
    std::lock_guard<std::mutex> lock(mu_);
    write_fault_ = Fault{};
    read_fault_ = Fault{};
    corrupt_values_ = false;
    writes_ = 0;
    reads_ = 0;
  }

  // Calls received since construction or Reset(), failed ones included.
  int64_t writes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return writes_;
  }
  int64_t reads() const {
    std::lock_guard<std::mutex> lock(mu_);
    return reads_;
  }

  Status Get(const storage::ReadOptions& options, storage::Table table, std::string_view key,
             std::string* value) override {
    bool corrupt = false;
    GRIDSTORE_RETURN_IF_ERROR(AdmitRead(&corrupt));
    Status s = base_->Get(options, table, key, value);
    if (s.ok() && corrupt) Corrupt(value);
    return s;
  }

  void MultiGet(const storage::ReadOptions& options, storage::Table table,
                const std::vector<std::string_view>& keys, std::vector<std::string>* values,
                std::vector<Status>* statuses) override {
    bool corrupt = false;
    Status admitted = AdmitRead(&corrupt);
    if (!admitted.ok()) {
      values->assign(keys.size(), std::string());
      statuses->assign(keys.size(), admitted);
      return;
    }
    base_->MultiGet(options, table, keys, values, statuses);
    if (!corrupt) return;
    for (size_t i = 0; i < values->size() && i < statuses->size(); ++i) {
      if ((*statuses)[i].ok()) Corrupt(&(*values)[i]);
    }
  }

  Status Put(const storage::WriteOptions& options, storage::Table table, std::string_view key,
             std::string_view value) override {
    GRIDSTORE_RETURN_IF_ERROR(AdmitWrite());
    return base_->Put(options, table, key, value);
  }

  Status Delete(const storage::WriteOptions& options, storage::Table table,
                std::string_view key) override {
    GRIDSTORE_RETURN_IF_ERROR(AdmitWrite());
    return base_->Delete(options, table, key);
  }

  Status DeleteRange(const storage::WriteOptions& options, storage::Table table,
                     const storage::KeyRange& range) override {
    GRIDSTORE_RETURN_IF_ERROR(AdmitWrite());
    return base_->DeleteRange(options, table, range);
  }

  Status Write(const storage::WriteOptions& options, const storage::WriteBatch& batch) override {
    GRIDSTORE_RETURN_IF_ERROR(AdmitWrite());
    return base_->Write(options, batch);
  }

  Status Scan(const storage::ReadOptions& options, storage::Table table,
              const storage::KeyRange& range,
              const std::function<bool(std::string_view, std::string_view)>& fn) override {
    bool corrupt_unused = false;
    GRIDSTORE_RETURN_IF_ERROR(AdmitRead(&corrupt_unused));
    return base_->Scan(options, table, range, fn);
  }

  Status ReverseScan(const storage::ReadOptions& options, storage::Table table,
                     const storage::KeyRange& range,
                     const std::function<bool(std::string_view, std::string_view)>& fn) override {
    bool corrupt_unused = false;
    GRIDSTORE_RETURN_IF_ERROR(AdmitRead(&corrupt_unused));
    return base_->ReverseScan(options, table, range, fn);
  }

  Status Sync() override { return base_->Sync(); }
  Status Flush() override { return base_->Flush(); }
  Status CompactRange(storage::Table table, const storage::KeyRange& range) override {
    return base_->CompactRange(table, range);
  }
  Status CheckIntegrity(std::vector<std::string>* problems) override {
    return base_->CheckIntegrity(problems);
  }
  bool single_writer() const override { return base_->single_writer(); }

  Result<uint64_t> ApproximateSize(storage::Table table, const storage::KeyRange& range) override {
    return base_->ApproximateSize(table, range);
  }

 private:
  struct Fault {
    // Calls with index (counted from construction or Reset) >= this fail.
    int64_t first_failing_call = std::numeric_limits<int64_t>::max();
    Status status;
  };

  Status AdmitWrite() {
    std::lock_guard<std::mutex> lock(mu_);
    return Admit(write_fault_, &writes_);
  }

  Status AdmitRead(bool* corrupt) {
    std::unique_lock<std::mutex> lock(mu_);
    ++held_reads_;
    held_cv_.wait(lock, [&] { return !hold_reads_; });
    --held_reads_;
    *corrupt = corrupt_values_;
    return Admit(read_fault_, &reads_);
  }

  // REQUIRES: mu_ held.
  static Status Admit(const Fault& fault, int64_t* counter) {
    const int64_t call = (*counter)++;
    return call >= fault.first_failing_call ? fault.status : Status::OK();
  }

  static void Corrupt(std::string* value) {
    if (value->empty()) return;
    char& c = (*value)[value->size() / 2];
    c = static_cast<char>(~static_cast<unsigned char>(c));
  }

  storage::KvStore* const base_;
  mutable std::mutex mu_;
  Fault write_fault_;            // guarded by mu_
  Fault read_fault_;             // guarded by mu_
  bool corrupt_values_ = false;  // guarded by mu_
  bool hold_reads_ = false;      // guarded by mu_
  int held_reads_ = 0;           // guarded by mu_
  std::condition_variable held_cv_;
  int64_t writes_ = 0;  // guarded by mu_
  int64_t reads_ = 0;   // guarded by mu_
};

}  // namespace gridstore::testing

#endif  // GRIDSTORE_TESTS_STORAGE_FAULT_INJECTION_KV_STORE_H_
