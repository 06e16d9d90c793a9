// Copyright 2026 The GridStore Authors.
//
// The RADOS backend's object naming and URI parsing, which need no cluster: the names are part of
// the stored layout (docs/format.md), so they are pinned here.

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "gridstore/storage/rados/object_names.h"
#include "gridstore/storage/rados/rados_kv_store.h"
#include "tests/test_util.h"

namespace gridstore::testing {
namespace {

using namespace std::string_literals;
using storage::ParseRadosUri;
namespace names = storage::internal_rados;

TEST(RadosObjectNamesTest, EscapingKeepsSafeBytesAndHexesTheRest) {
  EXPECT_EQ(names::EscapeObjectName("era5_t2m-1"), "era5_t2m-1");
  EXPECT_EQ(names::EscapeObjectName("a.b/c%\0\xff"s), "a%2Eb%2Fc%25%00%FF");
  EXPECT_EQ(names::DataObjectName("ds\0t\0\x00\x01"s), "d.ds%00t%00%00%01");
  EXPECT_EQ(names::DirectoryObjectName("ds\0"s, 10), "dir.ds%00.0a");
  EXPECT_EQ(names::DirectoryObjectName("", 15), "dir..0f");
}

TEST(RadosObjectNamesTest, DistinctKeysGetDistinctNames) {
  std::set<std::string> seen;
  for (const std::string& k : {""s, "a"s, "a\0"s, "a."s, "a%2E"s, "a%"s, "\xff"s, "%FF"s}) {
    EXPECT_TRUE(seen.insert(names::DataObjectName(k)).second) << k;
  }
}

TEST(RadosObjectNamesTest, TheLongestGridKeyFitsAnObjectName) {
  // Dataset id and variable name of 256 bytes each, every byte escaped, plus the block address.
  const std::string key =
      std::string(256, '\x80') + '\0' + std::string(256, '\x80') + '\0' + std::string(17, '\x01');
  EXPECT_LE(names::DataObjectName(key).size(), names::kMaxObjectNameBytes);
  EXPECT_LE(names::DirectoryObjectName(names::DataPartition(key), 15).size(),
            names::kMaxObjectNameBytes);
}

TEST(RadosObjectNamesTest, PartitionIsTheFirstNulTerminatedComponent) {
  EXPECT_EQ(names::DataPartition("ds\0var\0xyz"s), "ds\0"s);
  EXPECT_EQ(names::DataPartition("\0rest"s), "\0"s);
  EXPECT_EQ(names::DataPartition("no-nul"), "");
  EXPECT_EQ(names::PartitionEnd("ds\0"s), "ds\x01"s);
  EXPECT_EQ(names::PartitionEnd(""), "");
  // Every key of the partition sorts inside [partition, end).
  for (const std::string& k : {"ds\0"s, "ds\0\xff\xff"s, "ds\0var\0\xff"s}) {
    EXPECT_GE(k, "ds\0"s);
    EXPECT_LT(k, names::PartitionEnd("ds\0"s));
  }
}

TEST(RadosObjectNamesTest, ShardHashIsStable) {
  // FNV-1a 64 reference values: a change here moves every directory entry of every store.
  EXPECT_EQ(names::StableHash(""), 0xcbf29ce484222325ull);
  EXPECT_EQ(names::StableHash("a"), 0xaf63dc4c8601ec8cull);
  std::set<int> shards;
  for (int i = 0; i < 1000; ++i)
    shards.insert(names::DirectoryShard("ds\0v\0"s + std::to_string(i)));
  EXPECT_EQ(shards.size(), static_cast<size_t>(names::kDirectoryShards));
}

TEST(RadosUriTest, ParsesEveryParameter) {
  ASSERT_OK_AND_ASSIGN(auto o, ParseRadosUri("rados://grids?conf=/etc/ceph/ceph.conf&id=gs&"
                                             "namespace=run%2012"));
  EXPECT_EQ(o.pool, "grids");
  EXPECT_EQ(o.conf_path, "/etc/ceph/ceph.conf");
  EXPECT_EQ(o.client_id, "gs");
  EXPECT_EQ(o.rados_namespace, "run 12");
  ASSERT_OK_AND_ASSIGN(o, ParseRadosUri("rados://grids"));
  EXPECT_EQ(o.pool, "grids");
  EXPECT_EQ(o.conf_path, "");
  EXPECT_EQ(o.client_id, "admin");
  EXPECT_EQ(o.rados_namespace, "");
  ASSERT_OK_AND_ASSIGN(o, ParseRadosUri("rados://p?conf=/a%26b/ceph.conf"));
  EXPECT_EQ(o.conf_path, "/a&b/ceph.conf");
}

TEST(RadosUriTest, RejectsMalformedUrisNamingThePart) {
  EXPECT_STATUS(ParseRadosUri("rados://"), kInvalidArgument, "no pool name");
  EXPECT_STATUS(ParseRadosUri("rados://?conf=/x"), kInvalidArgument, "no pool name");
  EXPECT_STATUS(ParseRadosUri("rados://p/q"), kInvalidArgument, "holds '/'");
  EXPECT_STATUS(ParseRadosUri("rados://p?conf"), kInvalidArgument, "'conf' has no '='");
  EXPECT_STATUS(ParseRadosUri("rados://p?conf="), kInvalidArgument, "empty conf=");
  EXPECT_STATUS(ParseRadosUri("rados://p?conf=a&conf=b"), kInvalidArgument, "given twice");
  EXPECT_STATUS(ParseRadosUri("rados://p?user=x"), kInvalidArgument, "unknown parameter 'user'",
                "conf, id, namespace, catalog_shards");
  EXPECT_STATUS(ParseRadosUri("rados://p?id=client.admin"), kInvalidArgument, "without 'client.'");
  EXPECT_STATUS(ParseRadosUri("rados://p?conf=%zz"), kInvalidArgument, "malformed %-escape");
  EXPECT_STATUS(ParseRadosUri("rados://p?conf=%2"), kInvalidArgument, "malformed %-escape");
  EXPECT_STATUS(ParseRadosUri("rados://p?catalog_shards=0"), kInvalidArgument, "1 to 4096");
  EXPECT_STATUS(ParseRadosUri("rados://p?catalog_shards=x"), kInvalidArgument, "takes a number");
  EXPECT_STATUS(ParseRadosUri("rados://p?catalog_shards=5000"), kInvalidArgument, "1 to 4096");
  EXPECT_STATUS(ParseRadosUri("rados://p?catalog_shards=99999999999999999999"), kInvalidArgument,
                "1 to 4096");
  EXPECT_STATUS(ParseRadosUri("rados://p?catalog_shards=-1"), kInvalidArgument, "takes a number");
}

TEST(RadosUriTest, CatalogShards) {
  ASSERT_OK_AND_ASSIGN(auto o, ParseRadosUri("rados://p?catalog_shards=256"));
  EXPECT_EQ(o.catalog_shards, 256);
  ASSERT_OK_AND_ASSIGN(o, ParseRadosUri("rados://p"));
  EXPECT_EQ(o.catalog_shards, 0);  // the store's own (64 for a new one)
}

// Where catalog keys live (docs/format.md, "Catalog shards"). Part of the stored layout: a
// change moves keys of existing stores.
TEST(CatalogShardsTest, KeysGoToTheShardOfTheirDataset) {
  using names::CatalogPlacement;
  using storage::Table;
  std::string_view p;
  EXPECT_EQ(names::PlaceCatalogKey(Table::kMeta, "era5/t2m", &p), CatalogPlacement::kPartition);
  EXPECT_EQ(p, "era5/t2m");
  // `p` views into the key: every key below outlives the checks of `p`.
  const std::string stamp =
      "\0\x01"
      "era5"s;
  EXPECT_EQ(names::PlaceCatalogKey(Table::kMeta, stamp, &p), CatalogPlacement::kPartition);
  EXPECT_EQ(p, "era5");
  const std::string staged =
      "\0\x02"
      "era5\0\x01\x02\x03\x04\x05\x06\x07\x08"s;
  EXPECT_EQ(names::PlaceCatalogKey(Table::kMeta, staged, &p), CatalogPlacement::kPartition);
  EXPECT_EQ(p, "era5");
  EXPECT_EQ(names::PlaceCatalogKey(Table::kMeta, "\0gridstore"s, &p), CatalogPlacement::kStoreWide);
  const std::string entry =
      "\x02"
      "era5\0x"s;
  EXPECT_EQ(names::PlaceCatalogKey(Table::kIndex, entry, &p), CatalogPlacement::kPartition);
  EXPECT_EQ(p, "era5");
  EXPECT_EQ(names::PlaceCatalogKey(Table::kIndex,
                                   "\x01main\0f\0v\0\x01"
                                   "era5\0"s,
                                   &p),
            CatalogPlacement::kPosting);
  for (const std::string& k : {"\x03main\0"s, "\x04"s, "\x05main\0"s, "plain"s}) {
    EXPECT_EQ(names::PlaceCatalogKey(Table::kIndex, k, &p), CatalogPlacement::kStoreWide);
  }
  // A posting belongs to the batch's dataset whose id ends it (the longest of several).
  const std::string posting = "\x01main\0time\0\x80\0\0\0\0\0\0\x07run-b\0"s;
  EXPECT_TRUE(names::PostingOwner(posting, {"run-a", "run-b", "b"}, &p));
  EXPECT_EQ(p, "run-b");
  EXPECT_FALSE(names::PostingOwner(posting, {"run-a"}, &p));
  const std::string begin =
      "\x02"
      "era5\0"s;
  EXPECT_TRUE(names::CatalogRangePartition(Table::kIndex, begin,
                                           "\x02"
                                           "era5\x01"s,
                                           &p));
  EXPECT_EQ(p, "era5");
  EXPECT_FALSE(names::CatalogRangePartition(Table::kIndex,
                                            "\x02"
                                            "era5\0"s,
                                            "\x03"s, &p));
  EXPECT_FALSE(names::CatalogRangePartition(Table::kMeta, "era5", "era6", &p));
  // Shard names and the hash (pinned).
  EXPECT_EQ(names::CatalogShardName(0), "catalog");
  EXPECT_EQ(names::CatalogShardName(1), "catalog.0001");
  EXPECT_EQ(names::CatalogShardName(4095), "catalog.0fff");
  EXPECT_EQ(names::CatalogShardOf("anything", 1), 0);
  EXPECT_EQ(names::CatalogShardOf("era5/t2m", 64),
            static_cast<int>(names::StableHash("era5/t2m") % 64));
  std::set<int> used;
  for (int i = 0; i < 1000; ++i) used.insert(names::CatalogShardOf("ds" + std::to_string(i), 64));
  EXPECT_EQ(used.size(), 64u);
}

}  // namespace
}  // namespace gridstore::testing
