// Copyright 2026 The GridStore Authors.
//
// The sharded RADOS catalog on a real Ceph cluster (docs/format.md, "Catalog shards"): where keys
// land (checked from outside with the `rados` command), scans and reverse scans over the shards
// equal to RocksDB's, conditional writes and the store-wide fence, batches over many shards, and
// stores from before shards.

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gridstore/storage/kv_store_factory.h"
#include "gridstore/storage/rados/object_names.h"
#include "gridstore/storage/rados/rados_kv_store.h"
#include "tests/storage/kv_store_conformance.h"
#include "tests/storage/rados_command.h"
#include "tests/test_stores.h"
#include "tests/test_util.h"

namespace gridstore::testing {
namespace {

using namespace std::literals;
using storage::KeyRange;
using storage::KvStore;
using storage::OpenKvStore;
using storage::OpenOptions;
using storage::ReadOptions;
using storage::Table;
using storage::WriteBatch;
using storage::WriteOptions;
namespace names = storage::internal_rados;

// The conformance suite on a store of one catalog shard (the layout of stores from before
// shards); the default (64 shards) runs in rados_kv_store_test.cc.
INSTANTIATE_TEST_SUITE_P(RadosOneShard, KvStoreConformanceTest,
                         ::testing::Values(KvStoreFactory{
                             "RadosOneShard",
                             [](const std::string&) {
                               return OpenKvStore(RadosTestUri("one-shard") + "&catalog_shards=1",
                                                  OpenOptions{.create_if_missing = true});
                             }}),
                         KvStoreFactoryName);

// The keys the grid layer writes for a dataset (grid_keys.h, docs/format.md "Keys").
std::string Stamp(const std::string& id) { return "\0\x01"s + id; }
std::string Posting(const std::string& field, const std::string& value, const std::string& id) {
  return "\x01main\0"s + field + '\0' + value + "\0\x01"s + id + '\0';
}
std::string IntPosting(uint64_t v, const std::string& id) {
  std::string key = "\x01main\0time\0"s;
  for (int s = 56; s >= 0; s -= 8) key.push_back(static_cast<char>((v >> s) & 0xff));
  return key + id + '\0';
}
const std::string kVersionKey = "\x04"s;

std::string Hex(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    out.push_back(kHex[(static_cast<unsigned char>(c) >> 4) & 15]);
    out.push_back(kHex[c & 15]);
  }
  return out;
}

// `rados getxattr` output without a trailing newline.
std::string Trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// What one dataset's meta write puts: meta, stamp and postings, expecting the meta's previous
// value and the index definitions' version, as GridStore does.
void AddMetaWrite(const std::string& id, const std::string& status, uint64_t time,
                  WriteBatch* batch) {
  batch->Put(Table::kMeta, id, "meta of " + id + " " + status);
  batch->Put(Table::kMeta, Stamp(id), "stamp");
  batch->Put(Table::kIndex, Posting("status", status, id), "");
  batch->Put(Table::kIndex, IntPosting(time, id), "");
}

class RadosCatalogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uri_ = RadosTestUri("catalog") + "&catalog_shards=8";
    ns_ = uri_.substr(uri_.find("&namespace=") + 11);
    ns_ = ns_.substr(0, ns_.find('&'));
    ASSERT_OK_AND_ASSIGN(store_, OpenKvStore(uri_, OpenOptions{.create_if_missing = true}));
  }
  std::set<std::string> OmapKeys(const std::string& object) {
    auto out = RadosCommand(ns_, "listomapkeys '" + object + "'");
    EXPECT_OK(out);
    return out.ok() ? Lines(*out) : std::set<std::string>{};
  }
  static std::string ShardOf(const std::string& id) {
    return names::CatalogShardName(names::CatalogShardOf(id, 8));
  }

  std::string uri_, ns_;
  std::unique_ptr<KvStore> store_;
};

TEST_F(RadosCatalogTest, ADatasetsMetaStampAndPostingsLiveInItsShard) {
  WriteBatch batch;
  for (const char* id : {"era5/t2m", "gfs-00", "x", "run2026112600"})
    AddMetaWrite(id, "DONE", 7, &batch);
  batch.Put(Table::kIndex, kVersionKey, "v1");
  ASSERT_OK(store_->Write(WriteOptions{}, batch));
  for (const std::string id : {"era5/t2m", "gfs-00", "x", "run2026112600"}) {
    const std::set<std::string> keys = OmapKeys(ShardOf(id));
    // Keys print with their bytes as is; NULs and other control bytes make them unreadable, so
    // look for the meta key (printable) and count the entries of this dataset.
    EXPECT_TRUE(keys.count("m" + id)) << id << " in " << ShardOf(id);
  }
  // The store-wide key is in the home shard, which records the shard count.
  EXPECT_TRUE(OmapKeys("catalog").count("i\x04"s));
  ASSERT_OK_AND_ASSIGN(std::string shards,
                       RadosCommand(ns_, "getxattr catalog "s + names::kCatalogShardsXattr));
  EXPECT_EQ(Trimmed(shards), "8");
  // Every key reads back, postings included (looked for in every shard).
  std::string value;
  ASSERT_OK(store_->Get(ReadOptions{}, Table::kIndex, Posting("status", "DONE", "gfs-00"), &value));
  ASSERT_OK(store_->Get(ReadOptions{}, Table::kMeta, Stamp("x"), &value));
  EXPECT_EQ(value, "stamp");
}

// A posting key does not say where its id starts: "a" with a number ending in byte 'b' reads as
// "ba" with a number one byte shorter. The writer names the posting's dataset, so it lands in the
// shard of "a", and a later batch of "a" alone deletes it.
TEST_F(RadosCatalogTest, APostingLivesWithTheDatasetItsWriterNames) {
  std::string id = "a", other;
  for (char c = 'b'; c <= 'z' && other.empty(); ++c) {
    if (ShardOf(std::string(1, c) + id) != ShardOf(id)) other = std::string(1, c) + id;
  }
  ASSERT_FALSE(other.empty());
  const std::string posting = IntPosting(0x0102030405060700u | uint8_t(other[0]), id);
  WriteBatch write;
  write.Put(Table::kMeta, id, "meta of a");
  write.Put(Table::kMeta, other, "meta of " + other);
  write.Put(Table::kIndex, posting, "", id);
  ASSERT_OK(store_->Write(WriteOptions{}, write));
  WriteBatch remove;
  remove.Delete(Table::kMeta, id);
  remove.Delete(Table::kIndex, posting, id);
  ASSERT_OK(store_->Write(WriteOptions{}, remove));
  std::string value;
  EXPECT_TRUE(store_->Get(ReadOptions{}, Table::kIndex, posting, &value).IsNotFound());
  ASSERT_OK(store_->Get(ReadOptions{}, Table::kMeta, other, &value));
}

// Many datasets over the shards, the same writes on RocksDB: every scan, reverse scan and paged
// scan (stopped after k entries, resumed after the last key) gives the same keys in the same
// order.
TEST_F(RadosCatalogTest, ScansAcrossShardsEqualRocksDb) {
  ScopedTempDir tmp;
  ASSERT_OK_AND_ASSIGN(auto local,
                       OpenKvStore(tmp.Sub("rocks"), OpenOptions{.create_if_missing = true}));
  std::mt19937_64 rng(7);
  const char* statuses[] = {"DONE", "INIT", "FAILED"};
  for (int b = 0; b < 6; ++b) {
    WriteBatch batch;
    for (int i = 0; i < 100; ++i) {
      const std::string id = "ds" + std::to_string(rng() % 400);
      AddMetaWrite(id, statuses[rng() % 3], rng() % 50, &batch);
    }
    ASSERT_OK(store_->Write(WriteOptions{}, batch));
    ASSERT_OK(local->Write(WriteOptions{}, batch));
  }
  auto scan = [](KvStore* kv, Table table, const KeyRange& range, bool reverse, size_t limit) {
    std::vector<std::pair<std::string, std::string>> out;
    auto fn = [&](std::string_view k, std::string_view v) {
      out.emplace_back(k, v);
      return out.size() < limit;
    };
    Status s = reverse ? kv->ReverseScan(ReadOptions{}, table, range, fn)
                       : kv->Scan(ReadOptions{}, table, range, fn);
    EXPECT_OK(s);
    return out;
  };
  const std::vector<std::pair<Table, KeyRange>> ranges = {
      {Table::kMeta, KeyRange{}},
      {Table::kMeta, KeyRange{"\x01", ""}},
      {Table::kMeta, KeyRange{"ds1", "ds3"}},
      {Table::kIndex, KeyRange::Prefix("\x01main\0status\0"s)},
      {Table::kIndex, KeyRange::Prefix("\x01main\0status\0DONE\0\x01"s)},
      {Table::kIndex, KeyRange::Prefix("\x01main\0time\0"s)},
      {Table::kIndex, KeyRange{}}};
  for (const auto& [table, range] : ranges) {
    for (bool reverse : {false, true}) {
      for (size_t limit : {size_t{1}, size_t{10}, size_t{100000}}) {
        EXPECT_EQ(scan(store_.get(), table, range, reverse, limit),
                  scan(local.get(), table, range, reverse, limit))
            << storage::TableName(table) << " [" << Hex(range.begin) << ", " << Hex(range.end)
            << ") reverse " << reverse << " limit " << limit;
      }
    }
    // Paging: pages of 37 keys, each from just after the last key of the one before.
    std::vector<std::pair<std::string, std::string>> paged;
    KeyRange page = range;
    while (true) {
      auto got = scan(store_.get(), table, page, false, 37);
      paged.insert(paged.end(), got.begin(), got.end());
      if (got.size() < 37) break;
      page.begin = got.back().first + '\0';
    }
    EXPECT_EQ(paged, scan(local.get(), table, range, false, 1000000));
  }
}

TEST_F(RadosCatalogTest, ConditionalWritesConflictPerDatasetAndOnStoreWideKeys) {
  ASSERT_OK_AND_ASSIGN(auto other, OpenKvStore(uri_, OpenOptions{}));
  WriteBatch first;
  AddMetaWrite("a", "INIT", 1, &first);
  first.Put(Table::kIndex, kVersionKey, "v1");
  ASSERT_OK(store_->Write(WriteOptions{}, first));

  // Two writers read meta "a"; the second to write loses, and applies nothing.
  auto update = [](const std::string& prev, const std::string& status) {
    WriteBatch b;
    b.Expect(Table::kMeta, "a", std::string_view(prev));
    b.Expect(Table::kIndex, kVersionKey, "v1"sv);
    b.Delete(Table::kIndex, Posting("status", "INIT", "a"));
    AddMetaWrite("a", status, 1, &b);
    return b;
  };
  ASSERT_OK(other->Write(WriteOptions{}, update("meta of a INIT", "DONE")));
  EXPECT_STATUS(store_->Write(WriteOptions{}, update("meta of a INIT", "FAILED")), kAborted,
                "table 'meta'");
  std::string value;
  ASSERT_OK(store_->Get(ReadOptions{}, Table::kMeta, "a", &value));
  EXPECT_EQ(value, "meta of a DONE");
  EXPECT_STATUS(store_->Get(ReadOptions{}, Table::kIndex, Posting("status", "FAILED", "a"), &value),
                kNotFound, "");

  // Another writer changes the store-wide version (an index created): a write of any dataset, in
  // any shard, that expects the old version is refused.
  WriteBatch defs;
  defs.Expect(Table::kIndex, kVersionKey, "v1"sv);
  defs.Put(Table::kIndex, kVersionKey, "v2");
  ASSERT_OK(other->Write(WriteOptions{}, defs));
  for (const std::string id : {"b", "c", "d", "e", "f", "g", "h", "i"}) {
    SCOPED_TRACE(id);
    WriteBatch b;
    b.Expect(Table::kMeta, id, std::nullopt);
    b.Expect(Table::kIndex, kVersionKey, "v1"sv);
    AddMetaWrite(id, "DONE", 2, &b);
    EXPECT_STATUS(store_->Write(WriteOptions{}, b), kAborted, "table 'index'");
    b.Clear();
    b.Expect(Table::kMeta, id, std::nullopt);
    b.Expect(Table::kIndex, kVersionKey, "v2"sv);
    AddMetaWrite(id, "DONE", 2, &b);
    EXPECT_OK(store_->Write(WriteOptions{}, b));
  }
}

// A writer that died after changing a store-wide key at home and before telling the other shards
// leaves them behind: the next write checked against store-wide keys brings its shard up to date
// and goes on; one checked against the old value is refused.
TEST_F(RadosCatalogTest, AShardBehindTheStoreWideSequenceIsRolledForward) {
  WriteBatch init;
  init.Put(Table::kIndex, kVersionKey, "v1");
  ASSERT_OK(store_->Write(WriteOptions{}, init));
  // What the dead writer left: home has moved to v2 (sequence 1000), no other shard knows.
  ASSERT_OK(RadosCommand(ns_, "setomapval catalog \"$(printf 'i\\004')\" v2"));
  ASSERT_OK(RadosCommand(ns_, "setxattr catalog "s + names::kStoreWideSeqXattr + " 1000"));
  const std::string id = "dataset-in-another-shard";
  ASSERT_NE(ShardOf(id), "catalog");
  WriteBatch stale;
  stale.Expect(Table::kIndex, kVersionKey, "v1"sv);
  AddMetaWrite(id, "DONE", 3, &stale);
  EXPECT_STATUS(store_->Write(WriteOptions{}, stale), kAborted, "table 'index'");
  WriteBatch fresh;
  fresh.Expect(Table::kIndex, kVersionKey, "v2"sv);
  AddMetaWrite(id, "DONE", 3, &fresh);
  ASSERT_OK(store_->Write(WriteOptions{}, fresh));
  ASSERT_OK_AND_ASSIGN(std::string seq, RadosCommand(ns_, "getxattr '" + ShardOf(id) + "' " +
                                                              names::kStoreWideSeqXattr));
  EXPECT_EQ(Trimmed(seq), "1000");
}

// A batch over many shards whose expectation fails in one shard writes no shard: every
// expectation is checked before any part is written.
TEST_F(RadosCatalogTest, AManyShardBatchWithAFailedExpectationWritesNothing) {
  WriteBatch batch;
  for (int i = 0; i < 1000; ++i) AddMetaWrite("ds" + std::to_string(i), "DONE", 4, &batch);
  ASSERT_OK(store_->Write(WriteOptions{}, batch));
  WriteBatch second;
  for (int i = 0; i < 1000; ++i) {
    const std::string id = "ds" + std::to_string(i);
    const std::string expected = i == 517 ? "changed by another writer" : "meta of " + id + " DONE";
    second.Expect(Table::kMeta, id, std::string_view(expected));
  }
  for (int i = 0; i < 1000; ++i) AddMetaWrite("ds" + std::to_string(i), "FAILED", 4, &second);
  EXPECT_STATUS(store_->Write(WriteOptions{}, second), kAborted, "table 'meta'");
  size_t failed = 0, metas = 0;
  ASSERT_OK(store_->Scan(ReadOptions{}, Table::kIndex,
                         KeyRange::Prefix("\x01main\0status\0FAILED"s),
                         [&](std::string_view, std::string_view) {
                           ++failed;
                           return true;
                         }));
  ASSERT_OK(store_->Scan(ReadOptions{}, Table::kMeta, KeyRange{},
                         [&](std::string_view, std::string_view v) {
                           EXPECT_TRUE(v.ends_with(" DONE") || v == "stamp") << v;
                           ++metas;
                           return true;
                         }));
  EXPECT_EQ(failed, 0u);
  EXPECT_EQ(metas, 2000u);  // 1000 metas and their stamps
}

// The catalog replica (catalog_replica=1): loaded at open with what other handles wrote, this
// handle's own writes seen at once by reads that allow the replica, other handles' writes only
// through them (ordinary reads still go to the shards), and every shard exists from creation.
TEST_F(RadosCatalogTest, TheCatalogReplicaLoadsAndSeesItsOwnWritesAtOnce) {
  WriteBatch before;
  AddMetaWrite("old", "DONE", 1, &before);
  ASSERT_OK(store_->Write(WriteOptions{}, before));
  ASSERT_OK_AND_ASSIGN(auto replica, OpenKvStore(uri_ + "&catalog_replica=1", OpenOptions{}));
  const ReadOptions from_replica{.allow_replica = true};
  auto ids = [&](KvStore* kv, const ReadOptions& read, bool reverse) {
    std::vector<std::string> out;
    const storage::KeyRange postings = storage::KeyRange::Prefix("\x01main\0status\0"s);
    auto fn = [&](std::string_view key, std::string_view) {
      out.emplace_back(key.substr(key.rfind("\x01"s) + 1));
      out.back().pop_back();  // the id's terminator
      return true;
    };
    EXPECT_OK(reverse ? kv->ReverseScan(read, Table::kIndex, postings, fn)
                      : kv->Scan(read, Table::kIndex, postings, fn));
    return out;
  };
  EXPECT_EQ(ids(replica.get(), from_replica, false), std::vector<std::string>{"old"});
  // Its own write: seen at once, meta and postings together.
  WriteBatch own;
  AddMetaWrite("new", "DONE", 2, &own);
  own.Expect(Table::kMeta, "new", std::nullopt);
  ASSERT_OK(replica->Write(WriteOptions{}, own));
  EXPECT_EQ(ids(replica.get(), from_replica, false), (std::vector<std::string>{"new", "old"}));
  EXPECT_EQ(ids(replica.get(), from_replica, true), (std::vector<std::string>{"old", "new"}));
  std::string value;
  ASSERT_OK(replica->Get(from_replica, Table::kMeta, "new", &value));
  EXPECT_EQ(value, "meta of new DONE");
  // A delete by this handle: gone at once.
  WriteBatch gone;
  gone.Delete(Table::kMeta, "old");
  gone.Delete(Table::kIndex, Posting("status", "DONE", "old"), "old");
  ASSERT_OK(replica->Write(WriteOptions{}, gone));
  EXPECT_EQ(ids(replica.get(), from_replica, false), std::vector<std::string>{"new"});
  EXPECT_STATUS(replica->Get(from_replica, Table::kMeta, "old", &value), kNotFound);
  // Reads that do not allow the replica read the shards: another handle's write is there at once.
  WriteBatch other;
  AddMetaWrite("other", "DONE", 3, &other);
  ASSERT_OK(store_->Write(WriteOptions{}, other));
  ASSERT_OK(replica->Get(ReadOptions{}, Table::kMeta, "other", &value));
  EXPECT_EQ(ids(replica.get(), ReadOptions{}, false), (std::vector<std::string>{"new", "other"}));
  // Every shard was created with the store, so that replicas can watch them all.
  ASSERT_OK_AND_ASSIGN(std::string objects, RadosCommand(ns_, "ls"));
  for (int shard = 0; shard < 8; ++shard) {
    EXPECT_TRUE(Lines(objects).count(names::CatalogShardName(shard))) << shard;
  }
}

// A store from before shards: one `catalog` object holding every meta and index key, without the
// shard count. It opens as a one-shard store and works; asking it for shards is refused with the
// fix.
TEST(RadosCatalogOpenTest, AStoreFromBeforeShardsOpensAsOneShard) {
  const std::string uri = RadosTestUri("old-store");
  std::string ns = uri.substr(uri.find("&namespace=") + 11);
  ASSERT_OK(RadosCommand(ns, "setomapval catalog mold-dataset 'its meta'"));
  ASSERT_OK(RadosCommand(ns, "setomapval catalog iposting v"));
  ASSERT_OK_AND_ASSIGN(auto store, OpenKvStore(uri, OpenOptions{}));
  std::string value;
  ASSERT_OK(store->Get(ReadOptions{}, Table::kMeta, "old-dataset", &value));
  EXPECT_EQ(value, "its meta");
  WriteBatch batch;
  AddMetaWrite("new-dataset", "DONE", 5, &batch);
  batch.Expect(Table::kMeta, "new-dataset", std::nullopt);
  ASSERT_OK(store->Write(WriteOptions{}, batch));
  // Everything stays in the one object.
  ASSERT_OK_AND_ASSIGN(std::string objects, RadosCommand(ns, "ls"));
  EXPECT_EQ(Lines(objects), (std::set<std::string>{"catalog"}));
  EXPECT_TRUE(Lines(*RadosCommand(ns, "listomapkeys catalog")).count("mnew-dataset"));
  EXPECT_STATUS(OpenKvStore(uri + "&catalog_shards=64", OpenOptions{}), kInvalidArgument,
                "has 1 catalog shards", "before catalogs were sharded", "drop catalog_shards=");
}

}  // namespace
}  // namespace gridstore::testing
