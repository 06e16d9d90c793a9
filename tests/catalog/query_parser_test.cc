// Copyright 2026 The GridStore Authors.
//
// The query language (ParseQuery, the CLI's --where): every construct, precedence, values,
// relative times, and errors that point at the right column. Queries are rendered here (not with
// Query::ToString) so that these tests pin down the tree the parser builds, with the value types.
// query_round_trip_test.cc checks ToString against the parser.
#include "gridstore/catalog/query_parser.h"

#include <cmath>
#include <limits>
#include <string>

#include "tests/test_util.h"

namespace gridstore::grid {
namespace {

constexpr int64_t kNow = 1'700'000'000'000;

std::string Render(const QueryValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return "'" + *s + "'";
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i) + "i";
  if (const auto* d = std::get_if<double>(&v)) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%gd", *d);
    return buf;
  }
  return std::get<bool>(v) ? "true" : "false";
}

std::string Render(const Query& q) {
  const Query::Node& n = q.node();
  auto list = [&](const char* op) {
    std::string s = std::string(op) + "(";
    for (size_t i = 0; i < n.children.size(); ++i) s += (i ? ", " : "") + Render(n.children[i]);
    return s + ")";
  };
  auto cond = [&](const char* op) { return n.field + " " + op + " " + Render(n.values.at(0)); };
  switch (n.op) {
    case Query::Op::kAll:
      return "ALL";
    case Query::Op::kAnd:
      return list("AND");
    case Query::Op::kOr:
      return list("OR");
    case Query::Op::kNot:
      return "NOT(" + Render(n.children.at(0)) + ")";
    case Query::Op::kEqual:
      return cond("=");
    case Query::Op::kNotEqual:
      return cond("!=");
    case Query::Op::kGreater:
      return cond(">");
    case Query::Op::kGreaterEqual:
      return cond(">=");
    case Query::Op::kLess:
      return cond("<");
    case Query::Op::kLessEqual:
      return cond("<=");
    case Query::Op::kPrefix:
      return cond("prefix");
    case Query::Op::kExists:
      return n.field + " exists";
    case Query::Op::kIn: {
      std::string s = n.field + " in [";
      for (size_t i = 0; i < n.values.size(); ++i) s += (i ? ", " : "") + Render(n.values[i]);
      return s + "]";
    }
    case Query::Op::kRange:
      return Render(n.values.at(0)) + (n.include_lower ? " <= " : " < ") + n.field +
             (n.include_upper ? " <= " : " < ") + Render(n.values.at(1));
  }
  return "?";
}

std::string P(std::string_view text) {
  auto q = ParseQuery(text, kNow);
  if (!q.ok()) return "ERROR: " + std::string(q.status().message());
  return Render(*q);
}

// The error message, which must be InvalidArgument.
std::string E(std::string_view text) {
  auto q = ParseQuery(text, kNow);
  if (q.ok()) return "parsed: " + Render(*q);
  EXPECT_EQ(q.status().code(), StatusCode::kInvalidArgument);
  return std::string(q.status().message());
}

TEST(QueryParserTest, ComparisonOperators) {
  EXPECT_EQ(P("status = 'DONE'"), "status = 'DONE'");
  EXPECT_EQ(P("status == 'DONE'"), "status = 'DONE'");
  EXPECT_EQ(P("status != 'DONE'"), "status != 'DONE'");
  EXPECT_EQ(P("status <> 'DONE'"), "status != 'DONE'");
  EXPECT_EQ(P("x < 3"), "x < 3i");
  EXPECT_EQ(P("x <= 3"), "x <= 3i");
  EXPECT_EQ(P("x > 3"), "x > 3i");
  EXPECT_EQ(P("x >= 3"), "x >= 3i");
  EXPECT_EQ(P("x>=3"), "x >= 3i");  // no spaces needed
}

TEST(QueryParserTest, Values) {
  EXPECT_EQ(P("a = \"double quoted\""), "a = 'double quoted'");
  EXPECT_EQ(P(R"(a = 'it\'s \"x\" \\ y')"), R"(a = 'it's "x" \ y')");
  EXPECT_EQ(P(R"(a = "say \"hi\"")"), R"(a = 'say "hi"')");
  EXPECT_EQ(P("a = ''"), "a = ''");
  EXPECT_EQ(P("a = 'and or not ( )'"), "a = 'and or not ( )'");
  EXPECT_EQ(P("a = '北京'"), "a = '北京'");
  EXPECT_EQ(P("a = -42"), "a = -42i");
  EXPECT_EQ(P("a = - 42"), "a = -42i");
  EXPECT_EQ(P("a = 9223372036854775807"), "a = 9223372036854775807i");
  EXPECT_EQ(P("a = -9223372036854775808"), "a = -9223372036854775808i");
  EXPECT_EQ(P("a = 1.5"), "a = 1.5d");
  EXPECT_EQ(P("a = -0.25"), "a = -0.25d");
  EXPECT_EQ(P("a = 1e3"), "a = 1000d");
  EXPECT_EQ(P("a = 2.5E-3"), "a = 0.0025d");
  EXPECT_EQ(P("a = 1e+2"), "a = 100d");
  EXPECT_EQ(P("a = true"), "a = true");
  EXPECT_EQ(P("a = FALSE"), "a = false");
}

TEST(QueryParserTest, InPrefixExists) {
  EXPECT_EQ(P("source in ('ECMWF', 'NMC')"), "source in ['ECMWF', 'NMC']");
  EXPECT_EQ(P("n in (1)"), "n in [1i]");
  EXPECT_EQ(P("n in (1, 2.5, 'x', true)"), "n in [1i, 2.5d, 'x', true]");
  EXPECT_EQ(P("n not in (1, 2)"), "NOT(n in [1i, 2i])");
  EXPECT_EQ(P("model prefix 'gfs'"), "model prefix 'gfs'");
  EXPECT_EQ(P("tag1 exists"), "tag1 exists");
  EXPECT_EQ(P("not tag1 exists"), "NOT(tag1 exists)");
}

TEST(QueryParserTest, Ranges) {
  EXPECT_EQ(P("1 <= x < 2"), "1i <= x < 2i");
  EXPECT_EQ(P("1 < x <= 2.5"), "1i < x <= 2.5d");
  EXPECT_EQ(P("'a' <= s < \"b\""), "'a' <= s < 'b'");
  EXPECT_EQ(P("-5 < x < -1"), "-5i < x < -1i");
  EXPECT_EQ(P("false <= b <= true"), "false <= b <= true");
  EXPECT_EQ(P("now - 1 d <= t < now"),
            std::to_string(kNow - 86'400'000) + "i <= t < " + std::to_string(kNow) + "i");
  EXPECT_EQ(P("1 < `and` < 2"), "1i < and < 2i");
  EXPECT_EQ(P("not 1 < x < 2"), "NOT(1i < x < 2i)");
  EXPECT_EQ(P("a = 1 and 1 < x < 2 or b = 2"), "OR(AND(a = 1i, 1i < x < 2i), b = 2i)");
  // nan and inf are values where a value belongs, and attribute names elsewhere.
  EXPECT_EQ(P("nan < x < 1"), "nand < x < 1i");
  EXPECT_EQ(P("-inf < x <= inf"), "-infd < x <= infd");
  EXPECT_EQ(P("nan < inf < 3"), "nand < inf < 3i");
  EXPECT_EQ(P("nan < 3"), "nan < 3i");
  EXPECT_EQ(P("inf = nan"), "inf = nand");
}

TEST(QueryParserTest, RangeErrors) {
  EXPECT_THAT(E("1 < x"), ::testing::HasSubstr("column 6: expected '<' or '<=' after 'x' (a range "
                                               "is written LOWER < FIELD < UPPER)"));
  EXPECT_THAT(E("1 < x > 2"), ::testing::HasSubstr("column 7: expected '<' or '<=' after 'x', "
                                                   "found '>'"));
  EXPECT_THAT(E("1 < x <"), ::testing::HasSubstr("column 8: expected a value after '<'"));
  // Not a range at all: the message about conditions, as before ranges existed.
  EXPECT_THAT(E("1 < 2"), ::testing::HasSubstr("column 1: expected a condition (an attribute name, "
                                               "'not' or '('), found '1'"));
  EXPECT_THAT(E("3 = a"), ::testing::HasSubstr("column 1: expected a condition"));
  EXPECT_THAT(E("'x' < y"), ::testing::HasSubstr("column 8: expected '<' or '<='"));
  EXPECT_THAT(E("nan < x"),
              ::testing::HasSubstr("column 7: expected a value after '<', found 'x'"));
}

TEST(QueryParserTest, TrueAndFalseAsConditions) {
  EXPECT_EQ(P("true"), "ALL");
  EXPECT_EQ(P("TRUE"), "ALL");
  EXPECT_EQ(P("false"), "OR()");
  EXPECT_EQ(P("not true"), "NOT(ALL)");
  EXPECT_EQ(P("a = 1 or false"), "OR(a = 1i, OR())");
  EXPECT_EQ(P("(true) and a = 1"), "AND(ALL, a = 1i)");
  // Followed by an operator, they are meant as attribute names, which need backquotes.
  EXPECT_THAT(E("true = 1"),
              ::testing::HasSubstr("column 1: expected a condition (an attribute "
                                   "name, 'not' or '('), found 'true'; put an "
                                   "attribute named like a keyword in `backquotes`"));
  EXPECT_THAT(E("false exists"), ::testing::HasSubstr("`backquotes`"));
  EXPECT_THAT(E("true a"), ::testing::HasSubstr("column 6: expected 'and', 'or' or the end after "
                                                "'true', found 'a'"));
}

TEST(QueryParserTest, NonFiniteDoubles) {
  ASSERT_OK_AND_ASSIGN(Query q, ParseQuery("x in (nan, NaN, inf, INF, -inf)", kNow));
  const auto& v = q.node().values;
  ASSERT_EQ(v.size(), 5u);
  EXPECT_TRUE(std::isnan(std::get<double>(v[0])));
  EXPECT_TRUE(std::isnan(std::get<double>(v[1])));
  EXPECT_EQ(std::get<double>(v[2]), std::numeric_limits<double>::infinity());
  EXPECT_EQ(std::get<double>(v[3]), std::numeric_limits<double>::infinity());
  EXPECT_EQ(std::get<double>(v[4]), -std::numeric_limits<double>::infinity());
  EXPECT_THAT(E("x = -nan"), ::testing::HasSubstr("column 6: expected a number after '-'"));
  // Numbers too large for a double stay an error: infinity is only ever written as inf.
  EXPECT_THAT(E("x = 1e999"), ::testing::HasSubstr("out of the double range"));
}

TEST(QueryParserTest, HexEscapesAndDoubledBackquotes) {
  ASSERT_OK_AND_ASSIGN(Query q, ParseQuery(R"(s = '\x41\x00\xfF\x5c')", kNow));
  EXPECT_EQ(std::get<std::string>(q.node().values.at(0)), std::string("A\0\xff\\", 4));
  EXPECT_EQ(P("`a``b` = 1"), "a`b = 1i");
  EXPECT_EQ(P("```` exists"), "` exists");
  EXPECT_EQ(P("`a\\b` = 1"), "a\\b = 1i");  // no escapes in backquotes but ``
  EXPECT_THAT(E(R"(s = 'a\x4')"), ::testing::HasSubstr("column 7: the escape '\\x' in a string "
                                                       "needs two hex digits"));
  EXPECT_THAT(E(R"(s = 'a\xg0')"), ::testing::HasSubstr("column 7: the escape '\\x'"));
  EXPECT_THAT(E(R"(s = 'a\x)"), ::testing::HasSubstr("column 7: the escape '\\x'"));
  EXPECT_THAT(E("`a`` = 1"), ::testing::HasSubstr("column 1: unterminated name"));
}

TEST(QueryParserTest, FieldNames) {
  EXPECT_EQ(P("_a.b_2 = 1"), "_a.b_2 = 1i");
  EXPECT_EQ(P("`and` = 1"), "and = 1i");
  EXPECT_EQ(P("`grid type / 2` = 'x'"), "grid type / 2 = 'x'");
  EXPECT_EQ(P("`exists` exists"), "exists exists");
  // Units are not keywords: a field may be called "day".
  EXPECT_EQ(P("day = 3"), "day = 3i");
}

TEST(QueryParserTest, ReferenceExample) {
  EXPECT_EQ(P("status = 'DONE' and create_time > 1700000000000 and "
              "(source = 'ECMWF' or source = 'NMC')"),
            "AND(status = 'DONE', create_time > 1700000000000i, "
            "OR(source = 'ECMWF', source = 'NMC'))");
}

TEST(QueryParserTest, PrecedenceNotAndOr) {
  EXPECT_EQ(P("a = 1 or b = 2 and c = 3"), "OR(a = 1i, AND(b = 2i, c = 3i))");
  EXPECT_EQ(P("a = 1 and b = 2 or c = 3"), "OR(AND(a = 1i, b = 2i), c = 3i)");
  EXPECT_EQ(P("not a = 1 and b = 2"), "AND(NOT(a = 1i), b = 2i)");
  EXPECT_EQ(P("not (a = 1 and b = 2)"), "NOT(AND(a = 1i, b = 2i))");
  EXPECT_EQ(P("not not a = 1"), "NOT(NOT(a = 1i))");
  EXPECT_EQ(P("(a = 1 or b = 2) and c = 3"), "AND(OR(a = 1i, b = 2i), c = 3i)");
  EXPECT_EQ(P("((a = 1))"), "a = 1i");
  EXPECT_EQ(P("a = 1 and b = 2 and c = 3 and d = 4"), "AND(a = 1i, b = 2i, c = 3i, d = 4i)");
  EXPECT_EQ(P("a = 1 or b = 2 or c = 3"), "OR(a = 1i, b = 2i, c = 3i)");
}

TEST(QueryParserTest, KeywordsAreCaseInsensitive) {
  EXPECT_EQ(P("NOT a = 1 AND b IN (1) Or c PREFIX 'x' aNd d EXISTS"),
            "OR(AND(NOT(a = 1i), b in [1i]), AND(c prefix 'x', d exists))");
  EXPECT_EQ(P("t > NOW - 1 DAY"), "t > " + std::to_string(kNow - 86'400'000) + "i");
}

TEST(QueryParserTest, RelativeTimes) {
  auto at = [](int64_t ms) { return "t > " + std::to_string(ms) + "i"; };
  EXPECT_EQ(P("t > now"), at(kNow));
  EXPECT_EQ(P("t > now - 1 day"), at(kNow - 86'400'000));
  EXPECT_EQ(P("t > now - 1day"), at(kNow - 86'400'000));
  EXPECT_EQ(P("t > now-2d"), at(kNow - 2 * 86'400'000));
  EXPECT_EQ(P("t > now + 3 h"), at(kNow + 3 * 3'600'000));
  EXPECT_EQ(P("t > now - 90 s"), at(kNow - 90'000));
  EXPECT_EQ(P("t > now - 5 sec"), at(kNow - 5'000));
  EXPECT_EQ(P("t > now - 10 min"), at(kNow - 600'000));
  EXPECT_EQ(P("t > now - 2 hours"), at(kNow - 7'200'000));
  EXPECT_EQ(P("t > now - 1 w"), at(kNow - 604'800'000));
  EXPECT_EQ(P("t > now - 2 weeks"), at(kNow - 2 * 604'800'000));
  EXPECT_EQ(P("t > now - 250 ms"), at(kNow - 250));
  EXPECT_EQ(P("t > now - 1.5 h"), at(kNow - 5'400'000));
  EXPECT_EQ(P("t > now - 1 day + 6 h"), at(kNow - 86'400'000 + 21'600'000));
  EXPECT_EQ(P("t in (now, now - 1 d)"),
            "t in [" + std::to_string(kNow) + "i, " + std::to_string(kNow - 86'400'000) + "i]");
  // The clock overload is close to the system clock.
  auto q = ParseQuery("t > now");
  ASSERT_OK(q.status());
  EXPECT_GT(std::get<int64_t>(q->node().values[0]), kNow);
}

TEST(QueryParserTest, WhitespaceAnywhere) { EXPECT_EQ(P("  \ta\n=\r\n1  "), "a = 1i"); }

// Message, then the text and a caret under `column`.
std::string Msg(int column, const std::string& what, const std::string& text) {
  return "column " + std::to_string(column) + ": " + what + "\n  " + text + "\n  " +
         std::string(column - 1, ' ') + "^";
}

TEST(QueryParserTest, ErrorFormatHasColumnAndCaret) {
  EXPECT_EQ(E("status = 'DONE' and x >"),
            Msg(24, "expected a value after '>'", "status = 'DONE' and x >"));
  EXPECT_EQ(E("status = 'DONE' and x > and"),
            Msg(25, "expected a value after '>', found 'and'", "status = 'DONE' and x > and"));
}

TEST(QueryParserTest, EmptyExpression) {
  EXPECT_THAT(E(""), ::testing::HasSubstr("column 1: the expression is empty"));
  EXPECT_THAT(E("   "), ::testing::HasSubstr("column 1: the expression is empty"));
}

TEST(QueryParserTest, UnclosedQuote) {
  EXPECT_THAT(E("a = 'DONE"), ::testing::StartsWith("column 5: unterminated string"));
  EXPECT_THAT(E("a = \"DONE"), ::testing::StartsWith("column 5: unterminated string"));
  EXPECT_THAT(E("a = 'x\\'"), ::testing::StartsWith("column 5: unterminated string"));
  EXPECT_THAT(E("`a = 1"), ::testing::StartsWith("column 1: unterminated name"));
  EXPECT_THAT(E("`` = 1"), ::testing::HasSubstr("column 1: an attribute name in backquotes"));
}

TEST(QueryParserTest, BadEscape) {
  EXPECT_THAT(E("a = 'x\\ny'"), ::testing::StartsWith("column 7: unknown escape '\\n'"));
  EXPECT_THAT(E("a = 'x\\ny'"), ::testing::HasSubstr("(the escapes are \\', \\\", \\\\ and "
                                                     "\\xHH)"));
}

TEST(QueryParserTest, UnbalancedParentheses) {
  EXPECT_EQ(E("(a = 1 or b = 2"),
            Msg(16, "missing ')' to close the '(' at column 1", "(a = 1 or b = 2"));
  EXPECT_THAT(E("a = 1 and ((b = 2)"), ::testing::HasSubstr("column 19: missing ')' to close the "
                                                            "'(' at column 11"));
  EXPECT_THAT(E("a = 1)"), ::testing::HasSubstr("column 6: ')' has no matching '('"));
  EXPECT_THAT(E("(a = 1))"), ::testing::HasSubstr("column 8: ')' has no matching '('"));
  EXPECT_THAT(E("()"), ::testing::HasSubstr("column 2: expected a condition"));
  EXPECT_THAT(E("(a = 1 b = 2)"),
              ::testing::HasSubstr("column 8: expected 'and', 'or' or ')' after '1', found 'b'"));
}

TEST(QueryParserTest, MissingOperator) {
  EXPECT_THAT(
      E("status 'DONE'"),
      ::testing::HasSubstr("column 8: expected an operator (=, !=, <, <=, >, >=, in, not "
                           "in, prefix or exists) after 'status', found the string 'DONE'"));
  EXPECT_THAT(E("status"), ::testing::HasSubstr("column 7: expected an operator"));
  EXPECT_THAT(E("a ! 1"), ::testing::HasSubstr("column 3: '!' is not an operator"));
  EXPECT_THAT(E("a =< 1"), ::testing::HasSubstr("column 4: expected a value after '=', found '<'"));
  EXPECT_THAT(E("a not prefix 'x'"), ::testing::HasSubstr("column 7: expected 'in' after 'not'"));
}

TEST(QueryParserTest, MissingOrBadValue) {
  EXPECT_THAT(E("status = DONE"),
              ::testing::HasSubstr("column 10: expected a value after '=', found 'DONE' (quote "
                                   "strings: 'DONE')"));
  EXPECT_THAT(E("a = )"), ::testing::HasSubstr("column 5: expected a value after '=', found ')'"));
  EXPECT_THAT(E("a = -"), ::testing::HasSubstr("column 6: expected a number after '-'"));
  EXPECT_THAT(E("a = -'x'"), ::testing::HasSubstr("column 6: expected a number after '-'"));
  EXPECT_THAT(E("m prefix 3"), ::testing::HasSubstr("column 10: expected a quoted string after "
                                                    "'prefix', found '3'"));
  EXPECT_THAT(E("m prefix"), ::testing::HasSubstr("column 9: expected a quoted string"));
}

TEST(QueryParserTest, TrailingGarbage) {
  EXPECT_THAT(
      E("a = 1 b = 2"),
      ::testing::HasSubstr("column 7: expected 'and', 'or' or the end after '1', found 'b'"));
  EXPECT_THAT(E("a = 'x' 'y'"), ::testing::HasSubstr("column 9: expected 'and', 'or' or the end"));
  EXPECT_THAT(E("a = 1 and"),
              ::testing::HasSubstr("column 10: expected a condition (an attribute name, 'not' or "
                                   "'(') after 'and'"));
  EXPECT_THAT(E("a = 1 or or b = 2"), ::testing::HasSubstr("column 10: expected a condition"));
  EXPECT_THAT(E("a = 1 ; b = 2"), ::testing::HasSubstr("column 7: unexpected character ';'"));
  EXPECT_THAT(E("a = 1 & b = 2"), ::testing::HasSubstr("column 7: unexpected character '&'"));
  EXPECT_THAT(E("a = 1 and not"), ::testing::HasSubstr("column 14: expected a condition"));
}

TEST(QueryParserTest, InListErrors) {
  EXPECT_THAT(E("a in ()"),
              ::testing::HasSubstr("column 7: an 'in' list needs at least one value"));
  EXPECT_THAT(E("a in 1, 2"), ::testing::HasSubstr("column 6: expected '(' after 'in', found '1'"));
  EXPECT_THAT(E("a in (1, 2"),
              ::testing::HasSubstr("column 11: missing ')' to close the 'in' list at column 6"));
  EXPECT_THAT(E("a in (1 2)"),
              ::testing::HasSubstr("column 9: expected ',' or ')' in the 'in' list after '1', "
                                   "found '2'"));
  EXPECT_THAT(E("a in (1,)"), ::testing::HasSubstr("column 9: expected a value after ','"));
  EXPECT_THAT(E("a in (,1)"), ::testing::HasSubstr("column 7: expected a value after '('"));
}

TEST(QueryParserTest, BadNumbers) {
  EXPECT_THAT(E("a = 12abc"), ::testing::HasSubstr("column 5: bad number '12abc'"));
  EXPECT_THAT(E("a = 1.2.3"), ::testing::HasSubstr("column 5: bad number '1.2.3'"));
  EXPECT_THAT(E("a = 1."), ::testing::HasSubstr("column 5: bad number '1.'"));
  EXPECT_THAT(E("a = 1e"), ::testing::HasSubstr("column 5: bad number '1e'"));
  EXPECT_THAT(E("a = 9223372036854775808"),
              ::testing::HasSubstr("column 5: integer 9223372036854775808 is out of the int64 "
                                   "range"));
  EXPECT_THAT(E("a = 1e999"), ::testing::HasSubstr("column 5: number 1e999 is out of the double"));
}

TEST(QueryParserTest, KeywordsNeedBackquotesAsFields) {
  EXPECT_THAT(E("and = 1"), ::testing::HasSubstr("column 1: expected a condition (an attribute "
                                                 "name, 'not' or '('), found 'and'; put an "
                                                 "attribute named like a keyword in `backquotes`"));
  EXPECT_THAT(E("exists tag1"),
              ::testing::HasSubstr("column 1: write 'FIELD exists' (the field comes first)"));
}

TEST(QueryParserTest, RelativeTimeErrors) {
  EXPECT_THAT(E("t > now - 1"), ::testing::HasSubstr("column 12: expected a time unit"));
  EXPECT_THAT(E("t > now - 1 fortnight"),
              ::testing::HasSubstr("column 13: unknown time unit 'fortnight'"));
  EXPECT_THAT(E("t > now - 1fortnight"),
              ::testing::HasSubstr("column 12: unknown time unit 'fortnight'"));
  EXPECT_THAT(E("t > now - day"),
              ::testing::HasSubstr("column 11: expected an amount of time (like 1 day) after '-'"));
  EXPECT_THAT(E("t > now - 9999999999999 w"), ::testing::HasSubstr("out of the int64"));
}

// Issue "data safety": 20,000 '(' or 'not' overflowed the stack (SIGSEGV). Nesting up to the
// limit parses; one level more is an error naming the limit, at the '(' or 'not' that crossed it.
TEST(QueryParserTest, NestingDeeperThanTheLimitIsAnErrorNotACrash) {
  auto parens = [](int n) { return std::string(n, '(') + "a = 1" + std::string(n, ')'); };
  auto nots = [](int n) {
    std::string s;
    for (int i = 0; i < n; ++i) s += "not ";
    return s + "a = 1";
  };
  EXPECT_EQ(P(parens(kMaxQueryDepth)), "a = 1i");
  EXPECT_THAT(P(nots(kMaxQueryDepth)), ::testing::StartsWith("NOT(NOT("));
  const std::string limit = "more than " + std::to_string(kMaxQueryDepth) + " deep (the limit)";
  EXPECT_THAT(E(parens(kMaxQueryDepth + 1)),
              ::testing::StartsWith("column " + std::to_string(kMaxQueryDepth + 1) +
                                    ": the expression nests '(' and 'not' " + limit));
  EXPECT_THAT(E(nots(kMaxQueryDepth + 1)), ::testing::HasSubstr(limit));
  // Mixed, and far beyond: what crashed before.
  EXPECT_THAT(E(parens(20000)), ::testing::HasSubstr(limit));
  EXPECT_THAT(E(nots(20000)), ::testing::HasSubstr(limit));
  std::string mixed;
  for (int i = 0; i < 60; ++i) mixed += "not (";
  EXPECT_THAT(E(mixed + "a = 1" + std::string(60, ')')), ::testing::HasSubstr(limit));
  // Depth, not count: many siblings are fine.
  std::string wide = "(a = 1)";
  for (int i = 0; i < 500; ++i) wide += " or (not a = " + std::to_string(i) + ")";
  EXPECT_THAT(P(wide), ::testing::StartsWith("OR("));
}

TEST(QueryParserTest, CaretCountsCharactersNotBytes) {
  // '北京' is 6 bytes but 2 columns.
  EXPECT_EQ(E("a = '北京' b"), Msg(10,
                                   "expected 'and', 'or' or the end after the string '北京', "
                                   "found 'b'",
                                   "a = '北京' b"));
  EXPECT_THAT(E("a = 1 and\tb"), ::testing::HasSubstr("\n  a = 1 and b\n"));
}

}  // namespace
}  // namespace gridstore::grid
