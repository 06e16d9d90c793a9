// Copyright 2026 The GridStore Authors.
#include "gridstore/util/internal/utf8.h"

#include <cstdio>

namespace gridstore {

size_t Utf8SequenceLength(std::string_view s, uint32_t* code_point) {
  if (s.empty()) return 0;
  const auto b0 = static_cast<uint8_t>(s[0]);
  if (b0 < 0x80) {
    *code_point = b0;
    return 1;
  }
  size_t n;
  uint32_t cp;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    n = 2;
    cp = b0 & 0x1f;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    n = 3;
    cp = b0 & 0x0f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    n = 4;
    cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (s.size() < n) return 0;
  for (size_t i = 1; i < n; ++i) {
    const auto b = static_cast<uint8_t>(s[i]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  const bool surrogate = cp >= 0xd800 && cp <= 0xdfff;
  if (overlong || surrogate || cp > 0x10ffff) return 0;
  *code_point = cp;
  return n;
}

namespace {

// Length of the well-formed UTF-8 sequence (of a code point >= U+00A0) at the start of `s`, or 0.
// C1 controls (U+0080..U+009F) print as garbage; their bytes are escaped like other controls.
size_t PrintableSequenceLength(std::string_view s) {
  uint32_t cp = 0;
  const size_t n = Utf8SequenceLength(s, &cp);
  return n > 1 && cp >= 0xa0 ? n : 0;
}

}  // namespace

std::string EscapeForMessage(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  while (!bytes.empty()) {
    const auto c = static_cast<uint8_t>(bytes[0]);
    if (c == '\\') {
      out += "\\\\";  // so that a literal "\x00" in a name cannot pass for an escape
      bytes.remove_prefix(1);
    } else if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
      bytes.remove_prefix(1);
    } else if (size_t n = PrintableSequenceLength(bytes); n > 0) {
      out.append(bytes.data(), n);
      bytes.remove_prefix(n);
    } else {
      char buf[5];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
      bytes.remove_prefix(1);
    }
  }
  return out;
}

}  // namespace gridstore
