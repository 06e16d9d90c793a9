// Copyright 2026 The GridStore Authors.
//
// gridstore_docgen MAN_PAGE BASH_COMPLETION: writes the man page and the bash completion of
// `gridstore` from its command-line definition (tools/cli_app.h). Run by the build.
#include <cstdio>
#include <fstream>
#include <string>

#include "tools/cli_app.h"
#include "tools/docgen.h"

namespace {

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "gridstore_docgen: cannot write '%s'\n", path.c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fputs("usage: gridstore_docgen MAN_PAGE BASH_COMPLETION\n", stderr);
    return gridstore::tools::kExitUsage;
  }
  return gridstore::tools::RunGuarded([&] {
    const gridstore::tools::CliApp cli;
    const bool ok = WriteFile(argv[1], gridstore::tools::ManPage(cli.app())) &&
                    WriteFile(argv[2], gridstore::tools::BashCompletion(cli.app()));
    return ok ? gridstore::tools::kExitSuccess : gridstore::tools::kExitError;
  });
}
