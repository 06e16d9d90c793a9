// Copyright 2026 The GridStore Authors.
//
// Property test: hundreds of random datasets (every type, shapes including 1 and sizes that are
// not multiples of the block, random block shapes, codecs and frames, some planes never written,
// half with a series layout of random shape) and random boxes, each fetch compared value by value
// with an in-memory reference array.
#include <random>

#include "gridstore/grid/grid_store.h"
#include "gridstore/storage/memory/memory_kv_store.h"
#include "tests/grid/grid_testutil.h"
#include "tests/test_stores.h"

namespace gridstore::grid {
namespace {

using testing::ReferenceVariable;
using testing::ScopedTempDir;

// Random bytes for integers; for floats, random finite values plus the odd NaN and infinity
// (compared bitwise, so NaN payloads must survive too).
Grid2D RandomPlane(const VariableMeta& var, std::mt19937_64& rng) {
  Grid2D plane(var.type, var.shape[kX], var.shape[kY]);
  const size_t n = static_cast<size_t>(plane.x() * plane.y());
  VisitDataType(var.type, [&](auto tag) {
    using T = decltype(tag);
    auto data = plane.data<T>();
    // A smooth field plus noise, as real fields are, so that compression has work to do.
    std::normal_distribution<double> noise(0.0, 2.0);
    for (size_t i = 0; i < n; ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        double v = 280.0 + 10.0 * std::sin(i * 0.01) + noise(rng);
        uint64_t pick = rng() % 200;
        if (pick == 0) v = std::numeric_limits<double>::quiet_NaN();
        if (pick == 1) v = -std::numeric_limits<double>::infinity();
        data[i] = static_cast<T>(v);
      } else {
        data[i] = static_cast<T>(rng());
      }
    }
  });
  return plane;
}

struct RandomDataSet {
  DataSetMeta meta;
  std::vector<ReferenceVariable> references;
};

RandomDataSet MakeRandomDataSet(int index, std::mt19937_64& rng) {
  auto pick = [&](int64_t lo, int64_t hi) {  // inclusive
    return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  };
  RandomDataSet ds;
  ds.meta.id = "random/" + std::to_string(index);
  ds.meta.layout.block_x = pick(1, 3) == 1 ? pick(1, 4) : pick(5, 40);
  ds.meta.layout.block_y = pick(1, 3) == 1 ? pick(1, 4) : pick(5, 40);
  ds.meta.layout.codec.codec = static_cast<Codec>(pick(0, 2));
  ds.meta.layout.codec.level = static_cast<int>(pick(1, 5));
  // Frames: none, one row each, any count (divisors of the block's rows or not), or one frame
  // holding the whole block.
  switch (pick(0, 3)) {
    case 0:
      ds.meta.layout.frame_rows = 0;
      break;
    case 1:
      ds.meta.layout.frame_rows = 1;
      break;
    case 2:
      ds.meta.layout.frame_rows = pick(1, ds.meta.layout.block_x);
      break;
    default:
      ds.meta.layout.frame_rows = ds.meta.layout.block_x;
      break;
  }
  const int nvars = static_cast<int>(pick(1, 3));
  for (int v = 0; v < nvars; ++v) {
    VariableMeta var;
    var.name = "v" + std::to_string(v) + (v == 1 ? ",x y|/" : "");
    var.type = static_cast<DataType>(pick(1, 10));
    // Extents of 1 are common in real data (surface fields, single times): favour them.
    var.shape = {pick(1, 3), pick(1, 3), pick(1, 2) == 1 ? 1 : pick(1, 70),
                 pick(1, 2) == 1 ? pick(1, 3) : pick(1, 70)};
    if (rng() % 2 == 0) {
      VisitDataType(var.type, [&](auto tag) {
        using T = decltype(tag);
        T fill;
        uint64_t bits = rng();
        std::memcpy(&fill, &bits, sizeof(T));
        if constexpr (std::is_floating_point_v<T>) fill = static_cast<T>(-9999.5);
        var.fill_value.assign(reinterpret_cast<const char*>(&fill), sizeof(T));
      });
    }
    ds.meta.variables.push_back(var);
  }
  return ds;
}

int64_t pick(std::mt19937_64& rng, int64_t lo, int64_t hi) {  // inclusive
  return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
}

// Point series and small-area series, one at a time and batched: the reads the series layout is
// for, so the planner picks it for most of them.
void CheckPointSeries(const RandomDataSet& ds, GridDataFetcher* fetcher, std::mt19937_64& rng) {
  for (size_t v = 0; v < ds.meta.variables.size(); ++v) {
    const VariableMeta& var = ds.meta.variables[v];
    fetcher->SetVariablesToGet({var.name});
    std::vector<Box> boxes;
    for (int q = 0; q < 6; ++q) {
      const int64_t x = pick(rng, 0, var.shape[kX] - 1), y = pick(rng, 0, var.shape[kY] - 1);
      const int64_t z = pick(rng, 0, var.shape[kZ] - 1);
      const Shape4 origin = {0, z, x, y};
      // One level mostly; sometimes several (a time-height section).
      const Shape4 shape = {var.shape[kT], q % 3 == 0 ? pick(rng, 1, var.shape[kZ] - z) : 1,
                            pick(rng, 1, std::min<int64_t>(3, var.shape[kX] - x)),
                            pick(rng, 1, std::min<int64_t>(3, var.shape[kY] - y))};
      boxes.push_back(Box{origin, shape});
      fetcher->SetOriginShape(origin, shape);
      fetcher->set_options(FetchOptions{.use_cache = rng() % 2 == 0});
      ASSERT_OK_AND_ASSIGN(GridDataSet got, fetcher->Fetch());
      ASSERT_EQ(ds.references[v].Compare(*got.GetVariable(var.name)), "");
    }
    ASSERT_OK_AND_ASSIGN(std::vector<GridDataSet> batched, fetcher->FetchBoxes(boxes));
    for (const GridDataSet& got : batched) {
      ASSERT_EQ(ds.references[v].Compare(*got.GetVariable(var.name)), "");
    }
  }
}

void RunPropertyTest(GridStore* store, int datasets, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int d = 0; d < datasets; ++d) {
    SCOPED_TRACE("dataset " + std::to_string(d) + " of seed " + std::to_string(seed));
    RandomDataSet ds = MakeRandomDataSet(d, rng);
    ds.meta.set_status(kStatusDone);  // written and read at once
    ASSERT_OK(store->PutDataSetMeta(ds.meta));
    ASSERT_OK_AND_ASSIGN(auto writer, store->GetDataWriter(ds.meta.id));
    for (const auto& var : ds.meta.variables) {
      ReferenceVariable ref(var);
      for (int64_t t = 0; t < var.shape[kT]; ++t) {
        for (int64_t z = 0; z < var.shape[kZ]; ++z) {
          if (rng() % 5 == 0) continue;  // never written: must read as the fill value
          Grid2D plane = RandomPlane(var, rng);
          ref.SetPlane(t, z, plane);
          // Both write paths, so both are covered by the comparison.
          if (rng() % 2) {
            ASSERT_OK(writer->WriteGrid2D(var.name, t, z, plane));
          } else {
            ASSERT_OK(writer->SubmitGrid2D(var.name, t, z, std::move(plane)));
          }
        }
      }
      ds.references.push_back(std::move(ref));
    }
    ASSERT_OK(writer->Flush());

    ASSERT_OK_AND_ASSIGN(auto fetcher, store->GetDataFetcher(ds.meta.id));
    // The whole of every variable.
    ASSERT_OK_AND_ASSIGN(GridDataSet all, fetcher->Fetch());
    for (size_t v = 0; v < ds.meta.variables.size(); ++v) {
      const Grid4D* got = all.GetVariable(ds.meta.variables[v].name);
      ASSERT_NE(got, nullptr);
      ASSERT_EQ(ds.references[v].Compare(*got), "");
    }
    // Half the datasets get a series layout of random shape: the boxes below then read from
    // whichever layout the planner picks, and must match the reference all the same.
    if (rng() % 2 == 0) {
      SeriesLayout series{.block_t = pick(rng, 1, 4),
                          .tile_x = pick(rng, 1, 9),
                          .tile_y = pick(rng, 1, 9),
                          .block_z = pick(rng, 1, 3),
                          .frame_points = pick(rng, 1, 12)};
      ASSERT_OK(store
                    ->AddSeriesLayout(ds.meta.id, series,
                                      RelayoutOptions{.memory_budget_bytes = 1 + rng() % 4096})
                    .status());
      ASSERT_OK_AND_ASSIGN(fetcher, store->GetDataFetcher(ds.meta.id));
      ASSERT_TRUE(fetcher->meta().series && fetcher->meta().series->ready);
      ASSERT_NO_FATAL_FAILURE(CheckPointSeries(ds, fetcher.get(), rng));
    }
    // Random boxes of single variables.
    for (int q = 0; q < 8; ++q) {
      const size_t v = rng() % ds.meta.variables.size();
      const VariableMeta& var = ds.meta.variables[v];
      Shape4 origin, shape;
      for (int a = 0; a < kRank; ++a) {
        origin[a] = static_cast<int64_t>(rng() % var.shape[a]);
        shape[a] = 1 + static_cast<int64_t>(rng() % (var.shape[a] - origin[a]));
      }
      fetcher->SetVariablesToGet({var.name});
      fetcher->SetOriginShape(origin, shape);
      FetchOptions options;
      options.use_cache = rng() % 2;
      options.parallelism = static_cast<int>(rng() % 4);
      fetcher->set_options(options);
      ASSERT_OK_AND_ASSIGN(GridDataSet box, fetcher->Fetch());
      const Grid4D* got = box.GetVariable(var.name);
      ASSERT_NE(got, nullptr);
      ASSERT_EQ(got->origin(), origin);
      ASSERT_EQ(got->shape(), shape);
      ASSERT_EQ(ds.references[v].Compare(*got), "");
      ASSERT_EQ(box.stats.blocks,
                box.stats.blocks_read + box.stats.blocks_missing + box.stats.cache_hits);
      if (!options.use_cache) {
        // Only the frames holding the box's rows are decoded, as the plan says (blocks never
        // written decode nothing).
        ASSERT_OK_AND_ASSIGN(FetchPlan plan, fetcher->Explain());
        ASSERT_LE(box.stats.bytes_decompressed, plan.bytes_to_decode);
        if (box.stats.blocks_missing == 0) {
          ASSERT_EQ(box.stats.bytes_decompressed, plan.bytes_to_decode);
        }
      }
    }
    fetcher->ClearOriginShape();
  }
}

#ifdef GRIDSTORE_TEST_ON_RADOS
// The same test on Ceph (rados_test): fewer datasets, each write and fetch being network calls.
TEST(GridPropertyTest, RandomDataSetsOnRadosMatchReference) {
  GridStoreOptions options;
  options.create_if_missing = true;
  options.block_cache_bytes = 1 << 20;
  ASSERT_OK_AND_ASSIGN(auto store, GridStore::Open(testing::RadosTestUri("property"), options));
  RunPropertyTest(store.get(), 40, 20261121);
}
#else
TEST(GridPropertyTest, RandomDataSetsOnRocksDbMatchReference) {
  ScopedTempDir dir;
  GridStoreOptions options;
  options.create_if_missing = true;
  options.block_cache_bytes = 1 << 20;  // small, so eviction happens too
  ASSERT_OK_AND_ASSIGN(auto store, GridStore::Open(dir.Sub("store"), options));
  RunPropertyTest(store.get(), 200, 20261121);
}

TEST(GridPropertyTest, RandomDataSetsOnMemoryStoreMatchReference) {
  // One thread and no cache: every read goes to the store, on other interleavings.
  ASSERT_OK_AND_ASSIGN(auto store,
                       GridStore::Open("memory://", GridStoreOptions{.create_if_missing = true,
                                                                     .threads = 1,
                                                                     .block_cache_bytes = 0}));
  RunPropertyTest(store.get(), 100, 42);
}

#endif  // GRIDSTORE_TEST_ON_RADOS

}  // namespace
}  // namespace gridstore::grid
