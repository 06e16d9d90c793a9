// Copyright 2026 The GridStore Authors.
#include "gridstore/blocks/internal/block_cache.h"

#include <cstring>
#include <thread>

#include "tests/test_util.h"

namespace gridstore::internal_grid {
namespace {

std::shared_ptr<DecodedBlock> Block(size_t n, char fill) {
  auto b = std::make_shared<DecodedBlock>(n);
  std::memset(b->data.get(), fill, n);
  return b;
}

TEST(BlockCacheTest, LookupReturnsWhatWasInserted) {
  BlockCache cache(1 << 20);
  cache.Insert("k", Block(100, 'a'));
  auto hit = cache.Lookup("k");
  ASSERT_NE(hit, nullptr);
  EXPECT_EQ(hit->size, 100u);
  EXPECT_EQ(hit->data[99], 'a');
  EXPECT_EQ(cache.Lookup("other"), nullptr);
  EXPECT_EQ(cache.usage(), 100u);
}

TEST(BlockCacheTest, StaysWithinBudgetAndEvictsLeastRecentlyUsed) {
  BlockCache cache(16 * 1000);  // 1000 bytes a shard
  for (int i = 0; i < 1000; ++i) cache.Insert("key" + std::to_string(i), Block(100, 'x'));
  EXPECT_LE(cache.usage(), cache.capacity());
  EXPECT_GT(cache.usage(), 0u);
  // The newest entry survives; the oldest are gone.
  EXPECT_NE(cache.Lookup("key999"), nullptr);
  EXPECT_EQ(cache.Lookup("key0"), nullptr);
}

TEST(BlockCacheTest, EvictedBlockStaysValidForItsHolder) {
  BlockCache cache(16 * 100);
  cache.Insert("a", Block(100, 'a'));
  auto held = cache.Lookup("a");
  cache.Clear();
  EXPECT_EQ(cache.Lookup("a"), nullptr);
  EXPECT_EQ(held->data[0], 'a');
  EXPECT_EQ(cache.usage(), 0u);
}

TEST(BlockCacheTest, ReplaceEraseAndOversizedBlocks) {
  BlockCache cache(16 * 100);
  cache.Insert("a", Block(10, '1'));
  cache.Insert("a", Block(20, '2'));
  EXPECT_EQ(cache.Lookup("a")->data[0], '2');
  EXPECT_EQ(cache.usage(), 20u);
  cache.Erase("a");
  EXPECT_EQ(cache.Lookup("a"), nullptr);
  cache.Insert("big", Block(101, 'b'));  // more than a shard's share: not cached
  EXPECT_EQ(cache.Lookup("big"), nullptr);
}

TEST(BlockCacheTest, ZeroCapacityDisablesIt) {
  BlockCache cache(0);
  cache.Insert("a", Block(1, 'a'));
  EXPECT_EQ(cache.Lookup("a"), nullptr);
  EXPECT_EQ(cache.usage(), 0u);
}

TEST(BlockCacheTest, ConcurrentUseIsSafe) {
  BlockCache cache(16 * 4096);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&cache, t] {
      for (int i = 0; i < 2000; ++i) {
        std::string key = "k" + std::to_string((i * 7 + t) % 300);
        if (auto hit = cache.Lookup(key)) {
          EXPECT_EQ(hit->data[0], key.back());
        } else {
          cache.Insert(key, Block(64, key.back()));
        }
        if (i % 97 == 0) cache.Erase(key);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_LE(cache.usage(), cache.capacity());
}

}  // namespace
}  // namespace gridstore::internal_grid
