// Copyright 2026 The GridStore Authors.
//
// Quick-look images (`/collections/{id}/map.png`): one plane of values drawn in longitude and
// latitude (plate carree) with a colour map, cells without a value transparent, and a colour bar
// with its minimum and maximum printed beneath the map. Written with libpng.
#ifndef GRIDSTORE_SERVER_MAP_IMAGE_H_
#define GRIDSTORE_SERVER_MAP_IMAGE_H_

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/util/result.h"

namespace gridstore::server {

enum class Colormap { kViridis, kTurbo, kGray, kCoolwarm, kTemperature, kPrecipitation, kWind };
// "viridis", "turbo", "gray", "coolwarm", "temperature", "precipitation", "wind";
// InvalidArgument listing them otherwise.
Result<Colormap> ParseColormap(std::string_view name);
// The name ParseColormap takes.
std::string_view ColormapName(Colormap colormap);
// The colour at t in [0, 1] (clamped) as "#rrggbb".
std::string ColormapHex(Colormap colormap, double t);
// 5 to 8 round values inside [min, max] (steps of 1, 2, 2.5 or 5 times a power of ten), fewer
// only when the range is too narrow to hold them. REQUIRES: min < max, both finite.
std::vector<double> LegendTicks(double min, double max);

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

// A field without legend (tiles and OGC API - Maps): `values` row-major, width x height, row 0
// at the top; NaN, and values below `transparent_below`, transparent. Colours are those of the
// colour map at (v - min) / (max - min), clamped, in 255 steps (an 8-bit paletted PNG whose
// entry 0 is transparent). InvalidArgument as
// RenderMapImage, or if `values` is null.
struct FieldImageRequest {
  int width = 0, height = 0;
  const float* values = nullptr;
  std::array<double, 2> range{0, 1};
  Colormap colormap = Colormap::kViridis;
  std::optional<double> transparent_below;
};
Result<std::string> RenderFieldPng(const FieldImageRequest& request);

// Values to the palette indices of RenderIndexedPng: 0 (transparent) for NaN, infinities and
// values below `transparent_below`, else 1 + the nearest of 255 steps over `range` (clamped).
// REQUIRES: range[0] < range[1], both finite.
class ColourIndexer {
 public:
  ColourIndexer(std::array<double, 2> range, std::optional<double> transparent_below);
  uint8_t operator()(float v) const {
    if (!(v >= below_) || std::isinf(v)) return 0;
    // (v - lo) * factor in one multiply when the span is finite; halved when it overflows.
    const double t =
        (plain_ ? (double(v) - lo_) * factor_ : (double(v) / 2 - lo_ / 2) * factor_) + 0.5;
    return uint8_t(1 + (t <= 0 ? 0 : t >= kSteps - 1 ? kSteps - 1 : int(t)));
  }
  static constexpr int kSteps = 255;

 private:
  double lo_, factor_;
  bool plain_;
  float below_;
};

// An 8-bit paletted PNG of `indices` (width x height, row 0 at the top): index 0 transparent,
// 1..255 the colour map's 255 colours from its start to its end. InvalidArgument for a width or
// height outside 1..4096 or null indices.
Result<std::string> RenderIndexedPng(int width, int height, const uint8_t* indices,
                                     Colormap colormap);

}  // namespace gridstore::server

#endif  // GRIDSTORE_SERVER_MAP_IMAGE_H_
