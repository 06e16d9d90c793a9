// Copyright 2026 The GridStore Authors.
//
// Reading boxes from a dataset's plane layout, the blocks of each (t, z) plane (docs/format.md);
// the series layout is series_fetch.h, and the choice between them fetch_planner.h.
#ifndef GRIDSTORE_BLOCKS_INTERNAL_PLANE_FETCH_H_
#define GRIDSTORE_BLOCKS_INTERNAL_PLANE_FETCH_H_

#include <vector>

#include "gridstore/blocks/internal/block_geometry.h"
#include "gridstore/blocks/internal/store_context.h"
#include "gridstore/model/grid.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/status.h"

namespace gridstore::internal_grid {

// One box of one variable to read from the plane layout into `grid` (already sized to the box).
struct PlaneOutput {
  const grid::VariableMeta* var;
  BlockGeometry geometry;
  grid::Shape4 origin;
  grid::Shape4 shape;
  grid::Grid4D* grid;
};

// Reads the plane blocks the outputs' boxes touch (each block once, however many boxes need it),
// in groups over `parallelism` threads, each group with one MultiGet. Only the frames holding the
// rows needed are decoded: straight into the output's rows when one box needs the block, else
// through a buffer; with `use_cache` each frame is also cached, and frames all cached are not
// read. A missing block reads as the fill value (counted in stats->blocks_missing: the caller
// checks that the dataset is still current). Adds to *stats. Once a group fails the rest are
// skipped; errors name the dataset, variable, t, z and block.
Status FetchPlanes(const grid::DataSetMeta& meta, StoreContext* context,
                   const std::vector<PlaneOutput>& outputs, int parallelism, bool use_cache,
                   grid::FetchStats* stats);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_BLOCKS_INTERNAL_PLANE_FETCH_H_
