// Copyright 2026 The GridStore Authors.
#include "gridstore/model/internal/coordinate_values.h"

#include <cmath>
#include <cstring>

namespace gridstore::grid::internal_meta {
namespace {

constexpr double kMaxWhole = 9007199254740992.0;  // 2^53: every whole number below is a double
constexpr uint64_t kMaxCompactValues = (uint64_t{1} << 31) - 1;  // an int32 index

bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }

// Whether value i is start + i * step with the product and the sum both exact: then every
// evaluation (with or without a fused multiply-add, on any build) gives the same bits.
bool IsExactlyRegular(const std::vector<double>& values, double start, double step) {
  for (size_t i = 0; i < values.size(); ++i) {
    const double k = static_cast<double>(i);
    const double product = k * step;
    if (std::fma(k, step, -product) != 0.0) return false;  // the product was rounded
    const double sum = start + product;
    // Two-sum: the rounding error of start + product.
    const double b = sum - start;
    if ((start - (sum - b)) + (product - b) != 0.0) return false;
    if (!SameBits(sum, values[i])) return false;
  }
  return true;
}

bool IsWhole(double v) {
  return v > -kMaxWhole && v < kMaxWhole && std::trunc(v) == v && !(v == 0.0 && std::signbit(v));
}

}  // namespace

ValuesForm ChooseValuesForm(const std::vector<double>& values) {
  if (values.size() < kCompactMinValues || values.size() > kMaxCompactValues) {
    return ValuesForm::kRaw;
  }
  const double start = values[0], step = values[1] - values[0];
  if (std::isfinite(start) && std::isfinite(step) && IsExactlyRegular(values, start, step)) {
    return ValuesForm::kRegular;
  }
  for (double v : values) {
    if (!IsWhole(v)) return ValuesForm::kRaw;
  }
  return ValuesForm::kIntegerDeltas;
}

void EncodeValues(const std::vector<double>& values, ValuesForm form, std::string* dst) {
  dst->push_back(static_cast<char>(form));
  PutVarint64(dst, values.size());
  switch (form) {
    case ValuesForm::kRaw:
      // Little-endian hosts only (checked in CMake): the in-memory doubles are the stored bytes.
      dst->append(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(double));
      return;
    case ValuesForm::kRegular:
      PutDouble(dst, values[0]);
      PutDouble(dst, values[1] - values[0]);
      return;
    case ValuesForm::kIntegerDeltas: {
      int64_t last = 0;
      for (double v : values) {
        const auto whole = static_cast<int64_t>(v);
        PutVarsint64(dst, whole - last);
        last = whole;
      }
      return;
    }
  }
}

bool DecodeValues(ByteReader* reader, uint64_t expected, std::vector<double>* values) {
  uint8_t form = 0;
  uint64_t n = 0;
  if (!reader->ReadByte(&form) || !reader->ReadVarint64(&n)) return false;
  switch (static_cast<ValuesForm>(form)) {
    case ValuesForm::kRaw: {
      std::string_view raw;
      if (n > reader->remaining().size() / sizeof(double)) return false;
      if (!reader->ReadBytes(n * sizeof(double), &raw)) return false;
      values->resize(n);
      if (n > 0) std::memcpy(values->data(), raw.data(), raw.size());
      return true;
    }
    case ValuesForm::kRegular: {
      double start = 0, step = 0;
      if (n != expected || n < 2 || n > kMaxCompactValues || !reader->ReadDouble(&start) ||
          !reader->ReadDouble(&step)) {
        return false;
      }
      values->resize(n);
      double* out = values->data();
      // Four independent counters in doubles (whole numbers, exact): as fast as copying raw
      // values; one index converted each step took twice as long.
      double k0 = 0, k1 = 1, k2 = 2, k3 = 3;
      uint64_t i = 0;
      for (; i + 4 <= n; i += 4, k0 += 4, k1 += 4, k2 += 4, k3 += 4) {
        out[i] = start + k0 * step;
        out[i + 1] = start + k1 * step;
        out[i + 2] = start + k2 * step;
        out[i + 3] = start + k3 * step;
      }
      for (; i < n; ++i) out[i] = start + static_cast<double>(i) * step;
      return true;
    }
    case ValuesForm::kIntegerDeltas: {
      // At least one byte per value.
      if (n != expected || n > kMaxCompactValues || n > reader->remaining().size()) return false;
      values->resize(n);
      const char* p = reader->remaining().data();
      const char* const limit = p + reader->remaining().size();
      int64_t last = 0;
      for (double& v : *values) {
        uint64_t u = 0;
        p = GetVarint64Ptr(p, limit, &u);
        if (p == nullptr) return false;
        const auto delta = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
        // In range, the sum cannot overflow; out of range, the value was not written by us.
        if (delta <= -(int64_t{1} << 54) || delta >= (int64_t{1} << 54)) return false;
        last += delta;
        if (last <= -(int64_t{1} << 53) || last >= (int64_t{1} << 53)) return false;
        v = static_cast<double>(last);
      }
      std::string_view consumed;
      return reader->ReadBytes(static_cast<size_t>(p - reader->remaining().data()), &consumed);
    }
  }
  return false;
}

}  // namespace gridstore::grid::internal_meta
