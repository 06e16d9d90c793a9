// Copyright 2026 The GridStore Authors.
//
// Helpers for grid tests: small metas, deterministic planes, and an in-memory reference copy of a
// variable to compare fetches with, value by value.
#ifndef GRIDSTORE_TESTS_GRID_GRID_TESTUTIL_H_
#define GRIDSTORE_TESTS_GRID_GRID_TESTUTIL_H_

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gridstore/grid/grid_store.h"
#include "gridstore/model/grid.h"
#include "gridstore/model/grid_meta.h"
#include "tests/model/model_testutil.h"
#include "tests/test_util.h"

namespace gridstore::testing {

// A variable of `type` and `shape` (t, z, x, y).
inline grid::VariableMeta MakeVariable(std::string name, grid::DataType type, grid::Shape4 shape) {
  grid::VariableMeta v;
  v.name = std::move(name);
  v.type = type;
  v.shape = shape;
  return v;
}

// A dataset with the given variables and a block shape, with status DONE (tests write and read
// it at once; fetches refuse datasets that are not DONE).
inline grid::DataSetMeta MakeMeta(std::string id, std::vector<grid::VariableMeta> variables,
                                  int64_t block_x = 16, int64_t block_y = 16) {
  grid::DataSetMeta meta;
  meta.id = std::move(id);
  meta.set_status(grid::kStatusDone);
  meta.variables = std::move(variables);
  meta.layout.block_x = block_x;
  meta.layout.block_y = block_y;
  return meta;
}

// The whole `variable` of dataset `id` as fetched from `store`; an empty grid (and a failure
// of the test) if the fetch fails.
inline grid::Grid4D FetchWhole(grid::GridStore& store, const std::string& id,
                               const std::string& variable) {
  auto fetcher = store.GetDataFetcher(id);
  EXPECT_OK(fetcher);
  if (!fetcher.ok()) return {};
  (*fetcher)->SetVariablesToGet({variable});
  auto data = (*fetcher)->Fetch();
  EXPECT_OK(data);
  if (!data.ok()) return {};
  return std::move(data->variables.at(variable));
}

// A deterministic value for (t, z, x, y) that differs across every index and variable `salt`.
inline double PatternValue(int salt, int64_t t, int64_t z, int64_t x, int64_t y) {
  return salt * 1000.0 + t * 100.0 + z * 10.0 + x * 0.5 + y * 0.25;
}

// The plane (t, z) of `var` filled with PatternValue converted to its type.
inline grid::Grid2D PatternPlane(const grid::VariableMeta& var, int salt, int64_t t, int64_t z) {
  grid::Grid2D plane(var.type, var.shape[grid::kX], var.shape[grid::kY]);
  grid::VisitDataType(var.type, [&](auto tag) {
    using T = decltype(tag);
    auto data = plane.data<T>();
    for (int64_t x = 0; x < plane.x(); ++x) {
      for (int64_t y = 0; y < plane.y(); ++y) {
        data[x * plane.y() + y] = static_cast<T>(PatternValue(salt, t, z, x, y));
      }
    }
  });
  return plane;
}

// Raw bytes of a whole variable (t, z, x, y row-major), with the planes the test wrote; the rest
// hold the fill value. Fetch results are compared with it byte for byte.
class ReferenceVariable {
 public:
  explicit ReferenceVariable(const grid::VariableMeta& var)
      : var_(var), es_(grid::DataTypeSize(var.type)), bytes_(var.num_elements() * es_) {
    std::string fill = var.has_fill_value() ? var.fill_value : std::string(es_, '\0');
    for (size_t i = 0; i < bytes_.size(); i += es_) std::memcpy(&bytes_[i], fill.data(), es_);
  }
  void SetPlane(int64_t t, int64_t z, const grid::Grid2D& plane) {
    std::memcpy(&bytes_[PlaneOffset(t, z)], plane.bytes(), plane.size_bytes());
  }
  // The bytes of element (t, z, x, y) of the whole variable.
  const char* At(int64_t t, int64_t z, int64_t x, int64_t y) const {
    return &bytes_[PlaneOffset(t, z) + (x * var_.shape[grid::kY] + y) * es_];
  }
  // Compares `got` with the reference over its box; returns "" or the first mismatch.
  std::string Compare(const grid::Grid4D& got) const {
    if (got.type() != var_.type) return "type differs";
    const auto& o = got.origin();
    const auto& s = got.shape();
    for (int64_t t = 0; t < s[0]; ++t)
      for (int64_t z = 0; z < s[1]; ++z)
        for (int64_t x = 0; x < s[2]; ++x) {
          // One row at a time: y is contiguous in both.
          const char* want = At(o[0] + t, o[1] + z, o[2] + x, o[3]);
          const char* have = got.bytes() + got.Offset(t, z, x, 0) * es_;
          if (std::memcmp(want, have, s[3] * es_) != 0) {
            for (int64_t y = 0; y < s[3]; ++y) {
              if (std::memcmp(want + y * es_, have + y * es_, es_) != 0) {
                return "variable '" + var_.name + "' differs at (t, z, x, y) = (" +
                       std::to_string(o[0] + t) + ", " + std::to_string(o[1] + z) + ", " +
                       std::to_string(o[2] + x) + ", " + std::to_string(o[3] + y) + ")";
              }
            }
          }
        }
    return "";
  }

 private:
  size_t PlaneOffset(int64_t t, int64_t z) const {
    return ((t * var_.shape[grid::kZ] + z) * var_.shape[grid::kX] * var_.shape[grid::kY]) * es_;
  }
  grid::VariableMeta var_;
  size_t es_;
  std::vector<char> bytes_;
};

}  // namespace gridstore::testing

#endif  // GRIDSTORE_TESTS_GRID_GRID_TESTUTIL_H_
