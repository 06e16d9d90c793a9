// Copyright 2026 The GridStore Authors.
//
// MemoryKvStore: one ordered map per table behind a single reader-writer lock. Writers hold the
// lock exclusively for a whole batch, which is what makes batches atomic across tables; readers
// share it. Scan copies its range under the lock and calls fn afterwards, so fn may call back
// into the store (even write to it) and still sees a snapshot.

#include "gridstore/storage/memory/memory_kv_store.h"

#include <array>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <utility>
#include <vector>

#include "gridstore/util/internal/mutex.h"

namespace gridstore::storage {
namespace {

class MemoryKvStore final : public KvStore {
 public:
  Status Get(const ReadOptions& /*options*/, Table table, std::string_view key,
             std::string* value) override {
    ReaderMutexLock lock(&mu_);
    const Map& map = Tab(table);
    auto it = map.find(key);
    if (it == map.end()) return Status::NotFound("key not found");
    value->assign(it->second);
    return Status::OK();
  }

  void MultiGet(const ReadOptions& /*options*/, Table table,
                const std::vector<std::string_view>& keys, std::vector<std::string>* values,
                std::vector<Status>* statuses) override {
    values->resize(keys.size());
    statuses->assign(keys.size(), Status::OK());
    ReaderMutexLock lock(&mu_);
    const Map& map = Tab(table);
    for (size_t i = 0; i < keys.size(); ++i) {
      auto it = map.find(keys[i]);
      if (it == map.end()) {
        (*values)[i].clear();
        (*statuses)[i] = Status::NotFound("key not found");
      } else {
        (*values)[i].assign(it->second);
      }
    }
  }

  Status Put(const WriteOptions& /*options*/, Table table, std::string_view key,
             std::string_view value) override {
    WriterMutexLock lock(&mu_);
    PutLocked(table, key, value);
    return Status::OK();
  }

  Status Delete(const WriteOptions& /*options*/, Table table, std::string_view key) override {
    WriterMutexLock lock(&mu_);
    DeleteLocked(table, key);
    return Status::OK();
  }

  Status DeleteRange(const WriteOptions& /*options*/, Table table, const KeyRange& range) override {
    GRIDSTORE_RETURN_IF_ERROR(ValidateDeleteRange(table, range.begin, range.end));
    WriterMutexLock lock(&mu_);
    DeleteRangeLocked(table, range.begin, range.end);
    return Status::OK();
  }

  Status Write(const WriteOptions& /*options*/, const WriteBatch& batch) override {
    // Validate everything first: a batch applies entirely or not at all.
    for (const WriteBatch::Op& op : batch.ops()) {
      if (op.type == WriteBatch::OpType::kDeleteRange) {
        GRIDSTORE_RETURN_IF_ERROR(ValidateDeleteRange(op.table, op.key, op.value));
      }
    }
    WriterMutexLock lock(&mu_);
    GRIDSTORE_RETURN_IF_ERROR(
        CheckExpectations(batch, [&](Table table, std::string_view key, std::string* value) {
          mu_.AssertHeld();  // run by CheckExpectations, under the lock taken above
          const Map& map = Tab(table);
          auto it = map.find(key);
          if (it == map.end()) return Status::NotFound("key not found");
          value->assign(it->second);
          return Status::OK();
        }));
    for (const WriteBatch::Op& op : batch.ops()) {
      switch (op.type) {
        case WriteBatch::OpType::kPut:
          PutLocked(op.table, op.key, op.value);
          break;
        case WriteBatch::OpType::kDelete:
          DeleteLocked(op.table, op.key);
          break;
        case WriteBatch::OpType::kDeleteRange:
          DeleteRangeLocked(op.table, op.key, op.value);
          break;
      }
    }
    return Status::OK();
  }

  Status Scan(const ReadOptions& /*options*/, Table table, const KeyRange& range,
              const std::function<bool(std::string_view, std::string_view)>& fn) override {
    std::vector<std::pair<std::string, std::string>> entries;
    {
      ReaderMutexLock lock(&mu_);
      const Map& map = Tab(table);
      for (auto it = map.lower_bound(range.begin);
           it != map.end() && (range.end.empty() || it->first < range.end); ++it) {
        entries.emplace_back(it->first, it->second);
      }
    }
    for (const auto& [key, value] : entries) {
      if (!fn(key, value)) break;
    }
    return Status::OK();
  }

  Status ReverseScan(const ReadOptions& /*options*/, Table table, const KeyRange& range,
                     const std::function<bool(std::string_view, std::string_view)>& fn) override {
    std::vector<std::pair<std::string, std::string>> entries;
    {
      ReaderMutexLock lock(&mu_);
      const Map& map = Tab(table);
      auto it = range.end.empty() ? map.end() : map.lower_bound(range.end);
      while (it != map.begin()) {
        --it;
        if (it->first < range.begin) break;
        entries.emplace_back(it->first, it->second);
      }
    }
    for (const auto& [key, value] : entries) {
      if (!fn(key, value)) break;
    }
    return Status::OK();
  }

  Status Sync() override { return Status::OK(); }
  Status Flush() override { return Status::OK(); }
  // Erasing from a map frees its memory at once.
  Status CompactRange(Table, const KeyRange&) override { return Status::OK(); }
  Status CheckIntegrity(std::vector<std::string>*) override { return Status::OK(); }
  bool single_writer() const override { return true; }  // one process by construction

  Result<uint64_t> ApproximateSize(Table table, const KeyRange& range) override {
    ReaderMutexLock lock(&mu_);
    const Map& map = Tab(table);
    uint64_t size = 0;
    for (auto it = map.lower_bound(range.begin);
         it != map.end() && (range.end.empty() || it->first < range.end); ++it) {
      size += it->first.size() + it->second.size();
    }
    return size;
  }

 private:
  // std::less<> lets string_view keys look up without building a std::string.
  using Map = std::map<std::string, std::string, std::less<>>;

  Map& Tab(Table table) REQUIRES_SHARED(mu_) { return tables_[static_cast<size_t>(table)]; }

  void PutLocked(Table table, std::string_view key, std::string_view value) REQUIRES(mu_) {
    Map& map = Tab(table);
    auto it = map.find(key);
    if (it == map.end()) {
      map.emplace(std::string(key), std::string(value));
    } else {
      it->second.assign(value);
    }
  }

  void DeleteLocked(Table table, std::string_view key) REQUIRES(mu_) {
    Map& map = Tab(table);
    auto it = map.find(key);
    if (it != map.end()) map.erase(it);
  }

  void DeleteRangeLocked(Table table, std::string_view begin, std::string_view end) REQUIRES(mu_) {
    Map& map = Tab(table);
    map.erase(map.lower_bound(begin), map.lower_bound(end));
  }

  SharedMutex mu_;
  std::array<Map, kNumTables> tables_ GUARDED_BY(mu_);
};

}  // namespace

std::unique_ptr<KvStore> NewMemoryKvStore() { return std::make_unique<MemoryKvStore>(); }

}  // namespace gridstore::storage
