// Copyright 2026 The GridStore Authors.
//
// How a variable is cut into series blocks (grid_meta.h, SeriesLayout): block (tb, z, r, c)
// holds steps [tb * block_t, min((tb + 1) * block_t, T)) of level z over the tile of rows
// [r * tile_x, ...) and columns [c * tile_y, ...) of the plane, edge blocks smaller. Its raw
// form is a (points x steps) array: row p is the point (x0 + p / cols, y0 + p % cols), so one
// point's series is one contiguous row. Shared by the relayout, the fetcher and verification.
#ifndef GRIDSTORE_GRID_INTERNAL_SERIES_GEOMETRY_H_
#define GRIDSTORE_GRID_INTERNAL_SERIES_GEOMETRY_H_

#include <algorithm>
#include <cstdint>

#include "gridstore/grid/grid_meta.h"

namespace gridstore::internal_grid {

struct SeriesGeometry {
  SeriesGeometry(const grid::VariableMeta& variable, const grid::SeriesLayout& series)
      : t(variable.shape[grid::kT]),
        x(variable.shape[grid::kX]),
        y(variable.shape[grid::kY]),
        block_t(series.block_t),
        tile_x(series.tile_x),
        tile_y(series.tile_y),
        frame_points(series.frame_points),
        t_blocks((t + block_t - 1) / block_t),
        tile_rows((x + tile_x - 1) / tile_x),
        tile_cols((y + tile_y - 1) / tile_y) {}

  int64_t t, x, y;
  int64_t block_t, tile_x, tile_y, frame_points;
  int64_t t_blocks, tile_rows, tile_cols;

  int64_t step_begin(int64_t tb) const { return tb * block_t; }
  int64_t steps_of(int64_t tb) const { return std::min(block_t, t - tb * block_t); }
  int64_t row_begin(int64_t r) const { return r * tile_x; }
  int64_t col_begin(int64_t c) const { return c * tile_y; }
  int64_t rows_of(int64_t r) const { return std::min(tile_x, x - r * tile_x); }
  int64_t cols_of(int64_t c) const { return std::min(tile_y, y - c * tile_y); }
  // Rows of the raw block: its points.
  int64_t points_of(int64_t r, int64_t c) const { return rows_of(r) * cols_of(c); }
  // The frame_rows argument of the block codec for a block of `points` rows.
  uint32_t codec_frame_rows(int64_t points) const {
    return frame_points < points ? static_cast<uint32_t>(frame_points) : 0;
  }

  // The blocks a box [origin, origin + shape) touches (per level): [tb_begin, tb_end) along t,
  // tile rows [r_begin, r_end), tile columns [c_begin, c_end). REQUIRES: a non-empty box.
  struct BlockRange {
    int64_t tb_begin, tb_end, r_begin, r_end, c_begin, c_end;
  };
  BlockRange BlocksOf(const grid::Shape4& origin, const grid::Shape4& shape) const {
    return {origin[grid::kT] / block_t, (origin[grid::kT] + shape[grid::kT] - 1) / block_t + 1,
            origin[grid::kX] / tile_x,  (origin[grid::kX] + shape[grid::kX] - 1) / tile_x + 1,
            origin[grid::kY] / tile_y,  (origin[grid::kY] + shape[grid::kY] - 1) / tile_y + 1};
  }

  // The part of block (tb, r, c) inside the box, in variable coordinates: steps [t_lo, t_hi),
  // rows [x_lo, x_hi), columns [y_lo, y_hi); and the block rows (points) [p_lo, p_hi) spanning it.
  struct Overlap {
    int64_t t_lo, t_hi, x_lo, x_hi, y_lo, y_hi;
    int64_t p_lo, p_hi;
  };
  Overlap OverlapOf(int64_t tb, int64_t r, int64_t c, const grid::Shape4& origin,
                    const grid::Shape4& shape) const {
    Overlap o;
    o.t_lo = std::max(step_begin(tb), origin[grid::kT]);
    o.t_hi = std::min(step_begin(tb) + steps_of(tb), origin[grid::kT] + shape[grid::kT]);
    o.x_lo = std::max(row_begin(r), origin[grid::kX]);
    o.x_hi = std::min(row_begin(r) + rows_of(r), origin[grid::kX] + shape[grid::kX]);
    o.y_lo = std::max(col_begin(c), origin[grid::kY]);
    o.y_hi = std::min(col_begin(c) + cols_of(c), origin[grid::kY] + shape[grid::kY]);
    const int64_t cols = cols_of(c);
    o.p_lo = (o.x_lo - row_begin(r)) * cols + (o.y_lo - col_begin(c));
    o.p_hi = (o.x_hi - 1 - row_begin(r)) * cols + (o.y_hi - col_begin(c));
    return o;
  }
};

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_GRID_INTERNAL_SERIES_GEOMETRY_H_
