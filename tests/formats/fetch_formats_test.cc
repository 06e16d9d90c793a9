// Copyright 2026 The GridStore Authors.
#include "gridstore/formats/fetch_formats.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "tests/test_util.h"

namespace gridstore::formats {
namespace {

using grid::DataType;
using grid::Grid4D;

grid::DataSetMeta Meta() {
  grid::DataSetMeta meta;
  meta.id = "d";
  for (const char* name : {"T", "q"}) {
    grid::VariableMeta v;
    v.name = name;
    v.type = name[0] == 'T' ? DataType::kFloat32 : DataType::kInt16;
    v.shape = {2, 1, 3, 4};
    v.dimension_names = {"time", "", "lat", "lon"};
    meta.variables.push_back(v);
  }
  meta.coordinates.push_back(
      grid::Coordinate{"lat", {"lat"}, {3}, DataType::kFloat32, {10, 20, 30}, {}});
  meta.coordinates.push_back(
      grid::Coordinate{"lon", {"lon"}, {4}, DataType::kFloat32, {0, 90, 180, 270}, {}});
  return meta;
}

grid::GridDataSet Data() {
  grid::GridDataSet data;
  Grid4D t(DataType::kFloat32, {1, 0, 1, 2}, {1, 1, 2, 2});
  auto tv = t.data<float>();
  tv[0] = 1.5f;
  tv[1] = NAN;
  tv[2] = -2.f;
  tv[3] = 0.1f;
  Grid4D q(DataType::kInt16, {1, 0, 1, 2}, {1, 1, 2, 2});
  auto qv = q.data<int16_t>();
  for (int i = 0; i < 4; ++i) qv[i] = static_cast<int16_t>(-i);
  data.variables["T"] = t;
  data.variables["q"] = q;
  return data;
}

TEST(OutputFormatsTest, CsvHasIndicesCoordinatesAndValuesPerRow) {
  std::ostringstream out;
  ASSERT_OK(WriteCsv(Meta(), Data(), out));
  EXPECT_EQ(out.str(),
            "@t,@z,@x,@y,lat,lon,T,q\n"
            "1,0,1,2,20,180,1.5,0\n"
            "1,0,1,3,20,270,NaN,-1\n"
            "1,0,2,2,30,180,-2,-2\n"
            "1,0,2,3,30,270,0.100000001,-3\n");
}

TEST(OutputFormatsTest, JsonIsValidWithNullForNaN) {
  std::ostringstream out;
  ASSERT_OK(WriteJson(Meta(), Data(), out));
  auto doc = nlohmann::json::parse(out.str());
  EXPECT_EQ(doc["dataset"], "d");
  ASSERT_EQ(doc["rows"].size(), 4u);
  EXPECT_EQ(doc["rows"][1]["lon"], 270.0);
  EXPECT_TRUE(doc["rows"][1]["T"].is_null());
  EXPECT_EQ(doc["rows"][3]["q"], -3);
  EXPECT_EQ(doc["variables"]["q"]["type"], "int16");
}

TEST(OutputFormatsTest, TextFormatsRefuseVariablesOfDifferentBoxes) {
  grid::GridDataSet data = Data();
  data.variables["q"] = Grid4D(DataType::kInt16, {0, 0, 0, 0}, {1, 1, 1, 1});
  std::ostringstream out;
  EXPECT_STATUS(WriteCsv(Meta(), data, out), kInvalidArgument, "'q'", "fetch them separately");
}

// Issue "data safety": ERA5's geopotential is `z`; the csv header got two `z` columns and a json
// row's level index was replaced by the variable. No column name may ever repeat.
TEST(OutputFormatsTest, ColumnNamesNeverCollide) {
  ColumnNames c = MakeColumnNames({"T"}, {"lat"});
  EXPECT_EQ(c.index, (std::array<std::string, 4>{"@t", "@z", "@x", "@y"}));
  EXPECT_EQ(c.labels, (std::vector<std::string>{"lat"}));
  c = MakeColumnNames({"t", "z", "x", "y"}, {"time"});
  EXPECT_EQ(c.index, (std::array<std::string, 4>{"@t", "@z", "@x", "@y"}));
  // Names no netCDF variable can have, but the API allows: one more '@' until unique.
  c = MakeColumnNames({"@z", "@@z", "@y"}, {"@t", "z", "@x"});
  EXPECT_EQ(c.index, (std::array<std::string, 4>{"@t", "@@@z", "@x", "@@y"}));
  EXPECT_EQ(c.labels, (std::vector<std::string>{"@@t", "z", "@@x"}));
  // A coordinate named like a variable.
  c = MakeColumnNames({"lat"}, {"lat", "lon"});
  EXPECT_EQ(c.labels, (std::vector<std::string>{"@lat", "lon"}));
}

TEST(OutputFormatsTest, VariablesNamedLikeAxesKeepEveryColumn) {
  grid::DataSetMeta meta;
  meta.id = "era5";
  grid::GridDataSet data;
  const std::vector<std::string> names = {"t", "x", "y", "z"};  // GridDataSet orders by name
  for (size_t i = 0; i < names.size(); ++i) {
    grid::VariableMeta v;
    v.name = names[i];
    v.type = DataType::kInt32;
    v.shape = {1, 2, 1, 1};
    v.dimension_names = {"", "level", "", ""};
    meta.variables.push_back(v);
    Grid4D g(DataType::kInt32, {0, 0, 0, 0}, {1, 2, 1, 1});
    g.data<int32_t>()[0] = static_cast<int32_t>(10 * i);
    g.data<int32_t>()[1] = static_cast<int32_t>(10 * i + 1);
    data.variables[names[i]] = g;
  }
  meta.coordinates.push_back(
      grid::Coordinate{"level", {"level"}, {2}, DataType::kFloat32, {1000, 500}, {}});
  std::ostringstream csv;
  ASSERT_OK(WriteCsv(meta, data, csv));
  EXPECT_EQ(csv.str(),
            "@t,@z,@x,@y,level,t,x,y,z\n"
            "0,0,0,0,1000,0,10,20,30\n"
            "0,1,0,0,500,1,11,21,31\n");
  std::ostringstream json;
  ASSERT_OK(WriteJson(meta, data, json));
  auto doc = nlohmann::json::parse(json.str());
  EXPECT_EQ(doc["index_columns"], nlohmann::json::parse(R"(["@t", "@z", "@x", "@y"])"));
  ASSERT_EQ(doc["rows"].size(), 2u);
  EXPECT_EQ(doc["rows"][1]["@z"], 1);  // the level index
  EXPECT_EQ(doc["rows"][1]["z"], 31);  // the variable
  EXPECT_EQ(doc["rows"][1]["t"], 1);
  EXPECT_EQ(doc["rows"][1].size(), 9u);
}

TEST(OutputFormatsTest, CsvQuotesOddNamesAndJsonReplacesBytesThatAreNotUtf8) {
  grid::DataSetMeta meta;
  meta.id = "bad\xff";
  grid::VariableMeta v;
  v.name = "a,\"b\"";
  v.type = DataType::kInt8;
  meta.variables.push_back(v);
  grid::VariableMeta w = v;
  w.name = "\xfe\x01";
  meta.variables.push_back(w);
  grid::GridDataSet data;
  for (const std::string& name : {v.name, w.name}) {
    Grid4D g(DataType::kInt8, {0, 0, 0, 0}, {1, 1, 1, 1});
    g.data<int8_t>()[0] = 0;
    data.variables[name] = g;
  }
  std::ostringstream csv;
  ASSERT_OK(WriteCsv(meta, data, csv));
  EXPECT_EQ(csv.str(), "@t,@z,@x,@y,\"a,\"\"b\"\"\",\xfe\x01\n0,0,0,0,0,0\n");
  std::ostringstream json;
  ASSERT_OK(WriteJson(meta, data, json));  // threw nlohmann type_error 316 before
  auto doc = nlohmann::json::parse(json.str());
  EXPECT_EQ(doc["dataset"], "bad\xef\xbf\xbd");  // U+FFFD
  EXPECT_EQ(doc["rows"][0]["\xef\xbf\xbd\x01"], 0);
  EXPECT_EQ(doc["rows"][0]["a,\"b\""], 0);
}

TEST(OutputFormatsTest, NpyHeaderIsAlignedAndDescribesTheArray) {
  Grid4D g(DataType::kInt16, {0, 0, 0, 0}, {1, 2, 3, 4});
  for (size_t i = 0; i < g.size(); ++i) g.data<int16_t>()[i] = static_cast<int16_t>(i);
  std::ostringstream out;
  ASSERT_OK(WriteNpy(g, out));
  const std::string s = out.str();
  ASSERT_EQ(s.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  const size_t header_len = static_cast<uint8_t>(s[8]) | (static_cast<uint8_t>(s[9]) << 8);
  EXPECT_EQ((10 + header_len) % 64, 0u);
  const std::string header = s.substr(10, header_len);
  EXPECT_NE(header.find("'descr': '<i2'"), std::string::npos);
  EXPECT_NE(header.find("'shape': (1, 2, 3, 4)"), std::string::npos);
  EXPECT_EQ(header.back(), '\n');
  ASSERT_EQ(s.size(), 10 + header_len + 24 * 2);
  EXPECT_EQ(std::memcmp(s.data() + 10 + header_len, g.bytes(), g.size_bytes()), 0);
}

}  // namespace
}  // namespace gridstore::formats
