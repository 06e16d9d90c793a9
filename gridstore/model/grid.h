// Copyright 2026 The GridStore Authors.
//
// In-memory grids: Grid2D is one (x, y) plane handed to the writer; Grid4D is one variable's
// fetched box over (t, z, x, y) with its origin; GridDataSet maps variable names to Grid4Ds.
// All hold one contiguous row-major buffer (y fastest) in the host's (little-endian) byte order,
// with typed std::span views (Eigen tensor views: model/eigen_view.h). Value types: movable and
// copyable (a copy copies the buffer); not synchronised.
#ifndef GRIDSTORE_MODEL_GRID_H_
#define GRIDSTORE_MODEL_GRID_H_

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "gridstore/model/data_type.h"
#include "gridstore/model/grid_meta.h"

namespace gridstore::grid {

// An owned byte buffer of `count` elements of `type`. Allocation does not initialise it.
class GridBuffer {
 public:
  GridBuffer() = default;
  GridBuffer(DataType type, size_t count);
  GridBuffer(const GridBuffer& other);
  GridBuffer& operator=(const GridBuffer& other);
  GridBuffer(GridBuffer&&) noexcept = default;
  GridBuffer& operator=(GridBuffer&&) noexcept = default;

  DataType type() const { return type_; }
  size_t count() const { return count_; }
  size_t size_bytes() const { return count_ * DataTypeSize(type_); }
  char* bytes() { return data_.get(); }
  const char* bytes() const { return data_.get(); }

  // REQUIRES: T matches type().
  template <typename T>
  std::span<T> span() {
    assert(kDataTypeOf<T> == type_);
    return {reinterpret_cast<T*>(data_.get()), count_};
  }
  template <typename T>
  std::span<const T> span() const {
    assert(kDataTypeOf<T> == type_);
    return {reinterpret_cast<const T*>(data_.get()), count_};
  }

 private:
  DataType type_ = DataType::kFloat32;
  size_t count_ = 0;
  std::unique_ptr<char[]> data_;
};

// One horizontal plane of one variable at one (t, z): x rows of y values.
class Grid2D {
 public:
  Grid2D() = default;
  // An x-by-y plane; the contents are unspecified until written.
  Grid2D(DataType type, int64_t x, int64_t y);
  // A plane holding a copy of `values` (x * y of them, row-major).
  template <typename T>
  static Grid2D FromValues(int64_t x, int64_t y, std::span<const T> values) {
    assert(static_cast<int64_t>(values.size()) == x * y);
    Grid2D g(kDataTypeOf<T>, x, y);
    std::copy(values.begin(), values.end(), g.data<T>().begin());
    return g;
  }
  template <typename T>
  static Grid2D FromValues(int64_t x, int64_t y, const std::vector<T>& values) {
    return FromValues<T>(x, y, std::span<const T>(values));
  }

  DataType type() const { return buffer_.type(); }
  int64_t x() const { return x_; }
  int64_t y() const { return y_; }
  size_t size_bytes() const { return buffer_.size_bytes(); }
  char* bytes() { return buffer_.bytes(); }
  const char* bytes() const { return buffer_.bytes(); }

  template <typename T>
  std::span<T> data() {
    return buffer_.span<T>();
  }
  template <typename T>
  std::span<const T> data() const {
    return buffer_.span<T>();
  }
  template <typename T>
  T& at(int64_t x, int64_t y) {
    return data<T>()[x * y_ + y];
  }
  template <typename T>
  const T& at(int64_t x, int64_t y) const {
    return data<T>()[x * y_ + y];
  }

 private:
  int64_t x_ = 0;
  int64_t y_ = 0;
  GridBuffer buffer_;
};

// A 4-D box of one variable: `shape` values starting at `origin` of the variable's (t, z, x, y).
class Grid4D {
 public:
  Grid4D() = default;
  // A box of `shape` at `origin`; the contents are unspecified until written.
  Grid4D(DataType type, const Shape4& origin, const Shape4& shape);

  DataType type() const { return buffer_.type(); }
  const Shape4& origin() const { return origin_; }
  const Shape4& shape() const { return shape_; }
  size_t size() const { return buffer_.count(); }
  size_t size_bytes() const { return buffer_.size_bytes(); }
  char* bytes() { return buffer_.bytes(); }
  const char* bytes() const { return buffer_.bytes(); }

  // REQUIRES: T matches type().
  template <typename T>
  std::span<T> data() {
    return buffer_.span<T>();
  }
  template <typename T>
  std::span<const T> data() const {
    return buffer_.span<T>();
  }

  // Element at (t, z, x, y) relative to origin(). REQUIRES: inside shape(), T matches type().
  template <typename T>
  const T& at(int64_t t, int64_t z, int64_t x, int64_t y) const {
    return data<T>()[Offset(t, z, x, y)];
  }
  template <typename T>
  T& at(int64_t t, int64_t z, int64_t x, int64_t y) {
    return data<T>()[Offset(t, z, x, y)];
  }
  // The element at (t, z, x, y) relative to origin(), converted to double (any type).
  double ValueAsDouble(int64_t t, int64_t z, int64_t x, int64_t y) const;

  size_t Offset(int64_t t, int64_t z, int64_t x, int64_t y) const {
    return static_cast<size_t>(((t * shape_[1] + z) * shape_[2] + x) * shape_[3] + y);
  }

 private:
  Shape4 origin_ = {0, 0, 0, 0};
  Shape4 shape_ = {0, 0, 0, 0};
  GridBuffer buffer_;
};

// A 4-D box over (t, z, x, y): `shape` values from `origin`.
struct Box {
  Shape4 origin = {0, 0, 0, 0};
  Shape4 shape = {1, 1, 1, 1};
};

// What one Fetch did, for tuning and tests.
struct FetchStats {
  int64_t blocks = 0;              // blocks the box touches
  int64_t blocks_read = 0;         // read from the store (cache misses that existed)
  int64_t blocks_missing = 0;      // never written: served as the fill value
  int64_t cache_hits = 0;          // served decompressed from the block cache
  int64_t bytes_read = 0;          // stored (compressed) bytes read from the store
  int64_t bytes_decompressed = 0;  // raw bytes produced by decompression (decoded frames only)
  int64_t bytes_returned = 0;      // bytes of the result buffers
};

// The result of a fetch: one Grid4D per requested variable.
struct GridDataSet {
  std::string id;
  std::map<std::string, Grid4D, std::less<>> variables;
  FetchStats stats;

  // Null if `name` was not fetched.
  const Grid4D* GetVariable(std::string_view name) const {
    auto it = variables.find(name);
    return it == variables.end() ? nullptr : &it->second;
  }
};

}  // namespace gridstore::grid

#endif  // GRIDSTORE_MODEL_GRID_H_
