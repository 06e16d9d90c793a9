// Copyright 2026 The GridStore Authors.
//
// Several threads fetch one dataset while another thread writes a different one, on one store.
// Run under ThreadSanitizer in CI as well.
#include <atomic>
#include <thread>

#include "gridstore/grid/grid_store.h"
#include "tests/grid/grid_testutil.h"

namespace gridstore::grid {
namespace {

using testing::MakeMeta;
using testing::MakeVariable;
using testing::PatternPlane;
using testing::ReferenceVariable;
using testing::ScopedTempDir;

TEST(GridConcurrencyTest, FetchersReadCorrectlyWhileAnotherDataSetIsWritten) {
  ScopedTempDir dir;
  ASSERT_OK_AND_ASSIGN(
      auto store,
      GridStore::Open(dir.Sub("store"),
                      {.create_if_missing = true, .threads = 2, .block_cache_bytes = 1 << 18}));
  VariableMeta var = MakeVariable("T", DataType::kFloat32, {4, 3, 48, 64});
  ASSERT_OK(store->PutDataSetMeta(MakeMeta("read-me", {var}, 16, 16)));
  ReferenceVariable ref(var);
  {
    ASSERT_OK_AND_ASSIGN(auto writer, store->GetDataWriter("read-me"));
    for (int t = 0; t < 4; ++t)
      for (int z = 0; z < 3; ++z) {
        Grid2D plane = PatternPlane(var, 3, t, z);
        ref.SetPlane(t, z, plane);
        ASSERT_OK(writer->WriteGrid2D("T", t, z, plane));
      }
  }
  ASSERT_OK(store->PutDataSetMeta(MakeMeta("write-me", {var}, 16, 16)));

  std::atomic<bool> writing{true};
  std::atomic<int> failures{0};
  std::thread writer_thread([&] {
    auto writer = store->GetDataWriter("write-me");
    if (!writer.ok()) {
      ++failures;
      writing = false;
      return;
    }
    for (int round = 0; round < 3; ++round) {
      for (int t = 0; t < 4; ++t)
        for (int z = 0; z < 3; ++z) {
          if (!(*writer)->SubmitGrid2D("T", t, z, PatternPlane(var, round, t, z)).ok()) ++failures;
        }
      // Rewrites of one plane are ordered only across a Flush.
      if (!(*writer)->Flush().ok()) ++failures;
    }
    writing = false;
  });

  std::vector<std::thread> readers;
  for (int r = 0; r < 4; ++r) {
    readers.emplace_back([&, r] {
      std::mt19937_64 rng(r);
      auto fetcher = store->GetDataFetcher("read-me");
      if (!fetcher.ok()) {
        ++failures;
        return;
      }
      // Keep reading until the writer is done, and at least a few times.
      for (int i = 0; i < 6 || writing; ++i) {
        Shape4 origin, shape;
        for (int a = 0; a < kRank; ++a) {
          origin[a] = static_cast<int64_t>(rng() % var.shape[a]);
          shape[a] = 1 + static_cast<int64_t>(rng() % (var.shape[a] - origin[a]));
        }
        (*fetcher)->SetOriginShape(origin, shape);
        auto result = (*fetcher)->Fetch();
        if (!result.ok() || ref.Compare(*result->GetVariable("T")) != "") ++failures;
        if (i > 200) break;
      }
    });
  }
  writer_thread.join();
  for (auto& t : readers) t.join();
  EXPECT_EQ(failures.load(), 0);

  // And the written dataset holds the last round.
  ASSERT_OK_AND_ASSIGN(auto fetcher, store->GetDataFetcher("write-me"));
  ASSERT_OK_AND_ASSIGN(GridDataSet result, fetcher->Fetch());
  ReferenceVariable last(var);
  for (int t = 0; t < 4; ++t)
    for (int z = 0; z < 3; ++z) last.SetPlane(t, z, PatternPlane(var, 2, t, z));
  EXPECT_EQ(last.Compare(*result.GetVariable("T")), "");
}

}  // namespace
}  // namespace gridstore::grid
