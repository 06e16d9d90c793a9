// Copyright 2026 The GridStore Authors.
//
// The CF mapping rules on file structures built in memory: no file, no netCDF call.
#include "gridstore/importers/netcdf/internal/cf_mapping.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "tests/test_util.h"

namespace gridstore::internal_importers {
namespace {

using grid::AttributeValue;
using grid::kT;
using grid::kX;
using grid::kY;
using grid::kZ;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

NcVariable Var(std::string name, nc_type type, std::vector<std::string> dims,
               std::vector<size_t> lengths, grid::Attributes attributes = {}) {
  NcVariable v;
  v.name = std::move(name);
  v.type = type;
  v.dim_names = std::move(dims);
  v.dim_lengths = std::move(lengths);
  v.attributes = std::move(attributes);
  return v;
}

// A CF file: T(time, plev, lat, lon) with its four coordinate variables, plus a bounds
// variable, a grid mapping and a scalar.
FileStructure ClimateFile() {
  FileStructure f;
  f.Add(Var("time", NC_DOUBLE, {"time"}, {4},
            {{"units", AttributeValue::String("hours since 2000-01-01")}}));
  f.Add(Var("plev", NC_FLOAT, {"plev"}, {3}, {{"units", AttributeValue::String(" hPa ")}}));
  f.Add(Var("lat", NC_FLOAT, {"lat"}, {5}, {{"bounds", AttributeValue::String("lat_bnds")}}));
  f.Add(Var("lon", NC_FLOAT, {"lon"}, {6}));
  f.Add(Var("lat_bnds", NC_FLOAT, {"lat", "nv"}, {5, 2}));
  f.Add(Var("crs", NC_INT, {}, {}));
  f.Add(Var("T", NC_SHORT, {"time", "plev", "lat", "lon"}, {4, 3, 5, 6},
            {{"grid_mapping", AttributeValue::String("crs")},
             {"scale_factor", AttributeValue::Double(0.01)},
             {"add_offset", AttributeValue::Double(273.15)},
             {"_FillValue", AttributeValue::Integers(grid::DataType::kInt16, {-999})}}));
  f.global_attributes["title"] = AttributeValue::String("test");
  return f;
}

importers::NetCdfImportOptions Options(std::vector<std::string> variables = {}) {
  importers::NetCdfImportOptions o;
  o.dataset_id = "d";
  o.variables = std::move(variables);
  return o;
}

TEST(CfMappingTest, ReferencesSplitBoundsMappingsAndCoordinates) {
  FileStructure f = ClimateFile();
  f.Add(Var("U", NC_FLOAT, {"y", "x"}, {2, 2},
            {{"coordinates", AttributeValue::String("lat2d  lon2d")},
             {"grid_mapping", AttributeValue::String("rotated: rlat rlon crs2: x y")}}));
  const References refs = CollectReferences(f);
  EXPECT_THAT(refs.bounds, ElementsAre("lat_bnds"));
  // CF-1.7's extended form: names before colons are mappings, the rest coordinates.
  EXPECT_THAT(refs.grid_mappings, ElementsAre("crs", "crs2", "rotated"));
  EXPECT_THAT(refs.coordinates, ElementsAre("lat2d", "lon2d", "rlat", "rlon", "x", "y"));
}

TEST(CfMappingTest, ClassifyGivesEachVariableItsRoleAndReason) {
  const FileStructure f = ClimateFile();
  const References refs = CollectReferences(f);
  EXPECT_EQ(Classify(*f.Find("T"), refs).role, Role::kGridded);
  EXPECT_EQ(Classify(*f.Find("lat"), refs).role, Role::kCoordinate);
  EXPECT_EQ(Classify(*f.Find("lat_bnds"), refs).why, "bounds variable");
  EXPECT_EQ(Classify(*f.Find("crs"), refs).why, "grid mapping variable");
  EXPECT_EQ(Classify(Var("s", NC_INT, {}, {}), refs).why, "scalar variable");
  EXPECT_EQ(Classify(Var("c", NC_CHAR, {"n"}, {3}), refs).why, "character variable");
  EXPECT_EQ(Classify(Var("v", NC_FLOAT, {"n"}, {3}), refs).why,
            "1-D variable that is not a coordinate");
  EXPECT_EQ(Classify(Var("e", NC_FLOAT, {"a", "b"}, {2, 0}), refs).why,
            "no data (dimension 'b' has length 0)");
  EXPECT_EQ(Classify(Var("f", NC_FLOAT, {"a", "b", "c", "d", "e"}, {1, 1, 1, 1, 1}), refs).role,
            Role::kTooManyDimensions);
}

TEST(CfMappingTest, ThreeDimensionsLeadWithLevelOnlyWhenVertical) {
  FileStructure f = ClimateFile();
  f.Add(Var("depth", NC_FLOAT, {"depth"}, {2}, {{"positive", AttributeValue::String("down")}}));
  f.Add(Var("height", NC_FLOAT, {"height"}, {2}, {{"axis", AttributeValue::String(" z ")}}));
  const NcVariable by_plev = Var("a", NC_FLOAT, {"plev", "lat", "lon"}, {3, 5, 6});
  const NcVariable by_depth = Var("b", NC_FLOAT, {"depth", "lat", "lon"}, {2, 5, 6});
  const NcVariable by_axis = Var("c", NC_FLOAT, {"height", "lat", "lon"}, {2, 5, 6});
  const NcVariable by_time = Var("d", NC_FLOAT, {"time", "lat", "lon"}, {4, 5, 6});
  EXPECT_THAT(MapAxes(f, by_plev), ElementsAre(kZ, kX, kY));   // units of pressure
  EXPECT_THAT(MapAxes(f, by_depth), ElementsAre(kZ, kX, kY));  // `positive`
  EXPECT_THAT(MapAxes(f, by_axis), ElementsAre(kZ, kX, kY));   // axis "Z"
  EXPECT_THAT(MapAxes(f, by_time), ElementsAre(kT, kX, kY));
  EXPECT_THAT(MapAxes(f, *f.Find("T")), ElementsAre(kT, kZ, kX, kY));
  EXPECT_TRUE(IsPressureUnit("  MBar "));
  EXPECT_FALSE(IsPressureUnit("m"));
}

TEST(CfMappingTest, VariableMetaKeepsPackingFillAndShapeByAxis) {
  const FileStructure f = ClimateFile();
  const NcVariable& t = *f.Find("T");
  const grid::VariableMeta meta = MakeVariableMeta(t, MapAxes(f, t));
  EXPECT_EQ(meta.type, grid::DataType::kInt16);
  EXPECT_EQ(meta.shape, (grid::Shape4{4, 3, 5, 6}));
  EXPECT_EQ(meta.dimension_names[kZ], "plev");
  ASSERT_TRUE(meta.packing.has_value());
  EXPECT_DOUBLE_EQ(meta.packing->scale_factor, 0.01);
  EXPECT_DOUBLE_EQ(meta.packing->add_offset, 273.15);
  EXPECT_EQ(meta.packing->unpacked_type, grid::DataType::kFloat64);
  int16_t fill = 0;
  ASSERT_EQ(meta.fill_value.size(), sizeof(fill));
  std::memcpy(&fill, meta.fill_value.data(), sizeof(fill));
  EXPECT_EQ(fill, -999);
}

TEST(CfMappingTest, FillValueNotExactInTheTypeFallsBackToNothingDefaultWithout) {
  // A double NaN _FillValue on shorts cannot be held: no fill value (the attribute stays).
  const NcVariable nan_fill =
      Var("a", NC_SHORT, {"y", "x"}, {2, 2},
          {{"_FillValue", AttributeValue::Double(std::numeric_limits<double>::quiet_NaN())}});
  const grid::VariableMeta a = MakeVariableMeta(nan_fill, {kX, kY});
  EXPECT_TRUE(a.fill_value.empty());
  EXPECT_EQ(a.attributes.count("_FillValue"), 1u);
  // No _FillValue: netCDF's default fill for the type, as netCDF-C reads unwritten data.
  const grid::VariableMeta b = MakeVariableMeta(Var("b", NC_FLOAT, {"y", "x"}, {2, 2}), {kX, kY});
  float fill = 0;
  ASSERT_EQ(b.fill_value.size(), sizeof(fill));
  std::memcpy(&fill, b.fill_value.data(), sizeof(fill));
  EXPECT_EQ(fill, NC_FILL_FLOAT);
}

TEST(CfMappingTest, PlanImportsGriddedVariablesWithTheirCoordinatesAndNotesTheRest) {
  const FileStructure f = ClimateFile();
  ASSERT_OK_AND_ASSIGN(ImportPlan plan, PlanFileImport("f.nc", Options(), f));
  ASSERT_EQ(plan.meta.variables.size(), 1u);
  EXPECT_EQ(plan.meta.variables[0].name, "T");
  EXPECT_EQ(plan.variables[0].source, f.Find("T"));
  std::vector<std::string> coordinates;
  for (const auto& c : plan.meta.coordinates) coordinates.push_back(c.name);
  // The bounds and the grid mapping are CF cell metadata: kept, for extraction and export.
  EXPECT_THAT(coordinates, ElementsAre("time", "plev", "lat", "lon", "lat_bnds", "crs"));
  ASSERT_EQ(plan.coordinate_sources.size(), 6u);
  EXPECT_EQ(plan.coordinate_sources[2].variable, f.Find("lat"));
  EXPECT_TRUE(plan.meta.coordinates[2].values.empty());  // read from the file later
  EXPECT_THAT(plan.notes, ElementsAre());
  EXPECT_EQ(plan.meta.status(), grid::kStatusInit);
  EXPECT_EQ(plan.meta.attributes.at("title").string_value(), "test");
}

TEST(CfMappingTest, PlanErrorsNameTheFileAndTheVariable) {
  FileStructure f = ClimateFile();
  EXPECT_THAT(PlanFileImport("f.nc", Options({"Q"}), f).status().message(),
              HasSubstr("'f.nc' has no variable 'Q' to import (it has: T)"));
  EXPECT_THAT(PlanFileImport("f.nc", Options({"lat"}), f).status().message(),
              HasSubstr("'f.nc': 'lat' is not a gridded variable (a coordinate); it has: T"));
  EXPECT_THAT(PlanFileImport("f.nc", Options({"crs"}), f).status().message(),
              HasSubstr("is not a gridded variable (grid mapping variable)"));
  f.Add(Var("big", NC_FLOAT, {"a", "b", "c", "d", "e"}, {1, 1, 1, 1, 2}));
  const Status implicit = PlanFileImport("f.nc", Options(), f).status();
  EXPECT_TRUE(implicit.IsInvalidArgument());
  EXPECT_THAT(implicit.message(),
              HasSubstr("variable 'big' has 5 dimensions (a, b, c, d, e); GridStore variables "
                        "have at most 4 (t, z, x, y); choose the variables to import with "
                        "--variables"));
  // Choosing the importable variables leaves it as a note.
  ASSERT_OK_AND_ASSIGN(ImportPlan plan, PlanFileImport("f.nc", Options({"T"}), f));
  EXPECT_THAT(plan.notes, ::testing::Contains("skipped 'big': 5 dimensions (at most 4)"));
}

TEST(CfMappingTest, ChosenVariablesComeInFileOrderOnceAndOptionsOverrideGlobalAttributes) {
  FileStructure f = ClimateFile();
  f.Add(Var("U", NC_FLOAT, {"time", "plev", "lat", "lon"}, {4, 3, 5, 6}));
  importers::NetCdfImportOptions options = Options({"U", "T", "U"});
  options.attributes["title"] = AttributeValue::String("mine");
  ASSERT_OK_AND_ASSIGN(ImportPlan plan, PlanFileImport("f.nc", options, f));
  std::vector<std::string> names;
  for (const auto& v : plan.meta.variables) names.push_back(v.name);
  EXPECT_THAT(names, ElementsAre("T", "U"));
  EXPECT_EQ(plan.meta.attributes.at("title").string_value(), "mine");
}

TEST(CfMappingTest, NothingGriddedIsAnErrorListingWhy) {
  FileStructure f;
  f.Add(Var("lat", NC_FLOAT, {"lat"}, {5}));
  f.Add(Var("name", NC_CHAR, {"n"}, {8}));
  f.Add(Var("labels", NC_STRING, {"y", "x"}, {2, 2}));
  f.notes.push_back("skipped group 'g': only the root group is imported");
  const Status s = PlanFileImport("f.nc", Options(), f).status();
  EXPECT_TRUE(s.IsInvalidArgument());
  // The file's own notes first, then each variable's, in file order.
  EXPECT_THAT(s.message(), HasSubstr("'f.nc' has no gridded variable to import (skipped group "
                                     "'g': only the root group is imported; skipped 'name': "
                                     "character variable; skipped 'labels': string variable)"));
}

}  // namespace
}  // namespace gridstore::internal_importers
