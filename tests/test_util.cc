// Copyright 2026 The GridStore Authors.
#include "tests/test_util.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <random>

namespace gridstore::testing {

ScopedTempDir::ScopedTempDir() {
  static std::atomic<int> counter{0};
  const char* tmp = std::getenv("TMPDIR");
  std::filesystem::path base = tmp && *tmp ? tmp : "/tmp";
  std::random_device rd;
  for (;;) {
    path_ = base / ("gridstore-test-" + std::to_string(getpid()) + "-" +
                    std::to_string(counter.fetch_add(1)) + "-" + std::to_string(rd() % 100000));
    if (std::filesystem::create_directory(path_)) break;
  }
}

ScopedTempDir::~ScopedTempDir() {
  std::error_code ec;
  std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                               std::filesystem::perm_options::add, ec);
  std::filesystem::remove_all(path_, ec);
}

std::filesystem::path RealDataDir() {
  const char* env = std::getenv("GRIDSTORE_TEST_DATA");
  if (env == nullptr || *env == '\0' || !std::filesystem::is_directory(env)) {
    ADD_FAILURE() << "GRIDSTORE_TEST_DATA must name the folder of real NetCDF files "
                     "(../shared/data beside the project; ctest sets it)";
    return {};
  }
  return env;
}

}  // namespace gridstore::testing
