// Copyright 2026 The GridStore Authors.
//
// The store-owned cache of what the layers above derive from metas (issue 30: no process-wide
// state; bounded by GridStoreOptions).
#include "gridstore/grid/derived_cache.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>

#include "tests/grid/grid_testutil.h"

namespace gridstore::grid {
namespace {

using Built = Result<std::pair<std::shared_ptr<const std::string>, size_t>>;

DerivedCache::Key KeyOf(std::string name) { return {"d", 7, 1, std::move(name)}; }

TEST(DerivedCacheTest, BuildsOnceThenServesTheSameValue) {
  DerivedCache cache(1000);
  int builds = 0;
  auto build = [&]() -> Built {
    ++builds;
    return std::pair{std::make_shared<const std::string>("grid"), size_t{100}};
  };
  ASSERT_OK_AND_ASSIGN(auto a, cache.GetOrBuild<std::string>(KeyOf("v"), build));
  ASSERT_OK_AND_ASSIGN(auto b, cache.GetOrBuild<std::string>(KeyOf("v"), build));
  EXPECT_EQ(builds, 1);
  EXPECT_EQ(a.get(), b.get());
  EXPECT_EQ(cache.usage(), 100u);
  // Another generation of the meta is another key: a rewritten meta never sees an old grid.
  DerivedCache::Key next = KeyOf("v");
  next.generation = 2;
  ASSERT_OK(cache.GetOrBuild<std::string>(next, build).status());
  EXPECT_EQ(builds, 2);
}

TEST(DerivedCacheTest, EvictsTheLeastRecentlyUsedBeyondItsBudget) {
  DerivedCache cache(250);
  int builds = 0;
  auto build = [&]() -> Built {
    ++builds;
    return std::pair{std::make_shared<const std::string>("x"), size_t{100}};
  };
  ASSERT_OK(cache.GetOrBuild<std::string>(KeyOf("a"), build).status());
  ASSERT_OK(cache.GetOrBuild<std::string>(KeyOf("b"), build).status());
  ASSERT_OK(cache.GetOrBuild<std::string>(KeyOf("a"), build).status());  // a is now the newest
  ASSERT_OK(cache.GetOrBuild<std::string>(KeyOf("c"), build).status());  // evicts b
  EXPECT_EQ(builds, 3);
  EXPECT_LE(cache.usage(), 250u);
  ASSERT_OK(cache.GetOrBuild<std::string>(KeyOf("a"), build).status());
  EXPECT_EQ(builds, 3);
  ASSERT_OK(cache.GetOrBuild<std::string>(KeyOf("b"), build).status());
  EXPECT_EQ(builds, 4);
}

TEST(DerivedCacheTest, ABudgetOfZeroKeepsNothingAndErrorsAreNotCached) {
  DerivedCache none(0);
  int builds = 0;
  auto build = [&]() -> Built {
    ++builds;
    return std::pair{std::make_shared<const std::string>("x"), size_t{1}};
  };
  ASSERT_OK(none.GetOrBuild<std::string>(KeyOf("a"), build).status());
  ASSERT_OK(none.GetOrBuild<std::string>(KeyOf("a"), build).status());
  EXPECT_EQ(builds, 2);
  EXPECT_EQ(none.usage(), 0u);
  DerivedCache cache(100);
  auto fail = []() -> Built { return Status::InvalidArgument("no grid"); };
  EXPECT_TRUE(cache.GetOrBuild<std::string>(KeyOf("a"), fail).status().IsInvalidArgument());
  EXPECT_EQ(cache.usage(), 0u);
}

}  // namespace
}  // namespace gridstore::grid
