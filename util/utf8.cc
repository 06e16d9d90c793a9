// Copyright 2026 The GridStore Authors.
#include "util/utf8.h"

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

}  // namespace gridstore
