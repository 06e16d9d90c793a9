// Copyright 2026 The GridStore Authors.
//
// `gridstore extract` on the real files in $GRIDSTORE_TEST_DATA: values at points and in boxes
// against netCDF-C reads at the cells a brute-force great-circle search picks, CoverageJSON
// structure, and the errors.
#include <netcdf.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "gridstore/geo/coordinates.h"
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
        // A float32 variable's value is written as that float's shortest text.
        EXPECT_EQ(doc["values"]["tos"][t].get<float>(), float(expected));
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
  EXPECT_EQ(line, "time,level,lat,lon,cell_lat,cell_lon,distance_km,tos");
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
    EXPECT_EQ(doc["values"]["air_potential_temperature"][t].get<float>(),
              float(theta[((t * 10 + 2) * 83 + 40) * 83 + 50]));
  }
  EXPECT_THAT(doc["grid"].get<std::string>(), HasSubstr("grid mapping rotated_latitude_longitude"));
}

// Even-odd ray casting: an independent point-in-polygon test.
bool InPolygon(const std::vector<std::pair<double, double>>& ring, double x, double y) {
  bool inside = false;
  for (size_t i = 0, j = ring.size() - 1; i < ring.size(); j = i++) {
    const auto [xi, yi] = ring[i];
    const auto [xj, yj] = ring[j];
    if ((yi > y) != (yj > y) && x < (xj - xi) * (y - yi) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

// The (lat, lon) of the CSV rows after the header.
std::set<std::pair<double, double>> CsvCells(const std::string& csv) {
  std::set<std::pair<double, double>> cells;
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  while (std::getline(lines, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string item; std::getline(ss, item, ',');) f.push_back(item);
    cells.insert({std::stod(f[2]), std::stod(f[3])});
  }
  return cells;
}

TEST_F(ExtractCliTest, PolygonRadiusAndCorridorHoldTheCellsABruteForceSearchFinds) {
  const std::string path = data_ + "/tos_O1_2001-2002.nc";
  const std::vector<double> lat = ReadVar(path, "lat"), lon = ReadVar(path, "lon");
  // A concave polygon west of Africa (longitudes in -180..180; the grid's are 0..360).
  const std::vector<std::pair<double, double>> ring = {{-40, -20}, {-10, -20}, {-25, 0},
                                                       {-10, 20},  {-40, 20},  {-40, -20}};
  std::string wkt = "POLYGON((";
  for (size_t i = 0; i < ring.size(); ++i) {
    wkt += (i ? ", " : "") + std::to_string(ring[i].first) + " " + std::to_string(ring[i].second);
  }
  wkt += "))";
  std::set<std::pair<double, double>> expected;
  for (double la : lat)
    for (double lo : lon)
      if (InPolygon(ring, lo - 360, la)) expected.insert({la, lo - 360});  // as asked
  RunResult r = Run({"extract", "tos_O1_2001-2002.nc", "--variables", "tos", "--polygon", wkt,
                     "--time", "2001-01-16", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CsvCells(r.out), expected);
  EXPECT_GT(expected.size(), 100u);

  // A radius of 500 km around (-30, 10).
  expected.clear();
  for (double la : lat)
    for (double lo : lon)
      if (grid::GreatCircleKm({-30, 10}, {lo, la}) <= 500) expected.insert({la, lo - 360});
  r = Run({"extract", "tos_O1_2001-2002.nc", "--variables", "tos", "--radius", "-30,10,500",
           "--time", "2001-01-16", "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(CsvCells(r.out), expected);

  // A corridor 400 km wide along the meridian 30W from 10S to 10N: the distance to a meridian
  // is asin(cos(lat) sin(dlon)) on the sphere, where the foot lies on the segment.
  r = Run({"extract", "tos_O1_2001-2002.nc", "--variables", "tos", "--trajectory",
           "LINESTRING(-30 -10, -30 10)", "--width", "400", "--time", "2001-01-16", "--format",
           "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::set<std::pair<double, double>> got = CsvCells(r.out);
  int checked = 0;
  for (double la : lat) {
    if (std::fabs(la) > 8) continue;  // feet near the ends would need the end caps
    for (double lo : lon) {
      const double dlon = (lo - 330) * M_PI / 180;
      const double d =
          std::asin(std::fabs(std::cos(la * M_PI / 180) * std::sin(dlon))) * grid::kEarthRadiusKm;
      if (std::fabs(dlon) > M_PI / 2) continue;
      // Longitudes answered as the path gives them (-30, not 330: issue 29, 3.1).
      EXPECT_EQ(got.count({la, lo > 180 ? lo - 360 : lo}) == 1, d <= 200) << la << " " << lo;
      ++checked;
    }
  }
  EXPECT_GT(checked, 500);
}

TEST_F(ExtractCliTest, TrajectoryWithLevelsAndTimesReadsEachSampleAtItsOwn) {
  const std::string path = data_ + "/small_theta_colpex.nc";
  const std::vector<double> theta = ReadVar(path, "air_potential_temperature");
  // 2009-09-09T17:10:00Z and 18:00:00Z in Unix seconds; levels 2 to 8 (model_level_number).
  RunResult r =
      Run({"extract", "small_theta_colpex.nc", "--variables", "air_potential_temperature",
           "--trajectory", "LINESTRING ZM(-3.4 52.3 2 1252516200, -3.0 52.5 8 1252519200)",
           "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  const json& points = doc["points"];
  ASSERT_GT(points.size(), 10u);
  EXPECT_EQ(points.front()["time"], "2009-09-09T17:10:00Z");
  EXPECT_EQ(points.front()["level"], 2);
  EXPECT_EQ(points.back()["time"], "2009-09-09T18:00:00Z");
  EXPECT_EQ(points.back()["level"], 8);
  const json& values = doc["values"]["air_potential_temperature"];
  ASSERT_EQ(values.size(), points.size());  // one time and level per sample
  for (size_t i = 0; i < points.size(); ++i) {
    const int64_t x = points[i]["x"], y = points[i]["y"], level = points[i]["level"];
    const std::string time = points[i]["time"];
    const int t = (std::stoi(time.substr(11, 2)) - 17) * 6 + std::stoi(time.substr(14, 2)) / 10 - 1;
    EXPECT_EQ(
        values[i].get<float>(),
        float(theta[((size_t(t) * 10 + size_t(level - 1)) * 83 + size_t(x)) * 83 + size_t(y)]));
  }
  // The same path at one time over every level: a CoverageJSON Section.
  r = Run({"extract", "small_theta_colpex.nc", "--variables", "air_potential_temperature",
           "--trajectory", "LINESTRING(-3.4 52.3, -3.0 52.5)", "--time", "2009-09-09T18:00"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json section = json::parse(r.out);
  EXPECT_EQ(section["domain"]["domainType"], "Section");
  EXPECT_EQ(section["ranges"]["air_potential_temperature"]["axisNames"], json({"z", "composite"}));
  const size_t n = section["domain"]["axes"]["composite"]["values"].size();
  EXPECT_EQ(section["ranges"]["air_potential_temperature"]["shape"], json({10, n}));
}

// The CoverageJSON specification's rules for the domain types GridStore writes (section 9 of
// the spec: which axes each domain type has and how many values each may hold), and the rules
// for ranges (axisNames from the domain's axes, shape their lengths, values their product).
std::string CoverageProblem(const json& coverage, const json& parameters) {
  if (coverage["type"] != "Coverage") return "type is not Coverage";
  const json& domain = coverage["domain"];
  if (domain["type"] != "Domain") return "domain type is not Domain";
  const std::string type = domain["domainType"];
  const json& axes = domain["axes"];
  auto size = [&](const char* axis) -> size_t {
    return axes.contains(axis) ? axes[axis]["values"].size() : 0;
  };
  const std::map<std::string, std::vector<std::string>> required = {
      {"Grid", {"x", "y"}},
      {"Point", {"x", "y"}},
      {"PointSeries", {"x", "y", "t"}},
      {"VerticalProfile", {"x", "y", "z"}},
      {"Trajectory", {"composite"}},
      {"Section", {"composite", "z"}},
      {"MultiPoint", {"composite"}},
      {"MultiPointSeries", {"composite", "t"}}};
  if (!required.count(type)) return "unknown domainType " + type;
  const std::map<std::string, std::set<std::string>> allowed = {
      {"Grid", {"x", "y", "z", "t"}},        {"Point", {"x", "y", "z", "t"}},
      {"PointSeries", {"x", "y", "z", "t"}}, {"VerticalProfile", {"x", "y", "z", "t"}},
      {"Trajectory", {"composite", "z"}},    {"Section", {"composite", "z"}},
      {"MultiPoint", {"composite", "t"}},    {"MultiPointSeries", {"composite", "t"}}};
  for (const auto& [axis, unused] : axes.items()) {
    if (!allowed.at(type).count(axis)) return type + " may not have axis " + axis;
  }
  for (const std::string& a : required.at(type)) {
    if (!axes.contains(a)) return type + " lacks axis " + a;
  }
  if ((type == "Point" || type == "PointSeries" || type == "VerticalProfile") &&
      (size("x") != 1 || size("y") != 1)) {
    return type + " must have one x and one y";
  }
  if (type == "Point" && (size("t") > 1 || size("z") > 1)) return "a Point has one t and z";
  if (type == "PointSeries" && size("z") > 1) return "a PointSeries has one z";
  if (type == "VerticalProfile" && size("t") > 1) return "a VerticalProfile has one t";
  if (axes.contains("composite")) {
    const json& c = axes["composite"];
    if (c["dataType"] != "tuple") return "composite dataType is not tuple";
    for (const json& v : c["values"]) {
      if (v.size() != c["coordinates"].size()) return "a composite tuple has the wrong length";
    }
  }
  if (!domain.contains("referencing") || domain["referencing"].empty()) return "no referencing";
  for (const auto& [name, range] : coverage["ranges"].items()) {
    if (!parameters.contains(name)) return "range " + name + " has no parameter";
    if (range["type"] != "NdArray") return "range " + name + " is not an NdArray";
    size_t expected = 1;
    if (range.contains("axisNames")) {
      if (range["axisNames"].size() != range["shape"].size()) return "axisNames vs shape";
      for (size_t i = 0; i < range["axisNames"].size(); ++i) {
        const std::string axis = range["axisNames"][i];
        if (!axes.contains(axis)) return "range axis " + axis + " is not a domain axis";
        if (axes[axis]["values"].size() != range["shape"][i]) return "shape of " + axis;
        expected *= size_t(range["shape"][i]);
      }
    }
    if (range["values"].size() != expected) return "range " + name + " has the wrong count";
  }
  return "";
}

TEST_F(ExtractCliTest, EveryShapeWritesValidCoverageJson) {
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"Point", {"tos_O1_2001-2002.nc", "tos", "--point", "-30,0", "--time", "2001-01-16"}},
      {"PointSeries", {"tos_O1_2001-2002.nc", "tos", "--point", "-30,0"}},
      {"VerticalProfile",
       {"small_theta_colpex.nc", "air_potential_temperature", "--point", "-3.2,52.4", "--time",
        "2009-09-09T18:00"}},
      {"Grid", {"tos_O1_2001-2002.nc", "tos", "--bbox", "-40,-10,-20,10"}},
      {"Grid",
       {"tos_O1_2001-2002.nc", "tos", "--polygon", "POLYGON((-40 -5,-20 -5,-30 10,-40 -5))"}},
      {"Trajectory",
       {"tos_O1_2001-2002.nc", "tos", "--trajectory", "LINESTRING(-40 0,-20 10)", "--time",
        "2001-01-16"}},
      {"Section",
       {"small_theta_colpex.nc", "air_potential_temperature", "--trajectory",
        "LINESTRING(-3.4 52.3,-3.0 52.5)", "--time", "2009-09-09T18:00"}},
      {"MultiPointSeries",
       {"small_theta_colpex.nc", "air_potential_temperature", "--radius", "-3.2,52.4,3", "--level",
        "1"}},
  };
  for (const auto& [type, c] : cases) {
    std::vector<std::string> args = {"extract", c[0], "--variables", c[1], "--unpack"};
    args.insert(args.end(), c.begin() + 2, c.end());
    RunResult r = Run(args);
    ASSERT_EQ(r.exit_code, 0) << type << ": " << r.err;
    const json doc = json::parse(r.out);
    ASSERT_TRUE(doc.contains("parameters")) << type;
    if (doc["type"] == "CoverageCollection") {
      for (const json& cov : doc["coverages"]) {
        EXPECT_EQ(cov["domain"]["domainType"], type);
        EXPECT_EQ(CoverageProblem(cov, doc["parameters"]), "") << type;
      }
    } else {
      EXPECT_EQ(doc["domain"]["domainType"], type);
      EXPECT_EQ(CoverageProblem(doc, doc["parameters"]), "") << type;
    }
  }
}

TEST_F(ExtractCliTest, InfoShowsCoordinatesInFileOrderWithDatesAndTheGrid) {
  ASSERT_EQ(Run({"import", data_ + "/SMALL_total_column_co2.nc", "--dataset", "co2"}).exit_code, 0);
  RunResult r = Run({"info", "co2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("latitude (latitude: 161) float32  90 .. -90  descending, step "
                               "-1.125  degrees_north"));
  EXPECT_THAT(r.out, HasSubstr("2006-01-01T06:00:00Z .. 2006-01-08T18:00:00Z  ascending, step 6"));
  EXPECT_THAT(r.out, HasSubstr("grid: rectilinear (latitude, longitude)"));
  r = Run({"info", "tos_O1_2001-2002.nc"});
  EXPECT_THAT(r.out, HasSubstr("2001-01-16T00:00:00Z .. 2002-12-16T00:00:00Z  ascending, step 30  "
                               "days since 2001-1-1  calendar 360_day"));
  r = Run({"info", "small_theta_colpex.nc", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  EXPECT_EQ(doc["variables"][0]["grid"],
            "curvilinear (grid_latitude, grid_longitude and grid mapping "
            "rotated_latitude_longitude)");
  bool saw_time = false;
  for (const json& c : doc["coordinates"]) {
    if (c["name"] != "time") continue;
    saw_time = true;
    EXPECT_EQ(c["first"], "2009-09-09T17:10:00Z");
    EXPECT_EQ(c["last"], "2009-09-09T18:00:00Z");
    EXPECT_EQ(c["direction"], "ascending");
  }
  EXPECT_TRUE(saw_time);
}

TEST_F(ExtractCliTest, NetCdfOutputHoldsTheSameValuesAsJson) {
  const std::vector<std::vector<std::string>> requests = {
      {"small_theta_colpex.nc", "air_potential_temperature", "--point", "-3.2,52.4", "--point",
       "-3.1,52.5"},
      {"small_theta_colpex.nc", "air_potential_temperature", "--trajectory",
       "LINESTRING Z(-3.4 52.3 2, -3.0 52.5 8)", "--time", "2009-09-09T17:30"},
      {"tos_O1_2001-2002.nc", "tos", "--polygon", "POLYGON((-40 -5,-20 -5,-30 10,-40 -5))",
       "--time", "2001-01-16/2001-03-16"},
  };
  for (const auto& q : requests) {
    std::vector<std::string> args = {"extract", q[0], "--variables", q[1], "--unpack"};
    args.insert(args.end(), q.begin() + 2, q.end());
    std::vector<std::string> as_json = args, as_nc = args;
    as_json.insert(as_json.end(), {"--format", "json"});
    const std::string out = dir_.Sub("out.nc");
    as_nc.insert(as_nc.end(), {"--format", "nc", "-o", out});
    RunResult j = Run(as_json);
    ASSERT_EQ(j.exit_code, 0) << j.err;
    RunResult n = Run(as_nc);
    ASSERT_EQ(n.exit_code, 0) << n.err;
    const json expected = json::parse(j.out)["values"][q[1]];
    const std::vector<double> got = ReadVar(out, q[1].c_str());
    ASSERT_EQ(got.size(), expected.size()) << q[2];
    for (size_t i = 0; i < got.size(); ++i) {
      if (expected[i].is_null()) {
        EXPECT_TRUE(std::isnan(got[i])) << q[2] << " " << i;
      } else {
        EXPECT_FLOAT_EQ(float(got[i]), float(expected[i].get<double>())) << q[2] << " " << i;
      }
    }
  }
}

TEST_F(ExtractCliTest, CoverageJsonHoldsUnpackedValuesAndNullsForFill) {
  ASSERT_EQ(Run({"import", data_ + "/SMALL_total_column_co2.nc", "--dataset", "co2"}).exit_code, 0);
  const std::vector<std::string> point = {"extract", "co2",    "--variables", "tcco2",
                                          "--point", "120,30", "--time",      "2006-01-01T06:00"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = point;
    args.insert(args.end(), extra.begin(), extra.end());
    RunResult r = Run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out);
  };
  const double covjson = with({})["ranges"]["tcco2"]["values"][0];
  const double unpacked = with({"--format", "json", "--unpack"})["values"]["tcco2"][0];
  const double raw = with({"--format", "json", "--raw"})["values"]["tcco2"][0];  // issue 29, 3.3
  EXPECT_EQ(with({"--format", "json"})["values"]["tcco2"][0], unpacked);  // unpacked by default
  EXPECT_EQ(covjson, unpacked);  // physical values: CoverageJSON has no packing
  EXPECT_NE(raw, unpacked);
  EXPECT_NEAR(unpacked, raw * 0.00131799501937031 + 389.632837278418, 1e-9);
  // tos's land cells hold the fill value 1e20: null in CoverageJSON without asking.
  const json land = json::parse(Run({"extract", "tos_O1_2001-2002.nc", "--variables", "tos",
                                     "--point", "120.17,30.25", "--time", "2001-01-16"})
                                    .out);
  EXPECT_TRUE(land["ranges"]["tos"]["values"][0].is_null());
}

// A path going back and forth across the colpex domain: about 120 km a leg.
std::string Zigzag(int vertices) {
  std::string wkt = "LINESTRING(";
  for (int i = 0; i < vertices; ++i)
    wkt += i % 2 ? ", -2.5 52.8" : (i ? ", -3.7 52.05" : "-3.7 52.05");
  return wkt + ")";
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
      {{"--point", "-3,52", "--format", "xml"}, "--format 'xml' is not covjson, nc, csv or json"},
      {{"--bbox", "0,10,1,5"}, "is not W,S,E,N"},
      {{"--polygon", "POLYGON((0 0, 1 1, 1 0, 0 1, 0 0))"},
       "is not a valid polygon: Self-intersection"},
      {{"--polygon", "CIRCLE(1)"}, "is not WKT"},
      {{"--polygon", "POLYGON((0 0, 1 0, 1 1, 0 0))"}, "holds no cell centre"},
      {{"--radius", "-3,52,-1"}, "must be positive"},
      {{"--trajectory", "LINESTRING(-3.2 52.4)"}, "at least two vertices"},
      {{"--trajectory", "LINESTRING Z(-3.2 52.4, -3.1 52.5)"}, "LINESTRING Z has 3"},
      {{"--trajectory", "LINESTRING(-3.2 52.4, 10 52.5)"}, "is outside the grid"},
      {{"--trajectory", Zigzag(6000)}, "samples at half this grid's spacing"},
      {{"--point", "-3,52", "--width", "5"}, "a corridor width needs a trajectory"},
      {{"--point", "-3,52", "--tolerance-km", "-5"}, "the tolerance -5 km must be"},
      {{"--point", "1e308,52"}, "is not on the Earth"},
      {{"--point", "-3,52", "--level", ","}, "',' has an empty item"},
      {{"--trajectory", "LINESTRING(5e51 0, 30 30)", "--width", "5"},
       "the longitude is beyond ten turns"},
      {{"--trajectory", "LINESTRING(inf 52, -3 52.1)"}, "not a finite number"},
      {{"--trajectory", "LINESTRING(-3 nan, -3 52.1)"}, "not a finite number"},
      {{"--point", "-3,52", "--time", "..,"}, "has an empty item"},
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
