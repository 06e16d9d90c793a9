// Copyright 2026 The GridStore Authors.
//
// A forecast collection's answers (forecast::ExtractCollection over collections written with the
// library, tests/formats/collection_testutil.h) in every format of formats::WriteCollection:
// members, statistics and cross-run views whose runs have different times, each value compared
// with the known function it was written from; CSV row counts; CoverageJSON checked against the
// rules the service's conformance test applies (tests/server/conformance_test.py); NetCDF read
// back with netCDF-C.
#include "gridstore/formats/collection_formats.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netcdf.h>
#include <netcdf_mem.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "gridstore/forecast/collection_query.h"
#include "gridstore/formats/output_format.h"
#include "tests/formats/collection_testutil.h"
#include "tests/importers/netcdf_testutil.h"
#include "tests/test_util.h"

namespace gridstore::formats {
namespace collection_formats_test {

using forecast::CollectionExtraction;
using forecast::CollectionRequest;
using Json = nlohmann::json;
using testing::EnsLat;
using testing::EnsLon;
using testing::EnsRunMs;
using testing::EnsT;
using testing::kEnsMembers;
using testing::kHourMs;

// The two points asked: cells (x=3, y=3) and (x=5, y=6).
constexpr int64_t kPointX[] = {3, 5}, kPointY[] = {3, 6};

std::string Write(const CollectionExtraction& c, OutputFormat format) {
  std::ostringstream out;
  Status s = WriteCollection(c, format, out);
  EXPECT_TRUE(s.ok()) << OutputFormatName(format) << ": " << s.ToString();
  return out.str();
}

std::vector<std::vector<std::string>> CsvTable(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::string field;
    std::istringstream cells(line);
    while (std::getline(cells, field, ',')) fields.push_back(field);
    if (!line.empty() && line.back() == ',') fields.push_back("");
    rows.push_back(fields);
  }
  return rows;
}

size_t Column(const std::vector<std::string>& header, const std::string& name) {
  auto it = std::find(header.begin(), header.end(), name);
  EXPECT_NE(it, header.end()) << name;
  return size_t(it - header.begin());
}

// The (x, y) cell of a point by its latitude and longitude.
std::pair<int64_t, int64_t> CellOf(double lat, double lon) {
  return {int64_t(std::lround(60.0 - lat)), int64_t(std::lround((lon + 10.0) / 2.0))};
}

int LevelIndex(double level) { return level == 850 ? 0 : 1; }

// numpy's percentile (linear) of `v`.
double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const double pos = p / 100.0 * double(v.size() - 1);
  const size_t lo = size_t(std::floor(pos));
  const size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - double(lo));
}

// What CoverageJSON and the conformance test (tests/server/conformance_test.py,
// check_coverage_rules and its schemas) require of a coverage: a Domain whose every axis has
// values and a reference system (t a TemporalRS with ISO 8601 strings, z a VerticalCRS), ranges
// NdArrays whose shape matches their values and names only the domain's axes, and a parameter
// for each range.
void CheckCoverage(const Json& coverage, const Json& parameters, const std::string& where) {
  SCOPED_TRACE(where);
  ASSERT_EQ(coverage["type"], "Coverage");
  const Json& domain = coverage["domain"];
  ASSERT_EQ(domain["type"], "Domain");
  ASSERT_TRUE(domain["axes"].is_object());
  std::map<std::string, std::string> systems;
  for (const Json& connection : domain["referencing"]) {
    ASSERT_TRUE(connection["system"].contains("type"));
    for (const Json& c : connection["coordinates"]) {
      systems[c.get<std::string>()] = connection["system"]["type"].get<std::string>();
    }
  }
  const std::regex iso(R"(^\d{4,}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$)");
  for (const auto& [name, axis] : domain["axes"].items()) {
    ASSERT_TRUE(axis.contains("values")) << name;
    EXPECT_GE(axis["values"].size(), 1u) << name;
    std::vector<std::string> names = {name};
    if (name == "composite") names = axis["coordinates"].get<std::vector<std::string>>();
    for (const std::string& n : names) EXPECT_TRUE(systems.contains(n)) << "axis " << n;
  }
  if (domain["axes"].contains("t")) {
    EXPECT_EQ(systems["t"], "TemporalRS");
    for (const Json& v : domain["axes"]["t"]["values"]) {
      EXPECT_TRUE(std::regex_match(v.get<std::string>(), iso)) << v;
    }
  }
  for (const Json& v : domain["axes"]["run"]["values"]) {
    EXPECT_TRUE(std::regex_match(v.get<std::string>(), iso)) << v;
  }
  EXPECT_EQ(systems["run"], "TemporalRS");
  if (systems.contains("z")) {
    EXPECT_EQ(systems["z"], "VerticalCRS");
  }
  const Json& own = coverage.contains("parameters") ? coverage["parameters"] : parameters;
  for (const auto& [name, range] : coverage["ranges"].items()) {
    EXPECT_TRUE(own.contains(name)) << name;
    EXPECT_TRUE(own[name]["observedProperty"].contains("label")) << name;
    EXPECT_EQ(range["type"], "NdArray");
    EXPECT_EQ(range["dataType"], "float");
    const size_t n = range["values"].size();
    if (n > 1 || range.contains("axisNames")) {
      ASSERT_TRUE(range.contains("axisNames")) << name;
      ASSERT_EQ(range["axisNames"].size(), range["shape"].size());
      size_t size = 1;
      for (const Json& s : range["shape"]) size *= s.get<size_t>();
      EXPECT_EQ(size, n) << name;
      for (const Json& a : range["axisNames"]) {
        EXPECT_TRUE(domain["axes"].contains(a.get<std::string>())) << a;
      }
    }
  }
}

// An in-memory netCDF file opened by netCDF-C; closed on destruction.
class NcFile {
 public:
  explicit NcFile(std::string bytes) : bytes_(std::move(bytes)) {
    rc_ = nc_open_mem("collection.nc", NC_NOWRITE, bytes_.size(), bytes_.data(), &ncid_);
  }
  ~NcFile() {
    if (rc_ == NC_NOERR) nc_close(ncid_);
  }
  bool ok() const { return rc_ == NC_NOERR; }
  // The length of dimension `name`, or -1.
  int64_t Dim(const std::string& name) const {
    int id = -1;
    size_t len = 0;
    if (nc_inq_dimid(ncid_, name.c_str(), &id) != NC_NOERR) return -1;
    nc_inq_dimlen(ncid_, id, &len);
    return int64_t(len);
  }
  // The dimension names of variable `name` (empty if there is none).
  std::vector<std::string> Dims(const std::string& name) const {
    int varid = -1, ndims = 0;
    if (nc_inq_varid(ncid_, name.c_str(), &varid) != NC_NOERR) return {};
    int dims[NC_MAX_VAR_DIMS];
    nc_inq_var(ncid_, varid, nullptr, nullptr, &ndims, dims, nullptr);
    std::vector<std::string> out;
    for (int i = 0; i < ndims; ++i) {
      char dim[NC_MAX_NAME + 1] = {};
      nc_inq_dimname(ncid_, dims[i], dim);
      out.push_back(dim);
    }
    return out;
  }
  std::vector<double> Values(const std::string& name) const {
    int varid = -1;
    if (nc_inq_varid(ncid_, name.c_str(), &varid) != NC_NOERR) return {};
    size_t n = 1;
    for (const std::string& d : Dims(name)) n *= size_t(Dim(d));
    std::vector<double> values(n);
    nc_get_var_double(ncid_, varid, values.data());
    return values;
  }
  std::vector<int> Ints(const std::string& name) const {
    int varid = -1;
    if (nc_inq_varid(ncid_, name.c_str(), &varid) != NC_NOERR) return {};
    std::vector<int> values(size_t(Dim(Dims(name)[0])));
    nc_get_var_int(ncid_, varid, values.data());
    return values;
  }
  std::vector<std::string> Strings(const std::string& name) const {
    int varid = -1;
    if (nc_inq_varid(ncid_, name.c_str(), &varid) != NC_NOERR) return {};
    std::vector<char*> values(size_t(Dim(Dims(name)[0])));
    nc_get_var_string(ncid_, varid, values.data());
    std::vector<std::string> out(values.begin(), values.end());
    nc_free_string(values.size(), values.data());
    return out;
  }
  std::string Text(const std::string& var, const std::string& attribute) const {
    int varid = NC_GLOBAL;
    if (!var.empty() && nc_inq_varid(ncid_, var.c_str(), &varid) != NC_NOERR) return "";
    size_t len = 0;
    if (nc_inq_attlen(ncid_, varid, attribute.c_str(), &len) != NC_NOERR) return "";
    std::string text(len, '\0');
    nc_get_att_text(ncid_, varid, attribute.c_str(), text.data());
    return text;
  }

 private:
  std::string bytes_;
  int ncid_ = -1;
  int rc_ = NC_NOERR;
};

class CollectionFormatsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_,
                         grid::GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
    ASSERT_OK(testing::WriteTestCollections(*store_));
  }

  // "t" at the two points.
  CollectionRequest PointRequest() const {
    CollectionRequest r;
    r.collection = "test/ens";
    r.extract.variables = {"t"};
    for (int p = 0; p < 2; ++p)
      r.extract.points.push_back({EnsLon(kPointY[p]), EnsLat(kPointX[p])});
    return r;
  }

  Result<CollectionExtraction> Ask(const CollectionRequest& request) {
    return forecast::ExtractCollection(*store_, request);
  }

  testing::ScopedTempDir dir_;
  std::unique_ptr<grid::GridStore> store_;
};

TEST_F(CollectionFormatsTest, MembersInEveryFormat) {
  ASSERT_OK_AND_ASSIGN(CollectionExtraction c, Ask(PointRequest()));  // the latest run: 2 steps
  ASSERT_EQ(c.slices.size(), size_t(kEnsMembers));
  const int run = 2;
  const std::string run_iso = forecast::FormatIsoMs(EnsRunMs(run));

  // CSV: a row per member, point, time and level, every value the one written.
  const auto csv = CsvTable(Write(c, OutputFormat::kCsv));
  ASSERT_FALSE(csv.empty());
  EXPECT_EQ(csv[0], (std::vector<std::string>{"run", "member", "time", "lead_hours", "level", "lat",
                                              "lon", "cell_lat", "cell_lon", "distance_km", "t"}));
  ASSERT_EQ(csv.size() - 1, size_t(kEnsMembers * 2 * 2 * 2));
  for (size_t i = 1; i < csv.size(); ++i) {
    const auto& row = csv[i];
    ASSERT_EQ(row.size(), 11u) << i;
    EXPECT_EQ(row[0], run_iso);
    const int m = std::stoi(row[1]), s = std::stoi(row[3]) / 6;
    EXPECT_EQ(row[2], forecast::FormatIsoMs(EnsRunMs(run) + s * 6 * kHourMs));
    const auto [x, y] = CellOf(std::stod(row[5]), std::stod(row[6]));
    EXPECT_DOUBLE_EQ(std::stod(row[10]), EnsT(run, m, s, LevelIndex(std::stod(row[4])), x, y)) << i;
  }

  // JSON: the same rows.
  const Json doc = Json::parse(Write(c, OutputFormat::kJson));
  EXPECT_EQ(doc["collection"], "test/ens");
  EXPECT_EQ(doc["view"], "runs");
  EXPECT_EQ(doc["parameters"]["t"]["units"], "K");
  ASSERT_EQ(doc["rows"].size(), csv.size() - 1);
  for (const Json& row : doc["rows"]) {
    EXPECT_EQ(row["run"], run_iso);
    const int m = row["member"].get<int>(), s = int(row["lead_hours"].get<double>() / 6);
    const auto [x, y] = CellOf(row["lat"].get<double>(), row["lon"].get<double>());
    EXPECT_DOUBLE_EQ(row["t"].get<double>(),
                     EnsT(run, m, s, LevelIndex(row["level"].get<double>()), x, y));
  }

  // CoverageJSON: a CoverageCollection, one VerticalProfile per member, point and time, each
  // with run and member axes.
  const Json cov = Json::parse(Write(c, OutputFormat::kCoverageJson));
  ASSERT_EQ(cov["type"], "CoverageCollection");
  ASSERT_EQ(cov["coverages"].size(), size_t(kEnsMembers * 2 * 2));
  EXPECT_EQ(cov["parameters"]["t"]["unit"]["symbol"], "K");
  std::set<int> members;
  for (size_t k = 0; k < cov["coverages"].size(); ++k) {
    const Json& one = cov["coverages"][k];
    CheckCoverage(one, cov["parameters"], "coverage " + std::to_string(k));
    const Json& axes = one["domain"]["axes"];
    EXPECT_EQ(axes["run"]["values"][0], run_iso);
    const int m = axes["member"]["values"][0].get<int>();
    members.insert(m);
    const auto [x, y] =
        CellOf(axes["y"]["values"][0].get<double>(), axes["x"]["values"][0].get<double>());
    const int64_t valid =
        forecast::ParseIsoMs(axes["t"]["values"][0].get<std::string>(), "t").value();
    const int s = int((valid - EnsRunMs(run)) / (6 * kHourMs));
    const Json& values = one["ranges"]["t"]["values"];
    ASSERT_EQ(values.size(), 2u);  // the two levels
    for (int z = 0; z < 2; ++z) EXPECT_DOUBLE_EQ(values[z].get<double>(), EnsT(run, m, s, z, x, y));
  }
  EXPECT_EQ(members.size(), size_t(kEnsMembers));

  // NetCDF: (run, member, station, time, plev), with the run, member and time coordinates.
  NcFile nc(Write(c, OutputFormat::kNetCdf));
  ASSERT_TRUE(nc.ok());
  EXPECT_EQ(nc.Dims("t"), (std::vector<std::string>{"run", "member", "station", "time", "plev"}));
  EXPECT_EQ(nc.Values("run"), std::vector<double>{double(EnsRunMs(run)) / 1000});
  EXPECT_EQ(nc.Text("run", "standard_name"), "forecast_reference_time");
  EXPECT_EQ(nc.Ints("member"), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(nc.Text("member", "standard_name"), "realization");
  EXPECT_EQ(nc.Values("lead_time"), (std::vector<double>{0, 6}));
  EXPECT_EQ(nc.Values("valid_time"), (std::vector<double>{double(EnsRunMs(run)) / 1000,
                                                          double(EnsRunMs(run)) / 1000 + 21600}));
  EXPECT_EQ(nc.Values("plev"), (std::vector<double>{850, 500}));
  EXPECT_EQ(nc.Text("t", "units"), "K");
  const std::vector<double> t = nc.Values("t");
  ASSERT_EQ(t.size(), size_t(kEnsMembers * 2 * 2 * 2));
  for (int m = 0; m < kEnsMembers; ++m)
    for (int p = 0; p < 2; ++p)
      for (int s = 0; s < 2; ++s)
        for (int z = 0; z < 2; ++z)
          EXPECT_DOUBLE_EQ(t[size_t(((m * 2 + p) * 2 + s) * 2 + z)],
                           EnsT(run, m, s, z, kPointX[p], kPointY[p]));
}

TEST_F(CollectionFormatsTest, StatisticsInEveryFormat) {
  CollectionRequest request = PointRequest();
  request.statistics = "mean,p50,prob>262";
  request.extract.level = "850";
  ASSERT_OK_AND_ASSIGN(CollectionExtraction c, Ask(request));
  ASSERT_TRUE(c.has_statistics);
  const int run = 2;
  auto expected = [&](const std::string& stat, int s, int p) {
    std::vector<double> v;
    for (int m = 0; m < kEnsMembers; ++m) v.push_back(EnsT(run, m, s, 0, kPointX[p], kPointY[p]));
    if (stat == "mean") return (v[0] + v[1] + v[2] + v[3]) / 4;
    if (stat == "p50") return Percentile(v, 50);
    return double(std::count_if(v.begin(), v.end(), [](double x) { return x > 262; })) / 4;
  };
  // CSV: a stat column, no member column.
  const auto csv = CsvTable(Write(c, OutputFormat::kCsv));
  ASSERT_EQ(csv[0][1], "stat");
  ASSERT_EQ(csv.size() - 1, size_t(3 * 2 * 2));
  std::set<std::string> stats;
  for (size_t i = 1; i < csv.size(); ++i) {
    const auto& row = csv[i];
    stats.insert(row[1]);
    const auto [x, y] = CellOf(std::stod(row[5]), std::stod(row[6]));
    const int p = x == kPointX[0] ? 0 : 1;
    EXPECT_NEAR(std::stod(row[10]), expected(row[1], std::stoi(row[3]) / 6, p), 1e-9) << i;
  }
  EXPECT_EQ(stats, (std::set<std::string>{"mean", "p50", "prob>262"}));
  // The probabilities are not the mean: the members differ unevenly.
  EXPECT_NE(expected("p50", 0, 0), expected("mean", 0, 0));
  // JSON: "stat" in each row; t's units are the variable's, not the probability's.
  const Json doc = Json::parse(Write(c, OutputFormat::kJson));
  EXPECT_EQ(doc["parameters"]["t"]["units"], "K");
  for (const Json& row : doc["rows"]) {
    EXPECT_FALSE(row.contains("member"));
    const int p = row["lat"].get<double>() == EnsLat(kPointX[0]) ? 0 : 1;
    EXPECT_NEAR(row["t"].get<double>(),
                expected(row["stat"], int(row["lead_hours"].get<double>() / 6), p), 1e-9);
  }
  // CoverageJSON: a stat axis; the probability's coverages carry their own parameters (units 1).
  const Json cov = Json::parse(Write(c, OutputFormat::kCoverageJson));
  ASSERT_EQ(cov["coverages"].size(), 3u * 2u);  // a PointSeries per statistic and point
  for (const Json& one : cov["coverages"]) {
    CheckCoverage(one, cov["parameters"], "statistic");
    const std::string stat = one["domain"]["axes"]["stat"]["values"][0];
    EXPECT_FALSE(one["domain"]["axes"].contains("member"));
    EXPECT_EQ(one.contains("parameters"), stat == "prob>262") << stat;
    if (stat == "prob>262") {
      EXPECT_EQ(one["parameters"]["t"]["unit"]["symbol"], "1");
    }
    const int p =
        one["domain"]["axes"]["y"]["values"][0].get<double>() == EnsLat(kPointX[0]) ? 0 : 1;
    for (int s = 0; s < 2; ++s) {
      EXPECT_NEAR(one["ranges"]["t"]["values"][s].get<double>(), expected(stat, s, p), 1e-9);
    }
  }
  // NetCDF: a stat dimension of strings.
  NcFile nc(Write(c, OutputFormat::kNetCdf));
  ASSERT_TRUE(nc.ok());
  EXPECT_EQ(nc.Dims("t"), (std::vector<std::string>{"run", "stat", "station", "time", "plev"}));
  const std::vector<std::string> names = nc.Strings("stat");
  EXPECT_EQ(names, (std::vector<std::string>{"mean", "p50", "prob>262"}));
  EXPECT_EQ(nc.Text("t", "units"), "K");
  const std::vector<double> t = nc.Values("t");
  ASSERT_EQ(t.size(), 3u * 2 * 2);
  for (size_t k = 0; k < names.size(); ++k)
    for (int p = 0; p < 2; ++p)
      for (int s = 0; s < 2; ++s)
        EXPECT_NEAR(t[(k * 2 + size_t(p)) * 2 + size_t(s)], expected(names[k], s, p), 1e-9);
}

TEST_F(CollectionFormatsTest, EveryRunWithItsOwnTimes) {
  // run=all: the runs have 4, 3 and 2 steps. One member, one point, one level.
  CollectionRequest request = PointRequest();
  request.runs = "all";
  request.members = "1";
  request.extract.points.resize(1);
  request.extract.level = "500";
  ASSERT_OK_AND_ASSIGN(CollectionExtraction c, Ask(request));
  ASSERT_EQ(c.slices.size(), 3u);
  const auto csv = CsvTable(Write(c, OutputFormat::kCsv));
  ASSERT_EQ(csv.size() - 1, size_t(4 + 3 + 2));
  for (size_t i = 1; i < csv.size(); ++i) {
    const int64_t run_ms = forecast::ParseIsoMs(csv[i][0], "run").value();
    const int r = int((run_ms - EnsRunMs(0)) / (12 * kHourMs));
    const int s = std::stoi(csv[i][3]) / 6;
    EXPECT_EQ(forecast::ParseIsoMs(csv[i][2], "time").value(), run_ms + s * 6 * kHourMs);
    EXPECT_DOUBLE_EQ(std::stod(csv[i][10]), EnsT(r, 1, s, 1, kPointX[0], kPointY[0])) << i;
  }
  // NetCDF: time is as long as the longest run; the shorter runs' times and values are NaN.
  NcFile nc(Write(c, OutputFormat::kNetCdf));
  ASSERT_TRUE(nc.ok());
  EXPECT_EQ(nc.Dim("run"), 3);
  EXPECT_EQ(nc.Dim("time"), 4);
  EXPECT_EQ(nc.Ints("member"), std::vector<int>{1});
  const std::vector<double> valid = nc.Values("valid_time"), lead = nc.Values("lead_time"),
                            t = nc.Values("t");
  ASSERT_EQ(valid.size(), 12u);
  ASSERT_EQ(t.size(), 12u);  // run x member x station x time x plev = 3 x 1 x 1 x 4 x 1
  for (int r = 0; r < 3; ++r) {
    for (int s = 0; s < 4; ++s) {
      const size_t k = size_t(r * 4 + s);
      if (s >= testing::EnsSteps(r)) {
        EXPECT_TRUE(std::isnan(valid[k]) && std::isnan(lead[k]) && std::isnan(t[k])) << k;
        continue;
      }
      EXPECT_EQ(valid[k], double(EnsRunMs(r) + s * 6 * kHourMs) / 1000);
      EXPECT_EQ(lead[k], 6.0 * s);
      EXPECT_DOUBLE_EQ(t[k], EnsT(r, 1, s, 1, kPointX[0], kPointY[0]));
    }
  }
  // CoverageJSON: a PointSeries per run, each with its own t axis.
  const Json cov = Json::parse(Write(c, OutputFormat::kCoverageJson));
  ASSERT_EQ(cov["coverages"].size(), 3u);
  for (size_t r = 0; r < 3; ++r) {
    const Json& one = cov["coverages"][r];
    CheckCoverage(one, cov["parameters"], "run " + std::to_string(r));
    EXPECT_EQ(one["domain"]["axes"]["t"]["values"].size(), size_t(testing::EnsSteps(int(r))));
    EXPECT_EQ(one["domain"]["axes"]["run"]["values"][0], forecast::FormatIsoMs(EnsRunMs(int(r))));
  }
}

TEST_F(CollectionFormatsTest, BestAndConstantOffsetViews) {
  // Best: each valid time from the newest run covering it (runs cover 00-18, 12-00, 00-06).
  CollectionRequest request = PointRequest();
  request.best = true;
  request.members = "0,3";
  request.extract.points.resize(1);
  request.extract.level = "850";
  ASSERT_OK_AND_ASSIGN(CollectionExtraction best, Ask(request));
  EXPECT_EQ(best.view, forecast::RunView::kBest);
  const Json doc = Json::parse(Write(best, OutputFormat::kJson));
  EXPECT_EQ(doc["view"], "best");
  std::map<std::pair<int, int64_t>, double> seen;  // (member, valid ms) -> t
  for (const Json& row : doc["rows"]) {
    const int64_t run_ms = forecast::ParseIsoMs(row["run"].get<std::string>(), "run").value();
    const int64_t valid = forecast::ParseIsoMs(row["time"].get<std::string>(), "time").value();
    const int r = int((run_ms - EnsRunMs(0)) / (12 * kHourMs));
    // The newest run that has this valid time.
    int newest = -1;
    for (int k = 0; k < 3; ++k) {
      const int64_t lead = valid - EnsRunMs(k);
      if (lead >= 0 && lead % (6 * kHourMs) == 0 && lead / (6 * kHourMs) < testing::EnsSteps(k)) {
        newest = k;
      }
    }
    EXPECT_EQ(r, newest) << row;
    const int s = int(row["lead_hours"].get<double>() / 6);
    EXPECT_EQ(valid, run_ms + s * 6 * kHourMs);
    EXPECT_DOUBLE_EQ(row["t"].get<double>(),
                     EnsT(r, row["member"].get<int>(), s, 0, kPointX[0], kPointY[0]));
    EXPECT_TRUE(seen.emplace(std::pair{row["member"].get<int>(), valid}, 0).second) << row;
  }
  EXPECT_EQ(seen.size(), 2u * 6);  // 00, 06 (run 0), 12, 18 (run 1), 00, 06 (run 2) per member
  NcFile nc(Write(best, OutputFormat::kNetCdf));
  ASSERT_TRUE(nc.ok());
  EXPECT_EQ(nc.Text("", "collection_view"), "best");
  EXPECT_EQ(nc.Dim("time"), 2);
  EXPECT_EQ(nc.Values("lead_time"), (std::vector<double>{0, 6, 0, 6, 0, 6}));

  // Constant offset: lead 6 h from every run, a series over run times.
  request.best = false;
  request.lead = "6h";
  ASSERT_OK_AND_ASSIGN(CollectionExtraction offset, Ask(request));
  const auto csv = CsvTable(Write(offset, OutputFormat::kCsv));
  ASSERT_EQ(csv.size() - 1, 3u * 2);  // runs x members
  for (size_t i = 1; i < csv.size(); ++i) {
    EXPECT_EQ(csv[i][3], "6");
    const int r =
        int((forecast::ParseIsoMs(csv[i][0], "run").value() - EnsRunMs(0)) / (12 * kHourMs));
    EXPECT_DOUBLE_EQ(std::stod(csv[i][10]),
                     EnsT(r, std::stoi(csv[i][1]), 1, 0, kPointX[0], kPointY[0]));
  }
  const Json cov = Json::parse(Write(offset, OutputFormat::kCoverageJson));
  EXPECT_EQ(cov["gridstore"]["view"], "constant offset");
  for (const Json& one : cov["coverages"]) CheckCoverage(one, cov["parameters"], "offset");
}

TEST_F(CollectionFormatsTest, GroupsOnOtherAxesAndAnArea) {
  // No variables: t (with levels) and msl (without) are two groups.
  CollectionRequest request;
  request.collection = "test/ens";
  request.members = "2";
  request.extract.bbox = std::array<double, 4>{-6.0, 55.5, 0.0, 57.5};  // x 3..4, y 2..5
  request.extract.time = forecast::FormatIsoMs(EnsRunMs(2) + 6 * kHourMs);
  ASSERT_OK_AND_ASSIGN(CollectionExtraction c, Ask(request));
  ASSERT_EQ(c.slices.size(), 1u);
  ASSERT_EQ(c.slices[0].groups.size(), 2u);
  const auto csv = CsvTable(Write(c, OutputFormat::kCsv));
  const size_t t_col = Column(csv[0], "t"), msl_col = Column(csv[0], "msl");
  ASSERT_EQ(csv.size() - 1, 8u * 2 + 8u);  // 8 cells x 2 levels (t), 8 cells (msl)
  for (size_t i = 1; i < csv.size(); ++i) {
    const auto [x, y] = CellOf(std::stod(csv[i][5]), std::stod(csv[i][6]));
    EXPECT_TRUE(x >= 3 && x <= 4 && y >= 2 && y <= 5) << x << "," << y;
    if (csv[i][t_col].empty()) {
      EXPECT_DOUBLE_EQ(std::stod(csv[i][msl_col]), testing::EnsMsl(2, 2, 1, x, y));
    } else {
      EXPECT_TRUE(csv[i][msl_col].empty());
      EXPECT_DOUBLE_EQ(std::stod(csv[i][t_col]),
                       EnsT(2, 2, 1, LevelIndex(std::stod(csv[i][4])), x, y));
    }
  }
  // JSON: a row holds its group's variables; an area's rows have no cell_* columns.
  const Json doc = Json::parse(Write(c, OutputFormat::kJson));
  ASSERT_EQ(doc["rows"].size(), csv.size() - 1);
  for (const Json& row : doc["rows"]) {
    EXPECT_NE(row.contains("t"), row.contains("msl"));
    EXPECT_EQ(row.contains("level"), row.contains("t"));
    EXPECT_FALSE(row.contains("cell_lat"));
  }
  // CoverageJSON: a Grid per group.
  const Json cov = Json::parse(Write(c, OutputFormat::kCoverageJson));
  ASSERT_EQ(cov["coverages"].size(), 2u);
  for (const Json& one : cov["coverages"]) {
    EXPECT_EQ(one["domain"]["domainType"], "Grid");
    CheckCoverage(one, cov["parameters"], "grid");
  }
  EXPECT_TRUE(cov["parameters"].contains("msl"));
  // NetCDF: the first group, over the box with 1-D lat and lon.
  NcFile nc(Write(c, OutputFormat::kNetCdf));
  ASSERT_TRUE(nc.ok());
  EXPECT_EQ(nc.Dims("t"),
            (std::vector<std::string>{"run", "member", "time", "plev", "lat", "lon"}));
  EXPECT_TRUE(nc.Dims("msl").empty());
  EXPECT_EQ(nc.Values("lat"), (std::vector<double>{57, 56}));
  EXPECT_EQ(nc.Values("lon"), (std::vector<double>{-6, -4, -2, 0}));
  EXPECT_EQ(nc.Text("lat", "standard_name"), "latitude");
  const std::vector<double> t = nc.Values("t");
  ASSERT_EQ(t.size(), 2u * 2 * 4);
  for (int z = 0; z < 2; ++z)
    for (int64_t x = 0; x < 2; ++x)
      for (int64_t y = 0; y < 4; ++y)
        EXPECT_DOUBLE_EQ(t[size_t((z * 2 + x) * 4 + y)], EnsT(2, 2, 1, z, 3 + x, 2 + y));
}

TEST_F(CollectionFormatsTest, DeterministicTrajectoryAndRefusals) {
  // A deterministic collection: no member or stat column, axis or dimension.
  CollectionRequest request = PointRequest();
  request.collection = "test/det";
  ASSERT_OK_AND_ASSIGN(CollectionExtraction det, Ask(request));
  const auto csv = CsvTable(Write(det, OutputFormat::kCsv));
  EXPECT_EQ(csv[0][0], "run");
  EXPECT_EQ(csv[0][1], "time");
  const Json cov = Json::parse(Write(det, OutputFormat::kCoverageJson));
  for (const Json& one : cov["coverages"]) {
    EXPECT_FALSE(one["domain"]["axes"].contains("member"));
    CheckCoverage(one, cov["parameters"], "deterministic");
  }
  NcFile nc(Write(det, OutputFormat::kNetCdf));
  ASSERT_TRUE(nc.ok());
  EXPECT_EQ(nc.Dim("member"), -1);
  EXPECT_EQ(nc.Dims("t"), (std::vector<std::string>{"run", "station", "time", "plev"}));

  // A trajectory: every text format, not NetCDF.
  request = PointRequest();
  request.extract.points.clear();
  request.extract.trajectory = "LINESTRING(-8 59, 4 54)";
  ASSERT_OK_AND_ASSIGN(CollectionExtraction path, Ask(request));
  const Json traj = Json::parse(Write(path, OutputFormat::kCoverageJson));
  for (const Json& one : traj["coverages"]) CheckCoverage(one, traj["parameters"], "trajectory");
  EXPECT_GT(CsvTable(Write(path, OutputFormat::kCsv)).size(), 1u);
  std::ostringstream out;
  EXPECT_STATUS(WriteCollection(path, OutputFormat::kNetCdf, out), kInvalidArgument, "trajectory",
                "CoverageJSON, CSV or JSON");
  EXPECT_STATUS(WriteCollection(det, OutputFormat::kNpy, out), kInvalidArgument, "npy");
  EXPECT_STATUS(WriteCollection(CollectionExtraction{}, OutputFormat::kCsv, out), kInvalidArgument,
                "no slice");
  EXPECT_TRUE(out.str().empty());
}

}  // namespace collection_formats_test
}  // namespace gridstore::formats
