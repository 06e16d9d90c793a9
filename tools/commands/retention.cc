// Copyright 2026 The GridStore Authors.
//
// `gridstore retention [--older-than DURATION] [--where EXPR] [--dry-run]`: deletes the datasets
// whose time has passed (grid/retention.h has the rules) and reclaims their space.
// `gridstore retention --collection C --keep-runs N [--dry-run]`: keeps a forecast collection's
// newest N runs (forecast/collection.h).
#include "gridstore/grid/retention.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "gridstore/catalog/query_parser.h"
#include "gridstore/forecast/collection.h"
#include "gridstore/util/internal/strings.h"
#include "tools/cli_parse.h"
#include "tools/commands/command.h"
#include "tools/info_format.h"
#include "tools/text_escape.h"

namespace gridstore::tools {
namespace {

struct RetentionArgs {
  std::optional<std::string> older_than;
  std::optional<std::string> where;
  bool dry_run = false;
  std::optional<std::string> collection;
  std::optional<int64_t> keep_runs;
};

Status RunCollectionRetention(const CommandContext& context, const RetentionArgs& args) {
  if (!args.collection || !args.keep_runs) {
    return Status::InvalidArgument("--collection and --keep-runs go together");
  }
  if (args.older_than || args.where) {
    return Status::InvalidArgument(
        "--collection/--keep-runs keep runs by count: give no --older-than or --where with them");
  }
  GRIDSTORE_ASSIGN_OR_RETURN(auto store, context.OpenStore({.read_only = args.dry_run}));
  GRIDSTORE_ASSIGN_OR_RETURN(
      std::vector<std::string> ids,
      forecast::KeepNewestRuns(*store, *args.collection, *args.keep_runs, args.dry_run));
  for (const std::string& id : ids) {
    std::printf("%s %s\n", args.dry_run ? "would delete" : "deleted", EscapeBytes(id).c_str());
  }
  if (!args.dry_run && !ids.empty()) GRIDSTORE_RETURN_IF_ERROR(store->Flush());
  std::printf("retention: collection %s keeps its newest %ld run(s); %s %ld dataset(s)\n",
              EscapeBytes(*args.collection).c_str(), static_cast<long>(*args.keep_runs),
              args.dry_run ? "would delete" : "deleted", static_cast<long>(ids.size()));
  return Status::OK();
}

Status RunRetention(const CommandContext& context, const RetentionArgs& args) {
  if (args.collection || args.keep_runs) return RunCollectionRetention(context, args);
  grid::RetentionPolicy policy;
  if (args.older_than) {
    GRIDSTORE_ASSIGN_OR_RETURN(policy.older_than_ms,
                               grid::ParseDurationMs(*args.older_than, "--older-than"));
  }
  if (args.where) {
    auto parsed = grid::ParseQuery(*args.where);
    if (!parsed.ok()) return parsed.status().WithContext("--where");
    policy.where = *std::move(parsed);
  }
  policy.dry_run = args.dry_run;
  GRIDSTORE_ASSIGN_OR_RETURN(auto store, context.OpenStore({.read_only = args.dry_run}));
  GRIDSTORE_ASSIGN_OR_RETURN(grid::RetentionReport report, grid::ApplyRetention(*store, policy));
  uint64_t bytes = 0;
  int64_t deleted = 0;
  for (const grid::RetentionReport::Expired& e : report.expired) {
    const char* verb = args.dry_run ? "would delete" : e.deleted ? "deleted" : "gone already";
    const std::string created =
        e.create_time_ms >= 0 ? "created " + FormatTimestampMs(e.create_time_ms) + ", " : "";
    std::printf("%s %s (%sexpired %s: %s), %s\n", verb, EscapeBytes(e.id).c_str(), created.c_str(),
                FormatTimestampMs(e.expires_ms).c_str(), e.rule.c_str(),
                HumanBytes(static_cast<double>(e.bytes)).c_str());
    if (args.dry_run || e.deleted) bytes += e.bytes, ++deleted;
  }
  for (const grid::RetentionReport::Skipped& s : report.skipped) {
    std::printf("left %s: %s\n", EscapeBytes(s.id).c_str(), EscapeBytes(s.why).c_str());
  }
  std::printf("retention: %ld of %ld dataset(s) expired; %s %ld, about %s\n",
              static_cast<long>(report.expired.size()), static_cast<long>(report.examined),
              args.dry_run ? "would delete" : "deleted", static_cast<long>(deleted),
              HumanBytes(static_cast<double>(bytes)).c_str());
  return Status::OK();
}

}  // namespace

Command RegisterRetention(CLI::App& parent, const CommandContext& context) {
  auto args = std::make_shared<RetentionArgs>();
  CLI::App* app = parent.add_subcommand(
      "retention",
      "Delete the datasets whose time has passed (expires, create_time + ttl, or --older-than) "
      "and reclaim their space");
  AddOptionalString(app, "--older-than", &args->older_than,
                    "Delete complete datasets created longer ago than this (7d, 36h, 1d12h); "
                    "a dataset's own 'expires' or 'ttl' attribute wins")
      ->type_name("DURATION");
  AddOptionalString(app, "--where", &args->where,
                    "Only datasets matching this condition (the query language of `query`)")
      ->type_name("EXPR");
  AddOptionalString(app, "--collection", &args->collection,
                    "A forecast collection whose oldest runs go (with --keep-runs)")
      ->type_name("C");
  app->add_option("--keep-runs", args->keep_runs, "With --collection: the newest runs to keep")
      ->type_name("N");
  app->add_flag("--dry-run", args->dry_run, "List what would be deleted; delete nothing");
  return {app, Done([&context, args] { return RunRetention(context, *args); })};
}

}  // namespace gridstore::tools
