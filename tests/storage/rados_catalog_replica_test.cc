// Copyright 2026 The GridStore Authors.
//
// The RADOS catalog replica's merging rules, which need no cluster (docs/design/catalog.md, "A
// catalog replica in each process on RADOS"): changes applied by shard version whatever order
// they arrive in, tombstones, listings merged with newer notifies, the notify payload, and scans
// over the shards in both directions.

#include "gridstore/storage/rados/rados_catalog_replica.h"

#include <gtest/gtest.h>

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
