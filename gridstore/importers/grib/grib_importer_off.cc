// Copyright 2026 The GridStore Authors.
//
// GRIB import in a build without ecCodes (GRIDSTORE_WITH_GRIB=OFF): GRIB is still recognised by
// content, and everything else is Unimplemented, naming the file and how to enable GRIB.
#include <memory>
#include <string>
#include <vector>

#include "gridstore/features.h"
#include "gridstore/importers/grib/grib_importer.h"
#include "gridstore/importers/grib/internal/grib_file.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::importers {
namespace {

Status NoGrib(const std::vector<std::string>& paths) {
  return Status::Unimplemented((paths.empty() ? std::string("GRIB") : Quote(paths.front())) +
                               " is GRIB, and " + kEnableGrib);
}

}  // namespace

struct GribImportPlan {
  grid::DataSetMeta meta;
};

bool IsGribFile(const std::string& path) { return internal_importers::LooksLikeGrib(path); }

Status CheckGribFile(const std::string& path) { return NoGrib({path}); }

Result<grid::DataSetMeta> ReadGribMeta(const std::vector<std::string>& paths,
                                       const GribImportOptions&, std::vector<std::string>*) {
  return NoGrib(paths);
}

Result<ImportSummary> ImportGrib(grid::GridStore*, const std::vector<std::string>& paths,
                                 const GribImportOptions&) {
  return NoGrib(paths);
}

Result<std::shared_ptr<const GribImportPlan>> PlanGribImport(const std::vector<std::string>& paths,
                                                             const GribImportOptions&) {
  return NoGrib(paths);
}

const grid::DataSetMeta& PlannedMeta(const GribImportPlan& plan) { return plan.meta; }

std::vector<const grid::DataSetMeta*> PlannedMetas(const GribImportPlan& plan) {
  return {&plan.meta};
}

Result<ImportSummary> RunGribImport(grid::GridStore*, const GribImportPlan&,
                                    std::function<void(const ImportProgress&)>) {
  return NoGrib({});
}

}  // namespace gridstore::importers
