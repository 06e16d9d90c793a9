// Copyright 2026 The GridStore Authors.
//
// The importer on NetCDF files written here through netCDF-C: every numeric type, the (t, z, x, y)
// mapping, fill values and packing, memory bounds on a file larger than the budget, and bad input
// (each with its own message, leaving the store as it was).
#include "gridstore/importers/netcdf/netcdf_importer.h"

#include <netcdf.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <future>
#include <iostream>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/importers/import.h"
#include "gridstore/storage/memory/memory_kv_store.h"
#include "tests/grid/grid_testutil.h"
#include "tests/importers/netcdf_testutil.h"
#include "tests/storage/fault_injection_kv_store.h"
#include "tests/test_util.h"

namespace gridstore::importers {
namespace {

using grid::AttributeValue;
using grid::DataSetMeta;
using grid::DataType;
using grid::Grid4D;
using grid::GridStore;
using grid::Shape4;
using grid::VariableMeta;
using testing::FetchWhole;
using testing::ScopedTempDir;

// Writes a NetCDF file: define(ncid) in define mode, then write(ncid) in data mode.
void MakeFile(const std::string& path, int mode, const std::function<void(int)>& define,
              const std::function<void(int)>& write = nullptr) {
  int ncid;
  ASSERT_NC(nc_create(path.c_str(), mode | NC_CLOBBER, &ncid));
  define(ncid);
  ASSERT_NC(nc_enddef(ncid));
  if (write) write(ncid);
  ASSERT_NC(nc_close(ncid));
}

int Dim(int ncid, const char* name, size_t length) {
  int id = -1;
  EXPECT_EQ(nc_def_dim(ncid, name, length, &id), NC_NOERR) << name;
  return id;
}

int Var(int ncid, const char* name, nc_type type, std::vector<int> dims) {
  int id = -1;
  EXPECT_EQ(nc_def_var(ncid, name, type, static_cast<int>(dims.size()), dims.data(), &id), NC_NOERR)
      << name;
  return id;
}

void Text(int ncid, int varid, const char* name, const std::string& value) {
  EXPECT_EQ(nc_put_att_text(ncid, varid, name, value.size(), value.data()), NC_NOERR) << name;
}

int VarId(int ncid, const char* name) {
  int id = -1;
  EXPECT_EQ(nc_inq_varid(ncid, name, &id), NC_NOERR) << name;
  return id;
}

// A coordinate variable over `dim` with values 0, 1, 2... and the given text attributes.
int CoordinateVar(int ncid, const char* name, int dim,
                  std::vector<std::pair<const char*, std::string>> attributes = {}) {
  const int id = Var(ncid, name, NC_DOUBLE, {dim});
  for (const auto& [att, value] : attributes) Text(ncid, id, att, value);
  return id;
}

void WriteCoordinate(int ncid, const char* name) {
  const int id = VarId(ncid, name);
  int dim;
  size_t length;
  ASSERT_NC(nc_inq_vardimid(ncid, id, &dim));
  ASSERT_NC(nc_inq_dimlen(ncid, dim, &length));
  std::vector<double> values(length);
  for (size_t i = 0; i < length; ++i) values[i] = static_cast<double>(i) * 10;
  ASSERT_NC(nc_put_var_double(ncid, id, values.data()));
}

// Writes `name` with a deterministic pattern of its type; returns the bytes written.
std::vector<char> FillVariable(int ncid, const char* name) {
  const int id = VarId(ncid, name);
  nc_type type;
  int ndims;
  EXPECT_EQ(nc_inq_var(ncid, id, nullptr, &type, &ndims, nullptr, nullptr), NC_NOERR);
  std::vector<int> dims(static_cast<size_t>(ndims));
  nc_inq_vardimid(ncid, id, dims.data());
  size_t count = 1;
  for (int d : dims) {
    size_t length;
    nc_inq_dimlen(ncid, d, &length);
    count *= length;
  }
  size_t size;
  nc_inq_type(ncid, type, nullptr, &size);
  std::vector<char> bytes(count * size);
  for (size_t i = 0; i < count; ++i) {
    const auto v = static_cast<int64_t>((i * 7919) % 251) - 100;
    switch (type) {
      case NC_BYTE:
        reinterpret_cast<int8_t*>(bytes.data())[i] = static_cast<int8_t>(v);
        break;
      case NC_UBYTE:
        reinterpret_cast<uint8_t*>(bytes.data())[i] = static_cast<uint8_t>(v + 100);
        break;
      case NC_SHORT:
        reinterpret_cast<int16_t*>(bytes.data())[i] = static_cast<int16_t>(v * 99);
        break;
      case NC_USHORT:
        reinterpret_cast<uint16_t*>(bytes.data())[i] = static_cast<uint16_t>(v * 99 + 9900);
        break;
      case NC_INT:
        reinterpret_cast<int32_t*>(bytes.data())[i] = static_cast<int32_t>(v * 1000003);
        break;
      case NC_UINT:
        reinterpret_cast<uint32_t*>(bytes.data())[i] = static_cast<uint32_t>((v + 100) * 17000000);
        break;
      case NC_INT64:
        reinterpret_cast<int64_t*>(bytes.data())[i] = v * 36028797018963967LL;
        break;
      case NC_UINT64:
        reinterpret_cast<uint64_t*>(bytes.data())[i] =
            static_cast<uint64_t>(v + 100) * 73014444032000000ULL;
        break;
      case NC_FLOAT:
        reinterpret_cast<float*>(bytes.data())[i] = static_cast<float>(v) * 1.25e-3f;
        break;
      case NC_DOUBLE:
        reinterpret_cast<double*>(bytes.data())[i] = static_cast<double>(v) / 3.0;
        break;
    }
  }
  EXPECT_EQ(nc_put_var(ncid, id, bytes.data()), NC_NOERR) << name;
  return bytes;
}

class NetCdfImporterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
  }

  NetCdfImportOptions Options(const std::string& id = "run") {
    NetCdfImportOptions options;
    options.dataset_id = id;
    options.layout.block_x = 16;
    options.layout.block_y = 16;
    return options;
  }

  // Fetches every variable of dataset `id` whole and compares it with netCDF-C's reading of
  // `path`, byte for byte.
  void ExpectSameAsFile(const std::string& id, const std::string& path) {
    ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta(id));
    int ncid;
    ASSERT_NC(nc_open(path.c_str(), NC_NOWRITE, &ncid));
    for (const VariableMeta& var : meta.variables) {
      const Grid4D got = FetchWhole(*store_, id, var.name);
      std::vector<char> want(got.size_bytes());
      ASSERT_NC(nc_get_var(ncid, VarId(ncid, var.name.c_str()), want.data()));
      EXPECT_EQ(std::memcmp(got.bytes(), want.data(), want.size()), 0) << var.name;
    }
    nc_close(ncid);
  }

  void ExpectStoreEmpty() {
    ASSERT_OK_AND_ASSIGN(auto all, store_->ListDataSets());
    EXPECT_TRUE(all.empty()) << all.size() << " datasets, first " << all[0].id;
  }

  ScopedTempDir dir_;
  std::unique_ptr<GridStore> store_;
};

// ---- Types ----

class NumericTypesTest : public NetCdfImporterTest, public ::testing::WithParamInterface<int> {};

// netCDF-4 and CDF-5 hold all ten numeric types; each maps to its DataType, exactly.
TEST_P(NumericTypesTest, AllTenTypesImportExactly) {
  const std::string path = dir_.Sub("types.nc");
  const std::vector<std::pair<const char*, nc_type>> types = {
      {"i8", NC_BYTE},   {"u8", NC_UBYTE},  {"i16", NC_SHORT}, {"u16", NC_USHORT},
      {"i32", NC_INT},   {"u32", NC_UINT},  {"i64", NC_INT64}, {"u64", NC_UINT64},
      {"f32", NC_FLOAT}, {"f64", NC_DOUBLE}};
  std::map<std::string, std::vector<char>> written;
  MakeFile(
      path, GetParam(),
      [&](int ncid) {
        const int time = Dim(ncid, "time", 2), level = Dim(ncid, "level", 3);
        const int lat = Dim(ncid, "lat", 19), lon = Dim(ncid, "lon", 21);
        CoordinateVar(ncid, "level", level, {{"axis", "Z"}});
        for (const auto& [name, type] : types) Var(ncid, name, type, {time, level, lat, lon});
      },
      [&](int ncid) {
        WriteCoordinate(ncid, "level");
        for (const auto& [name, type] : types) written[name] = FillVariable(ncid, name);
      });
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_OK_AND_ASSIGN(ImportSummary summary, ImportNetCdf(store_.get(), path, Options()));
  EXPECT_EQ(summary.variables, 10);
  EXPECT_EQ(summary.planes, 60);
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
  const std::map<std::string, DataType> expected = {
      {"i8", DataType::kInt8},    {"u8", DataType::kUint8},   {"i16", DataType::kInt16},
      {"u16", DataType::kUint16}, {"i32", DataType::kInt32},  {"u32", DataType::kUint32},
      {"i64", DataType::kInt64},  {"u64", DataType::kUint64}, {"f32", DataType::kFloat32},
      {"f64", DataType::kFloat64}};
  for (const auto& [name, type] : types) {
    SCOPED_TRACE(name);
    const VariableMeta* v = meta.FindVariable(name);
    ASSERT_NE(v, nullptr);
    EXPECT_EQ(v->type, expected.at(name));
    EXPECT_EQ(v->shape, (Shape4{2, 3, 19, 21}));
    const Grid4D got = FetchWhole(*store_, "run", name);
    ASSERT_EQ(got.size_bytes(), written[name].size());
    EXPECT_EQ(std::memcmp(got.bytes(), written[name].data(), got.size_bytes()), 0);
    // No _FillValue: netCDF's default fill of the type, which is what it reads for unwritten data.
    std::vector<char> fill(grid::DataTypeSize(v->type));
    int ncid;
    ASSERT_NC(nc_open(path.c_str(), NC_NOWRITE, &ncid));
    ASSERT_NC(nc_inq_var_fill(ncid, VarId(ncid, name), nullptr, fill.data()));
    nc_close(ncid);
    EXPECT_EQ(v->fill_value, std::string(fill.data(), fill.size()));
  }
}

INSTANTIATE_TEST_SUITE_P(Formats, NumericTypesTest, ::testing::Values(NC_NETCDF4, NC_64BIT_DATA),
                         [](const auto& test) {
                           return test.param == NC_NETCDF4 ? "NetCdf4" : "Cdf5";
                         });

// ---- Mapping ----

// (A leading dimension of ensemble members is not a fifth: RealizationDimensionMakesOne...)
TEST_F(NetCdfImporterTest, FiveDimensionsIsAnErrorNamingTheVariable) {
  const std::string path = dir_.Sub("five.nc");
  MakeFile(path, NC_NETCDF4, [&](int ncid) {
    const int sample = Dim(ncid, "sample", 2), time = Dim(ncid, "time", 2);
    const int level = Dim(ncid, "level", 2), lat = Dim(ncid, "lat", 3), lon = Dim(ncid, "lon", 4);
    Var(ncid, "ens", NC_FLOAT, {sample, time, level, lat, lon});
    Var(ncid, "ps", NC_FLOAT, {time, lat, lon});
  });
  EXPECT_STATUS(ImportNetCdf(store_.get(), path, Options()), kInvalidArgument,
                ("'" + path +
                 "': variable 'ens' has 5 dimensions (sample, time, level, lat, lon); GridStore "
                 "variables have at most 4 (t, z, x, y)")
                    .c_str(),
                "--variables");
  ExpectStoreEmpty();
  NetCdfImportOptions options = Options();
  options.variables = {"ens"};
  EXPECT_STATUS(ImportNetCdf(store_.get(), path, options), kInvalidArgument,
                "variable 'ens' has 5 dimensions");
  ExpectStoreEmpty();
  options.variables = {"ps"};
  ASSERT_OK_AND_ASSIGN(ImportSummary summary, ImportNetCdf(store_.get(), path, options));
  EXPECT_THAT(::testing::PrintToString(summary.notes), ::testing::HasSubstr("'ens'"));
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
  EXPECT_EQ(meta.variables.size(), 1u);
}

// A 3-D variable's leading dimension is z when its coordinate is vertical by CF (axis Z, a
// `positive` attribute, pressure units), else t; 2-D variables have t = z = 1.
TEST_F(NetCdfImporterTest, LeadingDimensionOfThreeIsZOnlyWhenVertical) {
  const std::string path = dir_.Sub("three.nc");
  MakeFile(
      path, NC_NETCDF4,
      [&](int ncid) {
        const int level = Dim(ncid, "level", 3), plev = Dim(ncid, "plev", 2);
        const int height = Dim(ncid, "height", 4), time = Dim(ncid, "time", 5);
        const int step = Dim(ncid, "step", 2), lat = Dim(ncid, "lat", 5), lon = Dim(ncid, "lon", 6);
        CoordinateVar(ncid, "level", level, {{"axis", "Z"}});
        CoordinateVar(ncid, "plev", plev, {{"units", "hPa"}});
        CoordinateVar(ncid, "height", height, {{"positive", "up"}, {"units", "m"}});
        CoordinateVar(ncid, "time", time, {{"units", "hours since 2026-01-01"}, {"axis", "T"}});
        Var(ncid, "a", NC_SHORT, {level, lat, lon});
        Var(ncid, "b", NC_FLOAT, {plev, lat, lon});
        Var(ncid, "c", NC_DOUBLE, {height, lat, lon});
        Var(ncid, "d", NC_INT, {time, lat, lon});
        Var(ncid, "e", NC_FLOAT, {step, lat, lon});  // no coordinate variable: not vertical
        Var(ncid, "f", NC_FLOAT, {lat, lon});
      },
      [&](int ncid) {
        for (const char* c : {"level", "plev", "height", "time"}) WriteCoordinate(ncid, c);
        for (const char* v : {"a", "b", "c", "d", "e", "f"}) FillVariable(ncid, v);
      });
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_OK_AND_ASSIGN(DataSetMeta read, ReadNetCdfMeta(path, Options()));
  ASSERT_OK(ImportNetCdf(store_.get(), path, Options()));
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
  using Names = std::array<std::string, 4>;
  EXPECT_EQ(meta.FindVariable("a")->shape, (Shape4{1, 3, 5, 6}));
  EXPECT_EQ(meta.FindVariable("a")->dimension_names, (Names{"", "level", "lat", "lon"}));
  EXPECT_EQ(meta.FindVariable("b")->shape, (Shape4{1, 2, 5, 6}));
  EXPECT_EQ(meta.FindVariable("c")->shape, (Shape4{1, 4, 5, 6}));
  EXPECT_EQ(meta.FindVariable("d")->shape, (Shape4{5, 1, 5, 6}));
  EXPECT_EQ(meta.FindVariable("d")->dimension_names, (Names{"time", "", "lat", "lon"}));
  EXPECT_EQ(meta.FindVariable("e")->shape, (Shape4{2, 1, 5, 6}));
  EXPECT_EQ(meta.FindVariable("f")->shape, (Shape4{1, 1, 5, 6}));
  EXPECT_EQ(meta.FindVariable("f")->dimension_names, (Names{"", "", "lat", "lon"}));
  ExpectSameAsFile("run", path);
  // ReadNetCdfMeta describes the dataset the import made.
  EXPECT_EQ(read.variables, meta.variables);
  EXPECT_EQ(read.coordinates, meta.coordinates);
  EXPECT_EQ(read.status(), grid::kStatusInit);
}

TEST_F(NetCdfImporterTest, StaggeredVariablesKeepTheirShapesAndTypes) {
  const std::string path = dir_.Sub("staggered.nc");
  MakeFile(
      path, NC_CLASSIC_MODEL | NC_NETCDF4,
      [&](int ncid) {
        const int time = Dim(ncid, "time", NC_UNLIMITED), lat = Dim(ncid, "lat", 20);
        const int lat_v = Dim(ncid, "lat_v", 21), lon = Dim(ncid, "lon", 30);
        const int lon_u = Dim(ncid, "lon_u", 31);
        Var(ncid, "u", NC_FLOAT, {time, lat, lon_u});
        Var(ncid, "v", NC_DOUBLE, {time, lat_v, lon});
        Var(ncid, "p", NC_SHORT, {time, lat, lon});
      },
      [&](int ncid) {
        for (const char* v : {"u", "v", "p"}) {
          const int id = VarId(ncid, v);
          const size_t start[3] = {0, 0, 0}, count[3] = {3, 21, 31};
          std::vector<double> values(3 * 21 * 31);
          for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i % 977);
          // Write 3 records of whatever extent each variable has.
          int dims[3];
          nc_inq_vardimid(ncid, id, dims);
          size_t c[3] = {count[0], 0, 0};
          nc_inq_dimlen(ncid, dims[1], &c[1]);
          nc_inq_dimlen(ncid, dims[2], &c[2]);
          ASSERT_NC(nc_put_vara_double(ncid, id, start, c, values.data()));
        }
      });
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_OK(ImportNetCdf(store_.get(), path, Options()));
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
  EXPECT_EQ(meta.FindVariable("u")->shape, (Shape4{3, 1, 20, 31}));
  EXPECT_EQ(meta.FindVariable("v")->shape, (Shape4{3, 1, 21, 30}));
  EXPECT_EQ(meta.FindVariable("v")->type, DataType::kFloat64);
  EXPECT_EQ(meta.FindVariable("p")->shape, (Shape4{3, 1, 20, 30}));
  EXPECT_EQ(meta.FindVariable("p")->type, DataType::kInt16);
  ExpectSameAsFile("run", path);
}

// Coordinates, auxiliary coordinates (2-D and scalar) go to the meta; the rest is noted.
TEST_F(NetCdfImporterTest, NonGriddedVariablesAreCoordinatesOrNotedAsSkipped) {
  const std::string path = dir_.Sub("skips.nc");
  MakeFile(
      path, NC_NETCDF4,
      [&](int ncid) {
        const int time = Dim(ncid, "time", 2), y = Dim(ncid, "y", 4), x = Dim(ncid, "x", 5);
        const int nv = Dim(ncid, "nv", 2), nchar = Dim(ncid, "nchar", 8);
        const int empty = Dim(ncid, "record", NC_UNLIMITED);
        const int t = CoordinateVar(
            ncid, "time", time,
            {{"units", "days since 2000-01-01"}, {"calendar", "noleap"}, {"bounds", "time_bnds"}});
        (void)t;
        Var(ncid, "time_bnds", NC_DOUBLE, {time, nv});
        Var(ncid, "lat2d", NC_FLOAT, {y, x});
        Var(ncid, "lon2d", NC_FLOAT, {y, x});
        const int height = Var(ncid, "height", NC_DOUBLE, {});
        Text(ncid, height, "units", "m");
        Var(ncid, "crs", NC_INT, {});
        Var(ncid, "station", NC_CHAR, {nchar});
        Var(ncid, "weights", NC_FLOAT, {y});
        Var(ncid, "scalar", NC_INT, {});
        Var(ncid, "nothing", NC_FLOAT, {empty, y, x});
        const int temp = Var(ncid, "temp", NC_FLOAT, {time, y, x});
        Text(ncid, temp, "coordinates", "lat2d lon2d height");
        Text(ncid, temp, "grid_mapping", "crs");
      },
      [&](int ncid) {
        WriteCoordinate(ncid, "time");
        for (const char* v : {"lat2d", "lon2d", "temp"}) FillVariable(ncid, v);
        const double h = 2.0;
        ASSERT_NC(nc_put_var_double(ncid, VarId(ncid, "height"), &h));
      });
  ASSERT_FALSE(HasFatalFailure());
  std::vector<std::string> notes;
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, ReadNetCdfMeta(path, Options(), &notes));
  ASSERT_EQ(meta.variables.size(), 1u);
  EXPECT_EQ(meta.variables[0].name, "temp");
  EXPECT_OK(meta.Validate());
  const grid::Coordinate* lat2d = meta.FindCoordinate("lat2d");
  ASSERT_NE(lat2d, nullptr);
  EXPECT_EQ(lat2d->dimensions, (std::vector<std::string>{"y", "x"}));
  EXPECT_EQ(lat2d->values.size(), 20u);
  EXPECT_EQ(lat2d->values[1], static_cast<float>(7919 % 251 - 100) * 1.25e-3f);
  const grid::Coordinate* height = meta.FindCoordinate("height");
  ASSERT_NE(height, nullptr);
  EXPECT_EQ(height->values, std::vector<double>{2.0});
  EXPECT_TRUE(height->dimensions.empty());  // a scalar, as in the file
  EXPECT_TRUE(height->shape.empty());
  EXPECT_EQ(meta.FindCoordinate("time")->attributes.at("calendar").string_value(), "noleap");
  // CF cell metadata is kept: the grid mapping as a scalar, the bounds beside their coordinate.
  ASSERT_NE(meta.FindCoordinate("crs"), nullptr);
  EXPECT_TRUE(meta.FindCoordinate("crs")->dimensions.empty());
  ASSERT_NE(meta.FindCoordinate("time_bnds"), nullptr);
  EXPECT_EQ(meta.FindCoordinate("time_bnds")->dimensions.size(), 2u);
  const std::string all = ::testing::PrintToString(notes);
  EXPECT_THAT(all, ::testing::Not(::testing::HasSubstr("crs")));
  for (const char* note : {"skipped 'station': character variable",
                           "skipped 'weights': 1-D variable that is not a coordinate",
                           "skipped 'scalar': scalar variable", "skipped 'nothing': no data"}) {
    EXPECT_THAT(all, ::testing::HasSubstr(note));
  }
  ASSERT_OK(ImportNetCdf(store_.get(), path, Options()));
  ExpectSameAsFile("run", path);
}

// ---- Attributes, fill values and packing ----

TEST_F(NetCdfImporterTest, StringAttributesAreKept) {
  const std::string path = dir_.Sub("strings.nc");
  MakeFile(path, NC_NETCDF4, [&](int ncid) {
    const int lat = Dim(ncid, "lat", 3), lon = Dim(ncid, "lon", 4);
    const int v = Var(ncid, "T", NC_FLOAT, {lat, lon});
    const char* units[] = {"K"};
    const char* flags[] = {"low", "high"};
    const char* title[] = {"a string title"};
    ASSERT_NC(nc_put_att_string(ncid, v, "units", 1, units));
    ASSERT_NC(nc_put_att_string(ncid, v, "flag_meanings", 2, flags));
    ASSERT_NC(nc_put_att_string(ncid, NC_GLOBAL, "title", 1, title));
    const long long big = -5000000000LL;
    ASSERT_NC(nc_put_att_longlong(ncid, NC_GLOBAL, "big", NC_INT64, 1, &big));
    const unsigned short flags_mask[] = {1, 2, 65535};
    ASSERT_NC(nc_put_att_ushort(ncid, v, "flag_masks", NC_USHORT, 3, flags_mask));
  });
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, ReadNetCdfMeta(path, Options()));
  const VariableMeta& v = meta.variables[0];
  EXPECT_EQ(v.attributes.at("units"), AttributeValue::String("K"));
  EXPECT_EQ(v.attributes.at("flag_meanings"), AttributeValue::String("low\nhigh"));
  EXPECT_EQ(v.attributes.at("flag_masks"),
            AttributeValue::Integers(DataType::kUint16, {1, 2, 65535}));
  EXPECT_EQ(meta.attributes.at("title"), AttributeValue::String("a string title"));
  EXPECT_EQ(meta.attributes.at("big"), AttributeValue::Int64(-5000000000LL));
}

// netCDF-4 accepts a _FillValue of another type only by renaming an attribute onto it.
void FillOfOtherType(int ncid, int varid, nc_type type, double value) {
  ASSERT_NC(nc_put_att_double(ncid, varid, "fv", type, 1, &value));
  ASSERT_NC(nc_rename_att(ncid, varid, "fv", "_FillValue"));
}

TEST_F(NetCdfImporterTest, FillValueIsKeptWhenItsTypeCanHoldIt) {
  const std::string path = dir_.Sub("fills.nc");
  MakeFile(path, NC_NETCDF4, [&](int ncid) {
    const int lat = Dim(ncid, "lat", 3), lon = Dim(ncid, "lon", 4);
    FillOfOtherType(ncid, Var(ncid, "short_nan", NC_SHORT, {lat, lon}), NC_DOUBLE, std::nan(""));
    FillOfOtherType(ncid, Var(ncid, "float_int", NC_FLOAT, {lat, lon}), NC_INT, -9999);
    FillOfOtherType(ncid, Var(ncid, "float_huge", NC_FLOAT, {lat, lon}), NC_DOUBLE, 1e40);
    FillOfOtherType(ncid, Var(ncid, "int_half", NC_INT, {lat, lon}), NC_DOUBLE, 2.5);
    FillOfOtherType(ncid, Var(ncid, "ushort_big", NC_USHORT, {lat, lon}), NC_INT, 70000);
    FillOfOtherType(ncid, Var(ncid, "byte_double", NC_BYTE, {lat, lon}), NC_DOUBLE, -5);
    FillOfOtherType(ncid, Var(ncid, "float_third", NC_FLOAT, {lat, lon}), NC_DOUBLE, 1.0 / 3);
    const int same = Var(ncid, "double_nan", NC_DOUBLE, {lat, lon});
    const double nan = std::nan("");
    ASSERT_NC(nc_put_att_double(ncid, same, "_FillValue", NC_DOUBLE, 1, &nan));
  });
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, ReadNetCdfMeta(path, Options()));
  auto var = [&](const char* name) { return *meta.FindVariable(name); };
  EXPECT_FALSE(var("short_nan").has_fill_value());
  EXPECT_TRUE(std::isnan(var("short_nan").attributes.at("_FillValue").AsDouble()));
  EXPECT_EQ(var("short_nan").attributes.at("_FillValue").number_type(), DataType::kFloat64);
  EXPECT_EQ(var("float_int").FillValueAsDouble(), -9999.0);
  EXPECT_EQ(var("float_int").fill_value.size(), 4u);
  EXPECT_FALSE(var("float_huge").has_fill_value());
  EXPECT_FALSE(var("int_half").has_fill_value());
  EXPECT_FALSE(var("ushort_big").has_fill_value());
  EXPECT_EQ(var("byte_double").FillValueAsDouble(), -5.0);
  EXPECT_FALSE(var("float_third").has_fill_value());
  EXPECT_TRUE(std::isnan(var("double_nan").FillValueAsDouble()));
  ASSERT_OK(ImportNetCdf(store_.get(), path, Options()));  // the store accepts it all
}

TEST_F(NetCdfImporterTest, MissingValuesAndPackingOfAnySign) {
  const std::string path = dir_.Sub("packed.nc");
  MakeFile(
      path, 0,  // classic
      [&](int ncid) {
        const int lat = Dim(ncid, "lat", 3), lon = Dim(ncid, "lon", 4);
        const int s = Var(ncid, "s", NC_SHORT, {lat, lon});
        const short missing[] = {-1, -2};
        ASSERT_NC(nc_put_att_short(ncid, s, "missing_value", NC_SHORT, 2, missing));
        const float scale = -0.5f, offset = -10.f;
        ASSERT_NC(nc_put_att_float(ncid, s, "scale_factor", NC_FLOAT, 1, &scale));
        ASSERT_NC(nc_put_att_float(ncid, s, "add_offset", NC_FLOAT, 1, &offset));
        const int i = Var(ncid, "i", NC_INT, {lat, lon});
        const double offset2 = 5;
        ASSERT_NC(nc_put_att_double(ncid, i, "add_offset", NC_DOUBLE, 1, &offset2));
        const float missing_f = 1e20f;
        ASSERT_NC(nc_put_att_float(ncid, Var(ncid, "f", NC_FLOAT, {lat, lon}), "missing_value",
                                   NC_FLOAT, 1, &missing_f));
      },
      [&](int ncid) {
        for (const char* v : {"s", "i", "f"}) FillVariable(ncid, v);
      });
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_OK(ImportNetCdf(store_.get(), path, Options()));
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
  const VariableMeta& s = *meta.FindVariable("s");
  EXPECT_EQ(s.missing_values, (std::vector<double>{-1, -2}));
  ASSERT_TRUE(s.packing.has_value());
  EXPECT_EQ(*s.packing, (grid::Packing{-0.5, -10.0, DataType::kFloat32}));
  EXPECT_EQ(s.FillValueAsDouble(), NC_FILL_SHORT);
  EXPECT_EQ(*meta.FindVariable("i")->packing, (grid::Packing{1.0, 5.0, DataType::kFloat64}));
  EXPECT_EQ(meta.FindVariable("f")->missing_values,
            std::vector<double>{static_cast<double>(1e20f)});
  EXPECT_FALSE(meta.FindVariable("f")->packing.has_value());
  ExpectSameAsFile("run", path);
}

// ---- Memory ----

struct BudgetCase {
  const char* name;
  int format;
  size_t budget;
  int64_t nt, nz, ny, nx;
  size_t chunk_t, chunk_z;  // 0: contiguous
  bool report_speed;
};

// Keeps ctest's names short (gtest would print the struct's bytes).
void PrintTo(const BudgetCase& c, std::ostream* os) { *os << c.name; }

class BudgetTest : public NetCdfImporterTest, public ::testing::WithParamInterface<BudgetCase> {};

// A file larger than the budget imports exactly, holding at most the budget (or one plane, if a
// plane is larger than the budget), and reports its progress plane by plane.
TEST_P(BudgetTest, ImportStaysWithinTheMemoryBudget) {
  const BudgetCase& c = GetParam();
  const std::string path = dir_.Sub("big.nc");
  MakeFile(
      path, c.format,
      [&](int ncid) {
        const int time = Dim(ncid, "time", static_cast<size_t>(c.nt));
        const int level = Dim(ncid, "level", static_cast<size_t>(c.nz));
        const int lat = Dim(ncid, "lat", static_cast<size_t>(c.nx));
        const int lon = Dim(ncid, "lon", static_cast<size_t>(c.ny));
        CoordinateVar(ncid, "level", level, {{"units", "hPa"}});
        const int big = Var(ncid, "big", NC_FLOAT, {time, level, lat, lon});
        Var(ncid, "ps", NC_SHORT, {time, lat, lon});
        if (c.chunk_t > 0) {
          const size_t chunks[4] = {c.chunk_t, c.chunk_z, static_cast<size_t>(c.nx / 2),
                                    static_cast<size_t>(c.ny / 2)};
          ASSERT_NC(nc_def_var_chunking(ncid, big, NC_CHUNKED, chunks));
          ASSERT_NC(nc_def_var_deflate(ncid, big, 1, 1, 1));
        }
      },
      [&](int ncid) {
        WriteCoordinate(ncid, "level");
        std::vector<float> plane(static_cast<size_t>(c.nx * c.ny));
        for (int64_t t = 0; t < c.nt; ++t) {
          for (int64_t z = 0; z < c.nz; ++z) {
            for (size_t i = 0; i < plane.size(); ++i) {
              plane[i] = static_cast<float>(t * 1000 + z * 100) +
                         std::sin(static_cast<float>(i) * 1e-3f) * static_cast<float>(i % 97);
            }
            const size_t start[4] = {static_cast<size_t>(t), static_cast<size_t>(z), 0, 0};
            const size_t count[4] = {1, 1, static_cast<size_t>(c.nx), static_cast<size_t>(c.ny)};
            ASSERT_NC(nc_put_vara_float(ncid, VarId(ncid, "big"), start, count, plane.data()));
          }
        }
        FillVariable(ncid, "ps");
      });
  ASSERT_FALSE(HasFatalFailure());
  NetCdfImportOptions options = Options();
  options.layout.block_x = 128;
  options.layout.block_y = 128;
  options.memory_budget_bytes = c.budget;
  std::vector<ImportProgress> progress;
  options.on_progress = [&](const ImportProgress& p) { progress.push_back(p); };
  ASSERT_OK_AND_ASSIGN(ImportSummary summary, ImportNetCdf(store_.get(), path, options));

  const size_t plane_bytes = static_cast<size_t>(c.nx * c.ny) * sizeof(float);
  EXPECT_LE(summary.peak_buffered_bytes, std::max(c.budget, plane_bytes));
  EXPECT_GE(summary.peak_buffered_bytes, plane_bytes);
  const int64_t planes = c.nt * c.nz + c.nt;
  EXPECT_EQ(summary.planes, planes);
  EXPECT_EQ(summary.raw_bytes,
            c.nt * c.nz * static_cast<int64_t>(plane_bytes) + c.nt * c.nx * c.ny * 2);
  EXPECT_GT(summary.stored_bytes, 0);
  ASSERT_EQ(static_cast<int64_t>(progress.size()), planes);
  EXPECT_EQ(progress.front().variable, "big");
  EXPECT_EQ(progress.back().variable, "ps");
  EXPECT_EQ(progress.back().planes_done, planes);
  EXPECT_EQ(progress.back().planes_total, planes);
  EXPECT_EQ(progress.back().bytes_done, progress.back().bytes_total);
  EXPECT_EQ(progress.back().bytes_total, summary.raw_bytes);
  ExpectSameAsFile("run", path);
  if (c.report_speed) {
    const double mb = static_cast<double>(std::filesystem::file_size(path)) / 1e6;
    std::cout << "[ speed    ] " << mb << " MB file, budget " << c.budget / 1e6
              << " MB: " << summary.seconds << " s, " << mb / summary.seconds << " MB/s, peak "
              << summary.peak_buffered_bytes / 1e6 << " MB, stored " << summary.stored_bytes / 1e6
              << " MB\n";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Files, BudgetTest,
    ::testing::Values(
        // 48 MiB of floats (1 MiB planes) under an 8 MiB budget: the speed measurement.
        BudgetCase{"Classic48MiB", NC_64BIT_OFFSET, 8 << 20, 12, 4, 512, 512, 0, 0, true},
        // Chunks spanning 2 times and 2 levels, deflated: slabs cut through chunks.
        BudgetCase{"ChunkedDeflated", NC_NETCDF4, 2 << 20, 6, 4, 256, 256, 2, 2, false},
        BudgetCase{"ChunkedWholeLevels", NC_NETCDF4, 8 << 20, 4, 6, 256, 256, 1, 3, false},
        // Under three planes: one plane at a time.
        BudgetCase{"OnePlaneAtATime", NC_NETCDF4, 600 << 10, 3, 2, 256, 256, 0, 0, false},
        // A plane larger than the budget is still imported.
        BudgetCase{"PlaneLargerThanBudget", 0, 100 << 10, 2, 2, 256, 256, 0, 0, false}),
    [](const auto& test) { return std::string(test.param.name); });

// ---- Bad input: a specific error, and nothing written ----

TEST_F(NetCdfImporterTest, MissingFileIsNotFound) {
  const std::string path = dir_.Sub("absent.nc");
  EXPECT_STATUS(ImportNetCdf(store_.get(), path, Options()), kNotFound,
                ("'" + path + "': no such file").c_str());
  EXPECT_STATUS(ReadNetCdfMeta(path, Options()), kNotFound, "no such file");
  ExpectStoreEmpty();
}

TEST_F(NetCdfImporterTest, TextFileOrDirectoryIsNotNetCdf) {
  const std::string path = dir_.Sub("notes.nc");
  std::ofstream(path) << "temperature,pressure\n280.1,1013\n";
  EXPECT_STATUS(ImportNetCdf(store_.get(), path, Options()), kInvalidArgument,
                ("'" + path + "' is not a NetCDF file").c_str());
  std::ofstream(dir_.Sub("empty.nc")).flush();
  EXPECT_STATUS(ImportNetCdf(store_.get(), dir_.Sub("empty.nc"), Options()), kInvalidArgument,
                "is not a NetCDF file");
  EXPECT_STATUS(ImportNetCdf(store_.get(), dir_.path().string(), Options()), kInvalidArgument,
                "is a directory");
  ExpectStoreEmpty();
}

// Writes a small file in `format` and returns it truncated to `keep` of its size.
std::string TruncatedCopy(const ScopedTempDir& dir, int format, double keep) {
  const std::string path = dir.Sub("truncated.nc");
  MakeFile(
      path, format,
      [&](int ncid) {
        const int time = Dim(ncid, "time", NC_UNLIMITED), lat = Dim(ncid, "lat", 40);
        const int lon = Dim(ncid, "lon", 50);
        CoordinateVar(ncid, "lat", lat);
        Var(ncid, "fixed", NC_DOUBLE, {lat, lon});
        Var(ncid, "temp", NC_FLOAT, {time, lat, lon});
      },
      [&](int ncid) {
        WriteCoordinate(ncid, "lat");
        FillVariable(ncid, "fixed");
        std::vector<float> values(8 * 40 * 50, 1.5f);
        const size_t start[3] = {0, 0, 0}, count[3] = {8, 40, 50};
        ASSERT_NC(nc_put_vara_float(ncid, VarId(ncid, "temp"), start, count, values.data()));
      });
  std::filesystem::resize_file(
      path, static_cast<uintmax_t>(static_cast<double>(std::filesystem::file_size(path)) * keep));
  return path;
}

TEST_F(NetCdfImporterTest, TruncatedClassicFileIsDataLoss) {
  // netCDF-C 4.9.0 opens it and reads the missing records as zeros without an error.
  for (int format : {0, NC_64BIT_OFFSET, NC_64BIT_DATA}) {  // CDF-1, CDF-2, CDF-5
    SCOPED_TRACE(format);
    for (double keep : {0.5, 0.99}) {
      const std::string path = TruncatedCopy(dir_, format, keep);
      ASSERT_FALSE(HasFatalFailure());
      EXPECT_STATUS(ImportNetCdf(store_.get(), path, Options()), kDataLoss,
                    ("'" + path + "' is truncated").c_str(), "variable 'temp'");
      EXPECT_STATUS(ReadNetCdfMeta(path, Options()), kDataLoss, "is truncated");
    }
    // Cut inside the header: netCDF-C refuses CDF-1 and CDF-2 ("truncated or corrupt: NetCDF:
    // Invalid argument") but opens CDF-5 with the variables it could read ("header runs past").
    const std::string path = TruncatedCopy(dir_, format, 1.0);
    std::filesystem::resize_file(path, 100);
    EXPECT_STATUS(ImportNetCdf(store_.get(), path, Options()), kDataLoss,
                  ("'" + path + "' is truncated").c_str());
    std::cout << "[ message  ] " << ImportNetCdf(store_.get(), path, Options()).status() << "\n";
    std::filesystem::resize_file(path, 4);  // just the magic number
    EXPECT_STATUS(ImportNetCdf(store_.get(), path, Options()), kDataLoss, "truncated or corrupt",
                  "NetCDF: Unknown file format");
  }
  ExpectStoreEmpty();
}

TEST_F(NetCdfImporterTest, TruncatedNetCdf4FileIsDataLoss) {
  for (double keep : {0.5, 0.95}) {
    const std::string path = TruncatedCopy(dir_, NC_NETCDF4, keep);
    ASSERT_FALSE(HasFatalFailure());
    EXPECT_STATUS(ImportNetCdf(store_.get(), path, Options()), kDataLoss,
                  ("'" + path + "' is truncated or corrupt: NetCDF: HDF error").c_str());
  }
  ExpectStoreEmpty();
}

TEST_F(NetCdfImporterTest, UnknownVariableListsTheGriddedOnes) {
  const std::string path = dir_.Sub("vars.nc");
  MakeFile(path, NC_NETCDF4, [&](int ncid) {
    const int lat = Dim(ncid, "lat", 3), lon = Dim(ncid, "lon", 4);
    CoordinateVar(ncid, "lat", lat);
    Var(ncid, "t2m", NC_FLOAT, {lat, lon});
    Var(ncid, "sp", NC_FLOAT, {lat, lon});
  });
  NetCdfImportOptions options = Options();
  options.variables = {"t2m", "tp"};
  EXPECT_STATUS(ImportNetCdf(store_.get(), path, options), kInvalidArgument,
                ("'" + path + "' has no variable 'tp' to import (it has: t2m, sp)").c_str());
  options.variables = {"lat"};
  EXPECT_STATUS(ImportNetCdf(store_.get(), path, options), kInvalidArgument,
                "'lat' is not a gridded variable (a coordinate); it has: t2m, sp");
  options.variables = {"sp"};
  options.dataset_id = "";
  EXPECT_STATUS(ImportNetCdf(store_.get(), path, options), kInvalidArgument, "no dataset id");
  ExpectStoreEmpty();
}

TEST_F(NetCdfImporterTest, FileWithoutGriddedVariablesIsRefused) {
  const std::string path = dir_.Sub("coords.nc");
  MakeFile(path, NC_NETCDF4, [&](int ncid) {
    CoordinateVar(ncid, "lat", Dim(ncid, "lat", 3));
    Var(ncid, "name", NC_CHAR, {Dim(ncid, "n", 4)});
  });
  EXPECT_STATUS(ImportNetCdf(store_.get(), path, Options()), kInvalidArgument,
                "has no gridded variable to import", "'name': character variable");
  ExpectStoreEmpty();
}

// Two versions of one dataset: v1 has `a` and `b`, v2 only `a`, with other values and shape.
void WriteVersion(const std::string& path, int version) {
  MakeFile(
      path, NC_NETCDF4,
      [&](int ncid) {
        const int lat = Dim(ncid, "lat", version == 1 ? 6 : 9), lon = Dim(ncid, "lon", 7);
        Var(ncid, "a", version == 1 ? NC_FLOAT : NC_DOUBLE, {lat, lon});
        if (version == 1) Var(ncid, "b", NC_INT, {lat, lon});
        Text(ncid, NC_GLOBAL, "version", std::to_string(version));
      },
      [&](int ncid) {
        FillVariable(ncid, "a");
        if (version == 1) FillVariable(ncid, "b");
      });
}

TEST_F(NetCdfImporterTest, ExistingDatasetIsReplacedOnlyWithOverwrite) {
  const std::string v1 = dir_.Sub("v1.nc"), v2 = dir_.Sub("v2.nc");
  WriteVersion(v1, 1);
  WriteVersion(v2, 2);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_OK(ImportNetCdf(store_.get(), v1, Options("run")));
  EXPECT_STATUS(ImportNetCdf(store_.get(), v2, Options("run")), kAlreadyExists,
                "dataset 'run' already exists", "use --overwrite to replace it");
  ExpectSameAsFile("run", v1);  // untouched

  NetCdfImportOptions options = Options("run");
  options.overwrite = true;
  ASSERT_OK(ImportNetCdf(store_.get(), v2, options));
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("run"));
  ASSERT_EQ(meta.variables.size(), 1u);
  EXPECT_EQ(meta.variables[0].type, DataType::kFloat64);
  EXPECT_EQ(meta.variables[0].shape, (Shape4{1, 1, 9, 7}));
  EXPECT_EQ(meta.attributes.at("version").string_value(), "2");
  EXPECT_EQ(meta.status(), grid::kStatusDone);
  ExpectSameAsFile("run", v2);
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("run"));
  fetcher->SetVariablesToGet({"b"});
  EXPECT_FALSE(fetcher->Fetch().ok());
  // Overwriting an id that does not exist is a plain import.
  ASSERT_OK(ImportNetCdf(store_.get(), v1, [&] {
    auto o = Options("fresh");
    o.overwrite = true;
    return o;
  }()));
}

// A chunk that fails its checksum half-way: the error names file and variable, and the dataset
// stays INIT (the import began writing before it could know).
// A new dataset is INIT while it is written; an import that fails midway removes it (issue 12:
// nothing half-made), and one over an existing dataset leaves that dataset as it was.
TEST_F(NetCdfImporterTest, FailureMidwayRemovesWhatItWrote) {
  const std::string path = dir_.Sub("corrupt.nc");
  MakeFile(
      path, NC_NETCDF4,
      [&](int ncid) {
        const int time = Dim(ncid, "time", 6), lat = Dim(ncid, "lat", 64),
                  lon = Dim(ncid, "lon", 64);
        const int v = Var(ncid, "temp", NC_FLOAT, {time, lat, lon});
        const size_t chunks[3] = {1, 64, 64};
        ASSERT_NC(nc_def_var_chunking(ncid, v, NC_CHUNKED, chunks));
        ASSERT_NC(nc_def_var_fletcher32(ncid, v, NC_FLETCHER32));
      },
      [&](int ncid) {
        std::vector<float> values(6 * 64 * 64);
        for (size_t i = 0; i < values.size(); ++i) {
          values[i] = static_cast<float>(i / 4096) * 100000.f + static_cast<float>(i % 4096);
        }
        ASSERT_NC(nc_put_var_float(ncid, VarId(ncid, "temp"), values.data()));
      });
  ASSERT_FALSE(HasFatalFailure());
  // Flip a byte inside the chunk of t = 4, found by its (uncompressed) values.
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const float key[3] = {400000.f, 400001.f, 400002.f};
  const size_t at = bytes.find(std::string(reinterpret_cast<const char*>(key), sizeof(key)));
  ASSERT_NE(at, std::string::npos);
  file.seekp(static_cast<std::streamoff>(at + 64));
  file.put(static_cast<char>(bytes[at + 64] ^ 0x5a));
  file.close();

  NetCdfImportOptions options = Options();
  options.memory_budget_bytes = 3 * 64 * 64 * 4;  // slabs of one plane
  std::vector<std::string> seen_status;
  options.on_progress = [&](const ImportProgress&) {
    auto meta = store_->GetDataSetMeta("run");
    seen_status.push_back(meta.ok() ? meta->status() : meta.status().ToString());
  };
  EXPECT_STATUS(ImportNetCdf(store_.get(), path, options), kDataLoss,
                ("'" + path + "': variable 'temp' at t 4").c_str(), "NetCDF: HDF error");
  EXPECT_EQ(seen_status, std::vector<std::string>(4, "INIT"));
  EXPECT_STATUS(store_->GetDataSetMeta("run"), kNotFound, "'run'");
  ExpectStoreEmpty();

  // Over an existing dataset (here one of another file): it stays whole and readable.
  const std::string good = dir_.Sub("good.nc");
  WriteVersion(good, 2);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_OK(ImportNetCdf(store_.get(), good, Options("run")));
  options.overwrite = true;
  EXPECT_STATUS(ImportNetCdf(store_.get(), path, options), kDataLoss, "variable 'temp' at t 4");
  ExpectSameAsFile("run", good);
  ASSERT_OK_AND_ASSIGN(grid::VerifyReport report, store_->Verify(""));
  EXPECT_TRUE(report.ok());
  EXPECT_TRUE(report.orphans.empty());  // the replacement's blocks are gone
}

// ---- Threads ----

// Issue 12 item 13: the process-wide netCDF lock is held only around netCDF calls, so an import
// waiting on its store (here: one that hangs) holds up no other netCDF work in the process.
TEST_F(NetCdfImporterTest, AnImportWaitingOnItsStoreHoldsUpNoOtherNetCdfWork) {
  const std::string a = dir_.Sub("a.nc"), b = dir_.Sub("b.nc");
  WriteVersion(a, 1);
  WriteVersion(b, 2);
  ASSERT_FALSE(HasFatalFailure());
  std::unique_ptr<storage::KvStore> base = storage::NewMemoryKvStore();
  auto faulty = std::make_unique<testing::FaultInjectionKvStore>(base.get());
  testing::FaultInjectionKvStore* hang = faulty.get();
  ASSERT_OK_AND_ASSIGN(auto store,
                       grid::OpenGridStore(std::move(faulty), {.create_if_missing = true}));
  hang->HoldReads(true);
  std::thread importer([&] { EXPECT_OK(ImportNetCdf(store.get(), a, Options("a")).status()); });
  while (hang->held_reads() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  // The import is inside the store now. Reading another file's structure must not wait for it.
  auto read = std::async(std::launch::async, [&] { return ReadNetCdfMeta(b, Options("b")); });
  const bool finished = read.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  hang->HoldReads(false);
  importer.join();
  ASSERT_TRUE(finished) << "ReadNetCdfMeta waited for another import's store I/O";
  EXPECT_OK(read.get().status());
}

// netCDF-C is not thread-safe; the importer serialises its calls, so imports (and meta reads)
// may run on several threads at once.
TEST_F(NetCdfImporterTest, ImportsOnSeveralThreadsAreIndependent) {
  std::vector<std::string> paths;
  for (int i = 0; i < 3; ++i) {
    paths.push_back(dir_.Sub("file" + std::to_string(i) + ".nc"));
    MakeFile(
        paths.back(), i == 1 ? NC_64BIT_OFFSET : NC_NETCDF4,
        [&](int ncid) {
          const int time = Dim(ncid, "time", 6), lat = Dim(ncid, "lat", 64 + i);
          const int lon = Dim(ncid, "lon", 96);
          Var(ncid, "a", i == 2 ? NC_DOUBLE : NC_FLOAT, {time, lat, lon});
          Var(ncid, "b", NC_SHORT, {time, lat, lon});
        },
        [&](int ncid) {
          FillVariable(ncid, "a");
          FillVariable(ncid, "b");
        });
  }
  ASSERT_FALSE(HasFatalFailure());
  std::vector<Status> results(paths.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < paths.size(); ++i) {
    threads.emplace_back([&, i] {
      NetCdfImportOptions options = Options("run" + std::to_string(i));
      options.memory_budget_bytes = 256 << 10;  // many small slabs, interleaved
      results[i] = ImportNetCdf(store_.get(), paths[i], options).status();
    });
  }
  threads.emplace_back([&] {
    for (int k = 0; k < 20; ++k) EXPECT_OK(ReadNetCdfMeta(paths[k % 3], Options()));
  });
  for (auto& t : threads) t.join();
  for (size_t i = 0; i < paths.size(); ++i) {
    EXPECT_OK(results[i]);
    ExpectSameAsFile("run" + std::to_string(i), paths[i]);
  }
}

// ---- Lifecycle and attributes ----

TEST_F(NetCdfImporterTest, SuccessSetsDoneCreateTimeAndUserAttributes) {
  const std::string path = dir_.Sub("v1.nc");
  WriteVersion(path, 1);
  ASSERT_FALSE(HasFatalFailure());
  NetCdfImportOptions options = Options("ecmwf/2026-11-21T00Z");
  options.attributes["source"] = AttributeValue::String("ECMWF");
  options.attributes["version"] = AttributeValue::Int64(7);        // wins over the file's
  options.attributes["status"] = AttributeValue::String("bogus");  // the import's own wins
  std::vector<std::string> statuses;
  options.on_progress = [&](const ImportProgress& p) {
    auto meta = store_->GetDataSetMeta("ecmwf/2026-11-21T00Z");
    statuses.push_back(meta.ok() ? meta->status() : "?");
    EXPECT_LE(p.bytes_done, p.bytes_total);
  };
  const auto now = [] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  };
  const int64_t before = now();
  ASSERT_OK_AND_ASSIGN(ImportSummary summary, ImportNetCdf(store_.get(), path, options));
  const int64_t after = now();
  EXPECT_EQ(summary.dataset_id, "ecmwf/2026-11-21T00Z");
  EXPECT_EQ(summary.variables, 2);
  EXPECT_GE(summary.seconds, 0);
  EXPECT_EQ(statuses, std::vector<std::string>(2, "INIT"));
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("ecmwf/2026-11-21T00Z"));
  EXPECT_EQ(meta.status(), grid::kStatusDone);
  const AttributeValue& created = meta.attributes.at("create_time");
  ASSERT_TRUE(created.is_number());
  EXPECT_EQ(created.number_type(), DataType::kInt64);
  EXPECT_GE(created.integers()[0], before);
  EXPECT_LE(created.integers()[0], after);
  EXPECT_EQ(meta.attributes.at("source").string_value(), "ECMWF");
  EXPECT_EQ(meta.attributes.at("version"), AttributeValue::Int64(7));
  EXPECT_EQ(meta.layout.block_x, 16);
}

// ---- Forecast collections (docs/collections.md) ----

// A forecast file: t(time, lat, lon) at 3 steps and, if `reference_hours` >= 0, a scalar
// forecast_reference_time of that many hours since 2017-01-01.
void WriteForecast(const std::string& path, double reference_hours) {
  MakeFile(
      path, NC_NETCDF4,
      [&](int ncid) {
        const int time = Dim(ncid, "time", 3), lat = Dim(ncid, "lat", 4), lon = Dim(ncid, "lon", 5);
        CoordinateVar(ncid, "time", time,
                      {{"units", "hours since 2017-01-01 00:00:00"}, {"calendar", "standard"}});
        CoordinateVar(ncid, "lat", lat, {{"units", "degrees_north"}});
        CoordinateVar(ncid, "lon", lon, {{"units", "degrees_east"}});
        const int t = Var(ncid, "t", NC_FLOAT, {time, lat, lon});
        if (reference_hours >= 0) {
          const int ref = Var(ncid, "reftime", NC_DOUBLE, {});
          Text(ncid, ref, "standard_name", "forecast_reference_time");
          Text(ncid, ref, "units", "hours since 2017-01-01 00:00:00");
          Text(ncid, t, "coordinates", "reftime");
        }
      },
      [&](int ncid) {
        for (const char* c : {"time", "lat", "lon"}) WriteCoordinate(ncid, c);
        FillVariable(ncid, "t");
        if (reference_hours >= 0) {
          ASSERT_NC(nc_put_var_double(ncid, VarId(ncid, "reftime"), &reference_hours));
        }
      });
}

TEST_F(NetCdfImporterTest, ForecastReferenceTimeIsTheRunTime) {
  const std::string run12 = dir_.Sub("run12.nc"), run24 = dir_.Sub("run24.nc");
  const std::string none = dir_.Sub("none.nc");
  WriteForecast(run12, 12);
  WriteForecast(run24, 24);
  WriteForecast(none, -1);
  ASSERT_FALSE(HasFatalFailure());
  constexpr int64_t k20170101T12 = 1483272000000;
  // The run time from the file; a collection only when given (a NetCDF file does not say it).
  ImportOptions options;
  options.dataset_id = "a";
  ASSERT_OK_AND_ASSIGN(auto plan, PlanImport({run12}, options));
  ASSERT_OK(RunImport(store_.get(), *plan, nullptr));
  ASSERT_OK_AND_ASSIGN(DataSetMeta a, store_->GetDataSetMeta("a"));
  EXPECT_EQ(a.attributes.at("run_time"), AttributeValue::Int64(k20170101T12));
  EXPECT_EQ(a.attributes.count("collection"), 0u);
  options.dataset_id = "b";
  options.collection = "mine/fc";
  ASSERT_OK_AND_ASSIGN(plan, PlanImport({run12}, options));
  ASSERT_OK(RunImport(store_.get(), *plan, nullptr));
  ASSERT_OK_AND_ASSIGN(DataSetMeta b, store_->GetDataSetMeta("b"));
  EXPECT_EQ(grid::StringAttribute(b.attributes, "collection"), "mine/fc");
  EXPECT_EQ(b.attributes.at("run_time"), AttributeValue::Int64(k20170101T12));
  // Files of two runs: refused naming both, unless the run is given.
  options.dataset_id = "c";
  EXPECT_STATUS(PlanImport({run12, run24}, options).status(), kInvalidArgument,
                "run24.nc' is of the run of 2017-01-02T00:00:00Z",
                "run12.nc' of 2017-01-01T12:00:00Z");
  // In a collection without a run time: refused, asking for --run.
  EXPECT_STATUS(PlanImport({none}, options).status(), kInvalidArgument, "none.nc' has no run time",
                "--run");
  // A real file (the Met Office's, through Iris): forecast_reference_time = 246987 hours since
  // 1970, 1998-03-06T03:00:00Z.
  const char* data = std::getenv("GRIDSTORE_TEST_DATA");
  ASSERT_NE(data, nullptr) << "GRIDSTORE_TEST_DATA is not set";
  ImportOptions real;
  real.dataset_id = "euro";
  ASSERT_OK_AND_ASSIGN(plan,
                       PlanImport({std::string(data) + "/../corpus/euro_air_temp_laea.nc"}, real));
  EXPECT_EQ(PlannedDataSetMeta(*plan).attributes.at("run_time"),
            AttributeValue::Int64(int64_t{246987} * 3600 * 1000));
  options.run_time = "2017-01-01T00:00Z";
  ASSERT_OK_AND_ASSIGN(plan, PlanImport({none}, options));
  EXPECT_EQ(PlannedDataSetMeta(*plan).attributes.at("run_time"),
            AttributeValue::Int64(k20170101T12 - 12 * 3600 * 1000));
  ASSERT_OK_AND_ASSIGN(plan, PlanImport({run12}, options));  // --run wins over the file
  EXPECT_EQ(PlannedDataSetMeta(*plan).attributes.at("run_time"),
            AttributeValue::Int64(k20170101T12 - 12 * 3600 * 1000));
}

// An ensemble along CF's realization dimension: one dataset per member, numbered by the
// coordinate's values, each holding its slice of every variable with the member dimension (a 5-D
// t, a 4-D pr) and the variables without it (a mask); the deflated t is read through netCDF-C
// (the parallel chunk reader does not take a member dimension).
TEST_F(NetCdfImporterTest, RealizationDimensionMakesOneDatasetPerMember) {
  const std::string path = dir_.Sub("ens.nc");
  MakeFile(
      path, NC_NETCDF4,
      [&](int ncid) {
        const int r = Dim(ncid, "realization", 3), time = Dim(ncid, "time", 2);
        const int level = Dim(ncid, "level", 2), lat = Dim(ncid, "lat", 4),
                  lon = Dim(ncid, "lon", 5);
        const int rid = Var(ncid, "realization", NC_INT, {r});
        Text(ncid, rid, "standard_name", "realization");
        CoordinateVar(ncid, "time", time,
                      {{"units", "hours since 2017-01-01 00:00:00"}, {"calendar", "standard"}});
        CoordinateVar(ncid, "level", level, {{"units", "hPa"}, {"positive", "down"}});
        CoordinateVar(ncid, "lat", lat, {{"units", "degrees_north"}});
        CoordinateVar(ncid, "lon", lon, {{"units", "degrees_east"}});
        const int t = Var(ncid, "t", NC_FLOAT, {r, time, level, lat, lon});
        ASSERT_NC(nc_def_var_deflate(ncid, t, 1, 1, 1));
        Var(ncid, "pr", NC_DOUBLE, {r, time, lat, lon});
        Var(ncid, "mask", NC_BYTE, {lat, lon});
        const int ref = Var(ncid, "reftime", NC_DOUBLE, {});
        Text(ncid, ref, "standard_name", "forecast_reference_time");
        Text(ncid, ref, "units", "hours since 2017-01-01 00:00:00");
      },
      [&](int ncid) {
        for (const char* c : {"time", "level", "lat", "lon"}) WriteCoordinate(ncid, c);
        const int numbers[] = {0, 5, 12};
        ASSERT_NC(nc_put_var_int(ncid, VarId(ncid, "realization"), numbers));
        for (const char* v : {"t", "pr", "mask"}) FillVariable(ncid, v);
        const double six = 6;
        ASSERT_NC(nc_put_var_double(ncid, VarId(ncid, "reftime"), &six));
      });
  ASSERT_FALSE(HasFatalFailure());
  ImportOptions options;
  options.dataset_id = "ens";
  options.collection = "nc/ens";
  ASSERT_OK_AND_ASSIGN(auto plan, PlanImport({path}, options));
  ASSERT_EQ(PlannedDataSetMetas(*plan).size(), 3u);
  ASSERT_OK_AND_ASSIGN(ImportSummary summary, RunImport(store_.get(), *plan, nullptr));
  EXPECT_EQ(summary.datasets, (std::vector<std::string>{"ens/m00", "ens/m05", "ens/m12"}));
  EXPECT_EQ(summary.planes, 3 * (4 + 2 + 1));
  EXPECT_EQ(summary.planes_from_chunks, 0);  // the member dimension: through netCDF-C
  EXPECT_TRUE(store_->GetDataSetMeta("ens").status().IsNotFound());
  int ncid;
  ASSERT_NC(nc_open(path.c_str(), NC_NOWRITE, &ncid));
  const int64_t numbers[] = {0, 5, 12};
  for (size_t k = 0; k < 3; ++k) {
    ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta(summary.datasets[k]));
    EXPECT_EQ(meta.attributes.at("member"), AttributeValue::Int64(numbers[k]));
    EXPECT_EQ(grid::StringAttribute(meta.attributes, "collection"), "nc/ens");
    EXPECT_EQ(meta.attributes.at("run_time"), AttributeValue::Int64(1483228800000 + 6 * 3600000));
    EXPECT_EQ(meta.FindVariable("t")->shape, (Shape4{2, 2, 4, 5}));
    EXPECT_EQ(meta.FindVariable("pr")->shape, (Shape4{2, 1, 4, 5}));
    EXPECT_EQ(meta.FindVariable("mask")->shape, (Shape4{1, 1, 4, 5}));
    EXPECT_EQ(meta.FindCoordinate("realization"), nullptr);
    for (const char* name : {"t", "pr"}) {
      const Grid4D got = FetchWhole(*store_, meta.id, name);
      std::vector<char> want(got.size_bytes());
      const int id = VarId(ncid, name);
      int ndims;
      ASSERT_NC(nc_inq_varndims(ncid, id, &ndims));
      std::vector<size_t> start(size_t(ndims), 0), count = {1, 2, 2, 4, 5};
      if (ndims == 4) count = {1, 2, 4, 5};
      start[0] = k;
      ASSERT_NC(nc_get_vara(ncid, id, start.data(), count.data(), want.data()));
      EXPECT_EQ(std::memcmp(got.bytes(), want.data(), want.size()), 0) << meta.id << " " << name;
    }
    const Grid4D mask = FetchWhole(*store_, meta.id, "mask");
    std::vector<char> want(mask.size_bytes());
    ASSERT_NC(nc_get_var(ncid, VarId(ncid, "mask"), want.data()));
    EXPECT_EQ(std::memcmp(mask.bytes(), want.data(), want.size()), 0) << meta.id;
  }
  nc_close(ncid);
}

}  // namespace
}  // namespace gridstore::importers
