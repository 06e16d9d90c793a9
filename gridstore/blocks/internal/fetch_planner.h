// Copyright 2026 The GridStore Authors.
//
// The fetch planner's choice between a dataset's layouts (grid_meta.h: the planes, and the
// optional series layout): what reading a box costs from each, and which one a fetch reads.
#ifndef GRIDSTORE_BLOCKS_INTERNAL_FETCH_PLANNER_H_
#define GRIDSTORE_BLOCKS_INTERNAL_FETCH_PLANNER_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "gridstore/blocks/grid_data_fetcher.h"
#include "gridstore/model/grid.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/status.h"

namespace gridstore::internal_grid {

// What reading a box from one layout costs: the blocks it touches and the raw bytes it
// decompresses (whole frames).
struct LayoutCost {
  int64_t blocks = 0;
  int64_t bytes_to_decode = 0;

  // One figure to compare layouts by: bytes to decode plus a fixed charge per block for its
  // read and decoder setup (about what decoding 32 KiB costs).
  int64_t score() const { return bytes_to_decode + blocks * (int64_t{32} << 10); }
  LayoutCost& operator+=(const LayoutCost& other) {
    blocks += other.blocks;
    bytes_to_decode += other.bytes_to_decode;
    return *this;
  }
};

// The cost of reading box [origin, origin + shape) of `var` from its planes: every plane of the
// box, the blocks its (x, y) part touches, only the frames holding its rows.
LayoutCost PlaneCost(const grid::VariableMeta& var, const grid::BlockLayout& layout,
                     const grid::Shape4& origin, const grid::Shape4& shape);
// The same from its series blocks: the frames holding the box's points.
LayoutCost SeriesCost(const grid::VariableMeta& var, const grid::SeriesLayout& series,
                      const grid::Shape4& origin, const grid::Shape4& shape);

// `box` cut where the series layout's steps end (SeriesLayout::steps: a run still growing): the
// part it holds, read from either layout, and the later steps, from the planes only. Either may
// be empty (no steps).
struct SeriesSplit {
  std::optional<grid::Box> held;
  std::optional<grid::Box> later;
};
SeriesSplit SplitAtSeriesSteps(const grid::SeriesLayout& series, const grid::VariableMeta& var,
                               const grid::Box& box);

// The costs of reading `boxes` of `var` from each layout, and whether to read the series layout
// (for the steps it holds; later steps come from the planes, and are in its cost too):
// the cheaper unless `forced` says which; never without a ready one.
struct LayoutChoice {
  LayoutCost plane;
  std::optional<LayoutCost> series;  // none without a ready series layout
  bool use_series = false;
};
LayoutChoice ChooseLayout(const grid::DataSetMeta& meta, const grid::VariableMeta& var,
                          const std::vector<grid::Box>& boxes, grid::FetchLayout forced);
// The distinct blocks `boxes` of `var` touch in the planes (series: false) or the series layout.
int64_t DistinctBlocks(const grid::DataSetMeta& meta, const grid::VariableMeta& var,
                       const std::vector<grid::Box>& boxes, bool series);
// FailedPrecondition naming the dataset if `forced` is the series layout and it has none ready.
Status CheckForcedLayout(const grid::DataSetMeta& meta, grid::FetchLayout forced);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_BLOCKS_INTERNAL_FETCH_PLANNER_H_
