// Copyright 2026 The GridStore Authors.
#include "gridstore/blocks/internal/unpack.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

namespace gridstore::internal_grid {
namespace {

using grid::DataType;
using grid::Grid4D;
using grid::IsFloatingPoint;
using grid::UnpackedType;
using grid::VariableMeta;
using grid::VisitDataType;

// Floating-point values without packing: NaN where the value is the fill or a missing value,
// in place (no second buffer, no conversion). A missing value the type cannot hold matches no
// value, as in the general path below; one or two marks (the common case) vectorise.
template <typename T>
void MaskInPlace(const VariableMeta& var, Grid4D* grid, ThreadPool* pool, int parallelism) {
  std::vector<T> marks;
  if (var.has_fill_value()) {
    T fill;
    std::memcpy(&fill, var.fill_value.data(), sizeof(T));
    marks.push_back(fill);
  }
  for (double m : var.missing_values) {
    if (static_cast<double>(static_cast<T>(m)) == m) marks.push_back(static_cast<T>(m));
  }
  if (marks.empty()) return;
  constexpr T kNan = std::numeric_limits<T>::quiet_NaN();
  T* values = grid->data<T>().data();
  const size_t n = grid->size();
  constexpr size_t kChunk = 1 << 16;
  ParallelFor(pool, (n + kChunk - 1) / kChunk, parallelism, [&](size_t chunk) {
    T* p = values + chunk * kChunk;
    const size_t count = std::min(n, (chunk + 1) * kChunk) - chunk * kChunk;
    const T a = marks[0], b = marks.size() > 1 ? marks[1] : marks[0];
    if (marks.size() <= 2) {
      for (size_t i = 0; i < count; ++i) p[i] = (p[i] == a || p[i] == b) ? kNan : p[i];
      return;
    }
    for (size_t i = 0; i < count; ++i) {
      for (T m : marks) p[i] = p[i] == m ? kNan : p[i];
    }
  });
}

}  // namespace

// Any other variable: converted into a new buffer of the unpacked type, in parallel chunks.
Grid4D Unpack(const VariableMeta& var, Grid4D stored, ThreadPool* pool, int parallelism) {
  if (!var.packing && IsFloatingPoint(var.type)) {
    if (var.type == DataType::kFloat32) MaskInPlace<float>(var, &stored, pool, parallelism);
    if (var.type == DataType::kFloat64) MaskInPlace<double>(var, &stored, pool, parallelism);
    return stored;
  }
  Grid4D out(UnpackedType(var), stored.origin(), stored.shape());
  const double scale = var.packing ? var.packing->scale_factor : 1.0;
  const double offset = var.packing ? var.packing->add_offset : 0.0;
  const size_t n = stored.size();
  constexpr size_t kChunk = 1 << 16;
  VisitDataType(var.type, [&](auto in_tag) {
    using In = decltype(in_tag);
    In fill{};
    const bool has_fill = var.has_fill_value();
    if (has_fill) std::memcpy(&fill, var.fill_value.data(), sizeof(In));
    const In* src = stored.data<In>().data();
    VisitDataType(out.type(), [&](auto out_tag) {
      using Out = decltype(out_tag);
      if constexpr (std::is_floating_point_v<Out>) {
        Out* dst = out.data<Out>().data();
        ParallelFor(pool, (n + kChunk - 1) / kChunk, parallelism, [&](size_t chunk) {
          const size_t end = std::min(n, (chunk + 1) * kChunk);
          for (size_t i = chunk * kChunk; i < end; ++i) {
            const In v = src[i];
            bool missing = has_fill && v == fill;
            for (double m : var.missing_values) missing |= static_cast<double>(v) == m;
            dst[i] = missing ? std::numeric_limits<Out>::quiet_NaN()
                             : static_cast<Out>(static_cast<double>(v) * scale + offset);
          }
        });
      }
    });
  });
  return out;
}

}  // namespace gridstore::internal_grid
