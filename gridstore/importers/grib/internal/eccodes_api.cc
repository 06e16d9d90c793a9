// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/grib/internal/eccodes_api.h"

#include <cstdlib>
#include <string>

#include "gridstore/util/internal/shared_library.h"

namespace gridstore::internal_importers {

namespace eccodes {
#define GRIDSTORE_ECCODES_DEFINE(name) decltype(&::name) name = nullptr;
GRIDSTORE_ECCODES_FUNCTIONS(GRIDSTORE_ECCODES_DEFINE)
#undef GRIDSTORE_ECCODES_DEFINE
}  // namespace eccodes

namespace {

Status Load() {
  const char* chosen = std::getenv("GRIDSTORE_ECCODES_LIBRARY");
  const std::string library =
      chosen != nullptr && *chosen != '\0' ? chosen : GRIDSTORE_ECCODES_SONAME;
  GRIDSTORE_ASSIGN_OR_RETURN(
      void* handle,
      OpenSharedLibrary(library, "GRIB support",
                        std::string("install ecCodes (Debian: libeccodes0)") +
                            (chosen != nullptr ? " or fix $GRIDSTORE_ECCODES_LIBRARY" : "")));
  std::string missing;
#define GRIDSTORE_ECCODES_RESOLVE(name) \
  eccodes::name = reinterpret_cast<decltype(&::name)>(FindSymbol(handle, #name, &missing));
  GRIDSTORE_ECCODES_FUNCTIONS(GRIDSTORE_ECCODES_RESOLVE)
#undef GRIDSTORE_ECCODES_RESOLVE
  if (!missing.empty()) {
    return Status::FailedPrecondition("GRIB support is unavailable: " + library + " lacks " +
                                      missing);
  }
  // Several fields in one GRIB2 message are read as several messages.
  eccodes::codes_grib_multi_support_on(nullptr);
  return Status::OK();
}

}  // namespace

Status LoadEcCodes() {
  static const Status* const loaded = new Status(Load());  // never freed: used until exit
  return *loaded;
}

}  // namespace gridstore::internal_importers
