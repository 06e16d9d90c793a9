// Copyright 2026 The GridStore Authors.
//
// Posting ranges: which key ranges of the index table hold the postings that satisfy a condition
// on an indexed field (docs/format.md, "Meta query index", has the key layout). Pure functions of
// the compiled condition; nothing here reads the store.
#ifndef GRIDSTORE_CATALOG_INTERNAL_META_POSTINGS_H_
#define GRIDSTORE_CATALOG_INTERNAL_META_POSTINGS_H_

#include <string>
#include <string_view>
#include <vector>

#include "gridstore/catalog/internal/meta_compile.h"
#include "gridstore/catalog/internal/meta_value.h"
#include "gridstore/catalog/meta_query.h"
#include "gridstore/storage/kv_store.h"

namespace gridstore::internal_grid {

// The first key after every key that starts with `prefix`.
std::string PrefixEnd(std::string_view prefix);

// Key ranges of one indexed field; bounds are in terms of encoded values. Views `field`, which
// must outlive it.
class FieldRanges {
 public:
  FieldRanges(std::string_view index, const grid::IndexField& field);

  // Every posting of the field starts with this.
  const std::string& prefix() const { return prefix_; }
  const std::string& field_end() const { return field_end_; }

  // The field's prefix followed by the encoded value.
  std::string ValueKey(const Scalar& v) const;

  // Postings with value v. For an int64 field a double v matches only if it is integral.
  void Equal(const Scalar& v, std::vector<storage::KeyRange>* out) const;
  // Postings with lower <(=) value <(=) upper; a null bound is open.
  void Between(const Scalar* lower, bool lower_inclusive, const Scalar* upper, bool upper_inclusive,
               std::vector<storage::KeyRange>* out) const;
  // Postings with a value != v (NaN included).
  void NotEqual(const Scalar& v, std::vector<storage::KeyRange>* out) const;
  // Every posting of the field.
  void All(std::vector<storage::KeyRange>* out) const;
  // Postings of strings that start with `p`.
  void Prefix(std::string_view p, std::vector<storage::KeyRange>* out) const;

 private:
  // How a bound applies to this field's postings.
  enum class BoundUse : uint8_t {
    kEmpty,  // nothing can match
    kOpen,   // the bound excludes no stored value: leave that side open
    kUse,    // use the adjusted value and inclusiveness
  };

  // The value as stored in this field, if a stored value can equal it.
  bool ToFieldValue(const Scalar& v, Scalar* out) const;
  // Adjusts a bound to the field (an int64 field takes integer bounds, inclusive).
  BoundUse Bound(Scalar* v, bool* incl, bool is_lower) const;

  const grid::IndexField& field_;
  std::string prefix_;
  std::string field_end_;
  std::string ordered_end_;  // end of the values that order (a double field's NaN come after)
};

// The posting ranges of an indexed condition; false if the index cannot answer it.
bool LeafRanges(const FieldRanges& fr, const CompiledNode& n,
                std::vector<storage::KeyRange>* ranges);

// The posting ranges of one condition, or of range conditions on one field taken together (their
// conjunction is the overlap of their ranges); false if the index cannot answer them.
bool ConditionRanges(const FieldRanges& fr, const std::vector<const CompiledNode*>& conditions,
                     std::vector<storage::KeyRange>* ranges);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_CATALOG_INTERNAL_META_POSTINGS_H_
