// Copyright 2026 The GridStore Authors.
//
// The element types a variable can have, and the compile-time mapping to C++ types.
#ifndef GRIDSTORE_MODEL_DATA_TYPE_H_
#define GRIDSTORE_MODEL_DATA_TYPE_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include "gridstore/util/result.h"

namespace gridstore::grid {

// Values are part of the stored format (meta and block headers): never renumber.
enum class DataType : uint8_t {
  kInt8 = 1,
  kUint8 = 2,
  kInt16 = 3,
  kUint16 = 4,
  kInt32 = 5,
  kUint32 = 6,
  kInt64 = 7,
  kUint64 = 8,
  kFloat32 = 9,
  kFloat64 = 10,
};

// Bytes per element; 0 for a value that is not a valid DataType.
size_t DataTypeSize(DataType type);
// "int8", ..., "float32", "float64".
std::string_view DataTypeName(DataType type);
// Parses DataTypeName's output (also "float"/"double"); InvalidArgument otherwise.
Result<DataType> ParseDataType(std::string_view name);
bool IsValidDataType(uint8_t raw);
bool IsFloatingPoint(DataType type);

template <typename T>
struct DataTypeOf;
template <>
struct DataTypeOf<int8_t> {
  static constexpr DataType value = DataType::kInt8;
};
template <>
struct DataTypeOf<uint8_t> {
  static constexpr DataType value = DataType::kUint8;
};
template <>
struct DataTypeOf<int16_t> {
  static constexpr DataType value = DataType::kInt16;
};
template <>
struct DataTypeOf<uint16_t> {
  static constexpr DataType value = DataType::kUint16;
};
template <>
struct DataTypeOf<int32_t> {
  static constexpr DataType value = DataType::kInt32;
};
template <>
struct DataTypeOf<uint32_t> {
  static constexpr DataType value = DataType::kUint32;
};
template <>
struct DataTypeOf<int64_t> {
  static constexpr DataType value = DataType::kInt64;
};
template <>
struct DataTypeOf<uint64_t> {
  static constexpr DataType value = DataType::kUint64;
};
template <>
struct DataTypeOf<float> {
  static constexpr DataType value = DataType::kFloat32;
};
template <>
struct DataTypeOf<double> {
  static constexpr DataType value = DataType::kFloat64;
};
template <typename T>
inline constexpr DataType kDataTypeOf = DataTypeOf<T>::value;

// Calls fn(T{}) with T the C++ type of `type` and returns its result:
//   VisitDataType(type, [&](auto tag) { using T = decltype(tag); ... });
// REQUIRES: `type` is valid.
template <typename Fn>
decltype(auto) VisitDataType(DataType type, Fn&& fn) {
  switch (type) {
    case DataType::kInt8:
      return fn(int8_t{});
    case DataType::kUint8:
      return fn(uint8_t{});
    case DataType::kInt16:
      return fn(int16_t{});
    case DataType::kUint16:
      return fn(uint16_t{});
    case DataType::kInt32:
      return fn(int32_t{});
    case DataType::kUint32:
      return fn(uint32_t{});
    case DataType::kInt64:
      return fn(int64_t{});
    case DataType::kUint64:
      return fn(uint64_t{});
    case DataType::kFloat32:
      return fn(float{});
    case DataType::kFloat64:
      break;
  }
  return fn(double{});
}

}  // namespace gridstore::grid

#endif  // GRIDSTORE_MODEL_DATA_TYPE_H_
