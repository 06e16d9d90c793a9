// Copyright 2026 The GridStore Authors.
//
// GRIB2 data sections (section 7) decoded without ecCodes, for the packings operational runs use
// most: grid point simple packing (template 5.0) and complex packing without and with spatial
// differencing (5.2, 5.3). ecCodes' unpacking reads one value at a time through a general bit
// reader and was a third of an import's CPU; here a packed run of one width is read with 64-bit
// loads. Each value is computed in double exactly as ecCodes 2.28 computes it ((X * 2^E + R) *
// 10^-D, the same operations in the same order, R read as ecCodes reads an IEEE float, 10^-D as
// its grib_power makes it), then stored as the plane's type: the same numbers, bit for bit (the
// tests compare every value of every GRIB2 file in ../shared with ecCodes'). Everything else
// (other templates, values marked missing inside section 7, predefined bitmaps, more than 32
// bits) is left to ecCodes: FindGrib2Packing says so. Pure functions of the message's bytes.
#ifndef GRIDSTORE_IMPORTERS_GRIB_INTERNAL_GRIB2_UNPACK_H_
#define GRIDSTORE_IMPORTERS_GRIB_INTERNAL_GRIB2_UNPACK_H_

#include <cstdint>
#include <optional>
#include <span>

#include "gridstore/util/result.h"

namespace gridstore::internal_importers {

// How one field's values are packed (section 5) and where (section 7), read from a GRIB2 message
// holding one field (what ecCodes' handle holds, also for a field of a multi-field message).
struct Grib2Packing {
  int template_number = 0;  // 0 simple, 2 complex, 3 complex with spatial differencing
  int64_t values = 0;       // numberOfValues: the values packed (points not missing)
  int64_t points = 0;       // numberOfDataPoints (section 3)
  bool bitmap = false;    // section 6 holds a bitmap (indicator 0): `values` of `points` are there
  double reference = 0;   // R, as ecCodes reads it
  int binary_scale = 0;   // E
  int decimal_scale = 0;  // D
  int bits = 0;           // bitsPerValue, 0 to 32
  // Complex packing (5.2, 5.3).
  int64_t groups = 0;
  int group_width_reference = 0, group_width_bits = 0;
  int64_t group_length_reference = 0;
  int group_length_increment = 0;
  int64_t last_group_length = 0;
  int group_length_bits = 0;
  int spatial_order = 0;          // 0 (none), 1 or 2
  int extra_octets = 0;           // octets of each spatial differencing descriptor, 1 to 4
  std::span<const uint8_t> data;  // section 7 after its 5-octet header
};

// The packing of `message` if this decoder reads it; nullopt if ecCodes should (GRIB1, another
// template, missing values inside the data, a predefined bitmap, a header outside what is handled).
// DataLoss, naming what, if the message's sections do not fit in it.
Result<std::optional<Grib2Packing>> FindGrib2Packing(std::span<const uint8_t> message);

// The packing's `values` values into `out` (exactly that many), each ecCodes' double rounded to T.
// DataLoss naming what is wrong for a section 7 that does not hold them (truncated, a group wider
// than 32 bits, group lengths not adding up to the values); never reads outside `packing.data`.
template <typename T>
Status UnpackGrib2Values(const Grib2Packing& packing, std::span<T> out);

extern template Status UnpackGrib2Values<float>(const Grib2Packing&, std::span<float>);
extern template Status UnpackGrib2Values<double>(const Grib2Packing&, std::span<double>);

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_GRIB_INTERNAL_GRIB2_UNPACK_H_
