// Copyright 2026 The GridStore Authors.
//
// Extractions of every feature kind written in every format through the one dispatch
// (formats/output_format.h), read back: CoverageJSON and JSON by nlohmann-json, CSV by its rows,
// NetCDF (made in memory) by netCDF-C. Fill values come out missing in each, units as the
// variable's, and CSV fields are escaped as every CSV of GridStore is.
#include <netcdf.h>
#include <netcdf_mem.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "gridstore/formats/netcdf/netcdf_extraction_writer.h"
#include "gridstore/formats/output_format.h"
#include "gridstore/util/internal/strings.h"
#include "tests/formats/formats_testutil.h"
#include "tests/importers/netcdf_testutil.h"

namespace gridstore::formats {
namespace {

using grid::Extraction;
using Json = nlohmann::json;
using testing::EveryFeatureKind;
using testing::FormatsTest;
using testing::kOddName;

std::string Written(const Extraction& r, OutputFormat format) {
  std::ostringstream out;
  Status s = WriteExtractions(std::span<const Extraction>(&r, 1), format, out);
  EXPECT_TRUE(s.ok()) << OutputFormatName(format) << ": " << s.ToString();
  return out.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) lines.push_back(line);
  return lines;
}

// The rows one extraction has: a row per point (or cell inside the area), time and level.
size_t ExpectedRows(const Extraction& r) {
  const grid::ExtractPlan& plan = r.plan;
  if (plan.kind != grid::FeatureKind::kArea) {
    return plan.points.size() * plan.num_times() * plan.num_levels();
  }
  size_t inside = 0;
  for (uint8_t m : plan.mask) inside += m;
  return inside * plan.times.size() * plan.levels.size();
}

// An in-memory netCDF file opened by netCDF-C; closed on destruction.
class NcMemory {
 public:
  explicit NcMemory(std::string bytes) : bytes_(std::move(bytes)) {
    rc_ = nc_open_mem("memory.nc", NC_NOWRITE, bytes_.size(), bytes_.data(), &ncid_);
  }
  ~NcMemory() {
    if (rc_ == NC_NOERR) nc_close(ncid_);
  }
  bool ok() const { return rc_ == NC_NOERR; }
  int id() const { return ncid_; }
  // The values of `name` as doubles (empty if there is no such variable).
  std::vector<double> Values(const std::string& name) const {
    int varid = -1, ndims = 0;
    if (nc_inq_varid(ncid_, name.c_str(), &varid) != NC_NOERR) return {};
    int dims[NC_MAX_VAR_DIMS];
    nc_inq_var(ncid_, varid, nullptr, nullptr, &ndims, dims, nullptr);
    size_t n = 1;
    for (int i = 0; i < ndims; ++i) {
      size_t len = 0;
      nc_inq_dimlen(ncid_, dims[i], &len);
      n *= len;
    }
    std::vector<double> values(n);
    nc_get_var_double(ncid_, varid, values.data());
    return values;
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

// The same numbers, NaN equal to NaN, at float precision (an area's t is written as float).
void ExpectSameValues(const std::vector<double>& got, const std::vector<double>& want,
                      const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " [" << i << "]";
    } else {
      EXPECT_NEAR(got[i], want[i], 1e-3) << what << " [" << i << "]";
    }
  }
}

TEST_F(FormatsTest, EveryFeatureKindInEveryExtractionFormat) {
  for (const testing::NamedRequest& kind : EveryFeatureKind()) {
    SCOPED_TRACE(kind.name);
    ASSERT_OK_AND_ASSIGN(Extraction r, ExtractAll(kind.request));
    // CoverageJSON: one coverage or a collection, each variable a parameter with a range.
    const Json cov = Json::parse(Written(r, OutputFormat::kCoverageJson));
    EXPECT_TRUE(cov["type"] == "Coverage" || cov["type"] == "CoverageCollection") << cov["type"];
    EXPECT_TRUE(cov["parameters"].contains("t"));
    EXPECT_TRUE(cov["parameters"].contains(kOddName));
    // CSV: the header and a row per place, time and level.
    const std::vector<std::string> rows = Lines(Written(r, OutputFormat::kCsv));
    ASSERT_FALSE(rows.empty());
    EXPECT_EQ(rows[0].rfind("time,level,lat,lon,cell_lat,cell_lon,distance_km,t,", 0), 0u)
        << rows[0];
    EXPECT_EQ(rows.size() - 1, ExpectedRows(r));
    // JSON: every value, NaN as null.
    const Json doc = Json::parse(Written(r, OutputFormat::kJson));
    ASSERT_TRUE(doc["values"].contains("t"));
    EXPECT_EQ(doc["values"]["t"].size(), r.variables[0].values.size());
    // NetCDF, made in memory: what netCDF-C reads back are the extracted values.
    NcMemory nc(Written(r, OutputFormat::kNetCdf));
    ASSERT_TRUE(nc.ok());
    ExpectSameValues(nc.Values("t"), r.variables[0].values, "t");
    ExpectSameValues(nc.Values(kOddName), r.variables[1].values, "odd name");
  }
}

TEST_F(FormatsTest, NetCdfInMemoryHoldsWhatTheFileHolds) {
  for (const testing::NamedRequest& kind : EveryFeatureKind()) {
    SCOPED_TRACE(kind.name);
    ASSERT_OK_AND_ASSIGN(Extraction r, ExtractAll(kind.request));
    const std::string path = dir_.Sub("file.nc");
    ASSERT_OK(WriteNetCdfExtraction(path, *r.meta, r));
    int ncid = -1;
    ASSERT_NC(nc_open(path.c_str(), NC_NOWRITE, &ncid));
    int file_vars = 0, file_dims = 0;
    ASSERT_NC(nc_inq(ncid, &file_dims, &file_vars, nullptr, nullptr));
    nc_close(ncid);
    ASSERT_OK_AND_ASSIGN(std::string bytes, NetCdfExtractionBytes(*r.meta, r));
    NcMemory memory(bytes);
    ASSERT_TRUE(memory.ok());
    int mem_vars = 0, mem_dims = 0;
    ASSERT_NC(nc_inq(memory.id(), &mem_dims, &mem_vars, nullptr, nullptr));
    EXPECT_EQ(mem_vars, file_vars);
    EXPECT_EQ(mem_dims, file_dims);
    EXPECT_EQ(memory.Text("", "featureType").empty(),
              r.plan.kind == grid::FeatureKind::kArea);  // a discrete sampling geometry
  }
}

TEST_F(FormatsTest, CsvEscapesNamesAsTheFetchCsvDoes) {
  grid::ExtractRequest request;
  request.points = {{-24.0, 57.0}};
  ASSERT_OK_AND_ASSIGN(Extraction r, ExtractAll(request));
  const std::string text = Written(r, OutputFormat::kCsv);
  // RFC 4180: the field quoted, its quotes doubled, the comma kept inside.
  const std::string quoted = "\"wind, \"\"gust\"\" max\"";
  EXPECT_EQ(CsvField(kOddName), quoted);
  EXPECT_NE(text.find(",t," + quoted + "\n"), std::string::npos) << text;
  // A newline too (the data model allows any byte but NUL in a name; netCDF does not).
  r.variables[1].meta.name = "two\nlines";
  EXPECT_NE(Written(r, OutputFormat::kCsv).find(",t,\"two\nlines\"\n"), std::string::npos);
  // The fetch CSV writes the same field for the same name: one escaper.
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("run"));
  fetcher->SetVariablesToGet({kOddName});
  fetcher->SetOriginShape({0, 0, 0, 0}, {1, 1, 1, 1});
  ASSERT_OK_AND_ASSIGN(grid::GridDataSet data, fetcher->Fetch());
  std::ostringstream fetched;
  ASSERT_OK(WriteFetched(meta_, data, OutputFormat::kCsv, fetched));
  EXPECT_NE(fetched.str().find("," + quoted + "\n"), std::string::npos) << fetched.str();
  // A plain name stays bare.
  EXPECT_EQ(CsvField("t"), "t");
  EXPECT_EQ(CsvField(" lead"), "\" lead\"");
}

TEST_F(FormatsTest, FillValuesAreMissingInEveryFormat) {
  grid::ExtractRequest request;
  request.points = {{testing::LonOf(testing::kFillY), testing::LatOf(testing::kFillX)}};
  request.time = "2026-11-25T00:00:00Z";
  request.level = "850";
  ASSERT_OK_AND_ASSIGN(Extraction r, ExtractAll(request));
  ASSERT_EQ(r.variables[0].values.size(), 1u);
  EXPECT_TRUE(std::isnan(r.variables[0].values[0]));
  const Json cov = Json::parse(Written(r, OutputFormat::kCoverageJson));
  EXPECT_TRUE(cov["ranges"]["t"]["values"][0].is_null()) << cov["ranges"]["t"];
  EXPECT_TRUE(Json::parse(Written(r, OutputFormat::kJson))["values"]["t"][0].is_null());
  const std::vector<std::string> rows = Lines(Written(r, OutputFormat::kCsv));
  ASSERT_EQ(rows.size(), 2u);  // the header, one row
  // ...,distance_km,t,<odd>: t empty, the other variable a number.
  std::vector<std::string> fields(1);
  for (char c : rows[1]) {
    if (c == ',') {
      fields.emplace_back();
    } else {
      fields.back().push_back(c);
    }
  }
  ASSERT_EQ(fields.size(), 9u) << rows[1];
  EXPECT_EQ(fields[7], "");
  EXPECT_FALSE(fields[8].empty());
  NcMemory nc(Written(r, OutputFormat::kNetCdf));
  ASSERT_TRUE(nc.ok());
  ASSERT_EQ(nc.Values("t").size(), 1u);
  EXPECT_TRUE(std::isnan(nc.Values("t")[0]));
  // Raw values (no unpacking) keep the stored fill as a number.
  request.variables = {"t"};
  request.unpack = false;
  ASSERT_OK_AND_ASSIGN(Extraction raw, grid::Extract(*store_, "run", request));
  EXPECT_EQ(Json::parse(Written(raw, OutputFormat::kJson))["values"]["t"][0], testing::kFill);
}

TEST_F(FormatsTest, UnitsAndNamesComeFromTheVariable) {
  grid::ExtractRequest request;
  request.bbox = std::array<double, 4>{-27.0, 50.0, -15.0, 56.0};
  ASSERT_OK_AND_ASSIGN(Extraction r, ExtractAll(request));
  const Json cov = Json::parse(Written(r, OutputFormat::kCoverageJson));
  EXPECT_EQ(cov["parameters"]["t"]["unit"]["symbol"], "K");
  EXPECT_EQ(cov["parameters"]["t"]["description"]["en"], "air temperature");
  EXPECT_EQ(cov["parameters"]["t"]["observedProperty"]["id"],
            "http://vocab.nerc.ac.uk/standard_name/air_temperature/");
  EXPECT_EQ(cov["parameters"][kOddName]["unit"]["symbol"], "m s-1");
  EXPECT_EQ(cov["domain"]["domainType"], "Grid");
  NcMemory nc(Written(r, OutputFormat::kNetCdf));
  ASSERT_TRUE(nc.ok());
  EXPECT_EQ(nc.Text("t", "units"), "K");
  EXPECT_EQ(nc.Text(kOddName, "units"), "m s-1");
  EXPECT_EQ(nc.Text("time", "units"), "hours since 2026-11-25 00:00:00");
  EXPECT_EQ(nc.Text("plev", "units"), "hPa");
}

TEST_F(FormatsTest, GroupsOnOtherAxesShareOneDocument) {
  grid::ExtractRequest request;
  request.points = {{-24.0, 57.0}};
  ASSERT_OK_AND_ASSIGN(Extraction a, ExtractAll(request));
  request.variables = {"t"};
  request.unpack = true;
  ASSERT_OK_AND_ASSIGN(Extraction b, grid::Extract(*store_, "run", request));
  const std::vector<Extraction> both = {a, b};
  std::ostringstream out;
  ASSERT_OK(WriteExtractions(both, OutputFormat::kJson, out));
  EXPECT_EQ(Json::parse(out.str())["groups"].size(), 2u);
  out.str("");
  ASSERT_OK(WriteExtractions(both, OutputFormat::kCoverageJson, out));
  EXPECT_EQ(Json::parse(out.str())["type"], "CoverageCollection");
  // NetCDF holds the first group only (the front ends say which they left out).
  out.str("");
  ASSERT_OK(WriteExtractions(both, OutputFormat::kNetCdf, out));
  NcMemory nc(out.str());
  ASSERT_TRUE(nc.ok());
  EXPECT_FALSE(nc.Values(kOddName).empty());
}

TEST_F(FormatsTest, AnAreaOfTimesOrLevelsNotInARowIsRefusedForNetCdf) {
  grid::ExtractRequest request;
  request.bbox = std::array<double, 4>{-27.0, 50.0, -15.0, 56.0};
  request.level = "500,850";
  ASSERT_OK_AND_ASSIGN(Extraction r, ExtractAll(request));
  const std::vector<int64_t>& levels = r.plan.levels;
  const bool in_a_row = levels.size() == 2 && levels[1] == levels[0] + 1;
  std::ostringstream out;
  Status s = WriteExtractions(std::span<const Extraction>(&r, 1), OutputFormat::kNetCdf, out);
  if (in_a_row) {
    EXPECT_TRUE(s.ok()) << s.ToString();
  } else {
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
    EXPECT_NE(s.message().find("not a list"), std::string::npos) << s.ToString();
    EXPECT_TRUE(out.str().empty());
  }
}

}  // namespace
}  // namespace gridstore::formats
