// Copyright 2026 The GridStore Authors.
#include "gridstore/server/query_string.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace gridstore::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(QueryStringTest, DecodesEscapesAndPlus) {
  ASSERT_OK_AND_ASSIGN(std::string s, PercentDecode("POINT(120.5%2030)+x%2Fy%e2%82%AC", true));
  EXPECT_EQ(s, "POINT(120.5 30) x/y\xe2\x82\xac");
  ASSERT_OK_AND_ASSIGN(std::string path, PercentDecode("a+b", false));
  EXPECT_EQ(path, "a+b");  // '+' is a space only in query strings
}

TEST(QueryStringTest, RejectsBadEscapesAndNul) {
  for (const char* bad : {"%", "%2", "%zz", "ab%g1", "%%"}) {
    EXPECT_THAT(PercentDecode(bad, true).status().message(), HasSubstr("percent-encoding")) << bad;
  }
  EXPECT_THAT(PercentDecode("a%00b", true).status().message(), HasSubstr("NUL"));
  EXPECT_THAT(PercentDecode(std::string_view("a\0b", 3), true).status().message(),
              HasSubstr("NUL"));
}

TEST(QueryStringTest, EncodesAllButUnreserved) {
  EXPECT_EQ(PercentEncode("ecmwf/2026-11-25T00Z ~._"), "ecmwf%2F2026-11-25T00Z%20~._");
  ASSERT_OK_AND_ASSIGN(std::string round, PercentDecode(PercentEncode("a/b?c&d=e%\xff"), false));
  EXPECT_EQ(round, "a/b?c&d=e%\xff");
}

TEST(QueryStringTest, SplitsPathBeforeDecoding) {
  ASSERT_OK_AND_ASSIGN(RequestTarget t,
                       ParseTarget("/collections/ocean%2Ftos/position?coords=POINT(1%202)&f=CSV"));
  EXPECT_THAT(t.path, ElementsAre("collections", "ocean/tos", "position"));
  EXPECT_EQ(t.query.at("coords"), "POINT(1 2)");
  EXPECT_EQ(t.query.at("f"), "CSV");
  ASSERT_OK_AND_ASSIGN(RequestTarget root, ParseTarget("/"));
  EXPECT_TRUE(root.path.empty());
  ASSERT_OK_AND_ASSIGN(RequestTarget slash, ParseTarget("//collections//?&&a=&b#frag"));
  EXPECT_THAT(slash.path, ElementsAre("collections"));
  EXPECT_EQ(slash.query.at("a"), "");
  EXPECT_EQ(slash.query.at("b"), "");
}

TEST(QueryStringTest, RejectsRepeatsNamelessAndRelativeTargets) {
  EXPECT_THAT(ParseTarget("/x?z=1&z=2").status().message(), HasSubstr("more than once"));
  EXPECT_THAT(ParseTarget("/x?=1").status().message(), HasSubstr("without a name"));
  EXPECT_THAT(ParseTarget("x").status().message(), HasSubstr("does not start with '/'"));
  EXPECT_THAT(ParseTarget("").status().message(), HasSubstr("does not start with '/'"));
  EXPECT_THAT(ParseTarget("/a%zz").status().message(), HasSubstr("percent-encoding"));
}

}  // namespace
}  // namespace gridstore::server
