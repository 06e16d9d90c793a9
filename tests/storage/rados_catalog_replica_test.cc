// Copyright 2026 The GridStore Authors.
//
// The RADOS catalog replica's merging rules, which need no cluster (docs/design/catalog.md, "A
// catalog replica in each process on RADOS"): changes applied by shard version whatever order
// they arrive in, tombstones, listings merged with newer notifies, the notify payload, and scans
// over the shards in both directions.

#include "gridstore/storage/rados/rados_catalog_replica.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gridstore/storage/rados/rados_kv_store.h"
#include "tests/test_util.h"

namespace gridstore::testing {
namespace {

using storage::internal_rados::CatalogReplica;
using storage::internal_rados::DecodeShardChange;
using storage::internal_rados::EncodeShardChange;
using storage::internal_rados::ShardChange;
using ReplicaKeys = std::vector<std::pair<std::string, std::string>>;

ShardChange ReplicaSet(uint64_t version, const std::string& key, const std::string& value) {
  ShardChange c;
  c.version = version;
  c.keys.emplace_back(key, value);
  return c;
}

ShardChange ReplicaRemove(uint64_t version, const std::string& key) {
  ShardChange c;
  c.version = version;
  c.keys.emplace_back(key, std::nullopt);
  return c;
}

ReplicaKeys ReplicaScanAll(const CatalogReplica& r, const std::string& begin,
                           const std::string& end, bool reverse, int shard = -1,
                           size_t stop_after = SIZE_MAX) {
  ReplicaKeys out;
  r.Scan(shard, begin, end, reverse, [&](std::string_view k, std::string_view v) {
    out.emplace_back(std::string(k), std::string(v));
    return out.size() < stop_after;
  });
  return out;
}

std::string ReplicaValue(const CatalogReplica& r, const std::string& key, int shard = -1) {
  std::string v;
  return r.Get(shard, key, &v) ? v : "<absent>";
}

TEST(RadosCatalogReplicaTest, ChangesApplyByVersionWhateverTheirOrder) {
  CatalogReplica r(2);
  // Writer B's change (version 9) arrives before writer A's older one (version 5).
  r.Apply(0, ReplicaSet(9, "ma", "new"));
  r.Apply(0, ReplicaSet(5, "ma", "old"));
  EXPECT_EQ(ReplicaValue(r, "ma"), "new");
  // A delete at 12, then a late set at 10: the key stays deleted.
  r.Apply(0, ReplicaRemove(12, "ma"));
  r.Apply(0, ReplicaSet(10, "ma", "late"));
  EXPECT_EQ(ReplicaValue(r, "ma"), "<absent>");
  r.Apply(0, ReplicaSet(13, "ma", "again"));
  EXPECT_EQ(ReplicaValue(r, "ma"), "again");
  EXPECT_EQ(r.version(0), 13u);
  EXPECT_EQ(r.version(1), 0u);
}

TEST(RadosCatalogReplicaTest, OneChangeIsSeenWhole) {
  CatalogReplica r(1);
  ShardChange c;
  c.version = 3;
  c.keys = {{"md", std::string("meta")}, {"i\x01posting", std::string("")}, {"mx", std::nullopt}};
  r.Apply(0, ReplicaSet(1, "mx", "gone soon"));
  r.Apply(0, c);
  EXPECT_EQ(
      ReplicaScanAll(r, "", "", false),
      (ReplicaKeys{{"i\x01posting", ""}, {"md", "meta"}}));  // "mx" removed in the same change
}

TEST(RadosCatalogReplicaTest, TombstonesAgeOut) {
  CatalogReplica r(1);
  const auto t0 = CatalogReplica::Clock::now();
  r.Apply(0, ReplicaSet(1, "ma", "v"), t0);
  r.Apply(0, ReplicaRemove(2, "ma"), t0);
  EXPECT_EQ(r.stats().tombstones, 1u);
  r.Apply(0, ReplicaSet(3, "mb", "w"),
          t0 + CatalogReplica::kTombstoneLife + std::chrono::seconds(1));
  EXPECT_EQ(r.stats().tombstones, 0u);
  EXPECT_EQ(r.stats().keys, 1u);
}

TEST(RadosCatalogReplicaTest, AListingKeepsWhatNewerNotifiesBrought) {
  CatalogReplica r(1);
  r.Apply(0, ReplicaSet(4, "ma", "a4"));
  r.Apply(0, ReplicaSet(4, "mb", "b4"));
  // Notifies newer than the listing (version 10) arrived while it was read.
  r.Apply(0, ReplicaSet(11, "mc", "c11"));
  r.Apply(0, ReplicaRemove(12, "md"));
  // The listing at 10: ma changed, mb gone, md still there (deleted at 12), mc not yet written.
  r.Reload(0, 10, {{"ma", "a10"}, {"md", "d10"}});
  EXPECT_EQ(ReplicaScanAll(r, "", "", false), (ReplicaKeys{{"ma", "a10"}, {"mc", "c11"}}));
  EXPECT_EQ(r.version(0), 12u);
}

TEST(RadosCatalogReplicaTest, ScansMergeShardsInBothDirectionsAcrossChunks) {
  CatalogReplica r(4);
  ReplicaKeys all;
  for (int i = 0; i < 3000; ++i) {
    char key[16];
    std::snprintf(key, sizeof(key), "i%05d", i);
    r.Apply(i % 4, ReplicaSet(static_cast<uint64_t>(i + 1), key, std::to_string(i)));
    all.emplace_back(key, std::to_string(i));
  }
  r.Apply(1, ReplicaRemove(5000, "i00005"));  // deleted keys are skipped
  all.erase(all.begin() + 5);
  EXPECT_EQ(ReplicaScanAll(r, "i", "j", false), all);
  ReplicaKeys reversed(all.rbegin(), all.rend());
  EXPECT_EQ(ReplicaScanAll(r, "i", "j", true), reversed);
  EXPECT_EQ(ReplicaScanAll(r, "", "", true), reversed);
  // Bounds: [i00100, i00200), and a scan that stops early.
  const ReplicaKeys mid(all.begin() + 99, all.begin() + 199);
  EXPECT_EQ(ReplicaScanAll(r, "i00100", "i00200", false), mid);
  EXPECT_EQ(ReplicaScanAll(r, "i00100", "i00200", true), ReplicaKeys(mid.rbegin(), mid.rend()));
  EXPECT_EQ(ReplicaScanAll(r, "i00100", "i00200", false, -1, 3).size(), 3u);
  EXPECT_TRUE(ReplicaScanAll(r, "i00200", "i00100", false).empty());
  // One shard only.
  const ReplicaKeys one = ReplicaScanAll(r, "", "", false, 2);
  ASSERT_EQ(one.size(), 750u);
  EXPECT_EQ(one[0].first, "i00002");
  // A scan's callback may change the replica (it runs without the lock).
  size_t seen = 0;
  r.Scan(-1, "i", "j", false, [&](std::string_view, std::string_view) {
    r.Apply(0, ReplicaSet(100000 + seen, "i99999", "x"));
    return ++seen < 100;
  });
  EXPECT_EQ(seen, 100u);
}

// The replica against a model of its rules kept per shard (each shard's keys in a map of their
// own, as the replica held them before they moved into one map): random changes and listings
// of interleaved shards, in any order of versions; after each, every lookup and scan (all
// shards and one, both directions, random bounds) answers as the model does.
TEST(RadosCatalogReplicaTest, RandomChangesAndListingsMatchAModelKeptPerShard) {
  constexpr int kShards = 5;
  struct Value {
    std::string value;
    uint64_t version = 0;
    bool deleted = false;
  };
  std::vector<std::map<std::string, Value>> model(kShards);
  std::vector<std::map<std::string, std::string>> cluster(kShards);
  std::vector<uint64_t> cluster_version(kShards, 0);
  std::mt19937 rng(2026);
  const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  const auto key_of = [&](int i) {
    char key[8];
    std::snprintf(key, sizeof(key), "k%03d", i);
    return std::string(key);
  };
  const auto shard_of = [](const std::string& key) {
    return static_cast<int>(std::hash<std::string>()(key) % kShards);
  };
  const auto visible = [&](int shard) {
    ReplicaKeys out;
    for (int s = shard < 0 ? 0 : shard; s < (shard < 0 ? kShards : shard + 1); ++s) {
      for (const auto& [k, v] : model[s]) {
        if (!v.deleted) out.emplace_back(k, v.value);
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  CatalogReplica r(kShards);
  const auto now = CatalogReplica::Clock::now();  // tombstones never age here
  const auto apply = [&](int shard, const ShardChange& change) {
    r.Apply(shard, change, now);
    auto& m = model[shard];
    for (const auto& [key, value] : change.keys) {
      auto it = m.find(key);
      if (it != m.end() && it->second.version > change.version) continue;
      m[key] = Value{value.value_or(""), change.version, !value.has_value()};
    }
  };
  std::vector<std::vector<ShardChange>> sent(kShards);
  for (int step = 0; step < 3000; ++step) {
    SCOPED_TRACE("step " + std::to_string(step));
    const int shard = pick(kShards);
    const int what = pick(20);
    if (what < 15) {
      // A write to the cluster; its notify arrives now, or never (a later listing brings it).
      ShardChange change;
      change.version = ++cluster_version[shard];
      for (int n = 1 + pick(4); n > 0; --n) {
        const std::string key = key_of(pick(300));
        if (shard_of(key) != shard) continue;
        if (pick(3) == 0) {
          cluster[shard].erase(key);
          change.keys.emplace_back(key, std::nullopt);
        } else {
          const std::string value = std::to_string(step);
          cluster[shard][key] = value;
          change.keys.emplace_back(key, value);
        }
      }
      sent[shard].push_back(change);
      if (pick(10) != 0) apply(shard, change);
    } else if (what < 18) {
      // A notify delivered late, after newer ones: never an older value back.
      if (!sent[shard].empty())
        apply(shard, sent[shard][pick(static_cast<int>(sent[shard].size()))]);
    } else {
      const uint64_t version = cluster_version[shard];
      std::vector<std::pair<std::string, std::string>> listing(cluster[shard].begin(),
                                                               cluster[shard].end());
      r.Reload(shard, version, listing);
      std::map<std::string, Value> fresh;
      for (const auto& [k, v] : listing) fresh[k] = Value{v, version, false};
      for (const auto& [k, v] : model[shard]) {
        if (v.version > version) fresh[k] = v;
      }
      model[shard].swap(fresh);
    }
    if (step % 10 != 0) continue;
    ASSERT_EQ(ReplicaScanAll(r, "", "", false), visible(-1));
    ASSERT_EQ(ReplicaScanAll(r, "", "", false, shard), visible(shard));
    std::string lo = key_of(pick(300)), hi = key_of(pick(300));
    if (hi < lo) std::swap(lo, hi);
    ReplicaKeys in_range;
    for (const auto& kv : visible(-1)) {
      if (kv.first >= lo && kv.first < hi) in_range.push_back(kv);
    }
    ASSERT_EQ(ReplicaScanAll(r, lo, hi, false), in_range);
    ASSERT_EQ(ReplicaScanAll(r, lo, hi, true), ReplicaKeys(in_range.rbegin(), in_range.rend()));
    for (int i = 0; i < 300; i += 7) {
      const std::string key = key_of(i);
      const auto& m = model[shard_of(key)];
      const auto it = m.find(key);
      const std::string want = it == m.end() || it->second.deleted ? "<absent>" : it->second.value;
      ASSERT_EQ(ReplicaValue(r, key), want) << key;
      ASSERT_EQ(ReplicaValue(r, key, shard_of(key)), want) << key;
      ASSERT_EQ(ReplicaValue(r, key, (shard_of(key) + 1) % kShards), "<absent>") << key;
    }
    size_t tombstones = 0, live = 0;
    for (const auto& m : model) {
      for (const auto& [k, v] : m) (v.deleted ? tombstones : live) += 1;
    }
    ASSERT_EQ(r.stats().keys, live);
    ASSERT_EQ(r.stats().tombstones, tombstones);
  }
}

TEST(RadosCatalogReplicaTest, RangeBytesIsExactForSmallRangesAndCloseForLargeOnes) {
  CatalogReplica r(2);
  for (int i = 0; i < 20000; ++i) {
    std::string key = "i\x01";
    for (int b = 3; b >= 0; --b) key.push_back(static_cast<char>((i * 7919u) >> (8 * b)));
    r.Apply(i % 2, ReplicaSet(static_cast<uint64_t>(i + 1), key, std::string(10, 'v')));
  }
  std::string lo = "i\x01", hi = "i\x02";
  const uint64_t exact = r.stats().bytes;
  const uint64_t estimate = r.RangeBytes(-1, lo, hi);
  EXPECT_GT(estimate, exact / 2);
  EXPECT_LT(estimate, exact * 2);
  EXPECT_EQ(r.RangeBytes(-1, "i\x03", "i\x04"), 0u);
  // A small range: exact.
  const std::string only = std::string("i\x01\0\0\0\0", 6);  // i = 0
  EXPECT_EQ(r.RangeBytes(-1, only, only + '\0'), only.size() + 10);
  // One shard (a range within one dataset): that shard only, unscaled.
  EXPECT_EQ(r.RangeBytes(0, only, only + '\0'), only.size() + 10);
  EXPECT_EQ(r.RangeBytes(1, only, only + '\0'), 0u);
}

TEST(RadosCatalogReplicaTest, NotifyPayloadsRoundTripAndLargeOnesAskForAListing) {
  ShardChange c;
  c.version = 0x1234567890ull;
  c.keys = {{std::string("m\0id", 4), std::string("\0meta\xff", 6)}, {"i\x01p", std::nullopt}};
  ShardChange back;
  ASSERT_TRUE(DecodeShardChange(EncodeShardChange(c, 1 << 20), &back));
  EXPECT_EQ(back.version, c.version);
  EXPECT_FALSE(back.relist);
  EXPECT_EQ(back.keys, c.keys);
  ASSERT_TRUE(DecodeShardChange(EncodeShardChange(c, 8), &back));
  EXPECT_TRUE(back.relist);
  EXPECT_EQ(back.version, c.version);
  EXPECT_TRUE(back.keys.empty());
  // Not ours, or cut short: refused (the receiver lists the shard).
  EXPECT_FALSE(DecodeShardChange("hello", &back));
  const std::string payload = EncodeShardChange(c, 1 << 20);
  EXPECT_FALSE(DecodeShardChange(payload.substr(0, payload.size() - 2), &back));
}

TEST(RadosCatalogReplicaTest, TheUriTurnsTheReplicaOn) {
  auto on = storage::ParseRadosUri("rados://p?catalog_replica=1");
  ASSERT_TRUE(on.ok()) << on.status();
  EXPECT_TRUE(on->catalog_replica);
  auto off = storage::ParseRadosUri("rados://p");
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->catalog_replica);
  auto bad = storage::ParseRadosUri("rados://p?catalog_replica=yes");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("catalog_replica= takes 0 or 1"), std::string::npos);
}

}  // namespace
}  // namespace gridstore::testing
