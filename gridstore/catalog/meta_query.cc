// Copyright 2026 The GridStore Authors.
//
// Query trees, their builders and their equality. Printing is in query_printer.cc, parsing in
// query_parser.cc, planning and evaluation in grid/internal/meta_*.cc.
#include "gridstore/catalog/meta_query.h"

#include <bit>
#include <cmath>

#include "gridstore/util/internal/utf8.h"

namespace gridstore::grid {
namespace {

std::shared_ptr<const Query::Node> MakeNode(Query::Op op, std::string field,
                                            std::vector<QueryValue> values) {
  auto node = std::make_shared<Query::Node>();
  node->op = op;
  node->field = std::move(field);
  node->values = std::move(values);
  return node;
}

Query Condition(Query::Op op, std::string field, QueryValue value) {
  return Query(MakeNode(op, std::move(field), {std::move(value)}));
}

Query Combine(Query::Op op, std::vector<Query> children) {
  auto node = std::make_shared<Query::Node>();
  node->op = op;
  node->children = std::move(children);
  return Query(std::move(node));
}

bool SameValue(const QueryValue& a, const QueryValue& b) {
  if (a.index() != b.index()) return false;
  if (const auto* x = std::get_if<double>(&a)) {
    const double y = std::get<double>(b);
    if (std::isnan(*x) || std::isnan(y)) return std::isnan(*x) && std::isnan(y);
    return std::bit_cast<uint64_t>(*x) == std::bit_cast<uint64_t>(y);
  }
  return a == b;
}

}  // namespace

std::string_view IndexFieldTypeName(IndexFieldType type) {
  switch (type) {
    case IndexFieldType::kString:
      return "string";
    case IndexFieldType::kInt64:
      return "int64";
    case IndexFieldType::kDouble:
      return "double";
    case IndexFieldType::kBool:
      return "bool";
  }
  return "unknown";
}

Result<IndexFieldType> ParseIndexFieldType(std::string_view name) {
  if (name == "string" || name == "keyword") return IndexFieldType::kString;
  if (name == "int64") return IndexFieldType::kInt64;
  if (name == "double") return IndexFieldType::kDouble;
  if (name == "bool") return IndexFieldType::kBool;
  return Status::InvalidArgument("unknown index field type '" + EscapeForMessage(name) +
                                 "'; expected string, keyword, int64, double or bool");
}

Query::Query() : node_(std::make_shared<const Node>()) {}

bool operator==(const Query& a, const Query& b) {
  const Query::Node& x = a.node();
  const Query::Node& y = b.node();
  if (&x == &y) return true;
  if (x.op != y.op || x.field != y.field || x.include_lower != y.include_lower ||
      x.include_upper != y.include_upper || x.values.size() != y.values.size() ||
      x.children.size() != y.children.size()) {
    return false;
  }
  for (size_t i = 0; i < x.values.size(); ++i) {
    if (!SameValue(x.values[i], y.values[i])) return false;
  }
  for (size_t i = 0; i < x.children.size(); ++i) {
    if (!(x.children[i] == y.children[i])) return false;
  }
  return true;
}

Query QueryBuilder::All() { return Query(); }
Query QueryBuilder::And(std::vector<Query> children) {
  if (children.empty()) return All();
  if (children.size() == 1) return std::move(children[0]);
  return Combine(Query::Op::kAnd, std::move(children));
}
Query QueryBuilder::Or(std::vector<Query> children) {
  if (children.size() == 1) return std::move(children[0]);
  return Combine(Query::Op::kOr, std::move(children));
}
Query QueryBuilder::Not(Query child) { return Combine(Query::Op::kNot, {std::move(child)}); }
Query QueryBuilder::Equal(std::string field, QueryValue value) {
  return Condition(Query::Op::kEqual, std::move(field), std::move(value));
}
Query QueryBuilder::NotEqual(std::string field, QueryValue value) {
  return Condition(Query::Op::kNotEqual, std::move(field), std::move(value));
}
Query QueryBuilder::In(std::string field, std::vector<QueryValue> values) {
  if (values.empty()) return Or({});
  return Query(MakeNode(Query::Op::kIn, std::move(field), std::move(values)));
}
Query QueryBuilder::GreaterThan(std::string field, QueryValue value) {
  return Condition(Query::Op::kGreater, std::move(field), std::move(value));
}
Query QueryBuilder::GreaterEqual(std::string field, QueryValue value) {
  return Condition(Query::Op::kGreaterEqual, std::move(field), std::move(value));
}
Query QueryBuilder::LessThan(std::string field, QueryValue value) {
  return Condition(Query::Op::kLess, std::move(field), std::move(value));
}
Query QueryBuilder::LessEqual(std::string field, QueryValue value) {
  return Condition(Query::Op::kLessEqual, std::move(field), std::move(value));
}
Query QueryBuilder::Range(std::string field, QueryValue lower, QueryValue upper, bool include_lower,
                          bool include_upper) {
  auto node = std::make_shared<Query::Node>();
  node->op = Query::Op::kRange;
  node->field = std::move(field);
  node->values = {std::move(lower), std::move(upper)};
  node->include_lower = include_lower;
  node->include_upper = include_upper;
  return Query(std::move(node));
}
Query QueryBuilder::Prefix(std::string field, std::string prefix) {
  return Condition(Query::Op::kPrefix, std::move(field), std::move(prefix));
}
Query QueryBuilder::Exists(std::string field) {
  return Query(MakeNode(Query::Op::kExists, std::move(field), {}));
}

}  // namespace gridstore::grid
