// Copyright 2026 The GridStore Authors.
//
// A hand-written lexer and recursive-descent parser: small, no dependencies, and every error can
// say exactly where it is and what was expected there.
#include "tools/where_parser.h"

#include <charconv>
#include <chrono>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace gridstore::tools {
namespace {

using grid::Query;
using grid::QueryBuilder;
using grid::QueryValue;

enum class Tok : uint8_t {
  kEnd,
  kIdent,
  kQuotedIdent,
  kString,
  kNumber,
  kOp,
  kLParen,
  kRParen,
  kComma,
  kPlus,
  kMinus
};

struct Token {
  Tok kind = Tok::kEnd;
  size_t pos = 0;    // byte offset of the first character
  size_t end = 0;    // one past the last character
  std::string text;  // identifier, operator, number lexeme, or the unescaped string
};

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c) || c == '.'; }

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

constexpr std::string_view kKeywords[] = {"and",    "or",   "not",   "in", "prefix",
                                          "exists", "true", "false", "now"};

bool IsKeyword(std::string_view word) {
  for (std::string_view k : kKeywords) {
    if (EqualsIgnoreCase(word, k)) return true;
  }
  return false;
}

// Milliseconds per unit of a relative time ("now - 2 h"); 0 if `unit` is not one.
int64_t UnitMillis(std::string_view unit) {
  struct Unit {
    std::string_view names[5];
    int64_t ms;
  };
  static constexpr Unit kUnits[] = {
      {{"ms", "msec", "millisecond", "milliseconds", "msecs"}, 1},
      {{"s", "sec", "second", "seconds", "secs"}, 1000},
      {{"min", "minute", "minutes", "mins", ""}, 60'000},
      {{"h", "hour", "hours", "hr", "hrs"}, 3'600'000},
      {{"d", "day", "days", "", ""}, 86'400'000},
      {{"w", "week", "weeks", "wk", "wks"}, 604'800'000},
  };
  for (const Unit& u : kUnits) {
    for (std::string_view name : u.names) {
      if (!name.empty() && EqualsIgnoreCase(unit, name)) return u.ms;
    }
  }
  return 0;
}

// Columns count characters, not bytes, so that the caret lines up under UTF-8 text.
size_t ColumnOf(std::string_view text, size_t pos) {
  size_t column = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++column;
  }
  return column;
}

class Parser {
 public:
  Parser(std::string_view text, int64_t now_ms) : text_(text), now_ms_(now_ms) {}

  Result<Query> Parse() {
    GRIDSTORE_RETURN_IF_ERROR(Lex());
    if (tokens_.front().kind == Tok::kEnd) return Error(0, "the expression is empty");
    GRIDSTORE_ASSIGN_OR_RETURN(Query q, ParseOr());
    const Token& t = Peek();
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
    std::string line(text_);
    for (char& c : line) {
      // Keep the caret under its column, and no control byte reaches the terminal.
      if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
    }
    const size_t column = ColumnOf(text_, pos);
    return Status::InvalidArgument("--where: column " + std::to_string(column) + ": " + what +
                                   "\n  " + line + "\n  " + std::string(column - 1, ' ') + "^");
  }

  static std::string Describe(const Token& t) {
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

  // ---- lexer ----

  // The end of the number starting at `i`: a maximal run, so that "12abc" is one bad number
  // rather than a number and a name.
  size_t NumberEnd(size_t i) const {
    const size_t n = text_.size();
    size_t j = i;
    while (j < n) {
      if (IsIdentChar(text_[j])) {
        ++j;
      } else if ((text_[j] == '+' || text_[j] == '-') &&
                 (text_[j - 1] == 'e' || text_[j - 1] == 'E') && j + 1 < n &&
                 IsDigit(text_[j + 1])) {
        ++j;  // an exponent's sign
      } else {
        break;
      }
    }
    return j;
  }

  // The string whose opening quote is at *i into *t; *i moves past its closing quote.
  Status LexString(size_t* i, Token* t) {
    const size_t n = text_.size();
    const char quote = text_[*i];
    size_t j = *i + 1;
    bool closed = false;
    while (j < n) {
      if (text_[j] == quote) {
        closed = true;
        ++j;
        break;
      }
      if (text_[j] == '\\') {
        if (j + 1 >= n) break;
        const char e = text_[j + 1];
        if (e != '\'' && e != '"' && e != '\\') {
          return Error(j, "unknown escape '\\" + std::string(1, e) +
                              "' in a string (the escapes are \\', \\\" and \\\\)");
        }
        t->text += e;
        j += 2;
        continue;
      }
      t->text += text_[j++];
    }
    if (!closed) {
      return Error(*i, std::string("unterminated string: the ") +
                           (quote == '\'' ? "quote ' " : "quote \" ") + "here is never closed");
    }
    t->kind = Tok::kString;
    *i = j;
    return Status::OK();
  }

  Status Lex() {
    size_t i = 0;
    const size_t n = text_.size();
    while (true) {
      while (i < n &&
             (text_[i] == ' ' || text_[i] == '\t' || text_[i] == '\n' || text_[i] == '\r')) {
        ++i;
      }
      Token t;
      t.pos = i;
      if (i == n) {
        t.end = n;
        tokens_.push_back(std::move(t));
        return Status::OK();
      }
      const char c = text_[i];
      if (IsIdentStart(c)) {
        size_t j = i;
        while (j < n && IsIdentChar(text_[j])) ++j;
        t.kind = Tok::kIdent;
        t.text = std::string(text_.substr(i, j - i));
        i = j;
      } else if (IsDigit(c)) {
        const size_t j = NumberEnd(i);
        t.kind = Tok::kNumber;
        t.text = std::string(text_.substr(i, j - i));
        i = j;
      } else if (c == '\'' || c == '"') {
        GRIDSTORE_RETURN_IF_ERROR(LexString(&i, &t));
      } else if (c == '`') {
        const size_t close = text_.find('`', i + 1);
        if (close == std::string_view::npos) {
          return Error(i, "unterminated name: the backquote here is never closed");
        }
        if (close == i + 1) return Error(i, "an attribute name in backquotes must not be empty");
        t.kind = Tok::kQuotedIdent;
        t.text = std::string(text_.substr(i + 1, close - i - 1));
        i = close + 1;
      } else if (c == '(' || c == ')' || c == ',' || c == '+' || c == '-') {
        t.kind = c == '('   ? Tok::kLParen
                 : c == ')' ? Tok::kRParen
                 : c == ',' ? Tok::kComma
                 : c == '+' ? Tok::kPlus
                            : Tok::kMinus;
        t.text = std::string(1, c);
        ++i;
      } else if (c == '=' || c == '!' || c == '<' || c == '>') {
        const char next = i + 1 < n ? text_[i + 1] : '\0';
        std::string op(1, c);
        if (next == '=' || (c == '<' && next == '>')) op += next;
        if (op == "!") return Error(i, "'!' is not an operator; use '!=' or 'not'");
        t.kind = Tok::kOp;
        t.text = op;
        i += op.size();
      } else {
        std::string ch(text_.substr(i, 1));
        if (static_cast<unsigned char>(c) >= 0x80) {
          size_t j = i + 1;
          while (j < n && (static_cast<unsigned char>(text_[j]) & 0xC0) == 0x80) ++j;
          ch = std::string(text_.substr(i, j - i));
        }
        return Error(i, "unexpected character '" + ch +
                            "' (quote string values, and put odd attribute names in `backquotes`)");
      }
      t.end = i;
      tokens_.push_back(std::move(t));
    }
  }

  // ---- token stream ----

  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& Prev() const { return tokens_[pos_ == 0 ? 0 : pos_ - 1]; }
  const Token& Next() {
    const Token& t = tokens_[pos_];
    if (pos_ + 1 < tokens_.size()) ++pos_;
    return t;
  }
  bool PeekKeyword(std::string_view keyword, size_t ahead = 0) const {
    const Token& t = Peek(ahead);
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
                          std::to_string(kMaxWhereDepth) + " deep (the limit)");
  }

  Result<Query> ParseNot() {
    if (PeekKeyword("not")) {
      const size_t at = Next().pos;
      Nesting nesting(&depth_);
      if (depth_ > kMaxWhereDepth) return TooDeep(at);
      GRIDSTORE_ASSIGN_OR_RETURN(Query q, ParseNot());
      return QueryBuilder::Not(std::move(q));
    }
    if (Peek().kind == Tok::kLParen) {
      const size_t open = Next().pos;
      Nesting nesting(&depth_);
      if (depth_ > kMaxWhereDepth) return TooDeep(open);
      GRIDSTORE_ASSIGN_OR_RETURN(Query q, ParseOr());
      if (Peek().kind != Tok::kRParen) {
        if (Peek().kind == Tok::kEnd) {
          return Error(text_.size(), "missing ')' to close the '(' at column " +
                                         std::to_string(ColumnOf(text_, open)));
        }
        return Error(Peek().pos, "expected 'and', 'or' or ')'" + AfterFound());
      }
      Next();
      return q;
    }
    return ParseCondition();
  }

  Result<Query> ParseCondition() {
    const Token& field_token = Peek();
    if (field_token.kind == Tok::kIdent && EqualsIgnoreCase(field_token.text, "exists") &&
        (Peek(1).kind == Tok::kIdent || Peek(1).kind == Tok::kQuotedIdent)) {
      return Error(field_token.pos, "write 'FIELD exists' (the field comes first), not 'exists " +
                                        Peek(1).text + "'");
    }
    if (!(field_token.kind == Tok::kQuotedIdent ||
          (field_token.kind == Tok::kIdent && !IsKeyword(field_token.text)))) {
      std::string what = "expected a condition (an attribute name, 'not' or '(')";
      if (pos_ > 0) what += " after " + Describe(Prev());
      if (field_token.kind != Tok::kEnd) what += ", found " + Describe(field_token);
      if (field_token.kind == Tok::kIdent) {
        what += "; put an attribute named like a keyword in `backquotes`";
      }
      return Error(HerePos(), what);
    }
    Next();
    const std::string field = field_token.text;
    const Token& op = Peek();
    if (op.kind == Tok::kOp) {
      Next();
      GRIDSTORE_ASSIGN_OR_RETURN(QueryValue value, ParseValue());
      if (op.text == "=" || op.text == "==") return QueryBuilder::Equal(field, std::move(value));
      if (op.text == "!=" || op.text == "<>")
        return QueryBuilder::NotEqual(field, std::move(value));
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
                                       std::to_string(ColumnOf(text_, open)));
      }
      return Error(Peek().pos, "expected ',' or ')' in the 'in' list" + AfterFound());
    }
  }

  // A number lexeme: int64 if it has no fraction or exponent, else a finite double.
  Result<QueryValue> NumberValue(const Token& t, bool negative) {
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
    const Token& t = Peek();
    switch (t.kind) {
      case Tok::kString:
        Next();
        return QueryValue(t.text);
      case Tok::kNumber:
        Next();
        return NumberValue(t, false);
      case Tok::kMinus:
        Next();
        if (Peek().kind != Tok::kNumber)
          return Error(HerePos(), "expected a number" + AfterFound());
        return NumberValue(Next(), true);
      case Tok::kIdent:
        if (EqualsIgnoreCase(t.text, "true") || EqualsIgnoreCase(t.text, "false")) {
          Next();
          return QueryValue(EqualsIgnoreCase(t.text, "true"));
        }
        if (EqualsIgnoreCase(t.text, "now")) {
          Next();
          return ParseRelativeTime();
        }
        if (!IsKeyword(t.text)) {
          return Error(t.pos,
                       "expected a value" + AfterFound() + " (quote strings: '" + t.text + "')");
        }
        break;
      default:
        break;
    }
    return Error(HerePos(), "expected a value" + AfterFound());
  }

  // After 'now': (('+' | '-') AMOUNT UNIT)*, in milliseconds since the epoch.
  Result<QueryValue> ParseRelativeTime() {
    double ms = static_cast<double>(now_ms_);
    int64_t exact = now_ms_;
    bool exact_ok = true;
    while (Peek().kind == Tok::kPlus || Peek().kind == Tok::kMinus) {
      const bool minus = Next().kind == Tok::kMinus;
      if (Peek().kind != Tok::kNumber) {
        return Error(HerePos(), "expected an amount of time (like 1 day)" + AfterFound());
      }
      const Token& amount_token = Next();
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
      Token number_token = amount_token;
      number_token.text = number;
      GRIDSTORE_ASSIGN_OR_RETURN(QueryValue amount, NumberValue(number_token, false));
      const int64_t unit_ms = UnitMillis(unit);
      if (unit_ms == 0) {
        return Error(unit_pos, "unknown time unit '" + unit + "' (use ms, s, min, h, d or w)");
      }
      const double delta = std::holds_alternative<int64_t>(amount)
                               ? static_cast<double>(std::get<int64_t>(amount)) * unit_ms
                               : std::get<double>(amount) * unit_ms;
      ms += minus ? -delta : delta;
      if (std::holds_alternative<int64_t>(amount) && exact_ok) {
        int64_t d = 0;
        exact_ok = !__builtin_mul_overflow(std::get<int64_t>(amount), unit_ms, &d) &&
                   !(minus ? __builtin_sub_overflow(exact, d, &exact)
                           : __builtin_add_overflow(exact, d, &exact));
      } else {
        exact_ok = false;
      }
      if (!(std::fabs(ms) < 9.2e18)) {
        return Error(amount_token.pos, "the time is out of the int64 millisecond range");
      }
    }
    // Whole amounts stay exact; fractional ones ("1.5 h") round to the millisecond.
    return QueryValue(exact_ok ? exact : static_cast<int64_t>(std::llround(ms)));
  }

  std::string_view text_;
  int64_t now_ms_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;  // '(' and 'not' open around the current token
};

}  // namespace

Result<grid::Query> ParseWhere(std::string_view text, int64_t now_ms) {
  return Parser(text, now_ms).Parse();
}

Result<grid::Query> ParseWhere(std::string_view text) {
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  return ParseWhere(text, now_ms);
}

}  // namespace gridstore::tools
