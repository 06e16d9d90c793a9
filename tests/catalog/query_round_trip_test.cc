// Copyright 2026 The GridStore Authors.
//
// Query::ToString against ParseQuery, as properties over seeded random inputs:
//   - print, then parse: every query QueryBuilder makes (every condition kind, nesting, names
//     that need backquotes, strings of any bytes, int64 extremes, doubles of every class) reads
//     back equal, and prints the same again;
//   - parse, then print: any text the grammar accepts (any spelling: keyword case, == and <>,
//     single quotes, escapes, extra parentheses, relative times) prints as a fixed point.
// Plus Query's equality and the builders' canonical forms that the round trip relies on.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gridstore/catalog/internal/query_syntax.h"
#include "gridstore/catalog/meta_query.h"
#include "gridstore/catalog/query_parser.h"
#include "tests/test_util.h"

namespace gridstore::grid {
namespace {

using QB = QueryBuilder;

constexpr int64_t kParseNow = 1'700'000'000'000;

// Names: plain, keywords and value words of any case, and names only backquotes can hold.
const char* const kFields[] = {
    "status", "create_time", "a.b_2",     "_x",     "Z",    "day",    "and",  "OR",
    "Not",    "in",          "prefix",    "exists", "TRUE", "false",  "now",  "nan",
    "inf",    "NaN",         "grid type", "a`b",    "`",    "``x`",   "北京", "x\ny",
    "\x01",   "tab\there",   "1abc",      "a-b",    "'q'",  "\"dq\"", "\\",   "id"};

using std::string_view_literals::operator""sv;
const std::string_view kStrings[] = {
    ""sv,         "DONE"sv, "it's"sv,     "say \"hi\""sv, "back\\slash"sv,    "\\x41"sv,
    "北京"sv,     "ü"sv,    "\x7f"sv,     "\x1b[31m"sv,   "\n\t\r"sv,         "a\0b"sv,
    "\xff\xfe"sv, "\xc3"sv, "\xe2\x82"sv, "`"sv,          "and or not ( )"sv, "' OR 1=1 --"sv};

class QueryTextGen {
 public:
  explicit QueryTextGen(uint64_t seed) : rng_(seed) {}

  int Int(int n) { return static_cast<int>(rng_() % static_cast<uint64_t>(n)); }
  bool Chance(int percent) { return Int(100) < percent; }

  std::string Bytes(int max_len, bool allow_nul) {
    std::string s(static_cast<size_t>(Int(max_len + 1)), '\0');
    for (char& c : s) {
      do {
        c = static_cast<char>(rng_() & 0xff);
      } while (c == '\0' && !allow_nul);
    }
    return s;
  }

  std::string Field() {
    if (Chance(15)) {
      std::string s = Bytes(8, /*allow_nul=*/false);
      return s.empty() ? "f" : s;
    }
    return kFields[Int(std::size(kFields))];
  }

  std::string String() {
    if (Chance(30)) return Bytes(10, /*allow_nul=*/true);
    return std::string(kStrings[Int(std::size(kStrings))]);
  }

  int64_t Int64() {
    static const int64_t kSpecial[] = {0,
                                       1,
                                       -1,
                                       42,
                                       std::numeric_limits<int64_t>::max(),
                                       std::numeric_limits<int64_t>::min(),
                                       std::numeric_limits<int64_t>::min() + 1,
                                       kParseNow};
    if (Chance(40)) return kSpecial[Int(std::size(kSpecial))];
    return Chance(50) ? static_cast<int64_t>(rng_()) : Int(2001) - 1000;
  }

  double Double() {
    static const double kSpecial[] = {0.0,
                                      -0.0,
                                      1.0,
                                      -2.5,
                                      3.0,
                                      1e20,
                                      1e300,
                                      -1e-300,
                                      0.1,
                                      9007199254740993.0,
                                      std::numeric_limits<double>::max(),
                                      std::numeric_limits<double>::lowest(),
                                      std::numeric_limits<double>::min(),
                                      std::numeric_limits<double>::denorm_min(),
                                      -std::numeric_limits<double>::denorm_min(),
                                      std::numeric_limits<double>::epsilon(),
                                      std::numeric_limits<double>::infinity(),
                                      -std::numeric_limits<double>::infinity(),
                                      std::numeric_limits<double>::quiet_NaN()};
    if (Chance(40)) return kSpecial[Int(std::size(kSpecial))];
    // Any bit pattern: every exponent, subnormals, NaN payloads.
    const uint64_t bits = rng_();
    double d;
    std::memcpy(&d, &bits, sizeof(d));
    return d;
  }

  QueryValue Value() {
    switch (Int(4)) {
      case 0:
        return String();
      case 1:
        return Int64();
      case 2:
        return Double();
      default:
        return Chance(50);
    }
  }

  Query Condition() {
    const std::string f = Field();
    switch (Int(12)) {
      case 0:
        return QB::Equal(f, Value());
      case 1:
        return QB::NotEqual(f, Value());
      case 2:
        return QB::LessThan(f, Value());
      case 3:
        return QB::LessEqual(f, Value());
      case 4:
        return QB::GreaterThan(f, Value());
      case 5:
        return QB::GreaterEqual(f, Value());
      case 6: {
        std::vector<QueryValue> values;
        const int n = Int(5);  // 0: the builder makes Or({})
        for (int i = 0; i < n; ++i) values.push_back(Value());
        return QB::In(f, std::move(values));
      }
      case 7:
        return QB::Prefix(f, String());
      case 8:
        return QB::Exists(f);
      case 9:
        return QB::Range(f, Value(), Value(), Chance(50), Chance(50));
      case 10:
        return Chance(50) ? QB::All() : QB::Or({});
      default:
        return QB::Not(Condition());
    }
  }

  Query RandomQuery(int depth) {
    if (depth == 0 || Chance(35)) return Condition();
    switch (Int(3)) {
      case 0:
        return QB::Not(RandomQuery(depth - 1));
      default: {
        std::vector<Query> children;
        const int n = Int(5);  // 0 and 1 give the builders' canonical forms
        for (int i = 0; i < n; ++i) children.push_back(RandomQuery(depth - 1));
        return Int(2) == 0 ? QB::And(std::move(children)) : QB::Or(std::move(children));
      }
    }
  }

  // ---- texts in any spelling the grammar accepts ----

  std::string Space() {
    static const char* const kSpaces[] = {" ", "  ", "\t", "\n", "\r\n", " \t "};
    return kSpaces[Int(std::size(kSpaces))];
  }

  std::string AnyCase(std::string_view word) {
    std::string s(word);
    for (char& c : s) {
      if (Chance(30) && c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
    }
    return s;
  }

  std::string FieldText() {
    const std::string f = Field();
    std::string out;
    if (internal_grid::IsBareFieldName(f) && Chance(70)) return f;
    out = "`";
    for (char c : f) {
      if (c == '`') out += '`';
      out += c;
    }
    return out + "`";
  }

  std::string StringText(const std::string& s) {
    const char quote = Chance(50) ? '\'' : '"';
    std::string out(1, quote);
    for (char c : s) {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02x", static_cast<unsigned char>(c));
      if (c == quote || c == '\\') {
        out += Chance(80) ? std::string{'\\', c} : std::string(hex);
      } else if (Chance(15) || (c == '"' && Chance(50))) {
        out += c == '"' || c == '\'' ? std::string{'\\', c} : std::string(hex);
      } else {
        out += c;
      }
    }
    return out + quote;
  }

  std::string NumberText() {
    static const char* const kNumbers[] = {"0",
                                           "-0",
                                           "- 42",
                                           "1e3",
                                           "2.5E-3",
                                           "-0.0",
                                           "1e+2",
                                           "007",
                                           "0.000",
                                           "9223372036854775807",
                                           "-9223372036854775808",
                                           "1.7976931348623157e308",
                                           "4.9e-324",
                                           "123456789.123456789",
                                           "nan",
                                           "NaN",
                                           "inf",
                                           "-inf",
                                           "- INF"};
    if (Chance(50)) return kNumbers[Int(std::size(kNumbers))];
    return std::to_string(Int(100000) - 50000);
  }

  std::string ValueText() {
    switch (Int(5)) {
      case 0:
        return StringText(String());
      case 1:
        return NumberText();
      case 2:
        return AnyCase(Chance(50) ? "true" : "false");
      case 3: {
        static const char* const kTimes[] = {"now",       "now - 1 d",          "NOW+3h",
                                             "now-2days", "now - 90 s + 2 min", "now - 1.5 h"};
        return AnyCase(kTimes[Int(std::size(kTimes))]);
      }
      default:
        return std::to_string(Int64());
    }
  }

  std::string ConditionText() {
    static const char* const kOps[] = {"=", "==", "!=", "<>", "<", "<=", ">", ">="};
    const std::string s = Space();
    switch (Int(7)) {
      case 0:
      case 1:
        return FieldText() + s + kOps[Int(std::size(kOps))] + Space() + ValueText();
      case 2: {
        std::string t = FieldText() + s + AnyCase(Chance(30) ? "not in" : "in") + Space() + "(";
        const int n = 1 + Int(4);
        for (int i = 0; i < n; ++i) t += (i > 0 ? "," + Space() : "") + ValueText();
        return t + ")";
      }
      case 3:
        return FieldText() + s + AnyCase("prefix") + Space() + StringText(String());
      case 4:
        return FieldText() + s + AnyCase("exists");
      case 5:
        return ValueText() + s + (Chance(50) ? "<" : "<=") + Space() + FieldText() + Space() +
               (Chance(50) ? "<" : "<=") + Space() + ValueText();
      default:
        return AnyCase(Chance(50) ? "true" : "false");
    }
  }

  std::string Text(int depth) {
    if (depth == 0 || Chance(35)) {
      std::string c = ConditionText();
      return Chance(10) ? "(" + Space() + c + Space() + ")" : c;
    }
    if (Chance(25)) return AnyCase("not") + Space() + "(" + Text(depth - 1) + ")";
    const std::string op = AnyCase(Chance(50) ? "and" : "or");
    std::string t = "(" + Text(depth - 1) + ")";
    const int n = 1 + Int(3);
    for (int i = 0; i < n; ++i) t += Space() + op + Space() + "(" + Text(depth - 1) + ")";
    return t;
  }

 private:
  std::mt19937_64 rng_;
};

// The text with control bytes shown, for failure messages.
std::string Shown(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    char buf[8];
    if (c < 0x20 || c >= 0x7f) {
      std::snprintf(buf, sizeof(buf), "<%02x>", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

TEST(QueryRoundTripTest, PrintThenParseGivesTheSameQuery) {
  QueryTextGen gen(20260413);
  for (int k = 0; k < 5000; ++k) {
    const Query q = gen.RandomQuery(4);
    const std::string text = q.ToString();
    SCOPED_TRACE("query " + std::to_string(k) + ": " + Shown(text));
    ASSERT_OK_AND_ASSIGN(Query parsed, ParseQuery(text, kParseNow));
    ASSERT_TRUE(parsed == q) << "read back as " << Shown(parsed.ToString());
    ASSERT_EQ(parsed.ToString(), text);
  }
}

TEST(QueryRoundTripTest, ParseThenPrintIsAFixedPoint) {
  QueryTextGen gen(7);
  for (int k = 0; k < 5000; ++k) {
    const std::string text = gen.Text(4);
    SCOPED_TRACE("text " + std::to_string(k) + ": " + Shown(text));
    ASSERT_OK_AND_ASSIGN(Query q, ParseQuery(text, kParseNow));
    const std::string printed = q.ToString();
    ASSERT_OK_AND_ASSIGN(Query again, ParseQuery(printed, kParseNow));
    ASSERT_TRUE(again == q) << "printed as " << Shown(printed) << ", read back as "
                            << Shown(again.ToString());
    ASSERT_EQ(again.ToString(), printed);
  }
}

TEST(QueryRoundTripTest, PrintsTheParsersGrammar) {
  EXPECT_EQ(QB::Exists("x").ToString(), "x exists");
  EXPECT_EQ(QB::Range("x", int64_t{1}, int64_t{2}).ToString(), "1 <= x < 2");
  EXPECT_EQ(QB::Range("x", 1.5, 2.0, false, true).ToString(), "1.5 < x <= 2.0");
  EXPECT_EQ(QB::In("s", {"a", int64_t{1}, true}).ToString(), "s in (\"a\", 1, true)");
  EXPECT_EQ(QB::And({QB::Equal("status", "DONE"), QB::GreaterThan("t", int64_t{17})}).ToString(),
            "(status = \"DONE\" and t > 17)");
  EXPECT_EQ(QB::Not(QB::Or({QB::Prefix("m", "gfs"), QB::Equal("and", -0.0)})).ToString(),
            "not (m prefix \"gfs\" or `and` = -0.0)");
  EXPECT_EQ(QB::All().ToString(), "true");
  EXPECT_EQ(QB::Or({}).ToString(), "false");
  EXPECT_EQ(QB::Equal("a`b", std::string("x\"\\\n\xff", 5)).ToString(),
            "`a``b` = \"x\\\"\\\\\\x0a\\xff\"");
  EXPECT_EQ(QB::Equal("d", std::numeric_limits<double>::quiet_NaN()).ToString(), "d = nan");
  EXPECT_EQ(QB::LessThan("d", -std::numeric_limits<double>::infinity()).ToString(), "d < -inf");
  EXPECT_EQ(QB::Equal("d", 1e300).ToString(), "d = 1e+300");
}

TEST(QueryRoundTripTest, EqualityIsStructural) {
  const Query a = QB::And({QB::Equal("x", int64_t{1}), QB::Exists("y")});
  EXPECT_TRUE(a == QB::And({QB::Equal("x", int64_t{1}), QB::Exists("y")}));
  EXPECT_FALSE(a == QB::And({QB::Exists("y"), QB::Equal("x", int64_t{1})}));  // order counts
  EXPECT_FALSE(a == QB::Or({QB::Equal("x", int64_t{1}), QB::Exists("y")}));
  EXPECT_FALSE(QB::Equal("x", int64_t{1}) == QB::Equal("x", 1.0));  // int64 is not double
  EXPECT_FALSE(QB::Equal("x", 0.0) == QB::Equal("x", -0.0));
  EXPECT_TRUE(QB::Equal("x", std::nan("")) == QB::Equal("x", -std::nan("1")));
  EXPECT_FALSE(QB::Equal("x", "1") == QB::Equal("y", "1"));
  EXPECT_FALSE(QB::Range("x", int64_t{1}, int64_t{2}, true, false) ==
               QB::Range("x", int64_t{1}, int64_t{2}, true, true));
  EXPECT_TRUE(a != QB::All());
}

TEST(QueryRoundTripTest, BuildersMakeCanonicalTrees) {
  const Query x = QB::Equal("x", int64_t{1});
  EXPECT_TRUE(QB::And({}) == QB::All());
  EXPECT_TRUE(QB::And({x}) == x);
  EXPECT_TRUE(QB::Or({x}) == x);
  EXPECT_TRUE(QB::In("x", {}) == QB::Or({}));
  EXPECT_EQ(QB::Or({}).node().op, Query::Op::kOr);
  EXPECT_TRUE(QB::Or({}).node().children.empty());
}

}  // namespace
}  // namespace gridstore::grid
