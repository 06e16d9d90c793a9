// Copyright 2026 The GridStore Authors.
//
// The RADOS backend on a real Ceph cluster (ctest starts one: tests/CMakeLists.txt): the
// conformance suite, the object layout of docs/format.md checked from outside with the `rados`
// command, what a crash between a directory entry and its object leaves, and the errors of
// opening a store that is not there.

#include "gridstore/storage/rados/rados_kv_store.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include "gridstore/storage/kv_store_factory.h"
#include "gridstore/storage/rados/object_names.h"
#include "tests/storage/kv_store_conformance.h"
#include "tests/storage/rados_command.h"
#include "tests/test_stores.h"
#include "tests/test_util.h"

namespace gridstore::testing {
namespace {

using namespace std::string_literals;
using storage::KeyRange;
using storage::OpenKvStore;
using storage::OpenOptions;
using storage::ReadOptions;
using storage::Table;
using storage::WriteBatch;
using storage::WriteOptions;
namespace names = storage::internal_rados;

INSTANTIATE_TEST_SUITE_P(Rados, KvStoreConformanceTest,
                         ::testing::Values(KvStoreFactory{
                             "Rados",
                             [](const std::string&) {
                               return OpenKvStore(RadosTestUri("conformance"),
                                                  OpenOptions{.create_if_missing = true});
                             }}),
                         KvStoreFactoryName);

// A store in its own namespace, and that namespace's name for the `rados` command.
class RadosKvStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uri_ = RadosTestUri("layout");
    ns_ = uri_.substr(uri_.find("&namespace=") + 11);
    ASSERT_OK_AND_ASSIGN(store_, OpenKvStore(uri_, OpenOptions{.create_if_missing = true}));
  }

  std::set<std::string> Objects() {
    auto out = RadosCommand(ns_, "ls");
    EXPECT_OK(out);
    return out.ok() ? Lines(*out) : std::set<std::string>{};
  }
  std::set<std::string> OmapKeys(const std::string& object) {
    auto out = RadosCommand(ns_, "listomapkeys '" + object + "'");
    EXPECT_OK(out);
    return out.ok() ? Lines(*out) : std::set<std::string>{};
  }

  std::string uri_, ns_;
  std::unique_ptr<storage::KvStore> store_;
};

TEST_F(RadosKvStoreTest, TablesMapToTheDocumentedObjects) {
  WriteBatch batch;
  batch.Put(Table::kMeta, "ds", "meta");
  batch.Put(Table::kIndex, "posting", "");
  batch.Put(Table::kData, "ds\0t2m\0block-1"s, "value one");
  batch.Put(Table::kData, "ds\0t2m\0block-2"s, "value two");
  ASSERT_OK(store_->Write(WriteOptions{}, batch));

  const std::string key1 = "ds\0t2m\0block-1"s, key2 = "ds\0t2m\0block-2"s;
  const std::set<std::string> objects = Objects();
  EXPECT_TRUE(objects.count("catalog")) << "objects: " << ::testing::PrintToString(objects);
  EXPECT_TRUE(objects.count("partitions"));
  EXPECT_TRUE(objects.count(names::DataObjectName(key1)));
  EXPECT_TRUE(objects.count(names::DataObjectName(key2)));
  EXPECT_EQ(names::DataObjectName(key1), "d.ds%00t2m%00block-1");
  // The value is the object's whole content.
  ScopedTempDir tmp;
  ASSERT_OK(RadosCommand(ns_, "get '" + names::DataObjectName(key1) + "' " + tmp.Sub("v")));
  std::string value;
  {
    FILE* f = std::fopen(tmp.Sub("v").c_str(), "rb");
    ASSERT_NE(f, nullptr);
    char buf[64];
    value.assign(buf, std::fread(buf, 1, sizeof(buf), f));
    std::fclose(f);
  }
  EXPECT_EQ(value, "value one");
  // Meta and index rows are tagged omap keys of the catalog shards: a dataset's in the shard of
  // its id, store-wide keys (here, an index key that names no dataset) in the home shard,
  // `catalog`.
  const std::string shard =
      names::CatalogShardName(names::CatalogShardOf("ds", names::kDefaultCatalogShards));
  std::set<std::string> home = {"iposting"};
  if (shard == "catalog") {
    home.insert("mds");
  } else {
    EXPECT_TRUE(objects.count(shard));
    EXPECT_EQ(OmapKeys(shard), (std::set<std::string>{"mds"}));
  }
  EXPECT_EQ(OmapKeys("catalog"), home);
  // Each key is listed in its partition's directory shard (keys without a NUL: partition "").
  EXPECT_TRUE(objects.count(names::DirectoryObjectName("ds\0"s, names::DirectoryShard(key1))));
  ASSERT_OK(store_->Put(WriteOptions{}, Table::kData, "plain-key", "v"));
  const std::string dir = names::DirectoryObjectName("", names::DirectoryShard("plain-key"));
  EXPECT_EQ(OmapKeys(dir), (std::set<std::string>{"plain-key"})) << dir;
}

TEST_F(RadosKvStoreTest, ADirectoryEntryWithoutItsObjectIsSkippedAndCleanedUp) {
  // A crash between the directory write and the value write leaves an entry with no object.
  for (const char* k : {"p/a", "p/b", "p/c"})
    ASSERT_OK(store_->Put(WriteOptions{}, Table::kData, k, k));
  ASSERT_OK(RadosCommand(ns_, "rm '" + names::DataObjectName("p/b") + "'"));

  std::vector<std::string> seen;
  ASSERT_OK(store_->Scan(ReadOptions{}, Table::kData, KeyRange::Prefix("p/"),
                         [&](std::string_view k, std::string_view v) {
                           EXPECT_EQ(k, v);
                           seen.emplace_back(k);
                           return true;
                         }));
  EXPECT_EQ(seen, (std::vector<std::string>{"p/a", "p/c"}));
  std::string value;
  EXPECT_STATUS(store_->Get(ReadOptions{}, Table::kData, "p/b", &value), kNotFound, "");

  ASSERT_OK(store_->DeleteRange(WriteOptions{}, Table::kData, KeyRange::Prefix("p/")));
  for (const std::string& object : Objects()) {
    EXPECT_FALSE(object.starts_with("d.")) << object << " survived the range delete";
    if (object.starts_with("dir.")) {
      EXPECT_TRUE(OmapKeys(object).empty()) << object;
    }
  }
}

TEST_F(RadosKvStoreTest, DeletingADatasetRangeRemovesItsObjectsAndPartition) {
  const std::string a = "dsA\0"s, b = "dsB\0"s;
  WriteBatch batch;
  for (int i = 0; i < 40; ++i) {
    batch.Put(Table::kData, a + "v\0"s + std::to_string(i), std::string(1000, 'a'));
    batch.Put(Table::kData, b + "v\0"s + std::to_string(i), std::string(1000, 'b'));
  }
  ASSERT_OK(store_->Write(WriteOptions{}, batch));
  EXPECT_EQ(OmapKeys("partitions").size(), 2u);
  ASSERT_OK_AND_ASSIGN(uint64_t size_a, store_->ApproximateSize(Table::kData, KeyRange::Prefix(a)));
  EXPECT_EQ(size_a, 40u * 1000);

  ASSERT_OK(store_->DeleteRange(WriteOptions{}, Table::kData, KeyRange::Prefix(a)));
  int data_objects = 0;
  for (const std::string& object : Objects()) {
    if (object.starts_with("d.")) {
      ++data_objects;
      EXPECT_TRUE(object.starts_with("d.dsB%00")) << object;
    }
  }
  EXPECT_EQ(data_objects, 40);
  EXPECT_EQ(OmapKeys("partitions").size(), 1u);
  ASSERT_OK_AND_ASSIGN(size_a, store_->ApproximateSize(Table::kData, KeyRange::Prefix(a)));
  EXPECT_EQ(size_a, 0u);
  // A store-wide scan still finds the other dataset whole.
  int n = 0;
  ASSERT_OK(store_->Scan(ReadOptions{}, Table::kData, KeyRange{},
                         [&](std::string_view k, std::string_view) {
                           EXPECT_TRUE(k.starts_with(b));
                           ++n;
                           return true;
                         }));
  EXPECT_EQ(n, 40);
}

TEST_F(RadosKvStoreTest, ReadOnlyStoreReadsAndRefusesWrites) {
  ASSERT_OK(store_->Put(WriteOptions{}, Table::kMeta, "k", "v"));
  ASSERT_OK_AND_ASSIGN(auto reader, OpenKvStore(uri_, OpenOptions{.read_only = true}));
  std::string value;
  ASSERT_OK(reader->Get(ReadOptions{}, Table::kMeta, "k", &value));
  EXPECT_EQ(value, "v");
  EXPECT_STATUS(reader->Put(WriteOptions{}, Table::kMeta, "k", "w"), kFailedPrecondition,
                "read-only");
  EXPECT_STATUS(reader->Put(WriteOptions{}, Table::kData, "k", "w"), kFailedPrecondition,
                "read-only");
}

TEST(RadosOpenTest, NamespaceWithoutAStoreIsNotFoundUnlessCreated) {
  const std::string uri = RadosTestUri("empty");
  EXPECT_STATUS(OpenKvStore(uri, OpenOptions{}), kNotFound, "no GridStore store", RadosTestPool());
  EXPECT_STATUS(OpenKvStore(uri, OpenOptions{.read_only = true}), kNotFound, "no GridStore store");
  ASSERT_OK(OpenKvStore(uri, OpenOptions{.create_if_missing = true}));
  ASSERT_OK(OpenKvStore(uri, OpenOptions{}));  // now it is there
}

TEST(RadosOpenTest, MissingPoolIsNotFoundNamingIt) {
  EXPECT_STATUS(OpenKvStore("rados://no-such-pool?conf=" + RadosTestConf(),
                            OpenOptions{.create_if_missing = true}),
                kNotFound, "no-such-pool", "does not exist", "ceph osd pool create");
}

TEST(RadosOpenTest, MissingConfigurationFileIsAnErrorNamingIt) {
  auto store = OpenKvStore("rados://" + RadosTestPool() + "?conf=/nonexistent/ceph.conf",
                           OpenOptions{.create_if_missing = true});
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(std::string(store.status().message()),
              ::testing::HasSubstr("/nonexistent/ceph.conf"));
}

TEST(RadosOpenTest, UnknownClientIsRefusedNamingIt) {
  auto store = OpenKvStore("rados://" + RadosTestPool() + "?conf=" + RadosTestConf() + "&id=nobody",
                           OpenOptions{.create_if_missing = true});
  ASSERT_FALSE(store.ok());
  EXPECT_THAT(std::string(store.status().message()), ::testing::HasSubstr("client.nobody"));
}

TEST(RadosOpenTest, ARestrictedClientOfThePoolWorks) {
  // The test cluster's client.gridstore may only read the monitors and use the pools.
  ASSERT_OK_AND_ASSIGN(auto store, OpenKvStore(RadosTestUri("restricted") + "&id=gridstore",
                                               OpenOptions{.create_if_missing = true}));
  ASSERT_OK(store->Put(WriteOptions{}, Table::kData, "k", "v"));
  std::string value;
  ASSERT_OK(store->Get(ReadOptions{}, Table::kData, "k", &value));
  EXPECT_EQ(value, "v");
}

}  // namespace
}  // namespace gridstore::testing
