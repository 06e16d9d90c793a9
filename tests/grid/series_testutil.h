// Copyright 2026 The GridStore Authors.
//
// The series layout's tests' fixture: dataset "run" with variable "T" written as pattern
// planes, fetches checked against a reference copy, the keys of its series blocks.
#ifndef GRIDSTORE_TESTS_GRID_SERIES_TESTUTIL_H_
#define GRIDSTORE_TESTS_GRID_SERIES_TESTUTIL_H_

#include <memory>
#include <string>

#include "gridstore/grid/grid_store.h"
#include "gridstore/model/internal/grid_keys.h"
#include "tests/grid/grid_testutil.h"

namespace gridstore::testing {

// Stores `meta` (dataset "run" with variable "T" first) and writes every plane of "T" with
// PatternPlane(seed), each also into `reference`.
inline void WritePatternPlanes(grid::GridStore* store, const grid::DataSetMeta& meta, int seed,
                               ReferenceVariable* reference) {
  ASSERT_OK(store->PutDataSetMeta(meta));
  ASSERT_OK_AND_ASSIGN(auto writer, store->GetDataWriter("run"));
  const grid::VariableMeta& var = meta.variables[0];
  for (int64_t t = 0; t < var.shape[grid::kT]; ++t) {
    for (int64_t z = 0; z < var.shape[grid::kZ]; ++z) {
      grid::Grid2D plane = PatternPlane(var, seed, t, z);
      reference->SetPlane(t, z, plane);
      ASSERT_OK(writer->WriteGrid2D("T", t, z, plane));
    }
  }
  ASSERT_OK(writer->Flush());
}

// A store in a temporary directory holding dataset "run", whose variable "T" of `shape` has a
// reference copy; the fixture of the series layout's tests.
class SeriesTestBase : public ::testing::Test {
 protected:
  explicit SeriesTestBase(const grid::Shape4& shape)
      : reference_(MakeVariable("T", grid::DataType::kFloat32, shape)) {}

  // Fetches the box of "T" (as the planner picks, or forced to `layout`), checks it against the
  // reference value by value, and returns the plan it ran.
  grid::FetchPlan FetchAndCompare(const grid::Shape4& origin, const grid::Shape4& shape,
                                  grid::FetchLayout layout = grid::FetchLayout::kCheapest) {
    auto fetcher = store_->GetDataFetcher("run");
    EXPECT_OK(fetcher.status());
    if (!fetcher.ok()) return {};
    (*fetcher)->SetOriginShape(origin, shape);
    (*fetcher)->set_options(grid::FetchOptions{.layout = layout});
    auto got = (*fetcher)->Fetch();
    EXPECT_OK(got.status());
    if (got.ok()) {
      EXPECT_EQ(reference_.Compare(*got->GetVariable("T")), "");
    }
    auto plan = (*fetcher)->Explain();
    EXPECT_OK(plan.status());
    return plan.ok() ? *plan : grid::FetchPlan{};
  }
  // The key of series block (tb, zb, r, c) of "T".
  std::string SeriesKey(uint32_t tb, uint32_t zb, uint32_t r, uint32_t c) {
    auto meta = store_->GetDataSetMeta("run");
    EXPECT_OK(meta.status());
    return grid::DataKey(grid::BlockAddress{"run", meta.ok() ? meta->key_incarnation() : 0, "T",
                                            grid::kSeriesLayout, tb, zb, r, c});
  }

  ScopedTempDir dir_;
  std::unique_ptr<grid::GridStore> store_;
  ReferenceVariable reference_;
};

}  // namespace gridstore::testing

#endif  // GRIDSTORE_TESTS_GRID_SERIES_TESTUTIL_H_
