// Copyright 2026 The GridStore Authors.
#include "gridstore/server/edr_query.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/test_util.h"

namespace gridstore::server {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Result<EdrQuery> Parse(EdrQueryType type, QueryParameters p) {
  return ParseEdrQuery(type, p, {"t", "q"});
}

std::string Error(EdrQueryType type, QueryParameters p) {
  return std::string(Parse(type, std::move(p)).status().message());
}

TEST(EdrQueryTest, Position) {
  ASSERT_OK_AND_ASSIGN(EdrQuery q,
                       Parse(EdrQueryType::kPosition, {{"coords", " point ( 120.5  30.25 ) "},
                                                       {"datetime", "2026-11-25T00:00Z/.."},
                                                       {"z", "850"},
                                                       {"parameter-name", "t"}}));
  ASSERT_EQ(q.request.points.size(), 1u);
  EXPECT_EQ(q.request.points[0].lon, 120.5);
  EXPECT_EQ(q.request.points[0].lat, 30.25);
  EXPECT_EQ(q.request.time, "2026-11-25T00:00Z/..");
  EXPECT_EQ(q.request.level, "850");
  EXPECT_THAT(q.request.variables, ElementsAre("t"));
  EXPECT_EQ(q.format, OutputFormat::kCoverageJson);
  ASSERT_OK_AND_ASSIGN(EdrQuery all, Parse(EdrQueryType::kPosition,
                                           {{"coords", "MULTIPOINT((1 2),(3 4))"}, {"f", "csv"}}));
  EXPECT_EQ(all.request.points.size(), 2u);
  // Default: every parameter, each group on its own axes (grid::ExtractEvery: issue 29, 3.6).
  EXPECT_TRUE(all.request.variables.empty());
  EXPECT_EQ(all.format, OutputFormat::kCsv);
  ASSERT_OK_AND_ASSIGN(EdrQuery bare, Parse(EdrQueryType::kPosition,
                                            {{"coords", "MULTIPOINT(1 2, 3 4)"}, {"f", "NetCDF"}}));
  EXPECT_EQ(bare.request.points[1].lat, 4);
  EXPECT_EQ(bare.format, OutputFormat::kNetCdf);
}

TEST(EdrQueryTest, AreaCubeRadiusTrajectoryCorridor) {
  ASSERT_OK_AND_ASSIGN(EdrQuery area,
                       Parse(EdrQueryType::kArea, {{"coords", "POLYGON((0 0,1 0,1 1,0 0))"}}));
  EXPECT_EQ(area.request.polygon, "POLYGON((0 0,1 0,1 1,0 0))");
  ASSERT_OK_AND_ASSIGN(EdrQuery cube, Parse(EdrQueryType::kCube,
                                            {{"bbox", "170,-10,-170,10"}, {"z", "R3/1000/-250"}}));
  EXPECT_EQ((*cube.request.bbox)[0], 170);
  EXPECT_EQ((*cube.request.bbox)[2], -170);
  EXPECT_EQ(cube.request.level, "1000,750,500");
  ASSERT_OK_AND_ASSIGN(EdrQuery radius, Parse(EdrQueryType::kRadius, {{"coords", "POINT(10 20)"},
                                                                      {"within", "10"},
                                                                      {"within-units", "mi"}}));
  EXPECT_NEAR(radius.request.radius->km, 16.09344, 1e-9);
  ASSERT_OK_AND_ASSIGN(EdrQuery traj,
                       Parse(EdrQueryType::kTrajectory, {{"coords", "LINESTRINGM(0 0 1, 1 1 2)"}}));
  EXPECT_EQ(traj.request.trajectory, "LINESTRINGM(0 0 1, 1 1 2)");
  ASSERT_OK_AND_ASSIGN(EdrQuery corridor,
                       Parse(EdrQueryType::kCorridor, {{"coords", "LINESTRING(0 0, 1 1)"},
                                                       {"corridor-width", "2000"},
                                                       {"width-units", "m"}}));
  EXPECT_DOUBLE_EQ(corridor.request.corridor_width_km, 2);
}

TEST(EdrQueryTest, ErrorsNameWhatIsWrong) {
  using T = EdrQueryType;
  EXPECT_THAT(Error(T::kPosition, {}), HasSubstr("needs the parameter 'coords'"));
  EXPECT_THAT(Error(T::kPosition, {{"coords", "POINT(1)"}}), HasSubstr("not a position"));
  EXPECT_THAT(Error(T::kPosition, {{"coords", "POINT(1 2 3)"}}), HasSubstr("give levels with z"));
  EXPECT_THAT(Error(T::kPosition, {{"coords", "POINT(a b)"}}), HasSubstr("not a number"));
  EXPECT_THAT(Error(T::kPosition, {{"coords", "POINT(nan 1)"}}), HasSubstr("not a number"));
  EXPECT_THAT(Error(T::kPosition, {{"coords", "LINESTRING(1 2,3 4)"}}),
              HasSubstr("not a WKT POINT or MULTIPOINT"));
  EXPECT_THAT(Error(T::kPosition, {{"coords", "POINT(1 2)"}, {"bbox", "1,2,3,4"}}),
              HasSubstr("has no parameter 'bbox'"));
  EXPECT_THAT(Error(T::kPosition, {{"coords", "POINT(1 2)"}, {"crs", "EPSG:3857"}}),
              HasSubstr("CRS84"));
  EXPECT_THAT(Error(T::kPosition, {{"coords", "POINT(1 2)"}, {"f", "GeoJSON"}}),
              HasSubstr("not CoverageJSON, NetCDF or CSV"));
  EXPECT_THAT(Error(T::kPosition, {{"coords", "POINT(1 2)"}, {"parameter-name", ","}}),
              HasSubstr("parameter-name is empty"));
  EXPECT_THAT(Error(T::kPosition, {{"coords", "POINT(1 2)"}, {"method", "cubic"}}),
              HasSubstr("not nearest or bilinear"));
  EXPECT_THAT(Error(T::kArea, {{"coords", "POINT(1 2)"}}), HasSubstr("POLYGON"));
  EXPECT_THAT(Error(T::kCube, {{"bbox", "1,2,3"}}), HasSubstr("minLon,minLat,maxLon,maxLat"));
  EXPECT_THAT(Error(T::kCube, {{"bbox", "1,2,3,x"}}), HasSubstr("not a number"));
  EXPECT_THAT(Error(T::kCube, {{"bbox", "1,2,3,4"}, {"z", "R0/1/1"}}), HasSubstr("count"));
  EXPECT_THAT(Error(T::kCube, {{"bbox", "1,2,3,4"}, {"z", "R2/1"}}), HasSubstr("Rn/start/step"));
  EXPECT_THAT(Error(T::kRadius, {{"coords", "POINT(1 2)"}, {"within", "5"}}),
              HasSubstr("'within-units'"));
  EXPECT_THAT(
      Error(T::kRadius, {{"coords", "POINT(1 2)"}, {"within", "5"}, {"within-units", "ly"}}),
      HasSubstr("not km, m, mi or nmi"));
  EXPECT_THAT(
      Error(T::kRadius, {{"coords", "POINT(1 2)"}, {"within", "-5"}, {"within-units", "km"}}),
      HasSubstr("must be positive"));
  EXPECT_THAT(Error(T::kRadius,
                    {{"coords", "MULTIPOINT(1 2, 3 4)"}, {"within", "5"}, {"within-units", "km"}}),
              HasSubstr("not a WKT POINT"));
  EXPECT_THAT(Error(T::kTrajectory, {{"coords", "POLYGON((0 0,1 0,1 1,0 0))"}}),
              HasSubstr("LINESTRING"));
  EXPECT_THAT(Error(T::kCorridor, {{"coords", "LINESTRING(0 0,1 1)"}, {"corridor-width", "5"}}),
              HasSubstr("'width-units'"));
}

TEST(EdrQueryTest, NamesRoundTrip) {
  for (EdrQueryType t : kEdrQueryTypes) {
    EXPECT_EQ(EdrQueryTypeFromName(EdrQueryTypeName(t)), t);
  }
  EXPECT_FALSE(EdrQueryTypeFromName("items").has_value());
  EXPECT_STREQ(EdrFormatName(OutputFormat::kNetCdf), "NetCDF");
}

}  // namespace
}  // namespace gridstore::server
