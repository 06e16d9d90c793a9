// Copyright 2026 The GridStore Authors.
//
// The behaviour every KvStore backend must show, as a value-parameterised suite. A backend's test
// file instantiates it with a factory that opens a fresh store in a given empty directory:
//
//   INSTANTIATE_TEST_SUITE_P(Memory, KvStoreConformanceTest,
//                            ::testing::Values(KvStoreFactory{"Memory", [](const std::string&) {
//                              return Result<std::unique_ptr<storage::KvStore>>(
//                                  storage::NewMemoryKvStore());
//                            }}),
//                            KvStoreFactoryName);
#ifndef GRIDSTORE_TESTS_STORAGE_KV_STORE_CONFORMANCE_H_
#define GRIDSTORE_TESTS_STORAGE_KV_STORE_CONFORMANCE_H_

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <ostream>
#include <string>

#include "gridstore/storage/kv_store.h"
#include "gridstore/util/result.h"
#include "tests/test_util.h"

namespace gridstore::testing {

struct KvStoreFactory {
  // Used as the test name suffix: letters, digits and '_' only.
  std::string name;
  // Opens a new, empty store. A backend with files keeps them at `dir`, a path inside a fresh
  // temporary directory that does not exist yet; others ignore it.
  std::function<Result<std::unique_ptr<storage::KvStore>>(const std::string& dir)> open;
};

inline void PrintTo(const KvStoreFactory& factory, std::ostream* os) { *os << factory.name; }

// Name generator for INSTANTIATE_TEST_SUITE_P.
inline std::string KvStoreFactoryName(const ::testing::TestParamInfo<KvStoreFactory>& info) {
  return info.param.name;
}

class KvStoreConformanceTest : public ::testing::TestWithParam<KvStoreFactory> {
 protected:
  void SetUp() override {
    auto store = GetParam().open(dir_.Sub("store"));
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = std::move(store).value();
  }
  void TearDown() override { store_.reset(); }  // before dir_ goes

  storage::KvStore& store() { return *store_; }

  ScopedTempDir dir_;
  std::unique_ptr<storage::KvStore> store_;
};

}  // namespace gridstore::testing

#endif  // GRIDSTORE_TESTS_STORAGE_KV_STORE_CONFORMANCE_H_
