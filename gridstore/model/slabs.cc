// Copyright 2026 The GridStore Authors.
#include "gridstore/model/slabs.h"

#include <algorithm>

namespace gridstore::grid {

std::vector<Box> SplitIntoSlabs(const Box& box, int64_t max_values) {
  const Shape4& s = box.shape;
  // The values of one index of each axis: a step, a level, a row, a point.
  const int64_t per[kRank] = {s[1] * s[2] * s[3], s[2] * s[3], s[3], 1};
  // The slowest axis whose single index fits; axes before it are cut into single indices.
  int axis = 0;
  while (axis < kY && per[axis] > max_values) ++axis;
  if (axis == 0 && s[0] * per[0] <= max_values) return {box};
  const int64_t run = std::max<int64_t>(1, max_values / per[axis]);
  std::vector<Box> slabs;
  Shape4 outer = {0, 0, 0, 0};  // index along the axes before `axis`
  while (true) {
    for (int64_t i = 0; i < s[axis]; i += run) {
      Box slab = box;
      for (int a = 0; a < axis; ++a) {
        slab.origin[a] = box.origin[a] + outer[a];
        slab.shape[a] = 1;
      }
      slab.origin[axis] = box.origin[axis] + i;
      slab.shape[axis] = std::min(run, s[axis] - i);
      slabs.push_back(slab);
    }
    // The next index of the outer axes, last fastest; done when they wrap around.
    int a = axis - 1;
    for (; a >= 0; --a) {
      if (++outer[a] < s[a]) break;
      outer[a] = 0;
    }
    if (a < 0) break;
  }
  return slabs;
}

}  // namespace gridstore::grid
