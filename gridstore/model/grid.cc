// Copyright 2026 The GridStore Authors.
#include "gridstore/model/grid.h"

#include <cstring>

namespace gridstore::grid {

GridBuffer::GridBuffer(DataType type, size_t count)
    : type_(type),
      count_(count),
      // for_overwrite: a fetch writes every byte, so zeroing first would only cost time.
      data_(std::make_unique_for_overwrite<char[]>(count * DataTypeSize(type))) {}

GridBuffer::GridBuffer(const GridBuffer& other) : GridBuffer(other.type_, other.count_) {
  if (size_bytes() > 0) std::memcpy(data_.get(), other.data_.get(), size_bytes());
}

GridBuffer& GridBuffer::operator=(const GridBuffer& other) {
  if (this != &other) *this = GridBuffer(other);
  return *this;
}

Grid2D::Grid2D(DataType type, int64_t x, int64_t y)
    : x_(x), y_(y), buffer_(type, static_cast<size_t>(x * y)) {}

Grid4D::Grid4D(DataType type, const Shape4& origin, const Shape4& shape)
    : origin_(origin),
      shape_(shape),
      buffer_(type, static_cast<size_t>(shape[0] * shape[1] * shape[2] * shape[3])) {}

double Grid4D::ValueAsDouble(int64_t t, int64_t z, int64_t x, int64_t y) const {
  size_t offset = Offset(t, z, x, y);
  return VisitDataType(type(), [&](auto tag) {
    using T = decltype(tag);
    T v;
    std::memcpy(&v, bytes() + offset * sizeof(T), sizeof(T));
    return static_cast<double>(v);
  });
}

}  // namespace gridstore::grid
