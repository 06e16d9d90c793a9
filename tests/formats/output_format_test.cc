// Copyright 2026 The GridStore Authors.
//
// The one dispatch (formats/output_format.h): names, media types, which results each format
// writes, and fetched slices in every fetch format (NetCDF made in memory, read by netCDF-C).
#include "gridstore/formats/output_format.h"

#include <netcdf.h>
#include <netcdf_mem.h>

#include <cmath>
#include <cstring>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/formats/formats_testutil.h"
#include "tests/importers/netcdf_testutil.h"

namespace gridstore::formats {
namespace {

using testing::FormatsTest;
using testing::kOddName;

constexpr OutputFormat kEvery[] = {OutputFormat::kCoverageJson, OutputFormat::kCsv,
                                   OutputFormat::kJson, OutputFormat::kNetCdf, OutputFormat::kNpy};

TEST(OutputFormatTest, NamesRoundTripAndUnknownNamesAreNot) {
  for (OutputFormat f : kEvery) {
    EXPECT_EQ(ParseOutputFormat(OutputFormatName(f)), f) << OutputFormatName(f);
    EXPECT_FALSE(ContentType(f).empty());
  }
  EXPECT_EQ(OutputFormatName(OutputFormat::kNetCdf), "nc");
  EXPECT_EQ(ContentType(OutputFormat::kCoverageJson), "application/prs.coverage+json");
  EXPECT_EQ(ContentType(OutputFormat::kCsv), "text/csv; charset=utf-8");
  EXPECT_EQ(ContentType(OutputFormat::kNetCdf), "application/x-netcdf");
  EXPECT_EQ(ParseOutputFormat("netcdf"), std::nullopt);  // the service's spelling is its own
  EXPECT_EQ(ParseOutputFormat("CSV"), std::nullopt);
  EXPECT_EQ(ParseOutputFormat(""), std::nullopt);
}

TEST(OutputFormatTest, EachFormatSaysWhatItWrites) {
  EXPECT_TRUE(WritesExtractions(OutputFormat::kCoverageJson));
  EXPECT_FALSE(WritesExtractions(OutputFormat::kNpy));
  EXPECT_FALSE(WritesFetches(OutputFormat::kCoverageJson));
  for (OutputFormat f : {OutputFormat::kCsv, OutputFormat::kJson, OutputFormat::kNetCdf}) {
    EXPECT_TRUE(WritesExtractions(f) && WritesFetches(f)) << OutputFormatName(f);
  }
}

TEST(OutputFormatTest, RefusesNothingToWrite) {
  std::ostringstream out;
  EXPECT_STATUS(WriteExtractions({}, OutputFormat::kCsv, out), kInvalidArgument, "no extraction");
}

TEST_F(FormatsTest, ExtractionsAreNotNpyAndFetchesAreNotCoverageJson) {
  grid::ExtractRequest request;
  request.points = {{-24.0, 57.0}};
  ASSERT_OK_AND_ASSIGN(grid::Extraction r, ExtractAll(request));
  std::ostringstream out;
  EXPECT_STATUS(WriteExtractions(std::span<const grid::Extraction>(&r, 1), OutputFormat::kNpy, out),
                kInvalidArgument, "covjson, csv, json or nc");
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("run"));
  ASSERT_OK_AND_ASSIGN(grid::GridDataSet data, fetcher->Fetch());
  EXPECT_STATUS(WriteFetched(meta_, data, OutputFormat::kCoverageJson, out), kInvalidArgument,
                "npy, csv, json or nc");
  EXPECT_STATUS(WriteFetched(meta_, data, OutputFormat::kNpy, out), kInvalidArgument,
                "one variable");
  EXPECT_TRUE(out.str().empty());
}

TEST_F(FormatsTest, FetchedSlicesInEveryFetchFormat) {
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("run"));
  fetcher->SetVariablesToGet({"t"});
  fetcher->SetOriginShape({1, 0, 1, 2}, {1, 2, 3, 4});
  fetcher->set_options({.unpack = true});
  ASSERT_OK_AND_ASSIGN(grid::GridDataSet data, fetcher->Fetch());
  const grid::Grid4D& t = data.variables.at("t");
  // npy: the header, then the values in their type.
  std::ostringstream npy;
  ASSERT_OK(WriteFetched(meta_, data, OutputFormat::kNpy, npy));
  const std::string bytes = npy.str();
  ASSERT_GT(bytes.size(), t.size_bytes());
  EXPECT_EQ(bytes.substr(0, 6), "\x93NUMPY");
  EXPECT_EQ(std::memcmp(bytes.data() + bytes.size() - t.size_bytes(), t.bytes(), t.size_bytes()),
            0);
  // CSV: a row per point; the fill value an empty field.
  std::ostringstream csv;
  ASSERT_OK(WriteFetched(meta_, data, OutputFormat::kCsv, csv));
  size_t rows = 0;
  for (char c : csv.str()) rows += c == '\n';
  EXPECT_EQ(rows, 1u + 2 * 3 * 4);
  // JSON: NaN (the fill value at x=2, y=3) is null.
  std::ostringstream js;
  ASSERT_OK(WriteFetched(meta_, data, OutputFormat::kJson, js));
  const nlohmann::json doc = nlohmann::json::parse(js.str());
  bool null_seen = false;
  for (const auto& row : doc["rows"]) null_seen |= row["t"].is_null();
  EXPECT_TRUE(null_seen);
  // NetCDF in memory: the values, the units, NaN where the fill was.
  std::ostringstream nc;
  ASSERT_OK(WriteFetched(meta_, data, OutputFormat::kNetCdf, nc, {.unpacked = true}));
  std::string file = nc.str();
  int ncid = -1, varid = -1;
  ASSERT_NC(nc_open_mem("fetch.nc", NC_NOWRITE, file.size(), file.data(), &ncid));
  ASSERT_NC(nc_inq_varid(ncid, "t", &varid));
  std::vector<float> values(t.size());
  ASSERT_NC(nc_get_var_float(ncid, varid, values.data()));
  size_t nans = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    const float want = t.data<float>()[i];
    if (std::isnan(want)) {
      nans += std::isnan(values[i]);
    } else {
      EXPECT_EQ(values[i], want) << i;
    }
  }
  EXPECT_EQ(nans, 2u);  // the fill cell at both levels
  char units[8] = {};
  ASSERT_NC(nc_get_att_text(ncid, varid, "units", units));
  EXPECT_STREQ(units, "K");
  nc_close(ncid);
}

}  // namespace
}  // namespace gridstore::formats
