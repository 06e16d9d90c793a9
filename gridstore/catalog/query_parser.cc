// Copyright 2026 The GridStore Authors.
//
// A recursive-descent parser over the tokens of catalog/internal/query_syntax.h: small, no
// dependencies, and every error can say exactly where it is and what was expected there.
#include "gridstore/catalog/query_parser.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gridstore/catalog/internal/query_syntax.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::grid {
namespace {

using internal_grid::EqualsIgnoreCase;
using internal_grid::IsDigit;
using internal_grid::IsIdentStart;
using internal_grid::IsKeyword;
using internal_grid::IsValueWord;
using internal_grid::QueryToken;
using internal_grid::UnitMillis;
using Tok = internal_grid::QueryTokenKind;

// An attribute name: a backquoted name or a bare word that is not a keyword.
bool IsField(const QueryToken& t) {
  return t.kind == Tok::kQuotedIdent || (t.kind == Tok::kIdent && !IsKeyword(t.text));
}

bool IsLess(const QueryToken& t) { return t.kind == Tok::kOp && (t.text == "<" || t.text == "<="); }

// Tokens that may start a value (and so a range); bare words other than keywords and value
// words are attribute names.
bool MayStartValue(const QueryToken& t) {
  switch (t.kind) {
    case Tok::kString:
    case Tok::kNumber:
    case Tok::kMinus:
      return true;
    case Tok::kIdent:
      return IsValueWord(t.text) || EqualsIgnoreCase(t.text, "true") ||
             EqualsIgnoreCase(t.text, "false") || EqualsIgnoreCase(t.text, "now");
    default:
      return false;
  }
}

// GCC 12 at -O2 with -fsanitize=address warns that a QueryValue variant's string "may be
// used uninitialized" whenever a non-string alternative is returned through Result (a false
// positive; the normal build and clang do not warn). Scoped to the parser only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
class Parser {
 public:
  Parser(std::string_view text, int64_t now_ms) : text_(text), now_ms_(now_ms) {}

  Result<Query> Parse() {
    GRIDSTORE_RETURN_IF_ERROR(internal_grid::LexQuery(text_, &tokens_));
    if (tokens_.front().kind == Tok::kEnd) return Error(0, "the expression is empty");
    GRIDSTORE_ASSIGN_OR_RETURN(Query q, ParseOr());
    const QueryToken& t = Peek();
    if (t.kind == Tok::kRParen) return Error(t.pos, "')' has no matching '('");
    if (t.kind != Tok::kEnd) {
      return Error(t.pos, "expected 'and', 'or' or the end after " + Describe(Prev()) + ", found " +
                              Describe(t));
    }
    return q;
  }

 private:
  // ---- errors ----

  Status Error(size_t pos, const std::string& what) const {
    return internal_grid::QuerySyntaxError(text_, pos, what);
  }

  static std::string Describe(const QueryToken& t) {
    switch (t.kind) {
      case Tok::kEnd:
        return "the end";
      case Tok::kString:
        return "the string '" + t.text + "'";
      case Tok::kQuotedIdent:
        return "`" + t.text + "`";
      default:
        return "'" + t.text + "'";
    }
  }

  // ---- token stream ----

  const QueryToken& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const QueryToken& Prev() const { return tokens_[pos_ == 0 ? 0 : pos_ - 1]; }
  const QueryToken& Next() {
    const QueryToken& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool PeekKeyword(std::string_view keyword, size_t ahead = 0) const {
    const QueryToken& t = Peek(ahead);
    return t.kind == Tok::kIdent && EqualsIgnoreCase(t.text, keyword);
  }
  // Where a missing thing was expected: the next token, which is the end of the text at the end.
  size_t HerePos() const { return Peek().kind == Tok::kEnd ? text_.size() : Peek().pos; }
  // "after X" and, unless at the end, ", found Y".
  std::string AfterFound() const {
    std::string s = " after " + Describe(Prev());
    if (Peek().kind != Tok::kEnd) s += ", found " + Describe(Peek());
    return s;
  }

  // ---- grammar ----

  Result<Query> ParseOr() {
    std::vector<Query> children;
    GRIDSTORE_ASSIGN_OR_RETURN(Query first, ParseAnd());
    children.push_back(std::move(first));
    while (PeekKeyword("or")) {
      Next();
      GRIDSTORE_ASSIGN_OR_RETURN(Query q, ParseAnd());
      children.push_back(std::move(q));
    }
    return children.size() == 1 ? children[0] : QueryBuilder::Or(std::move(children));
  }

  Result<Query> ParseAnd() {
    std::vector<Query> children;
    GRIDSTORE_ASSIGN_OR_RETURN(Query first, ParseNot());
    children.push_back(std::move(first));
    while (PeekKeyword("and")) {
      Next();
      GRIDSTORE_ASSIGN_OR_RETURN(Query q, ParseNot());
      children.push_back(std::move(q));
    }
    return children.size() == 1 ? children[0] : QueryBuilder::And(std::move(children));
  }

  // Counts one level of '(' or 'not' for as long as it lives. The parser recurses once per level,
  // so 20,000 '(' would overflow the stack without a limit.
  class Nesting {
   public:
    explicit Nesting(int* depth) : depth_(depth) { ++*depth_; }
    ~Nesting() { --*depth_; }
    Nesting(const Nesting&) = delete;
    Nesting& operator=(const Nesting&) = delete;

   private:
    int* depth_;
  };

  Status TooDeep(size_t pos) const {
    return Error(pos, "the expression nests '(' and 'not' more than " +
                          std::to_string(kMaxQueryDepth) + " deep (the limit)");
  }

  Result<Query> ParseNot() {
    if (PeekKeyword("not")) {
      const size_t at = Next().pos;
      Nesting nesting(&depth_);
      if (depth_ > kMaxQueryDepth) return TooDeep(at);
      GRIDSTORE_ASSIGN_OR_RETURN(Query q, ParseNot());
      return QueryBuilder::Not(std::move(q));
    }
    if (Peek().kind == Tok::kLParen) {
      const size_t open = Next().pos;
      Nesting nesting(&depth_);
      if (depth_ > kMaxQueryDepth) return TooDeep(open);
      GRIDSTORE_ASSIGN_OR_RETURN(Query q, ParseOr());
      if (Peek().kind != Tok::kRParen) {
        if (Peek().kind == Tok::kEnd) {
          return Error(text_.size(), "missing ')' to close the '(' at column " +
                                         std::to_string(internal_grid::ColumnOf(text_, open)));
        }
        return Error(Peek().pos, "expected 'and', 'or' or ')'" + AfterFound());
      }
      Next();
      return q;
    }
    return ParseCondition();
  }

  Result<Query> ParseCondition() {
    const QueryToken& field_token = Peek();
    if (PeekKeyword("exists") &&
        (Peek(1).kind == Tok::kIdent || Peek(1).kind == Tok::kQuotedIdent)) {
      return Error(field_token.pos, "write 'FIELD exists' (the field comes first), not 'exists " +
                                        Peek(1).text + "'");
    }
    if (std::optional<Result<Query>> range = TryParseRange()) return std::move(*range);
    if (IsConstant()) return EqualsIgnoreCase(Next().text, "true") ? Query() : QueryBuilder::Or({});
    if (!IsField(field_token)) {
      std::string what = "expected a condition (an attribute name, 'not' or '(')";
      if (pos_ > 0) what += " after " + Describe(Prev());
      if (field_token.kind != Tok::kEnd) what += ", found " + Describe(field_token);
      if (field_token.kind == Tok::kIdent) {
        what += "; put an attribute named like a keyword in `backquotes`";
      }
      return Error(HerePos(), what);
    }
    Next();
    return ParseFieldCondition(field_token.text);
  }

  // 'true' or 'false' standing alone as a condition; followed by an operator they are more
  // likely an attribute so named, which must be in backquotes (ParseCondition says so).
  bool IsConstant() const {
    if (!PeekKeyword("true") && !PeekKeyword("false")) return false;
    return Peek(1).kind != Tok::kOp && !PeekKeyword("in", 1) && !PeekKeyword("not", 1) &&
           !PeekKeyword("prefix", 1) && !PeekKeyword("exists", 1);
  }

  // LOWER ('<' | '<=') FIELD ('<' | '<=') UPPER, if the tokens start that way (nothing is
  // consumed otherwise, so that other errors keep their message).
  std::optional<Result<Query>> TryParseRange() {
    const QueryToken& first = Peek();
    if (!MayStartValue(first)) return std::nullopt;
    const size_t start = pos_;
    Result<QueryValue> lower = ParseValue();
    // "nan < x" compares an attribute called nan; "nan < x < 1" is a range.
    const bool word = first.kind == Tok::kIdent && IsValueWord(first.text);
    if (!lower.ok() || !IsLess(Peek()) || !IsField(Peek(1)) || (word && !IsLess(Peek(2)))) {
      pos_ = start;
      return std::nullopt;
    }
    const bool include_lower = Next().text == "<=";
    const std::string field = Next().text;
    if (!IsLess(Peek())) {
      return Error(HerePos(), "expected '<' or '<='" + AfterFound() +
                                  " (a range is written LOWER < FIELD < UPPER)");
    }
    const bool include_upper = Next().text == "<=";
    GRIDSTORE_ASSIGN_OR_RETURN(QueryValue upper, ParseValue());
    return QueryBuilder::Range(field, std::move(lower).value(), std::move(upper), include_lower,
                               include_upper);
  }

  // What follows FIELD in a condition.
  Result<Query> ParseFieldCondition(const std::string& field) {
    const QueryToken& op = Peek();
    if (op.kind == Tok::kOp) {
      Next();
      GRIDSTORE_ASSIGN_OR_RETURN(QueryValue value, ParseValue());
      if (op.text == "=" || op.text == "==") return QueryBuilder::Equal(field, std::move(value));
      if (op.text == "!=" || op.text == "<>") {
        return QueryBuilder::NotEqual(field, std::move(value));
      }
      if (op.text == "<") return QueryBuilder::LessThan(field, std::move(value));
      if (op.text == "<=") return QueryBuilder::LessEqual(field, std::move(value));
      if (op.text == ">") return QueryBuilder::GreaterThan(field, std::move(value));
      return QueryBuilder::GreaterEqual(field, std::move(value));  // ">="
    }
    if (PeekKeyword("in")) {
      Next();
      GRIDSTORE_ASSIGN_OR_RETURN(std::vector<QueryValue> values, ParseList());
      return QueryBuilder::In(field, std::move(values));
    }
    if (PeekKeyword("not")) {
      Next();
      if (!PeekKeyword("in")) return Error(HerePos(), "expected 'in'" + AfterFound());
      Next();
      GRIDSTORE_ASSIGN_OR_RETURN(std::vector<QueryValue> values, ParseList());
      return QueryBuilder::Not(QueryBuilder::In(field, std::move(values)));
    }
    if (PeekKeyword("prefix")) {
      Next();
      if (Peek().kind != Tok::kString) {
        return Error(HerePos(), "expected a quoted string" + AfterFound());
      }
      return QueryBuilder::Prefix(field, Next().text);
    }
    if (PeekKeyword("exists")) {
      Next();
      return QueryBuilder::Exists(field);
    }
    return Error(
        HerePos(),
        "expected an operator (=, !=, <, <=, >, >=, in, not in, prefix or exists)" + AfterFound());
  }

  // '(' value (',' value)* ')', after 'in'.
  Result<std::vector<QueryValue>> ParseList() {
    if (Peek().kind != Tok::kLParen) return Error(HerePos(), "expected '('" + AfterFound());
    const size_t open = Next().pos;
    if (Peek().kind == Tok::kRParen) {
      return Error(Peek().pos, "an 'in' list needs at least one value");
    }
    std::vector<QueryValue> values;
    while (true) {
      GRIDSTORE_ASSIGN_OR_RETURN(QueryValue v, ParseValue());
      values.push_back(std::move(v));
      if (Peek().kind == Tok::kComma) {
        Next();
        continue;
      }
      if (Peek().kind == Tok::kRParen) {
        Next();
        return values;
      }
      if (Peek().kind == Tok::kEnd) {
        return Error(text_.size(), "missing ')' to close the 'in' list at column " +
                                       std::to_string(internal_grid::ColumnOf(text_, open)));
      }
      return Error(Peek().pos, "expected ',' or ')' in the 'in' list" + AfterFound());
    }
  }

  // A number lexeme: int64 if it has no fraction or exponent, else a finite double.
  Result<QueryValue> NumberValue(const QueryToken& t, bool negative) {
    std::string_view s = t.text;
    size_t i = 0;
    auto digits = [&] {
      size_t start = i;
      while (i < s.size() && IsDigit(s[i])) ++i;
      return i > start;
    };
    bool ok = digits();
    bool integer = true;
    if (ok && i < s.size() && s[i] == '.') {
      ++i;
      integer = false;
      ok = digits();
    }
    if (ok && i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
      ++i;
      integer = false;
      if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
      ok = digits();
    }
    if (!ok || i != s.size()) {
      return Error(t.pos, "bad number '" + t.text + "' (quote string values: '" + t.text + "')");
    }
    const std::string full = (negative ? "-" : "") + t.text;
    if (integer) {
      int64_t v = 0;
      auto [end, ec] = std::from_chars(full.data(), full.data() + full.size(), v);
      if (ec != std::errc() || end != full.data() + full.size()) {
        return Error(t.pos, "integer " + full + " is out of the int64 range");
      }
      return QueryValue(v);
    }
    double d = 0;
    auto [end, ec] = std::from_chars(full.data(), full.data() + full.size(), d);
    if (ec != std::errc() || end != full.data() + full.size() || !std::isfinite(d)) {
      return Error(t.pos, "number " + full + " is out of the double range");
    }
    return QueryValue(d);
  }

  Result<QueryValue> ParseValue() {
    const QueryToken& t = Peek();
    switch (t.kind) {
      case Tok::kString:
        Next();
        return QueryValue(t.text);
      case Tok::kNumber:
        Next();
        return NumberValue(t, false);
      case Tok::kMinus:
        Next();
        if (PeekKeyword("inf")) {
          Next();
          return QueryValue(-std::numeric_limits<double>::infinity());
        }
        if (Peek().kind != Tok::kNumber) {
          return Error(HerePos(), "expected a number" + AfterFound());
        }
        return NumberValue(Next(), true);
      case Tok::kIdent:
        return ParseWordValue();
      default:
        break;
    }
    return Error(HerePos(), "expected a value" + AfterFound());
  }

  // true, false, nan, inf or a relative time.
  Result<QueryValue> ParseWordValue() {
    const QueryToken& t = Peek();
    if (EqualsIgnoreCase(t.text, "true") || EqualsIgnoreCase(t.text, "false")) {
      Next();
      return QueryValue(EqualsIgnoreCase(t.text, "true"));
    }
    if (EqualsIgnoreCase(t.text, "nan")) {
      Next();
      return QueryValue(std::numeric_limits<double>::quiet_NaN());
    }
    if (EqualsIgnoreCase(t.text, "inf")) {
      Next();
      return QueryValue(std::numeric_limits<double>::infinity());
    }
    if (EqualsIgnoreCase(t.text, "now")) {
      Next();
      return ParseRelativeTime();
    }
    if (!IsKeyword(t.text)) {
      return Error(t.pos, "expected a value" + AfterFound() + " (quote strings: '" + t.text + "')");
    }
    return Error(HerePos(), "expected a value" + AfterFound());
  }

  // One ('+' | '-') AMOUNT UNIT step of a relative time, added to *ms and (while whole) *exact.
  Status ParseTimeStep(double* ms, int64_t* exact, bool* exact_ok) {
    const bool minus = Next().kind == Tok::kMinus;
    if (Peek().kind != Tok::kNumber) {
      return Error(HerePos(), "expected an amount of time (like 1 day)" + AfterFound());
    }
    const QueryToken& amount_token = Next();
    // The unit may be glued to the amount ("1day") or follow it ("1 day").
    std::string number = amount_token.text;
    std::string unit;
    size_t unit_pos = 0;
    size_t split = 0;
    while (split < number.size() && (IsDigit(number[split]) || number[split] == '.')) ++split;
    if (split < number.size() && IsIdentStart(number[split]) && split > 0) {
      unit = number.substr(split);
      unit_pos = amount_token.pos + split;
      number.resize(split);
    } else if (Peek().kind == Tok::kIdent) {
      unit = Peek().text;
      unit_pos = Peek().pos;
      Next();
    } else {
      return Error(HerePos(), "expected a time unit (ms, s, min, h, d or w)" + AfterFound());
    }
    QueryToken number_token = amount_token;
    number_token.text = number;
    GRIDSTORE_ASSIGN_OR_RETURN(QueryValue amount, NumberValue(number_token, false));
    const int64_t unit_ms = UnitMillis(unit);
    if (unit_ms == 0) {
      return Error(unit_pos, "unknown time unit '" + unit + "' (use ms, s, min, h, d or w)");
    }
    const bool whole = std::holds_alternative<int64_t>(amount);
    const double delta = whole ? static_cast<double>(std::get<int64_t>(amount)) * unit_ms
                               : std::get<double>(amount) * unit_ms;
    *ms += minus ? -delta : delta;
    if (whole && *exact_ok) {
      int64_t d = 0;
      *exact_ok = !__builtin_mul_overflow(std::get<int64_t>(amount), unit_ms, &d) &&
                  !(minus ? __builtin_sub_overflow(*exact, d, exact)
                          : __builtin_add_overflow(*exact, d, exact));
    } else {
      *exact_ok = false;
    }
    if (!(std::fabs(*ms) < 9.2e18)) {
      return Error(amount_token.pos, "the time is out of the int64 millisecond range");
    }
    return Status::OK();
  }

  // After 'now': (('+' | '-') AMOUNT UNIT)*, in milliseconds since the epoch.
  Result<QueryValue> ParseRelativeTime() {
    double ms = static_cast<double>(now_ms_);
    int64_t exact = now_ms_;
    bool exact_ok = true;
    while (Peek().kind == Tok::kPlus || Peek().kind == Tok::kMinus) {
      GRIDSTORE_RETURN_IF_ERROR(ParseTimeStep(&ms, &exact, &exact_ok));
    }
    // Whole amounts stay exact; fractional ones ("1.5 h") round to the millisecond.
    return QueryValue(exact_ok ? exact : static_cast<int64_t>(std::llround(ms)));
  }

  std::string_view text_;
  int64_t now_ms_;
  std::vector<QueryToken> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;  // '(' and 'not' open around the current token
};
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

}  // namespace

Result<Query> ParseQuery(std::string_view text, int64_t now_ms) {
  return Parser(text, now_ms).Parse();
}

Result<Query> ParseQuery(std::string_view text) {
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  return ParseQuery(text, now_ms);
}

Result<std::vector<SortField>> ParseSortFields(std::string_view text, std::string_view what) {
  std::vector<SortField> keys;
  // One grammar for the command, the service and Python (issue 29, 4.7): an empty list is a
  // mistake (a variable that expanded to nothing), not "no order".
  if (Trim(text).empty()) {
    return Status::InvalidArgument(std::string(what) + " is empty; name a field, or leave it out");
  }
  const std::vector<std::string> items = SplitList(text, ',');
  if (items.size() != size_t(std::count(text.begin(), text.end(), ',')) + 1) {
    return Status::InvalidArgument(std::string(what) + " " + Quote(text) + " has an empty name");
  }
  for (const std::string& item : items) {
    SortField key;
    key.field = item;
    const size_t colon = item.rfind(':');
    if (colon != std::string::npos) {
      key.field = item.substr(0, colon);
      const std::string order = item.substr(colon + 1);
      if (order == "desc") {
        key.order = SortOrder::kDescending;
      } else if (order != "asc") {
        return Status::InvalidArgument(std::string(what) + " " + Quote(item) +
                                       ": the order must be asc or desc");
      }
    }
    if (key.field.empty()) {
      return Status::InvalidArgument(std::string(what) + " " + Quote(item) +
                                     ": the field name is empty");
    }
    keys.push_back(std::move(key));
  }
  return keys;
}

}  // namespace gridstore::grid
