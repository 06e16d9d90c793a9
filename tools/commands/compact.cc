// Copyright 2026 The GridStore Authors.
//
// `gridstore compact`: removes what interrupted writes left behind and reclaims space.
#include <CLI/CLI.hpp>
#include <cstdio>

#include "tools/cli_parse.h"
#include "tools/commands/command.h"

namespace gridstore::tools {
namespace {

Status RunCompact(const CommandContext& context) {
  GRIDSTORE_ASSIGN_OR_RETURN(auto store, context.OpenStore({}));
  GRIDSTORE_ASSIGN_OR_RETURN(auto report, store->Compact());
  std::printf(
      "compacted: removed %ld orphan block group(s) and %ld abandoned replacement(s), %ld "
      "block(s) in all; tables %s -> %s\n",
      static_cast<long>(report.orphan_incarnations), static_cast<long>(report.replacements_removed),
      static_cast<long>(report.orphan_blocks),
      HumanBytes(static_cast<double>(report.bytes_before)).c_str(),
      HumanBytes(static_cast<double>(report.bytes_after)).c_str());
  return Status::OK();
}

}  // namespace

Command RegisterCompact(CLI::App& parent, const CommandContext& context) {
  CLI::App* app = parent.add_subcommand(
      "compact", "Remove what interrupted imports and deletes left behind, and reclaim space");
  return {app, Done([&context] { return RunCompact(context); })};
}

}  // namespace gridstore::tools
