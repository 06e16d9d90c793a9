// Copyright 2026 The GridStore Authors.
//
// The arithmetic follows netCDF-C 4.9.0's nc4_convert_type (libsrc4/nc4var.c) step by step, so
// that a variable quantized here equals the same variable written by netCDF-C with
// nc_def_var_quantize (tests/model/quantize_test.cc compares them value by value). Note that
// netCDF-C's "BitRound" adds half a unit of the last kept bit to the magnitude and truncates: ties
// round away from zero, not to even as numcodecs' BitRound does; netCDF-C's behaviour is kept.
// One deliberate difference: where netCDF-C's Granular BitRound would zero a value (a bit count
// beyond the type's, see GranularBitRound), the value is kept.
#include "gridstore/model/quantize.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "gridstore/util/internal/strings.h"

namespace gridstore::grid {
namespace {

constexpr std::string_view kBitRoundAttribute = "_QuantizeBitRoundNumberOfSignificantBits";
constexpr std::string_view kGranularAttribute =
    "_QuantizeGranularBitRoundNumberOfSignificantDigits";
constexpr std::string_view kBitGroomAttribute = "_QuantizeBitGroomNumberOfSignificantDigits";

// Per-type constants: the unsigned integer of the same size and the explicit mantissa bits.
template <typename T>
struct FloatBits;
template <>
struct FloatBits<float> {
  using U = uint32_t;
  static constexpr int kMantissa = 23;  // netCDF-C BIT_XPL_NBR_SGN_FLT
  static constexpr int kMaxDigits = 7;  // NC_QUANTIZE_MAX_FLOAT_NSD
};
template <>
struct FloatBits<double> {
  using U = uint64_t;
  static constexpr int kMantissa = 52;
  static constexpr int kMaxDigits = 15;
};

// netCDF-C's masks for zeroing the `zero_bits` lowest bits with rounding: shave (AND) and
// half-unit (ADD). netCDF-C shifts by a plain int, which x86 reduces modulo the width; the same
// reduction here keeps the result identical without undefined behaviour.
template <typename U>
struct Masks {
  U shave;
  U half;
};
template <typename U>
Masks<U> MasksFor(int zero_bits) {
  constexpr unsigned kWidth = sizeof(U) * 8;
  const U shave = static_cast<U>(~U{0} << (static_cast<unsigned>(zero_bits) & (kWidth - 1)));
  const U set = static_cast<U>(~shave);
  return {shave, static_cast<U>(set & (shave >> 1))};
}

template <typename T>
bool Kept(T v, std::span<const T> keep) {
  if (!std::isfinite(v)) return true;
  for (T k : keep) {
    if (v == k) return true;
  }
  return false;
}

template <typename T>
void BitRound(int bits, std::span<T> values, std::span<const T> keep) {
  using U = typename FloatBits<T>::U;
  const Masks<U> m = MasksFor<U>(FloatBits<T>::kMantissa - bits);
  for (T& v : values) {
    if (Kept(v, keep)) continue;
    const U u = (std::bit_cast<U>(v) + m.half) & m.shave;
    v = std::bit_cast<T>(u);
  }
}

// Granular BitRound (Zender's DGG19 with netCDF-C's tweaks): the bits kept depend on each value's
// decimal magnitude, so that `digits` significant digits survive.
template <typename T>
void GranularBitRound(int digits, std::span<T> values, std::span<const T> keep) {
  using U = typename FloatBits<T>::U;
  const double bit_per_dgt = M_LN10 / M_LN2;
  const double dgt_per_bit = M_LN2 / M_LN10;
  for (T& v : values) {
    // Zeros are left alone by netCDF-C too (+0 explicitly, -0 through its masks).
    if (v == 0 || Kept(v, keep)) continue;
    const double val = v;
    int xpn_bs2 = 0;
    const double mnt_fabs = std::fabs(std::frexp(val, &xpn_bs2));
    const double mnt_log10_fabs = std::log10(mnt_fabs);
    const int dgt_nbr = static_cast<int>(std::floor(xpn_bs2 * dgt_per_bit + mnt_log10_fabs)) + 1;
    const int qnt_pwr = static_cast<int>(std::floor(bit_per_dgt * (dgt_nbr - digits)));
    // An unsigned short in netCDF-C, decremented after the formula.
    auto keep_bits = static_cast<unsigned short>(
        std::abs(static_cast<int>(std::floor(xpn_bs2 - bit_per_dgt * mnt_log10_fabs)) - qnt_pwr));
    --keep_bits;
    // netCDF-C 4.9.0 goes on with a negative shift here (more bits than the type has, e.g.
    // 9181099008.0f at 7 digits, or 0 wrapped around): the mask then wipes the value (netCDF-C
    // writes -0.0 for it). Such a value needs every bit it has, so it is kept as it is.
    if (keep_bits > FloatBits<T>::kMantissa) continue;
    const Masks<U> m = MasksFor<U>(FloatBits<T>::kMantissa - static_cast<int>(keep_bits));
    v = std::bit_cast<T>(static_cast<U>((std::bit_cast<U>(v) + m.half) & m.shave));
  }
}

template <typename T>
void QuantizeValues(const Precision& precision, std::span<T> values, std::span<const T> keep) {
  if (precision.mode == QuantizeMode::kBitRound) {
    BitRound(precision.keep, values, keep);
  } else {
    GranularBitRound(precision.keep, values, keep);
  }
}

}  // namespace

std::string_view PrecisionAttributeName(QuantizeMode mode) {
  return mode == QuantizeMode::kBitRound ? kBitRoundAttribute : kGranularAttribute;
}

std::optional<RecordedPrecision> FindRecordedPrecision(const Attributes& attributes) {
  struct Known {
    std::string_view name;
    QuantizeMode mode;
    bool bitgroom;
  };
  for (const Known& k : {Known{kBitRoundAttribute, QuantizeMode::kBitRound, false},
                         Known{kGranularAttribute, QuantizeMode::kGranularBitRound, false},
                         Known{kBitGroomAttribute, QuantizeMode::kGranularBitRound, true}}) {
    auto it = attributes.find(k.name);
    if (it == attributes.end() || !it->second.is_number() || it->second.size() != 1) continue;
    return RecordedPrecision{{k.mode, static_cast<int>(it->second.AsDouble())}, k.bitgroom};
  }
  return std::nullopt;
}

std::string DescribePrecision(const RecordedPrecision& recorded) {
  const Precision& p = recorded.precision;
  if (p.mode == QuantizeMode::kBitRound) {
    return std::to_string(p.keep) + " mantissa bits kept (BitRound)";
  }
  return std::to_string(p.keep) + " significant digits kept (" +
         (recorded.bitgroom ? "BitGroom" : "Granular BitRound") + ")";
}

Status CheckPrecision(std::string_view variable, DataType type, const Precision& precision) {
  const bool bits = precision.mode == QuantizeMode::kBitRound;
  const std::string what = bits ? "mantissa bits" : "significant digits";
  if (type != DataType::kFloat32 && type != DataType::kFloat64) {
    return Status::InvalidArgument("variable " + Quote(variable) + " is " +
                                   std::string(DataTypeName(type)) +
                                   ": only float32 and float64 values can keep fewer " + what +
                                   " (integer types are stored exactly)");
  }
  const bool f32 = type == DataType::kFloat32;
  const int max = bits ? (f32 ? FloatBits<float>::kMantissa : FloatBits<double>::kMantissa)
                       : (f32 ? FloatBits<float>::kMaxDigits : FloatBits<double>::kMaxDigits);
  if (precision.keep < 1 || precision.keep > max) {
    return Status::InvalidArgument("variable " + Quote(variable) + " (" +
                                   std::string(DataTypeName(type)) + ") can keep 1 to " +
                                   std::to_string(max) + " " + what + ", not " +
                                   std::to_string(precision.keep));
  }
  return Status::OK();
}

void Quantize(const Precision& precision, std::span<float> values, std::span<const float> keep) {
  QuantizeValues(precision, values, keep);
}

void Quantize(const Precision& precision, std::span<double> values, std::span<const double> keep) {
  QuantizeValues(precision, values, keep);
}

}  // namespace gridstore::grid
