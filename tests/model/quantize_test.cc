// Copyright 2026 The GridStore Authors.
//
// The quantizer's error bounds, idempotence and pass-through values. Bit-for-bit agreement with
// netCDF-C is tested where netCDF-C is linked: tests/importers/import_precision_test.cc.
#include "gridstore/model/quantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "tests/test_util.h"

namespace gridstore::grid {
namespace {

// Values spread over many magnitudes, both signs, plus awkward ones (powers of two, values just
// below a power of two, subnormals).
template <typename T>
std::vector<T> Samples(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> mantissa(-1.0, 1.0);
  std::uniform_int_distribution<int> exponent(-40, 40);
  std::vector<T> v;
  for (size_t i = 0; i < n; ++i) {
    v.push_back(static_cast<T>(std::ldexp(mantissa(rng), exponent(rng))));
  }
  for (T x : {T(1), T(-1), T(0.5), T(1000), std::nextafter(T(2), T(0)), T(3.14159265358979),
              std::numeric_limits<T>::denorm_min() * 7, std::numeric_limits<T>::min()}) {
    v.push_back(x);
  }
  return v;
}

// The exponent e of x = m * 2^e with 1 <= |m| < 2.
int Exponent(double x) { return std::ilogb(x); }

template <typename T>
void ExpectBitRoundBound(int bits) {
  const std::vector<T> original = Samples<T>(20000, 7u + static_cast<uint32_t>(bits));
  std::vector<T> q = original;
  Quantize({QuantizeMode::kBitRound, bits}, std::span<T>(q), {});
  for (size_t i = 0; i < q.size(); ++i) {
    const double x = original[i];
    if (std::fpclassify(original[i]) != FP_NORMAL) continue;  // subnormals: absolute bound below
    // Half a unit of the last kept bit: |x - q(x)| <= 2^(e - N - 1), relative error <= 2^-(N+1).
    const double bound = std::ldexp(1.0, Exponent(x) - bits - 1);
    ASSERT_LE(std::fabs(x - double(q[i])), bound) << "x=" << x << " bits=" << bits;
    ASSERT_LE(std::fabs(x - double(q[i])) / std::fabs(x), std::ldexp(1.0, -bits - 1));
    ASSERT_EQ(std::signbit(x), std::signbit(double(q[i])));
  }
}

TEST(QuantizeTest, BitRoundErrorIsAtMostHalfTheLastKeptBitFloat) {
  for (int bits = 1; bits <= 23; ++bits) ExpectBitRoundBound<float>(bits);
}

TEST(QuantizeTest, BitRoundErrorIsAtMostHalfTheLastKeptBitDouble) {
  for (int bits : {1, 2, 7, 16, 23, 30, 45, 52}) ExpectBitRoundBound<double>(bits);
}

TEST(QuantizeTest, BitRoundLeavesOnlyTheKeptBits) {
  std::vector<float> v = Samples<float>(1000, 3);
  Quantize({QuantizeMode::kBitRound, 7}, std::span<float>(v), {});
  for (float x : v) {
    if (std::fpclassify(x) != FP_NORMAL) continue;
    EXPECT_EQ(std::bit_cast<uint32_t>(x) & ((1u << 16) - 1), 0u) << x;
  }
  // The tie 1 + 2^-8 (halfway between 1 and 1 + 2^-7) goes up, as netCDF-C's BitRound does.
  std::vector<float> tie = {1.0f + std::ldexp(1.0f, -8)};
  Quantize({QuantizeMode::kBitRound, 7}, std::span<float>(tie), {});
  EXPECT_EQ(tie[0], 1.0f + std::ldexp(1.0f, -7));
}

TEST(QuantizeTest, KeepingAllBitsChangesNothing) {
  const std::vector<float> f = Samples<float>(1000, 5);
  std::vector<float> qf = f;
  Quantize({QuantizeMode::kBitRound, 23}, std::span<float>(qf), {});
  EXPECT_EQ(qf, f);
  const std::vector<double> d = Samples<double>(1000, 6);
  std::vector<double> qd = d;
  Quantize({QuantizeMode::kBitRound, 52}, std::span<double>(qd), {});
  EXPECT_EQ(qd, d);
}

TEST(QuantizeTest, BitRoundIsIdempotent) {
  for (int bits : {1, 4, 10, 22}) {
    std::vector<float> once = Samples<float>(5000, 11);
    Quantize({QuantizeMode::kBitRound, bits}, std::span<float>(once), {});
    std::vector<float> twice = once;
    Quantize({QuantizeMode::kBitRound, bits}, std::span<float>(twice), {});
    EXPECT_EQ(twice, once) << bits;
  }
}

template <typename T>
void ExpectDigitsBound(int digits) {
  const std::vector<T> original = Samples<T>(20000, 100u + static_cast<uint32_t>(digits));
  std::vector<T> q = original;
  Quantize({QuantizeMode::kGranularBitRound, digits}, std::span<T>(q), {});
  for (size_t i = 0; i < q.size(); ++i) {
    const double x = original[i];
    if (std::fpclassify(original[i]) != FP_NORMAL) continue;
    // N significant digits: the error is at most half a unit of the N-th digit,
    // 0.5 * 10^(floor(log10|x|) + 1 - N), so the relative error is at most 0.5 * 10^(1 - N).
    const double bound = 0.5 * std::pow(10.0, std::floor(std::log10(std::fabs(x))) + 1 - digits);
    ASSERT_LE(std::fabs(x - double(q[i])), bound) << "x=" << x << " digits=" << digits;
    ASSERT_LE(std::fabs(x - double(q[i])) / std::fabs(x), 0.5 * std::pow(10.0, 1 - digits));
  }
}

TEST(QuantizeTest, GranularBitRoundKeepsTheSignificantDigits) {
  for (int digits = 1; digits <= 7; ++digits) ExpectDigitsBound<float>(digits);
  for (int digits = 1; digits <= 15; ++digits) ExpectDigitsBound<double>(digits);
}

// Values needing more bits than the type has: netCDF-C 4.9.0 writes -0.0 for them (a negative
// shift; tests/importers/import_precision_test.cc shows it); they are kept here.
TEST(QuantizeTest, GranularBitRoundKeepsValuesNeedingEveryBit) {
  std::vector<float> v = {9181099008.0f, 9.9999e9f};
  const std::vector<float> original = v;
  Quantize({QuantizeMode::kGranularBitRound, 7}, std::span<float>(v), {});
  EXPECT_EQ(v, original);
}

TEST(QuantizeTest, FillNaNInfinityAndZeroPassThrough) {
  const float fill = 9.96921e36f, missing = -999.123f;
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (QuantizeMode mode : {QuantizeMode::kBitRound, QuantizeMode::kGranularBitRound}) {
    std::vector<float> v = {fill, missing, inf, -inf, nan, 0.0f, -0.0f, 1.2345678f};
    const std::vector<float> keep = {fill, missing};
    Quantize({mode, 2}, std::span<float>(v), keep);
    EXPECT_EQ(v[0], fill);
    EXPECT_EQ(v[1], missing);
    EXPECT_EQ(v[2], inf);
    EXPECT_EQ(v[3], -inf);
    EXPECT_TRUE(std::isnan(v[4]));
    EXPECT_EQ(std::bit_cast<uint32_t>(v[5]), 0u);
    EXPECT_EQ(std::bit_cast<uint32_t>(v[6]), 0x80000000u);
    EXPECT_NE(v[7], 1.2345678f);  // the ordinary value was rounded
  }
}

TEST(QuantizeTest, CheckPrecisionNamesTheVariableAndTheBound) {
  EXPECT_OK(CheckPrecision("t2m", DataType::kFloat32, {QuantizeMode::kBitRound, 23}));
  EXPECT_OK(CheckPrecision("t2m", DataType::kFloat64, {QuantizeMode::kBitRound, 52}));
  EXPECT_OK(CheckPrecision("t2m", DataType::kFloat64, {QuantizeMode::kGranularBitRound, 15}));
  Status s = CheckPrecision("t2m", DataType::kFloat32, {QuantizeMode::kBitRound, 24});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("'t2m'"), std::string::npos) << s.ToString();
  EXPECT_NE(s.message().find("1 to 23 mantissa bits"), std::string::npos) << s.ToString();
  s = CheckPrecision("t2m", DataType::kFloat32, {QuantizeMode::kGranularBitRound, 0});
  EXPECT_NE(s.message().find("1 to 7 significant digits"), std::string::npos) << s.ToString();
  s = CheckPrecision("tcco2", DataType::kInt16, {QuantizeMode::kBitRound, 7});
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("'tcco2' is int16"), std::string::npos) << s.ToString();
}

TEST(QuantizeTest, RecordedPrecisionIsNetCdfsAttribute) {
  Attributes attributes;
  EXPECT_FALSE(FindRecordedPrecision(attributes));
  attributes["_QuantizeBitRoundNumberOfSignificantBits"] =
      AttributeValue::Integers(DataType::kInt32, {7});
  auto found = FindRecordedPrecision(attributes);
  ASSERT_TRUE(found);
  EXPECT_EQ(found->precision, (Precision{QuantizeMode::kBitRound, 7}));
  EXPECT_EQ(DescribePrecision(*found), "7 mantissa bits kept (BitRound)");
  Attributes digits;
  digits["_QuantizeBitGroomNumberOfSignificantDigits"] =
      AttributeValue::Integers(DataType::kInt32, {3});
  EXPECT_EQ(DescribePrecision(*FindRecordedPrecision(digits)),
            "3 significant digits kept (BitGroom)");
  EXPECT_EQ(PrecisionAttributeName(QuantizeMode::kGranularBitRound),
            "_QuantizeGranularBitRoundNumberOfSignificantDigits");
}

}  // namespace
}  // namespace gridstore::grid
