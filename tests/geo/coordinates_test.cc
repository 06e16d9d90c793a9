// Copyright 2026 The GridStore Authors.
//
// Coordinates against independent computations: nearest cells against a brute-force
// great-circle search, bilinear weights against the direct formula, rotated-pole coordinates
// against the rotation written out by hand, time selections against hand-computed calendars.
#include "gridstore/geo/coordinates.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "tests/grid/grid_testutil.h"
#include "tests/test_util.h"

namespace gridstore::grid {
namespace {

using testing::Coord1D;
using ::testing::HasSubstr;

std::vector<double> Range(double first, double step, int n) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(first + step * i);
  return v;
}

// A dataset with one variable `name`: a single (xdim, ydim) plane of nx by ny cells.
DataSetMeta OnePlaneMeta(std::string name, std::string xdim, std::string ydim, int64_t nx,
                         int64_t ny) {
  DataSetMeta meta;
  meta.id = "m";
  VariableMeta v;
  v.name = std::move(name);
  v.shape = {1, 1, nx, ny};
  v.dimension_names = {"", "", std::move(xdim), std::move(ydim)};
  meta.variables.push_back(v);
  return meta;
}

// A (lat, lon) dataset over the given axes.
DataSetMeta RectilinearMeta(std::vector<double> lats, std::vector<double> lons) {
  DataSetMeta meta = OnePlaneMeta("tos", "lat", "lon", int64_t(lats.size()), int64_t(lons.size()));
  meta.coordinates.push_back(Coord1D("lat", std::move(lats), "degrees_north"));
  meta.coordinates.push_back(Coord1D("lon", std::move(lons), "degrees_east"));
  return meta;
}

std::shared_ptr<const HorizontalGrid> Grid(const DataSetMeta& meta) {
  auto g = HorizontalGrid::Build(meta, meta.variables[0]);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  return g.ok() ? *g : nullptr;
}

// The minimum great-circle distance to any cell centre, by trying every cell.
double BruteForceNearestKm(const HorizontalGrid& g, const LonLat& p) {
  double best = INFINITY;
  for (int64_t x = 0; x < g.nx(); ++x) {
    for (int64_t y = 0; y < g.ny(); ++y) best = std::min(best, GreatCircleKm(p, g.At({x, y})));
  }
  return best;
}

TEST(HorizontalGridTest, NearestEqualsBruteForceOnAGlobalGridBothDirections) {
  // tos-like: longitudes 1..359 every 2, latitudes descending as in ERA5 files.
  auto g = Grid(RectilinearMeta(Range(89.5, -1, 180), Range(1, 2, 180)));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->type(), GridType::kRectilinear);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> lon(-540, 540), lat(-89.9, 89.9);
  for (int i = 0; i < 500; ++i) {
    const LonLat p{lon(rng), lat(rng)};
    auto n = g->FindNearest(p);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_NEAR(n->distance_km, BruteForceNearestKm(*g, p), 1e-9) << p.lon << " " << p.lat;
    EXPECT_NEAR(n->distance_km, GreatCircleKm(p, g->At(n->cell)), 1e-9);
  }
}

TEST(HorizontalGridTest, NearestNearThePolesIsNotJustTheNearestLatitude) {
  // Near a pole the closest centre can lie on a row poleward of the point's latitude.
  auto g = Grid(RectilinearMeta(Range(60, 1, 30), Range(0, 10, 36)));
  ASSERT_NE(g, nullptr);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> lon(0, 360), lat(60, 89);
  for (int i = 0; i < 2000; ++i) {
    const LonLat p{lon(rng), lat(rng)};
    auto n = g->FindNearest(p);
    ASSERT_TRUE(n.ok());
    EXPECT_NEAR(n->distance_km, BruteForceNearestKm(*g, p), 1e-9) << p.lon << " " << p.lat;
  }
}

TEST(HorizontalGridTest, RegionalGridRefusesPointsBeyondHalfACell) {
  // Longitudes -10..30 every 1, latitudes 30..60 every 0.5.
  auto g = Grid(RectilinearMeta(Range(30, 0.5, 61), Range(-10, 1, 41)));
  ASSERT_NE(g, nullptr);
  EXPECT_TRUE(g->FindNearest({-10.49, 45}).ok());
  EXPECT_TRUE(g->FindNearest({349.6, 45}).ok());  // the same longitude in 0..360
  EXPECT_TRUE(g->FindNearest({30.4, 60.2}).ok());
  auto west = g->FindNearest({-10.6, 45});
  ASSERT_FALSE(west.ok());
  EXPECT_TRUE(west.status().IsOutOfRange());
  EXPECT_THAT(west.status().message(), HasSubstr("(lon -10.6, lat 45) is outside the grid"));
  EXPECT_THAT(west.status().message(), HasSubstr("longitudes span -10.5 .. 30.5"));
  auto north = g->FindNearest({0, 60.3});
  ASSERT_FALSE(north.ok());
  EXPECT_THAT(north.status().message(), HasSubstr("latitudes span 29.75 .. 60.25"));
  EXPECT_TRUE(g->FindNearest({0, 91}).status().IsInvalidArgument());
}

TEST(HorizontalGridTest, AntimeridianCrossingGridIsContinuous) {
  // 170E .. 170W written as 170..190 and as 170..180,-179..-170: both are one grid.
  for (auto lons : {Range(170, 1, 21), [] {
                      auto v = Range(170, 1, 21);
                      for (double& x : v) x = x > 180 ? x - 360 : x;
                      return v;
                    }()}) {
    auto g = Grid(RectilinearMeta(Range(-10, 1, 21), lons));
    ASSERT_NE(g, nullptr);
    auto n = g->FindNearest({-175.2, 0.1});
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_EQ(n->cell, (Cell{10, 15}));
    EXPECT_FALSE(g->FindNearest({-168, 0}).ok());
  }
}

TEST(HorizontalGridTest, BilinearEqualsTheDirectFormula) {
  const std::vector<double> lats = Range(60, -0.75, 40), lons = Range(-20, 1.25, 50);
  auto g = Grid(RectilinearMeta(lats, lons));
  ASSERT_NE(g, nullptr);
  // f(lat, lon) = lat * lon is bilinear: interpolation must reproduce it exactly.
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> lat(lats.back(), lats.front()),
      lon(lons.front(), lons.back());
  for (int i = 0; i < 1000; ++i) {
    const LonLat p{lon(rng), lat(rng)};
    auto w = g->Bilinear(p);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    double value = 0, sum = 0;
    for (int k = 0; k < w->count; ++k) {
      const LonLat c = g->At(w->cells[size_t(k)]);
      value += w->weights[size_t(k)] * c.lat * c.lon;
      sum += w->weights[size_t(k)];
    }
    EXPECT_NEAR(sum, 1, 1e-12);
    EXPECT_NEAR(value, p.lat * p.lon, 1e-9);
  }
}

// A curvilinear (rotated-pole) grid given as 2-D latitude and longitude, (y, x) ordered as WRF
// writes them.
DataSetMeta CurvilinearMeta(int nx, int ny) {
  DataSetMeta meta;
  meta.id = "c";
  VariableMeta v;
  v.name = "t2";
  v.shape = {1, 1, nx, ny};
  v.dimension_names = {"", "", "south_north", "west_east"};
  v.attributes["coordinates"] = AttributeValue::String("XLAT XLONG");
  meta.variables.push_back(v);
  Coordinate lat, lon;
  lat.name = "XLAT";
  lon.name = "XLONG";
  for (Coordinate* c : {&lat, &lon}) {
    c->dimensions = {"west_east", "south_north"};  // transposed on purpose
    c->shape = {ny, nx};
  }
  lat.attributes["units"] = AttributeValue::String("degrees_north");
  lon.attributes["units"] = AttributeValue::String("degrees_east");
  // A grid rotated 30 degrees and sheared, as a Lambert grid looks.
  for (int y = 0; y < ny; ++y) {
    for (int x = 0; x < nx; ++x) {
      lat.values.push_back(40 + 0.1 * x * std::cos(0.5) + 0.1 * y * std::sin(0.5) + 0.0005 * x * y);
      lon.values.push_back(100 - 0.1 * x * std::sin(0.5) + 0.13 * y * std::cos(0.5));
    }
  }
  meta.coordinates = {lat, lon};
  return meta;
}

TEST(HorizontalGridTest, CurvilinearNearestAndBilinear) {
  auto g = Grid(CurvilinearMeta(60, 80));
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->type(), GridType::kCurvilinear);
  EXPECT_EQ(g->description(), "curvilinear (2-D XLAT, XLONG)");
  EXPECT_EQ(g->At({3, 5}).lat, 40 + 0.3 * std::cos(0.5) + 0.5 * std::sin(0.5) + 0.0005 * 15);
  std::mt19937 rng(5);
  std::uniform_int_distribution<int> cx(1, 58), cy(1, 78);
  std::uniform_real_distribution<double> frac(0, 1);
  for (int i = 0; i < 500; ++i) {
    // A point inside cell quadrilateral (x, y)..(x+1, y+1).
    const int x = cx(rng), y = cy(rng);
    const double s = frac(rng), t = frac(rng);
    auto at = [&](int dx, int dy) { return g->At({x + dx, y + dy}); };
    const LonLat p{(1 - s) * (1 - t) * at(0, 0).lon + s * (1 - t) * at(1, 0).lon +
                       s * t * at(1, 1).lon + (1 - s) * t * at(0, 1).lon,
                   (1 - s) * (1 - t) * at(0, 0).lat + s * (1 - t) * at(1, 0).lat +
                       s * t * at(1, 1).lat + (1 - s) * t * at(0, 1).lat};
    auto n = g->FindNearest(p);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_NEAR(n->distance_km, BruteForceNearestKm(*g, p), 1e-9);
    auto w = g->Bilinear(p);
    ASSERT_TRUE(w.ok()) << w.status().ToString();
    ASSERT_EQ(w->count, 4);
    double sum = 0, lat = 0;
    for (int k = 0; k < 4; ++k) {
      sum += w->weights[size_t(k)];
      lat += w->weights[size_t(k)] * g->At(w->cells[size_t(k)]).lat;
    }
    EXPECT_NEAR(sum, 1, 1e-12);
    // The quadrilateral is tiny: interpolating in the tangent plane or in degrees agrees.
    EXPECT_NEAR(lat, p.lat, 1e-4);
  }
  auto far = g->FindNearest({0, 0});
  ASSERT_FALSE(far.ok());
  EXPECT_THAT(far.status().message(), HasSubstr("beyond the tolerance"));
  EXPECT_TRUE(g->FindNearest({0, 0}, 1e5).ok());  // an explicit tolerance
}

TEST(HorizontalGridTest, RotatedPoleGridFromItsGridMapping) {
  GRIDSTORE_TEST_NEEDS(GEO);  // PROJ
  // colpex's mapping: pole at (177.5, 37.5), rotated coordinates in degrees.
  DataSetMeta meta = OnePlaneMeta("theta", "grid_latitude", "grid_longitude", 20, 30);
  meta.variables[0].attributes["grid_mapping"] =
      AttributeValue::String("rotated_latitude_longitude");
  meta.coordinates.push_back(
      Coord1D("grid_latitude", Range(-0.5, 0.05, 20), "degrees", "grid_latitude"));
  meta.coordinates.push_back(
      Coord1D("grid_longitude", Range(359.2, 0.04, 30), "degrees", "grid_longitude"));
  Coordinate mapping;
  mapping.name = "rotated_latitude_longitude";
  mapping.values = {0};
  mapping.attributes["grid_mapping_name"] = AttributeValue::String("rotated_latitude_longitude");
  mapping.attributes["grid_north_pole_latitude"] = AttributeValue::Double(37.5);
  mapping.attributes["grid_north_pole_longitude"] = AttributeValue::Double(177.5);
  mapping.attributes["earth_radius"] = AttributeValue::Double(6371229);
  meta.coordinates.push_back(mapping);
  auto g = Grid(meta);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->type(), GridType::kCurvilinear);
  EXPECT_EQ(g->grid_mapping(), "rotated_latitude_longitude");
  // The rotation written out (CF Appendix F; as in CDO and iris).
  constexpr double kRad = M_PI / 180;
  const double pole_lat = 37.5 * kRad;
  for (int x = 0; x < 20; x += 3) {
    for (int y = 0; y < 30; y += 4) {
      const double rlat = (-0.5 + 0.05 * x) * kRad, rlon = (359.2 + 0.04 * y) * kRad;
      const double lat = std::asin(std::sin(pole_lat) * std::sin(rlat) +
                                   std::cos(pole_lat) * std::cos(rlat) * std::cos(rlon));
      const double lon = 177.5 - 180 +
                         std::atan2(std::cos(rlat) * std::sin(rlon),
                                    std::sin(pole_lat) * std::cos(rlat) * std::cos(rlon) -
                                        std::cos(pole_lat) * std::sin(rlat)) /
                             kRad;
      EXPECT_NEAR(g->At({x, y}).lat, lat / kRad, 1e-9);
      EXPECT_NEAR(std::remainder(g->At({x, y}).lon - lon, 360), 0, 1e-9);
    }
  }
  auto n = g->FindNearest(g->At({7, 11}));
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->cell, (Cell{7, 11}));
}

// A variable on a projected grid: 1-D x/y in metres and a grid mapping with the given attributes.
DataSetMeta ProjectedMeta(const std::vector<double>& xs, const std::vector<double>& ys,
                          const Attributes& mapping_attributes) {
  DataSetMeta meta = OnePlaneMeta("t2m", "y", "x", int64_t(ys.size()), int64_t(xs.size()));
  meta.variables[0].attributes["grid_mapping"] = AttributeValue::String("crs");
  meta.coordinates.push_back(Coord1D("y", ys, "m", "projection_y_coordinate"));
  meta.coordinates.push_back(Coord1D("x", xs, "m", "projection_x_coordinate"));
  Coordinate crs;
  crs.name = "crs";
  crs.values = {0};
  crs.attributes = mapping_attributes;
  meta.coordinates.push_back(crs);
  return meta;
}

TEST(HorizontalGridTest, LambertConformalGridEqualsSnydersFormulas) {
  GRIDSTORE_TEST_NEEDS(GEO);  // PROJ
  // Spherical Lambert conformal conic (Snyder, Map Projections: A Working Manual, 15-1..15-5).
  constexpr double R = 6371229, kRad = M_PI / 180;
  const double p1 = 30 * kRad, p2 = 60 * kRad, p0 = 45 * kRad, l0 = 10;
  const double n = std::log(std::cos(p1) / std::cos(p2)) /
                   std::log(std::tan(M_PI / 4 + p2 / 2) / std::tan(M_PI / 4 + p1 / 2));
  const double F = std::cos(p1) * std::pow(std::tan(M_PI / 4 + p1 / 2), n) / n;
  const double rho0 = R * F / std::pow(std::tan(M_PI / 4 + p0 / 2), n);
  auto forward = [&](double lon, double lat, double* x, double* y) {
    const double rho = R * F / std::pow(std::tan(M_PI / 4 + lat * kRad / 2), n);
    *x = rho * std::sin(n * (lon - l0) * kRad);
    *y = rho0 - rho * std::cos(n * (lon - l0) * kRad);
  };
  Attributes a;
  a["grid_mapping_name"] = AttributeValue::String("lambert_conformal_conic");
  a["standard_parallel"] = AttributeValue::Floats(DataType::kFloat64, {30, 60});
  a["longitude_of_central_meridian"] = AttributeValue::Double(10);
  a["latitude_of_projection_origin"] = AttributeValue::Double(45);
  a["earth_radius"] = AttributeValue::Double(R);
  const DataSetMeta meta = ProjectedMeta(Range(-500e3, 25e3, 40), Range(-400e3, 25e3, 32), a);
  auto g = Grid(meta);
  ASSERT_NE(g, nullptr);
  EXPECT_THAT(g->description(), HasSubstr("grid mapping crs"));
  for (int64_t x = 0; x < 32; x += 5) {
    for (int64_t y = 0; y < 40; y += 7) {
      const LonLat c = g->At({x, y});
      double fx = 0, fy = 0;
      forward(c.lon, c.lat, &fx, &fy);
      EXPECT_NEAR(fx, -500e3 + 25e3 * double(y), 1e-3) << x << "," << y;
      EXPECT_NEAR(fy, -400e3 + 25e3 * double(x), 1e-3) << x << "," << y;
    }
  }
  auto n2 = g->FindNearest(g->At({20, 30}));
  ASSERT_TRUE(n2.ok());
  EXPECT_EQ(n2->cell, (Cell{20, 30}));
}

TEST(HorizontalGridTest, PolarStereographicGridEqualsSnydersFormulas) {
  GRIDSTORE_TEST_NEEDS(GEO);  // PROJ
  // Spherical polar stereographic, north pole, true at the pole (Snyder 21-30..21-34, k0 = 1).
  constexpr double R = 6371229, kRad = M_PI / 180;
  const double l0 = -45;
  Attributes a;
  a["grid_mapping_name"] = AttributeValue::String("polar_stereographic");
  a["latitude_of_projection_origin"] = AttributeValue::Double(90);
  a["straight_vertical_longitude_from_pole"] = AttributeValue::Double(l0);
  a["scale_factor_at_projection_origin"] = AttributeValue::Double(1);
  a["earth_radius"] = AttributeValue::Double(R);
  const DataSetMeta meta = ProjectedMeta(Range(-2e6, 100e3, 41), Range(-2e6, 100e3, 41), a);
  auto g = Grid(meta);
  ASSERT_NE(g, nullptr);
  for (int64_t x = 0; x < 41; x += 6) {
    for (int64_t y = 0; y < 41; y += 6) {
      const LonLat c = g->At({x, y});
      const double rho = 2 * R * std::tan(M_PI / 4 - c.lat * kRad / 2);
      EXPECT_NEAR(rho * std::sin((c.lon - l0) * kRad), -2e6 + 100e3 * double(y), 1e-3);
      EXPECT_NEAR(-rho * std::cos((c.lon - l0) * kRad), -2e6 + 100e3 * double(x), 1e-3);
    }
  }
  // The pole is inside the grid: every longitude meets there.
  auto pole = g->FindNearest({123, 89.99});
  ASSERT_TRUE(pole.ok()) << pole.status().ToString();
  EXPECT_EQ(pole->cell, (Cell{20, 20}));
}

TEST(HorizontalGridTest, DescendingLongitudesAndAnUnsupportedMapping) {
  auto g = Grid(RectilinearMeta(Range(-10, 1, 21), Range(40, -2, 30)));  // 40 .. -18 descending
  ASSERT_NE(g, nullptr);
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> lon(-19, 41), lat(-10.4, 10.4);
  for (int i = 0; i < 300; ++i) {
    const LonLat p{lon(rng), lat(rng)};
    auto n = g->FindNearest(p);
    ASSERT_TRUE(n.ok()) << n.status().ToString();
    EXPECT_NEAR(n->distance_km, BruteForceNearestKm(*g, p), 1e-9);
  }
  Attributes a;
  a["grid_mapping_name"] = AttributeValue::String("healpix");
  auto bad = HorizontalGrid::Build(ProjectedMeta(Range(0, 1, 3), Range(0, 1, 3), a),
                                   ProjectedMeta(Range(0, 1, 3), Range(0, 1, 3), a).variables[0]);
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("'healpix' is not supported"));
}

TEST(HorizontalGridTest, AVariableWithoutHorizontalCoordinatesIsNamed) {
  DataSetMeta meta = RectilinearMeta(Range(0, 1, 3), Range(0, 1, 4));
  meta.coordinates.clear();
  auto g = HorizontalGrid::Build(meta, meta.variables[0]);
  ASSERT_FALSE(g.ok());
  EXPECT_THAT(g.status().message(), HasSubstr("variable 'tos' has no horizontal coordinates"));
  EXPECT_THAT(g.status().message(), HasSubstr("'lat' and 'lon'"));
}

DataSetMeta TimeMeta() {
  DataSetMeta meta = RectilinearMeta(Range(0, 1, 2), Range(0, 1, 2));
  meta.variables[0].shape[kT] = 24;
  meta.variables[0].dimension_names[kT] = "time";
  Coordinate time = Coord1D("time", Range(15, 30, 24), "days since 2001-1-1");
  time.attributes["calendar"] = AttributeValue::String("360_day");
  meta.coordinates.push_back(time);
  return meta;
}

TEST(AxisCoordinateTest, TimesSelectByIsoValueRangeAndList) {
  const DataSetMeta meta = TimeMeta();
  auto axis = AxisCoordinate::Build(meta, meta.variables[0], Axis::kT);
  ASSERT_TRUE(axis.ok()) << axis.status().ToString();
  EXPECT_TRUE(axis->is_time());
  EXPECT_EQ(axis->Label(0), "2001-01-16T00:00:00Z");
  EXPECT_EQ(axis->Label(23), "2002-12-16T00:00:00Z");
  EXPECT_EQ(*axis->Select("2001-02-16T00:00:00Z"), (std::vector<int64_t>{1}));
  EXPECT_EQ(*axis->Select("2001-02-16"), (std::vector<int64_t>{1}));
  EXPECT_EQ(*axis->Select("2002-11-01/.."), (std::vector<int64_t>{22, 23}));
  EXPECT_EQ(*axis->Select("../2001-02-30"), (std::vector<int64_t>{0, 1}));  // 360_day
  EXPECT_EQ(*axis->Select("2001-03-16,2001-01-16"), (std::vector<int64_t>{2, 0}));
  EXPECT_EQ(axis->Select("").value().size(), 24u);
  // An empty item is an error, not an empty selection (found by the request fuzzer: "z=,"
  // planned no level and the box planner read past an empty list).
  for (const char* empty_item : {",", "2001-01-16,,2001-03-16", "2001-01-16,"}) {
    EXPECT_THAT(axis->Select(empty_item).status().message(), HasSubstr("has an empty item"))
        << empty_item;
  }
  auto missing = axis->Select("2001-02-17");
  ASSERT_FALSE(missing.ok());
  EXPECT_TRUE(missing.status().IsOutOfRange());
  EXPECT_THAT(missing.status().message(),
              HasSubstr("time coordinate 'time' (24 values: 2001-01-16T00:00:00Z .. "
                        "2002-12-16T00:00:00Z): there is no time '2001-02-17'"));
  auto outside = axis->Select("2005-01-01/2006-01-01");
  ASSERT_FALSE(outside.ok());
  EXPECT_THAT(outside.status().message(), HasSubstr("no value lies in"));
  EXPECT_TRUE(axis->Select("yesterday").status().IsInvalidArgument());
}

TEST(AxisCoordinateTest, LevelsSelectByValue) {
  DataSetMeta meta = RectilinearMeta(Range(0, 1, 2), Range(0, 1, 2));
  meta.variables[0].shape[kZ] = 3;
  meta.variables[0].dimension_names[kZ] = "plev";
  meta.coordinates.push_back(Coord1D("plev", {1000, 850, 500}, "hPa"));
  auto axis = AxisCoordinate::Build(meta, meta.variables[0], Axis::kZ);
  ASSERT_TRUE(axis.ok());
  EXPECT_FALSE(axis->is_time());
  EXPECT_EQ(*axis->Select("850"), (std::vector<int64_t>{1}));
  EXPECT_EQ(*axis->Select("900/400"), (std::vector<int64_t>{1, 2}));
  EXPECT_THAT(axis->Select("700").status().message(), HasSubstr("there is no value '700'"));
  EXPECT_THAT(axis->Select("high").status().message(), HasSubstr("'high' is not a number"));
  // Values with units convert to the coordinate's (hPa here).
  EXPECT_EQ(*axis->Select("85000Pa"), (std::vector<int64_t>{1}));
  EXPECT_EQ(*axis->Select("850 mbar"), (std::vector<int64_t>{1}));
  EXPECT_EQ(*axis->Select("90kPa/45kPa"), (std::vector<int64_t>{1, 2}));
  EXPECT_THAT(axis->Select("1.5km").status().message(),
              HasSubstr("'1.5km' is in 'km', which cannot be converted to the coordinate's units "
                        "'hPa'"));
}

// A one-level variable without a level dimension takes the scalar coordinate its `coordinates`
// attribute names (GRIB's 2 m temperature: `coordinates = "heightAboveGround_2"`), not index 0;
// a scalar run time or member number named there is no level.
TEST(AxisCoordinateTest, ScalarCoordinateNamedByTheVariableIsItsLevel) {
  DataSetMeta meta = RectilinearMeta(Range(0, 1, 2), Range(0, 1, 2));
  Coordinate height = Coord1D("heightAboveGround_2", {2}, "m");
  height.dimensions.clear();
  Coordinate run = Coord1D("number", {5}, "1");
  run.dimensions.clear();
  meta.coordinates.push_back(height);
  meta.coordinates.push_back(run);
  meta.variables[0].attributes["coordinates"] =
      AttributeValue::String("number heightAboveGround_2");
  auto axis = AxisCoordinate::Build(meta, meta.variables[0], Axis::kZ);
  ASSERT_TRUE(axis.ok());
  EXPECT_EQ(axis->name(), "heightAboveGround_2");
  EXPECT_EQ(axis->Label(0), "2");
  EXPECT_EQ(*axis->Select("2"), (std::vector<int64_t>{0}));
  meta.variables[0].attributes["coordinates"] = AttributeValue::String("number");
  axis = AxisCoordinate::Build(meta, meta.variables[0], Axis::kZ);
  ASSERT_TRUE(axis.ok());
  EXPECT_EQ(axis->Label(0), "0");  // the index: no level is named
}

// Issue 29, 3.5 and 4.7: hybrid levels 786.5/866.4 answer 850 by the nearest on request, and an
// exact miss names the nearest values; a reversed time interval is an error (a level range may
// run either way); a value given twice is selected once; a hexadecimal number is no level.
TEST(AxisCoordinateTest, Issue29NearestMatchReversedIntervalsAndRepeats) {
  DataSetMeta meta = TimeMeta();
  meta.variables[0].shape[kZ] = 3;
  meta.variables[0].dimension_names[kZ] = "lev";
  meta.coordinates.push_back(Coord1D("lev", {1000, 866.4, 786.5}, "hPa"));
  auto levels = AxisCoordinate::Build(meta, meta.variables[0], Axis::kZ);
  ASSERT_TRUE(levels.ok());
  EXPECT_THAT(levels->Select("850").status().message(),
              HasSubstr("there is no value '850' (the nearest are 786.5 and 866.4)"));
  EXPECT_THAT(levels->Select("850").status().message(), HasSubstr("--level-method nearest"));
  EXPECT_EQ(*levels->Select("850", AxisMatch::kNearest), (std::vector<int64_t>{1}));
  EXPECT_EQ(*levels->Select("790,1000", AxisMatch::kNearest), (std::vector<int64_t>{2, 0}));
  EXPECT_FALSE(levels->Select("2000", AxisMatch::kNearest).ok());        // beyond half a step
  EXPECT_EQ(*levels->Select("1000/800"), (std::vector<int64_t>{0, 1}));  // either way
  EXPECT_EQ(*levels->Select("866.4,866.4,866.4"), (std::vector<int64_t>{1}));
  EXPECT_THAT(levels->Select("0x3E8").status().message(), HasSubstr("is not a number"));
  auto times = AxisCoordinate::Build(meta, meta.variables[0], Axis::kT);
  ASSERT_TRUE(times.ok());
  EXPECT_THAT(times->Select("2002-01-01/2001-01-01").status().message(),
              HasSubstr("the interval '2002-01-01/2001-01-01' is reversed"));
  EXPECT_EQ(*times->Select("2001-02-16,2001-02-16"), (std::vector<int64_t>{1}));
  EXPECT_EQ(*times->Select("2001-02-10", AxisMatch::kNearest), (std::vector<int64_t>{1}));
}

// Issue 29, 2.6: 2-D latitudes and longitudes that are all netCDF's default fill used to be
// taken as a grid, and every point landed 11,408 km away. They are not used: the grid mapping
// places the cells instead, or the variable says it has no usable coordinates.
TEST(HorizontalGridTest, Issue29CoordinatesThatAreAllFillAreNotUsed) {
  GRIDSTORE_TEST_NEEDS(GEO);  // PROJ
  Attributes laea;
  laea["grid_mapping_name"] = AttributeValue::String("lambert_azimuthal_equal_area");
  laea["latitude_of_projection_origin"] = AttributeValue::Double(52);
  laea["longitude_of_projection_origin"] = AttributeValue::Double(10);
  DataSetMeta meta = ProjectedMeta(Range(-50000, 10000, 11), Range(-50000, 10000, 11), laea);
  meta.variables[0].attributes["coordinates"] = AttributeValue::String("lat lon");
  for (const char* name : {"lat", "lon"}) {
    Coordinate c;
    c.name = name;
    c.dimensions = {"y", "x"};
    c.shape = {11, 11};
    c.values.assign(121, 9.969209968386869e36);
    c.attributes["units"] =
        AttributeValue::String(name == std::string("lat") ? "degrees_north" : "degrees_east");
    meta.coordinates.push_back(c);
  }
  auto g = Grid(meta);
  ASSERT_NE(g, nullptr);
  EXPECT_THAT(g->description(), HasSubstr("grid mapping crs"));
  auto n = g->FindNearest({10, 52});
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_LT(n->distance_km, 1);
  EXPECT_EQ(n->cell, (Cell{5, 5}));
  // Without the mapping: one sentence saying why.
  meta.variables[0].attributes.erase("grid_mapping");
  auto none = HorizontalGrid::Build(meta, meta.variables[0]);
  ASSERT_FALSE(none.ok());
  EXPECT_THAT(none.status().message(), HasSubstr("hold no usable latitude/longitude"));
}

// Issue 29, 2.2 and 2.6: every CF grid mapping PROJ can express; transverse Mercator written
// with the projection origin's names (as some writers do) is accepted, with a note.
TEST(HorizontalGridTest, Issue29GridMappingsOfCfAndCommonNonCfNames) {
  GRIDSTORE_TEST_NEEDS(GEO);  // PROJ
  Attributes tm;
  tm["grid_mapping_name"] = AttributeValue::String("transverse_mercator");
  tm["latitude_of_projection_origin"] = AttributeValue::Double(49);
  tm["longitude_of_projection_origin"] = AttributeValue::Double(-2);
  tm["scale_factor_at_projection_origin"] = AttributeValue::Double(0.9996012717);
  tm["false_easting"] = AttributeValue::Double(400000);
  tm["false_northing"] = AttributeValue::Double(-100000);
  // The Greenwich meridian at 51.4779 N on the British national grid is near (538,900,
  // 177,300) m.
  auto g = Grid(ProjectedMeta(Range(536000, 1000, 6), Range(175000, 1000, 5), tm));
  ASSERT_NE(g, nullptr);
  EXPECT_THAT(g->description(),
              HasSubstr("note: grid mapping attribute 'longitude_of_projection_origin' taken for "
                        "CF's 'longitude_of_central_meridian'"));
  auto n = g->FindNearest({0, 51.4779});
  ASSERT_TRUE(n.ok()) << n.status().ToString();
  EXPECT_LT(n->distance_km, 1.5);
  for (const char* name :
       {"albers_conical_equal_area", "sinusoidal", "mercator", "lambert_cylindrical_equal_area",
        "orthographic", "azimuthal_equidistant", "stereographic", "oblique_mercator"}) {
    Attributes a;
    a["grid_mapping_name"] = AttributeValue::String(name);
    a["standard_parallel"] = AttributeValue::Double(40);
    a["azimuth_of_central_line"] = AttributeValue::Double(30);
    a["longitude_of_projection_origin"] = AttributeValue::Double(10);
    a["latitude_of_projection_origin"] = AttributeValue::Double(40);
    auto one =
        HorizontalGrid::Build(ProjectedMeta(Range(0, 1000, 3), Range(0, 1000, 3), a),
                              ProjectedMeta(Range(0, 1000, 3), Range(0, 1000, 3), a).variables[0]);
    EXPECT_TRUE(one.ok()) << name << ": " << one.status().ToString();
  }
}

}  // namespace
}  // namespace gridstore::grid
