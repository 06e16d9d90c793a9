// Copyright 2026 The GridStore Authors.
//
// Query::ToString: the query in the grammar of catalog/query_parser.h, so that ParseQuery reads it
// back as the same tree. Canonical: one spelling per tree (double-quoted strings, every `and` and
// `or` in parentheses, doubles always with a '.', an 'e' or a word).
#include <charconv>
#include <cmath>

#include "gridstore/catalog/internal/query_syntax.h"
#include "gridstore/catalog/meta_query.h"

namespace gridstore::grid {
namespace {

using internal_grid::AppendFieldName;

void AppendDouble(double d, std::string* out) {
  if (std::isnan(d)) {
    *out += "nan";
    return;
  }
  if (std::isinf(d)) {
    *out += d > 0 ? "inf" : "-inf";
    return;
  }
  // The shortest text that reads back as the same double.
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), d);
  const std::string_view text(buf, ec == std::errc() ? static_cast<size_t>(end - buf) : 0);
  *out += text;
  // A double always shows as one: 3.0, not 3 (which would read as an int64).
  if (text.find_first_of(".e") == std::string_view::npos) *out += ".0";
}

void AppendValue(const QueryValue& value, std::string* out) {
  if (const auto* s = std::get_if<std::string>(&value)) {
    internal_grid::AppendQuotedString(*s, out);
  } else if (const auto* i = std::get_if<int64_t>(&value)) {
    *out += std::to_string(*i);
  } else if (const auto* d = std::get_if<double>(&value)) {
    AppendDouble(*d, out);
  } else {
    *out += std::get<bool>(value) ? "true" : "false";
  }
}

void AppendQuery(const Query& query, std::string* out);

// (a and b and c), or the neutral element for none, or the only child as it is.
void AppendGroup(const Query::Node& n, std::string* out) {
  const bool is_and = n.op == Query::Op::kAnd;
  if (n.children.empty()) {
    *out += is_and ? "true" : "false";
    return;
  }
  if (n.children.size() == 1) return AppendQuery(n.children[0], out);
  out->push_back('(');
  for (size_t i = 0; i < n.children.size(); ++i) {
    if (i > 0) *out += is_and ? " and " : " or ";
    AppendQuery(n.children[i], out);
  }
  out->push_back(')');
}

// FIELD OP VALUE. A malformed node without its value prints without it.
void AppendComparison(const Query::Node& n, std::string_view op, std::string* out) {
  AppendFieldName(n.field, out);
  *out += ' ';
  *out += op;
  if (n.values.empty()) return;
  *out += ' ';
  AppendValue(n.values[0], out);
}

void AppendIn(const Query::Node& n, std::string* out) {
  AppendFieldName(n.field, out);
  *out += " in (";
  for (size_t i = 0; i < n.values.size(); ++i) {
    if (i > 0) *out += ", ";
    AppendValue(n.values[i], out);
  }
  out->push_back(')');
}

// LOWER < FIELD <= UPPER.
void AppendRange(const Query::Node& n, std::string* out) {
  if (n.values.size() != 2) return AppendComparison(n, "range", out);
  AppendValue(n.values[0], out);
  *out += n.include_lower ? " <= " : " < ";
  AppendFieldName(n.field, out);
  *out += n.include_upper ? " <= " : " < ";
  AppendValue(n.values[1], out);
}

void AppendQuery(const Query& query, std::string* out) {
  const Query::Node& n = query.node();
  switch (n.op) {
    case Query::Op::kAll:
      *out += "true";
      return;
    case Query::Op::kAnd:
    case Query::Op::kOr:
      return AppendGroup(n, out);
    case Query::Op::kNot:
      *out += "not ";
      if (n.children.empty()) *out += "()";
      if (!n.children.empty()) AppendQuery(n.children[0], out);
      return;
    case Query::Op::kEqual:
      return AppendComparison(n, "=", out);
    case Query::Op::kNotEqual:
      return AppendComparison(n, "!=", out);
    case Query::Op::kGreater:
      return AppendComparison(n, ">", out);
    case Query::Op::kGreaterEqual:
      return AppendComparison(n, ">=", out);
    case Query::Op::kLess:
      return AppendComparison(n, "<", out);
    case Query::Op::kLessEqual:
      return AppendComparison(n, "<=", out);
    case Query::Op::kPrefix:
      return AppendComparison(n, "prefix", out);
    case Query::Op::kIn:
      return AppendIn(n, out);
    case Query::Op::kRange:
      return AppendRange(n, out);
    case Query::Op::kExists:
      AppendFieldName(n.field, out);
      *out += " exists";
      return;
  }
}

}  // namespace

std::string Query::ToString() const {
  std::string out;
  AppendQuery(*this, &out);
  return out;
}

}  // namespace gridstore::grid
