// Copyright 2026 The GridStore Authors.
//
// A read-only open's table files, kept readable after a writer in another process deletes them.
//
// A read-only open reads the manifest once and never sees a later version. A writer beside it
// compacts, and deletes the table files the reader's version names. Opening every table file at
// open (max_open_files = -1) keeps their descriptors, so the deleted files stay readable; a lazy
// open (open_tables_lazily) opens a file when a read first needs it, and found it gone ("No such
// file ... 000204.ldb", 1 read in ~2,000 beside the crash harness's writer). Holding a descriptor
// costs one open(2), not the footer, index and filter reads that make eager opening slow, so the
// lazy open pins every file of its version and opens each later through /proc/self/fd.
#ifndef GRIDSTORE_STORAGE_ROCKSDB_PINNED_TABLE_FILES_H_
#define GRIDSTORE_STORAGE_ROCKSDB_PINNED_TABLE_FILES_H_

#include <rocksdb/db.h>
#include <rocksdb/file_system.h>

#include <memory>
#include <string>
#include <unordered_map>

namespace gridstore::storage::internal_rocksdb {

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

#endif  // GRIDSTORE_STORAGE_ROCKSDB_PINNED_TABLE_FILES_H_
