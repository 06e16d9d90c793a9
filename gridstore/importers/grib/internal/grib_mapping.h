// Copyright 2026 The GridStore Authors.
//
// How the fields of a GRIB file become one dataset (docs/usage-import.md, "GRIB"): fields are
// grouped into variables by (shortName, typeOfLevel); t is the distinct validity times, z the
// distinct levels of the variable's level type, x and y the grid's rows and points in ecCodes'
// value order. Pure: from the fields' headers and the grid's latitudes/longitudes to a meta and,
// for every field, the plane it fills.
#ifndef GRIDSTORE_IMPORTERS_GRIB_INTERNAL_GRIB_MAPPING_H_
#define GRIDSTORE_IMPORTERS_GRIB_INTERNAL_GRIB_MAPPING_H_

#include <cstdint>
#include <string>
#include <vector>

#include "gridstore/importers/grib/internal/grib_file.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::internal_importers {

struct GribPlan {
  grid::DataSetMeta meta;
  struct Target {
    size_t variable = 0;  // index into meta.variables
    int64_t t = 0, z = 0;
  };
  std::vector<Target> targets;    // one per field, in file order
  int64_t rows = 0, columns = 0;  // x and y extents: the plane of every field
  std::vector<std::string> notes;
};

struct GribPlanOptions {
  std::string id;                                  // the dataset's id
  grid::DataType type = grid::DataType::kFloat32;  // float32 or float64
  // Give time a dimension even when the fields hold one validity time (a run appended step by
  // step grows along it); otherwise one time is a scalar coordinate.
  bool time_dimension = false;
  // The ensemble member every field is (GRIB_perturbationNumber of each variable), or -1.
  long member = -1;
};

// InvalidArgument naming the file and both fields if a field of `fields` is on another grid
// than the first.
Status CheckOneGrid(const std::vector<std::string>& paths, const std::vector<GribField>& fields);

// Seconds since 1970-01-01 of a GRIB date (YYYYMMDD) and time (HHMM), proleptic Gregorian.
int64_t EpochSeconds(long date, long time);

// Plans the import of `fields` (from GribFile::Scan of each of `paths`; GribField::file indexes
// `paths`) as one dataset. `lats` and `lons` are the first field's point coordinates (all fields
// must share its grid). The fields are one member of an ensemble at most (GribImportPlan splits
// an ensemble by member first). InvalidArgument naming the file and field for: a grid without
// fixed rows (reduced, spectral, unstructured), fields on different grids, two fields for the
// same variable, time and level.
Result<GribPlan> PlanGrib(const std::vector<std::string>& paths,
                          const std::vector<GribField>& fields, const GribPlanOptions& options,
                          const std::vector<double>& lats, const std::vector<double>& lons);

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_GRIB_INTERNAL_GRIB_MAPPING_H_
