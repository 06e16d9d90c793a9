// Copyright 2026 The GridStore Authors.
//
// The one read loop of every block layout (plane_fetch.cc, series_fetch.cc): each block the
// outputs need once, however many outputs need it; served from the block cache when every frame
// it needs is there; the rest in groups, one MultiGet per group, over the pool's threads, each
// block decoded by the layout as the store hands it over. A layout says only what is its own:
// the block's key, the frames it needs, how frames reach the outputs, how a value decodes, and
// what a missing block means.
#ifndef GRIDSTORE_BLOCKS_INTERNAL_BLOCK_READ_SCHEDULER_H_
#define GRIDSTORE_BLOCKS_INTERNAL_BLOCK_READ_SCHEDULER_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/blocks/internal/store_context.h"
#include "gridstore/model/grid.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/status.h"

namespace gridstore::internal_grid {

// One stored block some outputs need. `t` and `z` are the plane's step and level in the plane
// layout, the step block and level block in the series layout; (r, c) the tile.
struct BlockTask {
  size_t output;  // the first output needing the block
  int64_t t, z, r, c;
  size_t first_target = 0, num_targets = 1;  // its outputs: BlockTasks::targets from first_target
};

// Every distinct block of a read and the outputs each serves.
struct BlockTasks {
  std::vector<BlockTask> tasks;
  std::vector<size_t> targets;

  std::span<const size_t> TargetsOf(const BlockTask& task) const {
    return {targets.data() + task.first_target, task.num_targets};
  }
};

// Merges `all` (one task per output and block, outputs in order) into one task per block,
// ordered as the data keys are (variable, t, z, r, c) so that a MultiGet walks the table
// forward. `var_of_output[o]` is output o's variable.
BlockTasks MergeSameBlocks(std::vector<BlockTask> all,
                           std::span<const grid::VariableMeta* const> var_of_output);

// The frames [first, last) of a block that a read needs; frame 0 of an unframed block is all
// of it.
struct FrameSpan {
  uint32_t first = 0, last = 1;
};

// What a layout tells the scheduler about its blocks; `task` indexes BlockTasks::tasks. Called
// from several threads at once: every method must be safe to call concurrently for different
// tasks (each task's outputs are only written by the thread holding that task).
class BlockLayoutReader {
 public:
  virtual ~BlockLayoutReader() = default;
  virtual const BlockTasks& tasks() const = 0;
  virtual void AppendDataKey(size_t task, std::string* key) const = 0;
  virtual FrameSpan FramesNeeded(size_t task) const = 0;
  // Copies the task's frames (frames[i] is frame span.first + i, from the cache) to its outputs.
  virtual void CopyFrames(size_t task, FrameSpan span,
                          std::span<const char* const> frames) const = 0;
  // Decodes the task's stored block `value` into its outputs and, with `use_cache`, caches each
  // frame decoded under AppendCacheKey(incarnation, data_key, frame).
  virtual Status Decode(size_t task, FrameSpan span, std::string_view data_key,
                        std::string_view value, bool use_cache, grid::FetchStats* local) const = 0;
  // The block is not stored: fill its outputs (counting stats->blocks_missing), or an error.
  virtual Status Missing(size_t task, grid::FetchStats* local) const = 0;
  // Which block the task is, for errors ("dataset 'd', variable 'v', ...").
  virtual std::string BlockContext(size_t task) const = 0;
};

struct BlockReadOptions {
  int parallelism = 1;
  bool use_cache = true;
  // Blocks per MultiGet at most: enough to amortize a round trip, few enough to spread the read
  // over every thread and to bound the compressed bytes one thread holds.
  size_t max_group = 64;
};

// Reads every task of `reader` (blocks of dataset `meta`). Once a group fails the rest are
// skipped (against a dead cluster each would otherwise wait out its own timeout); the first
// error is returned. Adds to *stats.
Status ReadBlocks(const BlockLayoutReader& reader, const grid::DataSetMeta& meta,
                  StoreContext* context, const BlockReadOptions& options, grid::FetchStats* stats);

// Caches frames [span.first, span.last) of a decoded block whose rows [span.first * frame_rows,
// ...) start at `rows`, each `row_bytes` long; the block has `block_rows` rows.
void CacheDecodedFrames(StoreContext* context, uint64_t incarnation, std::string_view data_key,
                        FrameSpan span, uint32_t frame_rows, uint32_t block_rows, size_t row_bytes,
                        const char* rows);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_BLOCKS_INTERNAL_BLOCK_READ_SCHEDULER_H_
