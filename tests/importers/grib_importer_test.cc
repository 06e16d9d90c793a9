// Copyright 2026 The GridStore Authors.
//
// GRIB import against ecCodes' own decoding, field by field, on the real files of ../shared/grib
// (beside $GRIDSTORE_TEST_DATA, or $GRIDSTORE_TEST_GRIB), and its refusals: grids without fixed
// rows, fields on different grids, duplicate fields, truncated files. Runs of many files,
// appending and ensembles: grib_run_test.cc.
#include "gridstore/importers/grib/grib_importer.h"

#include <eccodes.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gridstore/geo/coordinates.h"
#include "gridstore/grid/grid_store.h"
#include "tests/importers/grib_testutil.h"
#include "tests/test_util.h"

namespace gridstore::importers {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using testing::DecodeWithEcCodes;
using testing::GribDir;
using Field = testing::DecodedField;

class GribImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = grid::GridStore::Open(dir_.Sub("store"), {.create_if_missing = true});
    ASSERT_TRUE(opened.ok()) << opened.status();
    store_ = std::move(opened).value();
  }
  // Imports `name` as dataset `name` and checks every value against ecCodes', in file order
  // (this file's fields are one variable with one level per field, or one time per field).
  void ImportAndCompare(const std::string& name, grid::DataType type) {
    const std::string path = GribDir() + "/" + name;
    GribImportOptions options;
    options.dataset_id = name;
    options.type = type;
    auto summary = ImportGrib(store_.get(), path, options);
    ASSERT_TRUE(summary.ok()) << summary.status();
    const std::vector<Field> expected = DecodeWithEcCodes(path);
    ASSERT_EQ(summary->planes, static_cast<int64_t>(expected.size()));
    auto fetcher = store_->GetDataFetcher(name);
    ASSERT_TRUE(fetcher.ok());
    auto got = (*fetcher)->Fetch();
    ASSERT_TRUE(got.ok()) << got.status();
    ASSERT_EQ(got->variables.size(), 1u);
    const grid::Grid4D& grid = got->variables.begin()->second;
    const int64_t plane = grid.shape()[2] * grid.shape()[3];
    ASSERT_EQ(grid.shape()[0] * grid.shape()[1], static_cast<int64_t>(expected.size()));
    int64_t compared = 0, missing = 0;
    for (size_t k = 0; k < expected.size(); ++k) {
      ASSERT_EQ(static_cast<int64_t>(expected[k].values.size()), plane) << name << " field " << k;
      for (int64_t i = 0; i < plane; ++i) {
        const double want = expected[k].values[size_t(i)];
        const size_t at = k * size_t(plane) + size_t(i);
        const double have = type == grid::DataType::kFloat32 ? double(grid.data<float>()[at])
                                                             : grid.data<double>()[at];
        if (std::isnan(want)) {
          ASSERT_TRUE(std::isnan(have)) << name << " field " << k << " point " << i;
          ++missing;
        } else if (type == grid::DataType::kFloat32) {
          ASSERT_EQ(static_cast<float>(have), static_cast<float>(want))
              << name << " field " << k << " point " << i;
        } else {
          ASSERT_EQ(have, want) << name << " field " << k << " point " << i;
        }
        ++compared;
      }
    }
    EXPECT_GT(compared, 0);
    if (name == "missing_values.grib2") {
      EXPECT_GT(missing, 0);  // the bitmap's points are NaN, not ecCodes' 9999 stand-in
    }
  }

  testing::ScopedTempDir dir_;
  std::unique_ptr<grid::GridStore> store_;
};

TEST_F(GribImportTest, EveryValueEqualsEcCodes) {
  for (const char* name :
       {"regular_gg.grib2", "missing_values.grib2", "lambert.grib2",
        "CMC_glb_TMP_ISBL_1015_ps30km_2013052000_P006.grib2", "era5-2mt-2019-03-uk.grib"}) {
    SCOPED_TRACE(name);
    ImportAndCompare(name, grid::DataType::kFloat32);
  }
}

TEST_F(GribImportTest, Float64KeepsEcCodesDoubles) {
  ImportAndCompare("regular_gg.grib2", grid::DataType::kFloat64);
}

TEST_F(GribImportTest, CoordinatesTimesAndLevels) {
  GribImportOptions options;
  options.dataset_id = "series";
  ASSERT_TRUE(ImportGrib(store_.get(), GribDir() + "/era5-2mt-2019-03-uk.grib", options).ok());
  auto meta = store_->GetDataSetMeta("series");
  ASSERT_TRUE(meta.ok());
  const grid::VariableMeta* t2m = meta->FindVariable("2t");
  ASSERT_NE(t2m, nullptr);
  EXPECT_EQ(t2m->shape, (grid::Shape4{744, 1, 33, 49}));
  EXPECT_EQ(t2m->dimension_names[0], "time");
  EXPECT_EQ(t2m->dimension_names[2], "latitude");
  EXPECT_EQ(grid::StringAttribute(t2m->attributes, "units"), "K");
  const grid::Coordinate* time = meta->FindCoordinate("time");
  ASSERT_NE(time, nullptr);
  ASSERT_EQ(time->values.size(), 744u);
  EXPECT_EQ(time->values[1] - time->values[0], 1.0);  // hourly
  // Every hour is an analysis of its own: no single reference time, so no step coordinate.
  EXPECT_EQ(meta->FindCoordinate("step"), nullptr);
  EXPECT_EQ(grid::StringAttribute(time->attributes, "units"), "hours since 2019-03-01 00:00:00");
  const grid::Coordinate* lat = meta->FindCoordinate("latitude");
  ASSERT_NE(lat, nullptr);
  EXPECT_EQ(lat->values.front(), 58.0);  // north to south, as ecCodes gives the rows
  EXPECT_GT(lat->values.front(), lat->values.back());

  options.dataset_id = "forecast";
  ASSERT_TRUE(ImportGrib(store_.get(), GribDir() + "/regular_gg.grib2", options).ok());
  meta = store_->GetDataSetMeta("forecast");
  ASSERT_TRUE(meta.ok());
  const grid::Coordinate* step = meta->FindCoordinate("step");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->values, std::vector<double>{69});
  const grid::Coordinate* level = meta->FindCoordinate("isobaricInhPa");
  ASSERT_NE(level, nullptr);
  EXPECT_EQ(level->values, std::vector<double>{525});
  EXPECT_EQ(grid::StringAttribute(level->attributes, "units"), "hPa");
}

// Issue 29, 2.5: a grid without fixed rows (reduced Gaussian) is a cell axis with every point's
// own latitude and longitude, its values ecCodes' own, and a point at a cell's centre answers it.
TEST_F(GribImportTest, Issue29ReducedGaussianIsACellAxis) {
  const std::string path = GribDir() + "/reduced_gg.grib2";
  GribImportOptions options;
  options.dataset_id = "reduced";
  ASSERT_OK(ImportGrib(store_.get(), path, options).status());
  ASSERT_OK_AND_ASSIGN(grid::DataSetMeta meta, store_->GetDataSetMeta("reduced"));
  const std::vector<testing::DecodedField> fields = testing::DecodeWithEcCodes(path);
  ASSERT_EQ(fields.size(), 1u);
  const grid::VariableMeta& z = meta.variables[0];
  EXPECT_EQ(z.shape[grid::kX], 1);
  EXPECT_EQ(z.shape[grid::kY], int64_t(fields[0].values.size()));
  EXPECT_EQ(z.dimension_names[grid::kX], "");
  EXPECT_EQ(meta.layout.block_x, 1);  // blocks along the one row
  ASSERT_OK_AND_ASSIGN(auto g, grid::HorizontalGrid::Build(meta, z));
  EXPECT_EQ(g->type(), grid::GridType::kUnstructured);
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("reduced"));
  fetcher->SetVariablesToGet({z.name});
  ASSERT_OK_AND_ASSIGN(grid::GridDataSet all, fetcher->Fetch());
  auto values = all.GetVariable(z.name)->data<float>();
  for (size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(values[i], float(fields[0].values[i])) << i;
  }
  // A point at cell 1234's centre is that cell; bilinear is refused.
  const grid::LonLat centre = g->At({0, 1234});
  ASSERT_OK_AND_ASSIGN(auto nearest, g->FindNearest(centre));
  EXPECT_EQ(nearest.cell, (grid::Cell{0, 1234}));
  EXPECT_STATUS(g->Bilinear(centre).status(), kInvalidArgument, "unstructured", "nearest");
}

TEST_F(GribImportTest, RefusalsNameTheFileAndField) {
  const std::string dir = GribDir();
  GribImportOptions options;
  options.dataset_id = "x";
  auto grids = ImportGrib(store_.get(), dir + "/3_layer.grib2", options);
  EXPECT_THAT(std::string(grids.status().message()),
              HasSubstr("field 2 ('t', isobaricInhPa 1000): on another grid (rotated_ll 600x360) "
                        "than field 1"));

  // The same field twice.
  const std::string twice = dir_.Sub("twice.grib2");
  {
    std::ifstream in(dir + "/regular_gg.grib2", std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(twice, std::ios::binary) << bytes << bytes;
  }
  auto duplicate = ImportGrib(store_.get(), twice, options);
  EXPECT_TRUE(duplicate.status().IsInvalidArgument());
  EXPECT_THAT(std::string(duplicate.status().message()),
              HasSubstr("field 2 ('gh', isobaricInhPa 525): the same variable 'gh'"));

  // A truncated file: DataLoss naming it, and nothing written.
  const std::string cut = dir_.Sub("cut.grib2");
  {
    std::ifstream in(dir + "/lambert.grib2", std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    bytes.resize(bytes.size() / 2);
    std::ofstream(cut, std::ios::binary) << bytes;
  }
  auto truncated = ImportGrib(store_.get(), cut, options);
  EXPECT_FALSE(truncated.ok());
  EXPECT_THAT(std::string(truncated.status().message()), HasSubstr("cut.grib2"));
  auto listed = store_->ListDataSets();
  ASSERT_TRUE(listed.ok());
  EXPECT_TRUE(listed->empty());

  auto missing = ImportGrib(store_.get(), dir_.Sub("none.grib2"), options);
  EXPECT_TRUE(missing.status().IsNotFound());
  EXPECT_FALSE(IsGribFile(dir_.Sub("none.grib2")));
  EXPECT_TRUE(IsGribFile(dir + "/lambert.grib2"));
  EXPECT_TRUE(IsGribFile(dir + "/era5-2mt-2019-03-uk.grib"));  // edition 1
  // A NetCDF file whose header names GRIB keys (as cfgrib's output does) is NetCDF.
  const std::string cdf = dir_.Sub("cfgrib.nc");
  std::ofstream(cdf, std::ios::binary)
      << std::string("CDF\x01\0\0\0\0", 8) << "GRIB_centre GRIB\x01\x02\x03\x01\x02\x03\x02";
  EXPECT_FALSE(IsGribFile(cdf));
  const std::string text = dir_.Sub("notes.txt");
  std::ofstream(text) << "GRIB files are ...";  // "GRIB" but no edition after it
  EXPECT_FALSE(IsGribFile(text));
}

}  // namespace
}  // namespace gridstore::importers
