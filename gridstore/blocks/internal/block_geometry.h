// Copyright 2026 The GridStore Authors.
//
// How a variable's (x, y) plane is cut into blocks: block (r, c) covers rows
// [r * block_x, min((r + 1) * block_x, X)) and columns [c * block_y, min((c + 1) * block_y, Y)).
// Edge blocks are smaller. Shared by the writer, the fetcher and verification.
#ifndef GRIDSTORE_BLOCKS_INTERNAL_BLOCK_GEOMETRY_H_
#define GRIDSTORE_BLOCKS_INTERNAL_BLOCK_GEOMETRY_H_

#include <algorithm>
#include <cstdint>

#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/model/grid_meta.h"

namespace gridstore::internal_grid {

struct BlockGeometry {
  BlockGeometry(const grid::VariableMeta& variable, const grid::BlockLayout& layout)
      : x(variable.shape[grid::kX]),
        y(variable.shape[grid::kY]),
        block_x(layout.block_x),
        block_y(layout.block_y),
        frame_rows(layout.frame_rows > 0 && layout.frame_rows < layout.block_x ? layout.frame_rows
                                                                               : layout.block_x),
        block_rows((x + block_x - 1) / block_x),
        block_cols((y + block_y - 1) / block_y) {}

  int64_t x, y;              // plane extent
  int64_t block_x, block_y;  // nominal block shape
  // Rows per frame, the unit of decoding and caching: block_x for unframed blocks (one frame).
  int64_t frame_rows;
  int64_t block_rows, block_cols;  // blocks along x and y

  int64_t num_blocks() const { return block_rows * block_cols; }
  int64_t row_begin(int64_t r) const { return r * block_x; }
  int64_t col_begin(int64_t c) const { return c * block_y; }
  int64_t rows_of(int64_t r) const { return std::min(block_x, x - r * block_x); }
  int64_t cols_of(int64_t c) const { return std::min(block_y, y - c * block_y); }
  // Most frames any block has.
  int64_t max_frames() const { return grid::FrameCount(block_x, frame_rows); }

  // The blocks a box [origin, origin + shape) of the plane touches: rows of blocks
  // [r_begin, r_end), columns of blocks [c_begin, c_end). REQUIRES: the box is non-empty.
  struct BlockRange {
    int64_t r_begin, r_end, c_begin, c_end;
  };
  BlockRange BlocksOf(const grid::Shape4& origin, const grid::Shape4& shape) const {
    return {origin[grid::kX] / block_x, (origin[grid::kX] + shape[grid::kX] - 1) / block_x + 1,
            origin[grid::kY] / block_y, (origin[grid::kY] + shape[grid::kY] - 1) / block_y + 1};
  }

  // The part of block (r, c) inside the box [origin, origin + shape), in plane coordinates:
  // rows [x_lo, x_hi), columns [y_lo, y_hi). The one place the fetcher, its plans and its fill
  // compute it.
  struct Overlap {
    int64_t x_lo, x_hi, y_lo, y_hi;
  };
  Overlap OverlapOf(int64_t r, int64_t c, const grid::Shape4& origin,
                    const grid::Shape4& shape) const {
    const int64_t bx0 = row_begin(r), by0 = col_begin(c);
    return {std::max(bx0, origin[grid::kX]),
            std::min(bx0 + rows_of(r), origin[grid::kX] + shape[grid::kX]),
            std::max(by0, origin[grid::kY]),
            std::min(by0 + cols_of(c), origin[grid::kY] + shape[grid::kY])};
  }
};

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_BLOCKS_INTERNAL_BLOCK_GEOMETRY_H_
