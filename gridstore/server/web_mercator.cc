// Copyright 2026 The GridStore Authors.
#include "gridstore/server/web_mercator.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace gridstore::server {
namespace {

constexpr double kWebMercatorDeg = M_PI / 180;
constexpr const char* kWebMercatorCrs = "http://www.opengis.net/def/crs/EPSG/0/3857";
constexpr const char* kWebMercatorScaleSet =
    "http://www.opengis.net/def/wkss/OGC/1.0/GoogleMapsCompatible";
constexpr const char* kWebMercatorTitle = "Google Maps Compatible for the World";

}  // namespace

double MercatorX(double lon) { return kWebMercatorRadius * lon * kWebMercatorDeg; }

double MercatorY(double lat) {
  lat = std::clamp(lat, -kWebMercatorMaxLat, kWebMercatorMaxLat);
  return kWebMercatorRadius * std::log(std::tan(M_PI / 4 + lat * kWebMercatorDeg / 2));
}

double LonOfMercatorX(double x) { return x / kWebMercatorRadius / kWebMercatorDeg; }

double LatOfMercatorY(double y) {
  return (2 * std::atan(std::exp(y / kWebMercatorRadius)) - M_PI / 2) / kWebMercatorDeg;
}

std::array<double, 4> TileBoundsMetres(int z, int64_t row, int64_t col) {
  const double size = 2 * kWebMercatorHalf / std::ldexp(1.0, z);
  const double west = -kWebMercatorHalf + double(col) * size;
  const double north = kWebMercatorHalf - double(row) * size;
  return {west, north - size, west + size, north};
}

Status CheckTile(int64_t z, int64_t row, int64_t col) {
  if (z < 0 || z > kMaxTileMatrix) {
    return Status::InvalidArgument("tileMatrix " + std::to_string(z) +
                                   " is not a tile matrix of WebMercatorQuad (0 to 24)");
  }
  const int64_t n = int64_t{1} << z;
  const std::string bounds = " is not 0 to " + std::to_string(n - 1) + " at tileMatrix " +
                             std::to_string(z) + " (" + std::to_string(n) + " tiles each way)";
  if (row < 0 || row >= n)
    return Status::InvalidArgument("tileRow " + std::to_string(row) + bounds);
  if (col < 0 || col >= n)
    return Status::InvalidArgument("tileCol " + std::to_string(col) + bounds);
  return Status::OK();
}

TileLimits TilesCovering(int z, const std::array<double, 4>& bbox) {
  const int64_t n = int64_t{1} << z;
  const double size = 2 * kWebMercatorHalf / double(n);
  auto index = [&](double metres) {
    return std::clamp<int64_t>(int64_t(std::floor(metres / size)), 0, n - 1);
  };
  TileLimits t;
  t.z = z;
  double west = bbox[0], east = bbox[2];
  if (west >= 180) west -= 360, east -= 360;  // a grid in 0..360 east of the antimeridian
  if (east - west >= 360 || west < -180 || east > 180 || east < west) {
    west = -180, east = 180;
  }
  t.min_col = index(MercatorX(west) + kWebMercatorHalf);
  // An east edge exactly on a tile edge does not reach into the next tile.
  t.max_col = std::max(t.min_col, index(MercatorX(east) + kWebMercatorHalf - size * 1e-9));
  t.min_row = index(kWebMercatorHalf - MercatorY(bbox[3]));
  t.max_row = std::max(t.min_row, index(kWebMercatorHalf - MercatorY(bbox[1]) - size * 1e-9));
  return t;
}

int MaxUsefulTileMatrix(double cell_degrees) {
  if (!(cell_degrees > 0) || !std::isfinite(cell_degrees)) return 6;
  int z = 0;
  while (z < 17 && 360.0 / (kTileSize * std::ldexp(1.0, z)) > cell_degrees / 2) ++z;
  return std::min(z + 1, 18);
}

std::string WebMercatorQuadJson(bool encoding_2_0) {
  using nlohmann::ordered_json;
  const ordered_json corner = {-kWebMercatorHalf, kWebMercatorHalf};
  ordered_json matrices = ordered_json::array();
  for (int z = 0; z <= kMaxTileMatrix; ++z) {
    const double scale = kWebMercatorScale0 / std::ldexp(1.0, z);
    const int64_t n = int64_t{1} << z;
    if (encoding_2_0) {
      matrices.push_back({{"id", std::to_string(z)},
                          {"scaleDenominator", scale},
                          {"cellSize", 2 * kWebMercatorHalf / double(n * kTileSize)},
                          {"cornerOfOrigin", "topLeft"},
                          {"pointOfOrigin", corner},
                          {"tileWidth", kTileSize},
                          {"tileHeight", kTileSize},
                          {"matrixWidth", n},
                          {"matrixHeight", n}});
    } else {
      matrices.push_back({{"type", "TileMatrixType"},
                          {"identifier", std::to_string(z)},
                          {"scaleDenominator", scale},
                          {"topLeftCorner", corner},
                          {"tileWidth", kTileSize},
                          {"tileHeight", kTileSize},
                          {"matrixWidth", n},
                          {"matrixHeight", n}});
    }
  }
  ordered_json doc;
  if (encoding_2_0) {
    doc = {{"id", "WebMercatorQuad"},
           {"title", kWebMercatorTitle},
           {"uri", "http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad"},
           {"crs", kWebMercatorCrs},
           {"orderedAxes", {"X", "Y"}},
           {"wellKnownScaleSet", kWebMercatorScaleSet},
           {"tileMatrices", std::move(matrices)}};
  } else {
    doc = {{"type", "TileMatrixSetType"},
           {"title", kWebMercatorTitle},
           {"identifier", "WebMercatorQuad"},
           {"boundingBox",
            {{"type", "BoundingBoxType"},
             {"crs", kWebMercatorCrs},
             {"lowerCorner", {-kWebMercatorHalf, -kWebMercatorHalf}},
             {"upperCorner", {kWebMercatorHalf, kWebMercatorHalf}}}},
           {"supportedCRS", kWebMercatorCrs},
           {"wellKnownScaleSet", kWebMercatorScaleSet},
           {"tileMatrix", std::move(matrices)}};
  }
  return doc.dump(2);
}

}  // namespace gridstore::server
