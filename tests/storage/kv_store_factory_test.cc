// Copyright 2026 The GridStore Authors.

#include "gridstore/storage/kv_store_factory.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/test_util.h"

namespace gridstore::testing {
namespace {

namespace fs = std::filesystem;
using storage::OpenKvStore;
using storage::OpenOptions;
using storage::ReadOptions;
using storage::Table;
using storage::WriteOptions;

OpenOptions Create() { return OpenOptions{.create_if_missing = true}; }

class KvStoreFactoryTest : public ::testing::Test {
 protected:
  ScopedTempDir dir_;
};

TEST_F(KvStoreFactoryTest, MemoryUriOpensANewEmptyStore) {
  ASSERT_OK_AND_ASSIGN(auto a, OpenKvStore("memory://", OpenOptions{}));
  ASSERT_OK_AND_ASSIGN(auto b, OpenKvStore("memory://", OpenOptions{}));
  ASSERT_OK(a->Put(WriteOptions{}, Table::kMeta, "k", "v"));
  std::string value;
  ASSERT_OK(a->Get(ReadOptions{}, Table::kMeta, "k", &value));
  EXPECT_STATUS(b->Get(ReadOptions{}, Table::kMeta, "k", &value), kNotFound, "");
}

TEST_F(KvStoreFactoryTest, MemoryUriWithAPathIsInvalidArgument) {
  EXPECT_STATUS(OpenKvStore("memory://somewhere", OpenOptions{}), kInvalidArgument,
                "memory://somewhere");
}

TEST_F(KvStoreFactoryTest, FileUriOpensRocksDbAtThePath) {
  const std::string path = dir_.Sub("store");
  {
    ASSERT_OK_AND_ASSIGN(auto store, OpenKvStore("file://" + path, Create()));
    ASSERT_OK(store->Put(WriteOptions{}, Table::kData, "k", "v"));
  }
  EXPECT_TRUE(fs::exists(fs::path(path) / "CURRENT"));
  // The same store, named as a plain path.
  ASSERT_OK_AND_ASSIGN(auto store, OpenKvStore(path, OpenOptions{}));
  std::string value;
  ASSERT_OK(store->Get(ReadOptions{}, Table::kData, "k", &value));
  EXPECT_EQ(value, "v");
}

TEST_F(KvStoreFactoryTest, FileUriWithoutAPathIsInvalidArgument) {
  EXPECT_STATUS(OpenKvStore("file://", Create()), kInvalidArgument, "file://");
}

TEST_F(KvStoreFactoryTest, PlainPathOpensRocksDb) {
  const std::string path = dir_.Sub("plain");
  ASSERT_OK_AND_ASSIGN(auto store, OpenKvStore(path, Create()));
  EXPECT_TRUE(fs::exists(fs::path(path) / "CURRENT"));
}

TEST_F(KvStoreFactoryTest, PathThatOnlyLooksLikeAUriIsAPath) {
  // "./x://y" has '/' before "://", so it is no scheme; the directory "x:" gets a store "y".
  const std::string path = dir_.Sub("x://y");
  ASSERT_OK_AND_ASSIGN(auto store, OpenKvStore(path, Create()));
  EXPECT_TRUE(fs::exists(fs::path(dir_.Sub("x:")) / "y" / "CURRENT"));
}

TEST_F(KvStoreFactoryTest, UnknownSchemeIsInvalidArgument) {
  EXPECT_STATUS(OpenKvStore("s3://bucket", Create()), kInvalidArgument, "unknown store scheme 's3'",
                "'s3://bucket'", "memory://", "rados://");
}

TEST_F(KvStoreFactoryTest, RadosUriIsParsedBeforeAnyConnection) {
  // Malformed: refused before librados is asked anything.
  EXPECT_STATUS(OpenKvStore("rados://pool/store", Create()), kInvalidArgument,
                "'rados://pool/store'", "holds '/'");
  // Well formed, with a configuration that is not there: an error naming it, not a hang.
  auto store = OpenKvStore("rados://pool?conf=" + dir_.Sub("missing.conf"), Create());
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(std::string(store.status().message()), ::testing::HasSubstr("missing.conf"));
}

TEST_F(KvStoreFactoryTest, EmptyUriIsInvalidArgument) {
  EXPECT_STATUS(OpenKvStore("", Create()), kInvalidArgument, "empty");
}

TEST_F(KvStoreFactoryTest, RegularFileIsNotAStore) {
  const std::string path = dir_.Sub("file.nc");
  std::ofstream(path) << "CDF\x01";
  EXPECT_STATUS(OpenKvStore(path, Create()), kFailedPrecondition, "not a GridStore store",
                path.c_str());
  EXPECT_STATUS(OpenKvStore("file://" + path, OpenOptions{}), kFailedPrecondition,
                "not a GridStore store");
}

TEST_F(KvStoreFactoryTest, NonStoreDirectoryWithFilesIsNotAStoreAndIsLeftAlone) {
  const std::string path = dir_.Sub("documents");
  fs::create_directory(path);
  std::ofstream(fs::path(path) / "notes.txt") << "keep me";
  for (const OpenOptions& options : {Create(), OpenOptions{}, OpenOptions{.read_only = true}}) {
    EXPECT_STATUS(OpenKvStore(path, options), kFailedPrecondition, "not a GridStore store",
                  path.c_str());
  }
  EXPECT_EQ(std::distance(fs::directory_iterator(path), fs::directory_iterator()), 1);
}

TEST_F(KvStoreFactoryTest, MissingPathWithoutCreateIsNotFoundAndCreatesNothing) {
  const std::string path = dir_.Sub("missing");
  EXPECT_STATUS(OpenKvStore(path, OpenOptions{}), kNotFound, path.c_str());
  EXPECT_FALSE(fs::exists(path));
}

TEST_F(KvStoreFactoryTest, EmptyDirectoryWithoutCreateIsNotFound) {
  const std::string path = dir_.Sub("empty");
  fs::create_directory(path);
  EXPECT_STATUS(OpenKvStore(path, OpenOptions{}), kNotFound, path.c_str());
  EXPECT_TRUE(fs::is_empty(path));
}

TEST_F(KvStoreFactoryTest, MissingPathWithCreateMakesAStore) {
  const std::string path = dir_.Sub("new");
  ASSERT_OK_AND_ASSIGN(auto store, OpenKvStore(path, Create()));
  ASSERT_OK(store->Put(WriteOptions{}, Table::kMeta, "k", "v"));
  EXPECT_TRUE(fs::exists(fs::path(path) / "CURRENT"));
}

TEST_F(KvStoreFactoryTest, ReadOnlyIsPassedThrough) {
  const std::string path = dir_.Sub("ro");
  { ASSERT_OK_AND_ASSIGN(auto store, OpenKvStore(path, Create())); }
  ASSERT_OK_AND_ASSIGN(auto store, OpenKvStore(path, OpenOptions{.read_only = true}));
  EXPECT_STATUS(store->Put(WriteOptions{}, Table::kMeta, "k", "v"), kFailedPrecondition,
                "read-only");
}

}  // namespace
}  // namespace gridstore::testing
