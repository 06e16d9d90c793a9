// Copyright 2026 The GridStore Authors.
//
// Options of GridStore's RocksDB databases and the mapping of RocksDB errors.
#include <rocksdb/convenience.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <cstdarg>
#include <filesystem>

#include "gridstore/storage/rocksdb/rocksdb_internal.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::storage::internal_rocksdb {
namespace {

namespace fs = std::filesystem;

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

}  // namespace

rocksdb::ColumnFamilyOptions TableOptions(Table table, const std::shared_ptr<rocksdb::Cache>& cache,
                                          const std::shared_ptr<rocksdb::Cache>& catalog_cache) {
  rocksdb::ColumnFamilyOptions cf;
  rocksdb::BlockBasedTableOptions bbt;
  bbt.block_cache = table == Table::kData ? cache : catalog_cache;
  bbt.no_block_cache = bbt.block_cache == nullptr;  // none given: none made
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
    // Queries walk the catalog with iterators, which consult every level-0 file: compact them
    // into level 1 from 2 files rather than 4 (a million metas: the walks' p50 about 20% lower, the
    // load no slower; docs/benchmarks.md, "Meta queries").
    cf.level0_file_num_compaction_trigger = 2;
    // Smaller memtables: a catalog write inserts nine keys per meta at random places, and a skip
    // list of 8 MiB stays in the CPU caches better than one of 64 MiB. Loading a million metas
    // took 38 s with 64 MiB, 26-28 s with 8; with 4 MiB the compactions fell behind (writes
    // stalled at 20 level-0 files: 33 s). The walks are no slower (docs/benchmarks.md, "Meta
    // queries"), and an import writes little here.
    cf.write_buffer_size = 8 << 20;
    if (table == Table::kMeta) {
      // Writing a meta reads its predecessor (and checks it again under the write lock); for a
      // new dataset a bloom filter answers "absent" without reading a data block. Table files
      // written without one are read as before.
      bbt.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
      bbt.whole_key_filtering = true;
      // The same for the memtable: the reads of a bulk meta write (predecessors, then the
      // expectations) skip its skip list for the ids it does not hold.
      cf.memtable_prefix_bloom_size_ratio = 0.05;
      cf.memtable_whole_key_filtering = true;
    }
  }
  cf.table_factory.reset(rocksdb::NewBlockBasedTableFactory(bbt));
  return cf;
}

namespace {

// Table files of the store at `path` (0 if it cannot be listed: RocksDB reports that itself).
int CountTableFiles(const std::string& path) {
  std::error_code ec;
  int n = 0;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->path().extension() == ".sst") ++n;
  }
  return n;
}

}  // namespace

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
  if (options.open_tables_lazily) {
    // A table file is opened (its footer, index and filter read) when a read first needs it, not
    // all at open: a short command reads a few of them. With max_open_files = -1 (the default)
    // RocksDB opens every one; with a bound it opens at most a quarter of its table cache (the
    // bound less 10) at open, so 20, the least it takes, opens 2. The statistics it would read
    // from the table files at open only steer compactions, which a read-only open never runs.
    // Measured on the fetch benchmark's store (38 table files): `info` 13.9 -> 7.9 ms of CPU, a
    // point series to npy 18.1 -> 14.5 ms (docs/benchmarks.md, "The command, whole process").
    db_options.max_open_files = 20;
    db_options.skip_stats_update_on_db_open = true;
  }
  return db_options;
}

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
        return Status::FailedPrecondition("store at " + Quote(path) +
                                          " is in use by another process (or is already open in "
                                          "this one): " +
                                          text);
      }
      if (Contains(text, "Read-only file system")) {
        return Status::FailedPrecondition(
            "store at " + Quote(path) +
            " is on a read-only file system (open it read-only): " + msg);
      }
      if (Contains(text, "Permission denied")) {
        return Status::FailedPrecondition("permission denied on store at " + Quote(path) + ": " +
                                          msg);
      }
      return Status::Unavailable(msg);
    }
    default:
      return Status::Internal(msg);
  }
}

}  // namespace gridstore::storage::internal_rocksdb
