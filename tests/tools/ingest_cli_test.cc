// Copyright 2026 The GridStore Authors.
//
// A run ingested step by step while other processes read it: one `gridstore import --append`
// process per arriving GRIB file, and a reader polling with `gridstore fetch` (a new process each
// time, as a forecaster's script or a web page would) that must only ever see complete steps with
// exactly ecCodes' values, or a clear "not yet" error; never fill values. And `gridstore ingest
// --watch`, which runs such imports as files appear.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
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

// The t values of a step file (member 0 of ERA5's ensemble: a run "gfs/run" is dataset
// "gfs/run/m00"), levels 500 then 850, as float32.
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
      std::vector<std::string> args = {
          "import",   files[size_t(k)],   "--dataset",           "gfs/run",
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
    RunResult r =
        RunGridStore(dir.Sub("reader"), store,
                     {"fetch", "gfs/run/m00", "--variables", "t", "--origin",
                      std::to_string(seen) + ",0,0,0", "--shape", "1,2,61,120", "--format", "csv"});
    if (r.exit_code == 0) {
      // (No ASSERT here: leaving the test before importer.join() would end the process.)
      const bool as_written = LastColumn(r.out) == expected[size_t(seen)];
      EXPECT_TRUE(as_written) << "step " << seen << ": " << r.out.substr(0, 200);
      if (!as_written) break;
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
  RunResult info = RunGridStore(dir.Sub("reader"), store, {"info", "gfs/run/m00"});
  EXPECT_THAT(info.out, ::testing::HasSubstr("status       DONE"));
  RecordProperty("refused_polls", refused);
}

}  // namespace
}  // namespace gridstore

namespace gridstore {
namespace {

// `gridstore ingest --watch`: files appear in a folder while it runs; each goes to its run, the
// run is DONE at its expected steps, files it holds are skipped on a restart, and SIGTERM stops
// it cleanly.
TEST(IngestCliTest, WatchIngestsFilesAsTheyAppearAndSkipsThemOnRestart) {
  testing::ScopedTempDir dir;
  const std::string store = dir.Sub("store"), in = dir.Sub("incoming");
  std::filesystem::create_directories(in);
  std::filesystem::create_directories(dir.Sub("cli"));
  std::vector<std::string> steps;
  for (int k = 0; k < 3; ++k) {
    steps.push_back(dir.Sub("step" + std::to_string(k)));
    ASSERT_EQ(testing::WriteRunStep(steps.back(), k), 4);
  }
  auto place = [&](int k, const std::string& name) {
    // Written beside, then renamed in: the watcher never sees half a file.
    std::filesystem::copy_file(steps[size_t(k)], in + "/.tmp");
    std::filesystem::rename(in + "/.tmp", in + "/" + name);
  };
  place(0, "era.t00z.f000");
  place(1, "era.t00z.f006");
  std::ofstream(in + "/README") << "not a step";
  const std::vector<std::string> args = {"--store",
                                         store,
                                         "ingest",
                                         "--watch",
                                         in,
                                         "--dataset-from",
                                         "era.t{run}z.f{step}",
                                         "--dataset",
                                         "era/{run}Z",
                                         "--expected-steps",
                                         "3",
                                         "--interval",
                                         "1"};
  std::vector<char*> argv = {const_cast<char*>(GRIDSTORE_CLI)};
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, GRIDSTORE_CLI, nullptr, nullptr, argv.data(), environ), 0);
  auto status_of_run = [&] {
    return RunGridStore(dir.Sub("cli"), store, {"info", "era/00Z/m00"}).out;
  };
  // The first two steps, then the third placed while it runs.
  bool two = false, done = false;
  for (int i = 0; i < 300 && !two; ++i) {
    two = status_of_run().find("complete steps: 0-1 of 2") != std::string::npos;
    if (!two) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(two) << status_of_run();
  place(2, "era.t00z.f012");
  for (int i = 0; i < 300 && !done; ++i) {
    done = status_of_run().find("status       DONE") != std::string::npos;
    if (!done) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(done) << status_of_run();
  kill(pid, SIGTERM);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  // A restart skips what the run holds.
  RunResult again = RunGridStore(dir.Sub("cli"), store,
                                 {"ingest", "--watch", in, "--dataset-from", "era.t{run}z.f{step}",
                                  "--dataset", "era/{run}Z", "--once"});
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_THAT(again.out, ::testing::HasSubstr("skipped era.t00z.f012: already in 'era/00Z'"));
  EXPECT_EQ(again.out.find("ingested"), std::string::npos) << again.out;
}

// Issue 29, 1.2: a GRIB file with one header bit flipped made ecCodes abort the process; ingest
// then died on that file at every restart and never reached later files. Now the file costs one
// error line and goes to quarantine (with the reason beside it); the next files are ingested,
// and a restart does not try it again.
TEST(IngestCliTest, Issue29CorruptFileIsQuarantinedAndTheRestGoOn) {
  testing::ScopedTempDir dir;
  const std::string store = dir.Sub("store"), in = dir.Sub("incoming");
  std::filesystem::create_directories(in);
  std::filesystem::create_directories(dir.Sub("cli"));
  ASSERT_EQ(testing::WriteRunStep(in + "/era.t00z.f006", 1), 4);
  {
    std::string bytes = testing::ReadFile(testing::GribDir() + "/lambert.grib2");
    bytes[208] ^= 0x01;  // section 7's length
    std::ofstream(in + "/era.t00z.f000", std::ios::binary) << bytes;
  }
  const std::vector<std::string> args = {
      "ingest",    "--watch",    in,      "--dataset-from", "era.t{run}z.f{step}",
      "--dataset", "era/{run}Z", "--once"};
  RunResult first = RunGridStore(dir.Sub("cli"), store, args);
  EXPECT_EQ(first.exit_code, 1) << first.err;  // a file failed
  EXPECT_THAT(first.err,
              ::testing::HasSubstr("era.t00z.f000': GRIB message 1 (at byte offset 0) is corrupt"));
  EXPECT_THAT(first.err, ::testing::HasSubstr("quarantined"));
  EXPECT_THAT(first.out, ::testing::HasSubstr("ingested era.t00z.f006 into 'era/00Z/m00'"));
  EXPECT_FALSE(std::filesystem::exists(in + "/era.t00z.f000"));
  EXPECT_TRUE(std::filesystem::exists(in + "/quarantine/era.t00z.f000"));
  EXPECT_THAT(testing::ReadFile(in + "/quarantine/era.t00z.f000.error"),
              ::testing::HasSubstr("corrupt"));
  RunResult again = RunGridStore(dir.Sub("cli"), store, args);
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err.find("corrupt"), std::string::npos) << again.err;
}

}  // namespace
}  // namespace gridstore

namespace gridstore {
namespace {

// Issue 33, part 3: a run appended step by step keeps its series layout. Each import asks for
// it (as an operator's script would); every second step completes a block of steps, which the
// series layout then holds, and a point's series reads it from there (the rest from the planes),
// with exactly ecCodes' values. `ingest --once --layouts plane,series` does the same.
TEST(IngestCliTest, ARunAppendedStepByStepKeepsItsSeriesLayout) {
  testing::ScopedTempDir dir;
  const std::string store = dir.Sub("store");
  std::filesystem::create_directories(dir.Sub("cli"));
  constexpr int kSteps = 4;  // WriteRunStep's steps
  std::vector<std::vector<float>> expected;
  for (int k = 0; k < kSteps; ++k) {
    const std::string file = dir.Sub("f" + std::to_string(6 * k) + ".grib");
    ASSERT_EQ(testing::WriteRunStep(file, k), 4);
    expected.push_back(ExpectedT(file));
    RunResult r =
        RunGridStore(dir.Sub("cli"), store,
                     {"import", file, "--dataset", "gfs/run", "--append", "--expected-steps",
                      std::to_string(kSteps), "--layouts", "plane,series", "--series-steps", "2"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    RunResult info = RunGridStore(dir.Sub("cli"), store, {"info", "gfs/run/m00"});
    const int held = k + 1 == kSteps ? kSteps : (k + 1) / 2 * 2;
    EXPECT_THAT(info.out,
                ::testing::HasSubstr(k + 1 == kSteps ? std::string("2 steps x")
                                     : held == 0     ? std::string("growing: no step yet")
                                                 : "growing: steps 0-" + std::to_string(held - 1)))
        << info.out;
    // A point's series (t at 850 hPa) over the steps so far, value by value.
    const std::vector<std::string> point = {
        "fetch",    "gfs/run/m00", "--variables", "t",
        "--origin", "0,1,30,60",   "--shape",     std::to_string(k + 1) + ",1,1,1"};
    std::vector<std::string> csv = point;
    csv.insert(csv.end(), {"--format", "csv"});
    RunResult got = RunGridStore(dir.Sub("cli"), store, csv);
    ASSERT_EQ(got.exit_code, 0) << got.err;
    const std::vector<float> values = LastColumn(got.out);
    ASSERT_EQ(values.size(), size_t(k + 1));
    for (int t = 0; t <= k; ++t) {
      EXPECT_EQ(values[size_t(t)], expected[size_t(t)][size_t(61 * 120 + 30 * 120 + 60)]) << t;
    }
    std::vector<std::string> explain = point;
    explain.push_back("--explain");
    RunResult plan = RunGridStore(dir.Sub("cli"), store, explain);
    EXPECT_THAT(plan.out, ::testing::HasSubstr(held >= 2 ? "series" : "plane")) << plan.out;
  }
  RunResult verify = RunGridStore(dir.Sub("cli"), store, {"verify", "gfs/run/m00"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;

  // ingest --once, asking for the series layout: the run it makes holds its whole blocks.
  const std::string in = dir.Sub("incoming");
  std::filesystem::create_directories(in);
  for (int k = 0; k < 2; ++k) {  // f000, f006
    ASSERT_EQ(testing::WriteRunStep(in + "/era.t06z.f00" + std::to_string(6 * k), k), 4);
  }
  RunResult ingest =
      RunGridStore(dir.Sub("cli"), store,
                   {"ingest", "--watch", in, "--dataset-from", "era.t{run}z.f{step}", "--dataset",
                    "era/{run}Z", "--once", "--layouts", "plane,series", "--series-steps", "2"});
  EXPECT_EQ(ingest.exit_code, 0) << ingest.err;
  EXPECT_EQ(ingest.err.find("series layout"), std::string::npos) << ingest.err;
  RunResult info = RunGridStore(dir.Sub("cli"), store, {"info", "era/06Z/m00"});
  EXPECT_THAT(info.out, ::testing::HasSubstr("growing: steps 0-1")) << info.out;
  info = RunGridStore(dir.Sub("cli"), store, {"info", "era/06Z/m00", "--json"});
  EXPECT_THAT(info.out, ::testing::HasSubstr("\"held_steps\": 2")) << info.out;
}

// All steps in one block (--series-steps all) on a run still arriving: each import stores its
// step and says the series layout comes with the whole run (exit 0, not an error after the
// planes are in); the import that completes the run adds it, one block of every step.
TEST(IngestCliTest, AllStepsInOneSeriesBlockWaitsForTheWholeRun) {
  testing::ScopedTempDir dir;
  const std::string store = dir.Sub("store");
  std::filesystem::create_directories(dir.Sub("cli"));
  constexpr int kSteps = 3;
  for (int k = 0; k < kSteps; ++k) {
    const std::string file = dir.Sub("f" + std::to_string(6 * k) + ".grib");
    ASSERT_EQ(testing::WriteRunStep(file, k), 4);
    RunResult r = RunGridStore(
        dir.Sub("cli"), store,
        {"import", file, "--dataset", "gfs/run", "--append", "--expected-steps",
         std::to_string(kSteps), "--layouts", "plane,series", "--series-steps", "all"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    RunResult info = RunGridStore(dir.Sub("cli"), store, {"info", "gfs/run/m00"});
    if (k + 1 < kSteps) {
      EXPECT_THAT(r.out,
                  ::testing::HasSubstr("the series layout is added when the run is complete"));
      EXPECT_THAT(info.out, ::testing::HasSubstr("INGESTING")) << info.out;
      EXPECT_THAT(info.out, ::testing::Not(::testing::HasSubstr("series layout"))) << info.out;
    } else {
      EXPECT_THAT(r.out, ::testing::HasSubstr("series layout (3 steps x")) << r.out;
      EXPECT_THAT(info.out, ::testing::HasSubstr("DONE")) << info.out;
    }
  }
}

}  // namespace
}  // namespace gridstore
