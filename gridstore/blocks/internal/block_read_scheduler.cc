// Copyright 2026 The GridStore Authors.
#include "gridstore/blocks/internal/block_read_scheduler.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <tuple>
#include <utility>

#include "gridstore/blocks/internal/block_cache.h"
#include "gridstore/util/internal/mutex.h"
#include "gridstore/util/internal/thread_pool.h"

namespace gridstore::internal_grid {

namespace {

// Serves the task from the cache if every frame it needs is there (a partial hit reads the
// block anyway, so it counts as a miss).
bool CopyFromCache(const BlockLayoutReader& reader, size_t task, FrameSpan span,
                   std::string_view data_key, uint64_t incarnation, BlockCache* cache) {
  thread_local std::vector<std::shared_ptr<const DecodedBlock>> hits;
  thread_local std::vector<const char*> frames;
  thread_local std::string cache_key;
  hits.clear();
  frames.clear();
  for (uint32_t f = span.first; f < span.last; ++f) {
    cache_key.clear();
    AppendCacheKey(incarnation, data_key, f, &cache_key);
    std::shared_ptr<const DecodedBlock> hit = cache->Lookup(cache_key);
    if (!hit) {
      hits.clear();
      return false;
    }
    frames.push_back(hit->data.get());
    hits.push_back(std::move(hit));
  }
  reader.CopyFrames(task, span, frames);
  hits.clear();
  return true;
}

// Reads tasks [begin, end): those whose frames are all cached from the cache, the rest with one
// MultiGet, each decoded from the store's own memory as it is handed over (no copy).
Status ReadGroup(const BlockLayoutReader& reader, const grid::DataSetMeta& meta,
                 StoreContext* context, bool use_cache, size_t begin, size_t end,
                 grid::FetchStats* local) {
  std::vector<std::string> keys(end - begin);
  std::vector<FrameSpan> spans(end - begin);  // each computed once, for the cache and the decode
  std::vector<size_t> misses;                 // indices into [begin, end)
  for (size_t i = begin; i < end; ++i) {
    std::string& key = keys[i - begin];
    reader.AppendDataKey(i, &key);
    spans[i - begin] = reader.FramesNeeded(i);
    if (use_cache &&
        CopyFromCache(reader, i, spans[i - begin], key, meta.incarnation, context->cache)) {
      ++local->cache_hits;
      continue;
    }
    misses.push_back(i - begin);
  }
  if (misses.empty()) return Status::OK();
  std::vector<std::string_view> miss_keys;
  miss_keys.reserve(misses.size());
  for (size_t m : misses) miss_keys.push_back(keys[m]);
  Status first_error;  // after it, the rest are not decoded
  std::vector<Status> statuses;
  context->kv->MultiGetVisit(storage::ReadOptions{}, storage::Table::kData, miss_keys, &statuses,
                             [&](size_t j, std::string_view value) {
                               if (!first_error.ok()) return;
                               const size_t task = begin + misses[j];
                               Status s = reader.Decode(task, spans[misses[j]], keys[misses[j]],
                                                        value, use_cache, local);
                               if (!s.ok()) first_error = s.WithContext(reader.BlockContext(task));
                             });
  if (!first_error.ok()) return first_error;
  for (size_t j = 0; j < misses.size(); ++j) {
    const size_t task = begin + misses[j];
    if (statuses[j].IsNotFound()) {
      GRIDSTORE_RETURN_IF_ERROR(reader.Missing(task, local));
      continue;
    }
    if (!statuses[j].ok()) return statuses[j].WithContext("reading " + reader.BlockContext(task));
  }
  return Status::OK();
}

void AddReadStats(const grid::FetchStats& from, grid::FetchStats* to) {
  to->blocks_read += from.blocks_read;
  to->blocks_missing += from.blocks_missing;
  to->cache_hits += from.cache_hits;
  to->bytes_read += from.bytes_read;
  to->bytes_decompressed += from.bytes_decompressed;
}

}  // namespace

BlockTasks MergeSameBlocks(std::vector<BlockTask> all,
                           std::span<const grid::VariableMeta* const> var_of_output) {
  auto block_of = [&](const BlockTask& b) {
    return std::tuple(var_of_output[b.output], b.t, b.z, b.r, b.c);
  };
  if (var_of_output.size() > 1) {
    std::stable_sort(all.begin(), all.end(), [&](const BlockTask& a, const BlockTask& b) {
      return block_of(a) < block_of(b);
    });
  }
  BlockTasks merged;
  for (const BlockTask& b : all) {
    if (merged.tasks.empty() || block_of(merged.tasks.back()) != block_of(b)) {
      merged.tasks.push_back(b);
      merged.tasks.back().first_target = merged.targets.size();
      merged.tasks.back().num_targets = 0;
    }
    merged.targets.push_back(b.output);
    ++merged.tasks.back().num_targets;
  }
  return merged;
}

Status ReadBlocks(const BlockLayoutReader& reader, const grid::DataSetMeta& meta,
                  StoreContext* context, const BlockReadOptions& options, grid::FetchStats* stats) {
  const size_t n = reader.tasks().tasks.size();
  stats->blocks += static_cast<int64_t>(n);
  const size_t threads = static_cast<size_t>(std::max(1, options.parallelism));
  const size_t group_size =
      std::clamp<size_t>((n + 4 * threads - 1) / (4 * threads), 1, options.max_group);
  const size_t groups = (n + group_size - 1) / group_size;
  Mutex mu;
  Status first_error;
  std::atomic<bool> failed{false};
  ParallelFor(context->pool, groups, options.parallelism, [&](size_t group) {
    if (failed.load(std::memory_order_relaxed)) return;
    const size_t begin = group * group_size, end = std::min(n, begin + group_size);
    grid::FetchStats local;
    const Status status = ReadGroup(reader, meta, context, options.use_cache, begin, end, &local);
    MutexLock lock(&mu);
    if (!status.ok()) failed.store(true, std::memory_order_relaxed);
    if (!status.ok() && first_error.ok()) first_error = status;
    AddReadStats(local, stats);
  });
  return first_error;
}

void CacheDecodedFrames(StoreContext* context, uint64_t incarnation, std::string_view data_key,
                        FrameSpan span, uint32_t frame_rows, uint32_t block_rows, size_t row_bytes,
                        const char* rows) {
  std::string cache_key;
  for (uint32_t f = span.first; f < span.last; ++f) {
    const uint32_t fb = f * frame_rows, fe = std::min(block_rows, fb + frame_rows);
    auto frame = std::make_shared<DecodedBlock>((fe - fb) * row_bytes);
    std::memcpy(frame->data.get(), rows + size_t{fb - span.first * frame_rows} * row_bytes,
                frame->size);
    cache_key.clear();
    AppendCacheKey(incarnation, data_key, f, &cache_key);
    context->cache->Insert(cache_key, std::move(frame));
  }
}

}  // namespace gridstore::internal_grid
