// Copyright 2026 The GridStore Authors.
#include "gridstore/blocks/internal/plane_fetch.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <utility>

#include "gridstore/blocks/internal/block_cache.h"
#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/model/internal/grid_messages.h"
#include "gridstore/util/internal/mutex.h"
#include "gridstore/util/internal/strings.h"
#include "gridstore/util/internal/thread_pool.h"

namespace gridstore::internal_grid {

using grid::BlockAddress;
using grid::BlockDictionary;
using grid::BlockNeedsDictionary;
using grid::DataSetMeta;
using grid::DataTypeSize;
using grid::FetchStats;
using grid::kPlaneLayout;
using grid::kT;
using grid::kX;
using grid::kY;
using grid::kZ;
using grid::RowsTarget;
using grid::VisitDataType;

namespace {

// One block the boxes touch, read and decoded once for every output (box) that needs it.
struct BlockTask {
  size_t output;  // the first output needing the block: index into the fetch's outputs
  int64_t t, z, r, c;
  size_t first_target = 0, num_targets = 1;  // the outputs needing it: FetchRun::targets
};

// The rows [first, second) of block (task.r, task.c), relative to the block, that lie inside the
// output box.
std::pair<uint32_t, uint32_t> RowsNeeded(const PlaneOutput& out, const BlockTask& task) {
  const BlockGeometry::Overlap o = out.geometry.OverlapOf(task.r, task.c, out.origin, out.shape);
  const int64_t bx0 = out.geometry.row_begin(task.r);
  return {static_cast<uint32_t>(o.x_lo - bx0), static_cast<uint32_t>(o.x_hi - bx0)};
}

// Copies the part of block (task.r, task.c) that lies inside the output box and inside the block's
// rows [first_row, first_row + num_rows), row by row, from `rows`, which holds those decoded rows.
void CopyOverlap(const PlaneOutput& out, const BlockTask& task, const char* rows, int64_t first_row,
                 int64_t num_rows) {
  const BlockGeometry& g = out.geometry;
  const size_t es = DataTypeSize(out.var->type);
  const int64_t bx0 = g.row_begin(task.r), by0 = g.col_begin(task.c);
  const int64_t cols = g.cols_of(task.c);
  const BlockGeometry::Overlap o = g.OverlapOf(task.r, task.c, out.origin, out.shape);
  const int64_t x_lo = std::max(o.x_lo, bx0 + first_row);
  const int64_t x_hi = std::min(o.x_hi, bx0 + first_row + num_rows);
  const size_t run = (o.y_hi - o.y_lo) * es;
  char* dst_base = out.grid->bytes();
  for (int64_t x = x_lo; x < x_hi; ++x) {
    const char* src = rows + ((x - bx0 - first_row) * cols + (o.y_lo - by0)) * es;
    char* dst = dst_base + out.grid->Offset(task.t - out.origin[kT], task.z - out.origin[kZ],
                                            x - out.origin[kX], o.y_lo - out.origin[kY]) *
                               es;
    std::memcpy(dst, src, run);
  }
}

// What every group of blocks of one fetch shares.
struct FetchRun {
  const DataSetMeta& meta;
  internal_grid::StoreContext* context;
  const std::vector<PlaneOutput>& outputs;
  const std::vector<BlockTask>& tasks;
  const std::vector<size_t>& targets;  // the outputs of each task, task.first_target onwards
  bool use_cache;

  std::span<const size_t> TargetsOf(const BlockTask& task) const {
    return {targets.data() + task.first_target, task.num_targets};
  }
};

// The frames [first, second) of block (task.r, task.c) holding the rows its outputs need.
std::pair<uint32_t, uint32_t> FramesNeeded(const FetchRun& run, const BlockTask& task) {
  uint32_t row_begin = UINT32_MAX, row_end = 0;
  for (size_t o : run.TargetsOf(task)) {
    const auto [b, e] = RowsNeeded(run.outputs[o], task);
    row_begin = std::min(row_begin, b);
    row_end = std::max(row_end, e);
  }
  const auto fr = static_cast<uint32_t>(run.outputs[task.output].geometry.frame_rows);
  return {row_begin / fr, (row_end - 1) / fr + 1};
}

// Copies decoded rows [first_row, first_row + num_rows) of the task's block into every output
// needing them.
void CopyToTargets(const FetchRun& run, const BlockTask& task, const char* rows, int64_t first_row,
                   int64_t num_rows) {
  for (size_t o : run.TargetsOf(task)) CopyOverlap(run.outputs[o], task, rows, first_row, num_rows);
}

// Serves the block's needed frames from the cache if every one of them is there (a partial hit
// reads the block anyway, so it counts as a miss). `cache_key` is scratch.
bool CopyFromCache(const FetchRun& run, const BlockTask& task, std::string_view data_key,
                   std::string* cache_key) {
  thread_local std::vector<std::shared_ptr<const DecodedBlock>> hits;
  hits.clear();
  const uint64_t incarnation = run.meta.incarnation;
  BlockCache* cache = run.context->cache;
  const auto [first, last] = FramesNeeded(run, task);
  for (uint32_t f = first; f < last; ++f) {
    cache_key->clear();
    internal_grid::AppendCacheKey(incarnation, data_key, f, cache_key);
    auto hit = cache->Lookup(*cache_key);
    if (!hit) {
      hits.clear();
      return false;
    }
    hits.push_back(std::move(hit));
  }
  const int64_t fr = run.outputs[task.output].geometry.frame_rows;
  for (uint32_t f = first; f < last; ++f) {
    CopyToTargets(run, task, hits[f - first]->data.get(), f * fr, fr);
  }
  hits.clear();
  return true;
}

// Writes the variable's fill value (zero if it has none) over the block's overlap.
void FillOverlap(const PlaneOutput& out, const BlockTask& task) {
  const BlockGeometry::Overlap o = out.geometry.OverlapOf(task.r, task.c, out.origin, out.shape);
  VisitDataType(out.var->type, [&](auto tag) {
    using T = decltype(tag);
    T fill{};
    if (out.var->has_fill_value()) std::memcpy(&fill, out.var->fill_value.data(), sizeof(T));
    T* base = reinterpret_cast<T*>(out.grid->bytes());
    for (int64_t x = o.x_lo; x < o.x_hi; ++x) {
      T* dst = base + out.grid->Offset(task.t - out.origin[kT], task.z - out.origin[kZ],
                                       x - out.origin[kX], o.y_lo - out.origin[kY]);
      std::fill(dst, dst + (o.y_hi - o.y_lo), fill);
    }
  });
}

// One task per distinct block the outputs' boxes touch, in variable, t, z, block row, block
// column order; a block several boxes touch is one task with several targets.
std::vector<BlockTask> PlanTasks(const std::vector<PlaneOutput>& outputs,
                                 std::vector<size_t>* targets) {
  std::vector<BlockTask> all;
  for (size_t o = 0; o < outputs.size(); ++o) {
    const PlaneOutput& out = outputs[o];
    const BlockGeometry::BlockRange blocks = out.geometry.BlocksOf(out.origin, out.shape);
    for (int64_t t = out.origin[kT]; t < out.origin[kT] + out.shape[kT]; ++t) {
      for (int64_t z = out.origin[kZ]; z < out.origin[kZ] + out.shape[kZ]; ++z) {
        for (int64_t r = blocks.r_begin; r < blocks.r_end; ++r) {
          for (int64_t c = blocks.c_begin; c < blocks.c_end; ++c) {
            all.push_back(BlockTask{o, t, z, r, c});
          }
        }
      }
    }
  }
  auto block_of = [&](const BlockTask& b) {
    return std::tuple(outputs[b.output].var, b.t, b.z, b.r, b.c);
  };
  if (outputs.size() > 1) {
    std::stable_sort(all.begin(), all.end(), [&](const BlockTask& a, const BlockTask& b) {
      return block_of(a) < block_of(b);
    });
  }
  std::vector<BlockTask> tasks;
  targets->clear();
  for (const BlockTask& b : all) {
    if (tasks.empty() || block_of(tasks.back()) != block_of(b)) {
      tasks.push_back(b);
      tasks.back().first_target = targets->size();
      tasks.back().num_targets = 0;
    }
    targets->push_back(b.output);
    ++tasks.back().num_targets;
  }
  return tasks;
}

// Which block a task is, for error messages (built only on error: formatting it for every block
// would cost more than a small copy).
std::string BlockContext(const FetchRun& run, const BlockTask& task) {
  return "dataset " + Quote(run.meta.id) + ", " +
         internal_grid::BlockName(run.outputs[task.output].var->name, task.t, task.z, task.r,
                                  task.c);
}

// Decodes the part of the stored block `value` of `task` that its one output needs straight into
// that output's rows (no buffer, no copy).
Status DecodeStraightIntoOutput(const FetchRun& run, const BlockTask& task, std::string_view value,
                                const BlockDictionary* dictionary, FetchStats* local) {
  const PlaneOutput& out = run.outputs[task.output];
  const BlockGeometry& g = out.geometry;
  const size_t es = DataTypeSize(out.var->type);
  const BlockGeometry::Overlap o = g.OverlapOf(task.r, task.c, out.origin, out.shape);
  const int64_t bx0 = g.row_begin(task.r), by0 = g.col_begin(task.c);
  RowsTarget target;
  target.base =
      out.grid->bytes() + out.grid->Offset(task.t - out.origin[kT], task.z - out.origin[kZ],
                                           o.x_lo - out.origin[kX], o.y_lo - out.origin[kY]) *
                              es;
  target.row_stride = static_cast<size_t>(out.shape[kY]) * es;
  target.col_begin = static_cast<uint32_t>(o.y_lo - by0);
  target.col_end = static_cast<uint32_t>(o.y_hi - by0);
  size_t bytes_decoded = 0;
  GRIDSTORE_RETURN_IF_ERROR(DecodeBlockRowsInto(
      value, out.var->type, static_cast<uint32_t>(g.rows_of(task.r)),
      static_cast<uint32_t>(g.cols_of(task.c)), static_cast<uint32_t>(o.x_lo - bx0),
      static_cast<uint32_t>(o.x_hi - bx0), target, &bytes_decoded, dictionary));
  ++local->blocks_read;
  local->bytes_read += static_cast<int64_t>(value.size());
  local->bytes_decompressed += static_cast<int64_t>(bytes_decoded);
  return Status::OK();
}

// Whether the task's one output holds whole every frame the task decodes: all the block's
// columns, and the frames' rows. Then the cache can be filled from the output.
bool HoldsWholeFrames(const FetchRun& run, const BlockTask& task) {
  const PlaneOutput& out = run.outputs[task.output];
  const BlockGeometry& g = out.geometry;
  const BlockGeometry::Overlap o = g.OverlapOf(task.r, task.c, out.origin, out.shape);
  const int64_t bx0 = g.row_begin(task.r), by0 = g.col_begin(task.c);
  if (o.y_lo != by0 || o.y_hi != by0 + g.cols_of(task.c)) return false;
  const auto [first, last] = FramesNeeded(run, task);
  return bx0 + first * g.frame_rows >= o.x_lo &&
         std::min(bx0 + last * g.frame_rows, bx0 + g.rows_of(task.r)) <= o.x_hi;
}

// Caches the frames of the task's block from its one output's rows (HoldsWholeFrames).
void CacheFramesFromOutput(const FetchRun& run, const BlockTask& task, std::string_view data_key) {
  const PlaneOutput& out = run.outputs[task.output];
  const BlockGeometry& g = out.geometry;
  const size_t es = DataTypeSize(out.var->type);
  const size_t row_bytes = static_cast<size_t>(g.cols_of(task.c)) * es;
  const int64_t bx0 = g.row_begin(task.r), by0 = g.col_begin(task.c), rows = g.rows_of(task.r);
  const auto [first, last] = FramesNeeded(run, task);
  std::string cache_key;
  for (uint32_t f = first; f < last; ++f) {
    const int64_t fb = f * g.frame_rows, fe = std::min(rows, fb + g.frame_rows);
    auto frame = std::make_shared<DecodedBlock>(static_cast<size_t>(fe - fb) * row_bytes);
    for (int64_t r = fb; r < fe; ++r) {
      const size_t at = out.grid->Offset(task.t - out.origin[kT], task.z - out.origin[kZ],
                                         bx0 + r - out.origin[kX], by0 - out.origin[kY]);
      std::memcpy(frame->data.get() + (r - fb) * row_bytes, out.grid->bytes() + at * es, row_bytes);
    }
    cache_key.clear();
    AppendCacheKey(run.meta.incarnation, data_key, f, &cache_key);
    run.context->cache->Insert(cache_key, std::move(frame));
  }
}

// Decodes the stored block `value` (key `data_key`) of `task` into its outputs: only the frames
// holding the rows the boxes need (all rows of an unframed block), each cached on its own so that
// a later point read hits without decoding more.
Status DecodeIntoOutput(const FetchRun& run, const BlockTask& task, std::string_view data_key,
                        std::string_view value, FetchStats* local) {
  thread_local std::string scratch;
  const PlaneOutput& out = run.outputs[task.output];
  std::shared_ptr<const BlockDictionary> dictionary;
  if (BlockNeedsDictionary(value)) {
    GRIDSTORE_ASSIGN_OR_RETURN(dictionary, run.context->dictionaries->Get(run.meta, out.var->name));
  }
  if (task.num_targets == 1 && (!run.use_cache || HoldsWholeFrames(run, task))) {
    GRIDSTORE_RETURN_IF_ERROR(DecodeStraightIntoOutput(run, task, value, dictionary.get(), local));
    if (run.use_cache) CacheFramesFromOutput(run, task, data_key);
    return Status::OK();
  }
  const uint32_t rows = static_cast<uint32_t>(out.geometry.rows_of(task.r));
  const uint32_t cols = static_cast<uint32_t>(out.geometry.cols_of(task.c));
  const size_t row_bytes = size_t{cols} * DataTypeSize(out.var->type);
  const auto fr = static_cast<uint32_t>(out.geometry.frame_rows);
  const auto [first, last] = FramesNeeded(run, task);
  const uint32_t row_begin = first * fr, row_end = std::min(rows, last * fr);
  const size_t bytes = (row_end - row_begin) * row_bytes;
  std::shared_ptr<DecodedBlock> single;  // one frame: decoded straight into its cache entry
  char* dst;
  if (run.use_cache && last - first == 1) {
    single = std::make_shared<DecodedBlock>(bytes);
    dst = single->data.get();
  } else {
    scratch.resize(bytes);
    dst = scratch.data();
  }
  size_t bytes_decoded = 0;
  GRIDSTORE_RETURN_IF_ERROR(DecodeBlockRows(value, out.var->type, rows, cols, row_begin, row_end,
                                            dst, &bytes_decoded, dictionary.get()));
  CopyToTargets(run, task, dst, row_begin, row_end - row_begin);
  ++local->blocks_read;
  local->bytes_read += static_cast<int64_t>(value.size());
  local->bytes_decompressed += static_cast<int64_t>(bytes_decoded);
  if (!run.use_cache) return Status::OK();
  std::string cache_key;
  for (uint32_t f = first; f < last; ++f) {
    cache_key.clear();
    internal_grid::AppendCacheKey(run.meta.incarnation, data_key, f, &cache_key);
    std::shared_ptr<DecodedBlock> frame = std::move(single);
    if (!frame) {
      const uint32_t fb = f * fr, fe = std::min(rows, fb + fr);
      frame = std::make_shared<DecodedBlock>((fe - fb) * row_bytes);
      std::memcpy(frame->data.get(), dst + (fb - row_begin) * row_bytes, frame->size);
    }
    run.context->cache->Insert(cache_key, std::move(frame));
  }
  return Status::OK();
}

// Fetches tasks [begin, end): blocks whose frames are all cached are copied from the cache, the
// rest read with one MultiGet and decoded on this thread. A missing block reads as fill values.
Status FetchGroup(const FetchRun& run, size_t begin, size_t end, FetchStats* local) {
  std::vector<std::string> keys(end - begin);
  std::string cache_key;
  std::vector<size_t> misses;  // indices into [begin, end)
  for (size_t i = begin; i < end; ++i) {
    const BlockTask& task = run.tasks[i];
    const PlaneOutput& out = run.outputs[task.output];
    std::string& key = keys[i - begin];
    AppendDataKey(BlockAddress{run.meta.id, run.meta.key_incarnation(), out.var->name, kPlaneLayout,
                               static_cast<uint32_t>(task.t), static_cast<uint32_t>(task.z),
                               static_cast<uint32_t>(task.r), static_cast<uint32_t>(task.c)},
                  &key);
    if (run.use_cache && CopyFromCache(run, task, key, &cache_key)) {
      ++local->cache_hits;
      continue;
    }
    misses.push_back(i - begin);
  }
  if (misses.empty()) return Status::OK();
  std::vector<std::string_view> miss_keys;
  miss_keys.reserve(misses.size());
  for (size_t m : misses) miss_keys.push_back(keys[m]);
  // Each block is decoded from the store's own memory as it is handed over (no copy); after the
  // first error the rest are not decoded.
  Status first_error;
  std::vector<Status> statuses;
  run.context->kv->MultiGetVisit(storage::ReadOptions{}, storage::Table::kData, miss_keys,
                                 &statuses, [&](size_t j, std::string_view value) {
                                   if (!first_error.ok()) return;
                                   const BlockTask& task = run.tasks[begin + misses[j]];
                                   Status s =
                                       DecodeIntoOutput(run, task, keys[misses[j]], value, local);
                                   if (!s.ok())
                                     first_error = s.WithContext(BlockContext(run, task));
                                 });
  for (size_t j = 0; j < misses.size(); ++j) {
    const BlockTask& task = run.tasks[begin + misses[j]];
    if (statuses[j].IsNotFound()) {
      for (size_t o : run.TargetsOf(task)) FillOverlap(run.outputs[o], task);
      ++local->blocks_missing;
      continue;
    }
    if (!statuses[j].ok()) return statuses[j].WithContext("reading " + BlockContext(run, task));
  }
  return first_error;
}

void AddPlaneStats(const FetchStats& from, FetchStats* to) {
  to->blocks_read += from.blocks_read;
  to->blocks_missing += from.blocks_missing;
  to->cache_hits += from.cache_hits;
  to->bytes_read += from.bytes_read;
  to->bytes_decompressed += from.bytes_decompressed;
}

}  // namespace

Status FetchPlanes(const DataSetMeta& meta, StoreContext* context,
                   const std::vector<PlaneOutput>& outputs, int parallelism, bool use_cache,
                   FetchStats* stats) {
  std::vector<size_t> targets;
  const std::vector<BlockTask> tasks = PlanTasks(outputs, &targets);
  stats->blocks += static_cast<int64_t>(tasks.size());
  // Groups of blocks, each read with one MultiGet and decoded by one thread, small enough to
  // spread over every thread and to bound the compressed bytes held at once.
  const size_t group_size =
      std::clamp<size_t>((tasks.size() + 4 * parallelism - 1) / (4 * parallelism), 1, 64);
  const size_t groups = (tasks.size() + group_size - 1) / group_size;
  const FetchRun run{meta, context, outputs, tasks, targets, use_cache};
  Mutex mu;
  Status first_error;
  // Once a group fails, the rest are skipped: against a dead cluster each would otherwise wait
  // out its own op timeout before the fetch could report the first error.
  std::atomic<bool> failed{false};
  ParallelFor(context->pool, groups, parallelism, [&](size_t group) {
    if (failed.load(std::memory_order_relaxed)) return;
    const size_t begin = group * group_size, end = std::min(tasks.size(), begin + group_size);
    FetchStats local;
    const Status status = FetchGroup(run, begin, end, &local);
    MutexLock lock(&mu);
    if (!status.ok()) failed.store(true, std::memory_order_relaxed);
    if (!status.ok() && first_error.ok()) first_error = status;
    AddPlaneStats(local, stats);
  });
  return first_error;
}

}  // namespace gridstore::internal_grid
