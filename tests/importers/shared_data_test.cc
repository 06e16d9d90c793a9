// Copyright 2026 The GridStore Authors.
//
// Imports every real file of $GRIDSTORE_TEST_DATA (../shared/data: files nobody on this project
// wrote) and checks the store against netCDF-C value by value: whole variables, random boxes,
// coordinates, fill values, packing and attributes; then exports boxes and reads them back.
#include <netcdf.h>

#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "gridstore/formats/netcdf/netcdf_exporter.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/importers/netcdf/netcdf_importer.h"
#include "tests/importers/netcdf_testutil.h"
#include "tests/test_stores.h"
#include "tests/test_util.h"

namespace gridstore::importers {
namespace {

using grid::DataSetMeta;
using grid::DataType;
using grid::Grid4D;
using grid::GridStore;
using grid::Shape4;
using grid::VariableMeta;
using testing::ScopedTempDir;

// The folder of real files. Never skipped: a missing folder fails loudly, naming the path.
std::filesystem::path DataDir() {
  const char* env = std::getenv("GRIDSTORE_TEST_DATA");
  if (env == nullptr || *env == '\0') {
    ADD_FAILURE() << "GRIDSTORE_TEST_DATA is not set: it must name the folder of real NetCDF "
                     "files (../shared/data beside the project; ctest sets it)";
    return {};
  }
  if (!std::filesystem::is_directory(env)) {
    ADD_FAILURE() << "GRIDSTORE_TEST_DATA names '" << env
                  << "', which is not a folder; expected the real NetCDF files there";
    return {};
  }
  return env;
}

bool LooksLikeNetCdf(const std::filesystem::path& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return false;
  char head[8] = {};
  const size_t n = std::fread(head, 1, sizeof(head), f);
  std::fclose(f);
  return (n >= 4 && std::memcmp(head, "CDF", 3) == 0) ||
         (n == 8 && std::memcmp(head, "\x89HDF\r\n\x1a\n", 8) == 0);
}

// Reads the box (origin, shape over t, z, x, y) of `var` through netCDF-C, in its own type.
void ReadBox(int ncid, const VariableMeta& var, const Shape4& origin, const Shape4& shape,
             std::vector<char>* out) {
  int varid, ndims;
  ASSERT_NC(nc_inq_varid(ncid, var.name.c_str(), &varid));
  ASSERT_NC(nc_inq_varndims(ncid, varid, &ndims));
  std::vector<int> dimids(static_cast<size_t>(ndims));
  ASSERT_NC(nc_inq_vardimid(ncid, varid, dimids.data()));
  std::vector<size_t> start, count;
  for (int d : dimids) {
    char name[NC_MAX_NAME + 1];
    ASSERT_NC(nc_inq_dimname(ncid, d, name));
    int axis = -1;
    for (int a = 0; a < grid::kRank; ++a) {
      if (var.dimension_names[a] == name) axis = a;
    }
    ASSERT_GE(axis, 0) << "dimension " << name << " of " << var.name << " not mapped";
    start.push_back(static_cast<size_t>(origin[axis]));
    count.push_back(static_cast<size_t>(shape[axis]));
  }
  out->resize(static_cast<size_t>(shape[0] * shape[1] * shape[2] * shape[3]) *
              grid::DataTypeSize(var.type));
  ASSERT_NC(nc_get_vara(ncid, varid, start.data(), count.data(), out->data()));
}

// Fetches the box from the store and compares it with netCDF-C byte for byte.
void ExpectBoxMatches(GridStore* store, const std::string& id, int ncid, const VariableMeta& var,
                      const Shape4& origin, const Shape4& shape) {
  ASSERT_OK_AND_ASSIGN(auto fetcher, store->GetDataFetcher(id));
  fetcher->SetVariablesToGet({var.name});
  fetcher->SetOriginShape(origin, shape);
  ASSERT_OK_AND_ASSIGN(grid::GridDataSet got, fetcher->Fetch());
  const Grid4D* g = got.GetVariable(var.name);
  ASSERT_NE(g, nullptr);
  std::vector<char> want;
  ReadBox(ncid, var, origin, shape, &want);
  ASSERT_EQ(g->size_bytes(), want.size());
  EXPECT_EQ(std::memcmp(g->bytes(), want.data(), want.size()), 0)
      << var.name << " differs in box origin (" << origin[0] << "," << origin[1] << "," << origin[2]
      << "," << origin[3] << ") shape (" << shape[0] << "," << shape[1] << "," << shape[2] << ","
      << shape[3] << ")";
}

// The first value of a numeric attribute of `var` in the data folder's `file`, as netCDF-C reads
// it.
double FileAttribute(const std::string& file, const char* var, const char* att) {
  int ncid, varid;
  double value = std::nan("");
  if (nc_open((DataDir() / file).c_str(), NC_NOWRITE, &ncid) != NC_NOERR) return value;
  if (nc_inq_varid(ncid, var, &varid) == NC_NOERR) nc_get_att_double(ncid, varid, att, &value);
  nc_close(ncid);
  return value;
}

Shape4 RandomBox(const VariableMeta& var, std::mt19937* rng, Shape4* origin) {
  Shape4 shape;
  for (int a = 0; a < grid::kRank; ++a) {
    std::uniform_int_distribution<int64_t> extent(1, var.shape[a]);
    shape[a] = extent(*rng);
    std::uniform_int_distribution<int64_t> start(0, var.shape[a] - shape[a]);
    (*origin)[a] = start(*rng);
  }
  return shape;
}

class SharedDataTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = DataDir();
    ASSERT_FALSE(dir_.empty());
    ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(TestStoreUri(tmp_), {.create_if_missing = true}));
  }

  // Imports `file` of the data folder as dataset `file` and returns the stored meta.
  DataSetMeta Import(const std::string& file, std::vector<std::string>* notes = nullptr) {
    NetCdfImportOptions options;
    options.dataset_id = file;
    options.layout.block_x = 64;  // small blocks: boxes cross block edges
    options.layout.block_y = 48;
    auto summary = ImportNetCdf(store_.get(), (dir_ / file).string(), options);
    EXPECT_OK(summary);
    if (!summary.ok()) return {};
    if (notes) *notes = summary->notes;
    auto meta = store_->GetDataSetMeta(file);
    EXPECT_OK(meta);
    return meta.ok() ? *meta : DataSetMeta{};
  }

  std::filesystem::path dir_;
  ScopedTempDir tmp_;
  std::unique_ptr<GridStore> store_;
};

// Every file: each variable whole and in 50 random boxes equals netCDF-C; coordinates and
// attributes are complete. Files that are not NetCDF (README.md, SHA256SUMS) must be refused.
TEST_F(SharedDataTest, EveryFileImportsExactly) {
  int netcdf_files = 0;
  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& path : files) {
    SCOPED_TRACE(path.string());
    const std::string name = path.filename().string();
    if (!LooksLikeNetCdf(path)) {
      NetCdfImportOptions options;
      options.dataset_id = name;
      EXPECT_STATUS(ImportNetCdf(store_.get(), path.string(), options), kInvalidArgument,
                    "is not a NetCDF file");
      continue;
    }
    ++netcdf_files;
    const DataSetMeta meta = Import(name);
    ASSERT_FALSE(meta.variables.empty());
    EXPECT_EQ(meta.status(), grid::kStatusDone);
    int ncid;
    ASSERT_NC(nc_open(path.c_str(), NC_NOWRITE, &ncid));
    std::mt19937 rng(20260 + netcdf_files);
    for (const VariableMeta& var : meta.variables) {
      SCOPED_TRACE(var.name);
      ExpectBoxMatches(store_.get(), name, ncid, var, {0, 0, 0, 0}, var.shape);
      for (int i = 0; i < 50; ++i) {
        Shape4 origin;
        const Shape4 shape = RandomBox(var, &rng, &origin);
        ExpectBoxMatches(store_.get(), name, ncid, var, origin, shape);
      }
      // Every attribute kept, numbers with their netCDF type.
      int varid, natts;
      ASSERT_NC(nc_inq_varid(ncid, var.name.c_str(), &varid));
      ASSERT_NC(nc_inq_varnatts(ncid, varid, &natts));
      EXPECT_EQ(static_cast<int>(var.attributes.size()), natts);
      for (int a = 0; a < natts; ++a) {
        char att[NC_MAX_NAME + 1];
        nc_type type;
        size_t len;
        ASSERT_NC(nc_inq_attname(ncid, varid, a, att));
        ASSERT_NC(nc_inq_att(ncid, varid, att, &type, &len));
        auto it = var.attributes.find(att);
        ASSERT_NE(it, var.attributes.end()) << att;
        if (type == NC_CHAR || type == NC_STRING) {
          EXPECT_TRUE(it->second.is_string()) << att;
        } else {
          ASSERT_TRUE(it->second.is_number()) << att;
          EXPECT_EQ(it->second.size(), len) << att;
          std::vector<double> values(len);
          ASSERT_NC(nc_get_att_double(ncid, varid, att, values.data()));
          for (size_t k = 0; k < len; ++k) {
            if (std::isnan(values[k])) {
              EXPECT_TRUE(std::isnan(it->second.AsDouble(k))) << att;
            } else {
              EXPECT_EQ(it->second.AsDouble(k), values[k]) << att;
            }
          }
        }
      }
      // The fill value is the variable's own _FillValue, or netCDF's default for its type.
      ASSERT_TRUE(var.has_fill_value());
      nc_type fill_type;
      size_t fill_len;
      if (nc_inq_att(ncid, varid, "_FillValue", &fill_type, &fill_len) == NC_NOERR) {
        std::vector<char> fill(grid::DataTypeSize(var.type));
        ASSERT_NC(nc_get_att(ncid, varid, "_FillValue", fill.data()));
        EXPECT_EQ(var.fill_value, std::string(fill.data(), fill.size()));
      } else {
        std::vector<char> fill(grid::DataTypeSize(var.type));
        ASSERT_NC(nc_inq_var_fill(ncid, varid, nullptr, fill.data()));
        EXPECT_EQ(var.fill_value, std::string(fill.data(), fill.size()));
      }
    }
    // Coordinates: values as netCDF-C reads them.
    for (const grid::Coordinate& c : meta.coordinates) {
      SCOPED_TRACE(c.name);
      int varid;
      ASSERT_NC(nc_inq_varid(ncid, c.name.c_str(), &varid));
      std::vector<double> values(c.values.size());
      ASSERT_NC(nc_get_var_double(ncid, varid, values.data()));
      for (size_t k = 0; k < values.size(); ++k) {
        if (std::isnan(values[k])) {
          EXPECT_TRUE(std::isnan(c.values[k]));
        } else {
          EXPECT_EQ(c.values[k], values[k]) << k;
        }
      }
    }
    // Global attributes (text and numbers), then the import's own.
    int ngatts;
    ASSERT_NC(nc_inq_natts(ncid, &ngatts));
    for (int a = 0; a < ngatts; ++a) {
      char att[NC_MAX_NAME + 1];
      ASSERT_NC(nc_inq_attname(ncid, NC_GLOBAL, a, att));
      EXPECT_TRUE(meta.attributes.count(att)) << att;
    }
    EXPECT_TRUE(meta.attributes.count("create_time"));
    nc_close(ncid);
  }
  EXPECT_GE(netcdf_files, 8) << "expected the 8 real files of " << dir_;
}

TEST_F(SharedDataTest, TotalColumnCo2KeepsPackingFillAndMissingValue) {
  std::vector<std::string> notes;
  const DataSetMeta meta = Import("SMALL_total_column_co2.nc", &notes);
  const VariableMeta* v = meta.FindVariable("tcco2");
  ASSERT_NE(v, nullptr);
  EXPECT_EQ(meta.variables.size(), 1u);
  EXPECT_EQ(v->type, DataType::kInt16);
  EXPECT_EQ(v->shape, (Shape4{31, 1, 161, 320}));
  EXPECT_EQ(v->dimension_names, (std::array<std::string, 4>{"time", "", "latitude", "longitude"}));
  ASSERT_TRUE(v->packing.has_value());
  const double scale = FileAttribute("SMALL_total_column_co2.nc", "tcco2", "scale_factor");
  const double offset = FileAttribute("SMALL_total_column_co2.nc", "tcco2", "add_offset");
  EXPECT_NEAR(scale, 0.00131799501937031, 1e-17);
  EXPECT_EQ(v->packing->scale_factor, scale);
  EXPECT_EQ(v->packing->add_offset, offset);
  EXPECT_EQ(v->packing->unpacked_type, DataType::kFloat64);
  EXPECT_EQ(v->FillValueAsDouble(), -32767);
  EXPECT_EQ(v->missing_values, std::vector<double>{-32767});
  EXPECT_EQ(v->attributes.at("units").string_value(), "kg m**-2");
  EXPECT_EQ(v->attributes.at("_FillValue").number_type(), DataType::kInt16);
  const grid::Coordinate* lat = meta.FindCoordinate("latitude");
  ASSERT_NE(lat, nullptr);
  EXPECT_EQ(lat->shape, std::vector<int64_t>{161});
  EXPECT_EQ(lat->type, DataType::kFloat32);
  EXPECT_GT(lat->values.front(), lat->values.back());  // descending
  ASSERT_NE(meta.FindCoordinate("time"), nullptr);
  EXPECT_EQ(meta.FindCoordinate("time")->type, DataType::kInt32);
  EXPECT_EQ(meta.FindCoordinate("time")->attributes.at("units").string_value(),
            "hours since 1900-01-01 00:00:0.0");
  EXPECT_EQ(meta.attributes.at("Conventions").string_value(), "CF-1.0");

  // Unpacked values are stored * scale + offset, NaN at the fill value.
  ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("SMALL_total_column_co2.nc"));
  fetcher->set_options({.unpack = true});
  fetcher->SetOriginShape({3, 0, 10, 20}, {2, 1, 5, 7});
  ASSERT_OK_AND_ASSIGN(auto unpacked, fetcher->Fetch());
  fetcher->set_options({});
  ASSERT_OK_AND_ASSIGN(auto raw, fetcher->Fetch());
  const Grid4D& u = unpacked.variables.at("tcco2");
  const Grid4D& r = raw.variables.at("tcco2");
  ASSERT_EQ(u.type(), DataType::kFloat64);
  for (size_t i = 0; i < u.size(); ++i) {
    const int16_t s = r.data<int16_t>()[i];
    if (s == -32767) {
      EXPECT_TRUE(std::isnan(u.data<double>()[i]));
    } else {
      EXPECT_DOUBLE_EQ(u.data<double>()[i], s * scale + offset);
    }
  }
}

TEST_F(SharedDataTest, ReducedKeepsFloatTypedPacking) {
  const DataSetMeta meta = Import("reduced.nc");
  ASSERT_EQ(meta.variables.size(), 4u);
  for (const char* name : {"sst", "anom", "err", "ice"}) {
    const VariableMeta* v = meta.FindVariable(name);
    ASSERT_NE(v, nullptr) << name;
    EXPECT_EQ(v->shape, (Shape4{1, 1, 90, 180}));
    EXPECT_EQ(v->dimension_names, (std::array<std::string, 4>{"time", "zlev", "lat", "lon"}));
    ASSERT_TRUE(v->packing.has_value());
    EXPECT_EQ(v->packing->unpacked_type, DataType::kFloat32);
    EXPECT_EQ(v->packing->scale_factor, static_cast<double>(0.01f));
    EXPECT_EQ(v->packing->add_offset, 0.0);
    EXPECT_EQ(v->attributes.at("scale_factor").number_type(), DataType::kFloat32);
    EXPECT_EQ(v->FillValueAsDouble(), -999);
  }
  EXPECT_EQ(meta.FindCoordinate("zlev")->attributes.at("axis").string_value(), "Z");
  EXPECT_EQ(meta.FindCoordinate("time")->attributes.at("calendar").string_value(), "standard");
}

TEST_F(SharedDataTest, Era5KeepsNanFillOnFloatsAndTheScalarTime) {
  const DataSetMeta meta = Import("era5_1995-07-14T12.nc");
  EXPECT_EQ(meta.variables.size(), 7u);
  const VariableMeta* t2m_c = meta.FindVariable("t2m_C");
  ASSERT_NE(t2m_c, nullptr);
  EXPECT_EQ(t2m_c->type, DataType::kFloat32);
  EXPECT_EQ(t2m_c->shape, (Shape4{1, 1, 105, 237}));
  EXPECT_EQ(t2m_c->dimension_names, (std::array<std::string, 4>{"", "", "latitude", "longitude"}));
  EXPECT_TRUE(std::isnan(t2m_c->FillValueAsDouble()));
  EXPECT_FALSE(t2m_c->packing.has_value());
  const VariableMeta* sp = meta.FindVariable("sp");
  ASSERT_TRUE(sp->packing.has_value());
  EXPECT_EQ(sp->packing->scale_factor,
            FileAttribute("era5_1995-07-14T12.nc", "sp", "scale_factor"));
  EXPECT_NEAR(sp->packing->scale_factor, 0.554670929150199, 1e-15);
  EXPECT_EQ(sp->attributes.at("standard_name").string_value(), "surface_air_pressure");
  // The scalar `time` named by `coordinates`: one value with its units and calendar.
  const grid::Coordinate* time = meta.FindCoordinate("time");
  ASSERT_NE(time, nullptr);
  EXPECT_EQ(time->values.size(), 1u);
  EXPECT_TRUE(time->dimensions.empty());
  EXPECT_EQ(time->type, DataType::kInt32);
  EXPECT_EQ(time->attributes.at("calendar").string_value(), "gregorian");
  EXPECT_TRUE(std::isnan(meta.FindCoordinate("longitude")->attributes.at("_FillValue").AsDouble()));
}

TEST_F(SharedDataTest, ColpexKeepsAuxiliaryAndTransposedCoordinates) {
  std::vector<std::string> notes;
  const DataSetMeta meta = Import("small_theta_colpex.nc", &notes);
  ASSERT_EQ(meta.variables.size(), 1u);
  const VariableMeta& v = meta.variables[0];
  EXPECT_EQ(v.name, "air_potential_temperature");
  EXPECT_EQ(v.shape, (Shape4{6, 10, 83, 83}));
  const grid::Coordinate* alt = meta.FindCoordinate("surface_altitude");
  ASSERT_NE(alt, nullptr);
  EXPECT_EQ(alt->dimensions, (std::vector<std::string>{"grid_longitude", "grid_latitude"}));
  EXPECT_EQ(alt->shape, (std::vector<int64_t>{83, 83}));
  for (const char* name : {"time", "model_level_number", "grid_latitude", "grid_longitude",
                           "forecast_period", "level_height", "sigma"}) {
    EXPECT_NE(meta.FindCoordinate(name), nullptr) << name;
  }
  EXPECT_EQ(meta.FindCoordinate("level_height")->attributes.at("positive").string_value(), "up");
  // The rotated pole and the bounds are kept (CF cell metadata), not skipped.
  const grid::Coordinate* pole = meta.FindCoordinate("rotated_latitude_longitude");
  ASSERT_NE(pole, nullptr);
  EXPECT_EQ(pole->attributes.at("grid_north_pole_latitude").AsDouble(), 37.5);
  EXPECT_NE(meta.FindCoordinate("grid_latitude_bnds"), nullptr);
  EXPECT_EQ(notes, std::vector<std::string>{});
}

TEST_F(SharedDataTest, OtherFilesMapAsTheirDimensionsSay) {
  std::vector<std::string> notes;
  DataSetMeta meta = Import("tos_O1_2001-2002.nc", &notes);
  EXPECT_EQ(meta.FindVariable("tos")->shape, (Shape4{24, 1, 170, 180}));
  EXPECT_EQ(meta.FindVariable("tos")->FillValueAsDouble(), static_cast<double>(1e20f));
  EXPECT_EQ(meta.FindCoordinate("time")->attributes.at("calendar").string_value(), "360_day");
  EXPECT_EQ(meta.FindCoordinate("time_bnds")->shape, (std::vector<int64_t>{24, 2}));

  meta = Import("nc4uvt.nc", &notes);
  EXPECT_EQ(meta.variables.size(), 3u);
  EXPECT_EQ(meta.FindVariable("T")->attributes.at("units").string_value(), "C");  // NC_STRING
  EXPECT_EQ(meta.attributes.at("title").string_value(), "NCL generated netCDF file");
  EXPECT_THAT(::testing::PrintToString(notes), ::testing::HasSubstr("'grp1'"));

  meta = Import("contour.cdf");
  EXPECT_EQ(meta.FindVariable("T")->shape, (Shape4{7, 10, 33, 36}));
  EXPECT_EQ(meta.FindVariable("Psl")->shape, (Shape4{7, 1, 33, 36}));  // frtime is not vertical
  EXPECT_EQ(meta.FindVariable("grib_center")->shape, (Shape4{1, 1, 7, 10}));
  EXPECT_EQ(meta.FindVariable("grib_center")->type, DataType::kInt32);

  meta = Import("sub.nc");
  EXPECT_EQ(meta.FindVariable("u")->shape, (Shape4{10, 2, 9, 9}));
  EXPECT_EQ(meta.FindCoordinate("level")->attributes.at("units").string_value(), "millibars");
}

// Exported boxes (raw and unpacked) read back through netCDF-C equal what was fetched, with
// dimensions sized to the box, sliced coordinates and the variables' attributes.
TEST_F(SharedDataTest, ExportedBoxesReadBackExactly) {
  std::mt19937 rng(7);
  int checked_2d = 0;
  for (const char* file : {"SMALL_total_column_co2.nc", "small_theta_colpex.nc", "sub.nc",
                           "era5_1995-07-14T12.nc", "contour.cdf", "reduced.nc"}) {
    SCOPED_TRACE(file);
    const DataSetMeta meta = Import(file);
    ASSERT_FALSE(meta.variables.empty());
    for (bool unpack : {false, true}) {
      SCOPED_TRACE(unpack ? "unpacked" : "raw");
      // One random box per variable, fetched separately and written together.
      grid::GridDataSet data;
      for (const VariableMeta& var : meta.variables) {
        Shape4 origin;
        const Shape4 shape = RandomBox(var, &rng, &origin);
        ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher(file));
        fetcher->SetVariablesToGet({var.name});
        fetcher->SetOriginShape(origin, shape);
        fetcher->set_options({.unpack = unpack});
        ASSERT_OK_AND_ASSIGN(auto got, fetcher->Fetch());
        data.variables[var.name] = std::move(got.variables.at(var.name));
      }
      const std::string out = tmp_.Sub(std::string(file) + (unpack ? ".u.nc" : ".r.nc"));
      ASSERT_OK(formats::WriteNetCdf(out, meta, data, {.unpacked = unpack}));
      int ncid;
      ASSERT_NC(nc_open(out.c_str(), NC_NOWRITE, &ncid));
      for (const VariableMeta& var : meta.variables) {
        SCOPED_TRACE(var.name);
        const Grid4D& g = data.variables.at(var.name);
        int varid, ndims;
        nc_type type;
        ASSERT_NC(nc_inq_varid(ncid, var.name.c_str(), &varid));
        ASSERT_NC(nc_inq_var(ncid, varid, nullptr, &type, &ndims, nullptr, nullptr));
        std::vector<int> dimids(static_cast<size_t>(ndims));
        ASSERT_NC(nc_inq_vardimid(ncid, varid, dimids.data()));
        // Dimensions: the source's named axes, in order, sized to the box.
        std::vector<int> axes;
        for (int a = 0; a < grid::kRank; ++a) {
          if (!var.dimension_names[a].empty()) axes.push_back(a);
        }
        ASSERT_EQ(axes.size(), dimids.size());
        for (size_t k = 0; k < axes.size(); ++k) {
          char dim_name[NC_MAX_NAME + 1];
          size_t len;
          ASSERT_NC(nc_inq_dim(ncid, dimids[k], dim_name, &len));
          EXPECT_EQ(static_cast<int64_t>(len), g.shape()[axes[k]]);
          EXPECT_TRUE(std::string(dim_name).starts_with(var.dimension_names[axes[k]]));
          // The coordinate variable of that dimension holds the box's slice of the source's.
          const grid::Coordinate* c = meta.FindCoordinate(var.dimension_names[axes[k]]);
          int cid;
          if (c != nullptr && nc_inq_varid(ncid, dim_name, &cid) == NC_NOERR) {
            std::vector<double> values(len);
            ASSERT_NC(nc_get_var_double(ncid, cid, values.data()));
            for (size_t i = 0; i < len; ++i) {
              const double want = c->values[static_cast<size_t>(g.origin()[axes[k]]) + i];
              if (!std::isnan(want)) {
                EXPECT_EQ(values[i], want);
              }
            }
          } else {
            EXPECT_EQ(c, nullptr) << "coordinate " << dim_name << " not written";
          }
        }
        // Values, byte for byte, in the fetched type.
        EXPECT_EQ(type, grid::IsFloatingPoint(g.type())
                            ? (g.type() == DataType::kFloat32 ? NC_FLOAT : NC_DOUBLE)
                            : type);
        std::vector<char> back(g.size_bytes());
        ASSERT_NC(nc_get_var(ncid, varid, back.data()));
        EXPECT_EQ(std::memcmp(back.data(), g.bytes(), back.size()), 0);
        // Attributes: units kept; packing only when raw.
        if (var.attributes.count("units")) {
          size_t len;
          ASSERT_NC(nc_inq_attlen(ncid, varid, "units", &len));
          std::string units(len, '\0');
          ASSERT_NC(nc_get_att_text(ncid, varid, "units", units.data()));
          EXPECT_EQ(units, var.attributes.at("units").string_value());
        }
        const bool has_scale =
            nc_inq_att(ncid, varid, "scale_factor", nullptr, nullptr) == NC_NOERR;
        EXPECT_EQ(has_scale, var.packing.has_value() && !unpack);
        if (has_scale) {
          nc_type scale_type;
          ASSERT_NC(nc_inq_atttype(ncid, varid, "scale_factor", &scale_type));
          EXPECT_EQ(scale_type,
                    var.packing->unpacked_type == DataType::kFloat32 ? NC_FLOAT : NC_DOUBLE);
        }
        // 2-D auxiliary coordinates (colpex's transposed surface_altitude) cut to the box.
        for (const grid::Coordinate& c : meta.coordinates) {
          int cid;
          if (c.dimensions.size() != 2 || nc_inq_varid(ncid, c.name.c_str(), &cid) != NC_NOERR) {
            continue;
          }
          std::array<int64_t, 2> origin{}, extent{};
          for (int k = 0; k < 2; ++k) {
            for (int a = 0; a < grid::kRank; ++a) {
              if (var.dimension_names[a] == c.dimensions[k]) {
                origin[k] = g.origin()[a];
                extent[k] = g.shape()[a];
              }
            }
          }
          // Bounds (lat_bnds over lat and bnds) are checked by tools.cf_fidelity, with xarray.
          if (extent[0] == 0 || extent[1] == 0) continue;
          std::vector<double> values(static_cast<size_t>(extent[0] * extent[1]));
          ASSERT_NC(nc_get_var_double(ncid, cid, values.data()));
          for (int64_t i = 0; i < extent[0]; ++i) {
            for (int64_t j = 0; j < extent[1]; ++j) {
              EXPECT_EQ(values[static_cast<size_t>(i * extent[1] + j)],
                        c.values[static_cast<size_t>((origin[0] + i) * c.shape[1] + origin[1] + j)])
                  << c.name << " at " << i << ", " << j;
            }
          }
          ++checked_2d;
        }
      }
      nc_close(ncid);
    }
  }
  EXPECT_EQ(checked_2d, 2);  // surface_altitude, raw and unpacked
}

}  // namespace
}  // namespace gridstore::importers
