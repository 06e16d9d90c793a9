// Copyright 2026 The GridStore Authors.
#include "tools/progress.h"

#include "tools/cli_parse.h"

namespace gridstore::tools {

ProgressReporter::ProgressReporter(std::FILE* out, bool terminal)
    : out_(out), terminal_(terminal) {}

void ProgressReporter::Update(int64_t done, int64_t total, const std::string& label) {
  const auto now = std::chrono::steady_clock::now();
  const double fraction = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
  if (terminal_) {
    // Redraw at most 10 times a second, and always at the end.
    if (done < total && drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    drawn_ = true;
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(fraction * kWidth);
    std::string bar(filled, '#');
    bar.append(kWidth - filled, '.');
    std::fprintf(out_, "\r[%s] %3.0f%%  %s / %s  %s/s  %-20.20s", bar.c_str(), fraction * 100,
                 HumanBytes(static_cast<double>(done)).c_str(),
                 HumanBytes(static_cast<double>(total)).c_str(), HumanBytes(rate).c_str(),
                 label.c_str());
    std::fflush(out_);
    return;
  }
  const int decile = static_cast<int>(fraction * 10);
  if (decile == last_decile_) return;
  last_decile_ = decile;
  std::fprintf(out_, "progress: %3d%%  %s of %s  (%s)\n", decile * 10,
               HumanBytes(static_cast<double>(done)).c_str(),
               HumanBytes(static_cast<double>(total)).c_str(), label.c_str());
}

void ProgressReporter::Finish() {
  if (terminal_ && drawn_) std::fputc('\n', out_);
  drawn_ = false;
}

}  // namespace gridstore::tools
