// Copyright 2026 The GridStore Authors.
//
// The `gridstore` command on a rados:// store (rados_test, on the ctest cluster): every command a
// directory store takes, with the values checked against netCDF-C, and the errors of a URI that
// names no usable store.
#include <netcdf.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

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

}  // namespace
}  // namespace gridstore::testing
