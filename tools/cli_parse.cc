// Copyright 2026 The GridStore Authors.
#include "tools/cli_parse.h"

#include <charconv>
#include <cstdio>

namespace gridstore::tools {

namespace {

bool ParseInt64(std::string_view text, int64_t* value) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

bool ParseDouble(std::string_view text, double* value) {
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return ec == std::errc() && end == text.data() + text.size() && !text.empty();
}

}  // namespace

std::vector<std::string> SplitList(std::string_view text) {
  std::vector<std::string> items;
  while (!text.empty()) {
    size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    if (!item.empty()) items.emplace_back(item);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return items;
}

Result<grid::Shape4> ParseShape4(std::string_view text, std::string_view flag) {
  const std::string what = std::string(flag) + " '" + std::string(text) + "'";
  grid::Shape4 shape;
  size_t n = 0;
  std::string_view rest = text;
  for (;;) {
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    if (n == 4) {
      return Status::InvalidArgument(what + " has more than 4 values; expected T,Z,X,Y");
    }
    if (!ParseInt64(item, &shape[n])) {
      return Status::InvalidArgument(what + ": '" + std::string(item) +
                                     "' is not an integer; expected T,Z,X,Y");
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

Result<std::pair<int64_t, int64_t>> ParseBlockShape(std::string_view text) {
  size_t x = text.find('x');
  int64_t bx = 0, by = 0;
  if (x == std::string_view::npos || !ParseInt64(text.substr(0, x), &bx) ||
      !ParseInt64(text.substr(x + 1), &by)) {
    return Status::InvalidArgument("--block '" + std::string(text) +
                                   "' is not XxY (two integers, e.g. 256x256)");
  }
  constexpr int64_t kMax = 1 << 20;
  if (bx < 1 || by < 1 || bx > kMax || by > kMax) {
    return Status::InvalidArgument("--block '" + std::string(text) +
                                   "': each side must be in [1, 1048576]");
  }
  return std::make_pair(bx, by);
}

Result<std::pair<std::string, grid::AttributeValue>> ParseAttribute(std::string_view text) {
  size_t eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return Status::InvalidArgument("--attr '" + std::string(text) + "' is not KEY=VALUE");
  }
  std::string key(text.substr(0, eq));
  std::string_view value = text.substr(eq + 1);
  int64_t i;
  double d;
  if (value.size() >= 2 && (value.front() == '\'' || value.front() == '"') &&
      value.back() == value.front()) {
    return std::make_pair(key, grid::AttributeValue::String(std::string(value.substr(1, value.size() - 2))));
  }
  if (value == "true" || value == "false") {
    return std::make_pair(key, grid::AttributeValue::Bool(value == "true"));
  }
  if (ParseInt64(value, &i)) return std::make_pair(key, grid::AttributeValue::Int64(i));
  if (ParseDouble(value, &d)) return std::make_pair(key, grid::AttributeValue::Double(d));
  return std::make_pair(key, grid::AttributeValue::String(std::string(value)));
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
