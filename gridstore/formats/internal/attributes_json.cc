// Copyright 2026 The GridStore Authors.
#include "gridstore/formats/internal/attributes_json.h"

#include <cmath>

namespace gridstore::formats {

using nlohmann::ordered_json;

ordered_json AttributeJson(const grid::AttributeValue& v) {
  if (v.is_string()) return v.string_value();
  if (v.is_bool()) return v.bool_value();
  ordered_json numbers = ordered_json::array();
  for (size_t i = 0; i < v.size(); ++i) {
    if (grid::IsFloatingPoint(v.number_type())) {
      const double d = v.floats()[i];
      numbers.push_back(std::isfinite(d) ? ordered_json(d) : ordered_json(nullptr));
    } else if (v.number_type() == grid::DataType::kUint64) {
      numbers.push_back(static_cast<uint64_t>(v.integers()[i]));
    } else {
      numbers.push_back(v.integers()[i]);
    }
  }
  return v.size() == 1 ? numbers[0] : numbers;
}

ordered_json AttributesJson(const grid::Attributes& attributes) {
  ordered_json out = ordered_json::object();
  for (const auto& [k, v] : attributes) out[k] = AttributeJson(v);
  return out;
}

}  // namespace gridstore::formats
