// Copyright 2026 The GridStore Authors.
//
// Quick-look images (`/collections/{id}/map.png`): one plane of values drawn in longitude and
// latitude (plate carree) with a colour map, cells without a value transparent, and a colour bar
// with its minimum and maximum printed beneath the map. Written with libpng.
#ifndef GRIDSTORE_SERVER_MAP_IMAGE_H_
#define GRIDSTORE_SERVER_MAP_IMAGE_H_

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/util/result.h"

namespace gridstore::server {

enum class Colormap { kViridis, kTurbo, kGray, kCoolwarm };
// "viridis", "turbo", "gray", "coolwarm"; InvalidArgument listing them otherwise.
Result<Colormap> ParseColormap(std::string_view name);

// The height in pixels of the colour bar strip below the map.
inline constexpr int kLegendHeight = 36;

struct MapImageRequest {
  int width = 0, height = 0;  // of the map part; the PNG is width x (height + kLegendHeight)
  // The value shown at map pixel (column i, row j; row 0 at the top): NaN for none (drawn
  // transparent).
  std::function<double(int i, int j)> value_at;
  std::optional<std::array<double, 2>> range;  // min, max; default: those of the values shown
  Colormap colormap = Colormap::kViridis;
};

struct MapImage {
  std::string png;          // the encoded PNG
  double min = 0, max = 0;  // the range the colours span
};

// InvalidArgument for a width or height outside 1..4096, or a range with min >= max or not
// finite.
Result<MapImage> RenderMapImage(const MapImageRequest& request);

}  // namespace gridstore::server

#endif  // GRIDSTORE_SERVER_MAP_IMAGE_H_
