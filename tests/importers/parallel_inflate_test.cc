// Copyright 2026 The GridStore Authors.
//
// The parallel chunk reader (importers/netcdf/internal/chunk_plane_reader.h) against netCDF-C, on
// the real files of $GRIDSTORE_TEST_DATA rewritten as netCDF-4 with deflate, shuffle, chunks that
// do and do not line up with planes and blocks, partial edge chunks, chunks never written and
// big-endian storage: each is imported with parallel inflate on and off, and every value is
// compared with the other import and with nc_get_var. Then damaged files: a clear error naming
// the file and the variable, and nothing left in the store.
#include <gtest/gtest.h>
#include <netcdf.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gridstore/grid/grid_store.h"
#include "gridstore/importers/netcdf/internal/chunk_decoder.h"
#include "gridstore/importers/netcdf/internal/hdf5_chunk_index.h"
#include "gridstore/importers/netcdf/internal/netcdf_util.h"
#include "gridstore/importers/netcdf/netcdf_importer.h"
#include "tests/importers/netcdf_testutil.h"
#include "tests/test_stores.h"
#include "tests/test_util.h"

namespace gridstore::importers {
namespace {

using grid::DataSetMeta;
using grid::GridStore;
using grid::VariableMeta;
using internal_importers::ChunkCoding;
using internal_importers::ChunkDecoder;
using internal_importers::ChunkFilter;
using testing::ScopedTempDir;

std::filesystem::path InflateDataDir() {
  const char* env = std::getenv("GRIDSTORE_TEST_DATA");
  EXPECT_TRUE(env != nullptr && std::filesystem::is_directory(env))
      << "GRIDSTORE_TEST_DATA must name the folder of real NetCDF files (../shared/data)";
  return env == nullptr ? std::filesystem::path() : std::filesystem::path(env);
}

// How a file is rewritten: chunk extents along (t, z, x, y) (clamped to the dimensions; a
// variable of 3 dimensions takes t for its first, of 2 only x and y), filters, byte order, and
// whether some chunks are left unwritten (record 1 entirely, and half of record 2's rows).
struct Rewrite {
  std::array<size_t, 4> chunk{1, 1, 256, 256};
  int deflate = 1;  // level; 0: no deflate
  bool shuffle = true;
  bool big_endian = false;
  bool leave_unwritten = false;
  bool no_fill = false;
  bool fletcher32 = false;
};

// Copies every variable of `src` into a new netCDF-4 file `dst`: variables of 2 or more
// dimensions chunked and filtered as `rw` says, the rest as they are, with every attribute.
void RewriteNetCdf4(const std::string& src, const std::string& dst, const Rewrite& rw) {
  int in, out, ndims, nvars, unlimited;
  ASSERT_NC(nc_open(src.c_str(), NC_NOWRITE, &in));
  ASSERT_NC(nc_create(dst.c_str(), NC_NETCDF4 | NC_CLOBBER, &out));
  ASSERT_NC(nc_inq(in, &ndims, &nvars, nullptr, &unlimited));
  for (int d = 0; d < ndims; ++d) {
    char name[NC_MAX_NAME + 1];
    size_t len;
    int id;
    ASSERT_NC(nc_inq_dim(in, d, name, &len));
    ASSERT_NC(nc_def_dim(out, name, d == unlimited ? NC_UNLIMITED : len, &id));
    ASSERT_EQ(id, d);
  }
  for (int v = 0; v < nvars; ++v) {
    char name[NC_MAX_NAME + 1];
    nc_type type;
    int rank, dims[NC_MAX_VAR_DIMS], natts, id;
    ASSERT_NC(nc_inq_var(in, v, name, &type, &rank, dims, &natts));
    ASSERT_NC(nc_def_var(out, name, type, rank, dims, &id));
    for (int a = 0; a < natts; ++a) {
      char att[NC_MAX_NAME + 1];
      ASSERT_NC(nc_inq_attname(in, v, a, att));
      ASSERT_NC(nc_copy_att(in, v, att, out, id));
    }
    if (rank < 2 || type == NC_CHAR || type == NC_STRING) continue;
    std::vector<size_t> chunk(static_cast<size_t>(rank));
    for (int i = 0; i < rank; ++i) {
      size_t len;
      ASSERT_NC(nc_inq_dimlen(in, dims[i], &len));
      const size_t axis = static_cast<size_t>(4 - rank + i);
      chunk[static_cast<size_t>(i)] =
          std::clamp<size_t>(rw.chunk[axis], 1, std::max<size_t>(len, 1));
    }
    ASSERT_NC(nc_def_var_chunking(out, id, NC_CHUNKED, chunk.data()));
    if (rw.deflate > 0 || rw.shuffle) {
      ASSERT_NC(nc_def_var_deflate(out, id, rw.shuffle, rw.deflate > 0, rw.deflate));
    }
    if (rw.big_endian) ASSERT_NC(nc_def_var_endian(out, id, NC_ENDIAN_BIG));
    if (rw.no_fill) ASSERT_NC(nc_def_var_fill(out, id, NC_NOFILL, nullptr));
    if (rw.fletcher32) ASSERT_NC(nc_def_var_fletcher32(out, id, NC_FLETCHER32));
  }
  ASSERT_NC(nc_enddef(out));
  for (int v = 0; v < nvars; ++v) {
    nc_type type;
    int rank, dims[NC_MAX_VAR_DIMS];
    ASSERT_NC(nc_inq_var(in, v, nullptr, &type, &rank, dims, nullptr));
    if (type == NC_STRING) continue;
    size_t type_size;
    ASSERT_NC(nc_inq_type(in, type, nullptr, &type_size));
    std::vector<size_t> start(static_cast<size_t>(rank), 0), count(static_cast<size_t>(rank));
    size_t values = 1;
    for (int i = 0; i < rank; ++i) {
      ASSERT_NC(nc_inq_dimlen(in, dims[i], &count[static_cast<size_t>(i)]));
      values *= count[static_cast<size_t>(i)];
    }
    if (values == 0) continue;
    std::vector<char> data(values * type_size);
    ASSERT_NC(nc_get_var(in, v, data.data()));
    if (!rw.leave_unwritten || rank < 2 || count[0] < 3) {
      ASSERT_NC(nc_put_vara(out, v, start.data(), count.data(), data.data()));  // unlimited too
      continue;
    }
    // Record by record along the first dimension: record 1 never written, record 2 half.
    const size_t record = values / count[0];
    const size_t n0 = count[0];
    for (size_t r = 0; r < n0; ++r) {
      if (r == 1) continue;
      start[0] = r;
      count[0] = 1;
      std::vector<size_t> part = count;
      if (r == 2) part[1] = std::max<size_t>(1, count[1] / 2);
      const char* from = data.data() + r * record * type_size;
      std::vector<char> slab(from, from + record * type_size);
      if (r == 2) {
        // The first half of dimension 1: a prefix of the record.
        size_t inner = 1;
        for (size_t i = 2; i < part.size(); ++i) inner *= part[i];
        slab.resize(part[1] * inner * type_size);
      }
      ASSERT_NC(nc_put_vara(out, v, start.data(), (r == 2 ? part : count).data(), slab.data()));
    }
  }
  ASSERT_NC(nc_close(out));
  ASSERT_NC(nc_close(in));
}

// A whole variable through netCDF-C, in its own type (dimensions are in (t, z, x, y) order).
std::vector<char> ReadWhole(const std::string& path, const VariableMeta& var) {
  int ncid, varid;
  std::vector<char> out(static_cast<size_t>(var.num_elements()) * grid::DataTypeSize(var.type));
  EXPECT_EQ(nc_open(path.c_str(), NC_NOWRITE, &ncid), NC_NOERR);
  EXPECT_EQ(nc_inq_varid(ncid, var.name.c_str(), &varid), NC_NOERR);
  EXPECT_EQ(nc_get_var(ncid, varid, out.data()), NC_NOERR) << var.name;
  nc_close(ncid);
  return out;
}

class ParallelInflateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = InflateDataDir();
    ASSERT_FALSE(data_.empty());
    ASSERT_OK_AND_ASSIGN(store_, GridStore::Open(TestStoreUri(tmp_), {.create_if_missing = true}));
  }

  Result<ImportSummary> Import(const std::string& path, const std::string& id, bool parallel,
                               size_t budget = 256ull << 20) {
    NetCdfImportOptions options;
    options.dataset_id = id;
    options.layout.block_x = 64;  // blocks that do not line up with the chunks
    options.layout.block_y = 48;
    options.parallel_inflate = parallel;
    options.memory_budget_bytes = budget;
    options.inflate_threads = inflate_threads_;
    return ImportNetCdf(store_.get(), path, options);
  }

  std::vector<char> Fetch(const std::string& id, const VariableMeta& var) {
    auto fetcher = store_->GetDataFetcher(id);
    EXPECT_OK(fetcher);
    if (!fetcher.ok()) return {};
    (*fetcher)->SetVariablesToGet({var.name});
    (*fetcher)->SetOriginShape({0, 0, 0, 0}, var.shape);
    auto got = (*fetcher)->Fetch();
    EXPECT_OK(got);
    if (!got.ok()) return {};
    const grid::Grid4D* g = got->GetVariable(var.name);
    return std::vector<char>(g->bytes(), g->bytes() + g->size_bytes());
  }

  // Rewrites `file` as `rw` says, imports it both ways and compares every value.
  void ExpectSameBothWays(const std::string& file, const Rewrite& rw) {
    const std::string path = tmp_.Sub("rewritten_" + file + ".nc");
    RewriteNetCdf4((data_ / file).string(), path, rw);
    const std::string id = file + std::to_string(round_++);
    ASSERT_OK_AND_ASSIGN(ImportSummary parallel, Import(path, id + "/parallel", true));
    ASSERT_OK_AND_ASSIGN(ImportSummary netcdf, Import(path, id + "/netcdf", false));
    EXPECT_EQ(parallel.planes_from_chunks, parallel.planes) << "not every plane from chunks";
    EXPECT_EQ(netcdf.planes_from_chunks, 0);
    EXPECT_EQ(parallel.stored_bytes, netcdf.stored_bytes);  // same blocks, same dictionary
    ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta(id + "/parallel"));
    for (const VariableMeta& var : meta.variables) {
      SCOPED_TRACE(var.name);
      const std::vector<char> from_chunks = Fetch(id + "/parallel", var);
      const std::vector<char> from_netcdf = Fetch(id + "/netcdf", var);
      const std::vector<char> want = ReadWhole(path, var);
      ASSERT_EQ(from_chunks.size(), want.size());
      EXPECT_TRUE(from_chunks == want) << "the parallel path differs from nc_get_var";
      EXPECT_TRUE(from_netcdf == want) << "the netCDF-C path differs from nc_get_var";
    }
  }

  std::filesystem::path data_;
  ScopedTempDir tmp_;
  std::unique_ptr<GridStore> store_;
  int round_ = 0;
  int inflate_threads_ = 0;  // one per core
};

TEST_F(ParallelInflateTest, PlaneChunksWithDeflateAndShuffleMatchNetCdf) {
  ExpectSameBothWays("tos_O1_2001-2002.nc", {.chunk = {1, 1, 256, 256}});
  ExpectSameBothWays("SMALL_total_column_co2.nc", {.chunk = {1, 1, 256, 256}});  // shorts
  ExpectSameBothWays("era5_1995-07-14T12.nc", {.chunk = {1, 1, 256, 256}});      // 2-D, NaN fill
}

TEST_F(ParallelInflateTest, ChunksAcrossPlanesAndBlocksWithEdgeChunksMatchNetCdf) {
  ExpectSameBothWays("tos_O1_2001-2002.nc", {.chunk = {5, 1, 37, 50}, .deflate = 4});
  ExpectSameBothWays("small_theta_colpex.nc", {.chunk = {2, 3, 40, 30}, .deflate = 2});
  ExpectSameBothWays("contour.cdf", {.chunk = {3, 4, 10, 7}});  // with 2-D ints (7 x 10)
  ExpectSameBothWays("sub.nc", {.chunk = {3, 2, 4, 4}});
  ExpectSameBothWays("SMALL_total_column_co2.nc", {.chunk = {4, 1, 50, 64}, .deflate = 9});
}

TEST_F(ParallelInflateTest, DeflateOnlyShuffleOnlyAndUnfilteredChunksMatchNetCdf) {
  ExpectSameBothWays("tos_O1_2001-2002.nc", {.chunk = {1, 1, 64, 64}, .shuffle = false});
  ExpectSameBothWays("tos_O1_2001-2002.nc", {.chunk = {2, 1, 40, 40}, .deflate = 0});
  ExpectSameBothWays("contour.cdf", {.chunk = {2, 2, 16, 16}, .deflate = 0, .shuffle = false});
}

TEST_F(ParallelInflateTest, BigEndianChunksMatchNetCdf) {
  ExpectSameBothWays("tos_O1_2001-2002.nc", {.chunk = {1, 1, 64, 64}, .big_endian = true});
  ExpectSameBothWays("SMALL_total_column_co2.nc", {.chunk = {3, 1, 64, 64}, .big_endian = true});
  ExpectSameBothWays("contour.cdf",
                     {.chunk = {2, 3, 16, 20}, .shuffle = false, .big_endian = true});
  ExpectSameBothWays("era5_1995-07-14T12.nc",
                     {.chunk = {1, 1, 50, 100}, .deflate = 0, .big_endian = true});
}

// Chunks never written read as netCDF-C gives them: the _FillValue, or the default fill. (With
// fill mode off, netCDF-C leaves such values undefined: it does not write the reader's buffer,
// so only files written whole are compared then.)
TEST_F(ParallelInflateTest, ChunksNeverWrittenReadAsNetCdfFill) {
  ExpectSameBothWays("tos_O1_2001-2002.nc", {.chunk = {1, 1, 50, 60}, .leave_unwritten = true});
  ExpectSameBothWays("contour.cdf", {.chunk = {1, 2, 11, 12}, .leave_unwritten = true});
  ExpectSameBothWays("SMALL_total_column_co2.nc", {.chunk = {2, 1, 64, 64}, .no_fill = true});
}

// A filter this path does not decode (here fletcher32 beside deflate and shuffle) sends the
// variable through netCDF-C, with the same values.
TEST_F(ParallelInflateTest, OtherFiltersAreReadThroughNetCdf) {
  const std::string path = tmp_.Sub("tos_fletcher32.nc");
  RewriteNetCdf4((data_ / "tos_O1_2001-2002.nc").string(), path,
                 {.chunk = {1, 1, 64, 64}, .fletcher32 = true});
  ASSERT_OK_AND_ASSIGN(ImportSummary s, Import(path, "fletcher32", true));
  EXPECT_EQ(s.planes_from_chunks, 0);
  EXPECT_EQ(s.planes, 24);
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("fletcher32"));
  EXPECT_TRUE(Fetch("fletcher32", meta.variables[0]) == ReadWhole(path, meta.variables[0]));
}

// The memory budget holds on the parallel path as on netCDF-C's, with any number of threads.
TEST_F(ParallelInflateTest, PeakStaysWithinABudgetOfAFewPlanes) {
  const std::string path = tmp_.Sub("tos_plane_chunks.nc");
  RewriteNetCdf4((data_ / "tos_O1_2001-2002.nc").string(), path, {.chunk = {1, 1, 85, 90}});
  const size_t plane = 170 * 180 * 4;
  for (int threads : {0, 1, 3}) {
    inflate_threads_ = threads;
    const std::string id = "small-budget-" + std::to_string(threads);
    ASSERT_OK_AND_ASSIGN(ImportSummary s, Import(path, id, true, 10 * plane));
    EXPECT_EQ(s.planes_from_chunks, 24);
    EXPECT_LE(s.peak_buffered_bytes, 10 * plane);
    EXPECT_GT(s.peak_buffered_bytes, 0u);
    ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta(id));
    EXPECT_TRUE(Fetch(id, meta.variables[0]) == ReadWhole(path, meta.variables[0]));
  }
}

// Chunks deeper along t than the budget can hold twice go through netCDF-C, within the budget.
TEST_F(ParallelInflateTest, ChunksTooDeepForTheBudgetAreReadThroughNetCdf) {
  const std::string path = tmp_.Sub("tos_deep_chunks.nc");
  RewriteNetCdf4((data_ / "tos_O1_2001-2002.nc").string(), path, {.chunk = {24, 1, 170, 180}});
  const size_t plane = 170 * 180 * 4;
  ASSERT_OK_AND_ASSIGN(ImportSummary s, Import(path, "deep", true, 8 * plane));
  EXPECT_EQ(s.planes_from_chunks, 0);
  EXPECT_LE(s.peak_buffered_bytes, 8 * plane);
  ASSERT_OK_AND_ASSIGN(ImportSummary whole, Import(path, "deep-default-budget", true));
  EXPECT_EQ(whole.planes_from_chunks, 24);  // with the default budget they fit
  ASSERT_OK_AND_ASSIGN(DataSetMeta meta, store_->GetDataSetMeta("deep"));
  const std::vector<char> want = ReadWhole(path, meta.variables[0]);
  EXPECT_TRUE(Fetch("deep", meta.variables[0]) == want);
  EXPECT_TRUE(Fetch("deep-default-budget", meta.variables[0]) == want);
}

// Where `path`'s variable `name` keeps its chunks, through the importer's own listing.
internal_importers::ChunkIndex ListFileChunks(const std::string& path, const std::string& name) {
  EXPECT_OK(internal_importers::LoadNetCdf());
  int ncid, varid;
  if (nc_open(path.c_str(), NC_NOWRITE, &ncid) != NC_NOERR) {
    ADD_FAILURE() << "cannot open " << path;
    return {};
  }
  if (nc_inq_varid(ncid, name.c_str(), &varid) != NC_NOERR) {
    ADD_FAILURE() << path << " has no variable '" << name << "'";
    nc_close(ncid);
    return {};
  }
  internal_importers::NcVariable v;
  v.id = varid;
  v.name = name;
  int dims[NC_MAX_VAR_DIMS], rank;
  EXPECT_EQ(nc_inq_var(ncid, varid, nullptr, nullptr, &rank, dims, nullptr), NC_NOERR);
  for (int i = 0; i < rank; ++i) {
    size_t len;
    nc_inq_dimlen(ncid, dims[i], &len);
    v.dim_lengths.push_back(len);
  }
  std::string why_not;
  std::optional<internal_importers::ChunkIndex> index;
  {
    internal_importers::NetCdfLock lock(internal_importers::NetCdfMutex());
    index = internal_importers::ListChunks(ncid, path, v, 4, 1 << 20, &why_not);
  }
  nc_close(ncid);
  EXPECT_TRUE(index.has_value()) << why_not;
  return index ? *index : internal_importers::ChunkIndex{};
}

void FlipBytes(const std::string& path, uint64_t offset, size_t n) {
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  std::vector<char> bytes(n);
  f.seekg(static_cast<std::streamoff>(offset));
  f.read(bytes.data(), static_cast<std::streamsize>(n));
  for (char& b : bytes) b = static_cast<char>(~b);
  f.seekp(static_cast<std::streamoff>(offset));
  f.write(bytes.data(), static_cast<std::streamsize>(n));
}

TEST_F(ParallelInflateTest, CorruptChunkIsDataLossNamingFileVariableAndChunk) {
  const std::string path = tmp_.Sub("tos_corrupt.nc");
  RewriteNetCdf4((data_ / "tos_O1_2001-2002.nc").string(), path, {.chunk = {1, 1, 256, 256}});
  const internal_importers::ChunkIndex index = ListFileChunks(path, "tos");
  ASSERT_EQ(index.chunks.size(), 24u);
  const internal_importers::StoredChunk& c = index.chunks[5];
  ASSERT_GT(c.size, 64u);
  FlipBytes(path, c.address + c.size / 2, 16);
  EXPECT_STATUS(Import(path, "corrupt", true), kDataLoss, path, "variable 'tos'",
                "the chunk at t 5, z 0, x 0, y 0", "deflate");
  EXPECT_STATUS(store_->GetDataSetMeta("corrupt"), kNotFound);
  // netCDF-C refuses it too (its own words).
  EXPECT_STATUS(Import(path, "corrupt", false), kDataLoss, path);
  ASSERT_OK_AND_ASSIGN(auto datasets, store_->ListDataSets());
  EXPECT_TRUE(datasets.empty());
}

TEST_F(ParallelInflateTest, TruncatedFileIsAnErrorNamingTheFileWithNothingWritten) {
  const std::string path = tmp_.Sub("tos_truncated.nc");
  RewriteNetCdf4((data_ / "tos_O1_2001-2002.nc").string(), path, {.chunk = {1, 1, 256, 256}});
  const internal_importers::ChunkIndex index = ListFileChunks(path, "tos");
  ASSERT_EQ(index.chunks.size(), 24u);
  std::filesystem::resize_file(path, index.chunks[20].address + 10);
  const Status s = Import(path, "truncated", true).status();
  EXPECT_FALSE(s.ok());
  EXPECT_NE(std::string(s.message()).find(path), std::string::npos) << s;
  EXPECT_STATUS(store_->GetDataSetMeta("truncated"), kNotFound);
}

// HDF5's shuffle undone, against the definition, with trailing bytes that make no element.
TEST(ChunkDecoderTest, UnshuffleMatchesHdf5Definition) {
  for (size_t es : {1u, 2u, 3u, 4u, 8u}) {
    for (size_t n : {0u, 1u, 7u, 64u, 1001u}) {
      std::vector<char> plain(n), shuffled(n), back(n);
      for (size_t i = 0; i < n; ++i) plain[i] = static_cast<char>(i * 37 + es);
      const size_t count = n / es;
      shuffled = plain;
      if (es > 1 && count > 1) {
        for (size_t i = 0; i < count; ++i) {
          for (size_t b = 0; b < es; ++b) shuffled[b * count + i] = plain[i * es + b];
        }
      }
      internal_importers::UnshuffleBytes(shuffled.data(), n, es, back.data());
      EXPECT_TRUE(back == plain) << "element size " << es << ", " << n << " bytes";
    }
  }
}

// A filter recorded as skipped for a chunk (HDF5's filter mask) is not undone; big-endian
// values are swapped; a damaged deflate stream is DataLoss.
TEST(ChunkDecoderTest, FilterMaskByteOrderAndDamage) {
  ASSERT_OK(internal_importers::LoadLibdeflate());
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<ChunkDecoder> decoder, ChunkDecoder::Create());
  ChunkCoding coding;
  coding.filters = {{ChunkFilter::Kind::kShuffle, 4}, {ChunkFilter::Kind::kDeflate, 0}};
  coding.element_size = 4;
  coding.chunk_bytes = 16;
  const char plain[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  const char shuffled[16] = {1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 4, 8, 12, 16};
  char out[16];
  ASSERT_OK(decoder->Decode(coding, 0b10, std::string_view(shuffled, 16), out));  // no deflate
  EXPECT_EQ(std::memcmp(out, plain, 16), 0);
  ASSERT_OK(decoder->Decode(coding, 0b11, std::string_view(plain, 16), out));  // neither
  EXPECT_EQ(std::memcmp(out, plain, 16), 0);
  coding.big_endian = true;
  ASSERT_OK(decoder->Decode(coding, 0b11, std::string_view(plain, 16), out));
  const char swapped[16] = {4, 3, 2, 1, 8, 7, 6, 5, 12, 11, 10, 9, 16, 15, 14, 13};
  EXPECT_EQ(std::memcmp(out, swapped, 16), 0);
  EXPECT_STATUS(decoder->Decode(coding, 0b01, std::string_view(plain, 16), out), kDataLoss,
                "corrupt deflate stream");
  EXPECT_STATUS(decoder->Decode(coding, 0b11, std::string_view(plain, 12), out), kDataLoss,
                "12 bytes");
}

}  // namespace
}  // namespace gridstore::importers
