// Copyright 2026 The GridStore Authors.
#include "gridstore/blocks/internal/plane_fetch.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "gridstore/blocks/internal/block_cache.h"
#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/blocks/internal/block_read_scheduler.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/model/internal/grid_messages.h"
#include "gridstore/util/internal/strings.h"

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
    char* dst = dst_base +
                out.grid->Offset(task.t - out.grid->origin()[kT], task.z - out.grid->origin()[kZ],
                                 x - out.grid->origin()[kX], o.y_lo - out.grid->origin()[kY]) *
                    es;
    std::memcpy(dst, src, run);
  }
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
      T* dst =
          base + out.grid->Offset(task.t - out.grid->origin()[kT], task.z - out.grid->origin()[kZ],
                                  x - out.grid->origin()[kX], o.y_lo - out.grid->origin()[kY]);
      std::fill(dst, dst + (o.y_hi - o.y_lo), fill);
    }
  });
}

// One task per distinct block the outputs' boxes touch; a block several boxes touch is one task
// with several targets.
BlockTasks PlanTasks(const std::vector<PlaneOutput>& outputs) {
  std::vector<BlockTask> all;
  std::vector<const grid::VariableMeta*> vars;
  for (size_t o = 0; o < outputs.size(); ++o) {
    const PlaneOutput& out = outputs[o];
    vars.push_back(out.var);
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
  return MergeSameBlocks(std::move(all), vars);
}

// The plane layout's side of ReadBlocks.
class PlaneReader final : public BlockLayoutReader {
 public:
  PlaneReader(const DataSetMeta& meta, StoreContext* context,
              const std::vector<PlaneOutput>& outputs)
      : meta_(meta), context_(context), outputs_(outputs), tasks_(PlanTasks(outputs)) {}

  const BlockTasks& tasks() const override { return tasks_; }

  void AppendDataKey(size_t i, std::string* key) const override {
    const BlockTask& task = tasks_.tasks[i];
    grid::AppendDataKey(
        BlockAddress{meta_.id, meta_.key_incarnation(), outputs_[task.output].var->name,
                     kPlaneLayout, static_cast<uint32_t>(task.t), static_cast<uint32_t>(task.z),
                     static_cast<uint32_t>(task.r), static_cast<uint32_t>(task.c)},
        key);
  }

  // The frames holding the rows the task's outputs need.
  FrameSpan FramesNeeded(size_t i) const override {
    const BlockTask& task = tasks_.tasks[i];
    uint32_t row_begin = UINT32_MAX, row_end = 0;
    for (size_t o : tasks_.TargetsOf(task)) {
      const auto [b, e] = RowsNeeded(outputs_[o], task);
      row_begin = std::min(row_begin, b);
      row_end = std::max(row_end, e);
    }
    const auto fr = static_cast<uint32_t>(outputs_[task.output].geometry.frame_rows);
    return {row_begin / fr, (row_end - 1) / fr + 1};
  }

  void CopyFrames(size_t i, FrameSpan span, std::span<const char* const> frames) const override {
    const BlockTask& task = tasks_.tasks[i];
    const int64_t fr = outputs_[task.output].geometry.frame_rows;
    for (uint32_t f = span.first; f < span.last; ++f) {
      CopyToTargets(task, frames[f - span.first], f * fr, fr);
    }
  }

  Status Decode(size_t i, FrameSpan span, std::string_view data_key, std::string_view value,
                bool use_cache, FetchStats* local) const override;

  Status Missing(size_t i, FetchStats* local) const override {
    const BlockTask& task = tasks_.tasks[i];
    for (size_t o : tasks_.TargetsOf(task)) FillOverlap(outputs_[o], task);
    ++local->blocks_missing;
    return Status::OK();
  }

  // Built only on error: formatting it for every block would cost more than a small copy.
  std::string BlockContext(size_t i) const override {
    const BlockTask& task = tasks_.tasks[i];
    return "dataset " + Quote(meta_.id) + ", " +
           internal_grid::BlockName(outputs_[task.output].var->name, task.t, task.z, task.r,
                                    task.c);
  }

 private:
  // Copies decoded rows [first_row, first_row + num_rows) of the task's block into every output
  // needing them.
  void CopyToTargets(const BlockTask& task, const char* rows, int64_t first_row,
                     int64_t num_rows) const {
    for (size_t o : tasks_.TargetsOf(task)) {
      CopyOverlap(outputs_[o], task, rows, first_row, num_rows);
    }
  }
  Status DecodeStraightIntoOutput(const BlockTask& task, std::string_view value,
                                  const BlockDictionary* dictionary, FetchStats* local) const;
  bool HoldsWholeFrames(const BlockTask& task, FrameSpan span) const;
  void CacheFramesFromOutput(const BlockTask& task, FrameSpan span,
                             std::string_view data_key) const;

  const DataSetMeta& meta_;
  StoreContext* const context_;
  const std::vector<PlaneOutput>& outputs_;
  const BlockTasks tasks_;
};

// Decodes the part of the stored block `value` of `task` that its one output needs straight into
// that output's rows (no buffer, no copy).
Status PlaneReader::DecodeStraightIntoOutput(const BlockTask& task, std::string_view value,
                                             const BlockDictionary* dictionary,
                                             FetchStats* local) const {
  const PlaneOutput& out = outputs_[task.output];
  const BlockGeometry& g = out.geometry;
  const size_t es = DataTypeSize(out.var->type);
  const BlockGeometry::Overlap o = g.OverlapOf(task.r, task.c, out.origin, out.shape);
  const int64_t bx0 = g.row_begin(task.r), by0 = g.col_begin(task.c);
  RowsTarget target;
  target.base = out.grid->bytes() +
                out.grid->Offset(task.t - out.grid->origin()[kT], task.z - out.grid->origin()[kZ],
                                 o.x_lo - out.grid->origin()[kX], o.y_lo - out.grid->origin()[kY]) *
                    es;
  target.row_stride = static_cast<size_t>(out.grid->shape()[kY]) * es;
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
bool PlaneReader::HoldsWholeFrames(const BlockTask& task, FrameSpan span) const {
  const PlaneOutput& out = outputs_[task.output];
  const BlockGeometry& g = out.geometry;
  const BlockGeometry::Overlap o = g.OverlapOf(task.r, task.c, out.origin, out.shape);
  const int64_t bx0 = g.row_begin(task.r), by0 = g.col_begin(task.c);
  if (o.y_lo != by0 || o.y_hi != by0 + g.cols_of(task.c)) return false;
  return bx0 + span.first * g.frame_rows >= o.x_lo &&
         std::min(bx0 + span.last * g.frame_rows, bx0 + g.rows_of(task.r)) <= o.x_hi;
}

// Caches the frames of the task's block from its one output's rows (HoldsWholeFrames).
void PlaneReader::CacheFramesFromOutput(const BlockTask& task, FrameSpan span,
                                        std::string_view data_key) const {
  const PlaneOutput& out = outputs_[task.output];
  const BlockGeometry& g = out.geometry;
  const size_t es = DataTypeSize(out.var->type);
  const size_t row_bytes = static_cast<size_t>(g.cols_of(task.c)) * es;
  const int64_t bx0 = g.row_begin(task.r), by0 = g.col_begin(task.c), rows = g.rows_of(task.r);
  std::string cache_key;
  for (uint32_t f = span.first; f < span.last; ++f) {
    const int64_t fb = f * g.frame_rows, fe = std::min(rows, fb + g.frame_rows);
    auto frame = std::make_shared<DecodedBlock>(static_cast<size_t>(fe - fb) * row_bytes);
    for (int64_t r = fb; r < fe; ++r) {
      const size_t at =
          out.grid->Offset(task.t - out.grid->origin()[kT], task.z - out.grid->origin()[kZ],
                           bx0 + r - out.grid->origin()[kX], by0 - out.grid->origin()[kY]);
      std::memcpy(frame->data.get() + (r - fb) * row_bytes, out.grid->bytes() + at * es, row_bytes);
    }
    cache_key.clear();
    AppendCacheKey(meta_.incarnation, data_key, f, &cache_key);
    context_->cache->Insert(cache_key, std::move(frame));
  }
}

// Decodes only the frames holding the rows the boxes need (all rows of an unframed block), each
// cached on its own so that a later point read hits without decoding more: straight into the
// output when one box needs the block, else through a buffer.
Status PlaneReader::Decode(size_t i, FrameSpan span, std::string_view data_key,
                           std::string_view value, bool use_cache, FetchStats* local) const {
  const BlockTask& task = tasks_.tasks[i];
  thread_local std::string scratch;
  const PlaneOutput& out = outputs_[task.output];
  std::shared_ptr<const BlockDictionary> dictionary;
  if (BlockNeedsDictionary(value)) {
    GRIDSTORE_ASSIGN_OR_RETURN(dictionary, context_->dictionaries->Get(meta_, out.var->name));
  }
  if (task.num_targets == 1 && (!use_cache || HoldsWholeFrames(task, span))) {
    GRIDSTORE_RETURN_IF_ERROR(DecodeStraightIntoOutput(task, value, dictionary.get(), local));
    if (use_cache) CacheFramesFromOutput(task, span, data_key);
    return Status::OK();
  }
  const uint32_t rows = static_cast<uint32_t>(out.geometry.rows_of(task.r));
  const uint32_t cols = static_cast<uint32_t>(out.geometry.cols_of(task.c));
  const size_t row_bytes = size_t{cols} * DataTypeSize(out.var->type);
  const auto fr = static_cast<uint32_t>(out.geometry.frame_rows);
  const uint32_t row_begin = span.first * fr, row_end = std::min(rows, span.last * fr);
  const size_t bytes = (row_end - row_begin) * row_bytes;
  std::shared_ptr<DecodedBlock> single;  // one frame: decoded straight into its cache entry
  char* dst;
  if (use_cache && span.last - span.first == 1) {
    single = std::make_shared<DecodedBlock>(bytes);
    dst = single->data.get();
  } else {
    scratch.resize(bytes);
    dst = scratch.data();
  }
  size_t bytes_decoded = 0;
  GRIDSTORE_RETURN_IF_ERROR(DecodeBlockRows(value, out.var->type, rows, cols, row_begin, row_end,
                                            dst, &bytes_decoded, dictionary.get()));
  CopyToTargets(task, dst, row_begin, row_end - row_begin);
  ++local->blocks_read;
  local->bytes_read += static_cast<int64_t>(value.size());
  local->bytes_decompressed += static_cast<int64_t>(bytes_decoded);
  if (!use_cache) return Status::OK();
  if (single) {
    std::string cache_key;
    AppendCacheKey(meta_.incarnation, data_key, span.first, &cache_key);
    context_->cache->Insert(cache_key, std::move(single));
    return Status::OK();
  }
  CacheDecodedFrames(context_, meta_.incarnation, data_key, span, fr, rows, row_bytes, dst);
  return Status::OK();
}

}  // namespace

Status FetchPlanes(const DataSetMeta& meta, StoreContext* context,
                   const std::vector<PlaneOutput>& outputs, int parallelism, bool use_cache,
                   FetchStats* stats) {
  const PlaneReader reader(meta, context, outputs);
  return ReadBlocks(
      reader, meta, context,
      BlockReadOptions{.parallelism = parallelism, .use_cache = use_cache, .max_group = 64}, stats);
}

}  // namespace gridstore::internal_grid
