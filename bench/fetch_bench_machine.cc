// Copyright 2026 The GridStore Authors.
#include "bench/fetch_bench_machine.h"

#include <fcntl.h>
#include <netcdf.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <fstream>
#include <vector>

namespace gridstore::bench::fetch {
namespace {

// The aggregate CPU line of /proc/stat: idle (idle + iowait) and total jiffies.
std::pair<uint64_t, uint64_t> CpuJiffies() {
  std::ifstream in("/proc/stat");
  std::string cpu;
  in >> cpu;
  uint64_t v, idle = 0, total = 0;
  for (int i = 0; i < 8 && in >> v; ++i) {
    total += v;
    if (i == 3 || i == 4) idle += v;
  }
  return {idle, total};
}

}  // namespace

bool DropPageCache() {
  sync();
  const int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
  if (fd < 0) return false;
  const bool ok = write(fd, "3\n", 2) == 2;
  close(fd);
  return ok;
}

double ResidentFraction(const std::filesystem::path& path) {
  uint64_t resident = 0, total = 0;
  auto add = [&](const std::filesystem::path& file) {
    const int fd = open(file.c_str(), O_RDONLY);
    if (fd < 0) return;
    const uint64_t size = std::filesystem::file_size(file);
    if (size > 0) {
      void* map = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
      if (map != MAP_FAILED) {
        const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
        std::vector<unsigned char> in_core((size + page - 1) / page);
        if (mincore(map, size, in_core.data()) == 0) {
          for (unsigned char c : in_core) resident += (c & 1) ? page : 0;
          total += in_core.size() * page;
        }
        munmap(map, size);
      }
    }
    close(fd);
  };
  if (std::filesystem::is_directory(path)) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(path)) {
      if (e.is_regular_file()) add(e.path());
    }
  } else {
    add(path);
  }
  return total == 0 ? 0.0 : static_cast<double>(resident) / static_cast<double>(total);
}

double WaitIdle(int percent, int max_seconds) {
  if (percent <= 0) return 0;
  const auto start = Clock::now();
  int good = 0;
  auto last = CpuJiffies();
  while (good < 3) {
    if (Since(start) > max_seconds) return -Since(start);
    usleep(1000000);
    const auto now = CpuJiffies();
    const double total = static_cast<double>(now.second - last.second);
    const double idle = total > 0 ? 100.0 * static_cast<double>(now.first - last.first) / total : 0;
    good = idle >= percent ? good + 1 : 0;
    last = now;
  }
  return Since(start);
}

LoadMeter::LoadMeter() : start_(Clock::now()), jiffies_(CpuJiffies()), own_(ProcessCpuSeconds()) {}

double LoadMeter::OtherCores() const {
  const auto now = CpuJiffies();
  const double tick = static_cast<double>(sysconf(_SC_CLK_TCK));
  const double busy =
      static_cast<double>((now.second - jiffies_.second) - (now.first - jiffies_.first)) / tick;
  const double wall = Since(start_);
  return wall > 0 ? std::max(0.0, busy - (ProcessCpuSeconds() - own_)) / wall : 0;
}

std::string ReadFirstLine(const std::string& path, const std::string& prefix) {
  std::ifstream in(path);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) {
      const size_t colon = line.find(':');
      return colon == std::string::npos ? line
                                        : line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "?";
}

std::string NetCdfVersion() {
  const std::string v = nc_inq_libvers();
  return v.substr(0, v.find(' '));
}

std::string UtcNow() {
  const std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

}  // namespace gridstore::bench::fetch
