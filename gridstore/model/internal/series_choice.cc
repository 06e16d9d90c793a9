// Copyright 2026 The GridStore Authors.
#include "gridstore/model/internal/series_choice.h"

#include <algorithm>
#include <string>
#include <utility>

#include "gridstore/util/internal/strings.h"

namespace gridstore::grid::internal_meta {
namespace {

constexpr int64_t kShortSeries = 256;                    // up to this, the layout of old stores
constexpr int64_t kMaxStepsPerBlock = int64_t{1} << 20;  // SeriesLayout's bound on a side
constexpr int64_t kTargetBlockBytes = int64_t{4} << 20;
constexpr int64_t kTargetFrameBytes = int64_t{256} << 10;
constexpr int64_t kMaxTileSide = 16;
constexpr int64_t kMaxBlockValues = int64_t{1} << 24;  // DataSetMeta::Validate's bound

}  // namespace

Result<SeriesLayout> ResolveSeriesLayout(const DataSetMeta& meta, const SeriesLayout& requested) {
  auto bad = [](const char* field, int64_t value) {
    return Status::InvalidArgument("series layout: " + std::string(field) + " " +
                                   std::to_string(value) +
                                   " is invalid: give a count of at least 1, or leave it to be "
                                   "chosen for the dataset");
  };
  if (requested.block_t < kSeriesWholeSeries) return bad("steps per block", requested.block_t);
  for (auto [field, value] : {std::pair{"points per tile along x", requested.tile_x},
                              std::pair{"points per tile along y", requested.tile_y},
                              std::pair{"levels per block", requested.block_z},
                              std::pair{"points per frame", requested.frame_points}}) {
    if (value < kSeriesChoose) return bad(field, value);
  }
  int64_t steps = 1, element = 1;
  for (const VariableMeta& v : meta.variables) {
    steps = std::max(steps, v.shape[kT]);
    element = std::max<int64_t>(element, static_cast<int64_t>(DataTypeSize(v.type)));
  }
  SeriesLayout series = requested;
  if (series.block_z == kSeriesChoose) series.block_z = 1;
  if (meta.status() == kStatusIngesting) {
    // A run still arriving: its length is not known, and a block of steps is written each time
    // that many complete.
    if (series.block_t == kSeriesWholeSeries) {
      return Status::InvalidArgument(
          "series layout: all steps in one block needs a finished run; dataset " + Quote(meta.id) +
          " is still arriving (give a count of steps per block, or none for " +
          std::to_string(kGrowingSeriesSteps) + ")");
    }
    if (series.block_t == kSeriesChoose) series.block_t = kGrowingSeriesSteps;
    steps = std::max(steps, series.block_t);
  }
  if (series.block_t == kSeriesWholeSeries) {
    series.block_t = std::min(steps, kMaxStepsPerBlock);
  } else if (series.block_t == kSeriesChoose) {
    // Equal blocks of at most 2^20 steps: all of a series up to that.
    const int64_t blocks = (steps + kMaxStepsPerBlock - 1) / kMaxStepsPerBlock;
    series.block_t = steps <= kShortSeries ? kShortSeries : (steps + blocks - 1) / blocks;
  }
  // The bytes of one row (one point at one level) of a full block.
  const int64_t row_bytes = std::min({series.block_t, steps, 2 * kMaxStepsPerBlock}) * element;
  if (series.frame_points == kSeriesChoose) {
    series.frame_points = std::clamp<int64_t>(kTargetFrameBytes / row_bytes, 1, kMaxTileSide);
  }
  if (series.tile_x == kSeriesChoose || series.tile_y == kSeriesChoose) {
    // Near the target bytes, within the bound on a block's values (which a long block_t given
    // for a short series would otherwise pass).
    // (Sides beyond Validate's bound are clamped here only to keep the products in range.)
    const int64_t block_t = std::min(series.block_t, 2 * kMaxStepsPerBlock);
    const int64_t block_z = std::min(series.block_z, 2 * kMaxStepsPerBlock);
    const int64_t points = std::clamp<int64_t>(
        std::min(kTargetBlockBytes / (row_bytes * block_z), kMaxBlockValues / (block_t * block_z)),
        1, kMaxTileSide * kMaxTileSide);
    if (series.tile_y == kSeriesChoose) {
      series.tile_y = series.tile_x == kSeriesChoose
                          ? std::min(points, kMaxTileSide)
                          : std::clamp<int64_t>(points / series.tile_x, 1, kMaxTileSide);
    }
    if (series.tile_x == kSeriesChoose) {
      series.tile_x = std::clamp<int64_t>(points / series.tile_y, 1, kMaxTileSide);
    }
  }
  return series;
}

}  // namespace gridstore::grid::internal_meta
