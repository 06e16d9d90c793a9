// Copyright 2026 The GridStore Authors.
//
// libFuzzer target for the readers that see a file's bytes before a C library does (issue 29):
// the GRIB message structure check (importers/grib/internal/grib_structure.h), which stands between
// a damaged message and ecCodes' aborts, and the netCDF classic header check
// (importers/netcdf/internal/classic_file_check.h), which reads the header itself to find truncated
// files. The first byte picks the reader; the rest is the file. Seeded by scripts/fuzz.sh with
// the real files of ../shared (their first 64 KiB). Any crash, sanitizer report or hang is a bug.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "gridstore/importers/grib/internal/grib_structure.h"
#include "gridstore/importers/netcdf/internal/classic_file_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] & 1) {
    gridstore::internal_importers::CheckGribStructure(bytes, "fuzz.grib").status().IgnoreError();
    return 0;
  }
  // The classic check reads a path: a private file per process, rewritten each time.
  static const std::string path = "/tmp/gridstore-header-fuzz-" + std::to_string(getpid()) + ".nc";
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return 0;
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
  gridstore::internal_importers::CheckClassicFileSize(path).IgnoreError();
  return 0;
}
