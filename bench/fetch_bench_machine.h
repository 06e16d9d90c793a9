// Copyright 2026 The GridStore Authors.
//
// The machine under the fetch benchmark (bench/fetch_bench.cc): its page cache (dropped before
// every cold run, and how much of a file it still holds), how busy its shared CPUs are, and what
// it is (for the report).
#ifndef GRIDSTORE_BENCH_FETCH_BENCH_MACHINE_H_
#define GRIDSTORE_BENCH_FETCH_BENCH_MACHINE_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>

#include "bench/bench_common.h"

namespace gridstore::bench::fetch {

// Drops the page cache (and dentries and inodes). False if not permitted.
bool DropPageCache();

// Fraction of the bytes of `path` (a file, or every file under a directory) in the page cache.
double ResidentFraction(const std::filesystem::path& path);

// Waits (at most `max_seconds`) until the CPUs were at least `percent` idle for 3 seconds in a
// row; the machine may be shared. Returns the seconds waited, negative if it gave up.
double WaitIdle(int percent, int max_seconds);

// How busy the machine was with other work during a phase: busy CPU time of the whole machine
// (/proc/stat) minus this process's CPU time, per wall second. 0 on an otherwise idle machine;
// 1 means one core was taken by something else all along. Shows which figures were disturbed.
class LoadMeter {
 public:
  LoadMeter();
  // Since construction.
  double OtherCores() const;

 private:
  Clock::time_point start_;
  std::pair<uint64_t, uint64_t> jiffies_;
  double own_;
};

// The value of the first line of `path` that starts with `prefix`: what follows its colon (the
// whole line if it has none); "?" if no line does.
std::string ReadFirstLine(const std::string& path, const std::string& prefix);

// "4.9.0" of nc_inq_libvers()'s "4.9.0 of Aug  7 2022 23:41:41 $".
std::string NetCdfVersion();

// The current time as 2026-01-31T12:00:00Z.
std::string UtcNow();

}  // namespace gridstore::bench::fetch

#endif  // GRIDSTORE_BENCH_FETCH_BENCH_MACHINE_H_
