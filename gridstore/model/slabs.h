// Copyright 2026 The GridStore Authors.
//
// Slabs: a box cut into consecutive parts that each hold at most a given number of values, so
// that a large result can be fetched and written part by part in bounded memory. The parts are
// runs of whole t steps, else (a step too large) runs of z levels of one step, else (a plane too
// large) runs of x rows of one plane, else runs of points of one row. Each part is a contiguous
// range of the box's row-major (t, z, x, y) order, and the parts in order cover it exactly once:
// writing them one after the other writes the whole box in row-major order.
#ifndef GRIDSTORE_MODEL_SLABS_H_
#define GRIDSTORE_MODEL_SLABS_H_

#include <cstdint>
#include <vector>

#include "gridstore/model/grid.h"

namespace gridstore::grid {

// The slabs of `box` holding at most `max_values` values each (at least one value, whatever
// `max_values`), in row-major order; `box` itself if it fits. Origins are absolute, as
// `box.origin`. REQUIRES: every extent of box.shape is at least 1.
std::vector<Box> SplitIntoSlabs(const Box& box, int64_t max_values);

}  // namespace gridstore::grid

#endif  // GRIDSTORE_MODEL_SLABS_H_
