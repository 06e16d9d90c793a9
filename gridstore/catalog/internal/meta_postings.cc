// Copyright 2026 The GridStore Authors.
#include "gridstore/catalog/internal/meta_postings.h"

#include <algorithm>
#include <cmath>

#include "gridstore/model/internal/grid_keys.h"

namespace gridstore::internal_grid {

using grid::IndexFieldType;
using grid::Query;
using storage::KeyRange;

std::string PrefixEnd(std::string_view prefix) { return KeyRange::Prefix(prefix).end; }

FieldRanges::FieldRanges(std::string_view index, const grid::IndexField& field)
    : field_(field), prefix_(grid::IndexFieldPrefix(index, field.name)) {
  field_end_ = PrefixEnd(prefix_);
  ordered_end_ = field_end_;
  if (field.type == IndexFieldType::kDouble) {
    ordered_end_ = prefix_;
    grid::AppendIndexDouble(std::nan(""), &ordered_end_);  // NaN orders against nothing
  }
}

std::string FieldRanges::ValueKey(const Scalar& v) const {
  std::string k = prefix_;
  AppendEncodedValue(v, &k);
  return k;
}

void FieldRanges::Equal(const Scalar& v, std::vector<KeyRange>* out) const {
  Scalar iv;
  if (!ToFieldValue(v, &iv)) return;
  std::string k = ValueKey(iv);
  out->push_back(KeyRange{k, PrefixEnd(k)});
}

void FieldRanges::Between(const Scalar* lower, bool lower_inclusive, const Scalar* upper,
                          bool upper_inclusive, std::vector<KeyRange>* out) const {
  std::string begin = prefix_, end = ordered_end_;
  if (lower != nullptr) {
    Scalar lo = *lower;
    bool incl = lower_inclusive;
    const BoundUse use = Bound(&lo, &incl, /*is_lower=*/true);
    if (use == BoundUse::kEmpty) return;
    if (use == BoundUse::kUse) {
      begin = ValueKey(lo);
      if (!incl) begin = PrefixEnd(begin);
    }
  }
  if (upper != nullptr) {
    Scalar hi = *upper;
    bool incl = upper_inclusive;
    const BoundUse use = Bound(&hi, &incl, /*is_lower=*/false);
    if (use == BoundUse::kEmpty) return;
    if (use == BoundUse::kUse) {
      end = ValueKey(hi);
      if (incl) end = PrefixEnd(end);
    }
  }
  if (begin < end) out->push_back(KeyRange{begin, end});
}

void FieldRanges::NotEqual(const Scalar& v, std::vector<KeyRange>* out) const {
  Scalar iv;
  if (!ToFieldValue(v, &iv)) {
    out->push_back(KeyRange{prefix_, field_end_});
    return;
  }
  std::string k = ValueKey(iv);
  out->push_back(KeyRange{prefix_, k});
  out->push_back(KeyRange{PrefixEnd(k), field_end_});
}

void FieldRanges::All(std::vector<KeyRange>* out) const {
  out->push_back(KeyRange{prefix_, field_end_});
}

void FieldRanges::Prefix(std::string_view p, std::vector<KeyRange>* out) const {
  std::string k = prefix_;
  grid::AppendIndexStringPrefix(p, &k);
  out->push_back(KeyRange::Prefix(k));
}

bool FieldRanges::ToFieldValue(const Scalar& v, Scalar* out) const {
  if (v.kind == Scalar::kDouble && std::isnan(v.d)) return false;
  if (field_.type == IndexFieldType::kInt64 && v.kind == Scalar::kDouble) {
    if (std::trunc(v.d) != v.d || v.d < -9223372036854775808.0 || v.d >= 9223372036854775808.0) {
      return false;
    }
    *out = IntScalar(static_cast<int64_t>(v.d));
    return true;
  }
  *out = v;
  return true;
}

FieldRanges::BoundUse FieldRanges::Bound(Scalar* v, bool* incl, bool is_lower) const {
  if (v->kind == Scalar::kDouble && std::isnan(v->d)) return BoundUse::kEmpty;
  if (field_.type != IndexFieldType::kInt64 || v->kind != Scalar::kDouble) return BoundUse::kUse;
  // Beyond the int64 range a bound keeps every value on one side and none on the other.
  const BoundUse above = is_lower ? BoundUse::kEmpty : BoundUse::kOpen;
  const BoundUse below = is_lower ? BoundUse::kOpen : BoundUse::kEmpty;
  const double d = v->d;
  if (d >= 9223372036854775808.0) return above;
  if (d < -9223372036854775808.0) return below;
  // The integer bound with the same matches (inclusive from here on).
  double r;
  if (is_lower) {
    r = *incl ? std::ceil(d) : std::floor(d) + 1;
  } else {
    r = *incl ? std::floor(d) : std::ceil(d) - 1;
  }
  if (r >= 9223372036854775808.0) return above;
  if (r < -9223372036854775808.0) return below;
  *v = IntScalar(static_cast<int64_t>(r));
  *incl = true;
  return BoundUse::kUse;
}

bool LeafRanges(const FieldRanges& fr, const CompiledNode& n, std::vector<KeyRange>* ranges) {
  switch (n.op) {
    case Query::Op::kEqual:
      fr.Equal(n.values[0], ranges);
      return true;
    case Query::Op::kIn:
      for (const Scalar& v : n.values) fr.Equal(v, ranges);
      return true;
    case Query::Op::kNotEqual:
      fr.NotEqual(n.values[0], ranges);
      return true;
    case Query::Op::kGreater:
      fr.Between(&n.values[0], false, nullptr, false, ranges);
      return true;
    case Query::Op::kGreaterEqual:
      fr.Between(&n.values[0], true, nullptr, false, ranges);
      return true;
    case Query::Op::kLess:
      fr.Between(nullptr, false, &n.values[0], false, ranges);
      return true;
    case Query::Op::kLessEqual:
      fr.Between(nullptr, false, &n.values[0], true, ranges);
      return true;
    case Query::Op::kRange:
      fr.Between(&n.values[0], n.include_lower, &n.values[1], n.include_upper, ranges);
      return true;
    case Query::Op::kPrefix:
      fr.Prefix(n.values[0].s, ranges);
      return true;
    case Query::Op::kExists:
      fr.All(ranges);
      return true;
    default:
      return false;
  }
}

bool ConditionRanges(const FieldRanges& fr, const std::vector<const CompiledNode*>& conditions,
                     std::vector<KeyRange>* ranges) {
  if (!LeafRanges(fr, *conditions[0], ranges)) return false;
  // Range conditions on one field (e.g. t >= a and t < b) each give at most one key range; their
  // conjunction is the overlap, read once instead of two broad ranges.
  for (size_t i = 1; i < conditions.size() && !ranges->empty(); ++i) {
    std::vector<KeyRange> more;
    LeafRanges(fr, *conditions[i], &more);
    if (more.empty()) {
      ranges->clear();
      break;
    }
    KeyRange& r = (*ranges)[0];
    r.begin = std::max(r.begin, more[0].begin);
    r.end = std::min(r.end, more[0].end);
    if (r.begin >= r.end) ranges->clear();
  }
  return true;
}

}  // namespace gridstore::internal_grid
