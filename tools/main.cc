// Copyright 2026 The GridStore Authors.
//
// The `gridstore` command (docs/usage.md). Its commands are in tools/commands/, its command line
// and exit statuses in tools/cli_app.h.
#include "tools/cli_app.h"

int main(int argc, char** argv) {
  return gridstore::tools::RunGuarded([&] {
    gridstore::tools::CliApp cli;
    return cli.Run(argc, argv);
  });
}
