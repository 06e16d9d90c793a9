// Copyright 2026 The GridStore Authors.
//
// The RocksDB backend: the conformance suite, plus what only a store on disk has (persistence,
// locking, read-only opens, error conversion on open).

#include "gridstore/storage/rocksdb/rocksdb_kv_store.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>

#include "tests/storage/kv_store_conformance.h"
#include "tests/test_util.h"

namespace gridstore::testing {
namespace {

namespace fs = std::filesystem;
using namespace std::string_literals;
using storage::KeyRange;
using storage::KvStore;
using storage::OpenRocksDbKvStore;
using storage::ReadOptions;
using storage::RocksDbOptions;
using storage::Table;
using storage::WriteBatch;
using storage::WriteOptions;

// Small caches and few threads: tests open many stores on a shared 2-core machine.
RocksDbOptions TestOptions() {
  RocksDbOptions options;
  options.block_cache_bytes = 8 << 20;
  return options;
}

INSTANTIATE_TEST_SUITE_P(
    RocksDb, KvStoreConformanceTest,
    ::testing::Values(KvStoreFactory{
        "RocksDb", [](const std::string& dir) { return OpenRocksDbKvStore(TestOptions(), dir); }}),
    KvStoreFactoryName);

// Every file below `dir` with its size, to see whether an operation touched a directory.
std::map<std::string, uintmax_t> Snapshot(const fs::path& dir) {
  std::map<std::string, uintmax_t> files;
  if (!fs::exists(dir)) return files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    files[entry.path().string()] = entry.is_regular_file() ? entry.file_size() : 0;
  }
  return files;
}

class RocksDbKvStoreTest : public ::testing::Test {
 protected:
  Result<std::unique_ptr<KvStore>> Open(bool create_if_missing = true, bool read_only = false) {
    RocksDbOptions options = TestOptions();
    options.create_if_missing = create_if_missing;
    options.read_only = read_only;
    return OpenRocksDbKvStore(options, path_);
  }

  ScopedTempDir dir_;
  // A member, not a function returning a temporary: EXPECT_STATUS keeps its substrings as
  // const char* past the end of the expression that made them.
  const std::string path_ = dir_.Sub("db");
};

TEST_F(RocksDbKvStoreTest, DataSurvivesCloseAndReopen) {
  {
    ASSERT_OK_AND_ASSIGN(auto store, Open());
    WriteBatch batch;
    batch.Put(Table::kMeta, "ds", "meta");
    batch.Put(Table::kData, "ds/0", "block");
    batch.Put(Table::kIndex, "status=DONE/ds", "");
    ASSERT_OK(store->Write(WriteOptions{}, batch));
    ASSERT_OK(store->Put(WriteOptions{}, Table::kData, "ds/1", "block 1"));
    ASSERT_OK(store->Delete(WriteOptions{}, Table::kData, "ds/1"));
  }
  ASSERT_OK_AND_ASSIGN(auto store, Open(/*create_if_missing=*/false));
  std::string value;
  ASSERT_OK(store->Get(ReadOptions{}, Table::kMeta, "ds", &value));
  EXPECT_EQ(value, "meta");
  ASSERT_OK(store->Get(ReadOptions{}, Table::kData, "ds/0", &value));
  EXPECT_EQ(value, "block");
  ASSERT_OK(store->Get(ReadOptions{}, Table::kIndex, "status=DONE/ds", &value));
  EXPECT_EQ(value, "");
  EXPECT_STATUS(store->Get(ReadOptions{}, Table::kData, "ds/1", &value), kNotFound, "");
}

TEST_F(RocksDbKvStoreTest, SyncedWritesSurviveReopen) {
  {
    ASSERT_OK_AND_ASSIGN(auto store, Open());
    ASSERT_OK(store->Put(WriteOptions{}, Table::kData, "k", "v"));
    EXPECT_OK(store->Sync());
  }
  ASSERT_OK_AND_ASSIGN(auto store, Open(false));
  std::string value;
  ASSERT_OK(store->Get(ReadOptions{}, Table::kData, "k", &value));
  EXPECT_EQ(value, "v");
}

TEST_F(RocksDbKvStoreTest, CreateIfMissingFalseOnEmptyDirectoryIsNotFoundAndCreatesNothing) {
  fs::create_directory(path_);
  EXPECT_STATUS(Open(/*create_if_missing=*/false), kNotFound, "no GridStore store", path_.c_str());
  EXPECT_TRUE(fs::is_empty(path_));
}

TEST_F(RocksDbKvStoreTest, CreateIfMissingFalseOnMissingPathIsNotFoundAndCreatesNothing) {
  EXPECT_STATUS(Open(/*create_if_missing=*/false), kNotFound, path_.c_str());
  EXPECT_FALSE(fs::exists(path_));
}

TEST_F(RocksDbKvStoreTest, CreateIfMissingCreatesNestedDirectories) {
  RocksDbOptions options = TestOptions();
  const std::string nested = dir_.Sub("a/b/c");
  ASSERT_OK_AND_ASSIGN(auto store, OpenRocksDbKvStore(options, nested));
  EXPECT_TRUE(fs::exists(fs::path(nested) / "CURRENT"));
}

TEST_F(RocksDbKvStoreTest, OpeningTheSamePathTwiceIsFailedPreconditionInUse) {
  ASSERT_OK_AND_ASSIGN(auto first, Open());
  EXPECT_STATUS(Open(), kFailedPrecondition, "in use", path_.c_str());
  // The first handle is unharmed.
  ASSERT_OK(first->Put(WriteOptions{}, Table::kMeta, "k", "v"));
}

TEST_F(RocksDbKvStoreTest, ReadOnlyOpenReadsButRefusesEveryWrite) {
  {
    ASSERT_OK_AND_ASSIGN(auto store, Open());
    ASSERT_OK(store->Put(WriteOptions{}, Table::kMeta, "a", "1"));
    ASSERT_OK(store->Put(WriteOptions{}, Table::kMeta, "b", "2"));
  }
  ASSERT_OK_AND_ASSIGN(auto store, Open(/*create_if_missing=*/false, /*read_only=*/true));
  std::string value;
  ASSERT_OK(store->Get(ReadOptions{}, Table::kMeta, "a", &value));
  EXPECT_EQ(value, "1");
  int scanned = 0;
  ASSERT_OK(store->Scan(ReadOptions{}, Table::kMeta, KeyRange{},
                        [&](std::string_view, std::string_view) { return ++scanned > 0; }));
  EXPECT_EQ(scanned, 2);

  EXPECT_STATUS(store->Put(WriteOptions{}, Table::kMeta, "c", "3"), kFailedPrecondition,
                "read-only", path_.c_str());
  EXPECT_STATUS(store->Delete(WriteOptions{}, Table::kMeta, "a"), kFailedPrecondition, "read-only");
  EXPECT_STATUS(store->DeleteRange(WriteOptions{}, Table::kMeta, KeyRange{"a", "z"}),
                kFailedPrecondition, "read-only");
  WriteBatch batch;
  batch.Put(Table::kMeta, "c", "3");
  EXPECT_STATUS(store->Write(WriteOptions{}, batch), kFailedPrecondition, "read-only");
  EXPECT_OK(store->Sync());
  ASSERT_OK(store->Get(ReadOptions{}, Table::kMeta, "a", &value));
}

// The table files of the store at `dir` this process holds open (its descriptors naming them).
int OpenTableFiles(const std::string& dir) {
  int n = 0;
  for (const auto& fd : fs::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const fs::path target = fs::read_symlink(fd.path(), ec);
    if (!ec && target.extension() == ".sst" && target.parent_path() == fs::absolute(dir)) ++n;
  }
  return n;
}

// A short-lived reader opens the table files its reads need, not all of them at open (issue 33):
// five files (three of the data table, below its compaction trigger), two opened at open, and
// every value still read.
TEST_F(RocksDbKvStoreTest, LazyReadOnlyOpenOpensTableFilesAsReadsNeedThem) {
  {
    ASSERT_OK_AND_ASSIGN(auto store, Open());
    for (int i = 0; i < 3; ++i) {
      ASSERT_OK(store->Put(WriteOptions{}, Table::kData, "ds/" + std::to_string(i), "block"));
      ASSERT_OK(store->Flush());
    }
    ASSERT_OK(store->Put(WriteOptions{}, Table::kMeta, "ds", "meta"));
    ASSERT_OK(store->Put(WriteOptions{}, Table::kIndex, "status=DONE/ds", ""));
    ASSERT_OK(store->Flush());
  }
  int files = 0;
  for (const auto& entry : fs::directory_iterator(path_))
    files += entry.path().extension() == ".sst";
  ASSERT_EQ(files, 5);
  {
    ASSERT_OK_AND_ASSIGN(auto eager, Open(false, /*read_only=*/true));
    EXPECT_EQ(OpenTableFiles(path_), 5);
  }
  RocksDbOptions options = TestOptions();
  options.create_if_missing = false;
  options.read_only = true;
  options.open_tables_lazily = true;
  ASSERT_OK_AND_ASSIGN(auto lazy, OpenRocksDbKvStore(options, path_));
  // Each file is held once by its pin (a bare descriptor, nothing read); RocksDB opened two.
  EXPECT_LE(OpenTableFiles(path_), 5 + 2);
  std::string value;
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(lazy->Get(ReadOptions{}, Table::kData, "ds/" + std::to_string(i), &value));
    EXPECT_EQ(value, "block");
  }
  ASSERT_OK(lazy->Get(ReadOptions{}, Table::kMeta, "ds", &value));
  EXPECT_EQ(value, "meta");
  ASSERT_OK(lazy->Get(ReadOptions{}, Table::kIndex, "status=DONE/ds", &value));
  EXPECT_STATUS(lazy->Get(ReadOptions{}, Table::kData, "ds/9", &value), kNotFound, "");
  EXPECT_EQ(OpenTableFiles(path_), 5 + 5);
}

// A lazy reader beside a writer in another process: the writer compacts, deleting the table
// files of the reader's version before the reader first reads them. The reader still reads what
// its version holds (the crash harness found "No such file ... .ldb" once in ~2,000 reads).
// RocksDB deletes obsolete files without regard to a read-only instance, in this process too.
TEST_F(RocksDbKvStoreTest, LazyReaderReadsTableFilesAWriterCompactedAway) {
  ASSERT_OK_AND_ASSIGN(auto writer, Open());
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(writer->Put(WriteOptions{}, Table::kData, "ds/" + std::to_string(i), "old"));
    ASSERT_OK(writer->Flush());
  }
  RocksDbOptions options = TestOptions();
  options.create_if_missing = false;
  options.read_only = true;
  options.open_tables_lazily = true;
  ASSERT_OK_AND_ASSIGN(auto reader, OpenRocksDbKvStore(options, path_));
  std::set<std::string> before;
  for (const auto& entry : fs::directory_iterator(path_)) {
    if (entry.path().extension() == ".sst") before.insert(entry.path().filename());
  }
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(writer->Put(WriteOptions{}, Table::kData, "ds/" + std::to_string(i), "new"));
  }
  ASSERT_OK(writer->Flush());
  ASSERT_OK(writer->CompactRange(Table::kData, KeyRange{}));
  int gone = 0;
  for (const std::string& name : before) gone += !fs::exists(fs::path(path_) / name);
  ASSERT_GE(gone, 3) << "the compaction should have deleted the reader's data table files";
  std::string value;
  for (int i = 0; i < 3; ++i) {
    ASSERT_OK(reader->Get(ReadOptions{}, Table::kData, "ds/" + std::to_string(i), &value));
    EXPECT_EQ(value, "old");  // the reader's version, not the writer's newer one
  }
}

TEST_F(RocksDbKvStoreTest, ReadOnlyOpenLeavesTheDirectoryUntouched) {
  { ASSERT_OK_AND_ASSIGN(auto store, Open()); }
  const auto before = Snapshot(path_);
  {
    ASSERT_OK_AND_ASSIGN(auto store, Open(false, /*read_only=*/true));
    std::string value;
    EXPECT_STATUS(store->Get(ReadOptions{}, Table::kData, "k", &value), kNotFound, "");
  }
  EXPECT_EQ(Snapshot(path_), before);
}

TEST_F(RocksDbKvStoreTest, ReadOnlyOpenOfMissingStoreIsNotFound) {
  EXPECT_STATUS(Open(/*create_if_missing=*/true, /*read_only=*/true), kNotFound, path_.c_str());
  EXPECT_FALSE(fs::exists(path_));
}

TEST_F(RocksDbKvStoreTest, ReadOnlyOpenWorksWhileAWriterHoldsTheLock) {
  ASSERT_OK_AND_ASSIGN(auto writer, Open());
  ASSERT_OK(writer->Put(WriteOptions{}, Table::kMeta, "k", "v"));
  ASSERT_OK_AND_ASSIGN(auto reader, Open(false, /*read_only=*/true));
  std::string value;
  ASSERT_OK(reader->Get(ReadOptions{}, Table::kMeta, "k", &value));
  EXPECT_EQ(value, "v");
}

TEST_F(RocksDbKvStoreTest, RegularFileAsPathIsFailedPrecondition) {
  std::ofstream(path_) << "not a database";
  EXPECT_STATUS(Open(), kFailedPrecondition, "not a GridStore store", path_.c_str());
  EXPECT_TRUE(fs::is_regular_file(path_));
}

TEST_F(RocksDbKvStoreTest, CorruptCurrentFileIsDataLoss) {
  { ASSERT_OK_AND_ASSIGN(auto store, Open()); }
  std::ofstream(fs::path(path_) / "CURRENT", std::ios::trunc) << "garbage";
  EXPECT_STATUS(Open(false), kDataLoss, path_.c_str());
}

TEST_F(RocksDbKvStoreTest, UnwritableDirectoryIsFailedPrecondition) {
  fs::create_directory(path_);
  fs::permissions(path_, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                             fs::perms::group_exec | fs::perms::others_read |
                             fs::perms::others_exec);
  if (geteuid() != 0) {
    EXPECT_STATUS(Open(), kFailedPrecondition, path_.c_str());
  } else {
    // Root ignores directory permissions (CI runs as root), so the open runs in a child process
    // that drops to the unprivileged user "nobody" first. Exit code 0 means the expected error.
    pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      if (setgid(65534) != 0 || setuid(65534) != 0) _exit(2);
      auto opened = OpenRocksDbKvStore(RocksDbOptions{}, path_);
      const bool expected = !opened.ok() && opened.status().IsFailedPrecondition() &&
                            opened.status().message().find(path_) != std::string::npos;
      _exit(expected ? 0 : 1);
    }
    int wstatus = 0;
    ASSERT_EQ(waitpid(pid, &wstatus, 0), pid);
    ASSERT_TRUE(WIFEXITED(wstatus));
    EXPECT_EQ(WEXITSTATUS(wstatus), 0) << "1: wrong error, 2: could not drop privileges";
  }
  fs::permissions(path_, fs::perms::owner_all);
}

TEST_F(RocksDbKvStoreTest, ApproximateSizeCountsDataOnDisk) {
  // Incompressible data in the data table, which RocksDB stores uncompressed.
  {
    ASSERT_OK_AND_ASSIGN(auto store, Open());
    std::mt19937_64 rng(5);
    for (int i = 0; i < 64; ++i) {
      std::string v(64 << 10, '\0');
      for (size_t j = 0; j < v.size(); j += 8) {
        const uint64_t r = rng();
        std::memcpy(&v[j], &r, 8);
      }
      ASSERT_OK(store->Put(WriteOptions{}, Table::kData, "blk/" + std::to_string(1000 + i), v));
    }
  }
  // Reopening flushes the recovered write-ahead log into table files.
  ASSERT_OK_AND_ASSIGN(auto store, Open(false));
  ASSERT_OK_AND_ASSIGN(uint64_t all, store->ApproximateSize(Table::kData, KeyRange{}));
  EXPECT_GE(all, 3u << 20);
  EXPECT_LE(all, 6u << 20);
  ASSERT_OK_AND_ASSIGN(uint64_t half,
                       store->ApproximateSize(Table::kData, KeyRange{"blk/1000", "blk/1032"}));
  EXPECT_GT(half, 1u << 20);
  EXPECT_LT(half, all);
  ASSERT_OK_AND_ASSIGN(uint64_t none, store->ApproximateSize(Table::kData, KeyRange{"c", "d"}));
  EXPECT_EQ(none, 0u);
}

std::string ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Bytes of every file below `dir` whose name ends with `suffix`.
uintmax_t BytesOf(const fs::path& dir, std::string_view suffix) {
  uintmax_t total = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.size() >= suffix.size() &&
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
      total += entry.file_size();
    }
  }
  return total;
}

uintmax_t DirectoryBytes(const fs::path& dir) {
  uintmax_t total = 0;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) total += entry.file_size();
  }
  return total;
}

// A RocksDB database some other program made: only the default column family, with a key.
void MakeForeignDatabase(const std::string& path, const std::vector<std::string>& families) {
  rocksdb::Options options;
  options.create_if_missing = true;
  options.create_missing_column_families = true;
  std::vector<rocksdb::ColumnFamilyDescriptor> descriptors = {
      {rocksdb::kDefaultColumnFamilyName, rocksdb::ColumnFamilyOptions()}};
  for (const std::string& f : families) descriptors.emplace_back(f, rocksdb::ColumnFamilyOptions());
  rocksdb::DB* db = nullptr;
  std::vector<rocksdb::ColumnFamilyHandle*> handles;
  ASSERT_TRUE(
      rocksdb::DB::Open(rocksdb::DBOptions(options), path, descriptors, &handles, &db).ok());
  ASSERT_TRUE(db->Put(rocksdb::WriteOptions(), "theirs", "value").ok());
  for (auto* h : handles) ASSERT_TRUE(db->DestroyColumnFamilyHandle(h).ok());
  delete db;
}

// Issue 12 item 8: a database GridStore did not make is refused by every open, never adopted.
TEST_F(RocksDbKvStoreTest, ForeignDatabaseIsRefusedAndLeftAlone) {
  for (const auto& families : {std::vector<std::string>{}, std::vector<std::string>{"meta"},
                               std::vector<std::string>{"meta", "data", "index", "extra"}}) {
    ScopedTempDir dir;
    const std::string path = dir.Sub("foreign");
    MakeForeignDatabase(path, families);
    ASSERT_FALSE(HasFatalFailure());
    const auto before = Snapshot(path);
    for (bool read_only : {false, true}) {
      RocksDbOptions options = TestOptions();
      options.read_only = read_only;
      EXPECT_STATUS(OpenRocksDbKvStore(options, path), kFailedPrecondition, "not a GridStore store",
                    "column families");
    }
    EXPECT_EQ(Snapshot(path), before);
  }
}

// A new store is built aside and moved into place whole: `initialize` runs before anyone can
// see it, and a failing one leaves nothing behind.
TEST_F(RocksDbKvStoreTest, NewStoreIsCreatedWholeOrNotAtAll) {
  RocksDbOptions options = TestOptions();
  options.initialize = [](KvStore* kv) {
    return kv->Put(WriteOptions{}, Table::kMeta, "marker", "1");
  };
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenRocksDbKvStore(options, path_));
    std::string value;
    ASSERT_OK(store->Get(ReadOptions{}, Table::kMeta, "marker", &value));
  }
  // Only the store is in the parent folder: no temporary left.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_.path()), fs::directory_iterator()), 1);

  const std::string other = dir_.Sub("failed");
  options.initialize = [](KvStore*) { return Status::Unavailable("disk on fire"); };
  EXPECT_STATUS(OpenRocksDbKvStore(options, other), kUnavailable, "disk on fire");
  EXPECT_FALSE(fs::exists(other));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_.path()), fs::directory_iterator()), 1);

  // An empty directory made for the store is filled atomically too.
  const std::string empty = dir_.Sub("empty");
  fs::create_directory(empty);
  options.initialize = nullptr;
  ASSERT_OK(OpenRocksDbKvStore(options, empty).status());
  EXPECT_TRUE(fs::exists(fs::path(empty) / "CURRENT"));
}

// Issue 12 item 3: once Flush returns, no log holds anything needed; the next open replays none.
TEST_F(RocksDbKvStoreTest, FlushLeavesNoLogToReplay) {
  {
    ASSERT_OK_AND_ASSIGN(auto store, Open());
    for (int i = 0; i < 100; ++i) {
      ASSERT_OK(store->Put(WriteOptions{}, Table::kData, "k" + std::to_string(i),
                           std::string(10000, 'x')));
    }
    ASSERT_OK(store->Put(WriteOptions{}, Table::kMeta, "m", "v"));
    EXPECT_GT(BytesOf(path_, ".log"), 1000000u);
    ASSERT_OK(store->Flush());
    EXPECT_EQ(BytesOf(path_, ".log"), 0u);
    EXPECT_GT(BytesOf(path_, ".sst"), 1000000u);
  }
  // With the logs gone, every value is still there.
  for (const auto& entry : fs::directory_iterator(path_)) {
    if (entry.path().extension() == ".log") fs::remove(entry.path());
  }
  ASSERT_OK_AND_ASSIGN(auto store, Open(false, true));
  std::string value;
  ASSERT_OK(store->Get(ReadOptions{}, Table::kData, "k99", &value));
  ASSERT_OK(store->Get(ReadOptions{}, Table::kMeta, "m", &value));
}

// Issue 12 item 2: a damaged log is DataLoss naming the store, never a silent cut that reverts
// what it held.
TEST_F(RocksDbKvStoreTest, DamagedLogIsDataLossNotASilentCut) {
  {
    ASSERT_OK_AND_ASSIGN(auto store, Open());
    for (int i = 0; i < 50; ++i) {
      ASSERT_OK(store->Put(WriteOptions{}, Table::kData, "k" + std::to_string(i),
                           std::string(5000, 'a' + i % 26)));
    }
    ASSERT_OK(store->Put(WriteOptions{.sync = true}, Table::kMeta, "status", "DONE"));
  }  // closed without a flush: the log holds everything
  fs::path log;
  for (const auto& entry : fs::directory_iterator(path_)) {
    if (entry.path().extension() == ".log" && entry.file_size() > 0) log = entry.path();
  }
  ASSERT_FALSE(log.empty());
  const std::string pristine = ReadFileBytes(log.string());
  for (size_t at : {pristine.size() / 3, pristine.size() / 2, pristine.size() - 200}) {
    std::string damaged = pristine;
    damaged[at] ^= 0x20;
    std::ofstream(log, std::ios::binary | std::ios::trunc) << damaged;
    for (bool read_only : {true, false}) {
      RocksDbOptions options = TestOptions();
      options.create_if_missing = false;
      options.read_only = read_only;
      auto opened = OpenRocksDbKvStore(options, path_);
      EXPECT_STATUS(opened, kDataLoss, path_.c_str(), "damaged");
    }
  }
  std::ofstream(log, std::ios::binary | std::ios::trunc) << pristine;
  ASSERT_OK_AND_ASSIGN(auto store, Open(false, true));
  std::string value;
  ASSERT_OK(store->Get(ReadOptions{}, Table::kMeta, "status", &value));
  EXPECT_EQ(value, "DONE");
}

// Issue 12 item 4: deleted ranges give their space back.
TEST_F(RocksDbKvStoreTest, CompactRangeReclaimsTheSpaceOfADeletedRange) {
  ASSERT_OK_AND_ASSIGN(auto store, Open());
  std::mt19937 rng(7);
  std::string noise(100000, '\0');
  for (int i = 0; i < 300; ++i) {
    for (char& c : noise) c = static_cast<char>(rng());
    ASSERT_OK(store->Put(WriteOptions{}, Table::kData, "ds\0"s + std::to_string(1000 + i), noise));
  }
  ASSERT_OK(store->Flush());
  const uintmax_t full = DirectoryBytes(path_);
  EXPECT_GT(full, 25000000u);
  const KeyRange range = KeyRange::Prefix("ds\0"s);
  ASSERT_OK(store->DeleteRange(WriteOptions{}, Table::kData, range));
  ASSERT_OK(store->CompactRange(Table::kData, range));
  ASSERT_OK(store->Flush());
  EXPECT_LT(DirectoryBytes(path_), 2000000u) << "was " << full;
}

TEST_F(RocksDbKvStoreTest, EmptyPathIsInvalidArgument) {
  EXPECT_STATUS(OpenRocksDbKvStore(TestOptions(), ""), kInvalidArgument, "path");
}

}  // namespace
}  // namespace gridstore::testing
