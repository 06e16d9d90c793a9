// Copyright 2026 The GridStore Authors.
#include "tools/cli_parse.h"

#include "tests/test_util.h"

namespace gridstore::tools {
namespace {

TEST(CliParseTest, Shape4AcceptsFourIntegers) {
  ASSERT_OK_AND_ASSIGN(grid::Shape4 s, ParseShape4("2,5,10,10", "--origin"));
  EXPECT_EQ(s, (grid::Shape4{2, 5, 10, 10}));
  ASSERT_OK_AND_ASSIGN(s, ParseShape4("-1,0,0,+3", "--origin"));  // range checks come later
  EXPECT_EQ(s[0], -1);
}

TEST(CliParseTest, MalformedShape4NamesTheFlagAndTheProblem) {
  EXPECT_STATUS(ParseShape4("1,2,3", "--origin"), kInvalidArgument, "--origin '1,2,3'",
                "3 value(s); expected 4");
  EXPECT_STATUS(ParseShape4("1,2,3,4,5", "--shape"), kInvalidArgument, "--shape", "more than 4");
  EXPECT_STATUS(ParseShape4("1,x,3,4", "--origin"), kInvalidArgument, "'x' is not an integer");
  EXPECT_STATUS(ParseShape4("1,,3,4", "--origin"), kInvalidArgument, "'' is not an integer");
  EXPECT_STATUS(ParseShape4("", "--origin"), kInvalidArgument, "--origin");
  EXPECT_STATUS(ParseShape4("1.5,2,3,4", "--origin"), kInvalidArgument, "'1.5'");
}

TEST(CliParseTest, BlockShape) {
  ASSERT_OK_AND_ASSIGN(auto b, ParseBlockShape("128x512"));
  EXPECT_EQ(b.first, 128);
  EXPECT_EQ(b.second, 512);
  EXPECT_STATUS(ParseBlockShape("128"), kInvalidArgument, "not XxY");
  EXPECT_STATUS(ParseBlockShape("0x5"), kInvalidArgument, "[1, 1048576]");
  EXPECT_STATUS(ParseBlockShape("5x-5"), kInvalidArgument, "[1, 1048576]");
}

TEST(CliParseTest, AttributeTypesAreInferred) {
  ASSERT_OK_AND_ASSIGN(auto a, ParseAttribute("source=ECMWF"));
  EXPECT_EQ(a.first, "source");
  EXPECT_EQ(a.second, grid::AttributeValue::String("ECMWF"));
  ASSERT_OK_AND_ASSIGN(a, ParseAttribute("run=2026112100"));
  EXPECT_EQ(a.second, grid::AttributeValue::Int64(2026112100));
  ASSERT_OK_AND_ASSIGN(a, ParseAttribute("res=0.25"));
  EXPECT_EQ(a.second, grid::AttributeValue::Double(0.25));
  ASSERT_OK_AND_ASSIGN(a, ParseAttribute("ok=true"));
  EXPECT_EQ(a.second, grid::AttributeValue::Bool(true));
  ASSERT_OK_AND_ASSIGN(a, ParseAttribute("code='0042'"));
  EXPECT_EQ(a.second, grid::AttributeValue::String("0042"));
  ASSERT_OK_AND_ASSIGN(a, ParseAttribute("note=a=b"));
  EXPECT_EQ(a.second, grid::AttributeValue::String("a=b"));
  EXPECT_STATUS(ParseAttribute("novalue"), kInvalidArgument, "not KEY=VALUE");
  EXPECT_STATUS(ParseAttribute("=x"), kInvalidArgument, "not KEY=VALUE");
}

// Issue "data safety": run=01 became the integer 1. Values are typed like JSON literals.
TEST(CliParseTest, AttributeNumbersFollowTheJsonGrammar) {
  auto value = [](const std::string& v) {
    auto a = ParseAttribute("k=" + v);
    EXPECT_TRUE(a.ok()) << v << ": " << a.status();
    return a.ok() ? a->second : grid::AttributeValue::String("<error>");
  };
  using grid::AttributeValue;
  EXPECT_EQ(value("0"), AttributeValue::Int64(0));
  EXPECT_EQ(value("-0"), AttributeValue::Int64(0));
  EXPECT_EQ(value("7"), AttributeValue::Int64(7));
  EXPECT_EQ(value("-12"), AttributeValue::Int64(-12));
  EXPECT_EQ(value("9223372036854775807"), AttributeValue::Int64(INT64_MAX));
  EXPECT_EQ(value("-9223372036854775808"), AttributeValue::Int64(INT64_MIN));
  EXPECT_EQ(value("01"), AttributeValue::String("01"));
  EXPECT_EQ(value("-01"), AttributeValue::String("-01"));
  EXPECT_EQ(value("00"), AttributeValue::String("00"));
  EXPECT_EQ(value("+1"), AttributeValue::String("+1"));
  EXPECT_EQ(value("1e3"), AttributeValue::Double(1000));
  EXPECT_EQ(value("-2.5E-1"), AttributeValue::Double(-0.25));
  EXPECT_EQ(value("0.5"), AttributeValue::Double(0.5));
  EXPECT_EQ(value("-0.0"), AttributeValue::Double(-0.0));
  EXPECT_EQ(value("01.5"), AttributeValue::String("01.5"));
  EXPECT_EQ(value(".5"), AttributeValue::String(".5"));
  EXPECT_EQ(value("1."), AttributeValue::String("1."));
  EXPECT_EQ(value("1e"), AttributeValue::String("1e"));
  EXPECT_EQ(value("0x10"), AttributeValue::String("0x10"));
  EXPECT_EQ(value("inf"), AttributeValue::String("inf"));
  EXPECT_EQ(value("nan"), AttributeValue::String("nan"));
  EXPECT_EQ(value("-"), AttributeValue::String("-"));
  EXPECT_EQ(value(""), AttributeValue::String(""));
  EXPECT_EQ(value("'42'"), AttributeValue::String("42"));
  EXPECT_EQ(value("True"), AttributeValue::String("True"));
  EXPECT_STATUS(ParseAttribute("k=99999999999999999999"), kInvalidArgument,
                "--attr 'k=99999999999999999999'", "out of the int64 range",
                "k='99999999999999999999'");
  EXPECT_STATUS(ParseAttribute("k=-9223372036854775809"), kInvalidArgument, "int64 range");
  EXPECT_STATUS(ParseAttribute("k=1e999"), kInvalidArgument, "out of the double range");
}

TEST(CliParseTest, IntegerFlagsAndNameLists) {
  ASSERT_OK_AND_ASSIGN(int64_t n, ParseIntegerFlag("8", "--threads", 1, 1024));
  EXPECT_EQ(n, 8);
  EXPECT_STATUS(ParseIntegerFlag("0", "--threads", 1, 1024), kInvalidArgument,
                "--threads '0' is out of range; expected an integer in [1, 1024]");
  EXPECT_STATUS(ParseIntegerFlag("-1", "--threads", 1, 1024), kInvalidArgument, "'-1'",
                "out of range");
  EXPECT_STATUS(ParseIntegerFlag("100000", "--threads", 1, 1024), kInvalidArgument, "out of range");
  EXPECT_STATUS(ParseIntegerFlag("99999999999999999999", "--limit", 0, INT64_MAX), kInvalidArgument,
                "out of range");
  EXPECT_STATUS(ParseIntegerFlag("4x", "--limit", 0, 10), kInvalidArgument, "is not an integer");
  EXPECT_STATUS(ParseIntegerFlag("", "--limit", 0, 10), kInvalidArgument, "is not an integer");

  ASSERT_OK_AND_ASSIGN(auto names, ParseNameList("T,ps", "--variables"));
  EXPECT_EQ(names, (std::vector<std::string>{"T", "ps"}));
  EXPECT_STATUS(ParseNameList("", "--variables"), kInvalidArgument, "--variables is empty");
  EXPECT_STATUS(ParseNameList("a,,b", "--variables"), kInvalidArgument, "--variables 'a,,b'",
                "empty name");
  EXPECT_STATUS(ParseNameList(",a", "--variables"), kInvalidArgument, "empty name");
  EXPECT_STATUS(ParseNameList("a,", "--variables"), kInvalidArgument, "ends with a comma");
  EXPECT_STATUS(ParseShape4("0,0,99999999999999999999,0", "--origin"), kInvalidArgument,
                "99999999999999999999 is out of the int64 range");
}

TEST(CliParseTest, HumanBytes) {
  EXPECT_EQ(HumanBytes(512), "512 B");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(3.0 * (1 << 30)), "3.0 GiB");
}

}  // namespace
}  // namespace gridstore::tools
