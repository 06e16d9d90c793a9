// Copyright 2026 The GridStore Authors.
//
// `gridstore index create|list|drop`: the meta indexes that `query` searches fast.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "gridstore/model/names.h"
#include "gridstore/util/internal/strings.h"
#include "tools/commands/command.h"
#include "tools/meta_commands.h"
#include "tools/text_escape.h"

namespace gridstore::tools {
namespace {

struct IndexArgs {
  std::string name;
  std::vector<std::string> fields;
};

// Checked here, not only by the library, so that a bad name or field creates no store.
Result<grid::MetaIndexSchema> ParseSchema(const IndexArgs& args) {
  GRIDSTORE_RETURN_IF_ERROR(grid::ValidateIndexName(args.name));
  grid::MetaIndexSchema schema;
  std::set<std::string, std::less<>> names;
  for (const std::string& arg : args.fields) {
    GRIDSTORE_ASSIGN_OR_RETURN(grid::IndexField field, ParseIndexField(arg));
    GRIDSTORE_RETURN_IF_ERROR(
        grid::ValidateIndexFieldName(field.name).WithContext("index field " + Quote(arg)));
    if (!names.insert(field.name).second) {
      return Status::InvalidArgument("index field " + Quote(field.name) + " is given twice");
    }
    schema.fields.push_back(field);
  }
  return schema;
}

Status RunIndexCreate(const CommandContext& context, const IndexArgs& args) {
  GRIDSTORE_ASSIGN_OR_RETURN(grid::MetaIndexSchema schema, ParseSchema(args));
  GRIDSTORE_ASSIGN_OR_RETURN(auto store, context.OpenStore({.create_if_missing = true}));
  GRIDSTORE_RETURN_IF_ERROR(store->CreateMetaIndex(args.name, schema));
  GRIDSTORE_RETURN_IF_ERROR(Settle(store.get()));
  std::printf("created index %s: %s\n", Quote(args.name).c_str(),
              FormatIndexSchema(schema).c_str());
  return Status::OK();
}

Status RunIndexList(const CommandContext& context) {
  GRIDSTORE_ASSIGN_OR_RETURN(auto store, context.OpenStore({.read_only = true}));
  GRIDSTORE_ASSIGN_OR_RETURN(auto indexes, store->ListMetaIndexes());
  for (const auto& i : indexes) {
    std::printf("%s  %s\n", EscapeBytes(i.name).c_str(), FormatIndexSchema(i.schema).c_str());
  }
  return Status::OK();
}

Status RunIndexDrop(const CommandContext& context, const std::string& name) {
  GRIDSTORE_ASSIGN_OR_RETURN(auto store, context.OpenStore({}));
  GRIDSTORE_RETURN_IF_ERROR(store->DropMetaIndex(name));
  GRIDSTORE_RETURN_IF_ERROR(Settle(store.get()));
  std::printf("dropped index %s\n", Quote(name).c_str());
  return Status::OK();
}

}  // namespace

std::vector<Command> RegisterIndex(CLI::App& parent, const CommandContext& context) {
  auto args = std::make_shared<IndexArgs>();
  CLI::App* index =
      parent.add_subcommand("index", "Manage meta indexes (what `query` searches fast)");
  index->require_subcommand(1);

  CLI::App* create = index->add_subcommand("create", "Create an index (indexes every dataset)");
  create->add_option("NAME", args->name, "Index name")->required();
  create->add_option("FIELDS", args->fields, "FIELD:TYPE... (TYPE: string, int64, double, bool)")
      ->required()
      ->type_name("FIELD:TYPE");
  CLI::App* list = index->add_subcommand("list", "List the indexes and their fields");
  CLI::App* drop = index->add_subcommand("drop", "Drop an index");
  drop->add_option("NAME", args->name, "Index name")->required();

  return {{create, Done([&context, args] { return RunIndexCreate(context, *args); })},
          {list, Done([&context] { return RunIndexList(context); })},
          {drop, Done([&context, args] { return RunIndexDrop(context, args->name); })}};
}

}  // namespace gridstore::tools
