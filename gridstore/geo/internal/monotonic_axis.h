// Copyright 2026 The GridStore Authors.
//
// One rectilinear axis (latitudes, or longitudes unwrapped to be continuous) and where a value
// falls on it, in either direction: the fractional index that interpolation and nearest-point
// lookups share.
#ifndef GRIDSTORE_GEO_INTERNAL_MONOTONIC_AXIS_H_
#define GRIDSTORE_GEO_INTERNAL_MONOTONIC_AXIS_H_

#include <cstdint>
#include <optional>
#include <vector>

namespace gridstore::internal_grid {

class MonotonicAxis {
 public:
  MonotonicAxis() = default;
  // `values` must be strictly monotonic (either direction) or of size 1. A longitude axis is
  // unwrapped first (each value moved by multiples of 360 to within 180 of the one before), and
  // is global if its cells cover 360 degrees.
  MonotonicAxis(std::vector<double> values, bool longitude);

  // False if the values are not strictly monotonic (after unwrapping longitudes).
  bool monotonic() const { return monotonic_; }
  bool global() const { return global_; }
  int64_t size() const { return static_cast<int64_t>(values_.size()); }
  double value(int64_t i) const { return values_[static_cast<size_t>(i)]; }
  double min() const { return ascending_ ? values_.front() : values_.back(); }
  double max() const { return ascending_ ? values_.back() : values_.front(); }
  // The extent of the cells: the outer centres plus half a cell (for a global longitude axis,
  // [min, min + 360)).
  double lower_edge() const { return min() - half_low_; }
  double upper_edge() const { return max() + half_high_; }

  // Where `q` falls, as a fractional index into the values (index order): i + t between
  // values i and i + 1. Inside the outer centres, exact; between an outer centre and the edge of
  // its cell, the outer index. nullopt beyond the edges. A longitude is moved by multiples of
  // 360 first; on a global axis a value across the seam (between the largest centre and the
  // smallest + 360) gives a position in (-1, 0) or (size() - 1, size()): take indices modulo
  // size().
  std::optional<double> Position(double q) const;
  // A longitude moved by multiples of 360 into [lower_edge(), lower_edge() + 360).
  double Normalize(double q) const;

 private:
  std::vector<double> values_;
  bool longitude_ = false;
  bool ascending_ = true;
  bool monotonic_ = true;
  bool global_ = false;
  double half_low_ = 0, half_high_ = 0;  // half a cell beyond min() and max()
};

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_GEO_INTERNAL_MONOTONIC_AXIS_H_
