// Copyright 2026 The GridStore Authors.
#include "gridstore/geo/internal/monotonic_axis.h"

#include <algorithm>
#include <cmath>

namespace gridstore::internal_grid {

MonotonicAxis::MonotonicAxis(std::vector<double> values, bool longitude)
    : values_(std::move(values)), longitude_(longitude) {
  if (longitude_) {
    for (size_t i = 1; i < values_.size(); ++i) {
      while (values_[i] - values_[i - 1] > 180) values_[i] -= 360;
      while (values_[i] - values_[i - 1] < -180) values_[i] += 360;
    }
  }
  const size_t n = values_.size();
  if (n >= 2) ascending_ = values_[1] > values_[0];
  for (size_t i = 1; i < n; ++i) {
    if (ascending_ ? !(values_[i] > values_[i - 1]) : !(values_[i] < values_[i - 1])) {
      monotonic_ = false;
    }
  }
  if (n >= 2) {
    half_low_ = std::fabs(values_[1] - values_[0]) / 2;
    half_high_ = std::fabs(values_[n - 1] - values_[n - 2]) / 2;
    if (!ascending_) std::swap(half_low_, half_high_);
  } else {
    half_low_ = half_high_ = longitude_ ? 180 : 0.5;
  }
  if (longitude_ && n >= 2 && max() - min() + half_low_ + half_high_ >= 360 - 1e-6) {
    global_ = true;
    half_low_ = half_high_ = (min() + 360 - max()) / 2;
  }
}

double MonotonicAxis::Normalize(double q) const {
  const double low = lower_edge();
  return q - 360 * std::floor((q - low) / 360);
}

std::optional<double> MonotonicAxis::Position(double q) const {
  const int64_t n = size();
  if (n == 0 || !std::isfinite(q)) return std::nullopt;
  if (longitude_) q = Normalize(q);
  // An ascending view of the values: s(k) = value(idx(k)).
  auto idx = [&](double k) { return ascending_ ? k : static_cast<double>(n - 1) - k; };
  auto s = [&](int64_t k) { return values_[static_cast<size_t>(ascending_ ? k : n - 1 - k)]; };
  if (q < min()) return q >= lower_edge() - 1e-9 ? std::optional<double>(idx(0)) : std::nullopt;
  if (q > max()) {
    if (global_) {
      // Between the last centre and the first + 360: across the seam.
      const double t = (q - max()) / (min() + 360 - max());
      return ascending_ ? static_cast<double>(n - 1) + t : -t;
    }
    return q <= upper_edge() + 1e-9 ? std::optional<double>(idx(static_cast<double>(n - 1)))
                                    : std::nullopt;
  }
  if (n == 1) return 0.0;
  // The largest k with s(k) <= q.
  int64_t lo = 0, hi = n - 1;
  while (hi - lo > 1) {
    const int64_t mid = (lo + hi) / 2;
    (s(mid) <= q ? lo : hi) = mid;
  }
  const double t = (q - s(lo)) / (s(lo + 1) - s(lo));
  return idx(static_cast<double>(lo) + std::clamp(t, 0.0, 1.0));
}

}  // namespace gridstore::internal_grid
