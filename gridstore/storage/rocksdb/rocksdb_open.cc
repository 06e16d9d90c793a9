// Copyright 2026 The GridStore Authors.
//
// Opening and creating RocksDB stores: what the path holds decides (a store, nothing, an empty
// folder, something else); read-only opens retry races with a writer; a new store is built in a
// temporary sibling folder and renamed into place, so nobody ever sees half of one.
#include <fcntl.h>
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <random>
#include <thread>

#include "gridstore/storage/rocksdb/rocksdb_internal.h"
#include "gridstore/storage/rocksdb/rocksdb_kv_store.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::storage {
namespace {

namespace fs = std::filesystem;
using internal_rocksdb::Contains;
using internal_rocksdb::kColumnFamilyNames;
using internal_rocksdb::MakeDbOptions;
using internal_rocksdb::NewRocksDbKvStore;
using internal_rocksdb::TableOptions;
using internal_rocksdb::TablePinningFileSystem;
using internal_rocksdb::ToStatus;

// The default column family (unused) and GridStore's tables, in Table order after it.
std::vector<rocksdb::ColumnFamilyDescriptor> Descriptors(
    const std::shared_ptr<rocksdb::Cache>& cache,
    const std::shared_ptr<rocksdb::Cache>& catalog_cache, bool read_only = false) {
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors;
  descriptors.emplace_back(rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions());
  for (int t = 0; t < kNumTables; ++t) {
    descriptors.emplace_back(kColumnFamilyNames[t],
                             TableOptions(static_cast<Table>(t), cache, catalog_cache));
    // A read-only open still makes each table an empty memtable, which nothing is written to:
    // no bloom filter for it (the meta table's was 400 KiB allocated and zeroed per open).
    if (read_only) descriptors.back().options.memtable_prefix_bloom_size_ratio = 0;
  }
  return descriptors;
}

// What a store path holds before RocksDB is let near it.
enum class PathKind { kMissing, kEmptyDirectory, kDatabase, kOther };

Result<PathKind> ClassifyPath(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (st.type() == fs::file_type::not_found) return PathKind::kMissing;
  if (ec) {
    return Status::Unavailable("cannot inspect store path " + Quote(path) + ": " + ec.message());
  }
  if (st.type() != fs::file_type::directory) return PathKind::kOther;
  if (fs::exists(fs::path(path) / "CURRENT", ec)) return PathKind::kDatabase;
  fs::directory_iterator it(path, ec);
  if (ec) {
    return Status::FailedPrecondition("cannot list store directory " + Quote(path) + ": " +
                                      ec.message());
  }
  return it == fs::directory_iterator() ? PathKind::kEmptyDirectory : PathKind::kOther;
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
  const std::string open_context = "cannot open store at " + Quote(path);
  rocksdb::DBOptions db_options = MakeDbOptions(options, path);
  // A read-only open that opens table files lazily pins them (TablePinningFileSystem).
  const bool pin_tables = options.read_only && options.open_tables_lazily;
  // A lazy read-only open is a short command's: it reads each block once (the grid layer caches
  // the frames it decodes), and RocksDB's cache of the data table only copied every block read
  // into memory of its own.
  const std::shared_ptr<rocksdb::Cache> cache =
      pin_tables ? nullptr : rocksdb::NewLRUCache(static_cast<size_t>(options.block_cache_bytes));
  const std::shared_ptr<rocksdb::Cache> catalog_cache =
      rocksdb::NewLRUCache(static_cast<size_t>(options.catalog_cache_bytes));
  rocksdb::Status s;
  for (int attempt = 1;; ++attempt) {
    // Each try pins afresh; db_options.env must never name a previous try's env.
    std::shared_ptr<TablePinningFileSystem> pinning;
    std::unique_ptr<rocksdb::Env> env;
    if (pin_tables) {
      pinning = std::make_shared<TablePinningFileSystem>();
      env = rocksdb::NewCompositeEnv(pinning);
      db_options.env = env.get();
    }
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
            Quote(path) + " is not a GridStore store (a RocksDB database with column families " +
            names + "; GridStore's are 'meta', 'data' and 'index')");
      }
      const std::vector<rocksdb::ColumnFamilyDescriptor> descriptors =
          Descriptors(cache, catalog_cache, options.read_only);
      rocksdb::DB* raw_db = nullptr;
      std::vector<rocksdb::ColumnFamilyHandle*> handles;
      s = options.read_only
              ? rocksdb::DB::OpenForReadOnly(db_options, path, descriptors, &handles, &raw_db)
              : rocksdb::DB::Open(db_options, path, descriptors, &handles, &raw_db);
      if (s.ok()) {
        std::array<rocksdb::ColumnFamilyHandle*, kNumTables> tables{};
        for (int t = 0; t < kNumTables; ++t) tables[t] = handles[t + 1];  // follow descriptors
        if (pinning) s = pinning->Pin(raw_db);
        std::unique_ptr<KvStore> store =
            NewRocksDbKvStore(path, options.read_only, std::unique_ptr<rocksdb::DB>(raw_db),
                              std::move(handles), tables, std::move(env));
        if (s.ok()) return store;
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
  const std::vector<rocksdb::ColumnFamilyDescriptor> descriptors = Descriptors(cache, cache);
  rocksdb::DB* raw_db = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  rocksdb::Status s = rocksdb::DB::Open(db_options, dir, descriptors, &handles, &raw_db);
  if (!s.ok()) return ToStatus(s, open_context, dir);
  std::array<rocksdb::ColumnFamilyHandle*, kNumTables> tables{};
  for (int t = 0; t < kNumTables; ++t) tables[t] = handles[t + 1];
  std::unique_ptr<KvStore> fresh = NewRocksDbKvStore(
      dir, /*read_only=*/false, std::unique_ptr<rocksdb::DB>(raw_db), std::move(handles), tables);
  Status init = options.initialize ? options.initialize(fresh.get()) : Status::OK();
  if (init.ok()) init = fresh->Flush();
  return init.WithContext(open_context);
}

// rename(2) also replaces an empty directory atomically (one the user made for the store); if
// someone filled it meanwhile, the rename fails and their contents stay.
Result<std::unique_ptr<KvStore>> CreateNew(const RocksDbOptions& options, const std::string& path) {
  const std::string open_context = "cannot create store at " + Quote(path);
  fs::path target(path);
  if (target.filename().empty()) target = target.parent_path();  // "dir/" names "dir"
  const fs::path parent = target.has_parent_path() ? target.parent_path() : fs::path(".");
  std::error_code ec;
  // A new store may be nested deeper than existing folders.
  fs::create_directories(parent, ec);
  if (ec) {
    const std::string msg =
        open_context + ": cannot create the folder " + Quote(parent.string()) + ": " + ec.message();
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
            return Status::DataLoss("the store at " + Quote(path) +
                                    " is damaged: its CURRENT file (which names the live "
                                    "MANIFEST) is missing; restore the store from a copy");
          }
        }
      }
      return Status::FailedPrecondition(Quote(path) + " is not a GridStore store (" +
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
    return Status::NotFound("no GridStore store at " + Quote(path));
  }
  return CreateNew(options, path);
}

}  // namespace gridstore::storage
