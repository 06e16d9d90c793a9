// Copyright 2026 The GridStore Authors.
#include "tests/storage/rados_command.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>

#include "tests/test_stores.h"

namespace gridstore::testing {

Result<std::string> RadosCommand(const std::string& ns, const std::string& args) {
  std::string command = "rados -c '" + RadosTestConf() + "' -p '" + RadosTestPool() + "'";
  if (!ns.empty()) command += " -N '" + ns + "'";
  // Ceph's client logs (monclient warnings) go to stderr at any time: keep them out of the
  // listing, and show them only when the command fails.
  const std::string err_path = ::testing::TempDir() + "rados_command_stderr";
  command += " " + args + " 2>'" + err_path + "'";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return Status::Internal("popen failed: " + command);
  std::string out;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof(buf), pipe)) > 0;) out.append(buf, n);
  const int rc = pclose(pipe);
  if (rc != 0) {
    std::ifstream err(err_path);
    const std::string err_text((std::istreambuf_iterator<char>(err)), {});
    return Status::Internal("`" + command + "` failed: " + out + err_text);
  }
  return out;
}

std::set<std::string> Lines(const std::string& text) {
  std::set<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) lines.insert(line);
  }
  return lines;
}

}  // namespace gridstore::testing
