// Copyright 2026 The GridStore Authors.
#include "tools/cli_parse.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "gridstore/util/internal/strings.h"
#include "tools/text_escape.h"

namespace gridstore::tools {

namespace {

enum class IntParse { kOk, kNotInteger, kOutOfRange };

// An optional sign and digits; nothing else.
IntParse ParseInt64(std::string_view text, int64_t* value) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return IntParse::kNotInteger;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
  if (end != text.data() + text.size()) return IntParse::kNotInteger;
  if (ec == std::errc::result_out_of_range) return IntParse::kOutOfRange;
  return ec == std::errc() ? IntParse::kOk : IntParse::kNotInteger;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// The JSON number grammar, -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?. *integer is set if it
// has neither fraction nor exponent.
bool IsJsonNumber(std::string_view s, bool* integer) {
  size_t i = 0;
  if (i < s.size() && s[i] == '-') ++i;
  if (i == s.size()) return false;
  if (s[i] == '0') {
    ++i;
  } else if (IsDigit(s[i])) {
    while (i < s.size() && IsDigit(s[i])) ++i;
  } else {
    return false;
  }
  *integer = true;
  if (i < s.size() && s[i] == '.') {
    *integer = false;
    const size_t start = ++i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i == start) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    *integer = false;
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    const size_t start = i;
    while (i < s.size() && IsDigit(s[i])) ++i;
    if (i == start) return false;
  }
  return i == s.size();
}

}  // namespace

Result<int64_t> ParseIntegerFlag(std::string_view text, std::string_view flag, int64_t min,
                                 int64_t max) {
  const std::string what = std::string(flag) + " " + Quote(text);
  const std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
  int64_t value = 0;
  switch (ParseInt64(text, &value)) {
    case IntParse::kNotInteger:
      return Status::InvalidArgument(what + " is not an integer; expected one in " + range);
    case IntParse::kOutOfRange:
      return Status::InvalidArgument(what + " is out of range; expected an integer in " + range);
    case IntParse::kOk:
      break;
  }
  if (value < min || value > max) {
    return Status::InvalidArgument(what + " is out of range; expected an integer in " + range);
  }
  return value;
}

Result<std::vector<std::string>> ParseNameList(std::string_view text, std::string_view flag) {
  const std::string_view whole = text;
  std::vector<std::string> items;
  if (text.empty()) {
    return Status::InvalidArgument(std::string(flag) +
                                   " is empty; name at least one, or leave the option out for "
                                   "every one");
  }
  while (true) {
    const size_t comma = text.find(',');
    const std::string_view item = text.substr(0, comma);
    if (item.empty()) {
      return Status::InvalidArgument(std::string(flag) + " '" + EscapeBytes(whole) +
                                     "' has an empty name; expected A,B,... without empty items");
    }
    items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
    if (text.empty()) {
      return Status::InvalidArgument(std::string(flag) + " '" + EscapeBytes(whole) +
                                     "' ends with a comma; expected A,B,... without empty items");
    }
  }
  return items;
}

Result<grid::Shape4> ParseShape4(std::string_view text, std::string_view flag) {
  const std::string what = std::string(flag) + " " + Quote(text);
  grid::Shape4 shape;
  size_t n = 0;
  std::string_view rest = text;
  for (;;) {
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    if (n == 4) {
      return Status::InvalidArgument(what + " has more than 4 values; expected T,Z,X,Y");
    }
    switch (ParseInt64(item, &shape[n])) {
      case IntParse::kNotInteger:
        return Status::InvalidArgument(what + ": '" + EscapeBytes(item) +
                                       "' is not an integer; expected T,Z,X,Y");
      case IntParse::kOutOfRange:
        return Status::InvalidArgument(what + ": " + std::string(item) +
                                       " is out of the int64 range");
      case IntParse::kOk:
        break;
    }
    ++n;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  if (n != 4) {
    return Status::InvalidArgument(what + " has " + std::to_string(n) +
                                   " value(s); expected 4: T,Z,X,Y");
  }
  return shape;
}

Result<std::pair<int64_t, int64_t>> ParseBlockShape(std::string_view text, std::string_view flag) {
  size_t x = text.find('x');
  int64_t bx = 0, by = 0;
  constexpr int64_t kMax = 1 << 20;
  if (x == std::string_view::npos) {
    return Status::InvalidArgument(std::string(flag) + " '" + EscapeBytes(text) +
                                   "' is not XxY (two integers, e.g. 256x256)");
  }
  const IntParse px = ParseInt64(text.substr(0, x), &bx);
  const IntParse py = ParseInt64(text.substr(x + 1), &by);
  if (px == IntParse::kNotInteger || py == IntParse::kNotInteger) {
    return Status::InvalidArgument(std::string(flag) + " '" + EscapeBytes(text) +
                                   "' is not XxY (two integers, e.g. 256x256)");
  }
  if (px == IntParse::kOutOfRange || py == IntParse::kOutOfRange || bx < 1 || by < 1 || bx > kMax ||
      by > kMax) {
    return Status::InvalidArgument(std::string(flag) + " '" + EscapeBytes(text) +
                                   "': each side must be in [1, 1048576]");
  }
  return std::make_pair(bx, by);
}

Result<std::pair<std::string, grid::AttributeValue>> ParseAttribute(std::string_view text) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return Status::InvalidArgument("--attr " + Quote(text) + " is not KEY=VALUE");
  }
  std::string key(text.substr(0, eq));
  std::string_view value = text.substr(eq + 1);
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
      value.back() == value.front()) {
    return std::make_pair(
        key, grid::AttributeValue::String(std::string(value.substr(1, value.size() - 2))));
  }
  if (value == "true" || value == "false") {
    return std::make_pair(key, grid::AttributeValue::Bool(value == "true"));
  }
  bool integer = false;
  if (!IsJsonNumber(value, &integer)) {
    return std::make_pair(key, grid::AttributeValue::String(std::string(value)));
  }
  const char* first = value.data();
  const char* last = value.data() + value.size();
  if (integer) {
    int64_t i = 0;
    auto [end, ec] = std::from_chars(first, last, i);
    if (ec != std::errc() || end != last) {
      return Status::InvalidArgument("--attr " + Quote(text) + ": " + std::string(value) +
                                     " is out of the int64 range (quote it for a string: " +
                                     EscapeBytes(key) + "='" + std::string(value) + "')");
    }
    return std::make_pair(key, grid::AttributeValue::Int64(i));
  }
  double d = 0;
  auto [end, ec] = std::from_chars(first, last, d);
  if (ec != std::errc() || end != last || !std::isfinite(d)) {
    return Status::InvalidArgument("--attr " + Quote(text) + ": " + std::string(value) +
                                   " is out of the double range (quote it for a string: " +
                                   EscapeBytes(key) + "='" + std::string(value) + "')");
  }
  return std::make_pair(key, grid::AttributeValue::Double(d));
}

std::string HumanBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (bytes >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.1f %s", bytes, units[u]);
  return buf;
}

}  // namespace gridstore::tools
