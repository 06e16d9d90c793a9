// Copyright 2026 The GridStore Authors.
#include "tools/output_formats.h"

#include <cmath>
#include <sstream>

#include <nlohmann/json.hpp>

#include "tests/test_util.h"

namespace gridstore::tools {
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
  meta.coordinates.push_back(grid::Coordinate{"lat", {"lat"}, {3}, DataType::kFloat32, {10, 20, 30}, {}});
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
            "t,z,x,y,lat,lon,T,q\n"
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
}  // namespace gridstore::tools
