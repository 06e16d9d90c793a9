// Copyright 2026 The GridStore Authors.
//
// The `gridstore` command (docs/usage.md). Its commands are in tools/commands/, its command line
// and exit statuses in tools/cli_app.h.
#include <cstring>

#include "tools/cli_app.h"
#include "tools/commands/command.h"

int main(int argc, char** argv) {
  using gridstore::tools::kGribCheckChildArgument;
  if (argc == 3 && std::strcmp(argv[1], kGribCheckChildArgument) == 0) {
    return gridstore::tools::RunGuarded(
        [&] { return gridstore::tools::RunGribCheckChild(argv[2]); });
  }
  return gridstore::tools::RunGuarded([&] {
    gridstore::tools::CliApp cli;
    return cli.Run(argc, argv);
  });
}
