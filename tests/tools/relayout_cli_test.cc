// Copyright 2026 The GridStore Authors.
//
// The series layout from the command line, on a real file of $GRIDSTORE_TEST_DATA:
// `import --layouts plane,series`, `relayout --add/--drop series`, what `info` and
// `fetch --explain` say, values equal whichever layout serves them, and the errors.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/test_util.h"
#include "tests/tools/cli_testutil.h"

namespace gridstore::tools {
namespace {

using testing::ExpectCliError;
using ::testing::HasSubstr;
using testing::RunGridStore;
using testing::RunResult;

class RelayoutCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* env = std::getenv("GRIDSTORE_TEST_DATA");
    ASSERT_TRUE(env != nullptr && std::filesystem::is_directory(env))
        << "GRIDSTORE_TEST_DATA must name the folder of real NetCDF files (../shared/data)";
    file_ = std::string(env) + "/tos_O1_2001-2002.nc";  // 24 x 1 x 170 x 180 float32
    store_ = dir_.Sub("store");
  }
  RunResult Run(const std::vector<std::string>& args) {
    return RunGridStore(dir_.path(), store_, args);
  }
  // A point series (every step at x 100, y 100) as CSV.
  std::string PointSeries(const std::string& id) {
    RunResult r =
        Run({"fetch", id, "--origin", "0,0,100,100", "--shape", "24,1,1,1", "--format", "csv"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.out;
  }

  testing::ScopedTempDir dir_;
  std::string file_, store_;
};

TEST_F(RelayoutCliTest, ImportWithBothLayoutsServesSeriesFromTheSeriesLayout) {
  ASSERT_EQ(Run({"import", file_, "--dataset", "planes"}).exit_code, 0);
  RunResult r = Run({"import", file_, "--dataset", "both", "--layouts", "plane,series",
                     "--series-tile", "8x8", "--series-steps", "12"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 2 step blocks x 22 x 23 tiles; the extra storage is reported.
  EXPECT_THAT(r.out, HasSubstr("series layout (12 steps x 8x8 points, frames of 16 points) "
                               "added: 1012 block(s) written"));
  EXPECT_THAT(r.out, HasSubstr("% of the planes'"));
  EXPECT_THAT(Run({"info", "both"}).out,
              HasSubstr("series       12 steps x 8x8 points, frames of 16 points"));
  auto info = nlohmann::json::parse(Run({"info", "both", "--json"}).out);
  EXPECT_EQ(info["series_layout"]["tile_x"], 8);
  EXPECT_EQ(info["series_layout"]["ready"], true);

  r = Run({"fetch", "both", "--origin", "0,0,100,100", "--shape", "24,1,1,1", "--explain"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("reads series: plane layout 24 block(s)"));
  EXPECT_THAT(r.out, HasSubstr("series layout 2 block(s)"));
  r = Run({"fetch", "both", "--origin", "5,0,0,0", "--shape", "1,1,170,180", "--explain"});
  EXPECT_THAT(r.out, HasSubstr("reads plane:"));
  // extract --explain names the layout the read will use (issue 30): a point's 24 steps are 2
  // series blocks where the dataset has that layout, 24 plane blocks where it has not.
  r = Run({"extract", "both", "--point", "-30,0", "--explain"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(": series layout, 2 block(s)"));
  EXPECT_THAT(r.out, HasSubstr("(plane: 24 block(s)"));
  r = Run({"extract", "planes", "--point", "-30,0", "--explain"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(": plane layout, 24 block(s)"));
  // Same values from either layout, and from the dataset without one.
  EXPECT_EQ(PointSeries("both"), PointSeries("planes"));

  r = Run({"verify", "both"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
}

TEST_F(RelayoutCliTest, RelayoutAddsAndDropsTheSeriesLayout) {
  ASSERT_EQ(Run({"import", file_, "--dataset", "d"}).exit_code, 0);
  const std::string planes = PointSeries("d");
  RunResult r = Run({"relayout", "d", "--add", "series"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("series layout (256 steps x 16x16 points, frames of 16 points) "
                               "added: 132 block(s) written"));
  EXPECT_EQ(PointSeries("d"), planes);
  r = Run({"relayout", "d", "--add", "series"});
  EXPECT_THAT(r.out, HasSubstr("has the series layout"));
  ExpectCliError(Run({"relayout", "d", "--add", "series", "--series-tile", "4x4"}),
                 {"another series layout", "drop it first"});
  r = Run({"relayout", "d", "--drop", "series"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("series layout dropped"));
  EXPECT_THAT(Run({"info", "d"}).out, ::testing::Not(HasSubstr("series ")));
  EXPECT_EQ(PointSeries("d"), planes);
  ExpectCliError(Run({"relayout", "d", "--drop", "series"}), {"has none"});
}

// Blocks over all ten levels of a real model-level file: a point's time-height section (every
// step, every level) is one block, with the values the planes give.
TEST_F(RelayoutCliTest, SeriesLevelsServeATimeHeightSectionFromOneBlock) {
  // 6 x 10 x 83 x 83 float32 on model levels.
  const std::string levels_file =
      std::string(std::getenv("GRIDSTORE_TEST_DATA")) + "/small_theta_colpex.nc";
  ASSERT_EQ(Run({"import", levels_file, "--dataset", "planes"}).exit_code, 0);
  RunResult r = Run({"import", levels_file, "--dataset", "both", "--layouts", "plane,series",
                     "--series-steps", "6", "--series-tile", "8x8", "--series-levels", "10"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 11 x 11 tiles, one block of steps and of levels.
  EXPECT_THAT(r.out, HasSubstr("series layout (6 steps x 8x8 points x 10 levels, frames of 16 "
                               "rows) added: 121 block(s) written"));
  auto info = nlohmann::json::parse(Run({"info", "both", "--json"}).out);
  EXPECT_EQ(info["series_layout"]["block_z"], 10);
  const std::vector<std::string> section = {"--origin", "0,0,40,40", "--shape", "6,10,1,1"};
  std::vector<std::string> explain = {"fetch", "both", "--explain"};
  explain.insert(explain.end(), section.begin(), section.end());
  r = Run(explain);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("reads series: plane layout 60 block(s)"));
  EXPECT_THAT(r.out, HasSubstr("series layout 1 block(s)"));
  auto csv = [&](const std::string& id) {
    std::vector<std::string> fetch = {"fetch", id, "--format", "csv"};
    fetch.insert(fetch.end(), section.begin(), section.end());
    RunResult got = Run(fetch);
    EXPECT_EQ(got.exit_code, 0) << got.err;
    return got.out;
  };
  EXPECT_EQ(csv("both"), csv("planes"));
  EXPECT_EQ(Run({"verify", "both"}).exit_code, 0);
}

// `--series-steps all`: every step of the series in one block, the rest chosen for the dataset;
// a point's series is then one block, with the values of the planes.
TEST_F(RelayoutCliTest, AllStepsInOneBlock) {
  ASSERT_EQ(Run({"import", file_, "--dataset", "d"}).exit_code, 0);
  const std::string planes = PointSeries("d");
  RunResult r = Run({"relayout", "d", "--add", "series", "--series-steps", "all"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 24 steps: 170 x 180 points in 11 x 12 tiles of 16x16.
  EXPECT_THAT(r.out, HasSubstr("series layout (24 steps x 16x16 points, frames of 16 points) "
                               "added: 132 block(s) written"));
  EXPECT_THAT(Run({"info", "d"}).out, HasSubstr("series       24 steps x 16x16 points"));
  r = Run({"fetch", "d", "--origin", "0,0,100,100", "--shape", "24,1,1,1", "--explain"});
  EXPECT_THAT(r.out, HasSubstr("series layout 1 block(s)"));
  EXPECT_EQ(PointSeries("d"), planes);
  EXPECT_EQ(Run({"verify", "d"}).exit_code, 0);
}

TEST_F(RelayoutCliTest, BadRequestsAreOneLineErrors) {
  ASSERT_EQ(Run({"import", file_, "--dataset", "d"}).exit_code, 0);
  ExpectCliError(Run({"relayout", "d"}), {"exactly one of --add series and --drop series"});
  ExpectCliError(Run({"relayout", "d", "--add", "series", "--drop", "series"}), {"exactly one of"});
  ExpectCliError(Run({"relayout", "d", "--add", "planes"}), {"--add 'planes'", "only layout"});
  ExpectCliError(Run({"relayout", "nope", "--add", "series"}), {"'nope' does not exist"});
  ExpectCliError(Run({"relayout", "d", "--add", "series", "--series-steps", "0"}),
                 {"--series-steps"});
  ExpectCliError(Run({"relayout", "d", "--add", "series", "--series-tile", "4"}),
                 {"--series-tile '4' is not XxY"});
  ExpectCliError(Run({"relayout", "d", "--add", "series", "--series-tile", "0x5"}),
                 {"--series-tile '0x5': each side must be in [1, 1048576]"});
  ExpectCliError(Run({"relayout", "d", "--add", "series", "--series-levels", "0"}),
                 {"--series-levels"});
  // Given empty is an error, not the default.
  ExpectCliError(Run({"relayout", "d", "--add", "series", "--series-levels", ""}),
                 {"--series-levels '' is not an integer"});
  ExpectCliError(Run({"relayout", "d", "--add", "series", "--series-tile", ""}), {"--series-tile"});
  ExpectCliError(Run({"relayout", "d", "--add", "series", "--series-steps", "4096",
                      "--series-levels", "64", "--series-tile", "16x16"}),
                 {"a block may hold at most"});
  ExpectCliError(Run({"relayout", "d", "--add", "series", "--series-steps", "every"}),
                 {"--series-steps 'every' is not an integer"});
  ExpectCliError(Run({"relayout", "d", "--add", "series", "--series-steps", "-1"}),
                 {"--series-steps"});
  ExpectCliError(Run({"relayout", "d", "--add", "series", "--series-steps", "1048577"}),
                 {"--series-steps"});
  ExpectCliError(Run({"relayout", "d", "--add", "series", "--series-frame-points", "0"}),
                 {"--series-frame-points"});
  ExpectCliError(Run({"import", file_, "--dataset", "e", "--layouts", "series"}),
                 {"--layouts", "plane,series"});
  ExpectCliError(Run({"import", file_, "--dataset", "e", "--layouts", "plane,tiles"}),
                 {"unknown layout 'tiles'"});
  ExpectCliError(Run({"import", file_, "--dataset", "e", "--series-tile", "8x8"}),
                 {"give --layouts plane,series"});
  ExpectCliError(Run({"import", file_, "--dataset", "e", "--series-levels", "2"}),
                 {"give --layouts plane,series"});
  // None of them left a dataset behind.
  EXPECT_THAT(Run({"info", "e"}).err, HasSubstr("'e' does not exist"));
}

}  // namespace
}  // namespace gridstore::tools
