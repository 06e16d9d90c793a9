// Copyright 2026 The GridStore Authors.
//
// The quick-look PNG (server/map_image.h), decoded back with libpng's simplified API: its size,
// transparency, the colour maps' ends, ranges, the legend strip and the argument checks.
#include "gridstore/server/map_image.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <png.h>

#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "tests/server/png_testutil.h"
#include "tests/test_util.h"

namespace gridstore::server {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A width x height request whose value at (i, j) is values[j * width + i].
MapImageRequest Request(int width, int height, std::vector<double> values,
                        Colormap colormap = Colormap::kGray) {
  MapImageRequest request;
  request.width = width;
  request.height = height;
  request.value_at = [width, values = std::move(values)](int i, int j) {
    return values[static_cast<size_t>(j) * width + i];
  };
  request.colormap = colormap;
  return request;
}

// One row of the values 0, 1, ..., n - 1.
MapImageRequest Ramp(int n, Colormap colormap = Colormap::kGray) {
  std::vector<double> values(n);
  for (int i = 0; i < n; ++i) values[i] = i;
  return Request(n, 1, std::move(values), colormap);
}

TEST(MapImageTest, SizeIsTheMapAndTheLegend) {
  MapImageRequest request;
  request.width = 40;
  request.height = 20;
  int calls = 0;
  request.value_at = [&calls](int i, int j) {
    ++calls;
    return static_cast<double>(i + j);
  };
  ASSERT_OK_AND_ASSIGN(MapImage image, RenderMapImage(request));
  EXPECT_EQ(calls, 40 * 20);  // once per pixel
  EXPECT_EQ(image.min, 0);
  EXPECT_EQ(image.max, 39 + 19);
  const DecodedPng d = DecodePng(image.png);
  EXPECT_EQ(d.width, 40);
  EXPECT_EQ(d.height, 20 + kLegendHeight);
}

TEST(MapImageTest, NanAndInfinityAreTransparentAndOutsideTheDefaultRange) {
  const double inf = std::numeric_limits<double>::infinity();
  ASSERT_OK_AND_ASSIGN(MapImage image, RenderMapImage(Request(5, 1, {1, kNaN, 3, inf, -inf})));
  EXPECT_EQ(image.min, 1);
  EXPECT_EQ(image.max, 3);
  const DecodedPng d = DecodePng(image.png);
  ASSERT_EQ(d.width, 5);
  EXPECT_EQ(d.At(0, 0), (Pixel{0, 0, 0, 255}));
  EXPECT_EQ(d.At(1, 0), (Pixel{0, 0, 0, 0}));
  EXPECT_EQ(d.At(2, 0), (Pixel{255, 255, 255, 255}));
  EXPECT_EQ(d.At(3, 0), (Pixel{0, 0, 0, 0}));
  EXPECT_EQ(d.At(4, 0), (Pixel{0, 0, 0, 0}));
}

TEST(MapImageTest, GrayRunsFromBlackToWhiteInOrder) {
  ASSERT_OK_AND_ASSIGN(MapImage image, RenderMapImage(Ramp(10)));
  const DecodedPng d = DecodePng(image.png);
  ASSERT_EQ(d.width, 10);
  EXPECT_EQ(d.At(0, 0), (Pixel{0, 0, 0, 255}));
  EXPECT_EQ(d.At(9, 0), (Pixel{255, 255, 255, 255}));
  for (int i = 1; i < 10; ++i) {
    EXPECT_GT(d.At(i, 0)[0], d.At(i - 1, 0)[0]) << i;
    EXPECT_EQ(d.At(i, 0)[0], d.At(i, 0)[1]);
    EXPECT_EQ(d.At(i, 0)[0], d.At(i, 0)[2]);
  }
}

TEST(MapImageTest, EachColormapEndsAtItsFirstAndLastStop) {
  struct Case {
    Colormap colormap;
    Pixel first, last;
  };
  const Case cases[] = {
      {Colormap::kViridis, {68, 1, 84, 255}, {253, 231, 37, 255}},
      {Colormap::kTurbo, {48, 18, 59, 255}, {122, 4, 3, 255}},
      {Colormap::kGray, {0, 0, 0, 255}, {255, 255, 255, 255}},
      {Colormap::kCoolwarm, {59, 76, 192, 255}, {180, 4, 38, 255}},
  };
  for (const Case& c : cases) {
    ASSERT_OK_AND_ASSIGN(MapImage image, RenderMapImage(Ramp(64, c.colormap)));
    const DecodedPng d = DecodePng(image.png);
    ASSERT_EQ(d.width, 64);
    EXPECT_EQ(d.At(0, 0), c.first) << static_cast<int>(c.colormap);
    EXPECT_EQ(d.At(63, 0), c.last) << static_cast<int>(c.colormap);
    std::set<Pixel> colours;
    for (int i = 0; i < 64; ++i) colours.insert(d.At(i, 0));
    EXPECT_GT(colours.size(), 32u) << static_cast<int>(c.colormap);
    // The colour bar runs the same way: its left end the first stop, its right end the last.
    EXPECT_EQ(d.At(8, 1 + 10), c.first);
    EXPECT_EQ(d.At(63 - 8, 1 + 10), c.last);
  }
}

TEST(MapImageTest, ExplicitRangeClamps) {
  MapImageRequest request = Ramp(10);
  request.range = std::array<double, 2>{2, 5};
  ASSERT_OK_AND_ASSIGN(MapImage image, RenderMapImage(request));
  EXPECT_EQ(image.min, 2);
  EXPECT_EQ(image.max, 5);
  const DecodedPng d = DecodePng(image.png);
  ASSERT_EQ(d.width, 10);
  for (int i : {0, 1, 2}) EXPECT_EQ(d.At(i, 0), (Pixel{0, 0, 0, 255})) << i;
  for (int i : {5, 6, 9}) EXPECT_EQ(d.At(i, 0), (Pixel{255, 255, 255, 255})) << i;
  EXPECT_GT(d.At(3, 0)[0], 0);
  EXPECT_GT(d.At(4, 0)[0], d.At(3, 0)[0]);
  EXPECT_LT(d.At(4, 0)[0], 255);
}

TEST(MapImageTest, LegendIsOpaqueWithABarAndLabels) {
  std::vector<double> values(200 * 50);
  for (size_t k = 0; k < values.size(); ++k) values[k] = static_cast<double>(k % 200) * 0.25;
  ASSERT_OK_AND_ASSIGN(MapImage image,
                       RenderMapImage(Request(200, 50, std::move(values), Colormap::kViridis)));
  const DecodedPng d = DecodePng(image.png);
  ASSERT_EQ(d.height, 50 + kLegendHeight);
  std::set<Pixel> colours;
  int text = 0;
  for (int y = 50; y < d.height; ++y) {
    for (int x = 0; x < d.width; ++x) {
      const Pixel p = d.At(x, y);
      EXPECT_EQ(p[3], 255) << x << "," << y;
      colours.insert(p);
      if (y >= 50 + 18 && p[0] < 128 && p[0] == p[1] && p[1] == p[2]) ++text;
    }
  }
  EXPECT_GT(colours.size(), 50u);  // the bar's colours, white and the text's grey
  EXPECT_TRUE(colours.count(Pixel{255, 255, 255, 255}));
  EXPECT_GT(text, 10);  // "0" and "49.75" printed
  // The labels sit at the ends: text pixels near both edges, none in the middle.
  auto has_text = [&d](int x0, int x1) {
    for (int y = 50 + 18; y < d.height; ++y) {
      for (int x = x0; x < x1; ++x) {
        if (d.At(x, y)[3] == 255 && d.At(x, y)[0] < 128) return true;
      }
    }
    return false;
  };
  EXPECT_TRUE(has_text(0, 30));
  EXPECT_TRUE(has_text(170, 200));
  EXPECT_FALSE(has_text(60, 140));
}

TEST(MapImageTest, AllNanStillRenders) {
  ASSERT_OK_AND_ASSIGN(MapImage image, RenderMapImage(Request(3, 2, std::vector<double>(6, kNaN))));
  EXPECT_EQ(image.min, 0);
  EXPECT_EQ(image.max, 1);
  const DecodedPng d = DecodePng(image.png);
  ASSERT_EQ(d.height, 2 + kLegendHeight);
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 3; ++x) EXPECT_EQ(d.At(x, y), (Pixel{0, 0, 0, 0}));
  }
  EXPECT_EQ(d.At(0, 2)[3], 255);
}

TEST(MapImageTest, ConstantPlaneIsWidened) {
  ASSERT_OK_AND_ASSIGN(MapImage image, RenderMapImage(Request(2, 2, {7, 7, 7, 7})));
  EXPECT_EQ(image.min, 6.5);
  EXPECT_EQ(image.max, 7.5);
  const DecodedPng d = DecodePng(image.png);
  ASSERT_EQ(d.width, 2);
  EXPECT_NEAR(d.At(1, 1)[0], 128, 1);
  EXPECT_EQ(d.At(1, 1)[3], 255);
}

TEST(MapImageTest, HugeValuesDoNotOverflow) {
  const double big = std::numeric_limits<double>::max();
  ASSERT_OK_AND_ASSIGN(MapImage image, RenderMapImage(Request(3, 1, {-big, 0, big})));
  const DecodedPng d = DecodePng(image.png);
  ASSERT_EQ(d.width, 3);
  EXPECT_EQ(d.At(0, 0), (Pixel{0, 0, 0, 255}));
  EXPECT_NEAR(d.At(1, 0)[0], 128, 1);
  EXPECT_EQ(d.At(2, 0), (Pixel{255, 255, 255, 255}));
  ASSERT_OK_AND_ASSIGN(MapImage one, RenderMapImage(Request(1, 1, {big})));
  EXPECT_LT(one.min, one.max);
}

TEST(MapImageTest, NarrowAndLargeImages) {
  ASSERT_OK_AND_ASSIGN(MapImage tiny, RenderMapImage(Request(1, 1, {5})));
  const DecodedPng t = DecodePng(tiny.png);
  EXPECT_EQ(t.width, 1);
  EXPECT_EQ(t.height, 1 + kLegendHeight);
  MapImageRequest request;
  request.width = 800;
  request.height = 400;
  request.value_at = [](int i, int j) { return std::sin(i * 0.02) * std::cos(j * 0.03); };
  request.colormap = Colormap::kTurbo;
  ASSERT_OK_AND_ASSIGN(MapImage large, RenderMapImage(request));
  const DecodedPng l = DecodePng(large.png);
  EXPECT_EQ(l.width, 800);
  EXPECT_EQ(l.height, 400 + kLegendHeight);
}

TEST(MapImageTest, RejectsBadArguments) {
  EXPECT_STATUS(RenderMapImage(Request(0, 1, {})), kInvalidArgument, "width 0 is not 1 to 4096");
  MapImageRequest wide = Ramp(1);
  wide.width = 5000;
  EXPECT_STATUS(RenderMapImage(wide), kInvalidArgument, "width 5000 is not 1 to 4096");
  MapImageRequest tall = Ramp(1);
  tall.height = 0;
  EXPECT_STATUS(RenderMapImage(tall), kInvalidArgument, "height 0 is not 1 to 4096");
  MapImageRequest range = Ramp(4);
  range.range = std::array<double, 2>{3, 1};
  EXPECT_STATUS(RenderMapImage(range), kInvalidArgument,
                "range 3,1: the minimum must be below the maximum");
  range.range = std::array<double, 2>{2, 2};
  EXPECT_STATUS(RenderMapImage(range), kInvalidArgument, "range 2,2");
  range.range = std::array<double, 2>{kNaN, 2};
  EXPECT_STATUS(RenderMapImage(range), kInvalidArgument, "range nan,2", "finite");
  MapImageRequest none;
  none.width = none.height = 1;
  EXPECT_STATUS(RenderMapImage(none), kInvalidArgument);
}

TEST(MapImageTest, ParsesColormapNames) {
  ASSERT_OK_AND_ASSIGN(Colormap viridis, ParseColormap("viridis"));
  EXPECT_EQ(viridis, Colormap::kViridis);
  ASSERT_OK_AND_ASSIGN(Colormap turbo, ParseColormap("turbo"));
  EXPECT_EQ(turbo, Colormap::kTurbo);
  ASSERT_OK_AND_ASSIGN(Colormap gray, ParseColormap("gray"));
  EXPECT_EQ(gray, Colormap::kGray);
  ASSERT_OK_AND_ASSIGN(Colormap coolwarm, ParseColormap("coolwarm"));
  EXPECT_EQ(coolwarm, Colormap::kCoolwarm);
  EXPECT_STATUS(ParseColormap("jet"), kInvalidArgument,
                "colormap 'jet' is not viridis, turbo, gray, coolwarm, temperature, "
                "precipitation or wind");
  EXPECT_STATUS(ParseColormap("Viridis"), kInvalidArgument, "'Viridis'");
  EXPECT_STATUS(ParseColormap(""), kInvalidArgument, "''");
}

}  // namespace
}  // namespace gridstore::server
