// Copyright 2026 The GridStore Authors.
//
// The shared string helpers: quoting, joining, trimming, splitting and shapes.
#include "gridstore/util/internal/strings.h"

#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace gridstore {
namespace {

TEST(StringsTest, QuoteEscapesWhatATerminalMustNotGetRaw) {
  EXPECT_EQ(Quote("ocean/tos"), "'ocean/tos'");
  EXPECT_EQ(Quote(""), "''");
  EXPECT_EQ(Quote("T\x1b[2J"), "'T\\x1b[2J'");
  EXPECT_EQ(Quote("a\\b"), "'a\\\\b'");
  EXPECT_EQ(Quote(std::string_view("a\0b", 3)), "'a\\x00b'");
  EXPECT_EQ(Quote("\xff"), "'\\xff'");             // not UTF-8
  EXPECT_EQ(Quote("h\xc3\xa9t"), "'h\xc3\xa9t'");  // UTF-8 stays
}

TEST(StringsTest, JoinPutsTheSeparatorBetweenItemsOnly) {
  EXPECT_EQ(Join(std::vector<std::string>{}, ", "), "");
  EXPECT_EQ(Join(std::vector<std::string>{"a"}, ", "), "a");
  EXPECT_EQ(Join(std::vector<std::string>{"a", "b", "c"}, ", "), "a, b, c");
  EXPECT_EQ(Join(std::vector<std::string>{"", ""}, "|"), "|");  // empty items are kept
  const std::array<std::string_view, 2> views = {"x", "y"};
  EXPECT_EQ(Join(views, ""), "xy");
  EXPECT_EQ(Join(std::vector<std::string>{"a", "b\x07"}, ", ", Quote), "'a', 'b\\x07'");
  EXPECT_EQ(Join(std::vector<int>{1, 2}, "+", [](int i) { return std::to_string(i * 10); }),
            "10+20");
}

TEST(StringsTest, TrimRemovesOnlyTheOuterCharacters) {
  EXPECT_EQ(Trim("  a b \t\r\n"), "a b");
  EXPECT_EQ(Trim("\v\fx\f\v"), "x");
  EXPECT_EQ(Trim(""), "");
  EXPECT_EQ(Trim(" \t \n"), "");
  EXPECT_EQ(Trim("abc"), "abc");
  EXPECT_EQ(Trim("\xc2\xa0x"), "\xc2\xa0x");  // a no-break space is not ASCII whitespace
  EXPECT_EQ(Trim("--a-b--", "-"), "a-b");
  EXPECT_EQ(Trim(" \tx\r", " \t"), "x\r");
  const std::string text = "  middle  ";
  const std::string_view trimmed = Trim(text);
  EXPECT_EQ(trimmed.data(), text.data() + 2);  // a view into the text, not a copy
}

TEST(StringsTest, SplitListDropsEmptyItems) {
  EXPECT_EQ(SplitList("a,b,,c"), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(SplitList(",a,"), (std::vector<std::string>{"a"}));
  EXPECT_TRUE(SplitList("").empty());
  EXPECT_TRUE(SplitList(",,,").empty());
  EXPECT_EQ(SplitList("a b;c", ';'), (std::vector<std::string>{"a b", "c"}));
  EXPECT_EQ(SplitList(" a , b "), (std::vector<std::string>{" a ", " b "}));  // not trimmed
}

TEST(StringsTest, ShapesInTheirThreeForms) {
  const std::array<int64_t, 4> shape = {10, 2, 9, 9};
  EXPECT_EQ(ShapeString(shape), "[10, 2, 9, 9]");
  EXPECT_EQ(ShapeString(std::vector<int64_t>{}), "[]");
  EXPECT_EQ(ShapeString(std::vector<int64_t>{-1, 9223372036854775807}),
            "[-1, 9223372036854775807]");
  const std::array<std::string_view, 4> axes = {"t", "z", "x", "y"};
  EXPECT_EQ(ShapeString(shape, axes), "[t=10, z=2, x=9, y=9]");
  const std::array<std::string_view, 2> two = {"t", "z"};
  EXPECT_EQ(ShapeString(shape, two), "[t=10, z=2, 9, 9]");
  EXPECT_EQ(ShapeCross(shape), "10x2x9x9");
  EXPECT_EQ(ShapeCross(std::vector<int64_t>{256, 256}), "256x256");
  EXPECT_EQ(ShapeCross(std::vector<int64_t>{}), "");
}

}  // namespace
}  // namespace gridstore
