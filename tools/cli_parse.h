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

#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::tools {

// "T,Z,X,Y": four comma-separated integers. InvalidArgument naming `flag` otherwise (also for an
// integer beyond int64).
Result<grid::Shape4> ParseShape4(std::string_view text, std::string_view flag);
// An integer option's value in [min, max]. InvalidArgument naming `flag`, the value and the range
// otherwise (not an integer, out of range, beyond int64).
Result<int64_t> ParseIntegerFlag(std::string_view text, std::string_view flag, int64_t min,
                                 int64_t max);
// "XxY" (e.g. "256x256"), both in [1, 1048576]. Errors name `flag`.
Result<std::pair<int64_t, int64_t>> ParseBlockShape(std::string_view text,
                                                    std::string_view flag = "--block");
// "KEY=VALUE". The value is typed as the same text would be as a JSON value (as `meta put` types
// it), so that a leading zero or a sign never silently turns a code into a number:
//   - in single or double quotes: the string inside;
//   - true / false: bool;
//   - a JSON integer, -?(0|[1-9][0-9]*): int64 (so "-0" is 0); beyond int64 is InvalidArgument;
//   - a JSON number with a fraction or an exponent ("0.25", "1e3", "-2.5E-3"): double; one
//     beyond the double range is InvalidArgument;
//   - anything else ("01", "-01", "+1", ".5", "1.", "0x10", "inf", "nan", "ECMWF"): string.
// InvalidArgument naming --attr if there is no '=' or the key is empty.
Result<std::pair<std::string, grid::AttributeValue>> ParseAttribute(std::string_view text);
// "A,B,C" -> {"A", "B", "C"} for a list of names given with `flag`: an empty list or an empty
// item ("A,,B", "A,") is InvalidArgument naming the flag.
Result<std::vector<std::string>> ParseNameList(std::string_view text, std::string_view flag);
// 1536 -> "1.5 KiB".
std::string HumanBytes(double bytes);

}  // namespace gridstore::tools

#endif  // GRIDSTORE_TOOLS_CLI_PARSE_H_
