// Copyright 2026 The GridStore Authors.
//
// What planning an extraction resolves, beyond the public plan: the grid, the axes and the
// variables, for the reading side (extract.cc).
#ifndef GRIDSTORE_GEO_INTERNAL_EXTRACT_INTERNAL_H_
#define GRIDSTORE_GEO_INTERNAL_EXTRACT_INTERNAL_H_

#include <memory>
#include <optional>
#include <vector>

#include "gridstore/geo/extract.h"

namespace gridstore::internal_grid {

struct ResolvedExtract {
  grid::ExtractPlan plan;
  std::shared_ptr<const grid::HorizontalGrid> grid;
  std::vector<const grid::VariableMeta*> variables;  // into the meta resolved against
  std::optional<grid::AxisCoordinate> time_axis, level_axis;
};

// The horizontal grid of `var`, built once per dataset state and variable and kept in `cache`
// (the store's derived cache; null: built every time).
Result<std::shared_ptr<const grid::HorizontalGrid>> CachedGrid(grid::DerivedCache* cache,
                                                               const grid::DataSetMeta& meta,
                                                               const grid::VariableMeta& var);

// Whether `a` and `b` can be read by one extraction: the same shape, dimensions and time and level
// coordinates (two one-level variables without a level dimension may still lie at different
// scalar levels: GRIB's `2t` at 2 m, `10u` at 10 m).
bool ShareAxes(const grid::DataSetMeta& meta, const grid::VariableMeta& a,
               const grid::VariableMeta& b);

// Checks and plans `request` against `meta` (see PlanExtract), grids from `grids` (may be null).
Result<ResolvedExtract> ResolveExtract(const grid::DataSetMeta& meta,
                                       const grid::ExtractRequest& request,
                                       grid::DerivedCache* grids);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_GEO_INTERNAL_EXTRACT_INTERNAL_H_
