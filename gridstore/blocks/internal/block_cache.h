// Copyright 2026 The GridStore Authors.
//
// A cache of decompressed blocks with a byte budget, shared by every fetcher of a store. Sharded
// LRU: each shard has its own mutex, so concurrent fetchers rarely contend. Entries are immutable
// and reference-counted: a fetcher keeps using a block it looked up even if it is evicted
// meanwhile. Thread-safe.
#ifndef GRIDSTORE_BLOCKS_INTERNAL_BLOCK_CACHE_H_
#define GRIDSTORE_BLOCKS_INTERNAL_BLOCK_CACHE_H_

#include <cstddef>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "gridstore/util/internal/mutex.h"
#include "gridstore/util/internal/thread_annotations.h"

namespace gridstore::internal_grid {

// The raw (decompressed) bytes of one block.
struct DecodedBlock {
  explicit DecodedBlock(size_t n) : size(n), data(std::make_unique_for_overwrite<char[]>(n)) {}
  size_t size;
  std::unique_ptr<char[]> data;
};

class BlockCache {
 public:
  // A cache holding at most about `capacity_bytes` of blocks; 0 disables it (every Lookup misses,
  // Insert does nothing).
  explicit BlockCache(size_t capacity_bytes);

  BlockCache(const BlockCache&) = delete;
  BlockCache& operator=(const BlockCache&) = delete;

  // The cached block for `key`, or null. Marks it most recently used.
  std::shared_ptr<const DecodedBlock> Lookup(std::string_view key);
  // Caches `block` under `key` (replacing an older entry), evicting least recently used entries of
  // its shard beyond the shard's share of the budget. A block larger than that share is not cached.
  void Insert(std::string_view key, std::shared_ptr<const DecodedBlock> block);
  void Erase(std::string_view key);
  void Clear();

  size_t capacity() const { return capacity_; }
  // Bytes currently charged (sum of cached blocks' sizes).
  size_t usage() const;

 private:
  static constexpr int kShards = 16;
  struct Entry {
    std::string key;
    std::shared_ptr<const DecodedBlock> block;
  };
  struct Shard {
    mutable Mutex mu;
    std::list<Entry> lru GUARDED_BY(mu);  // front = most recently used
    // Views into the keys in lru.
    std::unordered_map<std::string_view, std::list<Entry>::iterator> index GUARDED_BY(mu);
    size_t usage GUARDED_BY(mu) = 0;
  };
  Shard& ShardFor(std::string_view key);
  static void EraseLocked(Shard& shard, std::list<Entry>::iterator it) REQUIRES(shard.mu);

  const size_t capacity_;
  const size_t shard_capacity_;
  std::vector<Shard> shards_;
};

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_BLOCKS_INTERNAL_BLOCK_CACHE_H_
