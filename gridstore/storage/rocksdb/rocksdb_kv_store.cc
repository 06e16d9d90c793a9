// Copyright 2026 The GridStore Authors.
//
// RocksDbKvStore: KvStore on RocksDB, one column family per Table. This is the only file that
// includes RocksDB headers; rocksdb::Status is converted to gridstore::Status here (ToStatus) and
// nothing RocksDB-typed leaves it. rocksdb::DB is thread-safe and the column family handles are
// fixed after open, so the store needs no locking of its own.

#include "gridstore/storage/rocksdb/rocksdb_kv_store.h"

#include <fcntl.h>
#include <rocksdb/cache.h>
#include <rocksdb/convenience.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <numeric>
#include <random>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

namespace gridstore::storage {
namespace {

namespace fs = std::filesystem;

// Column family names are part of the on-disk format: index with static_cast<int>(Table).
constexpr std::array<const char*, kNumTables> kColumnFamilyNames = {"meta", "data", "index"};

rocksdb::Slice ToSlice(std::string_view s) { return rocksdb::Slice(s.data(), s.size()); }
std::string_view ToView(const rocksdb::Slice& s) { return std::string_view(s.data(), s.size()); }

std::string Quoted(std::string_view path) {
  std::string out = "'";
  out += path;
  out += "'";
  return out;
}

bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

// The single place where rocksdb::Status becomes a gridstore::Status. `what` says what was being
// done ("cannot open store at '/x'"); the RocksDB text follows it.
Status ToStatus(const rocksdb::Status& s, std::string_view what, const std::string& path) {
  if (s.ok()) return Status::OK();
  std::string msg(what);
  msg += ": ";
  msg += s.ToString();
  switch (s.code()) {
    case rocksdb::Status::kNotFound:
      return Status::NotFound(msg);
    case rocksdb::Status::kCorruption:
      return Status::DataLoss(msg);
    case rocksdb::Status::kNotSupported:
      return Status::Unimplemented(msg);
    case rocksdb::Status::kInvalidArgument:
      return Status::InvalidArgument(msg);
    case rocksdb::Status::kBusy:
    case rocksdb::Status::kTimedOut:
    case rocksdb::Status::kTryAgain:
    case rocksdb::Status::kShutdownInProgress:
      return Status::Unavailable(msg);
    case rocksdb::Status::kIOError: {
      // RocksDB reports these as plain IOErrors; only the errno text tells them apart. They are
      // FailedPrecondition because retrying cannot help: the caller must change something.
      const std::string text = s.ToString();
      if (Contains(text, "lock file") || Contains(text, "lock hold") || Contains(text, "/LOCK")) {
        return Status::FailedPrecondition("store at " + Quoted(path) +
                                          " is in use by another process (or is already open in "
                                          "this one): " +
                                          text);
      }
      if (Contains(text, "Read-only file system")) {
        return Status::FailedPrecondition(
            "store at " + Quoted(path) +
            " is on a read-only file system (open it read-only): " + msg);
      }
      if (Contains(text, "Permission denied")) {
        return Status::FailedPrecondition("permission denied on store at " + Quoted(path) + ": " +
                                          msg);
      }
      return Status::Unavailable(msg);
    }
    default:
      return Status::Internal(msg);
  }
}

// Read-only opens must not touch the store's directory, but RocksDB creates (and rotates) a LOG
// file there unless it is given a logger of its own.
class DiscardLogger : public rocksdb::Logger {
 public:
  void Logv(const char* /*format*/, va_list /*ap*/) override {}
  void Logv(const rocksdb::InfoLogLevel /*level*/, const char* /*format*/,
            va_list /*ap*/) override {}
};

rocksdb::CompressionType LightCompression() {
  const std::vector<rocksdb::CompressionType> supported = rocksdb::GetSupportedCompressions();
  for (rocksdb::CompressionType c : {rocksdb::kLZ4Compression, rocksdb::kSnappyCompression}) {
    if (std::find(supported.begin(), supported.end(), c) != supported.end()) return c;
  }
  return rocksdb::kNoCompression;
}

rocksdb::ColumnFamilyOptions TableOptions(Table table,
                                          const std::shared_ptr<rocksdb::Cache>& cache) {
  rocksdb::ColumnFamilyOptions cf;
  rocksdb::BlockBasedTableOptions bbt;
  bbt.block_cache = cache;
  if (table == Table::kData) {
    // Values are zstd-compressed grid blocks already; compressing again only burns CPU. Reads
    // are point lookups of block keys, which a bloom filter answers without touching data blocks
    // when the key (a never-written block) is absent. SST blocks of 4 KiB: a value (a grid
    // block, usually larger) then fills SST blocks of its own, so a point series reads only its
    // blocks; with 64 KiB it read every neighbour packed with it (measured: a 24-step series read
    // 1.5 MB for 100 KB of values). Reads of neighbouring values are merged by MultiGet anyway.
    cf.compression = rocksdb::kNoCompression;
    bbt.block_size = 4 << 10;
    bbt.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    bbt.whole_key_filtering = true;
  } else {
    cf.compression = LightCompression();
  }
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(bbt));
  return cf;
}

class RocksDbKvStore final : public KvStore {
 public:
  RocksDbKvStore(std::string path, bool read_only, std::unique_ptr<rocksdb::DB> db,
                 std::vector<rocksdb::ColumnFamilyHandle*> handles,
                 std::array<rocksdb::ColumnFamilyHandle*, kNumTables> tables)
      : path_(std::move(path)),
        read_only_(read_only),
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
    const size_t n = keys.size();
    values->resize(n);
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

    std::vector<rocksdb::PinnableSlice> found(unique_keys.size());
    std::vector<rocksdb::Status> found_status(unique_keys.size());
    db_->MultiGet(ToRocks(options), Handle(table), unique_keys.size(), unique_keys.data(),
                  found.data(), found_status.data(), /*sorted_input=*/true);

    for (size_t i = 0; i < n; ++i) {
      const size_t u = slot[i];
      std::string& value = (*values)[i];
      if (found_status[u].ok()) {
        value.assign(found[u].data(), found[u].size());
      } else {
        value.clear();
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
    GRIDSTORE_RETURN_IF_ERROR(
        CheckExpectations(batch, [&](Table table, std::string_view key, std::string* value) {
          return Get(ReadOptions{}, table, key, value);
        }));
    rocksdb::WriteBatch wb(/*reserved_bytes=*/batch.ApproximateSize() + 16 * batch.count());
    for (const WriteBatch::Op& op : batch.ops()) {
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
    return ToStatus(db_->Write(ToRocks(options), &wb), "Write to store at " + Quoted(path_), path_);
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
    return ToStatus(db_->FlushWAL(/*sync=*/true), "Sync of store at " + Quoted(path_), path_);
  }

  Status Flush() override {
    if (read_only_) return Status::OK();
    rocksdb::FlushOptions flush;
    flush.wait = true;
    flush.allow_write_stall = true;
    std::vector<rocksdb::ColumnFamilyHandle*> ours(tables_.begin(), tables_.end());
    // Flushing writes synced table files and a synced manifest; once every table is flushed,
    // no log holds anything needed and RocksDB deletes them.
    return ToStatus(db_->Flush(flush, ours), "Flush of store at " + Quoted(path_), path_);
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
    return ToStatus(s, "checking the store's table files at " + Quoted(path_), path_);
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
    s += Quoted(path_);
    return s;
  }

  Status CheckWritable() const {
    if (read_only_) {
      return Status::FailedPrecondition("store at " + Quoted(path_) + " is open read-only");
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
    wo.sync = options.sync;
    return wo;
  }

  const std::string path_;
  const bool read_only_;
  // Taken by every write of the meta or index table and by conditional writes.
  std::mutex catalog_mu_;
  std::unique_ptr<rocksdb::DB> db_;
  // Every handle returned by open (including the unused default column family); all are
  // destroyed before the DB is closed.
  std::vector<rocksdb::ColumnFamilyHandle*> handles_;
  const std::array<rocksdb::ColumnFamilyHandle*, kNumTables> tables_;
};

// What a store path holds before RocksDB is let near it.
enum class PathKind { kMissing, kEmptyDirectory, kDatabase, kOther };

Result<PathKind> ClassifyPath(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::not_found) return PathKind::kMissing;
  if (ec) {
    return Status::Unavailable("cannot inspect store path " + Quoted(path) + ": " + ec.message());
  }
  if (st.type() != fs::file_type::directory) return PathKind::kOther;
  if (fs::exists(fs::path(path) / "CURRENT", ec)) return PathKind::kDatabase;
  fs::directory_iterator it(path, ec);
  if (ec) {
    return Status::FailedPrecondition("cannot list store directory " + Quoted(path) + ": " +
                                      ec.message());
  }
  return it == fs::directory_iterator() ? PathKind::kEmptyDirectory : PathKind::kOther;
}

// Table files of the store at `path` (0 if it cannot be listed: RocksDB reports that itself).
int CountTableFiles(const std::string& path) {
  std::error_code ec;
  int n = 0;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".sst") ++n;
  }
  return n;
}

rocksdb::DBOptions MakeDbOptions(const RocksDbOptions& options, const std::string& path) {
  rocksdb::DBOptions db_options;
  // Opening reads the footer and index of every table file (max_open_files = -1), by default
  // with 16 threads per column family: 64 threads created and joined, 6 ms of a 13 ms open, for
  // a settled store of a few files. One thread per 32 files, up to 16, keeps big stores quick.
  db_options.max_file_opening_threads = std::clamp(CountTableFiles(path) / 32, 1, 16);
  db_options.create_if_missing = false;
  db_options.create_missing_column_families = false;
  db_options.max_background_jobs = std::max(2, options.background_threads);
  db_options.keep_log_file_num = 10;
  // A log file is kept until every table written in it is flushed. The meta and index tables
  // take few writes during an import, so without a cap their memtables would pin every log file
  // of a whole import; past the cap RocksDB flushes the tables holding the oldest log.
  db_options.max_total_wal_size = 256 << 20;
  // A damaged log is an error, never a silent cut (the default, point-in-time recovery, stops
  // at the first bad record and drops everything after it: a DONE meta became INIT again).
  // Only a record torn at the very end, which its killed writer never acknowledged, is dropped.
  db_options.wal_recovery_mode = rocksdb::WALRecoveryMode::kTolerateCorruptedTailRecords;
  // The manifest records each synced log and its synced size, so a deleted or truncated log is
  // reported at open instead of losing what it held.
  db_options.track_and_verify_wals_in_manifest = true;
  if (options.read_only) db_options.info_log = std::make_shared<DiscardLogger>();
  return db_options;
}

// How often a read-only open that failed with `s` is tried: it may be a race with a writer that
// deleted or replaced a file (a log or manifest) between RocksDB listing it and opening it, or a
// record the writer is still appending; trying again sees the writer's newer files.
// A missing file is the usual race (tried up to 20 times); a corrupt record is
// one read while the writer was appending it, which is rare, so a damaged store is reported after
// kCorruptOpenTries quick tries instead of seconds of retrying.
int TriesFor(const rocksdb::Status& s) {
  if (s.IsPathNotFound() || s.IsNotFound() ||
      (s.IsIOError() && Contains(s.ToString(), "No such file"))) {
    return 20;
  }
  return s.IsCorruption() ? 3 : 1;
}

// Opens the existing database at `path`, refusing one whose column families are not GridStore's.
Result<std::unique_ptr<KvStore>> OpenExisting(const RocksDbOptions& options,
                                              const std::string& path) {
  const std::string open_context = "cannot open store at " + Quoted(path);
  const rocksdb::DBOptions db_options = MakeDbOptions(options, path);
  const std::shared_ptr<rocksdb::Cache> cache =
      rocksdb::NewLRUCache(static_cast<size_t>(options.block_cache_bytes));
  rocksdb::Status s;
  for (int attempt = 1;; ++attempt) {
    std::vector<std::string> existing;
    s = rocksdb::DB::ListColumnFamilies(db_options, path, &existing);
    if (s.ok()) {
      std::vector<std::string> expected = {rocksdb::kDefaultColumnFamilyName};
      for (const char* name : kColumnFamilyNames) expected.push_back(name);
      std::sort(existing.begin(), existing.end());
      std::sort(expected.begin(), expected.end());
      if (existing != expected) {
        std::string names;
        for (const std::string& n : existing) names += (names.empty() ? "'" : ", '") + n + "'";
        return Status::FailedPrecondition(
            Quoted(path) + " is not a GridStore store (a RocksDB database with column families " +
            names + "; GridStore's are 'meta', 'data' and 'index')");
      }
      std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
      descriptors.emplace_back(rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions());
      for (int t = 0; t < kNumTables; ++t) {
        descriptors.emplace_back(kColumnFamilyNames[t], TableOptions(static_cast<Table>(t), cache));
      }
      rocksdb::DB* raw_db = nullptr;
      std::vector<rocksdb::ColumnFamilyHandle*> handles;
      s = options.read_only
              ? rocksdb::DB::OpenForReadOnly(db_options, path, descriptors, &handles, &raw_db)
              : rocksdb::DB::Open(db_options, path, descriptors, &handles, &raw_db);
      if (s.ok()) {
        std::unique_ptr<rocksdb::DB> db(raw_db);
        std::array<rocksdb::ColumnFamilyHandle*, kNumTables> tables{};
        for (int t = 0; t < kNumTables; ++t) tables[t] = handles[t + 1];  // follow descriptors
        return std::unique_ptr<KvStore>(std::make_unique<RocksDbKvStore>(
            path, options.read_only, std::move(db), std::move(handles), tables));
      }
    }
    if (!options.read_only || attempt >= TriesFor(s)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5 * attempt));
  }
  if (s.IsCorruption()) {
    return Status::DataLoss(open_context + ": the store is damaged (" + s.ToString() +
                            "); restore it from a copy, or re-import its datasets");
  }
  if (s.IsPathNotFound() || (s.IsIOError() && Contains(s.ToString(), "No such file"))) {
    // A file the manifest or CURRENT names is gone: the store is damaged, not merely absent.
    return Status::DataLoss(open_context + ": a file of the store is missing (" + s.ToString() +
                            ")");
  }
  return ToStatus(s, open_context, path);
}

// Builds a new store at `path` in a temporary sibling directory, then renames it into place.
// Creates a database with GridStore's tables at `dir` (missing or empty), runs
// options.initialize on it, flushes and closes it.
Status BuildStore(const RocksDbOptions& options, const std::string& dir,
                  const std::string& open_context) {
  rocksdb::DBOptions db_options = MakeDbOptions(options, dir);
  db_options.create_if_missing = true;
  db_options.create_missing_column_families = true;
  db_options.error_if_exists = true;
  const std::shared_ptr<rocksdb::Cache> cache = rocksdb::NewLRUCache(1 << 20);
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  descriptors.emplace_back(rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions());
  for (int t = 0; t < kNumTables; ++t) {
    descriptors.emplace_back(kColumnFamilyNames[t], TableOptions(static_cast<Table>(t), cache));
  }
  rocksdb::DB* raw_db = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::Status s = rocksdb::DB::Open(db_options, dir, descriptors, &handles, &raw_db);
  if (!s.ok()) return ToStatus(s, open_context, dir);
  std::array<rocksdb::ColumnFamilyHandle*, kNumTables> tables{};
  for (int t = 0; t < kNumTables; ++t) tables[t] = handles[t + 1];
  RocksDbKvStore fresh(dir, /*read_only=*/false, std::unique_ptr<rocksdb::DB>(raw_db),
                       std::move(handles), tables);
  Status init = options.initialize ? options.initialize(&fresh) : Status::OK();
  if (init.ok()) init = fresh.Flush();
  return init.WithContext(open_context);
}

// rename(2) also replaces an empty directory atomically (one the user made for the store); if
// someone filled it meanwhile, the rename fails and their contents stay.
Result<std::unique_ptr<KvStore>> CreateNew(const RocksDbOptions& options, const std::string& path) {
  const std::string open_context = "cannot create store at " + Quoted(path);
  fs::path target(path);
  if (target.filename().empty()) target = target.parent_path();  // "dir/" names "dir"
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  // A new store may be nested deeper than existing folders.
  fs::create_directories(parent, ec);
  if (ec) {
    const std::string msg = open_context + ": cannot create the folder " + Quoted(parent.string()) +
                            ": " + ec.message();
    if (ec == std::errc::permission_denied || ec == std::errc::read_only_file_system) {
      return Status::FailedPrecondition(msg);
    }
    return Status::Unavailable(msg);
  }
  std::random_device random;
  const fs::path temp = parent / ("." + target.filename().string() + ".gridstore-creating-" +
                                  std::to_string(getpid()) + "-" + std::to_string(random()));
  auto cleanup = [&] { fs::remove_all(temp, ec); };

  Status built = BuildStore(options, temp.string(), open_context);
  if (!built.ok()) {
    cleanup();
    return built;
  }

  if (::rename(temp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    cleanup();
    if (err == ENOTEMPTY || err == EEXIST) {
      // Another process created the store first: open theirs.
      return OpenExisting(options, path);
    }
    if ((err == EXDEV || err == EBUSY || err == EINVAL) && fs::is_directory(target, ec)) {
      // An empty directory that cannot be replaced (a mount point): build in it. Not atomic,
      // but the marker still comes last, so a reader in between sees no GridStore store.
      GRIDSTORE_RETURN_IF_ERROR(BuildStore(options, target.string(), open_context));
      return OpenExisting(options, path);
    }
    return Status::Unavailable(open_context +
                               ": cannot move the new store into place: " + std::strerror(err));
  }
  // Make the rename durable, so a machine crash cannot leave the folder without its store.
  const int dir_fd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY);
  if (dir_fd >= 0) {
    ::fsync(dir_fd);
    ::close(dir_fd);
  }
  return OpenExisting(options, path);
}

}  // namespace

Result<std::unique_ptr<KvStore>> OpenRocksDbKvStore(const RocksDbOptions& options,
                                                    const std::string& path) {
  if (path.empty()) return Status::InvalidArgument("empty store path");
  GRIDSTORE_ASSIGN_OR_RETURN(PathKind kind, ClassifyPath(path));
  switch (kind) {
    case PathKind::kDatabase:
      return OpenExisting(options, path);
    case PathKind::kOther: {
      std::error_code ec;
      if (fs::is_directory(path, ec)) {
        // A database whose CURRENT is gone still has its manifest and table files: that is a
        // damaged store, not someone else's directory.
        for (const auto& entry : fs::directory_iterator(path, ec)) {
          const std::string name = entry.path().filename().string();
          if (name.rfind("MANIFEST-", 0) == 0 || name == "IDENTITY") {
            return Status::DataLoss("the store at " + Quoted(path) +
                                    " is damaged: its CURRENT file (which names the live "
                                    "MANIFEST) is missing; restore the store from a copy");
          }
        }
      }
      return Status::FailedPrecondition(Quoted(path) + " is not a GridStore store (" +
                                        (fs::is_directory(path, ec)
                                             ? "a non-empty directory without a RocksDB database"
                                             : "not a directory") +
                                        ")");
    }
    case PathKind::kMissing:
    case PathKind::kEmptyDirectory:
      break;
  }
  if (!options.create_if_missing || options.read_only) {
    return Status::NotFound("no GridStore store at " + Quoted(path));
  }
  return CreateNew(options, path);
}

}  // namespace gridstore::storage
