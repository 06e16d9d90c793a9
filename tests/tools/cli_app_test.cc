// Copyright 2026 The GridStore Authors.
//
// The command line as a whole (tools/cli_app.h): --version, --store before or after the command,
// what an unknown or missing command says, exit statuses decided in one place, and no exception
// leaving the command. The real binary where the process matters, the functions in-process where
// an outcome must be forced.
#include "tools/cli_app.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "gridstore/version.h"
#include "tests/test_util.h"
#include "tests/tools/cli_testutil.h"
#include "tests/tools/nc_testutil.h"

namespace gridstore {
namespace {

namespace fs = std::filesystem;
using testing::ExpectCliError;
using ::testing::HasSubstr;
using testing::RunGridStoreArgs;
using testing::RunResult;
using testing::ScopedTempDir;

class CliAppTest : public ::testing::Test {
 protected:
  RunResult Run(const std::vector<std::string>& args, const std::string& prefix = "") {
    return RunGridStoreArgs(dir_.path().string(), args, "", prefix);
  }
  std::string Sub(const std::string& name) const { return dir_.Sub(name); }

  ScopedTempDir dir_;
};

// Expects exit status 2 and one line on stderr, "gridstore: ...", containing `part`.
void ExpectUsageError(const RunResult& r, const std::string& part) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("gridstore: ", 0), 0u) << r.err;
  EXPECT_THAT(r.err, HasSubstr(part));
  EXPECT_EQ(r.out, "");
}

TEST_F(CliAppTest, VersionPrintsTheVersionAndOpensNoStore) {
  // The tests of the command run in a build with every feature (tests/CMakeLists.txt).
  const std::string version =
      std::string("gridstore ") + kVersion + "\nfeatures: rados grib geo server\n";
  EXPECT_EQ(version, "gridstore " + std::to_string(kVersionMajor) + "." +
                         std::to_string(kVersionMinor) + "." + std::to_string(kVersionPatch) +
                         "\nfeatures: rados grib geo server\n");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--version"}, {"--store", Sub("store"), "--version"}, {"--version", "fetch", "x"}}) {
    RunResult r = Run(args, "GRIDSTORE_STORE=" + Sub("env-store") + " ");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, version);
    EXPECT_EQ(r.err, "");
  }
  EXPECT_FALSE(fs::exists(Sub("store")));
  EXPECT_FALSE(fs::exists(Sub("env-store")));
  EXPECT_FALSE(fs::exists(Sub("gridstore-data")));
  EXPECT_THAT(Run({"--help"}).out, HasSubstr("--version"));
}

TEST_F(CliAppTest, StoreIsAcceptedAfterTheCommandToo) {
  const std::string file = Sub("in.nc");
  testing::WriteTestNetCdf(file, {"T"});
  const std::string store = Sub("store");
  RunResult r = Run({"import", file, "--dataset", "d", "--store", store});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(store));
  r = Run({"fetch", "--store", store, "d", "--shape", "1,1,1,1"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("0,0,0,0,0,10,20,30,100\n"));
  r = Run({"--store", store, "info", "--store", store, "d"});  // the same in both places
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("dataset      d\n"));
  r = Run({"index", "--store", store, "create", "i", "source:string"});  // after a group too
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Run({"index", "list", "--store=" + store});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "i  source:string\n");
}

TEST_F(CliAppTest, StoreGivenTwiceWithDifferentValuesIsAUsageErrorThatTouchesNeither) {
  const std::string a = Sub("a"), b = Sub("b");
  ExpectUsageError(Run({"--store", a, "meta", "put", "--store", b}),
                   "--store is given twice, as '" + a + "' and as '" + b + "'; give it once");
  ExpectUsageError(Run({"index", "--store", a, "create", "--store", b, "i", "x:string"}),
                   "--store is given twice");
  // $GRIDSTORE_STORE is only the default: one --store replaces it without conflict.
  RunResult r =
      Run({"index", "create", "--store", a, "i", "x:string"}, "GRIDSTORE_STORE=" + b + " ");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(a));
  EXPECT_FALSE(fs::exists(b));
  // Twice at one level is CLI11's usage error, as before.
  ExpectUsageError(Run({"--store", a, "--store", a, "index", "list"}), "--store");
}

TEST_F(CliAppTest, UnknownOrMissingCommandsSaySoAndListTheCommands) {
  const std::string commands =
      "(commands: import, ingest, info, query, fetch, extract, collections, serve, index, meta, "
      "delete, verify, compact, relayout, retention)";
  ExpectUsageError(Run({"fecth", "x"}), "gridstore: unknown command 'fecth' " + commands);
  ExpectUsageError(Run({}), "gridstore: no command given " + commands);
  ExpectUsageError(Run({"index", "lsit"}),
                   "unknown command 'index lsit' (index commands: create, list, drop)");
  ExpectUsageError(Run({"meta"}), "no command given after 'meta' (meta commands: put)");
  ExpectUsageError(Run({"--frob", "info", "x"}), "--frob");
  ExpectUsageError(Run({"--frob"}), "unknown option '--frob'");
  ExpectUsageError(Run({"fetch"}), "ID is required");
  ExpectUsageError(Run({"fetch"}), "(usage: gridstore fetch --help)");
  EXPECT_FALSE(fs::exists(Sub("gridstore-data")));
}

// Issue 29, 3.7: `--piont` answered as if it were a dataset id; a missing store said only that
// it was missing.
TEST_F(CliAppTest, Issue29TyposSuggestTheOptionAndAMissingStoreSaysWhatToDo) {
  ExpectUsageError(Run({"extract", "x", "--piont", "0,0"}),
                   "unknown option '--piont' (did you mean --point?)");
  ExpectUsageError(Run({"fetch", "x", "--varables", "t"}), "(did you mean --variables?)");
  const RunResult r = Run({"--store", Sub("nowhere"), "info", "x"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("no GridStore store at"));
  EXPECT_THAT(r.err, HasSubstr("--store URI or $GRIDSTORE_STORE"));
  EXPECT_THAT(r.err, HasSubstr("gridstore --store URI import FILE --dataset ID"));
  EXPECT_FALSE(fs::exists(Sub("nowhere")));
}

// Arguments a fuzzer or a careless script would give: each is a usage error of one line, never a
// crash, and opens no store.
TEST_F(CliAppTest, HostileArgumentsAreUsageErrorsNotCrashes) {
  for (const auto& args : std::vector<std::vector<std::string>>{{"--store"},
                                                                {"--=x"},
                                                                {"-"},
                                                                {"---x"},
                                                                {"--\xff"},
                                                                {"\x1b[2J"},
                                                                {"info", "--json=maybe", "x"},
                                                                {"import", "--attr"},
                                                                {"fetch", "-o"},
                                                                {"index", "create", "x"},
                                                                {std::string(100000, 'a')}}) {
    SCOPED_TRACE(args[0].substr(0, 20));
    RunResult r = Run(args, "cd " + testing::ShellQuote(dir_.path().string()) + " && ");
    EXPECT_EQ(r.exit_code, 2) << r.err.substr(0, 300);
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err.substr(0, 300);
    EXPECT_EQ(r.err.rfind("gridstore: ", 0), 0u) << r.err.substr(0, 300);
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos);  // escaped for the terminal
    EXPECT_FALSE(fs::exists(Sub("gridstore-data")));
  }
}

TEST(CliExitStatusTest, OutcomesAndErrorsMapToTheDocumentedStatuses) {
  using tools::Outcome;
  EXPECT_EQ(tools::ExitStatusOf(Outcome::kDone), 0);
  EXPECT_EQ(tools::ExitStatusOf(Outcome::kProblemsFound), 3);

  ::testing::internal::CaptureStderr();
  EXPECT_EQ(tools::ExitStatusOf(Status::NotFound("dataset 'x\x1b' does not exist\nreally")), 1);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "gridstore: dataset 'x\\x1b' does not exist\\x0areally\n");
  // Only a --where syntax error keeps its lines (the expression and the caret under it).
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(tools::ExitStatusOf(
                Status::InvalidArgument("--where: column 3: expected a value\n  a=\n    ^")),
            1);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(),
            "gridstore: --where: column 3: expected a value\n  a=\n    ^\n");
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(tools::ExitStatusOf(Status::DataLoss("--where: column 3: x\ny")), 1);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "gridstore: --where: column 3: x\\x0ay\n");
}

TEST(CliRunGuardedTest, EveryExceptionBecomesOneSentenceAndStatusOne) {
  struct Case {
    std::function<int()> body;
    std::string err;
  };
  const std::vector<Case> cases = {
      {[]() -> int { throw std::bad_alloc(); }, "gridstore: out of memory\n"},
      {[]() -> int { throw std::length_error("vector::_M_default_append"); },
       "gridstore: unexpected error: vector::_M_default_append\n"},
      {[]() -> int {
         throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                                 "thread \x1b[2J");
       },
       "gridstore: unexpected error: thread \\x1b[2J: Resource temporarily unavailable\n"},
      {[]() -> int { throw CLI::ConversionError("late"); }, "gridstore: unexpected error: late\n"},
      {[]() -> int { throw 42; }, "gridstore: unexpected error of an unknown kind\n"},
  };
  for (const Case& c : cases) {
    ::testing::internal::CaptureStderr();
    EXPECT_EQ(tools::RunGuarded(c.body), 1);
    EXPECT_EQ(::testing::internal::GetCapturedStderr(), c.err);
  }
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(tools::RunGuarded([] { return 3; }), 3);  // no exception: what the body returns
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

// The definition runs in-process as in the binary: a parse error is exit 2, --version exit 0.
TEST(CliAppInProcessTest, RunParsesAndMapsUsageErrors) {
  ::testing::internal::CaptureStdout();
  {
    tools::CliApp cli;
    const char* argv[] = {"gridstore", "--version"};
    EXPECT_EQ(cli.Run(2, argv), 0);
  }
  EXPECT_EQ(::testing::internal::GetCapturedStdout(),
            std::string("gridstore ") + kVersion + "\nfeatures: rados grib geo server\n");
  ::testing::internal::CaptureStderr();
  {
    tools::CliApp cli;
    const char* argv[] = {"gridstore", "nope"};
    EXPECT_EQ(cli.Run(2, argv), 2);
  }
  EXPECT_THAT(::testing::internal::GetCapturedStderr(), HasSubstr("unknown command 'nope'"));
}

}  // namespace
}  // namespace gridstore
