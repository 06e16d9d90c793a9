// Copyright 2026 The GridStore Authors.
//
// PROJ (grid mappings) and GEOS (polygons), loaded when first needed, as netCDF-C is
// (importers/netcdf/internal/netcdf_api.h): linking them would map PROJ's and GEOS's dependencies
// (SQLite, libcurl, libtiff, ...) into every process, 8 ms of a short command's start, for the
// few requests that need them. grid_mapping.cc and feature_geometry.cc call them through the
// pointers below; nothing else in GridStore uses either library.
#ifndef GRIDSTORE_GEO_INTERNAL_GEO_LIBRARIES_H_
#define GRIDSTORE_GEO_INTERNAL_GEO_LIBRARIES_H_

#include <geos_c.h>
#include <proj.h>

#include "gridstore/util/status.h"

// Every function called, typed by decltype of the library's declaration.
// clang-format off
#define GRIDSTORE_PROJ_FUNCTIONS(X) \
  X(proj_angular_input) \
  X(proj_context_create) \
  X(proj_context_destroy) \
  X(proj_context_errno) \
  X(proj_context_errno_string) \
  X(proj_create) \
  X(proj_destroy) \
  X(proj_log_level) \
  X(proj_trans_generic)
#define GRIDSTORE_GEOS_FUNCTIONS(X) \
  X(GEOSFree_r) \
  X(GEOSGeomFromWKT_r) \
  X(GEOSGeomTypeId_r) \
  X(GEOSGeom_createPointFromXY_r) \
  X(GEOSGeom_destroy_r) \
  X(GEOSGeom_getXMax_r) \
  X(GEOSGeom_getXMin_r) \
  X(GEOSGeom_getYMax_r) \
  X(GEOSGeom_getYMin_r) \
  X(GEOSPrepare_r) \
  X(GEOSPreparedGeom_destroy_r) \
  X(GEOSPreparedIntersects_r) \
  X(GEOS_finish_r) \
  X(GEOS_init_r) \
  X(GEOSisEmpty_r) \
  X(GEOSisValidReason_r) \
  X(GEOSisValid_r)
// clang-format on

namespace gridstore::internal_grid {

// Load the library (its soname as found at build time) and resolve every function above, once
// per process; later calls return the first result. FailedPrecondition naming the library and
// what to install if it cannot be loaded (only grid mappings / polygons are then unavailable).
Status LoadProj();
Status LoadGeos();

namespace proj {
#define GRIDSTORE_GEO_DECLARE(name) extern decltype(&::name) name;
GRIDSTORE_PROJ_FUNCTIONS(GRIDSTORE_GEO_DECLARE)
}  // namespace proj
namespace geos {
GRIDSTORE_GEOS_FUNCTIONS(GRIDSTORE_GEO_DECLARE)
#undef GRIDSTORE_GEO_DECLARE
}  // namespace geos

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_GEO_INTERNAL_GEO_LIBRARIES_H_
