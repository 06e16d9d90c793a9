// Copyright 2026 The GridStore Authors.
//
// The WebMercatorQuad tile matrix set of OGC's Two Dimensional Tile Matrix Set standard
// (EPSG:3857, 256x256 tiles, tile matrix z has 2^z x 2^z tiles, row 0 at the top): tile bounds,
// the longitude of a pixel column and the latitude of a pixel row (Web Mercator's columns are
// meridians and its rows parallels, so a pixel's cell on a lon/lat grid is found per column and
// per row), and the tiles covering a lon/lat box (tileMatrixSetLimits). Plain functions of their
// arguments: safe anywhere.
#ifndef GRIDSTORE_SERVER_WEB_MERCATOR_H_
#define GRIDSTORE_SERVER_WEB_MERCATOR_H_

#include <array>
#include <cstdint>
#include <string>

#include "gridstore/util/result.h"

namespace gridstore::server {

inline constexpr double kWebMercatorRadius = 6378137.0;
// Half the Earth's circumference at the equator in Web Mercator metres: the square's half side.
inline constexpr double kWebMercatorHalf = 20037508.342789244;
// The latitude of the square's top edge.
inline constexpr double kWebMercatorMaxLat = 85.0511287798066;
inline constexpr int kTileSize = 256;
inline constexpr int kMaxTileMatrix = 24;
// scaleDenominator of tile matrix 0 (0.28 mm pixels), as the standard's table has it.
inline constexpr double kWebMercatorScale0 = 559082264.0287178;

double MercatorX(double lon);
double MercatorY(double lat);  // lat clamped to +-kWebMercatorMaxLat
double LonOfMercatorX(double x);
double LatOfMercatorY(double y);

// {west, south, east, north} of tile (z, row, col) in Web Mercator metres.
std::array<double, 4> TileBoundsMetres(int z, int64_t row, int64_t col);

// InvalidArgument naming the value and its bounds unless 0 <= z <= 24 and row and col are in
// 0 .. 2^z - 1.
Status CheckTile(int64_t z, int64_t row, int64_t col);

struct TileLimits {
  int z = 0;
  int64_t min_row = 0, max_row = 0, min_col = 0, max_col = 0;
};
// The tiles of matrix `z` that cover the lon/lat box {west, south, east, north} (clamped to the
// Web Mercator square; a box wider than 360 degrees, or crossing +-180, takes every column).
TileLimits TilesCovering(int z, const std::array<double, 4>& bbox);

// The finest tile matrix worth serving for a grid of `cell_degrees` spacing: the first whose
// pixels are smaller than half a cell at the equator, plus one, within 0 .. 18.
int MaxUsefulTileMatrix(double cell_degrees);

// The tile matrix set document: the 1.0 JSON encoding (OGC 17-083r2, "TileMatrixSetType",
// what GDAL 3.6 parses) or the 2.0 one (OGC 17-083r4, "tileMatrices").
std::string WebMercatorQuadJson(bool encoding_2_0);

}  // namespace gridstore::server

#endif  // GRIDSTORE_SERVER_WEB_MERCATOR_H_
