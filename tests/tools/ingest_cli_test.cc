// Copyright 2026 The GridStore Authors.
//
// A run ingested step by step while other processes read it: one `gridstore import --append`
// process per arriving GRIB file, and a reader polling with `gridstore fetch` (a new process each
// time, as a forecaster's script or a web page would) that must only ever see complete steps with
// exactly ecCodes' values, or a clear "not yet" error; never fill values.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <sstream>
#include <thread>

#include "tests/importers/grib_testutil.h"
#include "tests/test_util.h"
#include "tests/tools/cli_testutil.h"

namespace gridstore {
namespace {

using testing::DecodedField;
using testing::RunGridStore;
using testing::RunResult;

// The t_member0 values of a step file, levels 500 then 850, as float32.
std::vector<float> ExpectedT(const std::string& path) {
  std::vector<float> out;
  for (double level : {500.0, 850.0}) {
    for (const DecodedField& f : testing::DecodeWithEcCodes(path)) {
      if (f.short_name != "t" || f.level != level) continue;
      for (double v : f.values) out.push_back(static_cast<float>(v));
    }
  }
  return out;
}

// The last column of `fetch --format csv` output.
std::vector<float> LastColumn(const std::string& csv) {
  std::vector<float> out;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) out.push_back(std::stof(line.substr(line.rfind(',') + 1)));
  return out;
}

TEST(IngestCliTest, ReadersInOtherProcessesSeeOnlyCompleteSteps) {
  testing::ScopedTempDir dir;
  const std::string store = dir.Sub("store");
  std::filesystem::create_directories(dir.Sub("importer"));
  std::filesystem::create_directories(dir.Sub("reader"));
  constexpr int kSteps = 4;
  std::vector<std::string> files;
  std::vector<std::vector<float>> expected;
  for (int k = 0; k < kSteps; ++k) {
    files.push_back(dir.Sub("f" + std::to_string(6 * k) + ".grib"));
    ASSERT_EQ(testing::WriteRunStep(files.back(), k), 4);
    expected.push_back(ExpectedT(files.back()));
    ASSERT_EQ(expected.back().size(), 2u * 61 * 120);
  }

  std::atomic<bool> imported{false};
  std::vector<RunResult> imports;
  std::thread importer([&] {
    for (int k = 0; k < kSteps; ++k) {
      std::vector<std::string> args = {"import", files[size_t(k)], "--dataset", "gfs/run",
                                       "--append", "--expected-steps", std::to_string(kSteps)};
      imports.push_back(RunGridStore(dir.Sub("importer"), store, args));
      std::this_thread::sleep_for(std::chrono::milliseconds(150));
    }
    imported = true;
  });

  // Poll the step after the last one seen, until the importer is done and every step was read.
  int seen = 0, refused = 0;
  std::vector<std::string> unexpected;
  for (int polls = 0; polls < 2000 && seen < kSteps; ++polls) {
    const bool done_before = imported.load();
    RunResult r = RunGridStore(dir.Sub("reader"), store,
                               {"fetch", "gfs/run", "--variables", "t_member0", "--origin",
                                std::to_string(seen) + ",0,0,0", "--shape", "1,2,61,120",
                                "--format", "csv"});
    if (r.exit_code == 0) {
      ASSERT_EQ(LastColumn(r.out), expected[size_t(seen)]) << "step " << seen;
      ++seen;
      continue;
    }
    // Before the first step, or before the step: a clear error, never data.
    const bool not_yet = r.err.find("still being ingested") != std::string::npos ||
                         r.err.find("no dataset") != std::string::npos ||
                         r.err.find("does not exist") != std::string::npos ||
                         r.err.find("no GridStore store") != std::string::npos ||
                         r.err.find("exceeds the extent") != std::string::npos;
    if (!not_yet) unexpected.push_back(r.err);
    ++refused;
    if (done_before && !not_yet) break;
  }
  importer.join();
  EXPECT_TRUE(unexpected.empty()) << unexpected.front();
  ASSERT_EQ(imports.size(), size_t(kSteps));
  for (const RunResult& r : imports) EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(seen, kSteps);
  // The last step made the run DONE (--expected-steps).
  RunResult info = RunGridStore(dir.Sub("reader"), store, {"info", "gfs/run"});
  EXPECT_THAT(info.out, ::testing::HasSubstr("status       DONE"));
  RecordProperty("refused_polls", refused);
}

}  // namespace
}  // namespace gridstore
