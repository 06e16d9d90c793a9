// Copyright 2026 The GridStore Authors.
//
// Reading boxes from a dataset's series layout (grid_meta.h, SeriesLayout); what that costs is
// in fetch_planner.h.
#ifndef GRIDSTORE_BLOCKS_INTERNAL_SERIES_FETCH_H_
#define GRIDSTORE_BLOCKS_INTERNAL_SERIES_FETCH_H_

#include <cstdint>
#include <vector>

#include "gridstore/blocks/internal/store_context.h"
#include "gridstore/model/grid.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/status.h"

namespace gridstore::internal_grid {

// One box of one variable to read from the series layout into `grid` (already sized to the box).
struct SeriesOutput {
  const grid::VariableMeta* var;
  grid::Shape4 origin;
  grid::Shape4 shape;
  grid::Grid4D* grid;
};

// Reads the series blocks the outputs' boxes touch (each block once, however many boxes need
// it: points of one tile share it), in groups over `parallelism` threads, decoding only the
// frames holding the points needed, through the store's block cache if `use_cache`. Adds to
// *stats. A missing block is Aborted (a ready layout has every block: it was dropped, or the
// dataset deleted, meanwhile). Errors name the dataset, variable, step block, level and tile.
// REQUIRES: meta.series.
Status FetchSeries(const grid::DataSetMeta& meta, StoreContext* context,
                   const std::vector<SeriesOutput>& outputs, int parallelism, bool use_cache,
                   grid::FetchStats* stats);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_BLOCKS_INTERNAL_SERIES_FETCH_H_
