// Copyright 2026 The GridStore Authors.
#include "gridstore/blocks/internal/series_fetch.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <utility>

#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/blocks/internal/block_read_scheduler.h"
#include "gridstore/blocks/internal/series_geometry.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_grid {

using grid::kT;
using grid::kX;
using grid::kY;
using grid::kZ;

namespace {

// One task per distinct series block the outputs' boxes touch (points of one tile share it).
BlockTasks PlanTasks(const grid::DataSetMeta& meta, const std::vector<SeriesOutput>& outputs) {
  std::vector<BlockTask> all;
  std::vector<const grid::VariableMeta*> vars;
  for (size_t o = 0; o < outputs.size(); ++o) {
    const SeriesOutput& out = outputs[o];
    vars.push_back(out.var);
    const SeriesGeometry g(*out.var, *meta.series);
    const SeriesGeometry::BlockRange b = g.BlocksOf(out.origin, out.shape);
    for (int64_t tb = b.tb_begin; tb < b.tb_end; ++tb) {
      for (int64_t zb = b.zb_begin; zb < b.zb_end; ++zb) {
        for (int64_t r = b.r_begin; r < b.r_end; ++r) {
          for (int64_t c = b.c_begin; c < b.c_end; ++c) all.push_back(BlockTask{o, tb, zb, r, c});
        }
      }
    }
  }
  return MergeSameBlocks(std::move(all), vars);
}

// The series layout's side of ReadBlocks. A task's t and z are its step block and level block.
class SeriesReader final : public BlockLayoutReader {
 public:
  SeriesReader(const grid::DataSetMeta& meta, StoreContext* context,
               const std::vector<SeriesOutput>& outputs)
      : meta_(meta), context_(context), outputs_(outputs), tasks_(PlanTasks(meta, outputs)) {}

  const BlockTasks& tasks() const override { return tasks_; }

  void AppendDataKey(size_t i, std::string* key) const override {
    const BlockTask& task = tasks_.tasks[i];
    grid::AppendDataKey(
        grid::BlockAddress{meta_.id, meta_.key_incarnation(), outputs_[task.output].var->name,
                           grid::kSeriesLayout, static_cast<uint32_t>(task.t),
                           static_cast<uint32_t>(task.z), static_cast<uint32_t>(task.r),
                           static_cast<uint32_t>(task.c)},
        key);
  }

  FrameSpan FramesNeeded(size_t i) const override { return FramesOf(tasks_.tasks[i]).span; }

  void CopyFrames(size_t i, FrameSpan span, std::span<const char* const> frames) const override;
  Status Decode(size_t i, FrameSpan span, std::string_view data_key, std::string_view value,
                bool use_cache, grid::FetchStats* local) const override;

  // A ready series layout has every block: this one was dropped (or the dataset deleted) since
  // the fetch read the meta.
  Status Missing(size_t i, grid::FetchStats*) const override {
    return Status::Aborted(BlockContext(i) +
                           " is gone: the series layout was dropped or the dataset deleted "
                           "while it was read; fetch again");
  }

  std::string BlockContext(size_t i) const override {
    const BlockTask& task = tasks_.tasks[i];
    return "dataset " + Quote(meta_.id) + ", variable " + Quote(outputs_[task.output].var->name) +
           ", series block of steps " + std::to_string(task.t) + ", levels block " +
           std::to_string(task.z) + ", tile (" + std::to_string(task.r) + ", " +
           std::to_string(task.c) + ")";
  }

 private:
  // The frames a task needs, the rows per frame, and the block's rows.
  struct Frames {
    FrameSpan span;
    uint32_t frame_rows, rows;
  };
  Frames FramesOf(const BlockTask& task) const;
  SeriesGeometry GeometryOf(const BlockTask& task) const {
    return SeriesGeometry(*outputs_[task.output].var, *meta_.series);
  }

  const grid::DataSetMeta& meta_;
  StoreContext* const context_;
  const std::vector<SeriesOutput>& outputs_;
  const BlockTasks tasks_;
};

SeriesReader::Frames SeriesReader::FramesOf(const BlockTask& task) const {
  const SeriesGeometry g = GeometryOf(task);
  int64_t row_lo = INT64_MAX, row_hi = 0;
  for (size_t o : tasks_.TargetsOf(task)) {
    const SeriesOutput& out = outputs_[o];
    const SeriesGeometry::Overlap ov =
        g.OverlapOf(task.t, task.z, task.r, task.c, out.origin, out.shape);
    row_lo = std::min(row_lo, ov.row_lo);
    row_hi = std::max(row_hi, ov.row_hi);
  }
  const int64_t rows = g.block_rows(task.z, task.r, task.c);
  const uint32_t codec_fr = g.codec_frame_rows(rows);
  const auto fr = static_cast<uint32_t>(codec_fr > 0 ? codec_fr : rows);
  return {{static_cast<uint32_t>(row_lo / fr), static_cast<uint32_t>((row_hi - 1) / fr + 1)},
          fr,
          static_cast<uint32_t>(rows)};
}

// Copies the task's block, whose frame f (of those it needs) starts at frames[f - span.first],
// into every output needing it.
void SeriesReader::CopyFrames(size_t i, FrameSpan span, std::span<const char* const> frames) const {
  const BlockTask& task = tasks_.tasks[i];
  const SeriesGeometry g = GeometryOf(task);
  const int64_t steps = g.steps_of(task.t);
  const int64_t frame_rows = FramesOf(task).frame_rows;
  for (size_t o : tasks_.TargetsOf(task)) {
    const SeriesOutput& out = outputs_[o];
    const SeriesGeometry::Overlap ov =
        g.OverlapOf(task.t, task.z, task.r, task.c, out.origin, out.shape);
    grid::VisitDataType(out.var->type, [&](auto tag) {
      using T = decltype(tag);
      T* base = reinterpret_cast<T*>(out.grid->bytes());
      const size_t t_stride = out.grid->Offset(1, 0, 0, 0);
      for (int64_t z = ov.z_lo; z < ov.z_hi; ++z) {
        for (int64_t x = ov.x_lo; x < ov.x_hi; ++x) {
          for (int64_t y = ov.y_lo; y < ov.y_hi; ++y) {
            T* dst = base + out.grid->Offset(ov.t_lo - out.grid->origin()[kT],
                                             z - out.grid->origin()[kZ], x - out.grid->origin()[kX],
                                             y - out.grid->origin()[kY]);
            const int64_t row = g.RowOf(task.z, task.r, task.c, x, y, z);
            const char* src =
                frames[row / frame_rows - span.first] +
                ((row % frame_rows) * steps + ov.t_lo - g.step_begin(task.t)) * sizeof(T);
            for (int64_t t = ov.t_lo; t < ov.t_hi; ++t, dst += t_stride, src += sizeof(T)) {
              std::memcpy(dst, src, sizeof(T));
            }
          }
        }
      }
    });
  }
}

// Decodes the frames the task needs from its stored block `value`, copies them to the outputs
// and caches each frame on its own.
Status SeriesReader::Decode(size_t i, FrameSpan span, std::string_view data_key,
                            std::string_view value, bool use_cache, grid::FetchStats* local) const {
  const BlockTask& task = tasks_.tasks[i];
  const SeriesOutput& out = outputs_[task.output];
  const SeriesGeometry g = GeometryOf(task);
  const Frames f = FramesOf(task);
  const auto steps = static_cast<uint32_t>(g.steps_of(task.t));
  const size_t row_bytes = size_t{steps} * grid::DataTypeSize(out.var->type);
  const uint32_t row_begin = span.first * f.frame_rows;
  const uint32_t row_end = std::min(f.rows, span.last * f.frame_rows);
  thread_local std::string scratch;
  scratch.resize((row_end - row_begin) * row_bytes);
  size_t decoded = 0;
  GRIDSTORE_RETURN_IF_ERROR(grid::DecodeBlockRows(value, out.var->type, f.rows, steps, row_begin,
                                                  row_end, scratch.data(), &decoded));
  std::vector<const char*> frames;
  for (uint32_t k = span.first; k < span.last; ++k) {
    frames.push_back(scratch.data() + (k * f.frame_rows - row_begin) * row_bytes);
  }
  CopyFrames(i, span, frames);
  ++local->blocks_read;
  local->bytes_read += static_cast<int64_t>(value.size());
  local->bytes_decompressed += static_cast<int64_t>(decoded);
  if (use_cache) {
    CacheDecodedFrames(context_, meta_.incarnation, data_key, span, f.frame_rows, f.rows, row_bytes,
                       scratch.data());
  }
  return Status::OK();
}

}  // namespace

Status FetchSeries(const grid::DataSetMeta& meta, StoreContext* context,
                   const std::vector<SeriesOutput>& outputs, int parallelism, bool use_cache,
                   grid::FetchStats* stats) {
  const SeriesReader reader(meta, context, outputs);
  return ReadBlocks(
      reader, meta, context,
      BlockReadOptions{.parallelism = parallelism, .use_cache = use_cache, .max_group = 16}, stats);
}

}  // namespace gridstore::internal_grid
