// Copyright 2026 The GridStore Authors.
#include "gridstore/catalog/internal/meta_value.h"

#include <cmath>

#include "gridstore/model/internal/grid_keys.h"

namespace gridstore::internal_grid {
namespace {

using grid::AttributeValue;
using grid::IndexField;
using grid::IndexFieldType;

// The visible value of `v` under a declared type: only values of that type (a double field
// takes integers too, as doubles).
Scalar DeclaredValue(const AttributeValue& v, IndexFieldType type, bool integer,
                     bool big_unsigned) {
  switch (type) {
    case IndexFieldType::kString:
      return v.is_string() ? StringScalar(v.string_value()) : Scalar{};
    case IndexFieldType::kBool:
      return v.is_bool() ? BoolScalar(v.bool_value()) : Scalar{};
    case IndexFieldType::kInt64:
      if (integer && v.size() == 1 && !big_unsigned) return IntScalar(v.integers()[0]);
      return Scalar{};
    case IndexFieldType::kDouble:
      if (v.is_number() && v.size() == 1) return DoubleScalar(v.AsDouble(0));
      return Scalar{};
  }
  return Scalar{};
}

int CompareIntDouble(int64_t i, double d) {
  if (std::isnan(d)) return kUnordered;
  if (d >= 9223372036854775808.0) return -1;
  if (d < -9223372036854775808.0) return 1;
  const double t = std::trunc(d);
  const auto ti = static_cast<int64_t>(t);
  if (i != ti) return i < ti ? -1 : 1;
  const double frac = d - t;
  return frac > 0 ? -1 : (frac < 0 ? 1 : 0);
}

int Sign(int c) { return c < 0 ? -1 : (c > 0); }

}  // namespace

Scalar IntScalar(int64_t v) {
  Scalar s;
  s.kind = Scalar::kInt;
  s.i = v;
  return s;
}

Scalar DoubleScalar(double v) {
  Scalar s;
  s.kind = Scalar::kDouble;
  s.d = v;
  return s;
}

Scalar StringScalar(std::string_view v) {
  Scalar s;
  s.kind = Scalar::kString;
  s.s = v;
  return s;
}

Scalar BoolScalar(bool v) {
  Scalar s;
  s.kind = Scalar::kBool;
  s.b = v;
  return s;
}

Scalar VisibleValue(const AttributeValue* v, const IndexField* field) {
  if (v == nullptr) return Scalar{};
  const bool integer = v->is_number() && !grid::IsFloatingPoint(v->number_type());
  // An integer too large for int64 (uint64 above 2^63 - 1) compares as a double.
  const bool big_unsigned = integer && v->number_type() == grid::DataType::kUint64 &&
                            v->integers().size() == 1 && v->integers()[0] < 0;
  if (field != nullptr) return DeclaredValue(*v, field->type, integer, big_unsigned);
  if (v->is_string()) return StringScalar(v->string_value());
  if (v->is_bool()) return BoolScalar(v->bool_value());
  if (v->size() == 1) {
    return integer && !big_unsigned ? IntScalar(v->integers()[0]) : DoubleScalar(v->AsDouble(0));
  }
  return Scalar{};  // arrays (and empty number lists) are invisible
}

int CompareScalars(const Scalar& a, const Scalar& b) {
  if (a.numeric() && b.numeric()) {
    if (a.kind == Scalar::kInt && b.kind == Scalar::kInt) return a.i < b.i ? -1 : (a.i > b.i);
    if (a.kind == Scalar::kDouble && b.kind == Scalar::kDouble) {
      if (std::isnan(a.d) || std::isnan(b.d)) return kUnordered;
      return a.d < b.d ? -1 : (a.d > b.d);
    }
    if (a.kind == Scalar::kInt) return CompareIntDouble(a.i, b.d);
    const int c = CompareIntDouble(b.i, a.d);
    return c == kUnordered ? c : -c;
  }
  if (a.kind == Scalar::kString && b.kind == Scalar::kString) return Sign(a.s.compare(b.s));
  if (a.kind == Scalar::kBool && b.kind == Scalar::kBool) return a.b == b.b ? 0 : (a.b ? 1 : -1);
  return kUnordered;
}

std::string_view QueryValueKindName(const grid::QueryValue& v) {
  switch (v.index()) {
    case 0:
      return "string";
    case 1:
      return "int64";
    case 2:
      return "double";
    default:
      return "bool";
  }
}

size_t EncodedValueWidth(IndexFieldType type) {
  switch (type) {
    case IndexFieldType::kString:
      return 0;
    case IndexFieldType::kBool:
      return 1;
    default:
      return 8;
  }
}

void AppendEncodedValue(const Scalar& v, std::string* dst) {
  switch (v.kind) {
    case Scalar::kString:
      grid::AppendIndexString(v.s, dst);
      break;
    case Scalar::kInt:
      grid::AppendIndexInt64(v.i, dst);
      break;
    case Scalar::kDouble:
      grid::AppendIndexDouble(v.d, dst);
      break;
    case Scalar::kBool:
      grid::AppendIndexBool(v.b, dst);
      break;
    case Scalar::kNone:
      break;
  }
}

SortValue MakeSortValue(const Scalar& v) {
  SortValue out;
  switch (v.kind) {
    case Scalar::kNone:
      break;
    case Scalar::kInt:
      out.rank = SortRank::kNumber;
      out.number = v;
      break;
    case Scalar::kDouble:
      out.rank = std::isnan(v.d) ? SortRank::kNaN : SortRank::kNumber;
      out.number = v;
      break;
    case Scalar::kString:
      out.rank = SortRank::kString;
      out.s = std::string(v.s);
      break;
    case Scalar::kBool:
      out.rank = SortRank::kBool;
      out.b = v.b;
      break;
  }
  return out;
}

int CompareSortValues(const SortValue& a, const SortValue& b) {
  if (a.rank != b.rank) return a.rank < b.rank ? -1 : 1;
  switch (a.rank) {
    case SortRank::kNumber:
      return CompareScalars(a.number, b.number);
    case SortRank::kString:
      return Sign(a.s.compare(b.s));
    case SortRank::kBool:
      return a.b == b.b ? 0 : (a.b ? 1 : -1);
    case SortRank::kNaN:
    case SortRank::kMissing:
      return 0;
  }
  return 0;
}

}  // namespace gridstore::internal_grid
