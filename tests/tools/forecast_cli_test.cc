// Copyright 2026 The GridStore Authors.
//
// The command's side of forecast collections (issue 31): `import` of an ensemble prints every
// member's dataset, `--collection` and `--run`, a run on another grid refused in one line naming
// both runs, `info` with the run time and each step's lead time (`--json`: "run_time"), and
// `ingest --collection`. Real files of ../shared/grib.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/importers/grib_testutil.h"
#include "tests/test_util.h"
#include "tests/tools/cli_testutil.h"

namespace gridstore {
namespace {

using ::testing::HasSubstr;
using testing::RunGridStore;
using testing::RunResult;

class ForecastCliTest : public ::testing::Test {
 protected:
  RunResult Gs(const std::vector<std::string>& args) {
    return RunGridStore(dir_.path().string(), dir_.Sub("store"), args);
  }
  testing::ScopedTempDir dir_;
};

TEST_F(ForecastCliTest, EnsembleImportPrintsEveryMemberAndInfoShowsLeadTimes) {
  RunResult r =
      Gs({"import", testing::GribDir() + "/era5-levels-members.grib", "--dataset", "ens"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("imported 10 datasets ('ens/m00' ... 'ens/m09') from "));
  EXPECT_THAT(r.out, HasSubstr("2 variable(s) each, 160 plane(s)"));
  for (int m = 0; m < 10; ++m) {
    EXPECT_THAT(r.out, HasSubstr("dataset 'ens/m0" + std::to_string(m) + "'\n"));
  }
  RunResult info = Gs({"info", "ens/m03"});
  ASSERT_EQ(info.exit_code, 0) << info.err;
  EXPECT_THAT(info.out, HasSubstr("run          2017-01-01T00:00:00Z (collection ecmf/an, "
                                  "member 3)\nsteps        4 (valid time, lead time)\n"
                                  "  2017-01-01T00:00:00Z  0\n"
                                  "  2017-01-01T12:00:00Z  +12 h\n"));
  EXPECT_THAT(info.out, HasSubstr("  2017-01-02T12:00:00Z  +36 h\n"));
  RunResult json = Gs({"info", "ens/m03", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_THAT(json.out, HasSubstr("\"run_time\": \"2017-01-01T00:00:00Z\""));
  // A dataset without a run time (a NetCDF file without forecast_reference_time) has neither.
  const std::string data = std::getenv("GRIDSTORE_TEST_DATA");
  ASSERT_EQ(Gs({"import", data + "/tos_O1_2001-2002.nc", "--dataset", "tos"}).exit_code, 0);
  EXPECT_THAT(Gs({"info", "tos"}).out, ::testing::Not(HasSubstr("\nrun ")));
  EXPECT_THAT(Gs({"info", "tos", "--json"}).out, ::testing::Not(HasSubstr("run_time")));
}

TEST_F(ForecastCliTest, CollectionAndRunFlagsAndAnotherGridRefused) {
  const std::string gg = testing::GribDir() + "/regular_gg.grib2";
  const std::string mv = testing::GribDir() + "/missing_values.grib2";
  // NCEP's files: collection kwbc/fc from the file, the run its reference time.
  ASSERT_EQ(Gs({"import", gg, "--dataset", "gg"}).exit_code, 0);
  RunResult info = Gs({"info", "gg"});
  EXPECT_THAT(info.out, HasSubstr("run          2013-08-13T00:00:00Z (collection kwbc/fc)\n"));
  EXPECT_THAT(info.out, HasSubstr("  2013-08-15T21:00:00Z  +69 h\n"));
  // Another NCEP grid in the same collection: refused in one line naming both runs.
  RunResult refused = Gs({"import", mv, "--dataset", "mv"});
  testing::ExpectCliError(refused, {"run 2013-05-21T00:00:00Z of collection 'kwbc/fc' is on a "
                                    "144x73 grid; the collection's run 2013-08-13T00:00:00Z "
                                    "(dataset 'gg') is on 192x96",
                                    "--collection"});
  EXPECT_EQ(Gs({"info", "mv"}).exit_code, 1);
  // Named into a collection of its own, with a run time of its own.
  RunResult named = Gs(
      {"import", mv, "--dataset", "mv", "--collection", "ncep/sst", "--run", "2013-05-21T12:00Z"});
  ASSERT_EQ(named.exit_code, 0) << named.err;
  EXPECT_THAT(Gs({"info", "mv"}).out,
              HasSubstr("run          2013-05-21T12:00:00Z (collection ncep/sst)\n"));
  // A bad run time, and --collection against --attr collection=.
  testing::ExpectCliError(Gs({"import", mv, "--dataset", "mv2", "--run", "noon"}),
                          {"--run 'noon' is not an ISO 8601 time"});
  testing::ExpectCliError(
      Gs({"import", mv, "--dataset", "mv2", "--collection", "a/b", "--attr", "collection=c/d"}),
      {"--collection 'a/b' and --attr collection=c/d disagree"});
}

TEST_F(ForecastCliTest, IngestPutsTheRunsInTheGivenCollection) {
  const std::string in = dir_.Sub("incoming");
  std::filesystem::create_directories(in);
  ASSERT_EQ(testing::WriteRunStep(in + "/era.t00z.f000", 0), 4);  // member 0 of an ensemble
  RunResult r = Gs({"ingest", "--watch", in, "--dataset-from", "era.t{run}z.f{step}", "--dataset",
                    "era/{run}Z", "--collection", "era5/ens", "--once"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("ingested era.t00z.f000 into 'era/00Z/m00'"));
  EXPECT_THAT(Gs({"info", "era/00Z/m00"}).out,
              HasSubstr("run          2017-01-01T00:00:00Z (collection era5/ens, member 0)\n"));
}

}  // namespace
}  // namespace gridstore
