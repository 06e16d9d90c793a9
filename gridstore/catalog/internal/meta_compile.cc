// Copyright 2026 The GridStore Authors.
#include "gridstore/catalog/internal/meta_compile.h"

#include "gridstore/util/internal/strings.h"
#include "gridstore/util/internal/utf8.h"

namespace gridstore::internal_grid {
namespace {

using grid::Attributes;
using grid::IndexField;
using grid::IndexFieldType;
using grid::Query;
using grid::QueryValue;

// The shape of a condition node: field name, number of values, value kinds that do not depend
// on the index.
Status CheckConditionShape(const Query::Node& n) {
  if (n.field.empty()) return Status::InvalidArgument("a condition has an empty field name");
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
                                   std::string(QueryValueKindName(n.values[0])));
  }
  if (n.op == Query::Op::kRange) {
    auto cls = [](const QueryValue& v) { return v.index() == 2 ? 1 : v.index(); };
    if (cls(n.values[0]) != cls(n.values[1])) {
      return Status::InvalidArgument("range on " + Quote(n.field) + " has bounds of different " +
                                     "kinds (" + std::string(QueryValueKindName(n.values[0])) +
                                     " and " + std::string(QueryValueKindName(n.values[1])) + ")");
    }
  }
  return Status::OK();
}

// Whether value `v` of condition `query` may be compared with indexed field `f`.
Status CheckDeclaredType(const IndexField& f, const Query& query, const QueryValue& v) {
  const Query::Node& n = query.node();
  const bool number = v.index() == 1 || v.index() == 2;
  bool ok = false;
  switch (f.type) {
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
  if (ok) return Status::OK();
  return Status::InvalidArgument(
      "field " + Quote(n.field) + " is indexed as " +
      std::string(grid::IndexFieldTypeName(f.type)) + "; the condition `" + query.ToString() +
      "` " +
      (n.op == Query::Op::kPrefix ? std::string("needs a string field")
                                  : "compares it with a " + std::string(QueryValueKindName(v))));
}

// The Scalar a query value compares as; on a double field, int64 values become doubles.
Scalar ToScalar(const QueryValue& v, const IndexField* f) {
  if (const auto* str = std::get_if<std::string>(&v)) return StringScalar(*str);
  if (const auto* i = std::get_if<int64_t>(&v)) {
    if (f != nullptr && f->type == IndexFieldType::kDouble) return DoubleScalar(double(*i));
    return IntScalar(*i);
  }
  if (const auto* d = std::get_if<double>(&v)) return DoubleScalar(*d);
  return BoolScalar(std::get<bool>(v));
}

Status CompileCondition(const grid::MetaIndexInfo* index, const Query& query, CompiledNode* out) {
  const Query::Node& n = query.node();
  GRIDSTORE_RETURN_IF_ERROR(CheckConditionShape(n));
  out->field = n.field;
  out->indexed = FindIndexField(index, n.field);
  if (out->indexed != nullptr) {
    out->position = static_cast<size_t>(out->indexed - index->schema.fields.data());
  }
  out->include_lower = n.include_lower;
  out->include_upper = n.include_upper;
  for (const QueryValue& v : n.values) {
    if (out->indexed != nullptr) {
      GRIDSTORE_RETURN_IF_ERROR(CheckDeclaredType(*out->indexed, query, v));
    }
    out->values.push_back(ToScalar(v, out->indexed));
  }
  return Status::OK();
}

// A condition on a visible value `a` (present).
bool EvaluateCondition(const CompiledNode& n, const Scalar& a) {
  switch (n.op) {
    case Query::Op::kExists:
      return true;
    case Query::Op::kEqual:
      return CompareScalars(a, n.values[0]) == 0;
    case Query::Op::kNotEqual:
      return CompareScalars(a, n.values[0]) != 0;
    case Query::Op::kIn:
      for (const Scalar& v : n.values)
        if (CompareScalars(a, v) == 0) return true;
      return false;
    case Query::Op::kGreater:
      return CompareScalars(a, n.values[0]) == 1;
    case Query::Op::kGreaterEqual: {
      const int c = CompareScalars(a, n.values[0]);
      return c == 0 || c == 1;
    }
    case Query::Op::kLess:
      return CompareScalars(a, n.values[0]) == -1;
    case Query::Op::kLessEqual: {
      const int c = CompareScalars(a, n.values[0]);
      return c == 0 || c == -1;
    }
    case Query::Op::kRange: {
      const int lo = CompareScalars(a, n.values[0]), hi = CompareScalars(a, n.values[1]);
      const bool lower_ok = lo == 1 || (n.include_lower && lo == 0);
      const bool upper_ok = hi == -1 || (n.include_upper && hi == 0);
      return lower_ok && upper_ok;
    }
    case Query::Op::kPrefix:
      return a.kind == Scalar::kString && a.s.substr(0, n.values[0].s.size()) == n.values[0].s;
    default:
      return false;
  }
}

// A compiled query on one dataset, whose visible value of a condition's field value_of gives.
template <typename ValueOf>
bool Evaluate(const CompiledNode& n, const ValueOf& value_of) {
  switch (n.op) {
    case Query::Op::kAll:
      return true;
    case Query::Op::kAnd:
      for (const CompiledNode& c : n.children)
        if (!Evaluate(c, value_of)) return false;
      return true;
    case Query::Op::kOr:
      for (const CompiledNode& c : n.children)
        if (Evaluate(c, value_of)) return true;
      return false;
    case Query::Op::kNot:
      return !Evaluate(n.children[0], value_of);
    default:
      break;
  }
  const Scalar& a = value_of(n);
  if (a.kind == Scalar::kNone) return false;
  return EvaluateCondition(n, a);
}

}  // namespace

const IndexField* FindIndexField(const grid::MetaIndexInfo* index, std::string_view name) {
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

bool IsRangeCondition(Query::Op op) {
  return op == Query::Op::kGreater || op == Query::Op::kGreaterEqual || op == Query::Op::kLess ||
         op == Query::Op::kLessEqual || op == Query::Op::kRange;
}

Status CompileQuery(const grid::MetaIndexInfo* index, const Query& query, CompiledNode* out) {
  const Query::Node& n = query.node();
  out->op = n.op;
  if (IsCondition(n.op)) return CompileCondition(index, query, out);
  if (n.op == Query::Op::kNot && n.children.size() != 1) {
    return Status::InvalidArgument("a 'not' node needs exactly one child");
  }
  out->children.resize(n.children.size());
  for (size_t i = 0; i < n.children.size(); ++i) {
    GRIDSTORE_RETURN_IF_ERROR(CompileQuery(index, n.children[i], &out->children[i]));
  }
  return Status::OK();
}

bool EvaluateCompiled(const CompiledNode& n, const Attributes& attributes) {
  return Evaluate(n, [&attributes](const CompiledNode& c) {
    auto it = attributes.find(c.field);
    return VisibleValue(it == attributes.end() ? nullptr : &it->second, c.indexed);
  });
}

bool IsCovered(const CompiledNode& n) {
  if (IsCondition(n.op)) return n.indexed != nullptr;
  for (const CompiledNode& c : n.children)
    if (!IsCovered(c)) return false;
  return true;
}

bool EvaluateCovered(const CompiledNode& n, const std::vector<Scalar>& row) {
  return Evaluate(n, [&row](const CompiledNode& c) -> const Scalar& { return row[c.position]; });
}

}  // namespace gridstore::internal_grid
