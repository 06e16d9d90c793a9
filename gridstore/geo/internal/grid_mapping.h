// Copyright 2026 The GridStore Authors.
//
// CF grid mappings (the attributes of a grid mapping variable: rotated_latitude_longitude,
// lambert_conformal_conic, polar_stereographic, ...) turned into geographic coordinates with PROJ.
// The only code that includes PROJ.
#ifndef GRIDSTORE_GEO_INTERNAL_GRID_MAPPING_H_
#define GRIDSTORE_GEO_INTERNAL_GRID_MAPPING_H_

#include <string>
#include <string_view>
#include <vector>

#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::internal_grid {

// The PROJ definition of a CF grid mapping ("+proj=ob_tran +o_proj=longlat ..."), as pyproj's
// CRS.from_cf writes it: every grid_mapping_name of CF 1.11 that PROJ can express. Attributes
// written under a common non-CF name (`longitude_of_projection_origin` for transverse Mercator's
// `longitude_of_central_meridian`, say) are accepted, and a note saying so is appended to
// `*notes` (if not null). InvalidArgument naming the mapping and the missing or unsupported
// attribute otherwise.
Result<std::string> ProjDefinition(const grid::Coordinate& mapping,
                                   std::vector<std::string>* notes = nullptr);

// Geographic longitudes and latitudes (degrees) of the points (xs[i], ys[i]) in the mapping's
// coordinates, given in `xy_units`: degrees for rotated_latitude_longitude; metres or km for
// projections; radians or microradians (scanning angles) for geostationary. A point PROJ cannot
// place (off a geostationary disk) gets NaN. Notes as ProjDefinition. InvalidArgument naming the
// mapping if PROJ refuses it.
Status ToGeographic(const grid::Coordinate& mapping, std::string_view xy_units,
                    const std::vector<double>& xs, const std::vector<double>& ys,
                    std::vector<double>* lons, std::vector<double>* lats,
                    std::vector<std::string>* notes = nullptr);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_GEO_INTERNAL_GRID_MAPPING_H_
