// Copyright 2026 The GridStore Authors.
//
// The query language (the CLI's `gridstore query --where`), parsed into a Query:
//
//   status = 'DONE' and create_time > now - 1 day and (source = 'ECMWF' or source = 'NMC')
//
// Grammar (keywords are case-insensitive; docs/usage.md has the user's version):
//
//   expr      := and_expr ('or' and_expr)*
//   and_expr  := not_expr ('and' not_expr)*
//   not_expr  := 'not' not_expr | '(' expr ')' | condition
//   condition := FIELD ('=' | '==' | '!=' | '<>' | '<' | '<=' | '>' | '>=') value
//              | FIELD ['not'] 'in' '(' value (',' value)* ')'
//              | FIELD 'prefix' STRING
//              | FIELD 'exists'
//              | value ('<' | '<=') FIELD ('<' | '<=') value     (a range: QueryBuilder::Range)
//              | 'true' | 'false'                                (every dataset; none)
//   value     := STRING | NUMBER | 'true' | 'false' | 'nan' | ['-'] 'inf' | time
//   time      := 'now' (('+' | '-') NUMBER UNIT)*      (milliseconds since the epoch, an int64)
//   UNIT      := ms | s | sec | second | min | minute | h | hour | d | day | w | week (and plurals)
//   FIELD     := [A-Za-z_][A-Za-z0-9_.]*  |  `any text` (backquotes, `` for one; for keywords and
//                odd names)
//   STRING    := '...' | "..."   (escapes: \\ \' \" and \xHH for any byte)
//   NUMBER    := [-]digits -> int64; [-]digits[.digits][e[+-]digits] -> double
//
// Precedence: not binds tighter than and, which binds tighter than or. Parentheses and 'not' nest
// at most kMaxQueryDepth deep (together), so that no expression can exhaust the stack.
//
// Query::ToString prints this grammar: ParseQuery(q.ToString()) equals q (Query's operator==) for
// every query QueryBuilder or ParseQuery makes, as long as it nests no deeper than kMaxQueryDepth
// and names no empty field.
#ifndef GRIDSTORE_CATALOG_QUERY_PARSER_H_
#define GRIDSTORE_CATALOG_QUERY_PARSER_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "gridstore/catalog/meta_query.h"
#include "gridstore/util/result.h"

namespace gridstore::grid {

// The deepest nesting of '(' and 'not' an expression may have; deeper is InvalidArgument.
inline constexpr int kMaxQueryDepth = 100;

// Parses `text`; `now_ms` is what `now` stands for (ms since the epoch). InvalidArgument on a
// syntax error: "column C: what is wrong", then the text and a caret under column C, each on its
// own line indented by two spaces. An empty (or all-blank) text is an error.
Result<Query> ParseQuery(std::string_view text, int64_t now_ms);
// As above, with the system clock's now.
Result<Query> ParseQuery(std::string_view text);

// Sort keys "FIELD[:asc|:desc],..." ("" -> none), for `query --sort` and the service's
// `sort=`. InvalidArgument naming `what` (the option or parameter) and the bad item.
Result<std::vector<SortField>> ParseSortFields(std::string_view text, std::string_view what);

}  // namespace gridstore::grid

#endif  // GRIDSTORE_CATALOG_QUERY_PARSER_H_
