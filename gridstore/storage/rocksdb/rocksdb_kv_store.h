// Copyright 2026 The GridStore Authors.
//
// The embedded default backend: RocksDB, one column family per Table. This header exposes only a
// factory; RocksDB types never leave storage/rocksdb/*.cc.
#ifndef GRIDSTORE_STORAGE_ROCKSDB_ROCKSDB_KV_STORE_H_
#define GRIDSTORE_STORAGE_ROCKSDB_ROCKSDB_KV_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "gridstore/storage/kv_store.h"
#include "gridstore/util/result.h"

namespace gridstore::storage {

struct RocksDbOptions {
  // Create the database (and its column families) if `path` holds none. If false, opening a
  // missing path or an empty directory gives NotFound naming the path; a regular file or a
  // non-empty directory that is not a store gives FailedPrecondition.
  bool create_if_missing = true;
  // Open without taking the write lock; every write then fails with FailedPrecondition. Lets
  // readers use a store on a read-only file system or one another process is writing.
  bool read_only = false;
  // RocksDB's own cache of SST blocks, in bytes (it holds compressed grid blocks; the grid layer
  // caches decompressed ones separately).
  uint64_t block_cache_bytes = 64ull << 20;
  // A cache of its own for the meta and index tables' SST blocks (held uncompressed), so that
  // grid reads do not evict them: meta queries read a meta and postings per candidate, and at a
  // million datasets those tables take a few hundred MB. It fills only as blocks are read.
  uint64_t catalog_cache_bytes = 512ull << 20;
  // Background flush and compaction threads.
  int background_threads = 2;
  // Open each table file when a read first needs it, keeping few open (for a short-lived reader,
  // such as one command, that reads a few of them); otherwise all are opened at once and kept.
  bool open_tables_lazily = false;
  // Runs on a store this call creates, before anyone else can see it (the caller's marker goes
  // here). May be empty.
  std::function<Status(KvStore*)> initialize;
};

// Opens (or creates) the RocksDB store at `path`.
//   - A new store is built in a temporary directory beside `path` (its tables, then
//     `initialize`), flushed, and renamed into place: other processes see no store or a complete
//     one, and of two processes creating one store at once, the loser opens the winner's.
//   - An existing database is opened only if its column families are exactly GridStore's; a
//     foreign RocksDB database is refused, never adopted. A directory holding anything but a
//     database is refused too.
//   - A write-ahead log damaged before its last record, missing or shorter than the manifest
//     recorded is DataLoss naming the store; a record torn at the end by a killed writer (never
//     acknowledged) is dropped.
//   - A read-only open retries while a writer in another process rotates its files.
// Errors: NotFound (no store and !create_if_missing), FailedPrecondition (not a GridStore store,
// locked by another process, read-only file system, permission denied), Unavailable (other I/O
// errors), DataLoss (corruption). Each message names the path.
Result<std::unique_ptr<KvStore>> OpenRocksDbKvStore(const RocksDbOptions& options,
                                                    const std::string& path);

}  // namespace gridstore::storage

#endif  // GRIDSTORE_STORAGE_ROCKSDB_ROCKSDB_KV_STORE_H_
