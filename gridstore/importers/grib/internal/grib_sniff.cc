// Copyright 2026 The GridStore Authors.
//
// Telling GRIB by content needs no ecCodes: built with or without GRIB support, so that a build
// without it still names a GRIB file as GRIB (and says how to enable it).
#include <cstdio>
#include <string>
#include <string_view>

#include "gridstore/importers/grib/internal/grib_file.h"

namespace gridstore::internal_importers {

bool LooksLikeGrib(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  char head[1024];
  const size_t n = std::fread(head, 1, sizeof(head), f);
  std::fclose(f);
  const std::string_view text(head, n);
  // NetCDF classic / 64-bit offset / CDF-5 and HDF5 (netCDF-4) files are never GRIB, whatever
  // their header's attributes say (cfgrib writes GRIB_centre...).
  if (text.starts_with("CDF") || text.starts_with("\x89HDF")) return false;
  // "GRIB" at the start, or after a WMO bulletin header, followed by edition 1 or 2 (octet 8).
  const size_t at = text.find("GRIB");
  return at != std::string_view::npos && at + 7 < text.size() &&
         (text[at + 7] == 1 || text[at + 7] == 2);
}

}  // namespace gridstore::internal_importers
