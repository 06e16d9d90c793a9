// Copyright 2026 The GridStore Authors.
//
// The classic netCDF writer (formats/netcdf/internal/classic_file.h) against the netCDF-4 one: the
// same boxes of every real file of $GRIDSTORE_TEST_DATA, written both ways by WriteNetCdfSlabs,
// must read back through netCDF-C the same, dimension by dimension, variable by variable,
// attribute by attribute (names, order, types, values) and value by value. Then what the classic
// writer refuses, and the netCDF-C error codes it answers.
#include <netcdf.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gridstore/formats/netcdf/internal/classic_file.h"
#include "gridstore/formats/netcdf/netcdf_exporter.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/importers/netcdf/netcdf_importer.h"
#include "tests/importers/netcdf_testutil.h"
#include "tests/test_util.h"

namespace gridstore::formats {
namespace {

using grid::DataSetMeta;
using grid::GridStore;
using grid::Shape4;
using grid::VariableMeta;
using internal_formats::ClassicNetCdfFile;
using testing::ScopedTempDir;

int Format(const std::string& path) {
  int ncid = -1, format = 0;
  EXPECT_EQ(nc_open(path.c_str(), NC_NOWRITE, &ncid), NC_NOERR) << path;
  EXPECT_EQ(nc_inq_format(ncid, &format), NC_NOERR);
  nc_close(ncid);
  return format;
}

// Everything netCDF-C reads from a file, as text: the dimensions, the global attributes, then
// each variable with its type, dimensions, attributes and values (bytes in hex), in file order.
std::string Describe(const std::string& path) {
  int ncid = -1;
  if (nc_open(path.c_str(), NC_NOWRITE, &ncid) != NC_NOERR) return "cannot open " + path;
  std::string out;
  auto hex = [&out](const std::vector<unsigned char>& bytes) {
    static const char* digits = "0123456789abcdef";
    for (unsigned char b : bytes) {
      out += digits[b >> 4];
      out += digits[b & 15];
    }
  };
  auto type_size = [ncid](nc_type type) {
    size_t size = 0;
    nc_inq_type(ncid, type, nullptr, &size);
    return size;
  };
  auto attributes = [&](int varid, int n) {
    for (int i = 0; i < n; ++i) {
      char name[NC_MAX_NAME + 1] = {};
      nc_type type = NC_NAT;
      size_t len = 0;
      nc_inq_attname(ncid, varid, i, name);
      nc_inq_att(ncid, varid, name, &type, &len);
      std::vector<unsigned char> bytes(len * type_size(type));
      nc_get_att(ncid, varid, name, bytes.data());
      out += std::string("  @") + name + " type " + std::to_string(type) + " [" +
             std::to_string(len) + "] ";
      hex(bytes);
      out += "\n";
    }
  };
  int ndims = 0, nvars = 0, natts = 0, unlimited = -1;
  nc_inq(ncid, &ndims, &nvars, &natts, &unlimited);
  for (int d = 0; d < ndims; ++d) {
    char name[NC_MAX_NAME + 1] = {};
    size_t len = 0;
    nc_inq_dim(ncid, d, name, &len);
    out += std::string("dim ") + name + " = " + std::to_string(len) + "\n";
  }
  out += "unlimited " + std::to_string(unlimited) + "\nglobal\n";
  attributes(NC_GLOBAL, natts);
  for (int v = 0; v < nvars; ++v) {
    char name[NC_MAX_NAME + 1] = {};
    nc_type type = NC_NAT;
    int vdims = 0, vatts = 0;
    int dimids[NC_MAX_VAR_DIMS] = {};
    nc_inq_var(ncid, v, name, &type, &vdims, dimids, &vatts);
    out += std::string("var ") + name + " type " + std::to_string(type) + " (";
    size_t values = 1;
    for (int i = 0; i < vdims; ++i) {
      size_t len = 0;
      nc_inq_dimlen(ncid, dimids[i], &len);
      values *= len;
      out += std::to_string(dimids[i]) + " ";
    }
    out += ")\n";
    attributes(v, vatts);
    std::vector<unsigned char> bytes(values * type_size(type));
    out += "  values " + std::to_string(nc_get_var(ncid, v, bytes.data())) + " ";
    hex(bytes);
    out += "\n";
  }
  nc_close(ncid);
  return out;
}

class NetCdfClassicTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = testing::RealDataDir();
    ASSERT_FALSE(data_.empty());
    ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(tmp_.Sub("store"), {.create_if_missing = true}));
  }

  DataSetMeta Import(const std::string& file) {
    importers::NetCdfImportOptions options;
    options.dataset_id = file;
    options.layout.block_x = 64;  // small blocks: boxes cross block edges
    options.layout.block_y = 48;
    EXPECT_OK(importers::ImportNetCdf(store_.get(), (data_ / file).string(), options));
    auto meta = store_->GetDataSetMeta(file);
    EXPECT_OK(meta);
    return meta.ok() ? *meta : DataSetMeta{};
  }

  // Writes `variables` of dataset `id` to `path` slab by slab (at most `slab_values` values each)
  // through a fetcher, as `gridstore fetch -o` does.
  Status Write(const std::string& path, const DataSetMeta& meta,
               const std::vector<ExportVariable>& variables, bool unpacked,
               int64_t classic_max_bytes, int64_t slab_values = 1 << 20) {
    auto fetcher = store_->GetDataFetcher(meta.id);
    if (!fetcher.ok()) return fetcher.status();
    std::optional<grid::GridDataSet> slab;
    const SlabSource source = [&](const std::string& name,
                                  const grid::Box& box) -> Result<const grid::Grid4D*> {
      (*fetcher)->SetVariablesToGet({name});
      (*fetcher)->SetOriginShape(box.origin, box.shape);
      (*fetcher)->set_options({.unpack = unpacked});
      GRIDSTORE_ASSIGN_OR_RETURN(slab, (*fetcher)->Fetch());
      return slab->GetVariable(name);
    };
    return WriteNetCdfSlabs(path, meta, variables, source, slab_values,
                            {.unpacked = unpacked, .classic_max_bytes = classic_max_bytes});
  }

  std::filesystem::path data_;
  ScopedTempDir tmp_;
  std::unique_ptr<GridStore> store_;
};

// A random box of `var` (at least one value along each axis).
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

grid::DataType TypeOf(const VariableMeta& var, bool unpacked) {
  return unpacked ? grid::UnpackedType(var) : var.type;
}

TEST_F(NetCdfClassicTest, EveryRealFileReadsBackAsItsNetCdf4File) {
  std::mt19937 rng(33);
  int classic = 0, cdf2 = 0;
  for (const char* file :
       {"tos_O1_2001-2002.nc", "era5_1995-07-14T12.nc", "small_theta_colpex.nc",
        "SMALL_total_column_co2.nc", "sub.nc", "nc4uvt.nc", "contour.cdf", "reduced.nc"}) {
    SCOPED_TRACE(file);
    const DataSetMeta meta = Import(file);
    ASSERT_FALSE(meta.variables.empty());
    for (bool unpacked : {false, true}) {
      SCOPED_TRACE(unpacked ? "unpacked" : "raw");
      for (int round = 0; round < 3; ++round) {
        // Round 0: every variable whole; then a random box of each, written in small slabs
        // (hyperslabs of every shape), or of one variable alone.
        std::vector<ExportVariable> variables;
        for (const VariableMeta& var : meta.variables) {
          if (round == 2 && !variables.empty()) break;
          ExportVariable ev{var.name, TypeOf(var, unpacked), {0, 0, 0, 0}, var.shape};
          if (round > 0) ev.shape = RandomBox(var, &rng, &ev.origin);
          variables.push_back(ev);
        }
        const int64_t slab_values = round == 1 ? 7 : 1 << 20;
        const std::string nc4 = tmp_.Sub("nc4.nc"), cdf = tmp_.Sub("classic.nc");
        ASSERT_OK(Write(nc4, meta, variables, unpacked, 0, slab_values));
        ASSERT_OK(Write(cdf, meta, variables, unpacked, int64_t{1} << 30, slab_values));
        ASSERT_EQ(Format(nc4), NC_FORMAT_NETCDF4);
        const int format = Format(cdf);
        if (format != NC_FORMAT_NETCDF4) {
          ASSERT_TRUE(format == NC_FORMAT_64BIT_OFFSET || format == NC_FORMAT_CDF5) << format;
          ++classic;
          cdf2 += format == NC_FORMAT_64BIT_OFFSET;
        }
        const std::string described = Describe(cdf);
        ASSERT_NE(described.find("var " + variables[0].name), std::string::npos) << described;
        EXPECT_EQ(described, Describe(nc4)) << "round " << round;
      }
    }
  }
  // Every file's meta has a 64-bit attribute (create_time): CDF-5 for the datasets, CDF-2 below.
  EXPECT_GE(classic, 36) << "most answers should be classic files";
  EXPECT_EQ(cdf2, 0);
}

// Without 64-bit or unsigned types the file is CDF-2 (64-bit offset), which every netCDF reader
// reads (scipy too); values out of a type's range are the same error as netCDF-C's.
TEST_F(NetCdfClassicTest, ClassicTypesMakeCdf2) {
  DataSetMeta meta = Import("sub.nc");
  ASSERT_FALSE(meta.variables.empty());
  meta.attributes.erase("create_time");
  for (auto it = meta.attributes.begin(); it != meta.attributes.end();) {
    const bool wide = it->second.is_number() &&
                      !internal_formats::ClassicType(it->second.number_type()).has_value();
    it = wide ? meta.attributes.erase(it) : std::next(it);
  }
  const VariableMeta& var = meta.variables[0];
  const std::vector<ExportVariable> variables = {{var.name, var.type, {0, 0, 0, 0}, var.shape}};
  const std::string nc4 = tmp_.Sub("nc4.nc"), cdf = tmp_.Sub("cdf2.nc");
  ASSERT_OK(Write(nc4, meta, variables, false, 0));
  ASSERT_OK(Write(cdf, meta, variables, false, int64_t{1} << 30));
  EXPECT_EQ(Format(cdf), NC_FORMAT_64BIT_OFFSET);
  EXPECT_EQ(Describe(cdf), Describe(nc4));
}

// What a classic file cannot hold as the netCDF-4 one does goes to netCDF-4: names netCDF-C
// would normalise or refuse, names it reserves, answers over the bound.
TEST_F(NetCdfClassicTest, WhatClassicCannotHoldStaysNetCdf4) {
  const DataSetMeta meta = Import("tos_O1_2001-2002.nc");
  const VariableMeta* tos = meta.FindVariable("tos");
  ASSERT_NE(tos, nullptr);
  const std::vector<ExportVariable> series = {{"tos", tos->type, {0, 0, 85, 100}, {24, 1, 1, 1}}};
  const std::string out = tmp_.Sub("out.nc");
  ASSERT_OK(Write(out, meta, series, false, int64_t{1} << 30));
  EXPECT_EQ(Format(out), NC_FORMAT_CDF5);
  ASSERT_OK(Write(out, meta, series, false, 95));  // 96 bytes of values: over the bound
  EXPECT_EQ(Format(out), NC_FORMAT_NETCDF4);
  ASSERT_OK(Write(out, meta, series, false, 0));  // 0: never
  EXPECT_EQ(Format(out), NC_FORMAT_NETCDF4);
  for (const char* name : {"caf\xc3\xa9", "_NCProperties", "a/b", "trailing "}) {
    SCOPED_TRACE(name);
    DataSetMeta odd = meta;
    odd.attributes[name] = grid::AttributeValue::String("x");
    const Status s = Write(out, odd, series, false, int64_t{1} << 30);
    if (s.ok()) {  // (netCDF-C may refuse it instead)
      EXPECT_EQ(Format(out), NC_FORMAT_NETCDF4);
    }
  }
}

TEST_F(NetCdfClassicTest, FailuresLeaveNoFile) {
  const DataSetMeta meta = Import("tos_O1_2001-2002.nc");
  const VariableMeta* tos = meta.FindVariable("tos");
  ASSERT_NE(tos, nullptr);
  const std::vector<ExportVariable> series = {{"tos", tos->type, {0, 0, 85, 100}, {24, 1, 1, 1}}};
  // A folder that does not exist: the path is named, nothing is made.
  const std::string nowhere = tmp_.Sub("missing/out.nc");
  EXPECT_STATUS(Write(nowhere, meta, series, false, int64_t{1} << 30), kFailedPrecondition,
                "missing/out.nc");
  // A fetch that fails: its error, and no file (nor temporary) left.
  const std::string out = tmp_.Sub("failed.nc");
  const SlabSource failing = [](const std::string&,
                                const grid::Box&) -> Result<const grid::Grid4D*> {
    return Status::DataLoss("block 7 is damaged");
  };
  EXPECT_STATUS(WriteNetCdfSlabs(out, meta, series, failing, 1 << 20,
                                 {.classic_max_bytes = int64_t{1} << 30}),
                kDataLoss, "block 7");
  for (const auto& entry : std::filesystem::directory_iterator(tmp_.path())) {
    EXPECT_EQ(entry.path().filename().string().find("failed.nc"), std::string::npos)
        << entry.path();
  }
  // A variable fetched in another type than stored is refused before anything is written.
  const std::vector<ExportVariable> wrong = {
      {"tos", grid::DataType::kInt16, {0, 0, 0, 0}, {1, 1, 1, 1}}};
  EXPECT_STATUS(Write(out, meta, wrong, false, int64_t{1} << 30), kInvalidArgument, "int16");
  EXPECT_FALSE(std::filesystem::exists(out));
}

// The file answers misuse with netCDF-C's codes and words.
TEST(ClassicNetCdfFileTest, AnswersNetCdfErrorCodes) {
  ClassicNetCdfFile file(ClassicNetCdfFile::Kind::kCdf2);
  int x = -1, y = -1, v = -1, id = -1;
  EXPECT_EQ(file.DefDim("x", 0, &id), NC_EDIMSIZE);  // 0 marks the record dimension
  EXPECT_EQ(file.DefDim("bad/name", 2, &id), NC_EBADNAME);
  ASSERT_EQ(file.DefDim("x", 2, &x), NC_NOERR);
  EXPECT_EQ(file.DefDim("x", 3, &id), NC_ENAMEINUSE);
  ASSERT_EQ(file.DefDim("y", 3, &y), NC_NOERR);
  const int dims[2] = {x, y};
  EXPECT_EQ(file.DefVar("w", NC_INT64, 2, dims, &id), NC_EBADTYPE);  // CDF-5 only
  const int bad_dims[1] = {9};
  EXPECT_EQ(file.DefVar("w", NC_FLOAT, 1, bad_dims, &id), NC_EBADDIM);
  ASSERT_EQ(file.DefVar("v", NC_SHORT, 2, dims, &v), NC_NOERR);
  const float one = 1;
  EXPECT_EQ(file.PutAtt(v, "_FillValue", NC_FLOAT, 1, &one), NC_EBADTYPE);
  const short two[2] = {1, 2};
  EXPECT_EQ(file.PutAtt(v, "_FillValue", NC_SHORT, 2, two), NC_EINVAL);
  EXPECT_EQ(file.PutAtt(7, "units", NC_SHORT, 1, two), NC_ENOTVAR);
  const size_t start[2] = {0, 0}, count[2] = {2, 3};
  const short values[6] = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(file.PutVara(v, start, count, values), NC_EINDEFINE);
  ASSERT_EQ(file.EndDef(), NC_NOERR);
  EXPECT_EQ(file.DefDim("z", 2, &id), NC_ENOTINDEFINE);
  EXPECT_EQ(file.PutAttText(NC_GLOBAL, "title", 1, "t"), NC_ENOTINDEFINE);
  const size_t past[2] = {1, 0};
  EXPECT_EQ(file.PutVara(v, past, count, values), NC_EEDGE);
  const size_t beyond[2] = {3, 0};
  EXPECT_EQ(file.PutVara(v, beyond, count, values), NC_EINVALCOORDS);
  const double doubles[6] = {1, 2, 3, 4, 5, 1e6};
  EXPECT_EQ(file.PutVarDouble(v, doubles), NC_ERANGE);  // 1e6 is no short, as in netCDF-C
  EXPECT_STREQ(file.StrError(NC_ERANGE), nc_strerror(NC_ERANGE));
  EXPECT_STREQ(file.StrError(NC_EEDGE), nc_strerror(NC_EEDGE));
  EXPECT_STREQ(file.StrError(NC_EBADTYPE), nc_strerror(NC_EBADTYPE));
  ASSERT_EQ(file.PutVara(v, start, count, values), NC_NOERR);

  // The bytes are a file netCDF-C reads.
  ScopedTempDir dir;
  const std::string path = dir.Sub("unit.nc");
  FILE* f = std::fopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(std::fwrite(file.bytes().data(), 1, file.bytes().size(), f), file.bytes().size());
  std::fclose(f);
  int ncid = -1;
  ASSERT_NC(nc_open(path.c_str(), NC_NOWRITE, &ncid));
  short back[6] = {};
  ASSERT_NC(nc_get_var_short(ncid, v, back));
  nc_close(ncid);
  EXPECT_EQ(std::memcmp(back, values, sizeof(values)), 0);
}

}  // namespace
}  // namespace gridstore::formats
