// Copyright 2026 The GridStore Authors.
//
// What the RocksDB backend's files share: the column family names (part of the on-disk format),
// rocksdb::Status to gridstore::Status (the only place it happens), the column family and DB
// options, and the KvStore over an open database. Private to storage/rocksdb/: nothing
// RocksDB-typed leaves the backend.
#ifndef GRIDSTORE_STORAGE_ROCKSDB_ROCKSDB_INTERNAL_H_
#define GRIDSTORE_STORAGE_ROCKSDB_ROCKSDB_INTERNAL_H_

#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/env.h>
#include <rocksdb/options.h>
#include <rocksdb/slice.h>

#include <array>
#include <memory>
#include <string>
#include <string_view>
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
// `catalog_cache` (the meta and index tables).
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

}  // namespace gridstore::storage::internal_rocksdb

#endif  // GRIDSTORE_STORAGE_ROCKSDB_ROCKSDB_INTERNAL_H_
