// Copyright 2026 The GridStore Authors.
//
// Lossy precision at import (issue 18): values imported with keep_bits / keep_digits equal,
// bit for bit, what netCDF-C 4.9 writes with nc_def_var_quantize; the precision is recorded as
// netCDF-C's attribute; integer, packed, unknown and doubly named variables are refused.
#include <netcdf.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "gridstore/grid/grid_store.h"
#include "gridstore/importers/netcdf/netcdf_importer.h"
#include "gridstore/model/quantize.h"
#include "tests/grid/grid_testutil.h"
#include "tests/importers/netcdf_testutil.h"
#include "tests/test_util.h"

namespace gridstore::importers {
namespace {

using grid::DataSetMeta;
using grid::Grid4D;
using grid::GridStore;
using testing::FetchWhole;
using testing::ScopedTempDir;

constexpr size_t kT = 2, kX = 30, kY = 40, kN = kT * kX * kY;
constexpr float kFloatFill = -1234.5f;

// One variable of the test file: its type and how netCDF-C quantizes it in the reference file.
struct Case {
  std::string name;
  nc_type type;
  int mode;  // NC_QUANTIZE_BITROUND or NC_QUANTIZE_GRANULARBR
  int keep;
};

std::vector<Case> Cases() {
  std::vector<Case> cases;
  for (int bits : {1, 3, 7, 12, 22, 23}) {
    cases.push_back({"f_bits" + std::to_string(bits), NC_FLOAT, NC_QUANTIZE_BITROUND, bits});
  }
  for (int digits : {1, 2, 3, 5, 7}) {
    cases.push_back(
        {"f_digits" + std::to_string(digits), NC_FLOAT, NC_QUANTIZE_GRANULARBR, digits});
  }
  for (int bits : {1, 10, 30, 52}) {
    cases.push_back({"d_bits" + std::to_string(bits), NC_DOUBLE, NC_QUANTIZE_BITROUND, bits});
  }
  for (int digits : {1, 4, 9, 15}) {
    cases.push_back(
        {"d_digits" + std::to_string(digits), NC_DOUBLE, NC_QUANTIZE_GRANULARBR, digits});
  }
  return cases;
}

// Values over many magnitudes and both signs, with the fill value here and there.
std::vector<double> Values() {
  std::vector<double> v(kN);
  for (size_t i = 0; i < kN; ++i) {
    const double magnitude = std::pow(10.0, static_cast<double>(i % 13) - 6);
    v[i] = std::sin(static_cast<double>(i) * 0.37) * magnitude * 3.7 + (i % 5 == 0 ? 273.15 : 0);
  }
  for (size_t i = 0; i < kN; i += 17) v[i] = kFloatFill;
  return v;
}

// Writes every case's variable with Values(): quantized by netCDF-C if `quantize`.
void WriteFile(const std::string& path, bool quantize) {
  int ncid, dims[3];
  ASSERT_NC(nc_create(path.c_str(), NC_NETCDF4 | NC_CLOBBER, &ncid));
  ASSERT_NC(nc_def_dim(ncid, "time", kT, &dims[0]));
  ASSERT_NC(nc_def_dim(ncid, "lat", kX, &dims[1]));
  ASSERT_NC(nc_def_dim(ncid, "lon", kY, &dims[2]));
  for (const Case& c : Cases()) {
    int id;
    ASSERT_NC(nc_def_var(ncid, c.name.c_str(), c.type, 3, dims, &id));
    if (c.type == NC_FLOAT)
      ASSERT_NC(nc_put_att_float(ncid, id, "_FillValue", NC_FLOAT, 1, &kFloatFill));
    if (quantize) ASSERT_NC(nc_def_var_quantize(ncid, id, c.mode, c.keep));
  }
  ASSERT_NC(nc_enddef(ncid));
  const std::vector<double> values = Values();
  for (const Case& c : Cases()) {
    int id;
    ASSERT_NC(nc_inq_varid(ncid, c.name.c_str(), &id));
    ASSERT_NC(
        nc_put_var_double(ncid, id, values.data()));  // converted to the type, as netCDF-C does
  }
  ASSERT_NC(nc_close(ncid));
}

class ImportPrecisionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(dir_.Sub("store"), {.create_if_missing = true}));
  }

  NetCdfImportOptions Options(const std::string& id) {
    NetCdfImportOptions options;
    options.dataset_id = id;
    options.layout.block_x = 16;
    options.layout.block_y = 16;
    return options;
  }

  ScopedTempDir dir_;
  std::unique_ptr<GridStore> store_;
};

TEST_F(ImportPrecisionTest, ValuesEqualNetCdfCsQuantizeBitForBit) {
  const std::string plain = dir_.Sub("plain.nc"), reference = dir_.Sub("netcdf_quantized.nc");
  WriteFile(plain, false);
  WriteFile(reference, true);
  NetCdfImportOptions options = Options("q");
  for (const Case& c : Cases()) {
    (c.mode == NC_QUANTIZE_BITROUND ? options.keep_bits : options.keep_digits)[c.name] = c.keep;
  }
  ASSERT_OK(ImportNetCdf(store_.get(), plain, options).status());
  // The file netCDF-C quantized, imported as it is: its attributes are the reference's.
  ASSERT_OK(ImportNetCdf(store_.get(), reference, Options("ref")).status());
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("q"));
  ASSERT_OK_AND_ASSIGN(DataSetMeta ref_meta, store_->GetDataSetMeta("ref"));

  int ncid;
  ASSERT_NC(nc_open(reference.c_str(), NC_NOWRITE, &ncid));
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    int id;
    ASSERT_NC(nc_inq_varid(ncid, c.name.c_str(), &id));
    const Grid4D got = FetchWhole(*store_, "q", c.name);
    std::vector<char> want(got.size_bytes());
    ASSERT_NC(nc_get_var(ncid, id, want.data()));
    size_t differ = 0, wiped = 0;
    const size_t size = c.type == NC_FLOAT ? 4 : 8;
    const std::vector<double> original = Values();
    for (size_t i = 0; i < kN; ++i) {
      if (std::memcmp(got.bytes() + i * size, want.data() + i * size, size) == 0) continue;
      // The one deliberate difference: netCDF-C wipes to +-0 what needs every bit; kept here.
      const double ours = size == 4 ? double(got.data<float>()[i]) : got.data<double>()[i];
      const double theirs = size == 4 ? double(reinterpret_cast<const float*>(want.data())[i])
                                      : reinterpret_cast<const double*>(want.data())[i];
      const double as_type = size == 4 ? double(static_cast<float>(original[i])) : original[i];
      if (theirs == 0 && ours == as_type) {
        ++wiped;
      } else {
        ++differ;
      }
    }
    EXPECT_EQ(differ, 0u) << "of " << kN << " values differ from netCDF-C's (" << wiped
                          << " wiped by netCDF-C, kept here)";
    // The attribute netCDF-C writes, with its type and value.
    const grid::VariableMeta* var = meta.FindVariable(c.name);
    const grid::VariableMeta* ref = ref_meta.FindVariable(c.name);
    ASSERT_TRUE(var && ref);
    const std::string attribute(grid::PrecisionAttributeName(
        c.mode == NC_QUANTIZE_BITROUND ? grid::QuantizeMode::kBitRound
                                       : grid::QuantizeMode::kGranularBitRound));
    ASSERT_TRUE(ref->attributes.count(attribute)) << attribute;
    EXPECT_EQ(var->attributes.at(attribute), ref->attributes.at(attribute));
    EXPECT_EQ(var->attributes.at(attribute).AsDouble(), c.keep);
  }
  nc_close(ncid);
}

// netCDF-C 4.9.0's Granular BitRound writes -0.0 for a value needing more bits than the type has
// (or +0.0 if negative: its bit count goes past the mantissa and the shift negative); the import
// keeps such values.
TEST_F(ImportPrecisionTest, ValuesNetCdfCWouldWipeAreKept) {
  const std::string plain = dir_.Sub("big.nc"), netcdf = dir_.Sub("big_netcdf.nc");
  const std::vector<float> values = {9181099008.0f, 9.9999e9f, 1.5f, 3.14159f};
  for (const std::string& path : {plain, netcdf}) {
    int ncid, dim, id;
    ASSERT_NC(nc_create(path.c_str(), NC_NETCDF4 | NC_CLOBBER, &ncid));
    ASSERT_NC(nc_def_dim(ncid, "lat", 1, &dim));
    int dims[2] = {dim, 0};
    ASSERT_NC(nc_def_dim(ncid, "lon", values.size(), &dims[1]));
    ASSERT_NC(nc_def_var(ncid, "v", NC_FLOAT, 2, dims, &id));
    if (path == netcdf) ASSERT_NC(nc_def_var_quantize(ncid, id, NC_QUANTIZE_GRANULARBR, 7));
    ASSERT_NC(nc_enddef(ncid));
    ASSERT_NC(nc_put_var_float(ncid, id, values.data()));
    ASSERT_NC(nc_close(ncid));
  }
  int ncid;
  std::vector<float> theirs(values.size());
  ASSERT_NC(nc_open(netcdf.c_str(), NC_NOWRITE, &ncid));
  ASSERT_NC(nc_get_var_float(ncid, 0, theirs.data()));
  nc_close(ncid);
  EXPECT_EQ(theirs[0], 0.0f);  // netCDF-C's bug, which this test documents
  NetCdfImportOptions options = Options("big");
  options.keep_digits["v"] = 7;
  ASSERT_OK(ImportNetCdf(store_.get(), plain, options).status());
  const Grid4D got = FetchWhole(*store_, "big", "v");
  EXPECT_EQ(got.data<float>()[0], values[0]);
  EXPECT_EQ(got.data<float>()[1], values[1]);
  EXPECT_EQ(got.data<float>()[2], theirs[2]);
  EXPECT_EQ(got.data<float>()[3], theirs[3]);
}

// A small classic file with a float `t`, an int `count` and a packed short `p`.
std::string WriteMixedFile(const std::string& path) {
  int ncid, dims[2], t, count, p;
  EXPECT_EQ(nc_create(path.c_str(), NC_CLOBBER, &ncid), NC_NOERR);
  nc_def_dim(ncid, "lat", 4, &dims[0]);
  nc_def_dim(ncid, "lon", 5, &dims[1]);
  nc_def_var(ncid, "t", NC_FLOAT, 2, dims, &t);
  nc_def_var(ncid, "count", NC_INT, 2, dims, &count);
  nc_def_var(ncid, "p", NC_SHORT, 2, dims, &p);
  const float scale = 0.01f;
  nc_put_att_float(ncid, p, "scale_factor", NC_FLOAT, 1, &scale);
  EXPECT_EQ(nc_enddef(ncid), NC_NOERR);
  EXPECT_EQ(nc_close(ncid), NC_NOERR);
  return path;
}

TEST_F(ImportPrecisionTest, BadRequestsAreRefusedNamingTheVariable) {
  const std::string path = WriteMixedFile(dir_.Sub("mixed.nc"));
  auto expect_error = [&](const std::function<void(NetCdfImportOptions*)>& set,
                          const std::string& want) {
    NetCdfImportOptions options = Options("bad");
    set(&options);
    Status s = ImportNetCdf(store_.get(), path, options).status();
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << s.ToString();
    EXPECT_NE(s.message().find(want), std::string::npos) << s.ToString();
  };
  expect_error([](auto* o) { o->keep_bits["count"] = 7; }, "'count' is int32");
  expect_error([](auto* o) { o->keep_digits["p"] = 3; }, "'p' is packed");
  expect_error([](auto* o) { o->keep_bits["nope"] = 7; }, "names 'nope', which is not");
  expect_error([](auto* o) { o->keep_bits["t"] = 24; }, "1 to 23 mantissa bits, not 24");
  expect_error([](auto* o) { o->keep_digits["t"] = 8; }, "1 to 7 significant digits, not 8");
  expect_error([](auto* o) { o->keep_bits["t"] = 0; }, "not 0");
  expect_error(
      [](auto* o) {
        o->keep_bits["t"] = 7;
        o->keep_digits["t"] = 3;
      },
      "'t' is given both");
  ASSERT_OK_AND_ASSIGN(auto all, store_->ListDataSets());
  EXPECT_TRUE(all.empty()) << "a refused import wrote something";
}

}  // namespace
}  // namespace gridstore::importers
