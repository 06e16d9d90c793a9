// Copyright 2026 The GridStore Authors.
//
// `gridstore extract` on the real files in $GRIDSTORE_TEST_DATA: values at points and in boxes
// against netCDF-C reads at the cells a brute-force great-circle search picks, CoverageJSON
// structure, and the errors.
#include <netcdf.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gridstore/grid/coordinates.h"
#include "tests/test_util.h"
#include "tests/tools/cli_testutil.h"

namespace gridstore::tools {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;
using testing::RunGridStore;
using testing::RunResult;

std::vector<double> ReadVar(const std::string& path, const char* name) {
  int nc = 0, id = 0;
  EXPECT_EQ(nc_open(path.c_str(), NC_NOWRITE, &nc), NC_NOERR);
  EXPECT_EQ(nc_inq_varid(nc, name, &id), NC_NOERR);
  int ndims = 0;
  nc_inq_varndims(nc, id, &ndims);
  std::vector<int> dims(static_cast<size_t>(ndims));
  nc_inq_vardimid(nc, id, dims.data());
  size_t n = 1;
  for (int d : dims) {
    size_t len = 0;
    nc_inq_dimlen(nc, d, &len);
    n *= len;
  }
  std::vector<double> v(n);
  EXPECT_EQ(nc_get_var_double(nc, id, v.data()), NC_NOERR);
  nc_close(nc);
  return v;
}

class ExtractCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* env = std::getenv("GRIDSTORE_TEST_DATA");
    ASSERT_TRUE(env != nullptr && std::filesystem::is_directory(env))
        << "GRIDSTORE_TEST_DATA must name the folder of real NetCDF files (../shared/data)";
    data_ = env;
    store_ = dir_.Sub("store");
    for (const char* f : {"tos_O1_2001-2002.nc", "small_theta_colpex.nc"}) {
      RunResult r = Run({"import", data_ + "/" + f, "--dataset", f});
      ASSERT_EQ(r.exit_code, 0) << r.err;
    }
  }
  RunResult Run(const std::vector<std::string>& args) {
    return RunGridStore(dir_.path(), store_, args);
  }
  testing::ScopedTempDir dir_;
  std::string data_, store_;
};

TEST_F(ExtractCliTest, PointSeriesEqualsNetCdfAtTheBruteForceNearestCell) {
  const std::string path = data_ + "/tos_O1_2001-2002.nc";
  const std::vector<double> lat = ReadVar(path, "lat"), lon = ReadVar(path, "lon"),
                            tos = ReadVar(path, "tos");
  for (const auto& [plon, plat] : std::vector<std::pair<double, double>>{
           {-30.3, 0.4}, {330.1, -10.2}, {179.9, -40.6}, {-0.2, 45.1}}) {
    size_t bi = 0, bj = 0;
    double best = INFINITY;
    for (size_t i = 0; i < lat.size(); ++i)
      for (size_t j = 0; j < lon.size(); ++j) {
        const double d = grid::GreatCircleKm({plon, plat}, {lon[j], lat[i]});
        if (d < best) best = d, bi = i, bj = j;
      }
    RunResult r =
        Run({"extract", "tos_O1_2001-2002.nc", "--variables", "tos", "--point",
             std::to_string(plon) + "," + std::to_string(plat), "--unpack", "--format", "json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json doc = json::parse(r.out);
    ASSERT_EQ(doc["values"]["tos"].size(), 24u);
    EXPECT_EQ(doc["points"][0]["x"], bi);
    EXPECT_EQ(doc["points"][0]["y"], bj);
    for (size_t t = 0; t < 24; ++t) {
      const double expected = tos[(t * lat.size() + bi) * lon.size() + bj];
      if (expected > 1e19) {
        EXPECT_TRUE(doc["values"]["tos"][t].is_null());  // land: the fill value
      } else {
        EXPECT_EQ(doc["values"]["tos"][t].get<double>(), float(expected));
      }
    }
  }
}

TEST_F(ExtractCliTest, CoverageJsonPointSeriesHasItsStructure) {
  RunResult r = Run({"extract", "tos_O1_2001-2002.nc", "--variables", "tos", "--point", "-30,0",
                     "--time", "2001-01-16/2001-03-16", "--unpack"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["type"], "Coverage");
  EXPECT_EQ(doc["domain"]["type"], "Domain");
  EXPECT_EQ(doc["domain"]["domainType"], "PointSeries");
  EXPECT_EQ(doc["domain"]["axes"]["t"]["values"],
            json({"2001-01-16T00:00:00Z", "2001-02-16T00:00:00Z", "2001-03-16T00:00:00Z"}));
  EXPECT_EQ(doc["ranges"]["tos"]["type"], "NdArray");
  EXPECT_EQ(doc["ranges"]["tos"]["axisNames"], json({"t"}));
  EXPECT_EQ(doc["ranges"]["tos"]["shape"], json({3}));
  EXPECT_EQ(doc["ranges"]["tos"]["values"].size(), 3u);
  EXPECT_EQ(doc["parameters"]["tos"]["unit"]["symbol"], "K");
  EXPECT_EQ(doc["parameters"]["tos"]["observedProperty"]["id"],
            "http://vocab.nerc.ac.uk/standard_name/sea_surface_temperature/");
  // Two points: a collection.
  r = Run({"extract", "tos_O1_2001-2002.nc", "--variables", "tos", "--point", "-30,0", "--point",
           "-31,1", "--time", "2001-01-16"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["type"], "CoverageCollection");
  EXPECT_EQ(json::parse(r.out)["coverages"].size(), 2u);
}

TEST_F(ExtractCliTest, BoxHoldsExactlyTheCellsWhoseCentresAreInside) {
  const std::string path = data_ + "/tos_O1_2001-2002.nc";
  const std::vector<double> lat = ReadVar(path, "lat"), lon = ReadVar(path, "lon");
  // Crossing the antimeridian: 170E to 170W.
  RunResult r = Run({"extract", "tos_O1_2001-2002.nc", "--variables", "tos", "--bbox",
                     "170,-5,-170,5", "--time", "2001-01-16", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t expected = 0;
  for (double la : lat)
    for (double lo : lon) expected += la >= -5 && la <= 5 && lo >= 170 && lo <= 190;
  std::istringstream lines(r.out);
  std::string line;
  size_t rows = 0;
  std::getline(lines, line);
  EXPECT_EQ(line, "time,level,lat,lon,tos");
  while (std::getline(lines, line)) ++rows;
  EXPECT_EQ(rows, expected);
  EXPECT_GT(rows, 0u);
}

TEST_F(ExtractCliTest, RotatedPoleGridIsFoundByGeographicPoint) {
  // colpex cell (x=40, y=50) on its rotated grid, placed by the rotation written out by hand.
  const std::string path = data_ + "/small_theta_colpex.nc";
  const std::vector<double> rlat = ReadVar(path, "grid_latitude"),
                            rlon = ReadVar(path, "grid_longitude"),
                            theta = ReadVar(path, "air_potential_temperature");
  constexpr double kRad = M_PI / 180;
  const double pole = 37.5 * kRad, a = rlat[40] * kRad, b = rlon[50] * kRad;
  const double lat =
      std::asin(std::sin(pole) * std::sin(a) + std::cos(pole) * std::cos(a) * std::cos(b));
  const double lon =
      177.5 - 180 +
      std::atan2(std::cos(a) * std::sin(b),
                 std::sin(pole) * std::cos(a) * std::cos(b) - std::cos(pole) * std::sin(a)) /
          kRad;
  char point[64];
  std::snprintf(point, sizeof(point), "%.10f,%.10f", lon, lat / kRad);
  RunResult r = Run({"extract", "small_theta_colpex.nc", "--variables", "air_potential_temperature",
                     "--point", point, "--level", "3", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["points"][0]["x"], 40);
  EXPECT_EQ(doc["points"][0]["y"], 50);
  EXPECT_LT(doc["points"][0]["distance_km"].get<double>(), 1e-6);
  ASSERT_EQ(doc["values"]["air_potential_temperature"].size(), 6u);  // 6 times, level 3
  for (size_t t = 0; t < 6; ++t) {
    EXPECT_EQ(doc["values"]["air_potential_temperature"][t].get<double>(),
              float(theta[((t * 10 + 2) * 83 + 40) * 83 + 50]));
  }
  EXPECT_THAT(doc["grid"].get<std::string>(), HasSubstr("grid mapping rotated_latitude_longitude"));
}

TEST_F(ExtractCliTest, ErrorsNameWhatIsWrong) {
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--point", "0,0"}, "is outside the grid of variable 'air_potential_temperature'"},
      {{"--point", "-3,52", "--time", "2001-01-01"}, "there is no time '2001-01-01'"},
      {{"--point", "-3,52", "--level", "99"}, "there is no value '99'"},
      {{"--point", "-3"}, "--point '-3' is not LON,LAT"},
      {{"--point", "-3,north"}, "'north' is not a number"},
      {{}, "no feature to extract"},
      {{"--point", "-3,52", "--bbox", "0,0,1,1"}, "give one feature"},
      {{"--point", "-3,52", "--method", "cubic"}, "--method 'cubic' is not nearest or bilinear"},
      {{"--bbox", "0,10,1,5"}, "is not W,S,E,N"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"extract", "small_theta_colpex.nc", "--variables",
                                     "air_potential_temperature"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    RunResult r = Run(args);
    EXPECT_EQ(r.exit_code, 1) << c.message;
    EXPECT_THAT(r.err, HasSubstr(c.message));
  }
  RunResult r = Run({"extract", "small_theta_colpex.nc", "--variables", "nope", "--point", "0,0"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("'nope'"));
}

}  // namespace
}  // namespace gridstore::tools
