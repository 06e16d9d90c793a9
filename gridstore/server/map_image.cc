// Copyright 2026 The GridStore Authors.
//
// The quick-look PNG: colour maps as tables of control points, the map and its legend drawn into
// an RGBA buffer (with a 5x7 bitmap font for the legend's numbers), and libpng writing it.
#include "gridstore/server/map_image.h"

#include <png.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <span>

#include "gridstore/util/internal/strings.h"

namespace gridstore::server {
namespace {

constexpr int kMaxSide = 4096;

struct Rgb {
  uint8_t r, g, b;
};

// Control points at equal spacing, from the published tables: matplotlib's viridis (van der Walt
// and Smith) and coolwarm (Moreland's CoolWarmFloat33) and Google's turbo (Mikhailov), sampled
// at 0, 1/16, ..., 1 and rounded to bytes.
constexpr Rgb kViridis[] = {
    {68, 1, 84},    {72, 24, 106},  {71, 45, 123},  {66, 64, 134},  {59, 82, 139},  {51, 99, 141},
    {44, 114, 142}, {38, 129, 142}, {33, 144, 140}, {31, 159, 136}, {40, 174, 128}, {62, 188, 116},
    {93, 201, 99},  {130, 211, 76}, {171, 220, 50}, {213, 226, 26}, {253, 231, 37}};
constexpr Rgb kTurbo[] = {
    {48, 18, 59},   {64, 64, 161},   {70, 107, 227}, {66, 147, 255}, {41, 187, 236}, {24, 220, 195},
    {49, 242, 153}, {107, 253, 100}, {163, 253, 60}, {204, 237, 52}, {237, 208, 58}, {253, 174, 53},
    {251, 128, 34}, {236, 82, 15},   {210, 49, 5},   {172, 23, 1},   {122, 4, 3}};
constexpr Rgb kGray[] = {{0, 0, 0}, {255, 255, 255}};
constexpr Rgb kCoolwarm[] = {{59, 76, 192},   {77, 104, 215},  {98, 130, 234},  {119, 154, 247},
                             {141, 176, 254}, {163, 194, 255}, {184, 208, 249}, {204, 217, 238},
                             {221, 221, 221}, {236, 211, 197}, {245, 196, 173}, {247, 177, 148},
                             {244, 154, 123}, {236, 127, 99},  {222, 96, 77},   {203, 62, 56},
                             {180, 4, 38}};

// Per quantity: temperature is ColorBrewer's RdYlBu reversed (blue cold, red warm; Cynthia
// Brewer, Apache-2.0), precipitation runs from pale green through blue to purple (its lowest
// values are drawn transparent by the caller), wind from near white through blue and purple to
// dark red, darker for stronger winds.
constexpr Rgb kTemperature[] = {{49, 54, 149},   {69, 117, 180},  {116, 173, 209}, {171, 217, 233},
                                {224, 243, 248}, {255, 255, 191}, {254, 224, 144}, {253, 174, 97},
                                {244, 109, 67},  {215, 48, 39},   {165, 0, 38}};
constexpr Rgb kPrecipitation[] = {{204, 236, 230}, {161, 217, 155}, {116, 196, 118},
                                  {49, 163, 84},   {67, 162, 202},  {8, 104, 172},
                                  {37, 52, 148},   {84, 39, 143},   {122, 1, 119}};
constexpr Rgb kWind[] = {{247, 251, 255}, {198, 219, 239}, {107, 174, 214}, {33, 113, 181},
                         {84, 39, 143},   {174, 1, 126},   {103, 0, 31}};

std::span<const Rgb> Stops(Colormap colormap) {
  switch (colormap) {
    case Colormap::kTemperature:
      return kTemperature;
    case Colormap::kPrecipitation:
      return kPrecipitation;
    case Colormap::kWind:
      return kWind;
    case Colormap::kTurbo:
      return kTurbo;
    case Colormap::kGray:
      return kGray;
    case Colormap::kCoolwarm:
      return kCoolwarm;
    case Colormap::kViridis:
      break;
  }
  return kViridis;
}

// The colour at t in [0, 1] (clamped; NaN counts as 0): the stops linearly interpolated, the
// ends exactly the first and last stop.
Rgb ColourAt(std::span<const Rgb> stops, double t) {
  if (!(t > 0)) return stops.front();
  if (!(t < 1)) return stops.back();
  const double pos = t * static_cast<double>(stops.size() - 1);
  const size_t i = std::min(static_cast<size_t>(pos), stops.size() - 2);
  const double f = pos - static_cast<double>(i);
  const auto mix = [f](uint8_t a, uint8_t b) {
    return static_cast<uint8_t>(std::lround(a + (static_cast<double>(b) - a) * f));
  };
  const Rgb& a = stops[i];
  const Rgb& b = stops[i + 1];
  return {mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b)};
}

// ColourAt tabulated finely (adjacent entries differ by less than one level), for speed.
class Palette {
 public:
  explicit Palette(std::span<const Rgb> stops) {
    for (int k = 0; k < kSize; ++k) {
      table_[k] = ColourAt(stops, static_cast<double>(k) / (kSize - 1));
    }
  }
  Rgb operator()(double t) const {
    if (!(t > 0)) return table_.front();
    if (!(t < 1)) return table_.back();
    return table_[static_cast<size_t>(t * (kSize - 1) + 0.5)];
  }

 private:
  static constexpr int kSize = 4096;
  std::array<Rgb, kSize> table_;
};

// Where v lies in [min, max], as a fraction (not clamped), without overflow for huge ranges.
class Scale {
 public:
  Scale(double min, double max) : min_(min), span_(max - min), halved_(std::isinf(span_)) {
    if (halved_) span_ = max / 2 - min / 2;
  }
  double operator()(double v) const {
    return halved_ ? (v / 2 - min_ / 2) / span_ : (v - min_) / span_;
  }

 private:
  double min_, span_;
  bool halved_;
};

// The min and max of the finite values; a single value (or none) widened so that it renders.
std::array<double, 2> DefaultRange(const std::vector<double>& values) {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -lo;
  for (double v : values) {
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (lo > hi) return {0, 1};
  if (lo < hi) return {lo, hi};
  const double v = lo;
  double a = v - 0.5, b = v + 0.5;
  if (a == b) {  // |v| so large that 0.5 is lost
    a = v - std::fabs(v) * 1e-6;
    b = v + std::fabs(v) * 1e-6;
    if (!std::isfinite(a)) a = v;
    if (!std::isfinite(b)) b = v;
  }
  return {a, b};
}

std::string Number(double v, const char* format) {
  char text[64];
  std::snprintf(text, sizeof text, format, v);
  return text;
}

Status Validate(const MapImageRequest& request) {
  if (request.width < 1 || request.width > kMaxSide) {
    return Status::InvalidArgument("width " + std::to_string(request.width) + " is not 1 to 4096");
  }
  if (request.height < 1 || request.height > kMaxSide) {
    return Status::InvalidArgument("height " + std::to_string(request.height) +
                                   " is not 1 to 4096");
  }
  if (request.range) {
    const auto [lo, hi] = *request.range;
    const std::string what = "range " + Number(lo, "%.10g") + "," + Number(hi, "%.10g");
    if (!std::isfinite(lo) || !std::isfinite(hi)) {
      return Status::InvalidArgument(what + ": the minimum and maximum must be finite");
    }
    if (!(lo < hi)) {
      return Status::InvalidArgument(what + ": the minimum must be below the maximum");
    }
  }
  if (!request.value_at) return Status::InvalidArgument("the map image has no values");
  return Status::OK();
}

// An RGBA image in memory, rows top to bottom.
class Canvas {
 public:
  Canvas(int width, int height)
      : width_(width), height_(height), px_(static_cast<size_t>(width) * height * 4, 0) {}
  int width() const { return width_; }
  int height() const { return height_; }
  const uint8_t* data() const { return px_.data(); }

  void Set(int x, int y, Rgb c, uint8_t alpha = 255) {
    if (x < 0 || y < 0 || x >= width_ || y >= height_) return;
    uint8_t* p = &px_[(static_cast<size_t>(y) * width_ + x) * 4];
    p[0] = c.r;
    p[1] = c.g;
    p[2] = c.b;
    p[3] = alpha;
  }

 private:
  int width_, height_;
  std::vector<uint8_t> px_;
};

// A 5x7 font for numbers as %g prints them; each row's bit 4 is the leftmost pixel.
constexpr int kGlyphWidth = 5, kGlyphHeight = 7, kGlyphAdvance = 6;
struct Glyph {
  char c;
  uint8_t rows[kGlyphHeight];
};
constexpr Glyph kFont[] = {
    {'0', {0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E}},
    {'1', {0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E}},
    {'2', {0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F}},
    {'3', {0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E}},
    {'4', {0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02}},
    {'5', {0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E}},
    {'6', {0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E}},
    {'7', {0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08}},
    {'8', {0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E}},
    {'9', {0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C}},
    {'.', {0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C}},
    {'-', {0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00}},
    {'+', {0x00, 0x04, 0x04, 0x1F, 0x04, 0x04, 0x00}},
    {'e', {0x00, 0x00, 0x0E, 0x11, 0x1F, 0x10, 0x0E}},
    {'n', {0x00, 0x00, 0x16, 0x19, 0x11, 0x11, 0x11}},
    {'a', {0x00, 0x00, 0x0E, 0x01, 0x0F, 0x11, 0x0F}},
    {'i', {0x04, 0x00, 0x0C, 0x04, 0x04, 0x04, 0x0E}},
    {'f', {0x06, 0x09, 0x08, 0x1C, 0x08, 0x08, 0x08}},
};
constexpr Rgb kTextColour = {64, 64, 64};
constexpr Rgb kWhite = {255, 255, 255};

int TextWidth(std::string_view text) {
  return text.empty() ? 0 : static_cast<int>(text.size()) * kGlyphAdvance - 1;
}

// Draws `text` with its top left corner at (x, y); characters the font lacks stay blank.
void DrawText(Canvas& canvas, int x, int y, std::string_view text) {
  for (char c : text) {
    const auto* glyph =
        std::find_if(std::begin(kFont), std::end(kFont), [c](const Glyph& g) { return g.c == c; });
    if (glyph != std::end(kFont)) {
      for (int row = 0; row < kGlyphHeight; ++row) {
        for (int col = 0; col < kGlyphWidth; ++col) {
          if (glyph->rows[row] & (0x10 >> col)) canvas.Set(x + col, y + row, kTextColour);
        }
      }
    }
    x += kGlyphAdvance;
  }
}

// The strip below the map (from row `top`): white, a colour bar from min (left) to max (right)
// and, when they fit, the minimum and maximum printed beneath its ends.
void DrawLegend(Canvas& canvas, int top, std::array<double, 2> range, std::span<const Rgb> stops) {
  constexpr int kMargin = 8, kBarTop = 4, kBarBottom = 16, kTextTop = 20;
  const int width = canvas.width();
  for (int y = top; y < top + kLegendHeight; ++y) {
    for (int x = 0; x < width; ++x) canvas.Set(x, y, kWhite);
  }
  const int margin = width >= 4 * kMargin ? kMargin : 0;
  const int bar = width - 2 * margin;
  for (int x = 0; x < bar; ++x) {
    const double t = bar > 1 ? static_cast<double>(x) / (bar - 1) : 0.0;
    const Rgb c = ColourAt(stops, t);
    for (int y = kBarTop; y < kBarBottom; ++y) canvas.Set(margin + x, top + y, c);
  }
  const std::string lo = Number(range[0], "%.4g");
  const std::string hi = Number(range[1], "%.4g");
  if (margin + TextWidth(lo) + kGlyphAdvance + TextWidth(hi) + margin > width) return;
  DrawText(canvas, margin, top + kTextTop, lo);
  DrawText(canvas, width - margin - TextWidth(hi), top + kTextTop, hi);
}

// libpng's side: what its callbacks see. Plain data only, since libpng longjmps over it.
struct PngError {
  char message[160];
};

void OnPngError(png_structp png, png_const_charp message) {
  auto* error = static_cast<PngError*>(png_get_error_ptr(png));
  std::snprintf(error->message, sizeof error->message, "%s", message);
  png_longjmp(png, 1);
}

void OnPngWarning(png_structp, png_const_charp) {}

void OnPngWrite(png_structp png, png_bytep data, size_t size) {
  bool ok = true;
  try {
    static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<char*>(data), size);
  } catch (...) {
    ok = false;
  }
  if (!ok) png_error(png, "out of memory");
}

void OnPngFlush(png_structp) {}  // (libpng's default flush takes the output for a FILE*)

// The pixels of one PNG: RGBA, or 8-bit indices into `palette` (256 RGB entries, entry 0 fully
// transparent: a quarter of the bytes of RGBA to compress, which is most of a map's time).
struct PngPixels {
  const uint8_t* data = nullptr;
  const png_color* palette = nullptr;  // null: RGBA
  int width = 0, height = 0;
};

void WritePngRows(png_structp png, png_infop info, const PngPixels& pixels) {
  png_set_compression_level(png, 1);  // Z_BEST_SPEED: maps are made on request
  if (pixels.palette != nullptr) png_set_compression_strategy(png, 3);  // Z_RLE: runs of a colour
  png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);  // the fastest, and small enough
  png_set_IHDR(png, info, static_cast<png_uint_32>(pixels.width),
               static_cast<png_uint_32>(pixels.height), 8,
               pixels.palette != nullptr ? PNG_COLOR_TYPE_PALETTE : PNG_COLOR_TYPE_RGBA,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
  if (pixels.palette != nullptr) {
    png_set_PLTE(png, info, pixels.palette, 256);
    png_byte transparent[1] = {0};
    png_set_tRNS(png, info, transparent, 1, nullptr);
  }
  png_write_info(png, info);
  const size_t stride = size_t(pixels.width) * (pixels.palette != nullptr ? 1 : 4);
  for (int y = 0; y < pixels.height; ++y) png_write_row(png, pixels.data + stride * size_t(y));
  png_write_end(png, nullptr);
}

// Encodes into *out; false with error->message set if libpng fails. Kept free of C++ objects
// with destructors: a libpng error longjmps back into it.
bool EncodePngPlain(const PngPixels& pixels, std::string* out, PngError* error) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, error, OnPngError, OnPngWarning);
  if (png == nullptr) return false;
  png_infop info = png_create_info_struct(png);
  if (info == nullptr) {
    png_destroy_write_struct(&png, nullptr);
    return false;
  }
  if (setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, out, OnPngWrite, OnPngFlush);
  WritePngRows(png, info, pixels);
  png_destroy_write_struct(&png, &info);
  return true;
}

Result<std::string> EncodePng(const PngPixels& pixels) {
  std::string out;
  PngError error;
  std::snprintf(error.message, sizeof error.message, "%s", "cannot create the PNG writer");
  if (!EncodePngPlain(pixels, &out, &error)) {
    return Status::Internal(std::string("writing the map PNG: ") + error.message);
  }
  return out;
}

Result<std::string> EncodePng(const Canvas& canvas) {
  return EncodePng(PngPixels{canvas.data(), nullptr, canvas.width(), canvas.height()});
}

}  // namespace

constexpr Colormap kColormaps[] = {
    Colormap::kViridis,     Colormap::kTurbo,         Colormap::kGray, Colormap::kCoolwarm,
    Colormap::kTemperature, Colormap::kPrecipitation, Colormap::kWind};

Result<Colormap> ParseColormap(std::string_view name) {
  for (Colormap c : kColormaps) {
    if (ColormapName(c) == name) return c;
  }
  return Status::InvalidArgument("colormap " + Quote(name) +
                                 " is not viridis, turbo, gray, coolwarm, temperature, "
                                 "precipitation or wind");
}

std::string_view ColormapName(Colormap colormap) {
  switch (colormap) {
    case Colormap::kViridis:
      return "viridis";
    case Colormap::kTurbo:
      return "turbo";
    case Colormap::kGray:
      return "gray";
    case Colormap::kCoolwarm:
      return "coolwarm";
    case Colormap::kTemperature:
      return "temperature";
    case Colormap::kPrecipitation:
      return "precipitation";
    case Colormap::kWind:
      return "wind";
  }
  return "viridis";
}

std::string ColormapHex(Colormap colormap, double t) {
  const Rgb c = ColourAt(Stops(colormap), t);
  char text[8];
  std::snprintf(text, sizeof text, "#%02x%02x%02x", c.r, c.g, c.b);
  return text;
}

std::vector<double> LegendTicks(double min, double max) {
  const double span = max - min;
  std::vector<double> best;
  double best_score = std::numeric_limits<double>::infinity();
  const double base = std::pow(10.0, std::floor(std::log10(span / 6)));
  for (double magnitude : {base / 10, base, base * 10}) {
    for (double m : {1.0, 2.0, 2.5, 5.0}) {
      const double step = m * magnitude;
      if (!(step > 0) || !std::isfinite(step)) continue;
      const double first = std::ceil(min / step), last = std::floor(max / step);
      const double count = last - first + 1;
      if (count < 2 || count > 12) continue;
      // 6 ticks is the aim; 5 to 8 are fine; 2.5 a little less round than 1, 2 and 5.
      const double score =
          std::fabs(count - 6) + (count < 5 || count > 8 ? 10 : 0) + (m == 2.5 ? 0.5 : 0);
      if (score >= best_score) continue;
      best_score = score;
      best.clear();
      for (double k = first; k <= last; ++k) {
        // Printed and read back at 12 digits: 0.1 * 3 is 0.3, not 0.30000000000000004.
        char text[32];
        std::snprintf(text, sizeof text, "%.12g", k * step);
        best.push_back(std::strtod(text, nullptr));
      }
    }
  }
  if (best.empty()) best = {min, max};
  return best;
}

Result<MapImage> RenderMapImage(const MapImageRequest& request) {
  if (Status s = Validate(request); !s.ok()) return s;
  const int width = request.width, height = request.height;
  std::vector<double> values(static_cast<size_t>(width) * height);
  for (int j = 0; j < height; ++j) {
    for (int i = 0; i < width; ++i)
      values[static_cast<size_t>(j) * width + i] = request.value_at(i, j);
  }
  const std::array<double, 2> range = request.range ? *request.range : DefaultRange(values);
  const std::span<const Rgb> stops = Stops(request.colormap);
  const Scale scale(range[0], range[1]);
  const auto palette = std::make_unique<Palette>(stops);
  Canvas canvas(width, height + kLegendHeight);
  for (int j = 0; j < height; ++j) {
    for (int i = 0; i < width; ++i) {
      const double v = values[static_cast<size_t>(j) * width + i];
      if (std::isfinite(v)) canvas.Set(i, j, (*palette)(scale(v)));  // else transparent
    }
  }
  DrawLegend(canvas, height, range, stops);
  GRIDSTORE_ASSIGN_OR_RETURN(std::string png, EncodePng(canvas));
  return MapImage{std::move(png), range[0], range[1]};
}

ColourIndexer::ColourIndexer(std::array<double, 2> range, std::optional<double> transparent_below)
    : lo_(range[0]),
      factor_((kSteps - 1) / (range[1] - range[0])),
      plain_(std::isfinite(range[1] - range[0])),
      below_(transparent_below ? float(*transparent_below)
                               : -std::numeric_limits<float>::infinity()) {
  if (!plain_) factor_ = (kSteps - 1) / (range[1] / 2 - range[0] / 2);
}

Result<std::string> RenderIndexedPng(int width, int height, const uint8_t* indices,
                                     Colormap colormap) {
  MapImageRequest check{
      .width = width, .height = height, .value_at = [](int, int) { return 0.0; }, .range = {}};
  if (Status s = Validate(check); !s.ok()) return s;
  if (indices == nullptr) return Status::InvalidArgument("the field image has no values");
  std::array<png_color, 256> palette{};
  const std::span<const Rgb> stops = Stops(colormap);
  for (int k = 0; k < ColourIndexer::kSteps; ++k) {
    const Rgb c = ColourAt(stops, double(k) / (ColourIndexer::kSteps - 1));
    palette[size_t(k) + 1] = {c.r, c.g, c.b};
  }
  return EncodePng(PngPixels{indices, palette.data(), width, height});
}

Result<std::string> RenderFieldPng(const FieldImageRequest& request) {
  MapImageRequest check{.width = request.width,
                        .height = request.height,
                        .value_at = [](int, int) { return 0.0; },
                        .range = request.range,
                        .colormap = request.colormap};
  if (Status s = Validate(check); !s.ok()) return s;
  if (request.values == nullptr) return Status::InvalidArgument("the field image has no values");
  const ColourIndexer index(request.range, request.transparent_below);
  const size_t n = size_t(request.width) * size_t(request.height);
  std::vector<uint8_t> indices(n);
  for (size_t i = 0; i < n; ++i) indices[i] = index(request.values[i]);
  return RenderIndexedPng(request.width, request.height, indices.data(), request.colormap);
}

}  // namespace gridstore::server
