// Copyright 2026 The GridStore Authors.
//
// Dataset metas as values: attributes, variables, coordinates, validation. Their stored form is
// in grid_meta_codec.cc.
#include "gridstore/model/grid_meta.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstring>

#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/util/internal/coding.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::grid {
namespace {

constexpr int64_t kMaxExtent = (int64_t{1} << 31) - 1;
constexpr int64_t kMaxBlockSide = int64_t{1} << 20;
constexpr int64_t kMaxSeriesBlockValues = int64_t{1} << 24;

bool SameDouble(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

void AppendDouble(std::string* out, double v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, ec == std::errc() ? end : buf);
}

void AppendFloat(std::string* out, float v) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, ec == std::errc() ? end : buf);
}

// ---- Encoding ----

Status ValidateAttributes(const Attributes& attributes, std::string_view owner) {
  for (const auto& [name, value] : attributes) {
    if (name.empty()) {
      return Status::InvalidArgument(std::string(owner) + "an attribute has an empty name");
    }
    if (value.is_number() && !IsValidDataType(static_cast<uint8_t>(value.number_type()))) {
      return Status::InvalidArgument(std::string(owner) + "attribute " + Quote(name) +
                                     " has invalid number type " +
                                     std::to_string(static_cast<int>(value.number_type())));
    }
  }
  return Status::OK();
}

Status ValidateVariable(const VariableMeta& v) {
  GRIDSTORE_RETURN_IF_ERROR(ValidateVariableName(v.name));
  const std::string where = "variable " + Quote(v.name) + ": ";
  const size_t element_size = DataTypeSize(v.type);
  if (element_size == 0) {
    return Status::InvalidArgument(where + "invalid data type " +
                                   std::to_string(static_cast<int>(v.type)));
  }
  for (int axis = 0; axis < kRank; ++axis) {
    if (v.shape[axis] < 1 || v.shape[axis] > kMaxExtent) {
      return Status::InvalidArgument(where + "extent of axis " + std::string(AxisName(axis)) +
                                     " is " + std::to_string(v.shape[axis]) +
                                     "; it must be in [1, " + std::to_string(kMaxExtent) + "]");
    }
  }
  // Every extent is < 2^31, but their product may still overflow num_elements().
  int64_t bytes = static_cast<int64_t>(element_size);
  for (int64_t extent : v.shape) {
    if (__builtin_mul_overflow(bytes, extent, &bytes)) {
      return Status::InvalidArgument(where + "shape " + ShapeString(v.shape) +
                                     " holds more than 2^63 bytes");
    }
  }
  if (v.has_fill_value() && v.fill_value.size() != element_size) {
    return Status::InvalidArgument(where + "fill value has " + std::to_string(v.fill_value.size()) +
                                   " bytes but " + std::string(DataTypeName(v.type)) + " needs " +
                                   std::to_string(element_size));
  }
  if (v.packing.has_value() && !IsFloatingPoint(v.packing->unpacked_type)) {
    return Status::InvalidArgument(where + "packing unpacked type " +
                                   std::string(DataTypeName(v.packing->unpacked_type)) +
                                   " is not floating-point (expected float32 or float64)");
  }
  const auto& steps = v.complete_steps.ranges();
  for (size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].first < 0 || steps[i].first >= steps[i].second || steps[i].second > v.shape[kT] ||
        (i > 0 && steps[i].first <= steps[i - 1].second)) {
      return Status::InvalidArgument(where + "complete steps " + v.complete_steps.ToString() +
                                     " are not sorted disjoint ranges within its " +
                                     std::to_string(v.shape[kT]) + " steps");
    }
  }
  return ValidateAttributes(v.attributes, where);
}

Status ValidateCoordinate(const Coordinate& c) {
  if (c.name.empty()) return Status::InvalidArgument("a coordinate has an empty name");
  const std::string where = "coordinate " + Quote(c.name) + ": ";
  // 0 dimensions: a scalar coordinate (e.g. the one forecast time of a 2-D file), one value.
  if (c.dimensions.size() > 2) {
    return Status::InvalidArgument(where + "has " + std::to_string(c.dimensions.size()) +
                                   " dimensions; it must have at most 2");
  }
  if (c.shape.size() != c.dimensions.size()) {
    return Status::InvalidArgument(where + std::to_string(c.shape.size()) + " extents for " +
                                   std::to_string(c.dimensions.size()) + " dimensions");
  }
  int64_t count = 1;
  for (size_t i = 0; i < c.shape.size(); ++i) {
    if (c.shape[i] < 1 || c.shape[i] > kMaxExtent) {
      return Status::InvalidArgument(where + "extent of dimension " + Quote(c.dimensions[i]) +
                                     " is " + std::to_string(c.shape[i]) + "; it must be in [1, " +
                                     std::to_string(kMaxExtent) + "]");
    }
    count *= c.shape[i];  // at most two extents < 2^31: cannot overflow
  }
  if (!IsValidDataType(static_cast<uint8_t>(c.type))) {
    return Status::InvalidArgument(where + "invalid data type " +
                                   std::to_string(static_cast<int>(c.type)));
  }
  if (static_cast<int64_t>(c.values.size()) != count) {
    return Status::InvalidArgument(where + std::to_string(c.values.size()) + " values for shape " +
                                   ShapeString(c.shape));
  }
  return ValidateAttributes(c.attributes, where);
}

}  // namespace

std::string_view AxisName(Axis axis) {
  switch (axis) {
    case Axis::kT:
      return "t";
    case Axis::kZ:
      return "z";
    case Axis::kX:
      return "x";
    case Axis::kY:
      return "y";
  }
  return "?";
}

// ---- AttributeValue ----

AttributeValue AttributeValue::String(std::string value) {
  AttributeValue v;
  v.kind_ = Kind::kString;
  v.string_ = std::move(value);
  return v;
}

AttributeValue AttributeValue::Bool(bool value) {
  AttributeValue v;
  v.kind_ = Kind::kBool;
  v.bool_ = value;
  return v;
}

AttributeValue AttributeValue::Int64(int64_t value) { return Integers(DataType::kInt64, {value}); }

AttributeValue AttributeValue::Double(double value) { return Floats(DataType::kFloat64, {value}); }

AttributeValue AttributeValue::Integers(DataType type, std::vector<int64_t> values) {
  assert(!IsFloatingPoint(type));
  AttributeValue v;
  v.kind_ = Kind::kNumber;
  v.number_type_ = type;
  v.integers_ = std::move(values);
  return v;
}

AttributeValue AttributeValue::Floats(DataType type, std::vector<double> values) {
  assert(IsFloatingPoint(type));
  AttributeValue v;
  v.kind_ = Kind::kNumber;
  v.number_type_ = type;
  v.floats_ = std::move(values);
  return v;
}

size_t AttributeValue::size() const {
  if (!is_number()) return 1;
  return IsFloatingPoint(number_type_) ? floats_.size() : integers_.size();
}

double AttributeValue::AsDouble(size_t i) const {
  if (is_bool()) return bool_ ? 1.0 : 0.0;
  if (!is_number() || i >= size()) return std::nan("");
  if (IsFloatingPoint(number_type_)) return floats_[i];
  if (number_type_ == DataType::kUint64)
    return static_cast<double>(static_cast<uint64_t>(integers_[i]));
  return static_cast<double>(integers_[i]);
}

std::string AttributeValue::ToString() const {
  switch (kind_) {
    case Kind::kString:
      return string_;
    case Kind::kBool:
      return bool_ ? "true" : "false";
    case Kind::kNumber:
      break;
  }
  std::string s;
  for (size_t i = 0; i < size(); ++i) {
    if (i > 0) s += ", ";
    if (!IsFloatingPoint(number_type_)) {
      s += number_type_ == DataType::kUint64 ? std::to_string(static_cast<uint64_t>(integers_[i]))
                                             : std::to_string(integers_[i]);
    } else if (number_type_ == DataType::kFloat32 &&
               SameDouble(static_cast<double>(static_cast<float>(floats_[i])), floats_[i])) {
      // A value read from a float32 prints as that float ("0.1"), not as its double expansion.
      AppendFloat(&s, static_cast<float>(floats_[i]));
    } else {
      AppendDouble(&s, floats_[i]);
    }
  }
  return s;
}

bool AttributeValue::operator==(const AttributeValue& other) const {
  if (kind_ != other.kind_) return false;
  switch (kind_) {
    case Kind::kString:
      return string_ == other.string_;
    case Kind::kBool:
      return bool_ == other.bool_;
    case Kind::kNumber:
      break;
  }
  if (number_type_ != other.number_type_ || integers_ != other.integers_ ||
      floats_.size() != other.floats_.size()) {
    return false;
  }
  for (size_t i = 0; i < floats_.size(); ++i) {
    if (!SameDouble(floats_[i], other.floats_[i])) return false;
  }
  return true;
}

// ---- VariableMeta ----

double VariableMeta::FillValueAsDouble() const {
  if (!IsValidDataType(static_cast<uint8_t>(type)) || fill_value.size() != DataTypeSize(type)) {
    return 0;
  }
  return VisitDataType(type, [&](auto tag) {
    using T = decltype(tag);
    T value;
    std::memcpy(&value, fill_value.data(), sizeof(T));
    return static_cast<double>(value);
  });
}

// ---- DataSetMeta ----

const VariableMeta* DataSetMeta::FindVariable(std::string_view name) const {
  for (const VariableMeta& v : variables) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

VariableMeta* DataSetMeta::FindVariable(std::string_view name) {
  for (VariableMeta& v : variables) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

const Coordinate* DataSetMeta::FindCoordinate(std::string_view name) const {
  for (const Coordinate& c : coordinates) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

std::string DataSetMeta::status() const {
  auto it = attributes.find(kStatusAttribute);
  if (it == attributes.end() || !it->second.is_string()) return "";
  return it->second.string_value();
}

void DataSetMeta::set_status(std::string_view status) {
  attributes.insert_or_assign(std::string(kStatusAttribute),
                              AttributeValue::String(std::string(status)));
}

Status DataSetMeta::Validate() const {
  GRIDSTORE_RETURN_IF_ERROR(ValidateDataSetId(id));
  const std::string context = "dataset " + Quote(id);
  // No variables is fine: a data-less meta (catalogue entries, `gridstore meta put`).
  for (size_t i = 0; i < variables.size(); ++i) {
    GRIDSTORE_RETURN_IF_ERROR(ValidateVariable(variables[i]).WithContext(context));
    for (size_t j = 0; j < i; ++j) {
      if (variables[j].name == variables[i].name) {
        return Status::InvalidArgument(context + ": duplicate variable " +
                                       Quote(variables[i].name));
      }
    }
  }
  for (size_t i = 0; i < coordinates.size(); ++i) {
    GRIDSTORE_RETURN_IF_ERROR(ValidateCoordinate(coordinates[i]).WithContext(context));
    for (size_t j = 0; j < i; ++j) {
      if (coordinates[j].name == coordinates[i].name) {
        return Status::InvalidArgument(context + ": duplicate coordinate " +
                                       Quote(coordinates[i].name));
      }
    }
  }
  GRIDSTORE_RETURN_IF_ERROR(ValidateAttributes(attributes, "").WithContext(context));
  if (layout.block_x < 1 || layout.block_x > kMaxBlockSide || layout.block_y < 1 ||
      layout.block_y > kMaxBlockSide) {
    return Status::InvalidArgument(context + ": block shape " + std::to_string(layout.block_x) +
                                   "x" + std::to_string(layout.block_y) +
                                   " is invalid: each side must be in [1, " +
                                   std::to_string(kMaxBlockSide) + "]");
  }
  // Any count of rows at least block_x means one frame, so a default (say 16) suits every
  // block shape; the bound only keeps the field sane.
  if (layout.frame_rows < 0 || layout.frame_rows > kMaxBlockSide) {
    return Status::InvalidArgument(context + ": frame_rows " + std::to_string(layout.frame_rows) +
                                   " is invalid: it must be in [0, " +
                                   std::to_string(kMaxBlockSide) +
                                   "] (0, or at least the block's rows, for one frame per block)");
  }
  if (series) {
    for (int64_t side :
         {series->block_t, series->tile_x, series->tile_y, series->block_z, series->frame_points}) {
      if (side < 1 || side > kMaxBlockSide) {
        return Status::InvalidArgument(
            context + ": series layout " + SeriesLayoutToString(*series) +
            " is invalid: each side must be in [1, " + std::to_string(kMaxBlockSide) + "]");
      }
    }
    if (series->steps != kSeriesAllSteps &&
        (series->steps < 0 || series->steps % series->block_t != 0)) {
      return Status::InvalidArgument(context + ": series layout " + SeriesLayoutToString(*series) +
                                     " is invalid: the steps it holds (" +
                                     std::to_string(series->steps) +
                                     ") must be whole blocks of steps, or all (-1)");
    }
    // Bounds a block's raw bytes (and keeps its rows and columns within the codec's u32).
    if (series->tile_x * series->tile_y * series->block_t * series->block_z >
        kMaxSeriesBlockValues) {
      return Status::InvalidArgument(context + ": series layout " + SeriesLayoutToString(*series) +
                                     " is invalid: a block may hold at most " +
                                     std::to_string(kMaxSeriesBlockValues) + " values");
    }
  }
  return ValidateCodecOptions(layout.codec).WithContext(context);
}

void StepSet::Add(int64_t begin, int64_t end) {
  if (begin >= end) return;
  std::vector<Range> merged;
  merged.reserve(ranges_.size() + 1);
  bool placed = false;
  for (const Range& r : ranges_) {
    if (r.second < begin) {
      merged.push_back(r);
    } else if (r.first > end) {
      if (!placed) merged.emplace_back(begin, end);
      placed = true;
      merged.push_back(r);
    } else {
      begin = std::min(begin, r.first);
      end = std::max(end, r.second);
    }
  }
  if (!placed) merged.emplace_back(begin, end);
  ranges_ = std::move(merged);
}

bool StepSet::Contains(int64_t begin, int64_t end) const { return FirstMissing(begin, end) >= end; }

int64_t StepSet::FirstMissing(int64_t begin, int64_t end) const {
  for (const Range& r : ranges_) {
    if (begin >= end || r.first > begin) break;
    if (r.second > begin) begin = r.second;
  }
  return std::min(begin, end);
}

int64_t StepSet::count() const {
  int64_t n = 0;
  for (const Range& r : ranges_) n += r.second - r.first;
  return n;
}

std::string StepSet::ToString() const {
  if (ranges_.empty()) return "none";
  std::string s;
  for (const Range& r : ranges_) {
    if (!s.empty()) s += ", ";
    s += std::to_string(r.first);
    if (r.second - r.first > 1) s += "-" + std::to_string(r.second - 1);
  }
  return s;
}

std::string BlockLayoutToString(const BlockLayout& layout) {
  std::string s = std::to_string(layout.block_x) + "x" + std::to_string(layout.block_y) + ", " +
                  CodecOptionsToString(layout.codec);
  if (layout.frame_rows > 0 && layout.frame_rows < layout.block_x) {
    s += ", frames of " + std::to_string(layout.frame_rows) + " rows";
  }
  return s;
}

std::string SeriesLayoutToString(const SeriesLayout& series) {
  std::string s = std::to_string(series.block_t) + " steps x " + std::to_string(series.tile_x) +
                  "x" + std::to_string(series.tile_y) + " points";
  if (series.block_z > 1) s += " x " + std::to_string(series.block_z) + " levels";
  s += ", frames of " + std::to_string(series.frame_points) +
       (series.block_z > 1 ? " rows" : " points");
  if (series.steps != kSeriesAllSteps) {
    s += ", growing: steps 0-" + std::to_string(series.steps - 1) + " so far";
    if (series.steps == 0) s = s.substr(0, s.rfind(", growing")) + ", growing: no step yet";
  }
  return s;
}

std::string StringAttribute(const Attributes& attributes, std::string_view name) {
  auto it = attributes.find(name);
  return it != attributes.end() && it->second.is_string() ? it->second.string_value() : "";
}

DataType UnpackedType(const VariableMeta& var) {
  if (var.packing) return var.packing->unpacked_type;
  return IsFloatingPoint(var.type) ? var.type : DataType::kFloat64;
}

BlockLayout DefaultBlockLayout(bool distributed) {
  BlockLayout layout;
  layout.block_x = distributed ? kDistributedBlockSide : kEmbeddedBlockX;
  layout.block_y = distributed ? kDistributedBlockSide : kEmbeddedBlockY;
  return layout;
}

BlockLayout ForOneRowPlanes(BlockLayout layout) {
  const auto is_default = [&](bool distributed) {
    const BlockLayout d = DefaultBlockLayout(distributed);
    return layout.block_x == d.block_x && layout.block_y == d.block_y;
  };
  if (is_default(false) || is_default(true)) {
    layout.block_y = layout.block_x * layout.block_y;
    layout.block_x = 1;
  }
  return layout;
}

}  // namespace gridstore::grid
