// Copyright 2026 The GridStore Authors.
//
// FetchOptions::unpack: stored values as floating point, NaN where the fill or a missing value
// is, packed values scaled (unpacked = stored * scale_factor + add_offset).
#ifndef GRIDSTORE_BLOCKS_INTERNAL_UNPACK_H_
#define GRIDSTORE_BLOCKS_INTERNAL_UNPACK_H_

#include "gridstore/model/grid.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/internal/thread_pool.h"

namespace gridstore::internal_grid {

// `stored` (of `var`'s type) unpacked into UnpackedType(var), in parallel on up to `parallelism`
// threads of `pool`. A floating-point variable without packing is masked in place (the same
// buffer comes back); any other gets a new buffer.
grid::Grid4D Unpack(const grid::VariableMeta& var, grid::Grid4D stored, ThreadPool* pool,
                    int parallelism);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_BLOCKS_INTERNAL_UNPACK_H_
