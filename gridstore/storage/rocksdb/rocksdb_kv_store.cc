// Copyright 2026 The GridStore Authors.
//
// RocksDbKvStore: KvStore on RocksDB, one column family per Table (opening and creating stores:
// rocksdb_open.cc; options and status conversion: rocksdb_support.cc). Nothing RocksDB-typed
// leaves storage/rocksdb/. rocksdb::DB is thread-safe and the column family handles are fixed
// after open, so the store locks only to make catalog writes atomic (catalog_mu_).

#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/write_batch.h>

#include <algorithm>
#include <array>
#include <functional>
#include <mutex>
#include <numeric>
#include <string_view>
#include <utility>
#include <vector>

#include "gridstore/storage/rocksdb/rocksdb_internal.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::storage::internal_rocksdb {
namespace {

class RocksDbKvStore final : public KvStore {
 public:
  RocksDbKvStore(std::string path, bool read_only, std::unique_ptr<rocksdb::DB> db,
                 std::vector<rocksdb::ColumnFamilyHandle*> handles,
                 std::array<rocksdb::ColumnFamilyHandle*, kNumTables> tables,
                 std::unique_ptr<rocksdb::Env> env)
      : path_(std::move(path)),
        read_only_(read_only),
        env_(std::move(env)),
        db_(std::move(db)),
        handles_(std::move(handles)),
        tables_(tables) {}

  ~RocksDbKvStore() override {
    for (rocksdb::ColumnFamilyHandle* h : handles_) {
      db_->DestroyColumnFamilyHandle(h).PermitUncheckedError();
    }
    // Close() waits for background flushes and compactions and reports what deleting the DB
    // would swallow; there is no one left to report it to, though.
    db_->Close().PermitUncheckedError();
    db_.reset();
  }

  Status Get(const ReadOptions& options, Table table, std::string_view key,
             std::string* value) override {
    rocksdb::PinnableSlice pinned;
    rocksdb::Status s = db_->Get(ToRocks(options), Handle(table), ToSlice(key), &pinned);
    if (s.IsNotFound()) return Status::NotFound("key not found");
    if (!s.ok()) return ToStatus(s, OpContext("Get", table), path_);
    value->assign(pinned.data(), pinned.size());
    return Status::OK();
  }

  void MultiGet(const ReadOptions& options, Table table, const std::vector<std::string_view>& keys,
                std::vector<std::string>* values, std::vector<Status>* statuses) override {
    values->assign(keys.size(), std::string());
    MultiGetVisit(options, table, keys, statuses,
                  [values](size_t i, std::string_view value) { (*values)[i].assign(value); });
  }

  void MultiGetVisit(const ReadOptions& options, Table table,
                     const std::vector<std::string_view>& keys, std::vector<Status>* statuses,
                     const std::function<void(size_t, std::string_view)>& fn) override {
    const size_t n = keys.size();
    statuses->assign(n, Status::OK());
    if (n == 0) return;

    // RocksDB's batched MultiGet is fastest on sorted input; sort positions rather than keys so
    // results can be mapped back to the caller's order, and look each distinct key up once.
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(),
              [&keys](size_t a, size_t b) { return keys[a] < keys[b]; });
    std::vector<rocksdb::Slice> unique_keys;
    unique_keys.reserve(n);
    std::vector<size_t> slot(n);
    for (size_t i : order) {
      if (unique_keys.empty() || ToView(unique_keys.back()) != keys[i]) {
        unique_keys.push_back(ToSlice(keys[i]));
      }
      slot[i] = unique_keys.size() - 1;
    }

    // Pinned: the values stay in RocksDB's block cache (or its own buffers) while fn reads them.
    std::vector<rocksdb::PinnableSlice> found(unique_keys.size());
    std::vector<rocksdb::Status> found_status(unique_keys.size());
    db_->MultiGet(ToRocks(options), Handle(table), unique_keys.size(), unique_keys.data(),
                  found.data(), found_status.data(), /*sorted_input=*/true);

    for (size_t i = 0; i < n; ++i) {
      const size_t u = slot[i];
      if (found_status[u].ok()) {
        fn(i, ToView(found[u]));
      } else {
        (*statuses)[i] = found_status[u].IsNotFound()
                             ? Status::NotFound("key not found")
                             : ToStatus(found_status[u], OpContext("MultiGet", table), path_);
      }
    }
  }

  Status Put(const WriteOptions& options, Table table, std::string_view key,
             std::string_view value) override {
    GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
    return ToStatus(db_->Put(ToRocks(options), Handle(table), ToSlice(key), ToSlice(value)),
                    OpContext("Put", table), path_);
  }

  Status Delete(const WriteOptions& options, Table table, std::string_view key) override {
    GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
    return ToStatus(db_->Delete(ToRocks(options), Handle(table), ToSlice(key)),
                    OpContext("Delete", table), path_);
  }

  Status DeleteRange(const WriteOptions& options, Table table, const KeyRange& range) override {
    GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
    GRIDSTORE_RETURN_IF_ERROR(ValidateDeleteRange(table, range.begin, range.end));
    if (range.begin == range.end) return Status::OK();
    return ToStatus(
        db_->DeleteRange(ToRocks(options), Handle(table), ToSlice(range.begin), ToSlice(range.end)),
        OpContext("DeleteRange", table), path_);
  }

  Status Write(const WriteOptions& options, const WriteBatch& batch) override {
    GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
    if (batch.empty()) return Status::OK();
    // The lock file keeps other processes out, so checking expectations and writing under one
    // mutex that every meta and index write takes makes them atomic against all writers.
    bool catalog = !batch.expectations().empty();
    for (const WriteBatch::Op& op : batch.ops()) catalog = catalog || op.table != Table::kData;
    std::unique_lock<std::mutex> lock(catalog_mu_, std::defer_lock);
    if (catalog) lock.lock();
    GRIDSTORE_RETURN_IF_ERROR(CheckExpectationsBatched(batch));
    rocksdb::WriteBatch wb(/*reserved_bytes=*/batch.ApproximateSize() + 16 * batch.count());
    for (size_t i : ApplyOrder(batch)) {
      const WriteBatch::Op& op = batch.ops()[i];
      rocksdb::ColumnFamilyHandle* h = Handle(op.table);
      rocksdb::Status s;
      switch (op.type) {
        case WriteBatch::OpType::kPut:
          s = wb.Put(h, ToSlice(op.key), ToSlice(op.value));
          break;
        case WriteBatch::OpType::kDelete:
          s = wb.Delete(h, ToSlice(op.key));
          break;
        case WriteBatch::OpType::kDeleteRange:
          // Validated here so that a bad op rejects the whole batch before anything is applied.
          GRIDSTORE_RETURN_IF_ERROR(ValidateDeleteRange(op.table, op.key, op.value));
          if (op.key != op.value) s = wb.DeleteRange(h, ToSlice(op.key), ToSlice(op.value));
          break;
      }
      if (!s.ok()) return ToStatus(s, OpContext("Write", op.table), path_);
    }
    return ToStatus(db_->Write(ToRocks(options), &wb), "Write to store at " + Quote(path_), path_);
  }

  // The order in which to apply the batch's operations. RocksDB's memtable inserts keys given in
  // ascending order cheaply (each starts from where the previous one went); a bulk meta write
  // puts a thousand metas and their postings at random places. So without range deletes (whose
  // effect depends on their place among the puts), the operations go sorted by table and key;
  // the sort is stable, so operations on one key keep their order and the outcome is the same.
  static std::vector<size_t> ApplyOrder(const WriteBatch& batch) {
    const std::vector<WriteBatch::Op>& ops = batch.ops();
    std::vector<size_t> order(ops.size());
    std::iota(order.begin(), order.end(), size_t{0});
    for (const WriteBatch::Op& op : ops) {
      if (op.type == WriteBatch::OpType::kDeleteRange) return order;
    }
    std::stable_sort(order.begin(), order.end(), [&ops](size_t a, size_t b) {
      if (ops[a].table != ops[b].table) return ops[a].table < ops[b].table;
      return ops[a].key < ops[b].key;
    });
    return order;
  }

  // CheckExpectations with one sorted MultiGet per table instead of a Get per key: a bulk meta
  // write expects a thousand keys unchanged.
  Status CheckExpectationsBatched(const WriteBatch& batch) {
    const std::vector<WriteBatch::Expectation>& expected = batch.expectations();
    for (Table table : {Table::kMeta, Table::kIndex, Table::kData}) {
      std::vector<std::string_view> keys;
      std::vector<const WriteBatch::Expectation*> which;
      for (const WriteBatch::Expectation& e : expected) {
        if (e.table != table) continue;
        keys.push_back(e.key);
        which.push_back(&e);
      }
      if (keys.empty()) continue;
      std::vector<std::string> values;
      std::vector<Status> statuses;
      MultiGet(ReadOptions{}, table, keys, &values, &statuses);
      for (size_t i = 0; i < keys.size(); ++i) {
        const Status& s = statuses[i];
        if (!s.ok() && !s.IsNotFound()) return s;
        const bool matches =
            which[i]->value ? s.ok() && values[i] == *which[i]->value : s.IsNotFound();
        if (!matches) {
          return Status::Aborted("a concurrent write changed a key of table '" +
                                 std::string(TableName(table)) + "' this write depends on");
        }
      }
    }
    return Status::OK();
  }

  Status Scan(const ReadOptions& options, Table table, const KeyRange& range,
              const std::function<bool(std::string_view, std::string_view)>& fn) override {
    if (!range.end.empty() && range.end <= range.begin) return Status::OK();
    // An explicit snapshot, so that what fn writes while the scan runs stays out of it.
    const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
    rocksdb::ReadOptions ro = ToRocks(options);
    ro.snapshot = snapshot;
    rocksdb::Slice upper = ToSlice(range.end);
    if (!range.end.empty()) ro.iterate_upper_bound = &upper;
    rocksdb::Status s;
    {
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, Handle(table)));
      for (it->Seek(ToSlice(range.begin)); it->Valid(); it->Next()) {
        if (!fn(ToView(it->key()), ToView(it->value()))) break;
      }
      s = it->status();
    }
    if (snapshot != nullptr) db_->ReleaseSnapshot(snapshot);
    return ToStatus(s, OpContext("Scan", table), path_);
  }

  Status ReverseScan(const ReadOptions& options, Table table, const KeyRange& range,
                     const std::function<bool(std::string_view, std::string_view)>& fn) override {
    if (!range.end.empty() && range.end <= range.begin) return Status::OK();
    const rocksdb::Snapshot* snapshot = db_->GetSnapshot();
    rocksdb::ReadOptions ro = ToRocks(options);
    ro.snapshot = snapshot;
    rocksdb::Slice lower = ToSlice(range.begin);
    rocksdb::Slice upper = ToSlice(range.end);
    ro.iterate_lower_bound = &lower;
    if (!range.end.empty()) ro.iterate_upper_bound = &upper;
    rocksdb::Status s;
    {
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, Handle(table)));
      // SeekToLast honours iterate_upper_bound: it lands on the last key below range.end.
      for (it->SeekToLast(); it->Valid(); it->Prev()) {
        if (!fn(ToView(it->key()), ToView(it->value()))) break;
      }
      s = it->status();
    }
    if (snapshot != nullptr) db_->ReleaseSnapshot(snapshot);
    return ToStatus(s, OpContext("ReverseScan", table), path_);
  }

  Status Sync() override {
    if (read_only_) return Status::OK();  // nothing was written through this handle
    return ToStatus(db_->FlushWAL(/*sync=*/true), "Sync of store at " + Quote(path_), path_);
  }

  Status Flush() override {
    if (read_only_) return Status::OK();
    rocksdb::FlushOptions flush;
    flush.wait = true;
    flush.allow_write_stall = true;
    std::vector<rocksdb::ColumnFamilyHandle*> ours(tables_.begin(), tables_.end());
    // Flushing writes synced table files and a synced manifest; once every table is flushed,
    // no log holds anything needed and RocksDB deletes them.
    return ToStatus(db_->Flush(flush, ours), "Flush of store at " + Quote(path_), path_);
  }

  Status CompactRange(Table table, const KeyRange& range) override {
    if (read_only_) return CheckWritable();
    rocksdb::CompactRangeOptions compact;
    // Without this, files already in the last level are left alone, and with them the space
    // of keys a range delete covers there.
    compact.bottommost_level_compaction = rocksdb::BottommostLevelCompaction::kForceOptimized;
    compact.allow_write_stall = true;
    const rocksdb::Slice begin = ToSlice(range.begin), end = ToSlice(range.end);
    return ToStatus(
        db_->CompactRange(compact, Handle(table), &begin, range.end.empty() ? nullptr : &end),
        OpContext("CompactRange", table), path_);
  }

  Status CheckIntegrity(std::vector<std::string>* problems) override {
    rocksdb::ReadOptions ro;
    ro.fill_cache = false;
    rocksdb::Status s = db_->VerifyChecksum(ro);
    if (s.IsCorruption()) {
      problems->push_back("the store's table files fail their checksums: " + s.ToString());
      return Status::OK();
    }
    return ToStatus(s, "checking the store's table files at " + Quote(path_), path_);
  }

  bool single_writer() const override { return true; }  // the LOCK file

  Result<uint64_t> ApproximateSize(Table table, const KeyRange& range) override {
    rocksdb::ColumnFamilyHandle* h = Handle(table);
    std::string limit = range.end;
    if (limit.empty()) {
      // RocksDB needs a finite limit; one past the largest key covers the whole table.
      rocksdb::ReadOptions ro;
      ro.fill_cache = false;
      std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro, h));
      it->SeekToLast();
      if (!it->Valid()) {
        GRIDSTORE_RETURN_IF_ERROR(
            ToStatus(it->status(), OpContext("ApproximateSize", table), path_));
        return uint64_t{0};
      }
      limit.assign(it->key().data(), it->key().size());
      limit.push_back('\0');
    }
    if (limit <= range.begin) return uint64_t{0};
    rocksdb::SizeApproximationOptions sao;
    sao.include_memtables = true;
    sao.include_files = true;
    rocksdb::Range r(ToSlice(range.begin), ToSlice(limit));
    uint64_t size = 0;
    GRIDSTORE_RETURN_IF_ERROR(ToStatus(db_->GetApproximateSizes(sao, h, &r, 1, &size),
                                       OpContext("ApproximateSize", table), path_));
    return size;
  }

 private:
  rocksdb::ColumnFamilyHandle* Handle(Table table) const {
    return tables_[static_cast<size_t>(table)];
  }

  std::string OpContext(std::string_view op, Table table) const {
    std::string s(op);
    s += " in table '";
    s += TableName(table);
    s += "' of store at ";
    s += Quote(path_);
    return s;
  }

  Status CheckWritable() const {
    if (read_only_) {
      return Status::FailedPrecondition("store at " + Quote(path_) + " is open read-only");
    }
    return Status::OK();
  }

  static rocksdb::ReadOptions ToRocks(const ReadOptions& options) {
    rocksdb::ReadOptions ro;
    ro.fill_cache = options.fill_cache;
    return ro;
  }

  static rocksdb::WriteOptions ToRocks(const WriteOptions& options) {
    rocksdb::WriteOptions wo;
    wo.sync = options.sync && !options.disable_wal;  // RocksDB refuses both
    wo.disableWAL = options.disable_wal;
    return wo;
  }

  const std::string path_;
  const bool read_only_;
  // Taken by every write of the meta or index table and by conditional writes.
  std::mutex catalog_mu_;
  std::unique_ptr<rocksdb::Env> env_;  // the database's, if not the default: outlives db_
  std::unique_ptr<rocksdb::DB> db_;
  // Every handle returned by open (including the unused default column family); all are
  // destroyed before the DB is closed.
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  const std::array<rocksdb::ColumnFamilyHandle*, kNumTables> tables_;
};

}  // namespace

std::unique_ptr<KvStore> NewRocksDbKvStore(
    std::string path, bool read_only, std::unique_ptr<rocksdb::DB> db,
    std::vector<rocksdb::ColumnFamilyHandle*> handles,
    std::array<rocksdb::ColumnFamilyHandle*, kNumTables> tables,
    std::unique_ptr<rocksdb::Env> env) {
  return std::make_unique<RocksDbKvStore>(std::move(path), read_only, std::move(db),
                                          std::move(handles), tables, std::move(env));
}

}  // namespace gridstore::storage::internal_rocksdb
