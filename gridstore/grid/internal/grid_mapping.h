// Copyright 2026 The GridStore Authors.
//
// CF grid mappings (the attributes of a grid mapping variable: rotated_latitude_longitude,
// lambert_conformal_conic, polar_stereographic, ...) turned into geographic coordinates with PROJ.
// The only code that includes PROJ.
#ifndef GRIDSTORE_GRID_INTERNAL_GRID_MAPPING_H_
#define GRIDSTORE_GRID_INTERNAL_GRID_MAPPING_H_

#include <string>
#include <vector>

#include "gridstore/grid/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::internal_grid {

// The PROJ definition of a CF grid mapping ("+proj=ob_tran +o_proj=longlat ..."), as pyproj's
// CRS.from_cf writes it. InvalidArgument naming the mapping and the missing or unsupported
// attribute otherwise.
Result<std::string> ProjDefinition(const grid::Coordinate& mapping);

// Geographic longitudes and latitudes (degrees) of the points (xs[i], ys[i]) in the mapping's
// coordinates: degrees for rotated_latitude_longitude, metres otherwise (`xy_scale` converts the
// file's units to metres: 1000 for km). InvalidArgument naming the mapping if PROJ refuses it.
Status ToGeographic(const grid::Coordinate& mapping, double xy_scale, const std::vector<double>& xs,
                    const std::vector<double>& ys, std::vector<double>* lons,
                    std::vector<double>* lats);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_GRID_INTERNAL_GRID_MAPPING_H_
