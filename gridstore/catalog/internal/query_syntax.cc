// Copyright 2026 The GridStore Authors.
//
// A hand-written lexer: small, no dependencies, and every error can say exactly where it is.
#include "gridstore/catalog/internal/query_syntax.h"

#include <utility>

#include "gridstore/util/internal/utf8.h"

namespace gridstore::internal_grid {

namespace {

using Tok = QueryTokenKind;

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

constexpr std::string_view kKeywords[] = {"and",    "or",   "not",   "in", "prefix",
                                          "exists", "true", "false", "now"};

class Lexer {
 public:
  Lexer(std::string_view text, std::vector<QueryToken>* tokens) : text_(text), tokens_(tokens) {}

  Status Lex() {
    const size_t n = text_.size();
    while (true) {
      while (i_ < n &&
             (text_[i_] == ' ' || text_[i_] == '\t' || text_[i_] == '\n' || text_[i_] == '\r')) {
        ++i_;
      }
      QueryToken t;
      t.pos = i_;
      if (i_ == n) {
        t.end = n;
        tokens_->push_back(std::move(t));
        return Status::OK();
      }
      GRIDSTORE_RETURN_IF_ERROR(LexToken(&t));
      t.end = i_;
      tokens_->push_back(std::move(t));
    }
  }

 private:
  Status Error(size_t pos, const std::string& what) const {
    return QuerySyntaxError(text_, pos, what);
  }

  Status LexToken(QueryToken* t) {
    const char c = text_[i_];
    if (IsIdentStart(c)) {
      size_t j = i_;
      while (j < text_.size() && IsIdentChar(text_[j])) ++j;
      t->kind = Tok::kIdent;
      t->text = std::string(text_.substr(i_, j - i_));
      i_ = j;
      return Status::OK();
    }
    if (IsDigit(c)) return LexNumber(t);
    if (c == '\'' || c == '"') return LexString(t);
    if (c == '`') return LexQuotedIdent(t);
    if (c == '(' || c == ')' || c == ',' || c == '+' || c == '-') {
      t->kind = c == '('   ? Tok::kLParen
                : c == ')' ? Tok::kRParen
                : c == ',' ? Tok::kComma
                : c == '+' ? Tok::kPlus
                           : Tok::kMinus;
      t->text = std::string(1, c);
      ++i_;
      return Status::OK();
    }
    if (c == '=' || c == '!' || c == '<' || c == '>') return LexOperator(t);
    std::string ch(text_.substr(i_, 1));
    if (static_cast<unsigned char>(c) >= 0x80) {
      size_t j = i_ + 1;
      while (j < text_.size() && (static_cast<unsigned char>(text_[j]) & 0xC0) == 0x80) ++j;
      ch = std::string(text_.substr(i_, j - i_));
    }
    return Error(i_, "unexpected character '" + ch +
                         "' (quote string values, and put odd attribute names in `backquotes`)");
  }

  // A maximal run, so that "12abc" is one bad number rather than a number and a name.
  Status LexNumber(QueryToken* t) {
    const size_t n = text_.size();
    size_t j = i_;
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
    t->kind = Tok::kNumber;
    t->text = std::string(text_.substr(i_, j - i_));
    i_ = j;
    return Status::OK();
  }

  Status LexString(QueryToken* t) {
    const char quote = text_[i_];
    const size_t n = text_.size();
    size_t j = i_ + 1;
    while (j < n) {
      if (text_[j] == quote) {
        t->kind = Tok::kString;
        i_ = j + 1;
        return Status::OK();
      }
      if (text_[j] != '\\') {
        t->text += text_[j++];
        continue;
      }
      if (j + 1 >= n) break;
      const char e = text_[j + 1];
      if (e == '\'' || e == '"' || e == '\\') {
        t->text += e;
        j += 2;
      } else if (e == 'x') {
        const int hi = j + 2 < n ? HexDigit(text_[j + 2]) : -1;
        const int lo = j + 3 < n ? HexDigit(text_[j + 3]) : -1;
        if (hi < 0 || lo < 0) {
          return Error(j, "the escape '\\x' in a string needs two hex digits (\\x00 to \\xff)");
        }
        t->text += static_cast<char>(hi * 16 + lo);
        j += 4;
      } else {
        return Error(j, "unknown escape '\\" + std::string(1, e) +
                            "' in a string (the escapes are \\', \\\", \\\\ and \\xHH)");
      }
    }
    return Error(i_, std::string("unterminated string: the ") +
                         (quote == '\'' ? "quote ' " : "quote \" ") + "here is never closed");
  }

  // `name`, where `` stands for one backquote.
  Status LexQuotedIdent(QueryToken* t) {
    size_t j = i_ + 1;
    while (true) {
      const size_t close = text_.find('`', j);
      if (close == std::string_view::npos) {
        return Error(i_, "unterminated name: the backquote here is never closed");
      }
      t->text += text_.substr(j, close - j);
      if (close + 1 < text_.size() && text_[close + 1] == '`') {
        t->text += '`';
        j = close + 2;
        continue;
      }
      if (t->text.empty()) return Error(i_, "an attribute name in backquotes must not be empty");
      t->kind = Tok::kQuotedIdent;
      i_ = close + 1;
      return Status::OK();
    }
  }

  Status LexOperator(QueryToken* t) {
    const char c = text_[i_];
    const char next = i_ + 1 < text_.size() ? text_[i_ + 1] : '\0';
    std::string op(1, c);
    if (next == '=' || (c == '<' && next == '>')) op += next;
    if (op == "!") return Error(i_, "'!' is not an operator; use '!=' or 'not'");
    t->kind = Tok::kOp;
    t->text = op;
    i_ += op.size();
    return Status::OK();
  }

  std::string_view text_;
  std::vector<QueryToken>* tokens_;
  size_t i_ = 0;
};

}  // namespace

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c) || c == '.'; }

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (Lower(a[i]) != Lower(b[i])) return false;
  }
  return true;
}

bool IsKeyword(std::string_view word) {
  for (std::string_view k : kKeywords) {
    if (EqualsIgnoreCase(word, k)) return true;
  }
  return false;
}

bool IsValueWord(std::string_view word) {
  return EqualsIgnoreCase(word, "nan") || EqualsIgnoreCase(word, "inf");
}

bool IsBareFieldName(std::string_view name) {
  if (name.empty() || !IsIdentStart(name[0])) return false;
  for (char c : name) {
    if (!IsIdentChar(c)) return false;
  }
  return !IsKeyword(name);
}

void AppendFieldName(std::string_view name, std::string* out) {
  if (IsBareFieldName(name)) {
    out->append(name);
    return;
  }
  out->push_back('`');
  for (char c : name) {
    if (c == '`') out->push_back('`');
    out->push_back(c);
  }
  out->push_back('`');
}

void AppendQuotedString(std::string_view value, std::string* out) {
  out->push_back('"');
  // EscapeForMessage leaves printable ASCII and UTF-8 as they are and writes \\ and \xHH, which
  // the lexer reads back; only the quote is left to escape.
  for (char c : EscapeForMessage(value)) {
    if (c == '"') out->push_back('\\');
    out->push_back(c);
  }
  out->push_back('"');
}

size_t ColumnOf(std::string_view text, size_t pos) {
  size_t column = 1;
  for (size_t i = 0; i < pos && i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++column;
  }
  return column;
}

Status QuerySyntaxError(std::string_view text, size_t pos, const std::string& what) {
  std::string line(text);
  for (char& c : line) {
    // Keep the caret under its column, and no control byte reaches the terminal.
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  const size_t column = ColumnOf(text, pos);
  return Status::InvalidArgument("column " + std::to_string(column) + ": " + what + "\n  " + line +
                                 "\n  " + std::string(column - 1, ' ') + "^");
}

Status LexQuery(std::string_view text, std::vector<QueryToken>* tokens) {
  return Lexer(text, tokens).Lex();
}

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

}  // namespace gridstore::internal_grid
