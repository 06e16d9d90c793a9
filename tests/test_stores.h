// Copyright 2026 The GridStore Authors.
//
// Where a test keeps its store. Suites that run on more than one backend (the grid property test,
// the importer round trip over ../shared/data) call TestStoreUri; the same source compiled with
// GRIDSTORE_TEST_ON_RADOS (into rados_test) gets a fresh RADOS namespace instead of a directory.
//
// The test cluster: $GRIDSTORE_TEST_RADOS_CONF, else the ceph.conf of the cluster ctest starts
// (GRIDSTORE_TEST_RADOS_DEFAULT_CONF, see tests/CMakeLists.txt); pool $GRIDSTORE_TEST_RADOS_POOL,
// else "gridstore-test".
#ifndef GRIDSTORE_TESTS_TEST_STORES_H_
#define GRIDSTORE_TESTS_TEST_STORES_H_

#include <string>
#include <string_view>

#include "tests/test_util.h"

namespace gridstore::testing {

// The test cluster's configuration file (fails the test if there is none).
std::string RadosTestConf();
std::string RadosTestPool();
// A store URI in a namespace no other store of this run uses: "<label>-<pid>-<n>".
std::string RadosTestUri(std::string_view label);

// RADOS when compiled with GRIDSTORE_TEST_ON_RADOS, else a directory inside `dir` (RocksDB).
inline std::string TestStoreUri(const ScopedTempDir& dir, std::string_view label = "store") {
#ifdef GRIDSTORE_TEST_ON_RADOS
  (void)dir;
  return RadosTestUri(label);
#else
  return dir.Sub(std::string(label));
#endif
}

}  // namespace gridstore::testing

#endif  // GRIDSTORE_TESTS_TEST_STORES_H_
