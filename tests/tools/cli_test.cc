// Copyright 2026 The GridStore Authors.
//
// End-to-end tests of the `gridstore` command: the real binary on real RocksDB stores and NetCDF
// files (generated here through netCDF-C, and the real ones in $GRIDSTORE_TEST_DATA), outputs read
// back with netCDF-C and compared value by value; every bad input gets a specific message, exit
// status 1, and leaves nothing half-made.
#include <netcdf.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>

#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/model/internal/grid_keys.h"
#include "tests/test_util.h"
#include "tests/tools/cli_testutil.h"
#include "tests/tools/nc_testutil.h"

namespace gridstore {
namespace {

namespace fs = std::filesystem;
using testing::ScopedTempDir;

using testing::ExpectCliError;
using testing::NpyData;
using testing::ReadFile;
using testing::RunGridStore;
using testing::RunResult;
using testing::ShellQuote;

class CliTest : public ::testing::Test {
 protected:
  std::string store() const { return dir_.Sub("store"); }

  // Runs `gridstore --store STORE args...` (optionally as the unprivileged user "nobody").
  RunResult Run(const std::vector<std::string>& args, bool as_nobody = false) {
    return RunGridStore(dir_.path().string(), store(), args, "",
                        as_nobody ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "");
  }

  void ExpectError(const RunResult& r, std::initializer_list<std::string> parts) {
    ExpectCliError(r, parts);
  }

  // A netCDF-4 file with float T(time 3, level 4, lat 20, lon 30) and short ps(time, lat, lon),
  // packed, with coordinates. Returns the values of T as written.
  std::string MakeFile(const std::string& name) {
    const std::string path = dir_.Sub(name);
    int nc, d[4], v[6];
    EXPECT_EQ(nc_create(path.c_str(), NC_NETCDF4 | NC_CLOBBER, &nc), NC_NOERR);
    const char* dims[] = {"time", "level", "lat", "lon"};
    const size_t sizes[] = {3, 4, 20, 30};
    for (int i = 0; i < 4; ++i) nc_def_dim(nc, dims[i], sizes[i], &d[i]);
    nc_def_var(nc, "time", NC_DOUBLE, 1, &d[0], &v[0]);
    nc_put_att_text(nc, v[0], "units", 27, "hours since 2026-11-21 00:00");
    nc_def_var(nc, "level", NC_FLOAT, 1, &d[1], &v[1]);
    nc_put_att_text(nc, v[1], "units", 3, "hPa");
    nc_put_att_text(nc, v[1], "positive", 4, "down");
    nc_def_var(nc, "lat", NC_FLOAT, 1, &d[2], &v[2]);
    nc_def_var(nc, "lon", NC_FLOAT, 1, &d[3], &v[3]);
    nc_def_var(nc, "T", NC_FLOAT, 4, d, &v[4]);
    nc_put_att_text(nc, v[4], "units", 1, "K");
    int ps_dims[] = {d[0], d[2], d[3]};
    nc_def_var(nc, "ps", NC_SHORT, 3, ps_dims, &v[5]);
    double scale = 0.5, offset = 1000;
    short fill = -32767;
    nc_put_att_double(nc, v[5], "scale_factor", NC_DOUBLE, 1, &scale);
    nc_put_att_double(nc, v[5], "add_offset", NC_DOUBLE, 1, &offset);
    nc_put_att_short(nc, v[5], "_FillValue", NC_SHORT, 1, &fill);
    nc_enddef(nc);
    double time[] = {0, 6, 12};
    float level[] = {1000, 850, 500, 250};
    std::vector<float> lat(20), lon(30), t(3 * 4 * 20 * 30);
    std::vector<short> ps(3 * 20 * 30);
    for (int i = 0; i < 20; ++i) lat[i] = -45.f + 5.f * i;
    for (int i = 0; i < 30; ++i) lon[i] = 12.f * i;
    for (size_t i = 0; i < t.size(); ++i) t[i] = 200.f + 0.25f * static_cast<float>(i % 977);
    for (size_t i = 0; i < ps.size(); ++i) ps[i] = static_cast<short>(i % 400) - 200;
    ps[7] = fill;
    nc_put_var_double(nc, v[0], time);
    nc_put_var_float(nc, v[1], level);
    nc_put_var_float(nc, v[2], lat.data());
    nc_put_var_float(nc, v[3], lon.data());
    nc_put_var_float(nc, v[4], t.data());
    nc_put_var_short(nc, v[5], ps.data());
    EXPECT_EQ(nc_close(nc), NC_NOERR);
    return path;
  }

  bool StoreHasDataSets() {
    auto s = grid::GridStore::Open(store(), {.read_only = true});
    if (!s.ok()) return false;
    auto list = (*s)->ListDataSets();
    return list.ok() && !list->empty();
  }

  ScopedTempDir dir_;
};

// Reads the hyperslab of `var` (netCDF dimension order) from `path` as raw bytes of its type.
std::string NcRead(const std::string& path, const std::string& var,
                   const std::vector<size_t>& start, const std::vector<size_t>& count) {
  int nc, id;
  nc_type type;
  size_t size;
  if (nc_open(path.c_str(), NC_NOWRITE, &nc) != NC_NOERR) return "<cannot open>";
  nc_inq_varid(nc, var.c_str(), &id);
  nc_inq_vartype(nc, id, &type);
  nc_inq_type(nc, type, nullptr, &size);
  size_t n = 1;
  for (size_t c : count) n *= c;
  std::string bytes(n * size, '\0');
  int rc = nc_get_vara(nc, id, start.data(), count.data(), bytes.data());
  nc_close(nc);
  return rc == NC_NOERR ? bytes : "<read error>";
}

TEST_F(CliTest, ImportInfoFetchEveryFormatDeleteRoundTrip) {
  const std::string file = MakeFile("in.nc");
  RunResult r = Run({"import", file, "--dataset", "run/1", "--attr", "source=TEST", "--block",
                     "8x16", "--codec", "zstd:5"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("imported 'run/1'"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("2 variable(s), 15 plane(s)"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("compression ratio"));
  EXPECT_THAT(r.err, ::testing::HasSubstr("progress: 100%"));  // plain lines: not a terminal

  r = Run({"info", "run/1", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto info = nlohmann::json::parse(r.out);
  EXPECT_EQ(info["status"], "DONE");
  EXPECT_EQ(info["layout"]["codec"], "zstd:5");
  EXPECT_EQ(info["layout"]["block_x"], 8);
  EXPECT_EQ(info["attributes"]["source"], "TEST");
  EXPECT_TRUE(info["attributes"]["create_time"].is_number_integer());
  r = Run({"info", "run/1"});
  EXPECT_THAT(r.out, ::testing::HasSubstr("ps  int16  [t=3 (time), z=1, x=20 (lat), y=30 (lon)]"));

  // npy: the stored type, compared with netCDF-C's hyperslab.
  r = Run({"fetch", "run/1", "--variables", "T", "--origin", "1,1,3,5", "--shape", "2,3,10,20",
           "-o", dir_.Sub("t.npy")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(NpyData(ReadFile(dir_.Sub("t.npy"))), NcRead(file, "T", {1, 1, 3, 5}, {2, 3, 10, 20}));
  r = Run({"fetch", "run/1", "--variables", "ps", "--format", "npy"});  // whole variable, stdout
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(NpyData(r.out), NcRead(file, "ps", {0, 0, 0}, {3, 20, 30}));

  // nc: read back with netCDF-C; dimensions sized to the slice, coordinates sliced.
  r = Run({"fetch", "run/1", "--variables", "T", "--origin", "0,2,4,0", "--shape", "3,2,5,30", "-o",
           dir_.Sub("t.nc")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(NcRead(dir_.Sub("t.nc"), "T", {0, 0, 0, 0}, {3, 2, 5, 30}),
            NcRead(file, "T", {0, 2, 4, 0}, {3, 2, 5, 30}));
  EXPECT_EQ(NcRead(dir_.Sub("t.nc"), "lat", {0}, {5}), NcRead(file, "lat", {4}, {5}));
  EXPECT_EQ(NcRead(dir_.Sub("t.nc"), "level", {0}, {2}), NcRead(file, "level", {2}, {2}));

  // csv and json with coordinate values per row.
  r = Run({"fetch", "run/1", "--variables", "T", "--origin", "2,3,19,29", "--shape", "1,1,1,1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out,
              ::testing::HasSubstr("@t,@z,@x,@y,time,level,lat,lon,T\n2,3,19,29,12,250,50,348,"));
  r = Run({"fetch", "run/1", "--variables", "ps", "--shape", "1,1,1,8", "--unpack", "--format",
           "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto rows = nlohmann::json::parse(r.out)["rows"];
  ASSERT_EQ(rows.size(), 8u);
  EXPECT_EQ(rows[0]["ps"], 900.0);       // -200 * 0.5 + 1000
  EXPECT_TRUE(rows[7]["ps"].is_null());  // the fill value

  r = Run({"fetch", "run/1", "--variables", "T", "--explain"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("T: origin 0,0,0,0 shape 3,4,20,30: 72 block(s)"));

  r = Run({"query", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["datasets"][0]["id"], "run/1");

  r = Run({"verify"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, ::testing::HasSubstr("0 problem(s)"));

  r = Run({"delete", "run/1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectError(Run({"info", "run/1"}), {"dataset 'run/1' does not exist"});
}

TEST_F(CliTest, ImportOverwriteAndExistingId) {
  const std::string file = MakeFile("in.nc");
  ASSERT_EQ(Run({"import", file, "--dataset", "d"}).exit_code, 0);
  ExpectError(Run({"import", file, "--dataset", "d"}), {"'d' already exists", "--overwrite"});
  RunResult r = Run({"import", file, "--dataset", "d", "--variables", "ps", "--overwrite"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Run({"info", "d", "--json"});
  EXPECT_EQ(nlohmann::json::parse(r.out)["variables"].size(), 1u);  // replaced completely
}

TEST_F(CliTest, VerifyReportsACorruptBlockByName) {
  ASSERT_EQ(Run({"import", MakeFile("in.nc"), "--dataset", "d", "--block", "10x10"}).exit_code, 0);
  {
    ASSERT_OK_AND_ASSIGN(auto s, grid::GridStore::Open(store()));
    ASSERT_OK_AND_ASSIGN(grid::DataSetMeta meta, s->GetDataSetMeta("d"));
    std::string key = grid::DataKey(
        grid::BlockAddress{"d", meta.key_incarnation(), "T", grid::kPlaneLayout, 2, 1, 1, 2});
    std::string value;
    ASSERT_OK(KvStoreOf(s.get())->Get({}, storage::Table::kData, key, &value));
    value[value.size() - 5] ^= 0x10;  // in the compressed payload
    ASSERT_OK(KvStoreOf(s.get())->Put({}, storage::Table::kData, key, value));
  }
  RunResult r = Run({"verify", "d"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.out,
              ::testing::HasSubstr("CORRUPT dataset 'd': variable 'T', t=2, z=1, block (1, 2)"));
  EXPECT_THAT(r.out, ::testing::HasSubstr("1 problem(s)"));
  ExpectError(
      Run({"fetch", "d", "--variables", "T", "--origin", "2,1,10,20", "--shape", "1,1,1,1"}),
      {"variable 'T', t=2, z=1, block (1, 2)"});
}

TEST_F(CliTest, QuerySortsAndPages) {
  const std::string file = MakeFile("in.nc");
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(Run({"import", file, "--dataset", "d" + std::to_string(i), "--variables", "ps",
                   "--attr", "rank=" + std::to_string((i * 2) % 3)})
                  .exit_code,
              0);
  }
  RunResult r = Run({"query", "--sort", "rank:desc", "--limit", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("d1 "), 0u) << r.out;  // rank 2 first
  EXPECT_THAT(r.out, ::testing::HasSubstr("2 of 3 dataset(s)"));
  // --where works (more in query_cli_test.cc); without an index the store is scanned, which is
  // noted on stderr.
  r = Run({"query", "--where", "status = 'DONE' and rank < 2", "--sort", "rank:desc"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("d2 "), 0u) << r.out;  // rank 1, then d0 with rank 0
  EXPECT_THAT(r.out, ::testing::HasSubstr("2 of 2 dataset(s)"));
  EXPECT_THAT(r.err, ::testing::HasSubstr("(scanned: no index covers status, rank)"));
  ExpectError(Run({"query", "--sort", "rank:up"}), {"asc or desc"});
}

TEST_F(CliTest, BadFilesGiveSpecificErrorsAndCreateNothing) {
  ExpectError(Run({"import", dir_.Sub("missing.nc"), "--dataset", "d"}), {"missing.nc"});
  EXPECT_FALSE(fs::exists(store()));  // not even an empty store

  std::ofstream(dir_.Sub("text.nc")) << "this is not a NetCDF file\n";
  ExpectError(Run({"import", dir_.Sub("text.nc"), "--dataset", "d"}),
              {"text.nc", "not a NetCDF file"});
  EXPECT_FALSE(fs::exists(store()));

  const std::string good = MakeFile("good.nc");
  const std::string data = ReadFile(good);
  std::ofstream(dir_.Sub("cut.nc"), std::ios::binary) << data.substr(0, data.size() / 2);
  RunResult r = Run({"import", dir_.Sub("cut.nc"), "--dataset", "d"});
  ExpectError(r, {"cut.nc"});
  EXPECT_FALSE(StoreHasDataSets() && Run({"info", "d"}).out.find("DONE") != std::string::npos);

  ExpectError(Run({"import", good, "--dataset", "d", "--variables", "T,nope"}),
              {"'nope'", "T", "ps"});
  EXPECT_FALSE(StoreHasDataSets());
}

TEST_F(CliTest, BadFetchArgumentsGiveSpecificErrors) {
  ASSERT_EQ(Run({"import", MakeFile("in.nc"), "--dataset", "d"}).exit_code, 0);
  ExpectError(
      Run({"fetch", "d", "--variables", "T", "--origin", "0,0,15,0", "--shape", "1,1,10,1"}),
      {"variable 'T'", "axis x (lat)", "origin 15 + shape 10 exceeds the extent 20"});
  ExpectError(Run({"fetch", "d", "--variables", "T", "--origin", "0,0,0", "--shape", "1,1,1,1"}),
              {"--origin '0,0,0'", "expected 4"});
  ExpectError(Run({"fetch", "d", "--variables", "T", "--origin", "0,a,0,0"}),
              {"'a' is not an integer"});
  ExpectError(Run({"fetch", "d", "--variables", "nope"}), {"no variable 'nope'", "T, ps"});
  ExpectError(Run({"fetch", "nope", "--variables", "T"}), {"dataset 'nope' does not exist"});
  ExpectError(Run({"fetch", "d", "--variables", "T", "--format", "xls"}), {"'xls'"});
  ExpectError(Run({"fetch", "d", "--format", "npy"}), {"npy output holds one variable"});
  ExpectError(Run({"fetch", "d", "--variables", "T", "-o", dir_.Sub("no/such/dir/x.csv")}),
              {"no/such/dir/x.csv"});
  EXPECT_EQ(Run({"fetch"}).exit_code, 2);  // usage error: the ID is required
  EXPECT_EQ(Run({"frobnicate"}).exit_code, 2);
}

TEST_F(CliTest, StoresThatAreNotStoresOrReadOnly) {
  // A store path that is a regular file, or a directory of something else.
  std::ofstream(store()) << "not a store";
  ExpectError(Run({"info", "d"}), {store(), "not a GridStore store"});
  fs::remove(store());
  fs::create_directory(store());
  std::ofstream(store() + "/notes.txt") << "mine";
  ExpectError(Run({"query"}), {"not a GridStore store"});
  ExpectError(Run({"import", MakeFile("in.nc"), "--dataset", "d"}), {"not a GridStore store"});
  fs::remove_all(store());
  ExpectError(Run({"query"}), {"no GridStore store", store()});
  EXPECT_FALSE(fs::exists(store()));

  // A read-only store: readable, not writable. Root ignores permissions, so as root the command
  // runs as the unprivileged user "nobody".
  ASSERT_EQ(Run({"import", MakeFile("in.nc"), "--dataset", "d"}).exit_code, 0);
  const bool as_nobody = geteuid() == 0;
  fs::permissions(dir_.path(), fs::perms::others_read | fs::perms::others_exec,
                  fs::perm_options::add);
  for (const auto& entry : fs::recursive_directory_iterator(store())) {
    fs::permissions(entry.path(),
                    fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                    fs::perm_options::remove);
    fs::permissions(entry.path(), fs::perms::others_read, fs::perm_options::add);
  }
  fs::permissions(store(),
                  fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                  fs::perm_options::remove);
  fs::permissions(store(), fs::perms::others_read | fs::perms::others_exec, fs::perm_options::add);
  fs::permissions(dir_.Sub("in.nc"), fs::perms::others_read, fs::perm_options::add);
  RunResult r = Run({"fetch", "d", "--variables", "T", "--shape", "1,1,2,2"}, as_nobody);
  EXPECT_EQ(r.exit_code, 0) << r.err;  // reading works
  ExpectError(Run({"import", dir_.Sub("in.nc"), "--dataset", "e"}, as_nobody), {store()});
  ExpectError(Run({"delete", "d"}, as_nobody), {store()});
  fs::permissions(store(), fs::perms::owner_all, fs::perm_options::add);
}

// The real files: import each, then fetch a few seeded boxes of each gridded variable as npy and
// nc, and compare with netCDF-C's hyperslab of the original.
TEST_F(CliTest, RealFilesThroughTheCommandMatchNetCdf) {
  const char* env = std::getenv("GRIDSTORE_TEST_DATA");
  ASSERT_TRUE(env != nullptr && fs::is_directory(env))
      << "GRIDSTORE_TEST_DATA must name the folder of real NetCDF files (../shared/data); got "
      << (env ? env : "(unset)");
  int files = 0;
  std::mt19937_64 rng(7);
  for (const auto& entry : fs::directory_iterator(env)) {
    const std::string path = entry.path().string();
    if (entry.path().extension() != ".nc" && entry.path().extension() != ".cdf") continue;
    SCOPED_TRACE(path);
    ++files;
    const std::string id = entry.path().stem().string();
    RunResult r = Run({"import", path, "--dataset", id, "--block", "32x48"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    r = Run({"info", id, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto info = nlohmann::json::parse(r.out);
    for (const auto& var : info["variables"]) {
      const std::string name = var["name"];
      std::vector<int64_t> shape = var["shape"];
      std::vector<std::string> dims = var["dimensions"];
      for (int q = 0; q < 3; ++q) {
        std::vector<int64_t> origin(4), count(4);
        for (int a = 0; a < 4; ++a) {
          origin[a] = static_cast<int64_t>(rng() % shape[a]);
          count[a] = 1 + static_cast<int64_t>(rng() % (shape[a] - origin[a]));
        }
        // The netCDF hyperslab: only the axes the variable has, in order.
        std::vector<size_t> nc_start, nc_count;
        for (int a = 0; a < 4; ++a) {
          if (!dims[a].empty()) {
            nc_start.push_back(origin[a]);
            nc_count.push_back(count[a]);
          }
        }
        const std::string want = NcRead(path, name, nc_start, nc_count);
        const std::string o = std::to_string(origin[0]) + "," + std::to_string(origin[1]) + "," +
                              std::to_string(origin[2]) + "," + std::to_string(origin[3]);
        const std::string s = std::to_string(count[0]) + "," + std::to_string(count[1]) + "," +
                              std::to_string(count[2]) + "," + std::to_string(count[3]);
        r = Run({"fetch", id, "--variables", name, "--origin", o, "--shape", s, "-o",
                 dir_.Sub("box.npy")});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(NpyData(ReadFile(dir_.Sub("box.npy"))), want) << name << " " << o << " " << s;
        r = Run({"fetch", id, "--variables", name, "--origin", o, "--shape", s, "-o",
                 dir_.Sub("box.nc")});
        ASSERT_EQ(r.exit_code, 0) << r.err;
        std::vector<size_t> zero(nc_count.size(), 0);
        EXPECT_EQ(NcRead(dir_.Sub("box.nc"), name, zero, nc_count), want) << name;
      }
    }
  }
  EXPECT_GE(files, 8) << "expected the 8 real files of ../shared/data";
}

// `retention`: a dry run lists and deletes nothing; the real run deletes what expired (by a
// dataset's own expires or ttl, or by --older-than) and leaves the rest; bad options name
// themselves.
// A series written one file per year is one dataset: the real tos file cut in two by `fetch -o`,
// imported in reverse order, reads back as the whole.
TEST_F(CliTest, NetCdfFilesSplitAlongTimeMakeOneDataset) {
  const char* env = std::getenv("GRIDSTORE_TEST_DATA");
  ASSERT_NE(env, nullptr);
  const std::string tos = std::string(env) + "/tos_O1_2001-2002.nc";
  ASSERT_EQ(Run({"import", tos, "--dataset", "whole"}).exit_code, 0);
  const std::string y2001 = dir_.Sub("2001.nc"), y2002 = dir_.Sub("2002.nc");
  ASSERT_EQ(Run({"fetch", "whole", "--variables", "tos", "--origin", "0,0,0,0", "--shape",
                 "12,1,170,180", "-o", y2001})
                .exit_code,
            0);
  ASSERT_EQ(Run({"fetch", "whole", "--variables", "tos", "--origin", "12,0,0,0", "--shape",
                 "12,1,170,180", "-o", y2002})
                .exit_code,
            0);
  RunResult r = Run({"import", y2002, y2001, "--dataset", "joined"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("from 2 files"), std::string::npos) << r.out;
  const std::string whole = Run({"fetch", "whole", "--variables", "tos", "--format", "csv"}).out;
  EXPECT_EQ(Run({"fetch", "joined", "--variables", "tos", "--format", "csv"}).out, whole);
  r = Run({"info", "joined"});
  EXPECT_NE(r.out.find("time (time: 24) float64  2001-01-16T00:00:00Z .. 2002-12-16T00:00:00Z"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("time_bnds (time: 24, bnds: 2)"), std::string::npos) << r.out;
  // Files that do not join: another grid; a year twice; mixed formats.
  ExpectError(Run({"import", y2001, std::string(env) + "/sub.nc", "--dataset", "bad"}), {"sub.nc"});
  ExpectError(Run({"import", y2001, y2001, "--dataset", "bad"}),
              {"variable 'tos' at a time another of the files has it too"});
  EXPECT_EQ(Run({"info", "bad"}).exit_code, 1);
}

// Issue 30: an import plans once (importers/import.h), so each file is opened once per import:
// the two files of a joined import are each opened exactly as often as a one-file import opens
// its file (the format sniff, then netCDF-C's own opening), never again to plan or write. Seen
// with strace, which prints every openat of the files.
TEST_F(CliTest, Issue30EachFileIsOpenedOncePerImport) {
  const char* env = std::getenv("GRIDSTORE_TEST_DATA");
  ASSERT_NE(env, nullptr);
  const std::string tos = std::string(env) + "/tos_O1_2001-2002.nc";
  ASSERT_EQ(Run({"import", tos, "--dataset", "whole"}).exit_code, 0);
  const std::string y2001 = dir_.Sub("y2001.nc"), y2002 = dir_.Sub("y2002.nc");
  for (const auto& [path, origin] : {std::pair{y2001, "0,0,0,0"}, std::pair{y2002, "12,0,0,0"}}) {
    ASSERT_EQ(Run({"fetch", "whole", "--variables", "tos", "--origin", origin, "--shape",
                   "12,1,170,180", "-o", path})
                  .exit_code,
              0);
  }
  const std::string trace = dir_.Sub("trace");
  const std::string strace =
      "ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:detect_leaks=0\" strace -f -qq "
      "-e trace=open,openat -o " +
      ShellQuote(trace) + " ";
  auto opens = [&](const std::string& path) {
    const std::string calls = ReadFile(trace);
    size_t n = 0;
    for (size_t at = calls.find(path); at != std::string::npos; at = calls.find(path, at + 1)) {
      ++n;
    }
    return n;
  };
  RunResult r = RunGridStore(dir_.path().string(), store(), {"import", y2001, "--dataset", "one"},
                             "", strace);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t alone = opens(y2001);
  ASSERT_GE(alone, 1u);
  r = RunGridStore(dir_.path().string(), store(), {"import", y2002, y2001, "--dataset", "two"}, "",
                   strace);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(opens(y2001), alone);
  EXPECT_EQ(opens(y2002), alone);
}

TEST_F(CliTest, RetentionDeletesWhatExpired) {
  const std::string file = MakeFile("r.nc");
  ASSERT_EQ(Run({"import", file, "--dataset", "keep"}).exit_code, 0);
  ASSERT_EQ(
      Run({"import", file, "--dataset", "gone/expires", "--attr", "expires=2020-01-01T00:00:00Z"})
          .exit_code,
      0);
  ASSERT_EQ(Run({"import", file, "--dataset", "gone/ttl", "--attr", "ttl=0s"}).exit_code, 0);
  ASSERT_EQ(Run({"import", file, "--dataset", "bad", "--attr", "ttl=soon"}).exit_code, 0);

  RunResult r = Run({"retention", "--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("would delete gone/expires ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("expires 2020-01-01T00:00:00Z"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("would delete gone/ttl ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("left bad: attribute 'ttl': 'soon'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("retention: 2 of 4 dataset(s) expired; would delete 2"), std::string::npos)
      << r.out;
  EXPECT_NE(Run({"query"}).out.find("4 of 4 dataset(s)"), std::string::npos);  // none deleted

  r = Run({"retention", "--where", "ttl exists"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("deleted gone/ttl ("), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("gone/expires"), std::string::npos) << r.out;  // --where left it out
  r = Run({"retention", "--older-than", "30d"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("deleted gone/expires ("), std::string::npos) << r.out;
  r = Run({"query"});
  EXPECT_NE(r.out.find("keep"), std::string::npos);
  EXPECT_NE(r.out.find("bad"), std::string::npos);
  EXPECT_EQ(r.out.find("gone/"), std::string::npos) << r.out;

  ExpectError(Run({"retention", "--older-than", "7 fortnights"}),
              {"--older-than", "'7 fortnights'", "unknown unit 'fortnights'"});
  r = Run({"retention", "--where", "ttl >"});  // a syntax error: the message has a caret line
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("gridstore: --where: column 6: expected a value"), std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace gridstore
