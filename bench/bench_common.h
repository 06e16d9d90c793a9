// Copyright 2026 The GridStore Authors.
//
// What the benchmark programs in bench/ share: dying with a message, checking a Status, a Result
// or a netCDF return code, the clocks they time with, and a command line (CLI11) that looks and
// fails the same way in every program. Single-threaded use, except Die, Check* and the clocks.
#ifndef GRIDSTORE_BENCH_BENCH_COMMON_H_
#define GRIDSTORE_BENCH_BENCH_COMMON_H_

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <string>
#include <utility>

#include "gridstore/util/result.h"
#include "gridstore/util/status.h"

namespace gridstore::bench {

// ---- Errors ----

// Prints "PROGRAM: message" to stderr (PROGRAM: the name the program was run as) and exits with
// status 1.
[[noreturn]] void Die(const std::string& message);
// Dies with "what: <status>" unless `status` is OK.
void Check(const Status& status, const std::string& what);
// The value of `result`, or dies with "what: <status>".
template <typename T>
T CheckResult(Result<T> result, const std::string& what) {
  Check(result.status(), what);
  return std::move(result).value();
}
// Dies with "what: <netCDF error>" unless rc is NC_NOERR.
void CheckNc(int rc, const std::string& what);

// ---- Clocks ----

using Clock = std::chrono::steady_clock;
// Wall seconds since `start`, on the monotonic clock.
double Since(Clock::time_point start);
// CPU seconds of the calling thread: robust to other processes competing for the cores.
double ThreadCpuSeconds();
// CPU seconds of the whole process, every thread (user + system).
double ProcessCpuSeconds();

// ---- Command line ----

// Names `app` after the program and makes its --help show every option's default.
void SetUpCommandLine(CLI::App& app);
// Parses the arguments into the options of `app`. --help prints the help and exits 0; a usage
// error prints "PROGRAM: what (usage: PROGRAM --help)" and exits 1.
void ParseCommandLine(CLI::App& app, int argc, char** argv);
// Adds option `name` taking a block shape ROWSxCOLS (e.g. 256x256, each side in [1, 2^20]) into
// *rows and *cols; their values are the default.
CLI::Option* AddBlockShapeOption(CLI::App& app, const std::string& name, int64_t* rows,
                                 int64_t* cols, const std::string& description);
// Accepts what grid::ParseCodecOptions accepts (e.g. shuffle-zstd:3), one codec a value.
CLI::Validator CodecValidator();

}  // namespace gridstore::bench

#endif  // GRIDSTORE_BENCH_BENCH_COMMON_H_
