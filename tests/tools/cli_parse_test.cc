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
  EXPECT_STATUS(ParseShape4("1,2,3,4,5", "--shape"), kInvalidArgument, "--shape",
                "more than 4");
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

TEST(CliParseTest, SplitListAndHumanBytes) {
  EXPECT_EQ(SplitList("a,b,,c"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_TRUE(SplitList("").empty());
  EXPECT_EQ(HumanBytes(512), "512 B");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(3.0 * (1 << 30)), "3.0 GiB");
}

}  // namespace
}  // namespace gridstore::tools
