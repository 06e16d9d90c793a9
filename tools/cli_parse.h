// Copyright 2026 The GridStore Authors.
//
// Parsing of the `gridstore` command's argument values, with errors that name the flag and say
// what was expected.
#ifndef GRIDSTORE_TOOLS_CLI_PARSE_H_
#define GRIDSTORE_TOOLS_CLI_PARSE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "grid/grid_meta.h"
#include "util/result.h"

namespace gridstore::tools {

// "T,Z,X,Y": four comma-separated integers. InvalidArgument naming `flag` otherwise.
Result<grid::Shape4> ParseShape4(std::string_view text, std::string_view flag);
// "XxY" (e.g. "256x256"), both in [1, 1048576].
Result<std::pair<int64_t, int64_t>> ParseBlockShape(std::string_view text);
// "KEY=VALUE". The value's type is inferred: true/false -> bool, an integer -> int64, a number ->
// double, anything else (or a value in single or double quotes) -> string.
Result<std::pair<std::string, grid::AttributeValue>> ParseAttribute(std::string_view text);
// "A,B,C" -> {"A", "B", "C"}; empty items are dropped.
std::vector<std::string> SplitList(std::string_view text);
// 1536 -> "1.5 KiB".
std::string HumanBytes(double bytes);

}  // namespace gridstore::tools

#endif  // GRIDSTORE_TOOLS_CLI_PARSE_H_
