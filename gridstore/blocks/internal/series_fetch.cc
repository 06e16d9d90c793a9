// Copyright 2026 The GridStore Authors.
#include "gridstore/blocks/internal/series_fetch.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <utility>

#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/blocks/internal/series_geometry.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/util/internal/mutex.h"
#include "gridstore/util/internal/strings.h"
#include "gridstore/util/internal/thread_pool.h"

namespace gridstore::internal_grid {

using grid::kT;
using grid::kX;
using grid::kY;
using grid::kZ;

namespace {

// One series block the boxes touch, read and decoded once for every output needing it.
struct Task {
  size_t output;  // the first output needing it
  int64_t tb, zb, r, c;
  size_t first_target = 0, num_targets = 1;
};

struct Run {
  const grid::DataSetMeta& meta;
  StoreContext* context;
  const std::vector<SeriesOutput>& outputs;
  const std::vector<Task>& tasks;
  const std::vector<size_t>& targets;
  bool use_cache;

  std::span<const size_t> TargetsOf(const Task& task) const {
    return {targets.data() + task.first_target, task.num_targets};
  }
  SeriesGeometry GeometryOf(const Task& task) const {
    return SeriesGeometry(*outputs[task.output].var, *meta.series);
  }
};

std::vector<Task> PlanTasks(const grid::DataSetMeta& meta, const std::vector<SeriesOutput>& outputs,
                            std::vector<size_t>* targets) {
  std::vector<Task> all;
  for (size_t o = 0; o < outputs.size(); ++o) {
    const SeriesOutput& out = outputs[o];
    const SeriesGeometry g(*out.var, *meta.series);
    const SeriesGeometry::BlockRange b = g.BlocksOf(out.origin, out.shape);
    for (int64_t zb = b.zb_begin; zb < b.zb_end; ++zb) {
      for (int64_t tb = b.tb_begin; tb < b.tb_end; ++tb) {
        for (int64_t r = b.r_begin; r < b.r_end; ++r) {
          for (int64_t c = b.c_begin; c < b.c_end; ++c) all.push_back(Task{o, tb, zb, r, c});
        }
      }
    }
  }
  auto block_of = [&](const Task& t) {
    return std::tuple(outputs[t.output].var, t.zb, t.tb, t.r, t.c);
  };
  if (outputs.size() > 1) {
    std::stable_sort(all.begin(), all.end(),
                     [&](const Task& a, const Task& b) { return block_of(a) < block_of(b); });
  }
  std::vector<Task> tasks;
  targets->clear();
  for (const Task& t : all) {
    if (tasks.empty() || block_of(tasks.back()) != block_of(t)) {
      tasks.push_back(t);
      tasks.back().first_target = targets->size();
      tasks.back().num_targets = 0;
    }
    targets->push_back(t.output);
    ++tasks.back().num_targets;
  }
  return tasks;
}

// The frames [first, last) of the task's block holding the rows its outputs need, the rows per
// frame, and the block's rows.
struct FrameSpan {
  uint32_t first, last, frame_rows, rows;
};
FrameSpan FramesNeeded(const Run& run, const Task& task) {
  const SeriesGeometry g = run.GeometryOf(task);
  int64_t row_lo = INT64_MAX, row_hi = 0;
  for (size_t o : run.TargetsOf(task)) {
    const SeriesOutput& out = run.outputs[o];
    const SeriesGeometry::Overlap ov =
        g.OverlapOf(task.tb, task.zb, task.r, task.c, out.origin, out.shape);
    row_lo = std::min(row_lo, ov.row_lo);
    row_hi = std::max(row_hi, ov.row_hi);
  }
  const int64_t rows = g.block_rows(task.zb, task.r, task.c);
  const uint32_t codec_fr = g.codec_frame_rows(rows);
  const auto fr = static_cast<uint32_t>(codec_fr > 0 ? codec_fr : rows);
  return {static_cast<uint32_t>(row_lo / fr), static_cast<uint32_t>((row_hi - 1) / fr + 1), fr,
          static_cast<uint32_t>(rows)};
}

// Copies the task's block, whose frame f (of those FramesNeeded gave) starts at frames[f - first],
// into every output needing it.
void CopyToTargets(const Run& run, const Task& task, const FrameSpan& span,
                   const std::vector<const char*>& frames) {
  const SeriesGeometry g = run.GeometryOf(task);
  const int64_t steps = g.steps_of(task.tb);
  for (size_t o : run.TargetsOf(task)) {
    const SeriesOutput& out = run.outputs[o];
    const SeriesGeometry::Overlap ov =
        g.OverlapOf(task.tb, task.zb, task.r, task.c, out.origin, out.shape);
    grid::VisitDataType(out.var->type, [&](auto tag) {
      using T = decltype(tag);
      T* base = reinterpret_cast<T*>(out.grid->bytes());
      const size_t t_stride = out.grid->Offset(1, 0, 0, 0);
      for (int64_t z = ov.z_lo; z < ov.z_hi; ++z) {
        for (int64_t x = ov.x_lo; x < ov.x_hi; ++x) {
          for (int64_t y = ov.y_lo; y < ov.y_hi; ++y) {
            T* dst = base + out.grid->Offset(ov.t_lo - out.origin[kT], z - out.origin[kZ],
                                             x - out.origin[kX], y - out.origin[kY]);
            const int64_t row = g.RowOf(task.zb, task.r, task.c, x, y, z);
            const char* src =
                frames[row / span.frame_rows - span.first] +
                ((row % span.frame_rows) * steps + ov.t_lo - g.step_begin(task.tb)) * sizeof(T);
            for (int64_t t = ov.t_lo; t < ov.t_hi; ++t, dst += t_stride, src += sizeof(T)) {
              std::memcpy(dst, src, sizeof(T));
            }
          }
        }
      }
    });
  }
}

std::string BlockContext(const Run& run, const Task& task) {
  return "dataset " + Quote(run.meta.id) + ", variable " +
         Quote(run.outputs[task.output].var->name) + ", series block of steps " +
         std::to_string(task.tb) + ", levels block " + std::to_string(task.zb) + ", tile (" +
         std::to_string(task.r) + ", " + std::to_string(task.c) + ")";
}

// Serves the task from the cache if every frame it needs is there.
bool CopyFromCache(const Run& run, const Task& task, const FrameSpan& span,
                   std::string_view data_key) {
  std::vector<std::shared_ptr<const DecodedBlock>> hits;
  std::string cache_key;
  for (uint32_t f = span.first; f < span.last; ++f) {
    cache_key.clear();
    AppendCacheKey(run.meta.incarnation, data_key, f, &cache_key);
    auto hit = run.context->cache->Lookup(cache_key);
    if (!hit) return false;
    hits.push_back(std::move(hit));
  }
  std::vector<const char*> frames;
  for (const auto& hit : hits) frames.push_back(hit->data.get());
  CopyToTargets(run, task, span, frames);
  return true;
}

// Decodes the frames the task needs from its stored block `value`, copies them to the
// outputs and caches each frame on its own.
Status Decode(const Run& run, const Task& task, const FrameSpan& span, std::string_view data_key,
              std::string_view value, grid::FetchStats* local) {
  const SeriesOutput& out = run.outputs[task.output];
  const SeriesGeometry g = run.GeometryOf(task);
  const auto steps = static_cast<uint32_t>(g.steps_of(task.tb));
  const size_t row_bytes = size_t{steps} * grid::DataTypeSize(out.var->type);
  const uint32_t row_begin = span.first * span.frame_rows;
  const uint32_t row_end = std::min(span.rows, span.last * span.frame_rows);
  thread_local std::string scratch;
  scratch.resize((row_end - row_begin) * row_bytes);
  size_t decoded = 0;
  GRIDSTORE_RETURN_IF_ERROR(grid::DecodeBlockRows(value, out.var->type, span.rows, steps, row_begin,
                                                  row_end, scratch.data(), &decoded));
  std::vector<const char*> frames;
  for (uint32_t f = span.first; f < span.last; ++f) {
    frames.push_back(scratch.data() + (f * span.frame_rows - row_begin) * row_bytes);
  }
  CopyToTargets(run, task, span, frames);
  ++local->blocks_read;
  local->bytes_read += static_cast<int64_t>(value.size());
  local->bytes_decompressed += static_cast<int64_t>(decoded);
  if (!run.use_cache) return Status::OK();
  std::string cache_key;
  for (uint32_t f = span.first; f < span.last; ++f) {
    const uint32_t fb = f * span.frame_rows, fe = std::min(span.rows, fb + span.frame_rows);
    auto frame = std::make_shared<DecodedBlock>((fe - fb) * row_bytes);
    std::memcpy(frame->data.get(), frames[f - span.first], frame->size);
    cache_key.clear();
    AppendCacheKey(run.meta.incarnation, data_key, f, &cache_key);
    run.context->cache->Insert(cache_key, std::move(frame));
  }
  return Status::OK();
}

Status FetchGroup(const Run& run, size_t begin, size_t end, grid::FetchStats* local) {
  std::vector<std::string> keys(end - begin);
  std::vector<FrameSpan> spans(end - begin);
  std::vector<size_t> misses;
  for (size_t i = begin; i < end; ++i) {
    const Task& task = run.tasks[i];
    std::string& key = keys[i - begin];
    AppendDataKey(grid::BlockAddress{run.meta.id, run.meta.key_incarnation(),
                                     run.outputs[task.output].var->name, grid::kSeriesLayout,
                                     static_cast<uint32_t>(task.tb), static_cast<uint32_t>(task.zb),
                                     static_cast<uint32_t>(task.r), static_cast<uint32_t>(task.c)},
                  &key);
    spans[i - begin] = FramesNeeded(run, task);
    if (run.use_cache && CopyFromCache(run, task, spans[i - begin], key)) {
      ++local->cache_hits;
      continue;
    }
    misses.push_back(i - begin);
  }
  if (misses.empty()) return Status::OK();
  std::vector<std::string_view> miss_keys;
  for (size_t m : misses) miss_keys.push_back(keys[m]);
  std::vector<std::string> values;
  std::vector<Status> statuses;
  run.context->kv->MultiGet(storage::ReadOptions{}, storage::Table::kData, miss_keys, &values,
                            &statuses);
  for (size_t j = 0; j < misses.size(); ++j) {
    const Task& task = run.tasks[begin + misses[j]];
    if (statuses[j].IsNotFound()) {
      // A ready series layout has every block: this one was dropped (or the dataset deleted)
      // since the fetch read the meta.
      return Status::Aborted(BlockContext(run, task) +
                             " is gone: the series layout was dropped or the dataset deleted "
                             "while it was read; fetch again");
    }
    if (!statuses[j].ok()) return statuses[j].WithContext("reading " + BlockContext(run, task));
    Status s = Decode(run, task, spans[misses[j]], keys[misses[j]], values[j], local);
    if (!s.ok()) return s.WithContext(BlockContext(run, task));
  }
  return Status::OK();
}

}  // namespace

Status FetchSeries(const grid::DataSetMeta& meta, StoreContext* context,
                   const std::vector<SeriesOutput>& outputs, int parallelism, bool use_cache,
                   grid::FetchStats* stats) {
  std::vector<size_t> targets;
  const std::vector<Task> tasks = PlanTasks(meta, outputs, &targets);
  const Run run{meta, context, outputs, tasks, targets, use_cache};
  const size_t group_size =
      std::clamp<size_t>((tasks.size() + 4 * parallelism - 1) / (4 * parallelism), 1, 16);
  const size_t groups = (tasks.size() + group_size - 1) / group_size;
  Mutex mu;
  Status first_error;
  std::atomic<bool> failed{false};
  stats->blocks += static_cast<int64_t>(tasks.size());
  ParallelFor(context->pool, groups, parallelism, [&](size_t group) {
    if (failed.load(std::memory_order_relaxed)) return;
    const size_t begin = group * group_size, end = std::min(tasks.size(), begin + group_size);
    grid::FetchStats local;
    const Status status = FetchGroup(run, begin, end, &local);
    MutexLock lock(&mu);
    if (!status.ok()) failed.store(true, std::memory_order_relaxed);
    if (!status.ok() && first_error.ok()) first_error = status;
    stats->blocks_read += local.blocks_read;
    stats->blocks_missing += local.blocks_missing;
    stats->cache_hits += local.cache_hits;
    stats->bytes_read += local.bytes_read;
    stats->bytes_decompressed += local.bytes_decompressed;
  });
  return first_error;
}

}  // namespace gridstore::internal_grid
