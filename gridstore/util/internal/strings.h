// Copyright 2026 The GridStore Authors.
//
// Small string helpers shared by the library's messages and the `gridstore` command: quoting for
// messages, joining, trimming, splitting comma lists and printing shapes. One copy of each, so
// that every message quotes and prints the same way. Pure functions; safe from any thread.
#ifndef GRIDSTORE_UTIL_INTERNAL_STRINGS_H_
#define GRIDSTORE_UTIL_INTERNAL_STRINGS_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gridstore {

// `bytes` in single quotes, escaped as EscapeForMessage (util/internal/utf8.h) escapes them, so
// that no id or name reaches a terminal raw: Quote("ocean/tos") == "'ocean/tos'",
// Quote("T\x1b") == "'T\\x1b'".
std::string Quote(std::string_view bytes);

// The items (anything a std::string_view can be made from) with `separator` between them:
// Join(std::vector<std::string>{"a", "b"}, ", ") == "a, b"; "" for no items.
template <typename Range>
std::string Join(const Range& items, std::string_view separator) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += separator;
    first = false;
    out += std::string_view(item);
  }
  return out;
}

// As above, each item passed through `format` first: Join(names, ", ", Quote) == "'a', 'b'".
template <typename Range, typename Format>
std::string Join(const Range& items, std::string_view separator, Format&& format) {
  std::string out;
  bool first = true;
  for (const auto& item : items) {
    if (!first) out += separator;
    first = false;
    out += format(item);
  }
  return out;
}

// `text` without the leading and trailing characters that are in `chars` (by default ASCII
// whitespace: space, \t, \n, \v, \f, \r). A view into `text`.
std::string_view Trim(std::string_view text, std::string_view chars = " \t\n\v\f\r");

// The items between `separator`s, empty ones dropped: SplitList("a,b,,c") == {"a", "b", "c"},
// SplitList("") == {}. (Option values that must not have empty items are checked by their
// parsers, which name the option.)
std::vector<std::string> SplitList(std::string_view text, char separator = ',');

// The words of `text` between runs of ASCII whitespace: SplitWhitespace(" a  b\tc ") ==
// {"a", "b", "c"} (CF attributes that list names: `coordinates`, `grid_mapping`).
std::vector<std::string> SplitWhitespace(std::string_view text);

// A shape in a message: ShapeString({10, 2, 9, 9}) == "[10, 2, 9, 9]".
std::string ShapeString(std::span<const int64_t> extents);
// With each extent named: "[t=10, z=2, x=9, y=9]" for names {"t", "z", "x", "y"}. An extent
// without a name (names shorter than extents) is printed bare.
std::string ShapeString(std::span<const int64_t> extents, std::span<const std::string_view> names);
// Decodes %XX escapes, and '+' as a space when `plus_is_space` (query strings), into *out. False
// on a '%' not followed by two hex digits (*out is then incomplete).
bool PercentDecode(std::string_view text, bool plus_is_space, std::string* out);

// The shortest text that reads back as the same double: FormatDouble(0.1) == "0.1",
// FormatDouble(3) == "3"; "nan", "inf", "-inf".
std::string FormatDouble(double value);

// The decimal number at the start of `text` as people write it: an optional sign, digits with an
// optional point, an optional exponent. Not hexadecimal (strtod reads "0x10" as 16: issue 29,
// 4.7), not "inf" or "nan", not a value that overflows. *used (if not null) gets the characters
// it took. nullopt if `text` does not start with such a number.
std::optional<double> ParseDecimal(std::string_view text, size_t* used = nullptr);

// One CSV field (RFC 4180): as is, unless it holds a comma, a double quote, CR or LF, or starts
// or ends with a space; then in double quotes, with each double quote doubled. Every CSV writer
// (fetch's and extract's) quotes through this one function.
std::string CsvField(std::string_view text);

// The compact form of benchmark tables and block sizes: ShapeCross({10, 2, 9, 9}) == "10x2x9x9".
std::string ShapeCross(std::span<const int64_t> extents);

}  // namespace gridstore

#endif  // GRIDSTORE_UTIL_INTERNAL_STRINGS_H_
