// Copyright 2026 The GridStore Authors.
//
// The map interfaces of issue 32: Web Mercator tile math, the colour maps and legend ticks, and
// through the real service on a loopback socket (over a RocksDB store holding the collections of
// tests/formats/collection_testutil.h and a dataset on another grid) the tile sets, tiles, maps
// and legends: fixed ranges across steps, colour maps by quantity, members and statistics, the
// difference on the same grid and across grids, and every parameter error with its sentence; and
// over a real ERA5 file imported as a forecast collection, the wind speed derived from its u10/v10
// pair (10si) drawn with the wind colour map, pixel by pixel against sqrt(u^2 + v^2).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <png.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "gridstore/forecast/collection.h"
#include "gridstore/geo/extract.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/importers/netcdf/netcdf_importer.h"
#include "gridstore/server/edr_service.h"
#include "gridstore/server/http_server.h"
#include "gridstore/server/map_image.h"
#include "gridstore/server/web_mercator.h"
#include "tests/formats/collection_testutil.h"
#include "tests/server/http_client_testutil.h"
#include "tests/server/png_testutil.h"
#include "tests/test_util.h"

namespace gridstore::server {
namespace map_tiles_test {

using ::testing::HasSubstr;
using Json = nlohmann::json;
using testing::EnsT;

std::array<int, 3> Hex(const std::string& hex) {
  return {std::stoi(hex.substr(1, 2), nullptr, 16), std::stoi(hex.substr(3, 2), nullptr, 16),
          std::stoi(hex.substr(5, 2), nullptr, 16)};
}

// The value a pixel's colour stands for, through the legend's stops: the stop whose colour is
// nearest, or NaN for a transparent pixel.
double ValueOfColour(const Json& legend, std::array<int, 4> px) {
  if (px[3] == 0) return NAN;
  double best = 1e18, value = NAN;
  for (const Json& stop : legend["stops"]) {
    const auto c = Hex(stop[1].get<std::string>());
    const double d =
        std::pow(c[0] - px[0], 2) + std::pow(c[1] - px[1], 2) + std::pow(c[2] - px[2], 2);
    if (d < best) best = d, value = stop[0].get<double>();
  }
  return value;
}

// The two numbers of an X-GridStore-Range header ("min,max").
std::array<double, 2> ParseRange(const std::string& header) {
  const size_t comma = header.find(',');
  if (comma == std::string::npos) return {NAN, NAN};
  return {std::stod(header.substr(0, comma)), std::stod(header.substr(comma + 1))};
}

// ---- tile math, colour maps, ticks ----

TEST(WebMercatorTest, TileBoundsAndPixelCentres) {
  const auto world = TileBoundsMetres(0, 0, 0);
  EXPECT_DOUBLE_EQ(world[0], -kWebMercatorHalf);
  EXPECT_DOUBLE_EQ(world[3], kWebMercatorHalf);
  const auto t = TileBoundsMetres(2, 1, 2);  // east of Greenwich, north of the equator
  EXPECT_NEAR(LonOfMercatorX(t[0]), 0, 1e-9);
  EXPECT_NEAR(LonOfMercatorX(t[2]), 90, 1e-9);
  EXPECT_NEAR(LatOfMercatorY(t[1]), 0, 1e-9);
  EXPECT_NEAR(LatOfMercatorY(t[3]), 66.51326044311186, 1e-9);
  EXPECT_NEAR(LatOfMercatorY(kWebMercatorHalf), kWebMercatorMaxLat, 1e-9);
  for (double lat : {-80.0, -12.5, 0.0, 45.0, 85.0}) {
    EXPECT_NEAR(LatOfMercatorY(MercatorY(lat)), lat, 1e-9);
  }
}

TEST(WebMercatorTest, CheckTileNamesTheBound) {
  EXPECT_TRUE(CheckTile(0, 0, 0).ok());
  EXPECT_TRUE(CheckTile(24, (1 << 24) - 1, 0).ok());
  EXPECT_THAT(CheckTile(25, 0, 0).message(), HasSubstr("tileMatrix 25 is not a tile matrix"));
  EXPECT_THAT(CheckTile(-1, 0, 0).message(), HasSubstr("0 to 24"));
  EXPECT_THAT(CheckTile(3, 8, 0).message(), HasSubstr("tileRow 8 is not 0 to 7 at tileMatrix 3"));
  EXPECT_THAT(CheckTile(3, 0, -1).message(), HasSubstr("tileCol -1 is not 0 to 7"));
}

TEST(WebMercatorTest, TilesCoveringABox) {
  // Europe's test grid (lon -10..8, lat 53..60) at zoom 2: columns 1 and 2, row 1.
  const TileLimits t = TilesCovering(2, {-10, 53, 8, 60});
  EXPECT_EQ(t.min_col, 1);
  EXPECT_EQ(t.max_col, 2);
  EXPECT_EQ(t.min_row, 1);
  EXPECT_EQ(t.max_row, 1);
  // A global 0..360 grid takes every column; the poles are clamped.
  const TileLimits g = TilesCovering(3, {0, -90, 359.75, 90});
  EXPECT_EQ(g.min_col, 0);
  EXPECT_EQ(g.max_col, 7);
  EXPECT_EQ(g.min_row, 0);
  EXPECT_EQ(g.max_row, 7);
  EXPECT_EQ(MaxUsefulTileMatrix(0.25), 5);
  EXPECT_EQ(MaxUsefulTileMatrix(2), 2);
}

TEST(WebMercatorTest, TileMatrixSetEncodings) {
  const Json v1 = Json::parse(WebMercatorQuadJson(false));
  EXPECT_EQ(v1["type"], "TileMatrixSetType");
  EXPECT_EQ(v1["supportedCRS"], "http://www.opengis.net/def/crs/EPSG/0/3857");
  ASSERT_EQ(v1["tileMatrix"].size(), 25u);
  EXPECT_EQ(v1["tileMatrix"][3]["identifier"], "3");
  EXPECT_EQ(v1["tileMatrix"][3]["matrixWidth"], 8);
  EXPECT_NEAR(v1["tileMatrix"][0]["scaleDenominator"].get<double>(), 559082264.0287178, 1e-6);
  const Json v2 = Json::parse(WebMercatorQuadJson(true));
  EXPECT_EQ(v2["crs"], "http://www.opengis.net/def/crs/EPSG/0/3857");
  ASSERT_EQ(v2["tileMatrices"].size(), 25u);
  EXPECT_NEAR(v2["tileMatrices"][0]["cellSize"].get<double>(), 156543.03392804097, 1e-6);
}

TEST(MapColoursTest, PerQuantityColourMapsParseAndEndAtTheirStops) {
  for (const char* name :
       {"viridis", "turbo", "gray", "coolwarm", "temperature", "precipitation", "wind"}) {
    ASSERT_OK_AND_ASSIGN(Colormap c, ParseColormap(name));
    EXPECT_EQ(ColormapName(c), name);
  }
  EXPECT_THAT(ParseColormap("jet").status().message(),
              HasSubstr("colormap 'jet' is not viridis, turbo, gray, coolwarm, temperature, "
                        "precipitation or wind"));
  EXPECT_EQ(ColormapHex(Colormap::kTemperature, 0), "#313695");
  EXPECT_EQ(ColormapHex(Colormap::kTemperature, 1), "#a50026");
  EXPECT_EQ(ColormapHex(Colormap::kCoolwarm, 1), "#b40426");
  EXPECT_EQ(ColormapHex(Colormap::kGray, 0.5), "#808080");
}

TEST(MapColoursTest, FieldPngIsTransparentBelowTheThresholdAndWhereNaN) {
  const float values[4] = {0.0f, 0.05f, 0.5f, NAN};
  ASSERT_OK_AND_ASSIGN(std::string png, RenderFieldPng({.width = 4,
                                                        .height = 1,
                                                        .values = values,
                                                        .range = {0, 1},
                                                        .colormap = Colormap::kPrecipitation,
                                                        .transparent_below = 0.1}));
  const DecodedPng image = DecodePng(png);
  ASSERT_EQ(image.width, 4);
  EXPECT_EQ(image.At(0, 0)[3], 0);
  EXPECT_EQ(image.At(1, 0)[3], 0);
  EXPECT_EQ(image.At(2, 0)[3], 255);
  EXPECT_EQ(image.At(3, 0)[3], 0);
  EXPECT_THAT(RenderFieldPng({.width = 4, .height = 1, .values = values, .range = {1, 1}})
                  .status()
                  .message(),
              HasSubstr("the minimum must be below the maximum"));
}

TEST(LegendTicksTest, FiveToEightRoundValuesInside) {
  EXPECT_EQ(LegendTicks(272.12, 302.99), (std::vector<double>{275, 280, 285, 290, 295, 300}));
  EXPECT_EQ(LegendTicks(0, 1), (std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1}));
  EXPECT_EQ(LegendTicks(-3.5, 3.5), (std::vector<double>{-3, -2, -1, 0, 1, 2, 3}));
  for (auto [lo, hi] : std::vector<std::pair<double, double>>{
           {260, 263.375}, {-0.0013, 0.0042}, {1e5, 1.04e5}, {0, 37}, {-41.7, 12}}) {
    const std::vector<double> ticks = LegendTicks(lo, hi);
    EXPECT_GE(ticks.size(), 5u) << lo << " " << hi;
    EXPECT_LE(ticks.size(), 8u) << lo << " " << hi;
    for (double t : ticks) {
      EXPECT_GE(t, lo);
      EXPECT_LE(t, hi);
    }
  }
}

TEST(MapLanesTest, MapsLegendsAndTilesTakeTheExpensiveLane) {
  auto expensive = [](const std::string& target) {
    HttpRequest r;
    r.method = "GET";
    r.target = target;
    return EdrService::IsExpensive(r);
  };
  EXPECT_TRUE(expensive("/collections/a%2Fb/map/tiles/WebMercatorQuad/3/2/1?member=1"));
  EXPECT_TRUE(expensive("/collections/a%2Fb/map?width=1024"));
  EXPECT_TRUE(expensive("/collections/a%2Fb/map/legend"));
  EXPECT_FALSE(expensive("/collections/a%2Fb/map/tiles/WebMercatorQuad"));
  EXPECT_FALSE(expensive("/tileMatrixSets/WebMercatorQuad"));
  EXPECT_FALSE(expensive("/collections/a%2Fb/position?coords=POINT(1%202)"));
}

// ---- the service ----

// "shifted/one": t at 850 hPa on a 1-degree grid (lat 61..52, lon -11..9), constant in time,
// of value 100 + lat + 0.1 lon, with plain/one's two times: B of a difference across grids.
Status WriteShifted(grid::GridStore& store) {
  constexpr int64_t kLat = 10, kLon = 21;
  grid::VariableMeta t = testing::MakeVariable("t", grid::DataType::kFloat32, {2, 1, kLat, kLon});
  t.dimension_names = {"time", "plev", "lat", "lon"};
  t.attributes["units"] = grid::AttributeValue::String("K");
  grid::DataSetMeta meta = testing::MakeMeta("shifted/one", {t}, 8, 8);
  std::vector<double> lats, lons;
  for (int64_t x = 0; x < kLat; ++x) lats.push_back(61.0 - double(x));
  for (int64_t y = 0; y < kLon; ++y) lons.push_back(-11.0 + double(y));
  meta.coordinates = {
      testing::Coord1D("lat", lats, "degrees_north"), testing::Coord1D("lon", lons, "degrees_east"),
      testing::Coord1D("time", {0, 6}, "hours since " + forecast::FormatIsoMs(testing::EnsRunMs(0)),
                       "time"),
      testing::Coord1D("plev", {850}, "hPa")};
  GRIDSTORE_RETURN_IF_ERROR(store.PutDataSetMeta(meta));
  GRIDSTORE_ASSIGN_OR_RETURN(auto writer, store.GetDataWriter("shifted/one"));
  for (int s = 0; s < 2; ++s) {
    grid::Grid2D plane(grid::DataType::kFloat32, kLat, kLon);
    for (int64_t x = 0; x < kLat; ++x) {
      for (int64_t y = 0; y < kLon; ++y) {
        plane.data<float>()[size_t(x * kLon + y)] = float(100 + lats[x] + 0.1 * lons[y]);
      }
    }
    GRIDSTORE_RETURN_IF_ERROR(writer->WriteGrid2D("t", s, 0, plane));
  }
  return writer->Flush();
}

class MapTilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    {
      ASSERT_OK_AND_ASSIGN(auto store,
                           grid::GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
      ASSERT_NO_FATAL_FAILURE(Populate(*store));
    }
    ASSERT_OK_AND_ASSIGN(source_, StoreSource::Open(dir_.Sub("store"), {}));
    service_ = std::make_unique<EdrService>(source_.get(), ServiceOptions{});
    HttpServerOptions options;
    options.port = 0;
    options.io_threads = 1;
    options.worker_threads = 2;
    options.handle_signals = false;
    options.access_log = false;
    ASSERT_OK_AND_ASSIGN(server_, HttpServer::Listen(options, [this](const HttpRequest& r) {
                           return service_->Handle(r);
                         }));
    thread_ = std::thread([this] { server_->Run(); });
  }
  // The collections served; a fixture of its own data writes them instead.
  virtual void Populate(grid::GridStore& store) {
    ASSERT_OK(testing::WriteTestCollections(store));
    ASSERT_OK(WriteShifted(store));
  }
  void TearDown() override {
    if (server_ != nullptr) server_->Shutdown();
    if (thread_.joinable()) thread_.join();
  }

  testing::ClientResponse Get(const std::string& target) {
    return testing::GetOnce(server_->port(), target);
  }
  Json GetJson(const std::string& target, int status = 200) {
    testing::ClientResponse r = Get(target);
    EXPECT_EQ(r.status, status) << target << ": " << r.body;
    return Json::parse(r.body, nullptr, /*allow_exceptions=*/false);
  }
  // The error sentence of a request that must fail with `status`.
  std::string Error(const std::string& target, int status) {
    const Json j = GetJson(target, status);
    return j.is_object() && j.contains("description") ? j["description"].get<std::string>() : "";
  }
  DecodedPng Png(const std::string& target) {
    testing::ClientResponse r = Get(target);
    EXPECT_EQ(r.status, 200) << target << ": " << r.body;
    EXPECT_EQ(r.header("content-type"), "image/png") << target;
    return r.status == 200 ? DecodePng(r.body) : DecodedPng{};
  }

  testing::ScopedTempDir dir_;
  std::unique_ptr<StoreSource> source_;
  std::unique_ptr<EdrService> service_;
  std::unique_ptr<HttpServer> server_;
  std::thread thread_;
};

constexpr const char* kEns = "/collections/test%2Fens";

TEST_F(MapTilesTest, CollectionsLinkTheirMapsAndTileSetsAndConformanceSaysSo) {
  for (const char* id : {"test%2Fens", "plain%2Fone"}) {
    const Json doc = GetJson(std::string("/collections/") + id);
    std::set<std::string> rels;
    for (const Json& l : doc["links"]) rels.insert(l["rel"].get<std::string>());
    EXPECT_TRUE(rels.contains("http://www.opengis.net/def/rel/ogc/1.0/map")) << id;
    EXPECT_TRUE(rels.contains("http://www.opengis.net/def/rel/ogc/1.0/tilesets-map")) << id;
  }
  const Json conformance = GetJson("/conformance");
  const std::string classes = conformance["conformsTo"].dump();
  EXPECT_THAT(classes, HasSubstr("ogcapi-tiles-1/1.0/conf/core"));
  EXPECT_THAT(classes, HasSubstr("ogcapi-maps-1/1.0/conf/core"));
  EXPECT_TRUE(GetJson("/api")["paths"].contains(
      "/collections/{collectionId}/map/tiles/{tileMatrixSetId}/{tileMatrix}/{tileRow}/{tileCol}"));
}

TEST_F(MapTilesTest, TileMatrixSetsInBothEncodings) {
  const Json list = GetJson("/tileMatrixSets");
  EXPECT_EQ(list["tileMatrixSets"][0]["id"], "WebMercatorQuad");
  EXPECT_EQ(GetJson("/tileMatrixSets/WebMercatorQuad")["type"], "TileMatrixSetType");
  EXPECT_EQ(GetJson("/tileMatrixSets/WebMercatorQuad?f=json&encoding=2.0")["id"],
            "WebMercatorQuad");
  EXPECT_THAT(Error("/tileMatrixSets/WebMercatorQuad?encoding=3", 400),
              HasSubstr("encoding '3' is not 1.0"));
  EXPECT_THAT(Error("/tileMatrixSets/WorldCRS84Quad", 404), HasSubstr("WebMercatorQuad"));
}

TEST_F(MapTilesTest, TileSetHasLimitsAndTemplatedLinksCarryingTheParameters) {
  const Json sets = GetJson(std::string(kEns) + "/map/tiles?parameter-name=msl");
  ASSERT_EQ(sets["tilesets"].size(), 1u);
  EXPECT_EQ(sets["tilesets"][0]["dataType"], "map");
  const Json set = GetJson(std::string(kEns) + "/map/tiles/WebMercatorQuad?parameter-name=msl");
  ASSERT_GE(set["tileMatrixSetLimits"].size(), 3u);
  EXPECT_EQ(set["tileMatrixSetLimits"][2]["maxTileCol"], 3);  // every tile (GDAL 3.6)
  const Json exact =
      GetJson(std::string(kEns) + "/map/tiles/WebMercatorQuad?limits=bbox&parameter-name=msl");
  EXPECT_EQ(exact["tileMatrixSetLimits"][2]["minTileCol"], 1);
  EXPECT_EQ(exact["tileMatrixSetLimits"][2]["maxTileCol"], 2);
  std::string item, xyz, scheme;
  for (const Json& l : set["links"]) {
    if (l["rel"] == "item") item = l["href"];
    if (l["rel"] == "alternate") xyz = l["href"];
    if (l["rel"] == "http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme") scheme = l["href"];
  }
  EXPECT_THAT(item, HasSubstr("/collections/test%2Fens/map/tiles/WebMercatorQuad/{tileMatrix}/"
                              "{tileRow}/{tileCol}?parameter-name=msl"));
  EXPECT_THAT(xyz, HasSubstr("/WebMercatorQuad/{z}/{y}/{x}.png?parameter-name=msl"));
  EXPECT_THAT(scheme, HasSubstr("/tileMatrixSets/WebMercatorQuad"));
}

TEST_F(MapTilesTest, LegendRangeIsTheRunsAndTheSameForEveryStep) {
  // test/ens's latest run (2) has 2 steps; member 0 (the first) by default, 850 hPa.
  const Json legend = GetJson(std::string(kEns) + "/map/legend?parameter-name=t");
  EXPECT_EQ(legend["parameter"], "t");
  EXPECT_EQ(legend["units"], "K");
  EXPECT_EQ(legend["colormap"], "temperature");  // standard_name air_temperature
  EXPECT_EQ(legend["run"], forecast::FormatIsoMs(testing::EnsRunMs(2)));
  EXPECT_EQ(legend["member"], 0);
  EXPECT_DOUBLE_EQ(legend["range"][0].get<double>(), EnsT(2, 0, 0, 0, 0, 0));
  EXPECT_DOUBLE_EQ(legend["range"][1].get<double>(), EnsT(2, 0, 1, 0, 7, 9));
  EXPECT_EQ(legend["steps"].size(), 2u);
  EXPECT_EQ(legend["levels"].size(), 2u);
  EXPECT_EQ(legend["stops"].size(), 32u);
  EXPECT_TRUE(legend["transparent_below"].is_null());
  EXPECT_FALSE(legend.contains("difference_method"));
  const std::string second = legend["steps"][1];
  const Json later = GetJson(std::string(kEns) + "/map/legend?parameter-name=t&datetime=" + second);
  EXPECT_EQ(later["range"], legend["range"]);
  EXPECT_EQ(later["datetime"], second);
  // A statistic's range is the statistic's; msl (Pa, no standard name) is viridis.
  const Json mean = GetJson(std::string(kEns) + "/map/legend?parameter-name=t&stat=mean");
  EXPECT_DOUBLE_EQ(mean["range"][0].get<double>(), EnsT(2, 0, 0, 0, 0, 0) + 1.0625);
  EXPECT_EQ(GetJson(std::string(kEns) + "/map/legend?parameter-name=msl")["colormap"], "viridis");
  const Json prob = GetJson(std::string(kEns) + "/map/legend?parameter-name=t&stat=prob%3E261");
  EXPECT_EQ(prob["range"], Json::array({0, 1}));
  EXPECT_EQ(prob["units"], "1");
  // range= and colormap= as asked.
  const Json asked =
      GetJson(std::string(kEns) + "/map/legend?parameter-name=t&range=250,270&colormap=gray");
  EXPECT_EQ(asked["range"], Json::array({250, 270}));
  EXPECT_EQ(asked["colormap"], "gray");
  EXPECT_EQ(asked["ticks"], Json::array({250, 255, 260, 265, 270}));
}

TEST_F(MapTilesTest, TilePixelsMapBackToTheCellValues) {
  const std::string q = "?parameter-name=t&member=3&z=500";
  const Json legend = GetJson(std::string(kEns) + "/map/legend" + q);
  const double lo = legend["range"][0], hi = legend["range"][1];
  const double step = (hi - lo) / 31;  // between two stops
  // Zoom 6: tile (row 20, col 31) holds lon -5.625..0, lat 55.78..58.81.
  const int z = 6, row = 20, col = 31;
  const DecodedPng tile = Png(std::string(kEns) + "/map/tiles/WebMercatorQuad/6/20/31" + q);
  ASSERT_EQ(tile.width, 256);
  ASSERT_EQ(tile.height, 256);
  const auto b = TileBoundsMetres(z, row, col);
  int checked = 0;
  for (int j = 8; j < 256; j += 37) {
    for (int i = 5; i < 256; i += 41) {
      const double lon = LonOfMercatorX(b[0] + (i + 0.5) * (b[2] - b[0]) / 256);
      const double lat = LatOfMercatorY(b[3] - (j + 0.5) * (b[3] - b[1]) / 256);
      const int64_t x = std::lround(60 - lat), y = std::lround((lon + 10) / 2);
      const double expected = EnsT(2, 3, 0, 1, x, y);
      EXPECT_NEAR(ValueOfColour(legend, tile.At(i, j)), expected, step) << i << "," << j;
      ++checked;
    }
  }
  EXPECT_GT(checked, 30);
  // Outside the data: transparent; the XYZ form is the same tile.
  const DecodedPng away = Png(std::string(kEns) + "/map/tiles/WebMercatorQuad/2/1/0" + q);
  EXPECT_EQ(away.At(128, 128)[3], 0);
  EXPECT_EQ(Get(std::string(kEns) + "/map/tiles/WebMercatorQuad/6/20/31.png" + q).body,
            Get(std::string(kEns) + "/map/tiles/WebMercatorQuad/6/20/31" + q).body);
}

TEST_F(MapTilesTest, ConcurrentFirstTilesShareOneRange) {
  // A first view asks for many tiles at once: each gets the run's range (computed once).
  std::vector<std::string> ranges(8);
  std::vector<std::thread> threads;
  for (int k = 0; k < 8; ++k) {
    threads.emplace_back([&, k] {
      ranges[size_t(k)] =
          Get(std::string(kEns) + "/map/tiles/WebMercatorQuad/5/" + std::to_string(9 + k % 2) +
              "/" + std::to_string(14 + k / 2) + "?parameter-name=t&stat=max")
              .header("x-gridstore-range");
    });
  }
  for (std::thread& t : threads) t.join();
  const Json legend = GetJson(std::string(kEns) + "/map/legend?parameter-name=t&stat=max");
  for (const std::string& r : ranges) {
    EXPECT_EQ(ParseRange(r)[0], legend["range"][0].get<double>()) << r;
    EXPECT_EQ(ParseRange(r)[1], legend["range"][1].get<double>()) << r;
  }
}

TEST_F(MapTilesTest, MapIsTheBboxAtTheSize) {
  const std::string q = "?parameter-name=t&bbox=-10,53,8,60&width=180&height=70";
  testing::ClientResponse r = Get(std::string(kEns) + "/map" + q);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("content-crs"), "<http://www.opengis.net/def/crs/OGC/1.3/CRS84>");
  const DecodedPng map = DecodePng(r.body);
  EXPECT_EQ(map.width, 180);
  EXPECT_EQ(map.height, 70);
  const Json legend = GetJson(std::string(kEns) + "/map/legend?parameter-name=t");
  const double step = (legend["range"][1].get<double>() - legend["range"][0].get<double>()) / 31;
  // Pixel (95, 25): lon -0.45, lat 57.46: cell x 3 (lat 57), y 5 (lon 0).
  EXPECT_NEAR(ValueOfColour(legend, map.At(95, 25)), EnsT(2, 0, 0, 0, 3, 5), step);
  const DecodedPng mercator =
      Png(std::string(kEns) + "/map?parameter-name=t&crs=EPSG:3857&width=64&height=64");
  EXPECT_EQ(mercator.width, 64);
}

TEST_F(MapTilesTest, DifferenceOnTheSameGridIsCellByCell) {
  const std::string q = "?parameter-name=t&member=3&diff-member=0";
  testing::ClientResponse r = Get(std::string(kEns) + "/map/legend" + q);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("x-gridstore-difference-method"), "same grid, cell by cell");
  const Json legend = Json::parse(r.body);
  EXPECT_EQ(legend["colormap"], "coolwarm");
  EXPECT_EQ(legend["difference_method"], "same grid, cell by cell");
  EXPECT_NEAR(legend["range"][0].get<double>(), -3.5, 1e-9);  // member 3 is member 0 + 3.5
  EXPECT_NEAR(legend["range"][1].get<double>(), 3.5, 1e-9);
  EXPECT_EQ(legend["minus"]["member"], 0);
  testing::ClientResponse tile = Get(std::string(kEns) + "/map/tiles/WebMercatorQuad/6/20/31" + q);
  ASSERT_EQ(tile.status, 200);
  EXPECT_EQ(tile.header("x-gridstore-difference-method"), "same grid, cell by cell");
  const DecodedPng image = DecodePng(tile.body);
  EXPECT_NEAR(ValueOfColour(legend, image.At(100, 100)), 3.5, 1e-9);
  // A statistic minus a member, and the previous run minus this one (B takes A's datetime).
  EXPECT_EQ(Get(std::string(kEns) + "/map/legend?parameter-name=t&stat=mean&diff-member=0").status,
            200);
}

TEST_F(MapTilesTest, DifferenceOfTwoCollectionsTakesAsRunWhenBHasIt) {
  // test/det has run 2 only, deterministic: B is its run 2, A member 3 of test/ens's run 2.
  const Json legend = GetJson(std::string(kEns) +
                              "/map/legend?parameter-name=t&member=3&diff-collection=test%2Fdet");
  EXPECT_EQ(legend["minus"]["collection"], "test/det");
  EXPECT_EQ(legend["minus"]["run"], forecast::FormatIsoMs(testing::EnsRunMs(2)));
  EXPECT_FALSE(legend["minus"].contains("member"));
  EXPECT_EQ(legend["difference_method"], "same grid, cell by cell");
  EXPECT_NEAR(legend["range"][1].get<double>(), 3.5, 1e-9);
  // A's run 1 is not one of test/det's: B takes its latest, whose valid times do not include
  // A's first step: the sentence names it.
  EXPECT_THAT(Error(std::string(kEns) +
                        "/map/legend?parameter-name=t&run=latest-1&diff-collection=test%2Fdet",
                    400),
              HasSubstr("there is no time '" + forecast::FormatIsoMs(testing::EnsRunMs(1)) + "'"));
}

TEST_F(MapTilesTest, DifferenceAcrossGridsTakesBsNearestCell) {
  const std::string q =
      "/collections/plain%2Fone/map/legend?parameter-name=t&z=850&"
      "diff-collection=shifted%2Fone";
  testing::ClientResponse r = Get(q);
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.header("x-gridstore-difference-method"), "nearest neighbour of B at A's cells");
  const Json legend = Json::parse(r.body);
  // A - B = EnsT(0, -1, s, 0, x, y) - (100 + (60 - x) + 0.1 (-10 + 2 y)), largest at s 1, x 7,
  // y 0: 91 + 1.25 x - 0.075 y + 0.5 s = 100.25.
  EXPECT_NEAR(legend["range"][1].get<double>(), 100.25, 1e-3);
  EXPECT_NEAR(legend["range"][0].get<double>(), -100.25, 1e-3);
  // And a pixel: cell (x 2, y 4) at lat 58, lon -2 (step 0): 91 + 2.5 - 0.3.
  const DecodedPng map =
      Png("/collections/plain%2Fone/map?parameter-name=t&z=850&diff-collection="
          "shifted%2Fone&range=80,100&colormap=gray&bbox=-2.5,57.5,-1.5,58.5&"
          "width=4&height=4");
  const double v = 80 + map.At(2, 2)[0] / 255.0 * 20;
  EXPECT_NEAR(v, 93.2, 20.0 / 255 + 1e-6);
}

TEST_F(MapTilesTest, ParameterErrorsAreSentences) {
  const std::string tile = std::string(kEns) + "/map/tiles/WebMercatorQuad/";
  EXPECT_THAT(Error(tile + "2/4/0", 400), HasSubstr("tileRow 4 is not 0 to 3 at tileMatrix 2"));
  EXPECT_THAT(Error(tile + "2/0/9", 400), HasSubstr("tileCol 9 is not 0 to 3"));
  EXPECT_THAT(Error(tile + "30/0/0", 400), HasSubstr("tileMatrix 30 is not a tile matrix"));
  EXPECT_THAT(Error(tile + "a/0/0", 400), HasSubstr("tileMatrix 'a' is not an integer"));
  EXPECT_THAT(Error(tile + "2/1/1?colormap=jet", 400), HasSubstr("colormap 'jet' is not"));
  EXPECT_THAT(Error(tile + "2/1/1?range=5,1", 400),
              HasSubstr("the minimum must be below the maximum"));
  EXPECT_THAT(Error(tile + "2/1/1?range=nan,1", 400),
              HasSubstr("is not 2 comma-separated finite numbers"));
  EXPECT_THAT(Error(tile + "2/1/1?bogus=1", 400), HasSubstr("a tile has no parameter 'bogus'"));
  EXPECT_THAT(Error(std::string(kEns) + "/map?width=5000", 400),
              HasSubstr("width 5000 is not 1 to 4096 pixels"));
  EXPECT_THAT(Error(std::string(kEns) + "/map?crs=EPSG:4326", 400),
              HasSubstr("crs 'EPSG:4326' is not served"));
  EXPECT_THAT(Error(tile + "2/1/1?run=2020-01-01T00:00:00Z", 404), HasSubstr("2020-01-01"));
  EXPECT_THAT(Error(tile + "2/1/1?member=1&stat=mean", 400), HasSubstr("member and stat together"));
  EXPECT_THAT(Error(tile + "2/1/1?member=9", 404), HasSubstr("member 9 is not in run"));
  EXPECT_THAT(Error(tile + "2/1/1?stat=mean,max", 400), HasSubstr("a map shows one statistic"));
  EXPECT_THAT(Error(tile + "2/1/1?parameter-name=nope", 400),
              HasSubstr("parameter-name 'nope' is not a parameter of 'test/ens'"));
  EXPECT_THAT(Error(tile + "2/1/1?diff-collection=no%2Fsuch", 404), HasSubstr("diff-collection"));
  EXPECT_THAT(Error("/collections/plain%2Fone/map/tiles/WebMercatorQuad/2/1/1?member=1", 400),
              HasSubstr("is a dataset"));
  EXPECT_THAT(Error(std::string(kEns) + "/map/tiles/WebMercatorQuad?limits=some", 400),
              HasSubstr("limits 'some' is not matrix"));
  EXPECT_THAT(Error(std::string(kEns) + "/map/tiles/WorldCRS84Quad", 404),
              HasSubstr("the one served is WebMercatorQuad"));
  EXPECT_THAT(Error("/collections/no%2Fsuch/map/legend", 404), HasSubstr("no/such"));
}

// ---- a derived quantity on real data ----

// "era5/wind": ERA5's 10 m wind over North America (../shared/data/era5_1995-07-14T12.nc: u10
// and v10 as packed shorts on a 0.25 degree grid, lon -125..-66, lat 50..24) imported as the one
// run of a deterministic forecast collection, whose u10/v10 pair gives the wind speed 10si
// (forecast/derived.h) as a map parameter.
constexpr const char* kWind = "/collections/era5%2Fwind";
constexpr const char* kWindDataset = "era5/wind/1995-07-14T12";
constexpr int kWindLon = 237, kWindLat = 105;

class MapWindTest : public MapTilesTest {
 protected:
  void Populate(grid::GridStore& store) override {
    const char* data = std::getenv("GRIDSTORE_TEST_DATA");
    importers::NetCdfImportOptions options;
    options.dataset_id = kWindDataset;
    options.variables = {"u10", "v10"};
    options.attributes[std::string(forecast::kCollectionAttribute)] =
        grid::AttributeValue::String("era5/wind");
    options.attributes[std::string(forecast::kRunTimeAttribute)] =
        grid::AttributeValue::Int64(805'723'200'000);  // 1995-07-14T12:00:00Z
    ASSERT_OK(
        importers::ImportNetCdf(
            &store, std::string(data ? data : "../shared/data") + "/era5_1995-07-14T12.nc", options)
            .status());
    ASSERT_OK(forecast::EnsureCollectionIndex(store));
    ASSERT_OK(store.Flush());
  }

  // The wind speed sqrt(u^2 + v^2) of the cells nearest `points`, from the components as the
  // library reads them.
  std::vector<double> Speeds(const std::vector<grid::LonLat>& points) {
    grid::ExtractRequest request;
    request.variables = {"u10", "v10"};
    request.points = points;
    Result<grid::Extraction> e = grid::Extract(*source_->Current(), kWindDataset, request);
    EXPECT_OK(e.status());
    std::vector<double> speeds;
    if (!e.ok()) return speeds;
    const std::vector<double>& u = e->variables[0].values;
    const std::vector<double>& v = e->variables[1].values;
    EXPECT_EQ(u.size(), points.size());
    for (size_t k = 0; k < u.size() && k < v.size(); ++k) speeds.push_back(std::hypot(u[k], v[k]));
    return speeds;
  }
};

TEST_F(MapWindTest, WindSpeedFromTheComponentsIsDrawnWithTheWindColourMap) {
  const Json legend = GetJson(std::string(kWind) + "/map/legend?parameter-name=10si");
  EXPECT_EQ(legend["parameter"], "10si");
  EXPECT_EQ(legend["colormap"], "wind");  // the quantity's default: a wind speed
  EXPECT_EQ(legend["units"], "m s**-1");
  EXPECT_TRUE(legend["transparent_below"].is_null());
  ASSERT_EQ(legend["stops"].size(), 32u);
  EXPECT_EQ(legend["stops"][0][1], ColormapHex(Colormap::kWind, 0));
  EXPECT_EQ(legend["stops"][31][1], ColormapHex(Colormap::kWind, 1));
  const double lo = legend["range"][0], hi = legend["range"][1];
  const double step = (hi - lo) / 31;  // between two stops
  // The map at the grid's own resolution: pixel (i, j) is centred on the cell at lon -125 +
  // i / 4, lat 50 - j / 4.
  const DecodedPng map = Png(std::string(kWind) +
                             "/map?parameter-name=10si&bbox=-125.125,23.875,-65.875,50.125&width=" +
                             std::to_string(kWindLon) + "&height=" + std::to_string(kWindLat));
  ASSERT_EQ(map.width, kWindLon);
  ASSERT_EQ(map.height, kWindLat);
  std::vector<grid::LonLat> cells;
  for (int j = 0; j < kWindLat; ++j) {
    for (int i = 0; i < kWindLon; ++i) cells.push_back({-125 + 0.25 * i, 50 - 0.25 * j});
  }
  const std::vector<double> speeds = Speeds(cells);
  ASSERT_EQ(speeds.size(), cells.size());
  // The run's range (its one step: every cell) is the least and greatest speed.
  EXPECT_NEAR(lo, *std::min_element(speeds.begin(), speeds.end()), 1e-4);
  EXPECT_NEAR(hi, *std::max_element(speeds.begin(), speeds.end()), 1e-4);
  int wrong = 0;
  for (int j = 0; j < kWindLat; ++j) {
    for (int i = 0; i < kWindLon; ++i) {
      const double want = speeds[size_t(j * kWindLon + i)];
      const double got = ValueOfColour(legend, map.At(i, j));
      if (!(std::fabs(got - want) <= step) && ++wrong <= 5) {
        ADD_FAILURE() << "pixel " << i << "," << j << ": " << got << " for " << want;
      }
    }
  }
  EXPECT_EQ(wrong, 0);
  // A tile over the Rockies (zoom 6: lon -112.5..-106.875, lat 36.6..40.98): its pixels are the
  // speeds of the cells under them, and it carries the legend's range.
  const int z = 6, row = 24, col = 12;
  testing::ClientResponse r =
      Get(std::string(kWind) + "/map/tiles/WebMercatorQuad/" + std::to_string(z) + "/" +
          std::to_string(row) + "/" + std::to_string(col) + "?parameter-name=10si");
  ASSERT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(ParseRange(r.header("x-gridstore-range"))[0], lo);
  EXPECT_EQ(ParseRange(r.header("x-gridstore-range"))[1], hi);
  const DecodedPng tile = DecodePng(r.body);
  ASSERT_EQ(tile.width, 256);
  const auto b = TileBoundsMetres(z, row, col);
  std::vector<grid::LonLat> centres;
  std::vector<std::array<int, 2>> pixels;
  for (int j = 3; j < 256; j += 23) {
    for (int i = 7; i < 256; i += 29) {
      centres.push_back({LonOfMercatorX(b[0] + (i + 0.5) * (b[2] - b[0]) / 256),
                         LatOfMercatorY(b[3] - (j + 0.5) * (b[3] - b[1]) / 256)});
      pixels.push_back({i, j});
    }
  }
  const std::vector<double> under = Speeds(centres);
  ASSERT_EQ(under.size(), pixels.size());
  for (size_t k = 0; k < pixels.size(); ++k) {
    EXPECT_NEAR(ValueOfColour(legend, tile.At(pixels[k][0], pixels[k][1])), under[k], step)
        << pixels[k][0] << "," << pixels[k][1];
  }
  // ws (the u/v pair's name) is not this file's: its pair is u10/v10.
  EXPECT_THAT(Error(std::string(kWind) + "/map/legend?parameter-name=ws", 400),
              HasSubstr("parameter-name 'ws' is not a parameter of 'era5/wind'"));
}

}  // namespace map_tiles_test
}  // namespace gridstore::server
