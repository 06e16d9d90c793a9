// Copyright 2026 The GridStore Authors.
//
// UTF-8 decoding for messages and output: where a well-formed sequence starts, and bytes made
// printable. Pure functions.
#ifndef GRIDSTORE_UTIL_INTERNAL_UTF8_H_
#define GRIDSTORE_UTIL_INTERNAL_UTF8_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gridstore {

// The length (1 to 4) of the well-formed UTF-8 sequence at the start of `s`, with its code point
// in *code_point; 0 if `s` is empty or does not start with one (a stray continuation byte, an
// overlong form, a surrogate, a code point above U+10FFFF, a truncated sequence).
size_t Utf8SequenceLength(std::string_view s, uint32_t* code_point);

// `bytes` made printable for messages: printable ASCII and UTF-8 kept, '\\' doubled, other
// bytes (controls, C1 controls, malformed UTF-8) as \xNN.
std::string EscapeForMessage(std::string_view bytes);

}  // namespace gridstore

#endif  // GRIDSTORE_UTIL_INTERNAL_UTF8_H_
