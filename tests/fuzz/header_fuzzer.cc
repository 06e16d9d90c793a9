// Copyright 2026 The GridStore Authors.
//
// libFuzzer target for the readers that see a file's bytes before a C library does (issue 29):
// the GRIB message structure check (importers/grib/internal/grib_structure.h), which stands between
// a damaged message and ecCodes' aborts, and the netCDF classic header check
// (importers/netcdf/internal/classic_file_check.h), which reads the header itself to find truncated
// files, and (issue 33) the GRIB2 data-section decoder (importers/grib/internal/grib2_unpack.h),
// which unpacks values from a message's bytes without ecCodes. The first byte picks the reader
// (0 classic, 1 GRIB structure, 2 GRIB2 values); the rest is the file. Seeded by scripts/fuzz.sh
// with the real files of ../shared (their first 64 KiB). Any crash, sanitizer report or hang is a
// bug.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "gridstore/importers/grib/internal/grib2_unpack.h"
#include "gridstore/importers/grib/internal/grib_structure.h"
#include "gridstore/importers/netcdf/internal/classic_file_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  namespace gi = gridstore::internal_importers;
  if (data[0] % 3 == 1) {
    gi::CheckGribStructure(bytes, "fuzz.grib").status().IgnoreError();
    return 0;
  }
  if (data[0] % 3 == 2) {
    auto packing = gi::FindGrib2Packing(std::span(data + 1, size - 1));
    // The value count is the message's word: bounded here so that the fuzzer's memory limit is
    // not what stops it (the importer sizes planes from the grid, which it checked first).
    if (!packing.ok() || !*packing || (*packing)->values > (int64_t{1} << 22)) return 0;
    std::vector<float> values(static_cast<size_t>((*packing)->values));
    gi::UnpackGrib2Values<float>(**packing, values).IgnoreError();
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
