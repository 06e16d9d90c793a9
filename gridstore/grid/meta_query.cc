// Copyright 2026 The GridStore Authors.
//
// Query trees and their builders. Planning and evaluation live in grid/internal/meta_index.cc.
#include "gridstore/grid/meta_query.h"

#include <charconv>
#include <cmath>

#include "gridstore/grid/internal/grid_keys.h"

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

void AppendValue(const QueryValue& value, std::string* out) {
  if (const auto* s = std::get_if<std::string>(&value)) {
    // Double quotes, with backslash escapes, so that every string reads back unambiguously.
    out->push_back('"');
    for (char c : EscapeForMessage(*s)) {
      if (c == '"') out->push_back('\\');
      out->push_back(c);
    }
    out->push_back('"');
  } else if (const auto* i = std::get_if<int64_t>(&value)) {
    *out += std::to_string(*i);
  } else if (const auto* d = std::get_if<double>(&value)) {
    if (std::isnan(*d)) {
      *out += "nan";
    } else if (std::isinf(*d)) {
      *out += *d > 0 ? "inf" : "-inf";
    } else {
      char buf[32];
      auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), *d);
      std::string_view text(buf, ec == std::errc() ? end - buf : 0);
      *out += text;
      // A double always shows as one: 3.0, not 3 (which would read as an int64).
      if (text.find_first_of(".en") == std::string_view::npos) *out += ".0";
    }
  } else {
    *out += std::get<bool>(value) ? "true" : "false";
  }
}

void AppendQuery(const Query& query, std::string* out) {
  const Query::Node& n = query.node();
  auto cmp = [&](std::string_view op) {
    *out += n.field;
    *out += ' ';
    *out += op;
    *out += ' ';
    if (!n.values.empty()) AppendValue(n.values[0], out);
  };
  switch (n.op) {
    case Query::Op::kAll:
      *out += "all";
      return;
    case Query::Op::kAnd:
    case Query::Op::kOr:
      if (n.children.empty()) {
        *out += n.op == Query::Op::kAnd ? "all" : "none";
        return;
      }
      out->push_back('(');
      for (size_t i = 0; i < n.children.size(); ++i) {
        if (i > 0) *out += n.op == Query::Op::kAnd ? " and " : " or ";
        AppendQuery(n.children[i], out);
      }
      out->push_back(')');
      return;
    case Query::Op::kNot:
      *out += "not ";
      if (!n.children.empty()) AppendQuery(n.children[0], out);
      return;
    case Query::Op::kEqual:
      return cmp("=");
    case Query::Op::kNotEqual:
      return cmp("!=");
    case Query::Op::kGreater:
      return cmp(">");
    case Query::Op::kGreaterEqual:
      return cmp(">=");
    case Query::Op::kLess:
      return cmp("<");
    case Query::Op::kLessEqual:
      return cmp("<=");
    case Query::Op::kPrefix:
      return cmp("prefix");
    case Query::Op::kIn:
      *out += n.field + " in (";
      for (size_t i = 0; i < n.values.size(); ++i) {
        if (i > 0) *out += ", ";
        AppendValue(n.values[i], out);
      }
      out->push_back(')');
      return;
    case Query::Op::kRange:
      *out += n.field + " in ";
      out->push_back(n.include_lower ? '[' : '(');
      if (n.values.size() == 2) {
        AppendValue(n.values[0], out);
        *out += ", ";
        AppendValue(n.values[1], out);
      }
      out->push_back(n.include_upper ? ']' : ')');
      return;
    case Query::Op::kExists:
      *out += "exists " + n.field;
      return;
  }
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

std::string Query::ToString() const {
  std::string out;
  AppendQuery(*this, &out);
  return out;
}

Query QueryBuilder::All() { return Query(); }
Query QueryBuilder::And(std::vector<Query> children) {
  return Combine(Query::Op::kAnd, std::move(children));
}
Query QueryBuilder::Or(std::vector<Query> children) {
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
