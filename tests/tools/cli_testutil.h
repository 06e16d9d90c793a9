// Copyright 2026 The GridStore Authors.
//
// Running the real `gridstore` binary from tests: its exit code, stdout and stderr.
#ifndef GRIDSTORE_TESTS_TOOLS_CLI_TESTUTIL_H_
#define GRIDSTORE_TESTS_TOOLS_CLI_TESTUTIL_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gridstore::testing {

struct RunResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// `s` single-quoted for /bin/sh.
inline std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// Runs `prefix gridstore args...` (GRIDSTORE_CLI is the binary's path), with `stdin_text` on
// standard input; the output files go to `work_dir`.
inline RunResult RunGridStoreArgs(const std::string& work_dir, const std::vector<std::string>& args,
                                  const std::string& stdin_text = "",
                                  const std::string& prefix = "") {
  const std::string in = work_dir + "/stdin", out = work_dir + "/stdout",
                    err = work_dir + "/stderr";
  std::ofstream(in, std::ios::binary) << stdin_text;
  std::string cmd = prefix + ShellQuote(GRIDSTORE_CLI);
  for (const auto& a : args) cmd += " " + ShellQuote(a);
  cmd += " > " + ShellQuote(out) + " 2> " + ShellQuote(err) + " < " + ShellQuote(in);
  const int status = std::system(cmd.c_str());
  RunResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadFile(out);
  r.err = ReadFile(err);
  return r;
}

// Runs `prefix gridstore --store STORE args...`.
inline RunResult RunGridStore(const std::string& work_dir, const std::string& store,
                              const std::vector<std::string>& args,
                              const std::string& stdin_text = "", const std::string& prefix = "") {
  std::vector<std::string> all = {"--store", store};
  all.insert(all.end(), args.begin(), args.end());
  return RunGridStoreArgs(work_dir, all, stdin_text, prefix);
}

// AddressSanitizer reserves terabytes of address space at start, so a binary built with it cannot
// run under `ulimit -v`: tests that exhaust memory or threads that way run in the normal build.
#if defined(__SANITIZE_ADDRESS__)
#define GRIDSTORE_SKIP_UNDER_ADDRESS_LIMIT() \
  GTEST_SKIP() << "ulimit -v cannot run an AddressSanitizer binary; the normal build runs this"
#else
#define GRIDSTORE_SKIP_UNDER_ADDRESS_LIMIT() (void)0
#endif

// Expects exit status 1 and one line on stderr, "gridstore: ...", containing every part.
inline void ExpectCliError(const RunResult& r, std::initializer_list<std::string> parts) {
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.rfind("gridstore: ", 0), 0u) << r.err;
  for (const auto& p : parts) EXPECT_THAT(r.err, ::testing::HasSubstr(p));
}

}  // namespace gridstore::testing

#endif  // GRIDSTORE_TESTS_TOOLS_CLI_TESTUTIL_H_
