// Copyright 2026 The GridStore Authors.
//
// `gridstore info ID [--json]`: what a dataset holds.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "tools/commands/command.h"
#include "tools/info_format.h"

namespace gridstore::tools {
namespace {

struct InfoArgs {
  std::string id;
  bool json = false;
};

Status RunInfo(const CommandContext& context, const InfoArgs& args) {
  GRIDSTORE_ASSIGN_OR_RETURN(auto store, context.OpenStore({.read_only = true}));
  GRIDSTORE_ASSIGN_OR_RETURN(grid::DataSetMeta meta, store->GetDataSetMeta(args.id));
  auto size = store->ApproximateDataSetSize(args.id);
  std::optional<uint64_t> stored;
  if (size.ok()) stored = *size;
  std::fputs((args.json ? FormatInfoJson(meta, stored) : FormatInfoText(meta, stored)).c_str(),
             stdout);
  return Status::OK();
}

}  // namespace

Command RegisterInfo(CLI::App& parent, const CommandContext& context) {
  auto args = std::make_shared<InfoArgs>();
  CLI::App* app = parent.add_subcommand("info", "Describe a dataset");
  app->add_option("ID", args->id, "Dataset id")->required();
  app->add_flag("--json", args->json, "Print JSON");
  return {app, Done([&context, args] { return RunInfo(context, *args); })};
}

}  // namespace gridstore::tools
