// Copyright 2026 The GridStore Authors.
//
// What the RocksDB backend's files share: the column family names (part of the on-disk format),
// rocksdb::Status to gridstore::Status (the only place it happens), the column family and DB
// options, the KvStore over an open database, and the file system that pins a read-only open's
// table files. Private to storage/rocksdb/: nothing RocksDB-typed leaves the backend.
#ifndef GRIDSTORE_STORAGE_ROCKSDB_ROCKSDB_INTERNAL_H_
#define GRIDSTORE_STORAGE_ROCKSDB_ROCKSDB_INTERNAL_H_

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/file_system.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>

#include <array>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gridstore/storage/kv_store.h"
#include "gridstore/storage/rocksdb/rocksdb_kv_store.h"

namespace gridstore::storage::internal_rocksdb {

// Column family names are part of the on-disk format: index with static_cast<int>(Table).
inline constexpr std::array<const char*, kNumTables> kColumnFamilyNames = {"meta", "data", "index"};

inline rocksdb::Slice ToSlice(std::string_view s) { return rocksdb::Slice(s.data(), s.size()); }
inline std::string_view ToView(const rocksdb::Slice& s) {
  return std::string_view(s.data(), s.size());
}
inline bool Contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

// The single place where rocksdb::Status becomes a gridstore::Status. `what` says what was being
// done ("cannot open store at '/x'"); the RocksDB text follows it. `path` is the store's.
Status ToStatus(const rocksdb::Status& s, std::string_view what, const std::string& path);

// The options of `table`'s column family, its blocks cached in `cache` (the data table) or
// `catalog_cache` (the meta and index tables); a null `cache` makes none (no_block_cache).
rocksdb::ColumnFamilyOptions TableOptions(Table table, const std::shared_ptr<rocksdb::Cache>& cache,
                                          const std::shared_ptr<rocksdb::Cache>& catalog_cache);
// The database options for opening (not creating) the store at `path`.
rocksdb::DBOptions MakeDbOptions(const RocksDbOptions& options, const std::string& path);

// The KvStore over an open database. `handles` are every handle the open returned (destroyed
// before the database is closed); `tables` those of GridStore's tables, indexed by Table. `env`,
// if not null, is the one the database was opened with: it is destroyed after the database.
std::unique_ptr<KvStore> NewRocksDbKvStore(
    std::string path, bool read_only, std::unique_ptr<rocksdb::DB> db,
    std::vector<rocksdb::ColumnFamilyHandle*> handles,
    std::array<rocksdb::ColumnFamilyHandle*, kNumTables> tables,
    std::unique_ptr<rocksdb::Env> env = nullptr);

// A read-only open's table files, kept readable after a writer in another process deletes them
// (pinned_table_files.cc).
//
// A read-only open reads the manifest once and never sees a later version. A writer beside it
// compacts, and deletes the table files the reader's version names. Opening every table file at
// open (max_open_files = -1) keeps their descriptors, so the deleted files stay readable; a lazy
// open (open_tables_lazily) opens a file when a read first needs it, and found it gone ("No such
// file ... 000204.ldb", 1 read in ~2,000 beside the crash harness's writer). Holding a descriptor
// costs one open(2), not the footer, index and filter reads that make eager opening slow, so the
// lazy open pins every file of its version and opens each later through /proc/self/fd.
//
// The default file system, except that a pinned table file is opened through its descriptor.
// Pin() runs once, before the database is handed to anyone; afterwards the map is only read, so
// reads on many threads need no lock.
class TablePinningFileSystem final : public rocksdb::FileSystemWrapper {
 public:
  TablePinningFileSystem();
  ~TablePinningFileSystem() override;
  TablePinningFileSystem(const TablePinningFileSystem&) = delete;
  TablePinningFileSystem& operator=(const TablePinningFileSystem&) = delete;

  const char* Name() const override { return "GridStoreTablePinning"; }

  // Opens a descriptor on every table file of `db`'s version. PathNotFound if one is gone
  // already: a writer deleted it after the open read the manifest, and the open must be retried.
  rocksdb::Status Pin(rocksdb::DB* db);

  rocksdb::IOStatus NewRandomAccessFile(const std::string& fname,
                                        const rocksdb::FileOptions& options,
                                        std::unique_ptr<rocksdb::FSRandomAccessFile>* result,
                                        rocksdb::IODebugContext* dbg) override;

 private:
  std::unordered_map<std::string, int> fds_;  // by file name ("000204.sst")
};

}  // namespace gridstore::storage::internal_rocksdb

#endif  // GRIDSTORE_STORAGE_ROCKSDB_ROCKSDB_INTERNAL_H_
