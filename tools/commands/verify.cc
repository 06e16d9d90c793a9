// Copyright 2026 The GridStore Authors.
//
// `gridstore verify [ID]`: reads and checks every block; damage is exit status 3.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "gridstore/grid/grid_verify.h"
#include "gridstore/util/internal/strings.h"
#include "tools/cli_parse.h"
#include "tools/commands/command.h"
#include "tools/text_escape.h"

namespace gridstore::tools {
namespace {

// One line per problem and per orphan group, then the summary line.
void PrintReport(const grid::VerifyReport& report) {
  for (const auto& p : report.problems) {
    const std::string message = SanitizeMessage(p.message, false);
    if (p.dataset.empty()) {
      std::printf("CORRUPT store: %s\n", message.c_str());
    } else {
      std::printf("CORRUPT dataset %s: %s\n", Quote(p.dataset).c_str(), message.c_str());
    }
  }
  int64_t orphan_blocks = 0;
  uint64_t orphan_bytes = 0;
  for (const auto& o : report.orphans) {
    std::printf("ORPHAN dataset %s incarnation %016llx: %ld block(s), %s: %s\n",
                Quote(o.dataset).c_str(), static_cast<unsigned long long>(o.incarnation),
                static_cast<long>(o.blocks), HumanBytes(static_cast<double>(o.bytes)).c_str(),
                o.reason.c_str());
    orphan_blocks += o.blocks;
    orphan_bytes += o.bytes;
  }
  std::string extra;
  if (report.datasets_not_done > 0) {
    extra += ", " + std::to_string(report.datasets_not_done) + " dataset(s) not DONE";
  }
  if (report.replacements_in_progress > 0) {
    extra +=
        ", " + std::to_string(report.replacements_in_progress) + " replacement(s) being written";
  }
  if (!report.orphans.empty()) {
    extra += ", " + std::to_string(orphan_blocks) + " orphan block(s) (" +
             HumanBytes(static_cast<double>(orphan_bytes)) +
             ") left by interrupted writes: `gridstore compact` removes them";
  }
  std::printf("verified %ld dataset(s), %ld block(s), %s: %zu problem(s)%s\n",
              static_cast<long>(report.datasets), static_cast<long>(report.blocks),
              HumanBytes(static_cast<double>(report.bytes_read)).c_str(), report.problems.size(),
              extra.c_str());
}

Result<Outcome> RunVerify(const CommandContext& context, const std::string& id) {
  GRIDSTORE_ASSIGN_OR_RETURN(auto store, context.OpenStore({.read_only = true}));
  GRIDSTORE_ASSIGN_OR_RETURN(grid::VerifyReport report, store->Verify(id));
  PrintReport(report);
  return report.ok() ? Outcome::kDone : Outcome::kProblemsFound;
}

}  // namespace

Command RegisterVerify(CLI::App& parent, const CommandContext& context) {
  auto id = std::make_shared<std::string>();
  CLI::App* app = parent.add_subcommand(
      "verify",
      "Check every block (one dataset or all); exit 3 if anything is damaged. Also lists blocks "
      "that interrupted writes left behind");
  app->add_option("ID", *id, "Dataset id (default: the whole store)");
  return {app, [&context, id] { return RunVerify(context, *id); }};
}

}  // namespace gridstore::tools
