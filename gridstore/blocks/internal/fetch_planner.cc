// Copyright 2026 The GridStore Authors.
#include "gridstore/blocks/internal/fetch_planner.h"

#include <algorithm>
#include <array>
#include <tuple>

#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/blocks/internal/block_geometry.h"
#include "gridstore/blocks/internal/series_geometry.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_grid {

using grid::BlockLayout;
using grid::Box;
using grid::DataSetMeta;
using grid::FetchLayout;
using grid::kT;
using grid::kX;
using grid::kY;
using grid::kZ;
using grid::Shape4;
using grid::VariableMeta;

LayoutCost PlaneCost(const VariableMeta& var, const BlockLayout& layout, const Shape4& origin,
                     const Shape4& shape) {
  const BlockGeometry g(var, layout);
  const int64_t es = static_cast<int64_t>(grid::DataTypeSize(var.type));
  LayoutCost per_plane;
  const BlockGeometry::BlockRange blocks = g.BlocksOf(origin, shape);
  for (int64_t r = blocks.r_begin; r < blocks.r_end; ++r) {
    for (int64_t c = blocks.c_begin; c < blocks.c_end; ++c) {
      ++per_plane.blocks;
      const BlockGeometry::Overlap o = g.OverlapOf(r, c, origin, shape);
      const int64_t bx0 = g.row_begin(r);
      const int64_t rows = grid::RowsToDecode(
          static_cast<uint32_t>(g.rows_of(r)), static_cast<uint32_t>(layout.frame_rows),
          static_cast<uint32_t>(o.x_lo - bx0), static_cast<uint32_t>(o.x_hi - bx0));
      per_plane.bytes_to_decode += rows * g.cols_of(c) * es;
    }
  }
  const int64_t planes = shape[kT] * shape[kZ];
  return {per_plane.blocks * planes, per_plane.bytes_to_decode * planes};
}

SeriesSplit SplitAtSeriesSteps(const grid::SeriesLayout& series, const VariableMeta& var,
                               const Box& box) {
  const int64_t held = series.StepsHeld(var.shape[kT]);
  const int64_t t0 = box.origin[kT], t1 = t0 + box.shape[kT];
  SeriesSplit split;
  if (t0 < held) {
    split.held = box;
    split.held->shape[kT] = std::min(t1, held) - t0;
  }
  if (t1 > held) {
    split.later = box;
    split.later->origin[kT] = std::max(t0, held);
    split.later->shape[kT] = t1 - split.later->origin[kT];
  }
  return split;
}

LayoutChoice ChooseLayout(const DataSetMeta& meta, const VariableMeta& var,
                          const std::vector<Box>& boxes, FetchLayout forced) {
  LayoutChoice choice;
  const bool series = meta.series && meta.series->ready;
  if (series) choice.series.emplace();
  for (const Box& box : boxes) {
    choice.plane += PlaneCost(var, meta.layout, box.origin, box.shape);
    if (series) {
      const SeriesSplit split = SplitAtSeriesSteps(*meta.series, var, box);
      if (split.held) {
        *choice.series += SeriesCost(var, *meta.series, split.held->origin, split.held->shape);
      }
      if (split.later) {
        *choice.series += PlaneCost(var, meta.layout, split.later->origin, split.later->shape);
      }
    }
  }
  choice.use_series =
      series && (forced == FetchLayout::kSeries || (forced == FetchLayout::kCheapest &&
                                                    choice.series->score() < choice.plane.score()));
  return choice;
}

namespace {

// DistinctBlocks of boxes wholly inside one layout.
int64_t DistinctBlocksIn(const DataSetMeta& meta, const VariableMeta& var,
                         const std::vector<Box>& boxes, bool series) {
  if (boxes.empty()) return 0;
  // (t or step block, z or level block, r, c) of every block a box touches. One box (a point's
  // series, an area) touches each block once: its count is the product, with nothing to sort.
  std::vector<std::array<int64_t, 4>> blocks;
  int64_t single = 0;
  for (const Box& b : boxes) {
    int64_t t0, t1, z0, z1, r0, r1, c0, c1;
    if (series) {
      const SeriesGeometry::BlockRange k =
          SeriesGeometry(var, *meta.series).BlocksOf(b.origin, b.shape);
      std::tie(t0, t1, z0, z1, r0, r1, c0, c1) = std::tie(
          k.tb_begin, k.tb_end, k.zb_begin, k.zb_end, k.r_begin, k.r_end, k.c_begin, k.c_end);
    } else {
      const BlockGeometry::BlockRange k =
          BlockGeometry(var, meta.layout).BlocksOf(b.origin, b.shape);
      t0 = b.origin[kT], t1 = t0 + b.shape[kT], z0 = b.origin[kZ], z1 = z0 + b.shape[kZ];
      r0 = k.r_begin, r1 = k.r_end, c0 = k.c_begin, c1 = k.c_end;
    }
    if (boxes.size() == 1) {
      single = (t1 - t0) * (z1 - z0) * (r1 - r0) * (c1 - c0);
      break;
    }
    for (int64_t t = t0; t < t1; ++t)
      for (int64_t z = z0; z < z1; ++z)
        for (int64_t r = r0; r < r1; ++r)
          for (int64_t c = c0; c < c1; ++c) blocks.push_back({t, z, r, c});
  }
  if (boxes.size() == 1) return single;
  std::sort(blocks.begin(), blocks.end());
  return static_cast<int64_t>(std::unique(blocks.begin(), blocks.end()) - blocks.begin());
}

}  // namespace

int64_t DistinctBlocks(const DataSetMeta& meta, const VariableMeta& var,
                       const std::vector<Box>& boxes, bool series) {
  if (!series) return DistinctBlocksIn(meta, var, boxes, false);
  // The steps the series layout holds from it, later ones (a growing run's) from the planes.
  std::vector<Box> held, later;
  for (const Box& box : boxes) {
    const SeriesSplit split = SplitAtSeriesSteps(*meta.series, var, box);
    if (split.held) held.push_back(*split.held);
    if (split.later) later.push_back(*split.later);
  }
  return DistinctBlocksIn(meta, var, held, true) + DistinctBlocksIn(meta, var, later, false);
}

Status CheckForcedLayout(const DataSetMeta& meta, FetchLayout forced) {
  if (forced != FetchLayout::kSeries || (meta.series && meta.series->ready)) return Status::OK();
  return Status::FailedPrecondition("dataset " + Quote(meta.id) + " has no series layout to read" +
                                    (meta.series
                                         ? " yet (it is being written)"
                                         : " (add one: gridstore relayout ID --add series)"));
}

LayoutCost SeriesCost(const grid::VariableMeta& var, const grid::SeriesLayout& series,
                      const grid::Shape4& origin, const grid::Shape4& shape) {
  const SeriesGeometry g(var, series);
  const int64_t es = static_cast<int64_t>(grid::DataTypeSize(var.type));
  const SeriesGeometry::BlockRange blocks = g.BlocksOf(origin, shape);
  LayoutCost cost;
  for (int64_t tb = blocks.tb_begin; tb < blocks.tb_end; ++tb) {
    for (int64_t zb = blocks.zb_begin; zb < blocks.zb_end; ++zb) {
      for (int64_t r = blocks.r_begin; r < blocks.r_end; ++r) {
        for (int64_t c = blocks.c_begin; c < blocks.c_end; ++c) {
          const SeriesGeometry::Overlap o = g.OverlapOf(tb, zb, r, c, origin, shape);
          const int64_t block_rows = g.block_rows(zb, r, c);
          const int64_t rows =
              grid::RowsToDecode(static_cast<uint32_t>(block_rows), g.codec_frame_rows(block_rows),
                                 static_cast<uint32_t>(o.row_lo), static_cast<uint32_t>(o.row_hi));
          ++cost.blocks;
          cost.bytes_to_decode += rows * g.steps_of(tb) * es;
        }
      }
    }
  }
  return cost;
}

}  // namespace gridstore::internal_grid
