// Copyright 2026 The GridStore Authors.
//
// `gridstore delete ID`: a dataset's meta, data and index entries, atomically.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "gridstore/util/internal/strings.h"
#include "tools/commands/command.h"

namespace gridstore::tools {
namespace {

Status RunDelete(const CommandContext& context, const std::string& id) {
  GRIDSTORE_ASSIGN_OR_RETURN(auto store, context.OpenStore({}));
  GRIDSTORE_RETURN_IF_ERROR(store->DeleteDataSet(id));
  GRIDSTORE_RETURN_IF_ERROR(Settle(store.get()));
  std::printf("deleted %s\n", Quote(id).c_str());
  return Status::OK();
}

}  // namespace

Command RegisterDelete(CLI::App& parent, const CommandContext& context) {
  auto id = std::make_shared<std::string>();
  CLI::App* app = parent.add_subcommand("delete", "Delete a dataset: meta, data and index entries");
  app->add_option("ID", *id, "Dataset id")->required();
  return {app, Done([&context, id] { return RunDelete(context, *id); })};
}

}  // namespace gridstore::tools
