// Copyright 2026 The GridStore Authors.
//
// The exporter: slices of an imported file written back as netCDF-4 and read with netCDF-C.
// Dimensions are sized to the slice, coordinates cut to match, attributes kept with their types.
#include "gridstore/formats/netcdf/netcdf_exporter.h"

#include <netcdf.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gridstore/grid/grid_store.h"
#include "gridstore/importers/netcdf/netcdf_importer.h"
#include "tests/importers/netcdf_testutil.h"
#include "tests/test_util.h"

namespace gridstore::formats {
namespace {

using importers::ImportNetCdf;
using importers::NetCdfImportOptions;

using grid::AttributeValue;
using grid::DataSetMeta;
using grid::DataType;
using grid::Grid4D;
using grid::GridDataSet;
using grid::GridStore;
using grid::Shape4;
using grid::VariableMeta;
using testing::ScopedTempDir;

// What netCDF-C reads back from an exported file.
class NcReader {
 public:
  explicit NcReader(const std::string& path) {
    EXPECT_EQ(nc_open(path.c_str(), NC_NOWRITE, &ncid_), NC_NOERR) << path;
  }
  ~NcReader() { nc_close(ncid_); }
  int id() const { return ncid_; }

  bool HasVariable(const char* name) const {
    int v;
    return nc_inq_varid(ncid_, name, &v) == NC_NOERR;
  }
  int Var(const char* name) const {
    int v = -1;
    EXPECT_EQ(nc_inq_varid(ncid_, name, &v), NC_NOERR) << name;
    return v;
  }
  // "name=length" of each dimension of `var`, in order.
  std::vector<std::string> Dims(const char* var) const {
    int ndims = 0;
    nc_inq_varndims(ncid_, Var(var), &ndims);
    std::vector<int> ids(static_cast<size_t>(ndims));
    nc_inq_vardimid(ncid_, Var(var), ids.data());
    std::vector<std::string> out;
    for (int d : ids) {
      char name[NC_MAX_NAME + 1];
      size_t len;
      nc_inq_dim(ncid_, d, name, &len);
      out.push_back(std::string(name) + "=" + std::to_string(len));
    }
    return out;
  }
  int NumDims() const {
    int n = 0;
    nc_inq_ndims(ncid_, &n);
    return n;
  }
  nc_type Type(const char* var) const {
    nc_type t = NC_NAT;
    nc_inq_vartype(ncid_, Var(var), &t);
    return t;
  }
  std::vector<double> Doubles(const char* var) const {
    size_t n = 1;
    for (const auto& d : Dims(var)) n *= std::stoul(d.substr(d.find('=') + 1));
    std::vector<double> values(n);
    EXPECT_EQ(nc_get_var_double(ncid_, Var(var), values.data()), NC_NOERR) << var;
    return values;
  }
  std::vector<char> Bytes(const char* var, size_t size) const {
    std::vector<char> bytes(size);
    EXPECT_EQ(nc_get_var(ncid_, Var(var), bytes.data()), NC_NOERR) << var;
    return bytes;
  }
  bool HasAttribute(const char* var, const char* att) const {
    return nc_inq_att(ncid_, var ? Var(var) : NC_GLOBAL, att, nullptr, nullptr) == NC_NOERR;
  }
  nc_type AttributeType(const char* var, const char* att) const {
    nc_type t = NC_NAT;
    nc_inq_atttype(ncid_, var ? Var(var) : NC_GLOBAL, att, &t);
    return t;
  }
  std::string Text(const char* var, const char* att) const {
    size_t len = 0;
    const int v = var ? Var(var) : NC_GLOBAL;
    EXPECT_EQ(nc_inq_attlen(ncid_, v, att, &len), NC_NOERR) << att;
    std::string s(len, '\0');
    nc_get_att_text(ncid_, v, att, s.data());
    return s;
  }
  std::vector<double> Numbers(const char* var, const char* att) const {
    size_t len = 0;
    const int v = var ? Var(var) : NC_GLOBAL;
    EXPECT_EQ(nc_inq_attlen(ncid_, v, att, &len), NC_NOERR) << att;
    std::vector<double> values(len);
    nc_get_att_double(ncid_, v, att, values.data());
    return values;
  }

 private:
  int ncid_ = -1;
};

class NetCdfExporterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
    WriteSource();
    ASSERT_FALSE(HasFatalFailure());
    NetCdfImportOptions options;
    options.dataset_id = "run";
    options.layout.block_x = 4;
    options.layout.block_y = 5;
    ASSERT_OK(ImportNetCdf(store_.get(), source_, options));
    ASSERT_OK_AND_ASSIGN(meta_, store_->GetDataSetMeta("run"));
  }

  // temp(time 4, level 3, lat 10, lon 12): packed shorts with fill and missing values;
  // ps(time, lat, lon) floats; orog(lat, lon) doubles; coordinates 1-D, 2-D and scalar.
  void WriteSource() {
    int ncid, time, level, lat, lon;
    ASSERT_NC(nc_create(source_.c_str(), NC_NETCDF4 | NC_CLOBBER, &ncid));
    ASSERT_NC(nc_def_dim(ncid, "time", 4, &time));
    ASSERT_NC(nc_def_dim(ncid, "level", 3, &level));
    ASSERT_NC(nc_def_dim(ncid, "lat", 10, &lat));
    ASSERT_NC(nc_def_dim(ncid, "lon", 12, &lon));
    auto def = [&](const char* name, nc_type type, std::vector<int> dims) {
      int id;
      EXPECT_EQ(nc_def_var(ncid, name, type, static_cast<int>(dims.size()), dims.data(), &id),
                NC_NOERR);
      return id;
    };
    auto text = [&](int var, const char* name, const std::string& value) {
      EXPECT_EQ(nc_put_att_text(ncid, var, name, value.size(), value.data()), NC_NOERR);
    };
    const int vtime = def("time", NC_DOUBLE, {time});
    text(vtime, "units", "hours since 2026-11-21 00:00");
    text(vtime, "calendar", "proleptic_gregorian");
    const int vlevel = def("level", NC_INT, {level});
    text(vlevel, "units", "hPa");
    text(vlevel, "positive", "down");
    const int vlat = def("lat", NC_FLOAT, {lat});
    text(vlat, "units", "degrees_north");
    text(vlat, "bounds", "lat_bnds");
    const int vlon = def("lon", NC_FLOAT, {lon});
    text(vlon, "units", "degrees_east");
    const int varea = def("area", NC_DOUBLE, {lat, lon});
    text(varea, "units", "m2");
    const int vheight = def("height", NC_FLOAT, {});
    text(vheight, "units", "m");
    const int vtemp = def("temp", NC_SHORT, {time, level, lat, lon});
    text(vtemp, "units", "K");
    text(vtemp, "coordinates", "area height");
    text(vtemp, "grid_mapping", "crs");
    const short fill = -32767, missing = -32000, range[2] = {-30000, 30000};
    const double scale = 0.01, offset = 273.15;
    ASSERT_NC(nc_put_att_short(ncid, vtemp, "_FillValue", NC_SHORT, 1, &fill));
    ASSERT_NC(nc_put_att_short(ncid, vtemp, "missing_value", NC_SHORT, 1, &missing));
    ASSERT_NC(nc_put_att_short(ncid, vtemp, "valid_range", NC_SHORT, 2, range));
    ASSERT_NC(nc_put_att_double(ncid, vtemp, "scale_factor", NC_DOUBLE, 1, &scale));
    ASSERT_NC(nc_put_att_double(ncid, vtemp, "add_offset", NC_DOUBLE, 1, &offset));
    const int vps = def("ps", NC_FLOAT, {time, lat, lon});
    const float nan = std::nanf("");
    ASSERT_NC(nc_put_att_float(ncid, vps, "_FillValue", NC_FLOAT, 1, &nan));
    text(vps, "units", "Pa");
    const int vorog = def("orog", NC_DOUBLE, {lat, lon});
    text(vorog, "long_name", "orography");
    text(NC_GLOBAL, "title", "exporter test");
    const int version = 3;
    ASSERT_NC(nc_put_att_int(ncid, NC_GLOBAL, "version", NC_INT, 1, &version));
    ASSERT_NC(nc_enddef(ncid));

    std::vector<double> values(4 * 3 * 10 * 12);
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<double>(i);
    ASSERT_NC(nc_put_var_double(ncid, vtime, values.data()));
    ASSERT_NC(nc_put_var_double(ncid, vlevel, std::vector<double>{1000, 850, 500}.data()));
    for (size_t i = 0; i < 10; ++i) values[i] = -45 + 10.0 * static_cast<double>(i);
    ASSERT_NC(nc_put_var_double(ncid, vlat, values.data()));
    for (size_t i = 0; i < 12; ++i) values[i] = 30.0 * static_cast<double>(i);
    ASSERT_NC(nc_put_var_double(ncid, vlon, values.data()));
    for (size_t i = 0; i < 120; ++i) values[i] = 1e6 + static_cast<double>(i);
    ASSERT_NC(nc_put_var_double(ncid, varea, values.data()));
    const float height = 2;
    ASSERT_NC(nc_put_var_float(ncid, vheight, &height));
    std::vector<short> temp(4 * 3 * 10 * 12);
    for (size_t i = 0; i < temp.size(); ++i) {
      temp[i] = i % 17 == 0 ? fill : i % 19 == 0 ? missing : static_cast<short>(i * 37 % 20000);
    }
    ASSERT_NC(nc_put_var_short(ncid, vtemp, temp.data()));
    std::vector<float> ps(4 * 10 * 12);
    for (size_t i = 0; i < ps.size(); ++i) ps[i] = i % 23 == 0 ? nan : 1e5f + static_cast<float>(i);
    ASSERT_NC(nc_put_var_float(ncid, vps, ps.data()));
    for (size_t i = 0; i < 120; ++i) values[i] = static_cast<double>(i) * 0.5;
    ASSERT_NC(nc_put_var_double(ncid, vorog, values.data()));
    ASSERT_NC(nc_close(ncid));
  }

  // Fetches `variable` at `origin` / `shape`, raw or unpacked, into `data`.
  void Fetch(const std::string& variable, const Shape4& origin, const Shape4& shape, bool unpack,
             GridDataSet* data) {
    ASSERT_OK_AND_ASSIGN(auto fetcher, store_->GetDataFetcher("run"));
    fetcher->SetVariablesToGet({variable});
    fetcher->SetOriginShape(origin, shape);
    fetcher->set_options({.unpack = unpack});
    ASSERT_OK_AND_ASSIGN(GridDataSet got, fetcher->Fetch());
    data->variables[variable] = std::move(got.variables.at(variable));
  }

  // The same slice of each variable: times 1-2, levels 1-2, lats 2-6, lons 3-8.
  GridDataSet Slice(bool unpack) {
    GridDataSet data;
    Fetch("temp", {1, 1, 2, 3}, {2, 2, 5, 6}, unpack, &data);
    Fetch("ps", {1, 0, 2, 3}, {2, 1, 5, 6}, unpack, &data);
    Fetch("orog", {0, 0, 2, 3}, {1, 1, 5, 6}, unpack, &data);
    return data;
  }

  void ExpectSlicedCoordinates(const NcReader& nc) {
    EXPECT_EQ(nc.Doubles("time"), (std::vector<double>{1, 2}));
    EXPECT_EQ(nc.Doubles("level"), (std::vector<double>{850, 500}));
    EXPECT_EQ(nc.Doubles("lat"), (std::vector<double>{-25, -15, -5, 5, 15}));
    EXPECT_EQ(nc.Doubles("lon"), (std::vector<double>{90, 120, 150, 180, 210, 240}));
    std::vector<double> area;
    for (int i = 2; i < 7; ++i) {
      for (int j = 3; j < 9; ++j) area.push_back(1e6 + i * 12 + j);
    }
    EXPECT_EQ(nc.Doubles("area"), area);
    EXPECT_EQ(nc.Dims("area"), (std::vector<std::string>{"lat=5", "lon=6"}));
    EXPECT_EQ(nc.Doubles("height"), std::vector<double>{2});
    EXPECT_TRUE(nc.Dims("height").empty());  // a scalar, as in the source
    EXPECT_EQ(nc.Type("level"), NC_INT);
    EXPECT_EQ(nc.Type("lat"), NC_FLOAT);
    EXPECT_EQ(nc.Text("time", "calendar"), "proleptic_gregorian");
    EXPECT_EQ(nc.Text("level", "positive"), "down");
    EXPECT_FALSE(nc.HasAttribute("lat", "bounds"));  // bounds are not exported
  }

  ScopedTempDir dir_;
  std::string source_ = dir_.Sub("source.nc");
  std::unique_ptr<GridStore> store_;
  DataSetMeta meta_;
};

TEST_F(NetCdfExporterTest, PackedSliceReadsBackWithItsDimensionsCoordinatesAndAttributes) {
  const GridDataSet data = Slice(false);
  const std::string out = dir_.Sub("packed.nc");
  ASSERT_OK(WriteNetCdf(out, meta_, data));
  NcReader nc(out);
  EXPECT_EQ(nc.Dims("temp"), (std::vector<std::string>{"time=2", "level=2", "lat=5", "lon=6"}));
  EXPECT_EQ(nc.Dims("ps"), (std::vector<std::string>{"time=2", "lat=5", "lon=6"}));
  EXPECT_EQ(nc.Dims("orog"), (std::vector<std::string>{"lat=5", "lon=6"}));
  EXPECT_EQ(nc.NumDims(), 4);  // no synthetic t or z
  ExpectSlicedCoordinates(nc);
  for (const char* var : {"temp", "ps", "orog"}) {
    const Grid4D& g = data.variables.at(var);
    EXPECT_EQ(nc.Bytes(var, g.size_bytes()),
              std::vector<char>(g.bytes(), g.bytes() + g.size_bytes()))
        << var;
  }
  // Attributes with their types; packing kept as stored.
  EXPECT_EQ(nc.Type("temp"), NC_SHORT);
  EXPECT_EQ(nc.Text("temp", "units"), "K");
  EXPECT_EQ(nc.AttributeType("temp", "scale_factor"), NC_DOUBLE);
  EXPECT_EQ(nc.Numbers("temp", "scale_factor"), std::vector<double>{0.01});
  EXPECT_EQ(nc.Numbers("temp", "add_offset"), std::vector<double>{273.15});
  EXPECT_EQ(nc.AttributeType("temp", "_FillValue"), NC_SHORT);
  EXPECT_EQ(nc.Numbers("temp", "_FillValue"), std::vector<double>{-32767});
  EXPECT_EQ(nc.AttributeType("temp", "missing_value"), NC_SHORT);
  EXPECT_EQ(nc.Numbers("temp", "valid_range"), (std::vector<double>{-30000, 30000}));
  EXPECT_EQ(nc.Text("temp", "coordinates"), "area height");
  EXPECT_FALSE(nc.HasAttribute("temp", "grid_mapping"));  // `crs` is not in the store
  EXPECT_TRUE(std::isnan(nc.Numbers("ps", "_FillValue")[0]));
  EXPECT_EQ(nc.AttributeType("ps", "_FillValue"), NC_FLOAT);
  EXPECT_EQ(nc.Text(nullptr, "title"), "exporter test");
  EXPECT_EQ(nc.AttributeType(nullptr, "version"), NC_INT);
  EXPECT_EQ(nc.Text(nullptr, "status"), "DONE");
  EXPECT_EQ(nc.AttributeType(nullptr, "create_time"), NC_INT64);
  // Compressed, chunked by plane.
  int shuffle, deflate, level, storage;
  size_t chunks[4];
  ASSERT_NC(nc_inq_var_deflate(nc.id(), nc.Var("temp"), &shuffle, &deflate, &level));
  EXPECT_EQ((std::vector<int>{shuffle, deflate, level}), (std::vector<int>{1, 1, 1}));
  ASSERT_NC(nc_inq_var_chunking(nc.id(), nc.Var("temp"), &storage, chunks));
  EXPECT_EQ((std::vector<size_t>(chunks, chunks + 4)), (std::vector<size_t>{1, 1, 5, 6}));
}

TEST_F(NetCdfExporterTest, UnpackedSliceIsFloatingPointWithNanFill) {
  const GridDataSet data = Slice(true);
  const std::string out = dir_.Sub("unpacked.nc");
  ASSERT_OK(WriteNetCdf(out, meta_, data, {.unpacked = true}));
  NcReader nc(out);
  ExpectSlicedCoordinates(nc);
  EXPECT_EQ(nc.Type("temp"), NC_DOUBLE);  // the packing attributes' type
  for (const char* att : {"scale_factor", "add_offset", "missing_value", "valid_range"}) {
    EXPECT_FALSE(nc.HasAttribute("temp", att)) << att;
  }
  EXPECT_EQ(nc.Text("temp", "units"), "K");
  EXPECT_TRUE(std::isnan(nc.Numbers("temp", "_FillValue")[0]));
  EXPECT_EQ(nc.AttributeType("temp", "_FillValue"), NC_DOUBLE);
  const Grid4D& g = data.variables.at("temp");
  const std::vector<double> back = nc.Doubles("temp");
  ASSERT_EQ(back.size(), g.size());
  int nans = 0;
  for (size_t i = 0; i < back.size(); ++i) {
    if (std::isnan(g.data<double>()[i])) {
      EXPECT_TRUE(std::isnan(back[i]));
      ++nans;
    } else {
      EXPECT_EQ(back[i], g.data<double>()[i]);
    }
  }
  EXPECT_GT(nans, 0);  // fill and missing values became NaN
  EXPECT_EQ(nc.Type("ps"), NC_FLOAT);
  EXPECT_EQ(nc.Type("orog"), NC_DOUBLE);
}

// Two windows of one source dimension: the second is "lat_2", with its own coordinate slice.
TEST_F(NetCdfExporterTest, SecondWindowOfADimensionGetsItsOwnName) {
  GridDataSet data;
  Fetch("temp", {0, 0, 0, 0}, {1, 1, 4, 12}, false, &data);
  Fetch("orog", {0, 0, 6, 0}, {1, 1, 3, 12}, false, &data);
  const std::string out = dir_.Sub("windows.nc");
  ASSERT_OK(WriteNetCdf(out, meta_, data));
  NcReader nc(out);
  EXPECT_EQ(nc.Dims("temp"), (std::vector<std::string>{"time=1", "level=1", "lat=4", "lon=12"}));
  EXPECT_EQ(nc.Dims("orog"), (std::vector<std::string>{"lat_2=3", "lon=12"}));
  EXPECT_EQ(nc.Doubles("lat"), (std::vector<double>{-45, -35, -25, -15}));
  EXPECT_EQ(nc.Doubles("lat_2"), (std::vector<double>{15, 25, 35}));
  EXPECT_EQ(nc.Text("temp", "coordinates"), "area height");
  EXPECT_EQ(nc.Dims("area"), (std::vector<std::string>{"lat=4", "lon=12"}));
}

// A dataset made through the API has no dimension names: axes longer than 1 get "t", "x"...
TEST_F(NetCdfExporterTest, AxesWithoutSourceNamesGetSyntheticOnes) {
  DataSetMeta meta;
  meta.id = "api";
  VariableMeta var;
  var.name = "field";
  var.type = DataType::kInt32;
  var.shape = {3, 1, 4, 5};
  meta.variables.push_back(var);
  GridDataSet data;
  Grid4D grid(DataType::kInt32, {0, 0, 0, 0}, {3, 1, 4, 5});
  for (size_t i = 0; i < grid.size(); ++i) grid.data<int32_t>()[i] = static_cast<int32_t>(i * 3);
  data.variables["field"] = grid;
  const std::string out = dir_.Sub("api.nc");
  ASSERT_OK(WriteNetCdf(out, meta, data));
  NcReader nc(out);
  EXPECT_EQ(nc.Dims("field"), (std::vector<std::string>{"t=3", "x=4", "y=5"}));
  EXPECT_EQ(nc.Bytes("field", grid.size_bytes()),
            std::vector<char>(grid.bytes(), grid.bytes() + grid.size_bytes()));
  EXPECT_FALSE(nc.HasAttribute("field", "_FillValue"));
}

TEST_F(NetCdfExporterTest, ErrorsNameThePathAndLeaveNoFileBehind) {
  const GridDataSet data = Slice(false);
  const std::string nowhere = dir_.Sub("no/such/dir/out.nc");
  EXPECT_STATUS(WriteNetCdf(nowhere, meta_, data), kFailedPrecondition,
                ("'" + nowhere + "': cannot create the file").c_str());
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("no")));

  GridDataSet unknown;
  unknown.variables["nope"] = data.variables.at("ps");
  EXPECT_STATUS(WriteNetCdf(dir_.Sub("x.nc"), meta_, unknown), kInvalidArgument,
                "dataset 'run' has no variable 'nope'");
  EXPECT_STATUS(WriteNetCdf(dir_.Sub("x.nc"), meta_, Slice(true)), kInvalidArgument,
                "variable 'temp' was fetched as float64 but is stored as int16",
                "NetCdfExportOptions::unpacked");
  EXPECT_STATUS(WriteNetCdf(dir_.Sub("x.nc"), meta_, GridDataSet{}), kInvalidArgument,
                "no variables");
  EXPECT_FALSE(std::filesystem::exists(dir_.Sub("x.nc")));

  // An existing file is replaced whole.
  const std::string out = dir_.Sub("replace.nc");
  std::ofstream(out) << "old contents";
  ASSERT_OK(WriteNetCdf(out, meta_, data));
  NcReader nc(out);
  EXPECT_TRUE(nc.HasVariable("temp"));
  EXPECT_FALSE(std::filesystem::exists(out + ".partial"));
}

}  // namespace
}  // namespace gridstore::formats
