// Copyright 2026 The GridStore Authors.
//
// The `gridstore` command on a rados:// store (rados_test, on the ctest cluster): every command a
// directory store takes, with the values checked against netCDF-C, and the errors of a URI that
// names no usable store.
#include <netcdf.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gridstore/grid/grid_store.h"
#include "tests/importers/netcdf_testutil.h"
#include "tests/test_stores.h"
#include "tests/test_util.h"
#include "tests/tools/cli_testutil.h"

namespace gridstore::testing {
namespace {

constexpr const char* kFile = "tos_O1_2001-2002.nc";

class RadosCliTest : public ::testing::Test {
 protected:
  RunResult Run(const std::vector<std::string>& args) {
    return RunGridStore(dir_.path().string(), uri_, args);
  }
  std::string DataFile() {
    const char* env = std::getenv("GRIDSTORE_TEST_DATA");
    EXPECT_TRUE(env != nullptr && *env != '\0') << "GRIDSTORE_TEST_DATA is not set";
    return (std::filesystem::path(env ? env : "") / kFile).string();
  }

  ScopedTempDir dir_;
  std::string uri_ = RadosTestUri("cli");
};

TEST_F(RadosCliTest, EveryCommandWorksOnARadosStore) {
  RunResult r = Run({"import", DataFile(), "--dataset", "ocean/tos", "--attr", "source=IPSL"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Run({"info", "ocean/tos", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto info = nlohmann::json::parse(r.out);
  EXPECT_EQ(info["status"], "DONE") << r.out;
  r = Run({"query", "--where", "source = 'IPSL'", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("ocean/tos"), std::string::npos) << r.out;

  // One point's time series, compared with what netCDF-C reads at that index.
  r = Run({"fetch", "ocean/tos", "--variables", "tos", "--origin", "0,0,60,100", "--shape",
           "24,1,1,1", "--format", "json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto fetched = nlohmann::json::parse(r.out);
  int ncid, varid;
  ASSERT_NC(nc_open(DataFile().c_str(), NC_NOWRITE, &ncid));
  ASSERT_NC(nc_inq_varid(ncid, "tos", &varid));
  std::vector<float> want(24);
  const size_t start[] = {0, 60, 100}, count[] = {24, 1, 1};
  ASSERT_NC(nc_get_vara_float(ncid, varid, start, count, want.data()));
  nc_close(ncid);
  const auto& rows = fetched["rows"];
  ASSERT_EQ(rows.size(), 24u) << r.out;
  for (size_t i = 0; i < 24; ++i) EXPECT_FLOAT_EQ(rows[i]["tos"].get<float>(), want[i]) << i;
  EXPECT_LT(want[0], 400.f) << "the point should be at sea, not the fill value";

  r = Run({"verify", "ocean/tos"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = Run({"delete", "ocean/tos"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Run({"info", "ocean/tos"});
  ExpectCliError(r, {"ocean/tos"});
}

TEST_F(RadosCliTest, UnusableRadosUrisAreOneLineErrors) {
  // A namespace without a store: read commands do not create one.
  ExpectCliError(Run({"info", "x"}), {"no GridStore store", RadosTestPool()});
  uri_ = "rados://no-such-pool?conf=" + RadosTestConf();
  ExpectCliError(Run({"import", DataFile(), "--dataset", "x"}), {"no-such-pool", "does not exist"});
  uri_ = "rados://" + RadosTestPool() + "?conf=" + RadosTestConf() + "&user=me";
  ExpectCliError(Run({"info", "x"}), {"unknown parameter 'user'"});
}

// Writes `path`: float T(lat 40, lon 50) with every value `value`, and global attribute
// version = value, so that a fetch can tell which import its data came from.
void WriteConstantFile(const std::string& path, float value) {
  int ncid, lat, lon, var;
  ASSERT_NC(nc_create(path.c_str(), NC_CLOBBER | NC_NETCDF4, &ncid));
  ASSERT_NC(nc_def_dim(ncid, "lat", 40, &lat));
  ASSERT_NC(nc_def_dim(ncid, "lon", 50, &lon));
  const int dims[] = {lat, lon};
  ASSERT_NC(nc_def_var(ncid, "T", NC_FLOAT, 2, dims, &var));
  const double version = value;
  ASSERT_NC(nc_put_att_double(ncid, NC_GLOBAL, "version", NC_DOUBLE, 1, &version));
  ASSERT_NC(nc_enddef(ncid));
  std::vector<float> values(40 * 50, value);
  ASSERT_NC(nc_put_var_float(ncid, var, values.data()));
  ASSERT_NC(nc_close(ncid));
}

// Issue 12 item 14, the reproduction on the test cluster: processes that share a pool set the
// indexed `status` of a few ids at once (three shell loops of one-line `meta put`s), while
// another process replaces and deletes a dataset over and over. A reader in this process checks
// that every fetch returns the data of the meta it planned from (never another incarnation's);
// afterwards every index entry must match its meta.
TEST_F(RadosCliTest, ProcessesSharingAStoreKeepIndexAndDataConsistent) {
  ASSERT_EQ(Run({"index", "create", "by_status", "status:string"}).exit_code, 0);
  const std::string f1 = dir_.Sub("one.nc"), f2 = dir_.Sub("two.nc");
  WriteConstantFile(f1, 1.f);
  WriteConstantFile(f2, 2.f);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_EQ(Run({"import", f1, "--dataset", "d"}).exit_code, 0);

  const std::string gs = ShellQuote(GRIDSTORE_CLI) + " --store " + ShellQuote(uri_);
  std::vector<std::string> loops;
  for (int w = 0; w < 3; ++w) {
    std::string cmd = "for i in $(seq 1 15); do id=m$(( (i * " + std::to_string(w + 3) +
                      ") % 4 )); s=$(echo A B C D | cut -d' ' -f$(( (i + " + std::to_string(w) +
                      ") % 4 + 1 ))); echo \"{\\\"id\\\": \\\"$id\\\", \\\"attributes\\\": "
                      "{\\\"status\\\": \\\"$s\\\"}}\" | " +
                      gs + " meta put - > /dev/null || exit 1; done";
    loops.push_back(cmd);
  }
  loops.push_back("for i in $(seq 1 6); do " + gs + " import " + ShellQuote(f2) +
                  " --dataset d --overwrite > /dev/null 2>&1 || exit 1; " + gs + " import " +
                  ShellQuote(f1) +
                  " --dataset d --overwrite > /dev/null 2>&1 || exit 1; "
                  "if [ $i = 3 ]; then " +
                  gs + " delete d > /dev/null || exit 1; " + gs + " import " + ShellQuote(f1) +
                  " --dataset d > /dev/null 2>&1 || exit 1; fi; "
                  "done");
  std::vector<FILE*> children;
  for (const std::string& loop : loops) {
    FILE* child = popen(("sh -c " + ShellQuote(loop) + " 2>&1").c_str(), "r");
    ASSERT_NE(child, nullptr);
    children.push_back(child);
  }

  // The reader: whatever the writers do, a fetch that succeeds returns its own meta's data.
  ASSERT_OK_AND_ASSIGN(auto store, grid::GridStore::Open(uri_, {.read_only = true}));
  std::atomic<bool> done{false};
  int checked = 0, refused = 0;
  std::thread reader([&] {
    while (!done) {
      auto fetcher = store->GetDataFetcher("d");
      if (!fetcher.ok()) {
        ++refused;
        continue;
      }
      auto got = (*fetcher)->Fetch();
      if (!got.ok()) {
        ++refused;  // deleted or replaced meanwhile, or not DONE: said so, never wrong data
        continue;
      }
      const float want = static_cast<float>((*fetcher)->meta().attributes.at("version").AsDouble());
      for (float v : got->GetVariable("T")->data<float>()) {
        ASSERT_EQ(v, want) << "a fetch returned another incarnation's data";
      }
      ++checked;
    }
  });
  for (FILE* child : children) {
    char line[512];
    std::string output;
    while (fgets(line, sizeof(line), child) != nullptr) output += line;
    EXPECT_EQ(pclose(child), 0) << output;
  }
  done = true;
  reader.join();
  EXPECT_GT(checked, 0) << refused << " refused";

  // Every posting matches its meta, and every meta is indexed.
  std::map<std::string, std::string> status_of;
  for (int i = 0; i < 4; ++i) {
    RunResult r = Run({"info", "m" + std::to_string(i), "--json"});
    if (r.exit_code != 0) continue;
    status_of["m" + std::to_string(i)] = nlohmann::json::parse(r.out)["status"].get<std::string>();
  }
  EXPECT_EQ(status_of.size(), 4u);
  for (const std::string s : {"A", "B", "C", "D"}) {
    RunResult r =
        Run({"query", "--index", "by_status", "--where", "status = '" + s + "'", "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::set<std::string> found;
    const auto doc = nlohmann::json::parse(r.out);  // alive through the loop
    for (const auto& m : doc["datasets"]) found.insert(m["id"].get<std::string>());
    for (const auto& [id, status] : status_of) {
      EXPECT_EQ(found.count(id) > 0, status == s)
          << id << " has status " << status << "; the index says " << s << ": " << r.out;
    }
  }
}

}  // namespace
}  // namespace gridstore::testing
