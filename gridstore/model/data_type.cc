// Copyright 2026 The GridStore Authors.
#include "gridstore/model/data_type.h"

#include <string>

namespace gridstore::grid {

size_t DataTypeSize(DataType type) {
  switch (type) {
    case DataType::kInt8:
    case DataType::kUint8:
      return 1;
    case DataType::kInt16:
    case DataType::kUint16:
      return 2;
    case DataType::kInt32:
    case DataType::kUint32:
    case DataType::kFloat32:
      return 4;
    case DataType::kInt64:
    case DataType::kUint64:
    case DataType::kFloat64:
      return 8;
  }
  return 0;
}

std::string_view DataTypeName(DataType type) {
  switch (type) {
    case DataType::kInt8:
      return "int8";
    case DataType::kUint8:
      return "uint8";
    case DataType::kInt16:
      return "int16";
    case DataType::kUint16:
      return "uint16";
    case DataType::kInt32:
      return "int32";
    case DataType::kUint32:
      return "uint32";
    case DataType::kInt64:
      return "int64";
    case DataType::kUint64:
      return "uint64";
    case DataType::kFloat32:
      return "float32";
    case DataType::kFloat64:
      return "float64";
  }
  return "invalid";
}

Result<DataType> ParseDataType(std::string_view name) {
  for (uint8_t raw = 1; raw <= 10; ++raw) {
    auto type = static_cast<DataType>(raw);
    if (DataTypeName(type) == name) return type;
  }
  if (name == "float") return DataType::kFloat32;
  if (name == "double") return DataType::kFloat64;
  return Status::InvalidArgument("unknown data type '" + std::string(name) +
                                 "' (expected int8, uint8, int16, uint16, int32, uint32, int64, "
                                 "uint64, float32 or float64)");
}

bool IsValidDataType(uint8_t raw) { return raw >= 1 && raw <= 10; }

bool IsFloatingPoint(DataType type) {
  return type == DataType::kFloat32 || type == DataType::kFloat64;
}

}  // namespace gridstore::grid
