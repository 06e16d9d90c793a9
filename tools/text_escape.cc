// Copyright 2026 The GridStore Authors.
#include "tools/text_escape.h"

#include <cstdint>
#include <cstdio>

#include "gridstore/model/names.h"
#include "gridstore/util/internal/utf8.h"

namespace gridstore::tools {
namespace {

// Length of the well-formed UTF-8 sequence at the start of `s` (any code point), or 0.
size_t Utf8Length(std::string_view s) {
  uint32_t cp = 0;
  return Utf8SequenceLength(s, &cp);
}

}  // namespace

std::string EscapeBytes(std::string_view bytes) { return gridstore::EscapeForMessage(bytes); }

std::string SanitizeMessage(std::string_view message, bool keep_newlines) {
  std::string out;
  out.reserve(message.size());
  // Only backslashes differ from EscapeForMessage: escape the runs between them and newlines.
  size_t start = 0;
  for (size_t i = 0; i <= message.size(); ++i) {
    const bool end = i == message.size();
    if (!end && message[i] != '\\' && !(keep_newlines && message[i] == '\n')) continue;
    out += gridstore::EscapeForMessage(message.substr(start, i - start));
    if (!end) out.push_back(message[i]);
    start = i + 1;
  }
  return out;
}

bool IsValidUtf8(std::string_view bytes) {
  while (!bytes.empty()) {
    const size_t n = Utf8Length(bytes);
    if (n == 0) return false;
    bytes.remove_prefix(n);
  }
  return true;
}

std::string HexBytes(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * bytes.size());
  for (char c : bytes) {
    const auto b = static_cast<uint8_t>(c);
    out.push_back(kDigits[b >> 4]);
    out.push_back(kDigits[b & 15]);
  }
  return out;
}

}  // namespace gridstore::tools
