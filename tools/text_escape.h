// Copyright 2026 The GridStore Authors.
//
// Making stored bytes safe to print. Dataset ids, variable names and attribute values may hold any
// bytes but NUL (the data model allows it), so a terminal must never get them raw (an escape
// sequence could redraw the screen), JSON must never get bytes that are not UTF-8, and a CSV
// header must never get an unquoted comma. Pure functions; safe from any thread.
#ifndef GRIDSTORE_TOOLS_TEXT_ESCAPE_H_
#define GRIDSTORE_TOOLS_TEXT_ESCAPE_H_

#include <string>
#include <string_view>

#include "gridstore/util/internal/strings.h"

namespace gridstore::tools {

// `bytes` for people, losslessly: printable ASCII and well-formed UTF-8 (from U+00A0) as they
// are, a backslash as `\\`, every other byte (controls, DEL, C1 controls, bytes that are not
// UTF-8) as `\xNN`. The same escaping as the library's messages (EscapeForMessage), so an id
// looks the same in `info` as in an error.
std::string EscapeBytes(std::string_view bytes);

// A message for stderr: like EscapeBytes but a backslash stays as it is (library messages are
// already escaped; this only makes sure nothing raw reaches the terminal), and a newline stays
// only if `keep_newlines` (the --where errors' caret lines).
std::string SanitizeMessage(std::string_view message, bool keep_newlines);

// True if `bytes` is well-formed UTF-8 (what JSON strings must be).
bool IsValidUtf8(std::string_view bytes);

// Lower-case hexadecimal, two digits per byte.
std::string HexBytes(std::string_view bytes);

// One CSV field (RFC 4180), quoted only when needed: the library's, shared with extract's CSV.
using gridstore::CsvField;

}  // namespace gridstore::tools

#endif  // GRIDSTORE_TOOLS_TEXT_ESCAPE_H_
