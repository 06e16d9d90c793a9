// Copyright 2026 The GridStore Authors.
//
// How a query runs (docs/meta-queries.md, "Planner"):
//
//   1. Compile: resolve each condition's field against the index schema, check value types, and
//      normalise values (a double field compares as doubles).
//   2. Candidates: conditions on indexed fields become posting range scans giving sorted id sets;
//      `and` intersects (smallest first: every child is tried with a growing budget, so one huge
//      range is never read in full when a small one exists), `or` unites when every branch is
//      indexable. A set is exact when no condition was left out; otherwise the remaining
//      conditions are checked on the candidates' metas (attributes only).
//   3. Order: by id straight from the id set; by an indexed first sort field with a limit, walk
//      that field's postings in order and stop after offset + limit + 1 matches; otherwise read
//      the sort keys of every match and partially sort.
//   4. No candidate set at all: scan the meta table (QueryResult::scanned).
#include "gridstore/grid/internal/meta_index.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <unordered_set>

#include "gridstore/grid/internal/grid_keys.h"
#include "gridstore/util/internal/coding.h"

namespace gridstore::internal_grid {
namespace {

using grid::Attributes;
using grid::AttributeValue;
using grid::IndexField;
using grid::IndexFieldType;
using grid::MetaIndexInfo;
using grid::Query;
using grid::QueryParams;
using grid::QueryResult;
using grid::QueryValue;
using grid::SortOrder;
using storage::KeyRange;
using storage::Table;

constexpr uint8_t kSchemaVersion = 1;
constexpr size_t kMaxSchemaFields = 256;
// Candidate sets at most this large are ordered by reading their metas; larger ones by walking
// the sort field's postings (when the first sort field is indexed and there is a limit).
constexpr size_t kDirectMax = 1000;
// With a walk available, candidate sets are computed only up to this size.
constexpr size_t kWalkCandidateLimit = 2048;
// Metas read per MultiGet, postings per scan chunk.
constexpr size_t kBatch = 256;
constexpr size_t kUnlimited = std::numeric_limits<size_t>::max();
// A generous bound on the bytes one posting takes in the store's size estimates (key with field,
// value and id, plus per-entry overhead in memtables); only ever used to skip reading ranges
// that certainly hold more postings than wanted.
constexpr uint64_t kMaxPostingBytes = 256;

std::string Quote(std::string_view s) { return "'" + gridstore::EscapeForMessage(s) + "'"; }

// ---- Values and comparison ----

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

// The value of an attribute that conditions, sorting and the index see (kNone: invisible).
Scalar Visible(const AttributeValue* v, const IndexField* field) {
  Scalar out;
  if (v == nullptr) return out;
  const bool integer = v->is_number() && !grid::IsFloatingPoint(v->number_type());
  // An integer too large for int64 (uint64 above 2^63 - 1) compares as a double.
  const bool big_unsigned = integer && v->number_type() == grid::DataType::kUint64 &&
                            v->integers().size() == 1 && v->integers()[0] < 0;
  if (field != nullptr) {
    switch (field->type) {
      case IndexFieldType::kString:
        if (v->is_string()) out.kind = Scalar::kString, out.s = v->string_value();
        return out;
      case IndexFieldType::kBool:
        if (v->is_bool()) out.kind = Scalar::kBool, out.b = v->bool_value();
        return out;
      case IndexFieldType::kInt64:
        if (integer && v->size() == 1 && !big_unsigned) return IntScalar(v->integers()[0]);
        return out;
      case IndexFieldType::kDouble:
        if (v->is_number() && v->size() == 1) return DoubleScalar(v->AsDouble(0));
        return out;
    }
    return out;
  }
  if (v->is_string()) {
    out.kind = Scalar::kString;
    out.s = v->string_value();
  } else if (v->is_bool()) {
    out.kind = Scalar::kBool;
    out.b = v->bool_value();
  } else if (v->size() == 1) {
    return integer && !big_unsigned ? IntScalar(v->integers()[0]) : DoubleScalar(v->AsDouble(0));
  }
  return out;  // arrays (and empty number lists) are invisible
}

constexpr int kUnordered = 2;

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

// -1, 0, 1, or kUnordered (different kinds, NaN).
int Compare(const Scalar& a, const Scalar& b) {
  if (a.numeric() && b.numeric()) {
    if (a.kind == Scalar::kInt && b.kind == Scalar::kInt) return a.i < b.i ? -1 : (a.i > b.i);
    if (a.kind == Scalar::kDouble && b.kind == Scalar::kDouble) {
      if (std::isnan(a.d) || std::isnan(b.d)) return kUnordered;
      return a.d < b.d ? -1 : (a.d > b.d);
    }
    if (a.kind == Scalar::kInt) return CompareIntDouble(a.i, b.d);
    int c = CompareIntDouble(b.i, a.d);
    return c == kUnordered ? c : -c;
  }
  if (a.kind == Scalar::kString && b.kind == Scalar::kString) {
    int c = a.s.compare(b.s);
    return c < 0 ? -1 : (c > 0);
  }
  if (a.kind == Scalar::kBool && b.kind == Scalar::kBool) return a.b == b.b ? 0 : (a.b ? 1 : -1);
  return kUnordered;
}

std::string_view KindName(const QueryValue& v) {
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

// ---- Compiled queries ----

struct CNode {
  Query::Op op = Query::Op::kAll;
  std::string_view field;
  const IndexField* indexed = nullptr;  // the field's declaration, if indexed
  std::vector<Scalar> values;
  bool include_lower = true;
  bool include_upper = true;
  std::vector<CNode> children;
  const Query* source = nullptr;
};

const IndexField* FindField(const MetaIndexInfo* index, std::string_view name) {
  if (index == nullptr) return nullptr;
  for (const IndexField& f : index->schema.fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

bool IsCondition(Query::Op op) {
  return op != Query::Op::kAll && op != Query::Op::kAnd && op != Query::Op::kOr &&
         op != Query::Op::kNot;
}

Status Compile(const MetaIndexInfo* index, const Query& query, CNode* out) {
  const Query::Node& n = query.node();
  out->op = n.op;
  out->source = &query;
  if (!IsCondition(n.op)) {
    if (n.op == Query::Op::kNot && n.children.size() != 1) {
      return Status::InvalidArgument("a 'not' node needs exactly one child");
    }
    out->children.resize(n.children.size());
    for (size_t i = 0; i < n.children.size(); ++i) {
      GRIDSTORE_RETURN_IF_ERROR(Compile(index, n.children[i], &out->children[i]));
    }
    return Status::OK();
  }
  if (n.field.empty()) return Status::InvalidArgument("a condition has an empty field name");
  out->field = n.field;
  out->indexed = FindField(index, n.field);
  out->include_lower = n.include_lower;
  out->include_upper = n.include_upper;
  size_t want = 1;
  if (n.op == Query::Op::kExists) want = 0;
  if (n.op == Query::Op::kRange) want = 2;
  if (n.op != Query::Op::kIn && n.values.size() != want) {
    return Status::InvalidArgument("condition on " + Quote(n.field) + " has " +
                                   std::to_string(n.values.size()) + " values; expected " +
                                   std::to_string(want));
  }
  if (n.op == Query::Op::kPrefix && !std::holds_alternative<std::string>(n.values[0])) {
    return Status::InvalidArgument("prefix condition on " + Quote(n.field) +
                                   " needs a string value, not " +
                                   std::string(KindName(n.values[0])));
  }
  if (n.op == Query::Op::kRange) {
    auto cls = [](const QueryValue& v) { return v.index() == 2 ? 1 : v.index(); };
    if (cls(n.values[0]) != cls(n.values[1])) {
      return Status::InvalidArgument("range on " + Quote(n.field) + " has bounds of different " +
                                     "kinds (" + std::string(KindName(n.values[0])) + " and " +
                                     std::string(KindName(n.values[1])) + ")");
    }
  }
  const IndexField* f = out->indexed;
  for (const QueryValue& v : n.values) {
    if (f != nullptr) {
      const bool number = v.index() == 1 || v.index() == 2;
      bool ok = false;
      switch (f->type) {
        case IndexFieldType::kString:
          ok = v.index() == 0;
          break;
        case IndexFieldType::kInt64:
        case IndexFieldType::kDouble:
          ok = number && n.op != Query::Op::kPrefix;
          break;
        case IndexFieldType::kBool:
          ok = v.index() == 3 && n.op != Query::Op::kPrefix;
          break;
      }
      if (!ok) {
        return Status::InvalidArgument("field " + Quote(n.field) + " is indexed as " +
                                       std::string(grid::IndexFieldTypeName(f->type)) +
                                       "; the condition `" + query.ToString() + "` " +
                                       (n.op == Query::Op::kPrefix
                                            ? std::string("needs a string field")
                                            : "compares it with a " + std::string(KindName(v))));
      }
    }
    Scalar s;
    if (const auto* str = std::get_if<std::string>(&v)) {
      s.kind = Scalar::kString;
      s.s = *str;
    } else if (const auto* i = std::get_if<int64_t>(&v)) {
      s = IntScalar(*i);
      if (f != nullptr && f->type == IndexFieldType::kDouble) s = DoubleScalar(double(*i));
    } else if (const auto* d = std::get_if<double>(&v)) {
      s = DoubleScalar(*d);
    } else {
      s.kind = Scalar::kBool;
      s.b = std::get<bool>(v);
    }
    out->values.push_back(s);
  }
  return Status::OK();
}

bool Evaluate(const CNode& n, const Attributes& attributes) {
  switch (n.op) {
    case Query::Op::kAll:
      return true;
    case Query::Op::kAnd:
      for (const CNode& c : n.children)
        if (!Evaluate(c, attributes)) return false;
      return true;
    case Query::Op::kOr:
      for (const CNode& c : n.children)
        if (Evaluate(c, attributes)) return true;
      return false;
    case Query::Op::kNot:
      return !Evaluate(n.children[0], attributes);
    default:
      break;
  }
  auto it = attributes.find(n.field);
  const Scalar a = Visible(it == attributes.end() ? nullptr : &it->second, n.indexed);
  if (a.kind == Scalar::kNone) return false;
  switch (n.op) {
    case Query::Op::kExists:
      return true;
    case Query::Op::kEqual:
      return Compare(a, n.values[0]) == 0;
    case Query::Op::kNotEqual:
      return Compare(a, n.values[0]) != 0;
    case Query::Op::kIn:
      for (const Scalar& v : n.values)
        if (Compare(a, v) == 0) return true;
      return false;
    case Query::Op::kGreater:
      return Compare(a, n.values[0]) == 1;
    case Query::Op::kGreaterEqual: {
      int c = Compare(a, n.values[0]);
      return c == 0 || c == 1;
    }
    case Query::Op::kLess:
      return Compare(a, n.values[0]) == -1;
    case Query::Op::kLessEqual: {
      int c = Compare(a, n.values[0]);
      return c == 0 || c == -1;
    }
    case Query::Op::kRange: {
      int lo = Compare(a, n.values[0]), hi = Compare(a, n.values[1]);
      bool lower_ok = lo == 1 || (n.include_lower && lo == 0);
      bool upper_ok = hi == -1 || (n.include_upper && hi == 0);
      return lower_ok && upper_ok;
    }
    case Query::Op::kPrefix:
      return a.kind == Scalar::kString && a.s.substr(0, n.values[0].s.size()) == n.values[0].s;
    default:
      return false;
  }
}

// ---- Posting ranges ----

size_t ValueWidth(IndexFieldType type) {
  switch (type) {
    case IndexFieldType::kString:
      return 0;
    case IndexFieldType::kBool:
      return 1;
    default:
      return 8;
  }
}

void AppendEncoded(const Scalar& v, std::string* dst) {
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

std::string PrefixEnd(std::string_view prefix) { return KeyRange::Prefix(prefix).end; }

// Key ranges of one indexed field; bounds are in terms of encoded values.
class FieldRanges {
 public:
  FieldRanges(std::string_view index, const IndexField& field)
      : field_(field), prefix_(grid::IndexFieldPrefix(index, field.name)) {
    field_end_ = PrefixEnd(prefix_);
    ordered_end_ = field_end_;
    if (field.type == IndexFieldType::kDouble) {
      ordered_end_ = prefix_;
      grid::AppendIndexDouble(std::nan(""), &ordered_end_);  // NaN orders against nothing
    }
  }
  const std::string& prefix() const { return prefix_; }
  const std::string& field_end() const { return field_end_; }

  std::string ValueKey(const Scalar& v) const {
    std::string k = prefix_;
    AppendEncoded(v, &k);
    return k;
  }

  // Postings with value v. For an int64 field a double v matches only if it is integral.
  void Equal(const Scalar& v, std::vector<KeyRange>* out) const {
    Scalar iv;
    if (!ToFieldValue(v, &iv)) return;
    std::string k = ValueKey(iv);
    out->push_back(KeyRange{k, PrefixEnd(k)});
  }

  // Postings with lower <(=) value <(=) upper; a null bound is open.
  void Between(const Scalar* lower, bool lower_inclusive, const Scalar* upper, bool upper_inclusive,
               std::vector<KeyRange>* out) const {
    std::string begin = prefix_, end = ordered_end_;
    if (lower != nullptr) {
      Scalar lo = *lower;
      bool incl = lower_inclusive;
      int state = Bound(&lo, &incl, /*is_lower=*/true);
      if (state < 0) return;  // empty
      if (state > 0) {
        begin = ValueKey(lo);
        if (!incl) begin = PrefixEnd(begin);
      }
    }
    if (upper != nullptr) {
      Scalar hi = *upper;
      bool incl = upper_inclusive;
      int state = Bound(&hi, &incl, /*is_lower=*/false);
      if (state < 0) return;
      if (state > 0) {
        end = ValueKey(hi);
        if (incl) end = PrefixEnd(end);
      }
    }
    if (begin < end) out->push_back(KeyRange{begin, end});
  }

  // Postings with a value != v (NaN included).
  void NotEqual(const Scalar& v, std::vector<KeyRange>* out) const {
    Scalar iv;
    if (!ToFieldValue(v, &iv)) {
      out->push_back(KeyRange{prefix_, field_end_});
      return;
    }
    std::string k = ValueKey(iv);
    out->push_back(KeyRange{prefix_, k});
    out->push_back(KeyRange{PrefixEnd(k), field_end_});
  }

  void All(std::vector<KeyRange>* out) const { out->push_back(KeyRange{prefix_, field_end_}); }

  void Prefix(std::string_view p, std::vector<KeyRange>* out) const {
    std::string k = prefix_;
    grid::AppendIndexStringPrefix(p, &k);
    out->push_back(KeyRange::Prefix(k));
  }

 private:
  // The value as stored in this field, if a stored value can equal it.
  bool ToFieldValue(const Scalar& v, Scalar* out) const {
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

  // Adjusts a bound for the field: -1 nothing matches, 0 the bound is open, 1 use *v / *incl.
  int Bound(Scalar* v, bool* incl, bool is_lower) const {
    if (v->kind == Scalar::kDouble && std::isnan(v->d)) return -1;
    if (field_.type != IndexFieldType::kInt64 || v->kind != Scalar::kDouble) return 1;
    const double d = v->d;
    if (d >= 9223372036854775808.0) return is_lower ? -1 : 0;
    if (d < -9223372036854775808.0) return is_lower ? 0 : -1;
    // The integer bound with the same matches (inclusive from here on).
    double r;
    if (is_lower) {
      r = *incl ? std::ceil(d) : std::floor(d) + 1;
    } else {
      r = *incl ? std::floor(d) : std::ceil(d) - 1;
    }
    if (r >= 9223372036854775808.0) return is_lower ? -1 : 0;
    if (r < -9223372036854775808.0) return is_lower ? 0 : -1;
    *v = IntScalar(static_cast<int64_t>(r));
    *incl = true;
    return 1;
  }

  const IndexField& field_;
  std::string prefix_;
  std::string field_end_;
  std::string ordered_end_;
};

// ---- Execution ----

struct SortValue {
  // 0 number, 1 NaN, 2 string, 3 bool, 4 missing.
  uint8_t rank = 4;
  Scalar num;
  std::string s;
  bool b = false;
};

SortValue MakeSortValue(const Scalar& v) {
  SortValue out;
  switch (v.kind) {
    case Scalar::kNone:
      break;
    case Scalar::kInt:
      out.rank = 0;
      out.num = v;
      break;
    case Scalar::kDouble:
      out.rank = std::isnan(v.d) ? 1 : 0;
      out.num = v;
      break;
    case Scalar::kString:
      out.rank = 2;
      out.s = std::string(v.s);
      break;
    case Scalar::kBool:
      out.rank = 3;
      out.b = v.b;
      break;
  }
  return out;
}

// Ascending order of two present values.
int CompareSortValues(const SortValue& a, const SortValue& b) {
  if (a.rank != b.rank) return a.rank < b.rank ? -1 : 1;
  switch (a.rank) {
    case 0:
      return Compare(a.num, b.num);
    case 2: {
      int c = a.s.compare(b.s);
      return c < 0 ? -1 : (c > 0);
    }
    case 3:
      return a.b == b.b ? 0 : (a.b ? 1 : -1);
    default:
      return 0;
  }
}

struct Match {
  std::string id;
  std::vector<SortValue> keys;  // one per sort field (unused for "id")
};

struct SortSpec {
  std::string_view field;
  bool descending = false;
  bool is_id = false;
  const IndexField* indexed = nullptr;
};

class Executor {
 public:
  Executor(storage::KvStore* kv, const MetaIndexInfo* index, const QueryParams& params)
      : kv_(kv), index_(index), params_(params) {}

  Result<QueryResult> Run(const Query& query);

 private:
  struct Candidates {
    enum State : uint8_t { kIds, kOverLimit, kNotIndexable };
    State state = kNotIndexable;
    std::vector<std::string> ids;  // sorted, unique
    bool exact = true;
  };

  Candidates Plan(const CNode& n, size_t limit);
  // Postings of one condition, or of the conjunction of range conditions on one field.
  Candidates ScanLeaf(const std::vector<const CNode*>& conditions, size_t limit);
  // Approximate bytes of postings a child of an And would read (max if it cannot be read),
  // from the store's size estimates: no postings are read.
  uint64_t Estimate(const std::vector<const CNode*>& entry);
  // Whether to walk the first sort field without building candidates: when conditions on that
  // field bound the walk to a range estimated no larger than any other condition's postings.
  bool WalkFirst();
  Status status_;  // first KvStore error met while planning

  bool NeedsAttributes() const {
    for (const SortSpec& s : sort_)
      if (!s.is_id) return true;
    return false;
  }
  void MakeKeys(const Attributes& attributes, Match* m) const {
    m->keys.resize(sort_.size());
    for (size_t k = 0; k < sort_.size(); ++k) {
      if (sort_[k].is_id) continue;
      auto it = attributes.find(sort_[k].field);
      m->keys[k] =
          MakeSortValue(Visible(it == attributes.end() ? nullptr : &it->second, sort_[k].indexed));
    }
  }
  bool Less(const Match& a, const Match& b) const {
    for (size_t k = 0; k < sort_.size(); ++k) {
      int c;
      if (sort_[k].is_id) {
        c = a.id.compare(b.id);
        c = c < 0 ? -1 : (c > 0);
      } else {
        const SortValue& x = a.keys[k];
        const SortValue& y = b.keys[k];
        if (x.rank == 4 || y.rank == 4) {  // missing sorts last either way
          if (x.rank != y.rank) return y.rank == 4;
          continue;
        }
        c = CompareSortValues(x, y);
      }
      if (sort_[k].descending) c = -c;
      if (c != 0) return c < 0;
    }
    return a.id < b.id;
  }

  // Reads the metas of `ids` (attributes only) and calls fn(id, attributes) for those present.
  template <typename Fn>
  Status ForEachMeta(const std::vector<std::string_view>& ids, Fn&& fn);
  // Keeps the candidates that match (all of them if exact), with sort keys if needed.
  // Both stop once `stop_at` matches are found (when the order is by id, that is enough).
  Status CollectMatches(const std::vector<std::string>& ids, bool exact, size_t stop_at,
                        std::vector<Match>* matches);
  Status ScanAllMatches(size_t stop_at, std::vector<Match>* matches);
  // Sorts the first `need` matches into place.
  void SortMatches(std::vector<Match>* matches, size_t need) const;
  // Walks the postings of the first sort field. `members` restricts to a candidate set.
  // Returns false (with *matches untouched) if the postings ran out before `need` matches.
  Result<bool> Walk(const std::vector<std::string>* members, bool exact,
                    std::vector<Match>* matches);
  Status FetchPage(const std::vector<Match>& sorted, QueryResult* result);

  storage::KvStore* kv_;
  const MetaIndexInfo* index_;
  const QueryParams& params_;
  CNode root_;
  std::vector<SortSpec> sort_;
  int64_t offset_ = 0;
  size_t need_ = kUnlimited;  // offset + limit + 1: enough to know whether a next page exists
  std::vector<std::string> notes_;
};

bool IsRangeCondition(Query::Op op) {
  return op == Query::Op::kGreater || op == Query::Op::kGreaterEqual || op == Query::Op::kLess ||
         op == Query::Op::kLessEqual || op == Query::Op::kRange;
}

// The posting ranges of an indexed condition; false if the index cannot answer it.
bool LeafRanges(const FieldRanges& fr, const CNode& n, std::vector<KeyRange>* ranges) {
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

// The posting ranges of one condition, or of range conditions on one field taken together;
// false if the index cannot answer them.
bool ConditionRanges(const FieldRanges& fr, const std::vector<const CNode*>& conditions,
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

uint64_t Executor::Estimate(const std::vector<const CNode*>& entry) {
  constexpr uint64_t kUnknown = std::numeric_limits<uint64_t>::max();
  const CNode& n = *entry[0];
  if (IsCondition(n.op)) {
    if (n.indexed == nullptr) return kUnknown;
    FieldRanges fr(index_->name, *n.indexed);
    std::vector<KeyRange> ranges;
    if (!ConditionRanges(fr, entry, &ranges)) return kUnknown;
    uint64_t bytes = 0;
    for (const KeyRange& r : ranges) {
      auto size = kv_->ApproximateSize(Table::kIndex, r);
      if (!size.ok()) return kUnknown;
      bytes += *size;
    }
    return bytes;
  }
  uint64_t total = n.op == Query::Op::kAnd ? kUnknown : 0;
  if (n.op == Query::Op::kOr) {
    for (const CNode& c : n.children) {
      const uint64_t e = Estimate({&c});
      if (e == kUnknown) return kUnknown;
      total += e;
    }
    return total;
  }
  if (n.op == Query::Op::kAnd) {
    for (const CNode& c : n.children) total = std::min(total, Estimate({&c}));
    return total;
  }
  return kUnknown;
}

Executor::Candidates Executor::ScanLeaf(const std::vector<const CNode*>& conditions, size_t limit) {
  Candidates out;
  const CNode& first = *conditions[0];
  FieldRanges fr(index_->name, *first.indexed);
  std::vector<KeyRange> ranges;
  if (!ConditionRanges(fr, conditions, &ranges)) return out;  // kNotIndexable
  if (limit != kUnlimited) {
    // Postings take at most kMaxPostingBytes each in the store's estimate, so ranges estimated
    // at more than `limit` times that hold more than `limit` postings: skip reading them.
    uint64_t bytes = 0;
    for (const KeyRange& r : ranges) {
      auto size = kv_->ApproximateSize(Table::kIndex, r);
      if (size.ok()) bytes += *size;
    }
    if (bytes / kMaxPostingBytes > limit) {
      out.state = Candidates::kOverLimit;
      return out;
    }
  }
  const size_t width = ValueWidth(first.indexed->type);
  const size_t prefix_size = fr.prefix().size();
  bool over = false;
  std::vector<size_t> run_starts;  // where each range's ids begin in out.ids
  for (const KeyRange& r : ranges) {
    run_starts.push_back(out.ids.size());
    Status s = kv_->Scan(
        storage::ReadOptions{}, Table::kIndex, r, [&](std::string_view key, std::string_view) {
          std::string_view value, id;
          if (!grid::SplitIndexPosting(key.substr(prefix_size), width, &value, &id)) {
            return true;  // not ours to judge here; verify reports it
          }
          if (out.ids.size() >= limit) {
            over = true;
            return false;
          }
          out.ids.emplace_back(id);
          return true;
        });
    if (!s.ok() && status_.ok()) status_ = s;
    if (over) break;
  }
  if (over) {
    out.ids.clear();
    out.state = Candidates::kOverLimit;
    return out;
  }
  out.state = Candidates::kIds;
  // Each range of one value (equal, in) lists its ids in order: merge those runs. Ranges over
  // many values need a sort.
  const bool one_value_runs = first.op == Query::Op::kEqual || first.op == Query::Op::kIn;
  if (one_value_runs && ranges.size() <= 8) {
    for (size_t k = 1; k < run_starts.size(); ++k) {
      const size_t end = k + 1 < run_starts.size() ? run_starts[k + 1] : out.ids.size();
      std::inplace_merge(out.ids.begin(), out.ids.begin() + static_cast<ptrdiff_t>(run_starts[k]),
                         out.ids.begin() + static_cast<ptrdiff_t>(end));
    }
  } else {
    std::sort(out.ids.begin(), out.ids.end());
  }
  if (ranges.size() > 1) out.ids.erase(std::unique(out.ids.begin(), out.ids.end()), out.ids.end());
  return out;
}

Executor::Candidates Executor::Plan(const CNode& n, size_t limit) {
  Candidates out;
  if (IsCondition(n.op)) {
    if (n.indexed == nullptr) return out;  // kNotIndexable
    return ScanLeaf({&n}, limit);
  }
  if (n.op == Query::Op::kOr) {
    out.state = Candidates::kIds;
    for (const CNode& c : n.children) {
      Candidates sub = Plan(c, limit);
      if (sub.state != Candidates::kIds) return sub;
      out.exact = out.exact && sub.exact;
      std::vector<std::string> merged;
      merged.reserve(out.ids.size() + sub.ids.size());
      std::set_union(out.ids.begin(), out.ids.end(), sub.ids.begin(), sub.ids.end(),
                     std::back_inserter(merged));
      out.ids.swap(merged);
      if (out.ids.size() > limit) {
        out.ids.clear();
        out.state = Candidates::kOverLimit;
        return out;
      }
    }
    return out;
  }
  if (n.op != Query::Op::kAnd) return out;  // all, not: not indexable

  // And: find the smallest child set with a growing budget, then intersect those children that
  // are not much larger; the rest become checks on the candidates.
  // Each entry is one child, or the range conditions on one field taken together.
  std::vector<std::vector<const CNode*>> open;
  bool exact = true;
  for (const CNode& c : n.children) {
    if (IsCondition(c.op) && c.indexed == nullptr) {
      exact = false;
    } else if (c.op == Query::Op::kNot || c.op == Query::Op::kAll) {
      exact = exact && c.op == Query::Op::kAll;
    } else {
      auto same_field = std::find_if(open.begin(), open.end(), [&](const auto& group) {
        return IsRangeCondition(c.op) && IsRangeCondition(group[0]->op) &&
               group[0]->field == c.field;
      });
      if (same_field != open.end()) {
        same_field->push_back(&c);
      } else {
        open.push_back({&c});
      }
    }
  }
  if (open.empty()) return out;
  auto plan_entry = [this](const std::vector<const CNode*>& entry, size_t budget) {
    return entry.size() == 1 ? Plan(*entry[0], budget) : ScanLeaf(entry, budget);
  };
  // Smallest estimated first, and a round stops at its first success, so that a selective child
  // is read before broad ones are tried at all. Estimates are coarse (store blocks of a few KB),
  // so the rounds of growing budgets still decide among children of similar size.
  std::vector<uint64_t> estimates;
  for (const auto& entry : open) estimates.push_back(Estimate(entry));
  std::vector<size_t> order(open.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return estimates[a] < estimates[b]; });
  {
    std::vector<std::vector<const CNode*>> sorted;
    std::vector<uint64_t> sorted_estimates;
    for (size_t i : order) {
      sorted.push_back(std::move(open[i]));
      sorted_estimates.push_back(estimates[i]);
    }
    open.swap(sorted);
    estimates.swap(sorted_estimates);
  }
  std::vector<Candidates> done;
  uint64_t done_estimate = 0;
  size_t budget = std::min<size_t>(256, limit);
  while (done.empty()) {
    for (size_t i = 0; i < open.size() && done.empty();) {
      Candidates sub = plan_entry(open[i], budget);
      if (sub.state == Candidates::kIds) {
        done.push_back(std::move(sub));
        done_estimate = estimates[i];
        open.erase(open.begin() + i);
        estimates.erase(estimates.begin() + i);
      } else if (sub.state == Candidates::kNotIndexable) {
        exact = false;
        open.erase(open.begin() + i);
        estimates.erase(estimates.begin() + i);
      } else {
        ++i;
      }
    }
    if (!done.empty()) break;
    if (open.empty()) return out;  // nothing indexable
    if (budget >= limit) {
      out.state = Candidates::kOverLimit;
      return out;
    }
    budget = budget > limit / 4 ? limit : budget * 4;
  }
  auto smallest = std::min_element(done.begin(), done.end(), [](const auto& a, const auto& b) {
    return a.ids.size() < b.ids.size();
  });
  // Scanning another child costs about as much per posting as checking a candidate's meta, so
  // intersect only children not much larger than the smallest set.
  const size_t cap = std::min(limit, smallest->ids.size() * 2 + 256);
  // A child estimated at several times the smallest one's bytes would be read in vain.
  const uint64_t estimate_cap = done_estimate > std::numeric_limits<uint64_t>::max() / 4
                                    ? done_estimate
                                    : 4 * done_estimate + (16 << 10);
  for (size_t i = 0; i < open.size(); ++i) {
    const auto& entry = open[i];
    const bool try_it = cap > budget && estimates[i] <= estimate_cap;
    Candidates sub = try_it ? plan_entry(entry, cap) : Candidates{Candidates::kOverLimit, {}, true};
    if (sub.state == Candidates::kIds) {
      done.push_back(std::move(sub));
    } else {
      exact = false;
    }
  }
  std::sort(done.begin(), done.end(),
            [](const auto& a, const auto& b) { return a.ids.size() < b.ids.size(); });
  out.state = Candidates::kIds;
  out.ids = std::move(done[0].ids);
  out.exact = exact && done[0].exact;
  for (size_t i = 1; i < done.size(); ++i) {
    out.exact = out.exact && done[i].exact;
    std::vector<std::string> kept;
    std::set_intersection(out.ids.begin(), out.ids.end(), done[i].ids.begin(), done[i].ids.end(),
                          std::back_inserter(kept));
    out.ids.swap(kept);
  }
  return out;
}

template <typename Fn>
Status Executor::ForEachMeta(const std::vector<std::string_view>& ids, Fn&& fn) {
  std::vector<std::string> values;
  std::vector<Status> statuses;
  Attributes attributes;
  for (size_t start = 0; start < ids.size(); start += kBatch) {
    const size_t end = std::min(ids.size(), start + kBatch);
    std::vector<std::string_view> keys(ids.begin() + start, ids.begin() + end);
    kv_->MultiGet(storage::ReadOptions{}, Table::kMeta, keys, &values, &statuses);
    for (size_t i = 0; i < keys.size(); ++i) {
      if (statuses[i].IsNotFound()) continue;  // deleted since its postings were read
      GRIDSTORE_RETURN_IF_ERROR(statuses[i]);
      Status s = grid::DataSetMeta::DecodeAttributes(values[i], &attributes);
      if (!s.ok()) return s.WithContext("meta of dataset " + Quote(keys[i]));
      fn(keys[i], attributes);
    }
  }
  return Status::OK();
}

Status Executor::CollectMatches(const std::vector<std::string>& ids, bool exact, size_t stop_at,
                                std::vector<Match>* matches) {
  if (exact && !NeedsAttributes()) {
    const size_t n = std::min(ids.size(), stop_at);
    matches->reserve(n);
    for (size_t i = 0; i < n; ++i) matches->push_back(Match{ids[i], {}});
    return Status::OK();
  }
  std::vector<std::string_view> views;
  // Read in growing slices so that an early stop does not read every candidate's meta.
  for (size_t start = 0, step = kBatch; start < ids.size() && matches->size() < stop_at;
       start += step, step *= 2) {
    views.assign(ids.begin() + start, ids.begin() + std::min(ids.size(), start + step));
    GRIDSTORE_RETURN_IF_ERROR(
        ForEachMeta(views, [&](std::string_view id, const Attributes& attributes) {
          if (matches->size() >= stop_at) return;
          if (!exact && !Evaluate(root_, attributes)) return;
          Match m{std::string(id), {}};
          if (NeedsAttributes()) MakeKeys(attributes, &m);
          matches->push_back(std::move(m));
        }));
  }
  return Status::OK();
}

Status Executor::ScanAllMatches(size_t stop_at, std::vector<Match>* matches) {
  Status error;
  const bool all = root_.op == Query::Op::kAll;
  const bool keys = NeedsAttributes();
  Attributes attributes;
  GRIDSTORE_RETURN_IF_ERROR(kv_->Scan(storage::ReadOptions{}, Table::kMeta, grid::AllMetaKeys(),
                                      [&](std::string_view key, std::string_view value) {
                                        if (matches->size() >= stop_at) return false;
                                        if (!all || keys) {
                                          Status s = grid::DataSetMeta::DecodeAttributes(
                                              value, &attributes);
                                          if (!s.ok()) {
                                            error = s.WithContext("meta of dataset " + Quote(key));
                                            return false;
                                          }
                                          if (!all && !Evaluate(root_, attributes)) return true;
                                        }
                                        Match m{std::string(key), {}};
                                        if (keys) MakeKeys(attributes, &m);
                                        matches->push_back(std::move(m));
                                        return true;
                                      }));
  return error;
}

void Executor::SortMatches(std::vector<Match>* matches, size_t need) const {
  auto less = [this](const Match& a, const Match& b) { return Less(a, b); };
  if (sort_.empty()) return;  // already by id
  if (need >= matches->size()) {
    std::sort(matches->begin(), matches->end(), less);
  } else {
    std::partial_sort(matches->begin(), matches->begin() + static_cast<ptrdiff_t>(need),
                      matches->end(), less);
  }
}

Result<bool> Executor::Walk(const std::vector<std::string>* members, bool exact,
                            std::vector<Match>* matches) {
  const SortSpec& spec = sort_[0];
  FieldRanges fr(index_->name, *spec.indexed);
  const std::string& prefix = fr.prefix();
  const size_t width = ValueWidth(spec.indexed->type);
  // Ties on the walked value must be complete before stopping when something other than id
  // (ascending) orders them.
  const bool complete_ties = sort_.size() > 1 && !(sort_[1].is_id && !sort_[1].descending);
  // Conditions on the sort field itself at the top level bound the walk. They also mean every
  // match has the field (a missing value fails every condition), so running out of postings in
  // the bounds then means every match was seen.
  std::string walk_begin = prefix, walk_end = fr.field_end();
  bool bounded = false;
  auto bound_by = [&](const CNode& c) {
    std::vector<KeyRange> ranges;
    if (!IsCondition(c.op) || c.field != spec.field || !LeafRanges(fr, c, &ranges)) return;
    bounded = true;
    if (ranges.empty()) walk_end = walk_begin;  // nothing can match
    if (ranges.size() != 1) return;
    walk_begin = std::max(walk_begin, ranges[0].begin);
    walk_end = std::min(walk_end, ranges[0].end);
  };
  if (root_.op == Query::Op::kAnd) {
    for (const CNode& c : root_.children) bound_by(c);
  } else {
    bound_by(root_);
  }
  if (walk_end < walk_begin) walk_end = walk_begin;

  std::vector<Match> found;
  std::string boundary;  // encoded value of the last match once `need` is reached
  bool stop = false;

  // Processes postings in walk order; returns false once enough matches are found.
  std::vector<std::pair<std::string, std::string>> pending;  // (encoded value, id)
  auto flush = [&]() -> Status {
    std::vector<std::pair<std::string, std::string>> batch;
    batch.swap(pending);
    if (batch.empty()) return Status::OK();
    std::vector<bool> ok(batch.size(), exact);
    if (!exact) {
      std::vector<std::string_view> ids;
      for (const auto& p : batch) ids.push_back(p.second);
      // ForEachMeta skips missing metas, so map results back by position through a cursor.
      size_t cursor = 0;
      GRIDSTORE_RETURN_IF_ERROR(
          ForEachMeta(ids, [&](std::string_view id, const Attributes& attributes) {
            while (cursor < batch.size() && batch[cursor].second != id) ++cursor;
            if (cursor < batch.size()) ok[cursor] = Evaluate(root_, attributes);
          }));
    }
    for (size_t i = 0; i < batch.size() && !stop; ++i) {
      if (!ok[i]) continue;
      if (found.size() >= need_) {
        if (!complete_ties || batch[i].first != boundary) {
          stop = true;
          break;
        }
      }
      found.push_back(Match{std::move(batch[i].second), {}});
      if (found.size() == need_) boundary = batch[i].first;
    }
    return Status::OK();
  };
  auto offer = [&](std::string_view value, std::string_view id) {
    if (members != nullptr && !std::binary_search(members->begin(), members->end(), id)) return;
    pending.emplace_back(std::string(value), std::string(id));
  };
  auto read_chunk = [&](const std::string& begin, const std::string& end, size_t max,
                        std::vector<std::string>* keys) -> Status {
    keys->clear();
    return kv_->Scan(storage::ReadOptions{}, Table::kIndex, KeyRange{begin, end},
                     [&](std::string_view key, std::string_view) {
                       if (keys->size() >= max) return false;
                       keys->emplace_back(key);
                       return true;
                     });
  };

  std::vector<std::string> keys;
  // Small first reads: a selective page should not read hundreds of postings and metas.
  size_t chunk = std::clamp<size_t>(std::min(need_, kBatch) * 2, 32, kBatch);
  // Offers the postings of [begin, end) in ascending order, in growing chunks, until stopped.
  auto walk_forward = [&](std::string begin, const std::string& end) -> Status {
    std::vector<std::string> forward;
    while (!stop) {
      GRIDSTORE_RETURN_IF_ERROR(read_chunk(begin, end, chunk, &forward));
      for (const std::string& key : forward) {
        std::string_view value, id;
        if (grid::SplitIndexPosting(std::string_view(key).substr(prefix.size()), width, &value,
                                    &id)) {
          offer(value, id);
        }
      }
      GRIDSTORE_RETURN_IF_ERROR(flush());
      if (forward.size() < chunk) break;
      begin = forward.back() + '\0';
      chunk = std::min(chunk * 2, kBatch);
    }
    return Status::OK();
  };
  if (!spec.descending) {
    GRIDSTORE_RETURN_IF_ERROR(walk_forward(walk_begin, walk_end));
  } else {
    // A reverse scan yields values descending but ids descending within a value, and the order
    // wanted is ids ascending there: emit each value's ids reversed once the value is complete.
    // The lowest value of a full chunk may continue below it, so that one value is read forward
    // instead (ids ascending, stopping early), and the walk goes on below it.
    std::string end = walk_end;
    std::vector<std::string_view> group;  // ids of one value, descending
    std::string_view group_value;
    auto emit_group = [&]() -> Status {
      for (auto id = group.rbegin(); id != group.rend() && !stop; ++id) {
        offer(group_value, *id);
        if (pending.size() >= chunk) {
          GRIDSTORE_RETURN_IF_ERROR(flush());
          chunk = std::min(chunk * 2, kBatch);
        }
      }
      group.clear();
      return Status::OK();
    };
    while (!stop) {
      keys.clear();
      GRIDSTORE_RETURN_IF_ERROR(kv_->ReverseScan(storage::ReadOptions{}, Table::kIndex,
                                                 KeyRange{walk_begin, end},
                                                 [&](std::string_view key, std::string_view) {
                                                   keys.emplace_back(key);
                                                   return keys.size() < chunk;
                                                 }));
      if (keys.empty()) break;
      const bool full = keys.size() >= chunk;
      for (const std::string& key : keys) {
        std::string_view value, id;
        if (!grid::SplitIndexPosting(std::string_view(key).substr(prefix.size()), width, &value,
                                     &id)) {
          continue;
        }
        if (!group.empty() && value != group_value) GRIDSTORE_RETURN_IF_ERROR(emit_group());
        if (stop) break;
        group_value = value;
        group.push_back(id);
      }
      if (!full || stop) {
        GRIDSTORE_RETURN_IF_ERROR(emit_group());
        GRIDSTORE_RETURN_IF_ERROR(flush());
        break;
      }
      if (group.empty()) {  // nothing parseable in a full chunk: step below it
        end = keys.back();
        continue;
      }
      const std::string value_key = prefix + std::string(group_value);
      group.clear();
      GRIDSTORE_RETURN_IF_ERROR(flush());
      GRIDSTORE_RETURN_IF_ERROR(
          walk_forward(std::max(value_key, walk_begin), std::min(PrefixEnd(value_key), walk_end)));
      end = value_key;
      chunk = std::min(chunk * 2, kBatch);
    }
  }
  // Ran out: unless bounded, datasets without the field may match and were not walked.
  if (found.size() < need_ && !stop && !bounded) return false;
  if (complete_ties || NeedsAttributes()) {
    // Later sort keys (and split string ties) need the full comparison.
    if (sort_.size() > 1 || complete_ties) {
      std::vector<std::string_view> ids;
      for (const Match& m : found) ids.push_back(m.id);
      std::vector<Match> keyed;
      GRIDSTORE_RETURN_IF_ERROR(ForEachMeta(ids, [&](std::string_view id, const Attributes& a) {
        Match m{std::string(id), {}};
        MakeKeys(a, &m);
        keyed.push_back(std::move(m));
      }));
      found.swap(keyed);
      std::sort(found.begin(), found.end(),
                [this](const Match& a, const Match& b) { return Less(a, b); });
    }
  }
  *matches = std::move(found);
  return true;
}

bool Executor::WalkFirst() {
  constexpr uint64_t kUnknown = std::numeric_limits<uint64_t>::max();
  std::vector<const CNode*> on_sort_field;
  uint64_t others = kUnknown;
  auto consider = [&](const CNode& c) {
    if (IsCondition(c.op) && c.field == sort_[0].field && c.indexed != nullptr &&
        (IsRangeCondition(c.op) || c.op == Query::Op::kEqual)) {
      on_sort_field.push_back(&c);
    } else {
      others = std::min(others, Estimate({&c}));
    }
  };
  if (root_.op == Query::Op::kAnd) {
    for (const CNode& c : root_.children) consider(c);
  } else {
    consider(root_);
  }
  if (on_sort_field.empty()) return false;
  // The walk reads at most the bounded range, stopping early; a candidate set would have to be
  // at least as large when every other child is estimated larger.
  return Estimate(on_sort_field) <= others;
}

Status Executor::FetchPage(const std::vector<Match>& sorted, QueryResult* result) {
  const size_t begin = std::min(sorted.size(), static_cast<size_t>(offset_));
  size_t end = sorted.size();
  if (params_.limit >= 0) end = std::min(end, begin + static_cast<size_t>(params_.limit));
  std::vector<std::string_view> keys;
  for (size_t i = begin; i < end; ++i) keys.push_back(sorted[i].id);
  std::vector<std::string> values;
  std::vector<Status> statuses;
  for (size_t start = 0; start < keys.size(); start += kBatch) {
    std::vector<std::string_view> chunk(keys.begin() + start,
                                        keys.begin() + std::min(keys.size(), start + kBatch));
    kv_->MultiGet(storage::ReadOptions{}, Table::kMeta, chunk, &values, &statuses);
    for (size_t i = 0; i < chunk.size(); ++i) {
      if (statuses[i].IsNotFound()) continue;
      GRIDSTORE_RETURN_IF_ERROR(statuses[i]);
      auto meta = grid::DataSetMeta::Decode(values[i]);
      if (!meta.ok()) return meta.status().WithContext("meta of dataset " + Quote(chunk[i]));
      result->metas.push_back(std::move(meta).value());
    }
  }
  return Status::OK();
}

uint64_t Fnv1a(std::string_view s, uint64_t h = 14695981039346656037ull) {
  for (char c : s) {
    h ^= static_cast<uint8_t>(c);
    h *= 1099511628211ull;
  }
  return h;
}

uint64_t QueryFingerprint(const MetaIndexInfo* index, const Query& query,
                          const QueryParams& params) {
  uint64_t h = Fnv1a(index == nullptr ? std::string_view("\x01") : index->name);
  h = Fnv1a(std::string_view("\0", 1), h);
  h = Fnv1a(query.ToString(), h);
  for (const grid::SortField& s : params.sort) {
    h = Fnv1a(std::string_view("\0", 1), h);
    h = Fnv1a(s.field, h);
    h = Fnv1a(s.order == SortOrder::kDescending ? "-" : "+", h);
  }
  return h;
}

constexpr std::string_view kTokenPrefix = "gsq1.";

std::string MakeToken(uint64_t fingerprint, int64_t offset) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(fingerprint));
  return std::string(kTokenPrefix) + std::to_string(offset) + "." + buf;
}

Result<int64_t> ParseToken(std::string_view token, uint64_t fingerprint) {
  const Status bad = Status::InvalidArgument(
      "the page token was not made by this query (its index, conditions and sort must match)");
  if (token.substr(0, kTokenPrefix.size()) != kTokenPrefix) return bad;
  token.remove_prefix(kTokenPrefix.size());
  size_t dot = token.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot > 18) return bad;
  int64_t offset = 0;
  for (char c : token.substr(0, dot)) {
    if (c < '0' || c > '9') return bad;
    offset = offset * 10 + (c - '0');
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(fingerprint));
  if (token.substr(dot + 1) != buf) return bad;
  return offset;
}

std::string SortText(const std::vector<SortSpec>& sort) {
  std::string s;
  for (const SortSpec& f : sort) {
    if (!s.empty()) s += ", ";
    s += std::string(f.field) + (f.descending ? " desc" : " asc");
  }
  return s;
}

Result<QueryResult> Executor::Run(const Query& query) {
  if (params_.limit < -1) {
    return Status::InvalidArgument("limit is " + std::to_string(params_.limit) +
                                   "; it must be >= 0, or -1 for no limit");
  }
  if (params_.offset < 0) {
    return Status::InvalidArgument("offset is " + std::to_string(params_.offset) +
                                   "; it must be >= 0");
  }
  GRIDSTORE_RETURN_IF_ERROR(Compile(index_, query, &root_));
  for (const grid::SortField& f : params_.sort) {
    if (f.field.empty()) return Status::InvalidArgument("a sort field has an empty name");
    SortSpec s;
    s.field = f.field;
    s.descending = f.order == SortOrder::kDescending;
    s.is_id = f.field == "id";
    s.indexed = s.is_id ? nullptr : FindField(index_, f.field);
    sort_.push_back(s);
    if (s.is_id) break;  // ids are unique: later keys never matter
  }
  if (sort_.size() == 1 && sort_[0].is_id && !sort_[0].descending) sort_.clear();
  const uint64_t fingerprint = QueryFingerprint(index_, query, params_);
  offset_ = params_.offset;
  if (!params_.page_token.empty()) {
    GRIDSTORE_ASSIGN_OR_RETURN(offset_, ParseToken(params_.page_token, fingerprint));
  }
  if (params_.limit >= 0) {
    need_ = static_cast<size_t>(offset_) + static_cast<size_t>(params_.limit) + 1;
  }

  QueryResult result;
  const bool all =
      root_.op == Query::Op::kAll || (root_.op == Query::Op::kAnd && root_.children.empty());
  const bool can_walk = !sort_.empty() && sort_[0].indexed != nullptr && params_.limit >= 0;

  Candidates c;
  // The walk's own index range stands in for a candidate set.
  const bool walk_first = !all && can_walk && !params_.get_total_count && WalkFirst();
  if (walk_first) {
    c.state = Candidates::kOverLimit;
    notes_.push_back("walk range estimated smallest");
  } else if (!all) {
    c = Plan(root_, can_walk ? kWalkCandidateLimit : kUnlimited);
    GRIDSTORE_RETURN_IF_ERROR(status_);
  }
  std::vector<Match> matches;
  bool have_all_matches = false;  // `matches` holds every match (so total is its size)
  int64_t total = -1;
  if (c.state == Candidates::kIds) {
    notes_.push_back(std::string("index: ") + std::to_string(c.ids.size()) + " candidates" +
                     (c.exact ? "" : ", other conditions checked on them"));
    if (c.exact) total = static_cast<int64_t>(c.ids.size());
  } else if (all) {
    notes_.push_back("all datasets");
  } else if (!walk_first) {
    result.scanned = true;
    notes_.push_back(c.state == Candidates::kOverLimit ? "index ranges too broad"
                                                       : "no condition on an indexed field");
  }

  bool walked = false;
  const bool walk_this = can_walk && (c.state != Candidates::kIds || c.ids.size() > kDirectMax) &&
                         !(params_.get_total_count && total < 0 && !all);
  if (walk_this) {
    const bool exact = all || (c.state == Candidates::kIds && c.exact);
    GRIDSTORE_ASSIGN_OR_RETURN(
        walked, Walk(c.state == Candidates::kIds ? &c.ids : nullptr, exact, &matches));
    if (walked) {
      notes_.push_back("order: walk " + std::string(sort_[0].field) + " postings" +
                       (exact ? "" : ", conditions checked on each"));
    } else {
      matches.clear();
    }
  }
  if (!walked) {
    // In id order the first `need_` matches are the answer, unless a total is wanted.
    const size_t stop_at = sort_.empty() && !params_.get_total_count ? need_ : kUnlimited;
    if (c.state == Candidates::kIds) {
      GRIDSTORE_RETURN_IF_ERROR(CollectMatches(c.ids, c.exact, stop_at, &matches));
    } else {
      if (!all) {
        notes_.push_back("scan metas");
        result.scanned = true;
      }
      GRIDSTORE_RETURN_IF_ERROR(ScanAllMatches(stop_at, &matches));
    }
    have_all_matches = matches.size() < stop_at;
    if (sort_.size() == 1 && sort_[0].is_id) {
      std::reverse(matches.begin(), matches.end());  // id descending
    } else {
      SortMatches(&matches, need_);
    }
    if (!sort_.empty()) notes_.push_back("order: sort " + std::to_string(matches.size()));
  }
  if (have_all_matches) total = static_cast<int64_t>(matches.size());
  if (params_.get_total_count) {
    if (total < 0 && all) {
      int64_t n = 0;
      GRIDSTORE_RETURN_IF_ERROR(kv_->Scan(storage::ReadOptions{}, Table::kMeta, grid::AllMetaKeys(),
                                          [&](std::string_view, std::string_view) {
                                            ++n;
                                            return true;
                                          }));
      total = n;
    }
    result.total = total;
  }
  GRIDSTORE_RETURN_IF_ERROR(FetchPage(matches, &result));
  if (params_.limit > 0 && matches.size() > static_cast<size_t>(offset_ + params_.limit)) {
    result.next_token = MakeToken(fingerprint, offset_ + params_.limit);
  }
  result.plan = index_ == nullptr ? "no index" : "index " + Quote(index_->name);
  for (const std::string& note : notes_) result.plan += "; " + note;
  if (!sort_.empty()) result.plan += " (sort " + SortText(sort_) + ")";
  return result;
}

}  // namespace

void EncodeMetaIndexSchema(const grid::MetaIndexSchema& schema, std::string* dst) {
  dst->push_back(static_cast<char>(kSchemaVersion));
  PutVarint64(dst, schema.fields.size());
  for (const IndexField& f : schema.fields) {
    PutLengthPrefixed(dst, f.name);
    dst->push_back(static_cast<char>(f.type));
  }
}

Result<grid::MetaIndexSchema> DecodeMetaIndexSchema(std::string_view bytes) {
  ByteReader reader(bytes);
  const Status bad = Status::DataLoss("meta index schema is truncated or malformed");
  uint8_t version = 0;
  uint64_t n = 0;
  if (!reader.ReadByte(&version) || version != kSchemaVersion || !reader.ReadVarint64(&n) ||
      n > bytes.size()) {
    return bad;
  }
  grid::MetaIndexSchema schema;
  for (uint64_t i = 0; i < n; ++i) {
    std::string_view name;
    uint8_t type = 0;
    if (!reader.ReadLengthPrefixed(&name) || !reader.ReadByte(&type) || type < 1 || type > 4) {
      return bad;
    }
    schema.fields.push_back(IndexField{std::string(name), static_cast<IndexFieldType>(type)});
  }
  if (!reader.empty()) return bad;
  return schema;
}

Status ValidateMetaIndexSchema(const grid::MetaIndexSchema& schema) {
  if (schema.fields.empty()) return Status::InvalidArgument("a meta index needs at least 1 field");
  if (schema.fields.size() > kMaxSchemaFields) {
    return Status::InvalidArgument("a meta index has at most " + std::to_string(kMaxSchemaFields) +
                                   " fields");
  }
  for (size_t i = 0; i < schema.fields.size(); ++i) {
    const IndexField& f = schema.fields[i];
    GRIDSTORE_RETURN_IF_ERROR(grid::ValidateIndexFieldName(f.name));
    const auto t = static_cast<uint8_t>(f.type);
    if (t < 1 || t > 4) {
      return Status::InvalidArgument("field " + Quote(f.name) + " has unknown type " +
                                     std::to_string(t));
    }
    for (size_t j = 0; j < i; ++j) {
      if (schema.fields[j].name == f.name) {
        return Status::InvalidArgument("field " + Quote(f.name) + " is declared twice");
      }
    }
  }
  return Status::OK();
}

std::string MetaIndexSchemaConflict(const grid::MetaIndexSchema& existing,
                                    const grid::MetaIndexSchema& requested) {
  for (const IndexField& f : requested.fields) {
    const IndexField* old = nullptr;
    for (const IndexField& e : existing.fields)
      if (e.name == f.name) old = &e;
    if (old == nullptr) return "field " + Quote(f.name) + " is not in the existing index";
    if (old->type != f.type) {
      return "field " + Quote(f.name) + " is " + std::string(grid::IndexFieldTypeName(old->type)) +
             " in the existing index, not " + std::string(grid::IndexFieldTypeName(f.type));
    }
  }
  for (const IndexField& e : existing.fields) {
    bool found = false;
    for (const IndexField& f : requested.fields) found = found || f.name == e.name;
    if (!found) return "field " + Quote(e.name) + " of the existing index is missing";
  }
  if (!(existing == requested)) return "the fields are declared in a different order";
  return "";
}

void AppendMetaPostings(const MetaIndexInfo& index, std::string_view id,
                        const Attributes& attributes, std::vector<std::string>* keys) {
  for (const IndexField& f : index.schema.fields) {
    auto it = attributes.find(f.name);
    if (it == attributes.end()) continue;
    const Scalar v = Visible(&it->second, &f);
    if (v.kind == Scalar::kNone) continue;
    std::string key = grid::IndexFieldPrefix(index.name, f.name);
    AppendEncoded(v, &key);
    grid::AppendIndexPostingId(id, &key);
    keys->push_back(std::move(key));
  }
}

Result<QueryResult> RunMetaQuery(storage::KvStore* kv, const MetaIndexInfo* index,
                                 const Query& query, const QueryParams& params) {
  Executor executor(kv, index, params);
  return executor.Run(query);
}

Result<bool> MatchesMetaQuery(const MetaIndexInfo* index, const Query& query,
                              const Attributes& attributes) {
  CNode root;
  GRIDSTORE_RETURN_IF_ERROR(Compile(index, query, &root));
  return Evaluate(root, attributes);
}

}  // namespace gridstore::internal_grid
