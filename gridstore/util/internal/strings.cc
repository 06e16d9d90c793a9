// Copyright 2026 The GridStore Authors.
#include "gridstore/util/internal/strings.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include "gridstore/util/internal/utf8.h"

namespace gridstore {

std::string Quote(std::string_view bytes) { return "'" + EscapeForMessage(bytes) + "'"; }

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool PercentDecode(std::string_view text, bool plus_is_space, std::string* out) {
  out->clear();
  out->reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+' && plus_is_space) {
      *out += ' ';
    } else if (text[i] != '%') {
      *out += text[i];
    } else {
      const int hi = i + 2 < text.size() ? HexValue(text[i + 1]) : -1;
      const int lo = i + 2 < text.size() ? HexValue(text[i + 2]) : -1;
      if (hi < 0 || lo < 0) return false;
      *out += static_cast<char>(hi * 16 + lo);
      i += 2;
    }
  }
  return true;
}

std::string FormatDouble(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  return std::string(buf, ec == std::errc() ? end : buf);
}

std::vector<std::string> SplitWhitespace(std::string_view s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
    size_t j = i;
    while (j < s.size() && !std::isspace(static_cast<unsigned char>(s[j]))) ++j;
    if (j > i) out.emplace_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string_view Trim(std::string_view text, std::string_view chars) {
  const size_t begin = text.find_first_not_of(chars);
  if (begin == std::string_view::npos) return text.substr(text.size());
  const size_t end = text.find_last_not_of(chars);
  return text.substr(begin, end - begin + 1);
}

std::vector<std::string> SplitList(std::string_view text, char separator) {
  std::vector<std::string> items;
  while (!text.empty()) {
    const size_t at = text.find(separator);
    const std::string_view item = text.substr(0, at);
    if (!item.empty()) items.emplace_back(item);
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  return items;
}

std::string ShapeString(std::span<const int64_t> extents) {
  return ShapeString(extents, std::span<const std::string_view>());
}

std::string ShapeString(std::span<const int64_t> extents, std::span<const std::string_view> names) {
  std::string out = "[";
  for (size_t i = 0; i < extents.size(); ++i) {
    if (i > 0) out += ", ";
    if (i < names.size()) {
      out += names[i];
      out += '=';
    }
    out += std::to_string(extents[i]);
  }
  return out + "]";
}

std::string ShapeCross(std::span<const int64_t> extents) {
  std::string out;
  for (size_t i = 0; i < extents.size(); ++i) {
    if (i > 0) out += 'x';
    out += std::to_string(extents[i]);
  }
  return out;
}

std::string CsvField(std::string_view text) {
  const bool quote = text.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!text.empty() && (text.front() == ' ' || text.back() == ' '));
  if (!quote) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

std::optional<double> ParseDecimal(std::string_view text, size_t* used) {
  size_t i = 0;
  auto digits = [&] {
    const size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i - start;
  };
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  size_t mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return std::nullopt;
  // "0x10": the hexadecimal prefix after a zero is not a number followed by text "x10".
  if (i < text.size() && (text[i] == 'x' || text[i] == 'X')) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    const size_t mark = i++;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) i = mark;  // "5e" is 5 followed by "e" (a unit, say)
  }
  const std::string number(text.substr(0, i));
  const double v = std::strtod(number.c_str(), nullptr);
  if (!std::isfinite(v)) return std::nullopt;
  if (used != nullptr) *used = i;
  return v;
}

}  // namespace gridstore
