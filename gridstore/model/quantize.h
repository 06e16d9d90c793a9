// Copyright 2026 The GridStore Authors.
//
// Lossy precision of floating-point variables (issue 18): keeping only the mantissa bits a
// variable needs, so that its blocks compress better. Two of netCDF-C 4.9's quantize modes,
// bit for bit: BitRound (keep N explicit mantissa bits) and Granular BitRound (keep N significant
// decimal digits, the mode netCDF recommends for digits). A variable's precision is recorded as
// the attribute netCDF-C itself writes (`_QuantizeBitRoundNumberOfSignificantBits`, ...), so it
// travels with the variable's other attributes into the meta and out to netCDF files unchanged.
// Pure functions; safe to call concurrently on different arrays.
#ifndef GRIDSTORE_MODEL_QUANTIZE_H_
#define GRIDSTORE_MODEL_QUANTIZE_H_

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "gridstore/model/data_type.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/status.h"

namespace gridstore::grid {

enum class QuantizeMode {
  kBitRound,         // `keep` explicit mantissa bits (netCDF-C NC_QUANTIZE_BITROUND)
  kGranularBitRound  // `keep` significant decimal digits (netCDF-C NC_QUANTIZE_GRANULARBR)
};

struct Precision {
  QuantizeMode mode = QuantizeMode::kBitRound;
  int keep = 0;  // bits or digits, by `mode`

  bool operator==(const Precision&) const = default;
};

// The attribute netCDF-C writes for `mode`, holding `keep` as an int.
std::string_view PrecisionAttributeName(QuantizeMode mode);

// The precision recorded in `attributes` (netCDF-C's attribute, written by an import or by
// netCDF-C itself), or nullopt if none. netCDF-C's BitGroom attribute is recognised too: digits,
// reported as mode kGranularBitRound with `bitgroom` set. With several, BitRound's wins.
struct RecordedPrecision {
  Precision precision;
  bool bitgroom = false;  // digits kept by netCDF-C's BitGroom, not Granular BitRound
};
std::optional<RecordedPrecision> FindRecordedPrecision(const Attributes& attributes);

// "7 mantissa bits kept (BitRound)", "3 significant digits kept (Granular BitRound)".
std::string DescribePrecision(const RecordedPrecision& recorded);

// OK if `precision` can be applied to values of `type`: bits 1..23 (float32) or 1..52 (float64),
// digits 1..7 or 1..15. InvalidArgument naming `variable` and the bound otherwise, and for any
// other type (integers are kept exactly: quantizing them is refused).
Status CheckPrecision(std::string_view variable, DataType type, const Precision& precision);

// Rounds `values` in place to `precision`, exactly as netCDF-C 4.9's nc_put_var does with
// nc_def_var_quantize, except that values netCDF-C 4.9.0's Granular BitRound would wipe to -0
// (those needing more bits than the type has) are kept. Values equal to one of `keep` (the fill
// value and missing values), NaNs and infinities are left as they are. REQUIRES:
// CheckPrecision(..., kFloat32 / kFloat64, ...) is OK.
void Quantize(const Precision& precision, std::span<float> values, std::span<const float> keep);
void Quantize(const Precision& precision, std::span<double> values, std::span<const double> keep);

}  // namespace gridstore::grid

#endif  // GRIDSTORE_MODEL_QUANTIZE_H_
