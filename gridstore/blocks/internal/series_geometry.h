// Copyright 2026 The GridStore Authors.
//
// How a variable is cut into series blocks (grid_meta.h, SeriesLayout): block (tb, zb, r, c)
// holds steps [tb * block_t, min((tb + 1) * block_t, T)) of levels [zb * block_z, ...) over the
// tile of rows [r * tile_x, ...) and columns [c * tile_y, ...) of the plane, edge blocks
// smaller. Its raw form is a (rows x steps) array; a row is one point at one level, point-major:
// row p * levels + l is the point (x0 + p / cols, y0 + p % cols) at level z0 + l. So one point's
// series is one contiguous row, and its series at every level of the block consecutive rows.
// Shared by the relayout, the fetcher, the planner and verification.
#ifndef GRIDSTORE_BLOCKS_INTERNAL_SERIES_GEOMETRY_H_
#define GRIDSTORE_BLOCKS_INTERNAL_SERIES_GEOMETRY_H_

#include <algorithm>
#include <cstdint>

#include "gridstore/model/grid_meta.h"

namespace gridstore::internal_grid {

struct SeriesGeometry {
  SeriesGeometry(const grid::VariableMeta& variable, const grid::SeriesLayout& series)
      : t(variable.shape[grid::kT]),
        z(variable.shape[grid::kZ]),
        x(variable.shape[grid::kX]),
        y(variable.shape[grid::kY]),
        block_t(series.block_t),
        block_z(series.block_z),
        tile_x(series.tile_x),
        tile_y(series.tile_y),
        frame_points(series.frame_points),
        t_blocks((t + block_t - 1) / block_t),
        z_blocks((z + block_z - 1) / block_z),
        tile_rows((x + tile_x - 1) / tile_x),
        tile_cols((y + tile_y - 1) / tile_y) {}

  int64_t t, z, x, y;
  int64_t block_t, block_z, tile_x, tile_y, frame_points;
  int64_t t_blocks, z_blocks, tile_rows, tile_cols;

  int64_t step_begin(int64_t tb) const { return tb * block_t; }
  int64_t steps_of(int64_t tb) const { return std::min(block_t, t - tb * block_t); }
  int64_t level_begin(int64_t zb) const { return zb * block_z; }
  int64_t levels_of(int64_t zb) const { return std::min(block_z, z - zb * block_z); }
  int64_t row_begin(int64_t r) const { return r * tile_x; }
  int64_t col_begin(int64_t c) const { return c * tile_y; }
  int64_t rows_of(int64_t r) const { return std::min(tile_x, x - r * tile_x); }
  int64_t cols_of(int64_t c) const { return std::min(tile_y, y - c * tile_y); }
  // Points of the tile.
  int64_t points_of(int64_t r, int64_t c) const { return rows_of(r) * cols_of(c); }
  // Rows of the raw block (zb, r, c): its (point, level) pairs.
  int64_t block_rows(int64_t zb, int64_t r, int64_t c) const {
    return points_of(r, c) * levels_of(zb);
  }
  // The frame_rows argument of the block codec for a block of `rows` rows.
  uint32_t codec_frame_rows(int64_t rows) const {
    return frame_points < rows ? static_cast<uint32_t>(frame_points) : 0;
  }
  // The block row holding point (px, py) at level pz of block (zb, r, c).
  int64_t RowOf(int64_t zb, int64_t r, int64_t c, int64_t px, int64_t py, int64_t pz) const {
    const int64_t p = (px - row_begin(r)) * cols_of(c) + (py - col_begin(c));
    return p * levels_of(zb) + (pz - level_begin(zb));
  }

  // The blocks a box [origin, origin + shape) touches: [tb_begin, tb_end) along t, level blocks
  // [zb_begin, zb_end), tile rows [r_begin, r_end), tile columns [c_begin, c_end).
  // REQUIRES: a non-empty box.
  struct BlockRange {
    int64_t tb_begin, tb_end, zb_begin, zb_end, r_begin, r_end, c_begin, c_end;
  };
  BlockRange BlocksOf(const grid::Shape4& origin, const grid::Shape4& shape) const {
    return {origin[grid::kT] / block_t, (origin[grid::kT] + shape[grid::kT] - 1) / block_t + 1,
            origin[grid::kZ] / block_z, (origin[grid::kZ] + shape[grid::kZ] - 1) / block_z + 1,
            origin[grid::kX] / tile_x,  (origin[grid::kX] + shape[grid::kX] - 1) / tile_x + 1,
            origin[grid::kY] / tile_y,  (origin[grid::kY] + shape[grid::kY] - 1) / tile_y + 1};
  }

  // The part of block (tb, zb, r, c) inside the box, in variable coordinates: steps [t_lo,
  // t_hi), levels [z_lo, z_hi), rows [x_lo, x_hi), columns [y_lo, y_hi); and the block rows
  // [row_lo, row_hi) spanning it.
  struct Overlap {
    int64_t t_lo, t_hi, z_lo, z_hi, x_lo, x_hi, y_lo, y_hi;
    int64_t row_lo, row_hi;
  };
  Overlap OverlapOf(int64_t tb, int64_t zb, int64_t r, int64_t c, const grid::Shape4& origin,
                    const grid::Shape4& shape) const {
    Overlap o;
    o.t_lo = std::max(step_begin(tb), origin[grid::kT]);
    o.t_hi = std::min(step_begin(tb) + steps_of(tb), origin[grid::kT] + shape[grid::kT]);
    o.z_lo = std::max(level_begin(zb), origin[grid::kZ]);
    o.z_hi = std::min(level_begin(zb) + levels_of(zb), origin[grid::kZ] + shape[grid::kZ]);
    o.x_lo = std::max(row_begin(r), origin[grid::kX]);
    o.x_hi = std::min(row_begin(r) + rows_of(r), origin[grid::kX] + shape[grid::kX]);
    o.y_lo = std::max(col_begin(c), origin[grid::kY]);
    o.y_hi = std::min(col_begin(c) + cols_of(c), origin[grid::kY] + shape[grid::kY]);
    o.row_lo = RowOf(zb, r, c, o.x_lo, o.y_lo, o.z_lo);
    o.row_hi = RowOf(zb, r, c, o.x_hi - 1, o.y_hi - 1, o.z_hi - 1) + 1;
    return o;
  }
};

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_BLOCKS_INTERNAL_SERIES_GEOMETRY_H_
