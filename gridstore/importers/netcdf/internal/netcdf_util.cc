// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/netcdf/internal/netcdf_util.h"

#include <cctype>

#include "gridstore/model/names.h"
#include "gridstore/util/internal/utf8.h"

namespace gridstore::internal_importers {

using grid::DataType;

std::recursive_mutex& NetCdfMutex() {
  static std::recursive_mutex mu;
  return mu;
}

std::optional<DataType> ToDataType(nc_type type) {
  switch (type) {
    case NC_BYTE:
      return DataType::kInt8;
    case NC_UBYTE:
      return DataType::kUint8;
    case NC_SHORT:
      return DataType::kInt16;
    case NC_USHORT:
      return DataType::kUint16;
    case NC_INT:
      return DataType::kInt32;
    case NC_UINT:
      return DataType::kUint32;
    case NC_INT64:
      return DataType::kInt64;
    case NC_UINT64:
      return DataType::kUint64;
    case NC_FLOAT:
      return DataType::kFloat32;
    case NC_DOUBLE:
      return DataType::kFloat64;
    default:
      return std::nullopt;
  }
}

nc_type ToNcType(DataType type) {
  switch (type) {
    case DataType::kInt8:
      return NC_BYTE;
    case DataType::kUint8:
      return NC_UBYTE;
    case DataType::kInt16:
      return NC_SHORT;
    case DataType::kUint16:
      return NC_USHORT;
    case DataType::kInt32:
      return NC_INT;
    case DataType::kUint32:
      return NC_UINT;
    case DataType::kInt64:
      return NC_INT64;
    case DataType::kUint64:
      return NC_UINT64;
    case DataType::kFloat32:
      return NC_FLOAT;
    case DataType::kFloat64:
      break;
  }
  return NC_DOUBLE;
}

}  // namespace gridstore::internal_importers
