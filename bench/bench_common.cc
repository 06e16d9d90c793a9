// Copyright 2026 The GridStore Authors.
#include "bench/bench_common.h"

#include <netcdf.h>
#include <time.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "gridstore/model/codec_options.h"

namespace gridstore::bench {
namespace {

constexpr int64_t kMaxBlockSide = int64_t{1} << 20;

double Seconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// One side of a block shape: digits only, in [1, kMaxBlockSide].
bool ParseSide(std::string_view text, int64_t* side) {
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, *side);
  return !text.empty() && ec == std::errc() && ptr == end && *side >= 1 && *side <= kMaxBlockSide;
}

bool ParseBlockShape(std::string_view text, int64_t* rows, int64_t* cols) {
  const size_t x = text.find('x');
  return x != std::string_view::npos && ParseSide(text.substr(0, x), rows) &&
         ParseSide(text.substr(x + 1), cols);
}

}  // namespace

void Die(const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", program_invocation_short_name, message.c_str());
  std::exit(1);
}

void Check(const Status& status, const std::string& what) {
  if (!status.ok()) Die(what + ": " + status.ToString());
}

void CheckNc(int rc, const std::string& what) {
  if (rc != NC_NOERR) Die(what + ": " + nc_strerror(rc));
}

double Since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double ThreadCpuSeconds() { return Seconds(CLOCK_THREAD_CPUTIME_ID); }

double ProcessCpuSeconds() { return Seconds(CLOCK_PROCESS_CPUTIME_ID); }

void SetUpCommandLine(CLI::App& app) {
  app.name(program_invocation_short_name);
  app.option_defaults()->always_capture_default();
}

void ParseCommandLine(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help is a ParseError too, one that succeeds: CLI11 prints the help for it.
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) std::exit(app.exit(e));
    Die(std::string(e.what()) + " (usage: " + app.get_name() + " --help)");
  }
}

CLI::Option* AddBlockShapeOption(CLI::App& app, const std::string& name, int64_t* rows,
                                 int64_t* cols, const std::string& description) {
  const std::string shape = std::to_string(*rows) + "x" + std::to_string(*cols);
  CLI::Validator check(
      [](std::string& text) -> std::string {
        int64_t r, c;
        if (ParseBlockShape(text, &r, &c)) return "";
        return "wants ROWSxCOLS, e.g. 256x256, each side in [1, " + std::to_string(kMaxBlockSide) +
               "], not '" + text + "'";
      },
      "ROWSxCOLS");
  return app
      .add_option_function<std::string>(
          name, [rows, cols](const std::string& text) { ParseBlockShape(text, rows, cols); },
          description)
      ->check(check)
      ->default_str(shape);
}

CLI::Validator CodecValidator() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const auto codec = grid::ParseCodecOptions(text);
        return codec.ok() ? "" : "bad codec '" + text + "': " + codec.status().ToString();
      },
      "CODEC");
}

}  // namespace gridstore::bench
