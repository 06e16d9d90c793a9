// Copyright 2026 The GridStore Authors.
//
// Test helpers shared by every suite: Status assertions and a scoped temporary directory.
#ifndef GRIDSTORE_TESTS_TEST_UTIL_H_
#define GRIDSTORE_TESTS_TEST_UTIL_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "gridstore/features.h"
#include "gridstore/util/result.h"
#include "gridstore/util/status.h"

namespace gridstore::testing {

inline const Status& GetStatus(const Status& s) { return s; }
template <typename T>
const Status& GetStatus(const Result<T>& r) {
  return r.status();
}

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it on destruction.
class ScopedTempDir {
 public:
  ScopedTempDir();
  ~ScopedTempDir();
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  // path() / name, as a string.
  std::string Sub(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// $GRIDSTORE_TEST_DATA, the folder of real NetCDF files (ctest sets it). Never skipped: a missing
// folder is a test failure saying so, and the result is then empty.
std::filesystem::path RealDataDir();

}  // namespace gridstore::testing

// For the few tests of a mixed file that need a build feature (cmake/GridStoreFeatures.cmake):
// in a build without it, the test has nothing of its own to check (features.command checks the
// stub's sentence). Every feature is built in CI's normal build, where this never returns early.
#define GRIDSTORE_TEST_NEEDS(FEATURE) \
  if (!GRIDSTORE_HAVE_##FEATURE) GTEST_SKIP() << "built without " #FEATURE

#define GRIDSTORE_TEST_CONCAT_INNER_(a, b) a##b
#define GRIDSTORE_TEST_CONCAT_(a, b) GRIDSTORE_TEST_CONCAT_INNER_(a, b)

// Each evaluates `expr` once (a failing write must not be repeated to print its message).
#define ASSERT_OK(expr) ASSERT_OK_IMPL_(GRIDSTORE_TEST_CONCAT_(ok_status_, __LINE__), expr)
#define ASSERT_OK_IMPL_(var, expr)                                         \
  do {                                                                     \
    const ::gridstore::Status var = ::gridstore::testing::GetStatus(expr); \
    ASSERT_TRUE(var.ok()) << var;                                          \
  } while (0)
#define EXPECT_OK(expr) EXPECT_OK_IMPL_(GRIDSTORE_TEST_CONCAT_(ok_status_, __LINE__), expr)
#define EXPECT_OK_IMPL_(var, expr)                                         \
  do {                                                                     \
    const ::gridstore::Status var = ::gridstore::testing::GetStatus(expr); \
    EXPECT_TRUE(var.ok()) << var;                                          \
  } while (0)

// ASSERT_OK_AND_ASSIGN(auto meta, store->GetDataSetMeta("x"));
#define ASSERT_OK_AND_ASSIGN(lhs, rexpr) \
  ASSERT_OK_AND_ASSIGN_IMPL_(GRIDSTORE_TEST_CONCAT_(gridstore_test_result_, __LINE__), lhs, rexpr)
#define ASSERT_OK_AND_ASSIGN_IMPL_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                               \
  ASSERT_TRUE(tmp.ok()) << tmp.status();            \
  lhs = std::move(tmp).value()

// Asserts that `expr` fails with `code` and that its message contains each of the substrings.
#define EXPECT_STATUS(expr, code_, ...)                                    \
  do {                                                                     \
    ::gridstore::Status s_ = ::gridstore::testing::GetStatus(expr);        \
    EXPECT_EQ(s_.code(), ::gridstore::StatusCode::code_) << s_;            \
    /* owned copies: a part may be a temporary such as path.c_str() */     \
    const std::vector<std::string> parts_{"" __VA_OPT__(, ) __VA_ARGS__};  \
    for (const std::string& part_ : parts_)                                \
      EXPECT_THAT(std::string(s_.message()), ::testing::HasSubstr(part_)); \
  } while (0)

#endif  // GRIDSTORE_TESTS_TEST_UTIL_H_
