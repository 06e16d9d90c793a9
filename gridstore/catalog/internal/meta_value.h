// Copyright 2026 The GridStore Authors.
//
// Values as meta queries see them (docs/meta-queries.md, "Semantics"): the visible value of an
// attribute under an index's declared types, how two values compare, how they sort, and how a
// value is encoded in a posting key (docs/format.md, "Meta query index"). Pure functions.
#ifndef GRIDSTORE_CATALOG_INTERNAL_META_VALUE_H_
#define GRIDSTORE_CATALOG_INTERNAL_META_VALUE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gridstore/catalog/meta_query.h"
#include "gridstore/model/grid_meta.h"

namespace gridstore::internal_grid {

// A scalar value as conditions see it. `s` views an attribute or a query value.
struct Scalar {
  enum Kind : uint8_t { kNone, kInt, kDouble, kString, kBool };
  Kind kind = kNone;
  int64_t i = 0;
  double d = 0;
  bool b = false;
  std::string_view s;
  bool numeric() const { return kind == kInt || kind == kDouble; }
};

Scalar IntScalar(int64_t v);
Scalar DoubleScalar(double v);
Scalar StringScalar(std::string_view v);
Scalar BoolScalar(bool v);

// The value of attribute `v` (null: absent) that conditions, sorting and the index see; kNone if
// it is invisible. `field` is the attribute's index declaration, or null if it is not indexed.
Scalar VisibleValue(const grid::AttributeValue* v, const grid::IndexField* field);

// CompareScalars' result for values of different kinds, or with a NaN.
inline constexpr int kUnordered = 2;
// -1, 0, 1, or kUnordered. Numbers compare exactly across int64 and double.
int CompareScalars(const Scalar& a, const Scalar& b);

// "string", "int64", "double" or "bool": the kind of a query value, for messages.
std::string_view QueryValueKindName(const grid::QueryValue& v);

// Bytes an encoded value of a field of `type` takes in a posting (0: a string, variable length).
size_t EncodedValueWidth(grid::IndexFieldType type);
// Appends the order-preserving encoding of `v` (nothing for kNone).
void AppendEncodedValue(const Scalar& v, std::string* dst);

// Where a visible value sorts: numbers, then NaN, then strings, then bools; missing values last
// (in both directions: callers handle kMissing before reversing an order).
enum class SortRank : uint8_t { kNumber, kNaN, kString, kBool, kMissing };

// A sort key: a visible value that owns its string.
struct SortValue {
  SortRank rank = SortRank::kMissing;
  Scalar number;   // kNumber, kNaN
  std::string s;   // kString
  bool b = false;  // kBool
};

SortValue MakeSortValue(const Scalar& v);
// Ascending order of two sort values: -1, 0 or 1 (ranks first, then the values).
int CompareSortValues(const SortValue& a, const SortValue& b);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_CATALOG_INTERNAL_META_VALUE_H_
