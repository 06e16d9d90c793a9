// Copyright 2026 The GridStore Authors.
#include "tests/test_stores.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>

namespace gridstore::testing {

#ifndef GRIDSTORE_TEST_RADOS_DEFAULT_CONF
#define GRIDSTORE_TEST_RADOS_DEFAULT_CONF ""
#endif

std::string RadosTestConf() {
  const char* env = std::getenv("GRIDSTORE_TEST_RADOS_CONF");
  const std::string conf = env && *env ? env : GRIDSTORE_TEST_RADOS_DEFAULT_CONF;
  if (conf.empty() || !std::filesystem::exists(conf)) {
    ADD_FAILURE() << "no test Ceph cluster: '" << conf << "' does not exist. Start one with "
                  << "`scripts/ceph-test-cluster.sh start DIR --pool gridstore-test` and set "
                  << "GRIDSTORE_TEST_RADOS_CONF=DIR/ceph.conf (ctest starts one itself)";
  }
  return conf;
}

std::string RadosTestPool() {
  const char* env = std::getenv("GRIDSTORE_TEST_RADOS_POOL");
  return env && *env ? env : "gridstore-test";
}

std::string RadosTestUri(std::string_view label) {
  static std::atomic<int> counter{0};
  return "rados://" + RadosTestPool() + "?conf=" + RadosTestConf() +
         "&namespace=" + std::string(label) + "-" + std::to_string(getpid()) + "-" +
         std::to_string(counter.fetch_add(1));
}

}  // namespace gridstore::testing
