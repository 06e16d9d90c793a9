// Copyright 2026 The GridStore Authors.
#include "gridstore/blocks/internal/block_cache.h"

#include <functional>

namespace gridstore::internal_grid {

BlockCache::BlockCache(size_t capacity_bytes)
    : capacity_(capacity_bytes), shard_capacity_(capacity_bytes / kShards), shards_(kShards) {}

BlockCache::Shard& BlockCache::ShardFor(std::string_view key) {
  return shards_[std::hash<std::string_view>{}(key) % kShards];
}

std::shared_ptr<const DecodedBlock> BlockCache::Lookup(std::string_view key) {
  if (capacity_ == 0) return nullptr;
  Shard& shard = ShardFor(key);
  MutexLock lock(&shard.mu);
  auto it = shard.index.find(key);
  if (it == shard.index.end()) return nullptr;
  shard.lru.splice(shard.lru.begin(), shard.lru, it->second);
  return it->second->block;
}

void BlockCache::Insert(std::string_view key, std::shared_ptr<const DecodedBlock> block) {
  if (capacity_ == 0 || block == nullptr || block->size > shard_capacity_) return;
  Shard& shard = ShardFor(key);
  MutexLock lock(&shard.mu);
  if (auto it = shard.index.find(key); it != shard.index.end()) EraseLocked(shard, it->second);
  shard.lru.push_front(Entry{std::string(key), std::move(block)});
  shard.index.emplace(shard.lru.front().key, shard.lru.begin());
  shard.usage += shard.lru.front().block->size;
  while (shard.usage > shard_capacity_) EraseLocked(shard, std::prev(shard.lru.end()));
}

void BlockCache::Erase(std::string_view key) {
  if (capacity_ == 0) return;
  Shard& shard = ShardFor(key);
  MutexLock lock(&shard.mu);
  if (auto it = shard.index.find(key); it != shard.index.end()) EraseLocked(shard, it->second);
}

void BlockCache::Clear() {
  for (Shard& shard : shards_) {
    MutexLock lock(&shard.mu);
    shard.index.clear();
    shard.lru.clear();
    shard.usage = 0;
  }
}

size_t BlockCache::usage() const {
  size_t total = 0;
  for (const Shard& shard : shards_) {
    MutexLock lock(&shard.mu);
    total += shard.usage;
  }
  return total;
}

void BlockCache::EraseLocked(Shard& shard, std::list<Entry>::iterator it) {
  shard.usage -= it->block->size;
  shard.index.erase(std::string_view(it->key));
  shard.lru.erase(it);
}

}  // namespace gridstore::internal_grid
