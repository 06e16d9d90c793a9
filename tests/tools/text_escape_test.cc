// Copyright 2026 The GridStore Authors.
#include "tools/text_escape.h"

#include "tests/test_util.h"

namespace gridstore::tools {
namespace {

using namespace std::string_literals;

TEST(TextEscapeTest, EscapeBytesKeepsPrintableTextAndEscapesTheRest) {
  EXPECT_EQ(EscapeBytes("run/1 é 東"), "run/1 é 東");
  EXPECT_EQ(EscapeBytes("\x1b[2Jx\x01\x7f"), "\\x1b[2Jx\\x01\\x7f");
  EXPECT_EQ(EscapeBytes("a\nb\tc"), "a\\x0ab\\x09c");
  EXPECT_EQ(EscapeBytes("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(EscapeBytes("\xc2\x9b"), "\\xc2\\x9b");  // C1 CSI, which terminals obey
  EXPECT_EQ(EscapeBytes("a\\x01"), "a\\\\x01");  // a literal backslash cannot pass for an escape
}

TEST(TextEscapeTest, SanitizeMessageLeavesBackslashesAndOptionallyNewlines) {
  EXPECT_EQ(SanitizeMessage("dataset 'a\\\\b\\x01' is \x1b[31mred", false),
            "dataset 'a\\\\b\\x01' is \\x1b[31mred");
  EXPECT_EQ(SanitizeMessage("line\n  ^", false), "line\\x0a  ^");
  EXPECT_EQ(SanitizeMessage("line\n  ^\xff", true), "line\n  ^\\xff");
}

TEST(TextEscapeTest, IsValidUtf8) {
  EXPECT_TRUE(IsValidUtf8(""));
  EXPECT_TRUE(IsValidUtf8("abc\x01 é 東 \xf0\x9f\x98\x80"));
  EXPECT_FALSE(IsValidUtf8("\xff"));
  EXPECT_FALSE(IsValidUtf8("\xc3"));          // truncated
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));      // overlong
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));  // a surrogate
  EXPECT_EQ(HexBytes("\x00\xff\x10"s), "00ff10");
}

TEST(TextEscapeTest, CsvFieldQuotesOnlyWhenNeeded) {
  EXPECT_EQ(CsvField("T"), "T");
  EXPECT_EQ(CsvField("a,b"), "\"a,b\"");
  EXPECT_EQ(CsvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(CsvField("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(CsvField(" padded"), "\" padded\"");
}

}  // namespace
}  // namespace gridstore::tools
