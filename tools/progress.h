// Copyright 2026 The GridStore Authors.
//
// Progress of a long command on stderr: a redrawn bar on a terminal, plain lines (every 10%)
// otherwise, so that logs of scripted runs stay readable.
#ifndef GRIDSTORE_TOOLS_PROGRESS_H_
#define GRIDSTORE_TOOLS_PROGRESS_H_

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace gridstore::tools {

class ProgressReporter {
 public:
  // `out` is usually stderr; `terminal` says whether to draw a bar.
  ProgressReporter(std::FILE* out, bool terminal);
  // Reports `done` of `total` units (bytes), with a label such as the current variable.
  void Update(int64_t done, int64_t total, const std::string& label);
  // Ends the bar's line.
  void Finish();

 private:
  std::FILE* out_;
  bool terminal_;
  int last_decile_ = -1;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
  bool drawn_ = false;
};

}  // namespace gridstore::tools

#endif  // GRIDSTORE_TOOLS_PROGRESS_H_
