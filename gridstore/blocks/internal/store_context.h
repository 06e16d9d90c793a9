// Copyright 2026 The GridStore Authors.
//
// What writers and fetchers share with the GridStore that made them. Owned by the GridStore;
// every pointer outlives the writers and fetchers.
#ifndef GRIDSTORE_BLOCKS_INTERNAL_STORE_CONTEXT_H_
#define GRIDSTORE_BLOCKS_INTERNAL_STORE_CONTEXT_H_

#include "gridstore/blocks/internal/block_cache.h"
#include "gridstore/blocks/internal/dictionary_cache.h"
#include "gridstore/blocks/internal/series_fence.h"
#include "gridstore/storage/kv_store.h"
#include "gridstore/util/internal/thread_pool.h"

namespace gridstore::internal_grid {

struct StoreContext {
  storage::KvStore* kv = nullptr;
  ThreadPool* pool = nullptr;
  BlockCache* cache = nullptr;
  DictionaryCache* dictionaries = nullptr;
  bool read_only = false;
  SeriesFence* series_fence = nullptr;
};

// The cache key of one frame of a block (frame 0 of an unframed block is the whole block): the
// dataset's incarnation, then its data key, then the frame index (so a dataset deleted and
// re-created under the same id never sees the old one's blocks).
inline void AppendCacheKey(uint64_t incarnation, std::string_view data_key, uint32_t frame,
                           std::string* dst) {
  dst->append(reinterpret_cast<const char*>(&incarnation), sizeof(incarnation));
  dst->append(data_key);
  dst->append(reinterpret_cast<const char*>(&frame), sizeof(frame));
}

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_BLOCKS_INTERNAL_STORE_CONTEXT_H_
