// Copyright 2026 The GridStore Authors.
#include "gridstore/geo/internal/geo_libraries.h"

#include <string>

#include "gridstore/util/internal/shared_library.h"

namespace gridstore::internal_grid {

#define GRIDSTORE_GEO_DEFINE(name) decltype(&::name) name = nullptr;
namespace proj {
GRIDSTORE_PROJ_FUNCTIONS(GRIDSTORE_GEO_DEFINE)
}  // namespace proj
namespace geos {
GRIDSTORE_GEOS_FUNCTIONS(GRIDSTORE_GEO_DEFINE)
}  // namespace geos
#undef GRIDSTORE_GEO_DEFINE

namespace {

// The sonames come from the build (the PROJ::proj and GEOS::geos_c targets), so the libraries
// loaded are those the headers were compiled against.
Status Load(const char* library, const char* what, const char* package, bool proj_library) {
  GRIDSTORE_ASSIGN_OR_RETURN(void* handle,
                             OpenSharedLibrary(library, what, std::string("install ") + package));
  std::string missing;
#define GRIDSTORE_GEO_RESOLVE(ns, name) \
  ns::name = reinterpret_cast<decltype(&::name)>(FindSymbol(handle, #name, &missing));
#define GRIDSTORE_PROJ_RESOLVE(name) GRIDSTORE_GEO_RESOLVE(proj, name)
#define GRIDSTORE_GEOS_RESOLVE(name) GRIDSTORE_GEO_RESOLVE(geos, name)
  if (proj_library) {
    GRIDSTORE_PROJ_FUNCTIONS(GRIDSTORE_PROJ_RESOLVE)
  } else {
    GRIDSTORE_GEOS_FUNCTIONS(GRIDSTORE_GEOS_RESOLVE)
  }
#undef GRIDSTORE_PROJ_RESOLVE
#undef GRIDSTORE_GEOS_RESOLVE
#undef GRIDSTORE_GEO_RESOLVE
  if (!missing.empty()) {
    return Status::FailedPrecondition(std::string(what) + " is unavailable: " + library +
                                      " lacks " + missing);
  }
  return Status::OK();
}

}  // namespace

Status LoadProj() {
  static const Status* const loaded =  // never freed: used until exit
      new Status(Load(GRIDSTORE_PROJ_SONAME, "Grid mappings (PROJ)", "PROJ (Debian: libproj25)",
                      /*proj_library=*/true));
  return *loaded;
}

Status LoadGeos() {
  static const Status* const loaded = new Status(
      Load(GRIDSTORE_GEOS_SONAME, "Polygons (GEOS)", "GEOS (Debian: libgeos-c1v5)", false));
  return *loaded;
}

}  // namespace gridstore::internal_grid
