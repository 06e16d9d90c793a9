// Copyright 2026 The GridStore Authors.
//
// The lexical side of the query language (catalog/query_parser.h has the grammar), shared by the
// parser and by Query::ToString, which must print only what the parser reads back: tokens,
// keywords, which attribute names need backquotes, and the form of syntax errors.
#ifndef GRIDSTORE_CATALOG_INTERNAL_QUERY_SYNTAX_H_
#define GRIDSTORE_CATALOG_INTERNAL_QUERY_SYNTAX_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/util/status.h"

namespace gridstore::internal_grid {

enum class QueryTokenKind : uint8_t {
  kEnd,
  kIdent,        // a bare word: an attribute name, a keyword or a value word (nan, inf)
  kQuotedIdent,  // `a name in backquotes`
  kString,       // 'text' or "text"
  kNumber,       // digits, possibly with a fraction, an exponent or (an error) letters
  kOp,           // = == != <> < <= > >=
  kLParen,
  kRParen,
  kComma,
  kPlus,
  kMinus
};

struct QueryToken {
  QueryTokenKind kind = QueryTokenKind::kEnd;
  size_t pos = 0;    // byte offset of the first character
  size_t end = 0;    // one past the last character
  std::string text;  // identifier, operator, number lexeme, or the unescaped string or name
};

// Milliseconds per unit of a relative time ("now - 2 h", retention's "7d"): ms, s, min, h, d, w
// and their long names, case-insensitive; 0 if `unit` is not one.
int64_t UnitMillis(std::string_view unit);

bool IsIdentStart(char c);
bool IsIdentChar(char c);
bool IsDigit(char c);
bool EqualsIgnoreCase(std::string_view a, std::string_view b);

// and, or, not, in, prefix, exists, true, false, now (any case): never attribute names unless
// in backquotes.
bool IsKeyword(std::string_view word);
// nan, inf (any case): values where a value belongs, attribute names elsewhere.
bool IsValueWord(std::string_view word);
// True if `name` can be written without backquotes: [A-Za-z_][A-Za-z0-9_.]* and not a keyword.
bool IsBareFieldName(std::string_view name);
// `name` as the parser reads it back: bare if it can be, else in backquotes (a backquote doubled).
void AppendFieldName(std::string_view name, std::string* out);
// `value` in double quotes: backslash, double quote, control bytes and bytes that are not UTF-8
// escaped (\\, \", \xHH), so that the text is printable and reads back as the same bytes.
void AppendQuotedString(std::string_view value, std::string* out);

// The 1-based column of byte `pos` of `text`, counting characters (UTF-8), not bytes.
size_t ColumnOf(std::string_view text, size_t pos);

// InvalidArgument "column C: what", then `text` and a caret under column C, each on its own line
// indented by two spaces (control bytes shown as spaces).
Status QuerySyntaxError(std::string_view text, size_t pos, const std::string& what);

// Splits `text` into tokens, the last of kind kEnd. InvalidArgument (as QuerySyntaxError) for a
// character that starts no token, an unterminated string or name, or a bad escape.
Status LexQuery(std::string_view text, std::vector<QueryToken>* tokens);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_CATALOG_INTERNAL_QUERY_SYNTAX_H_
