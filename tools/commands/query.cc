// Copyright 2026 The GridStore Authors.
//
// `gridstore query [--where EXPR] [--sort ...] ...`: datasets by their attributes.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gridstore/catalog/query_parser.h"
#include "gridstore/util/internal/strings.h"
#include "tools/cli_parse.h"
#include "tools/commands/command.h"
#include "tools/info_format.h"
#include "tools/meta_commands.h"
#include "tools/text_escape.h"

namespace gridstore::tools {
namespace {

struct QueryArgs {
  std::optional<std::string> where;
  std::optional<std::string> sort;
  std::string index;
  std::optional<std::string> offset;
  std::optional<std::string> limit;
  bool json = false;
  bool ids = false;
};

// Everything the options say, checked before the store is opened.
struct QueryRequest {
  grid::Query query;  // every dataset unless --where
  grid::QueryParams params;
};

Result<QueryRequest> ParseRequest(const QueryArgs& args) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  QueryRequest request;
  request.params.offset = 0;
  request.params.limit = -1;  // all
  if (args.offset) {
    GRIDSTORE_ASSIGN_OR_RETURN(request.params.offset,
                               ParseIntegerFlag(*args.offset, "--offset", 0, kMax));
  }
  if (args.limit) {
    GRIDSTORE_ASSIGN_OR_RETURN(request.params.limit,
                               ParseIntegerFlag(*args.limit, "--limit", 0, kMax));
  }
  if (args.where) {
    auto parsed = grid::ParseQuery(*args.where);
    if (!parsed.ok()) return parsed.status().WithContext("--where");
    request.query = *std::move(parsed);
  }
  if (args.sort) {
    GRIDSTORE_ASSIGN_OR_RETURN(request.params.sort, ParseSort(*args.sort));
  }
  request.params.get_total_count = true;
  request.params.ids_only = args.ids;
  return request;
}

// --index if it names one of `indexes` ("" if not given: the library then chooses).
Result<std::string> IndexToUse(const std::string& requested,
                               const std::vector<grid::MetaIndexInfo>& indexes) {
  if (requested.empty()) return std::string();
  const bool known = std::any_of(indexes.begin(), indexes.end(),
                                 [&](const auto& i) { return i.name == requested; });
  if (known) return requested;
  return Status::NotFound(
      "no index named " + Quote(requested) + " in this store" +
      (indexes.empty() ? std::string(" (it has none; create one with `gridstore index create`)")
                       : " (it has " + Join(indexes, ", ", [](const grid::MetaIndexInfo& i) {
                           return Quote(i.name);
                         }) + ")"));
}

// On stderr: that the store was scanned, and why (the index does not cover the fields).
void NoteScan(const grid::QueryResult& result, const QueryRequest& request,
              const std::string& index, const std::vector<grid::MetaIndexInfo>& indexes) {
  const grid::MetaIndexSchema* schema = nullptr;
  for (const auto& i : indexes) {
    if (i.name == index) schema = &i.schema;
  }
  const std::string uncovered = UncoveredFields(request.query, request.params.sort, schema);
  std::string note = result.plan;
  if (index.empty()) {
    note = uncovered.empty() ? "the store has no index" : "no index covers " + uncovered;
  } else if (!uncovered.empty()) {
    note = "index " + Quote(index) + " does not cover " + uncovered;
  }
  std::fprintf(stderr, "(scanned: %s)\n", SanitizeMessage(note, false).c_str());
}

Status RunQuery(const CommandContext& context, const QueryArgs& args) {
  GRIDSTORE_ASSIGN_OR_RETURN(QueryRequest request, ParseRequest(args));
  GRIDSTORE_ASSIGN_OR_RETURN(auto store, context.OpenStore({.read_only = true}));
  GRIDSTORE_ASSIGN_OR_RETURN(auto indexes, store->ListMetaIndexes());
  GRIDSTORE_ASSIGN_OR_RETURN(const std::string requested, IndexToUse(args.index, indexes));
  // Without --index the library chooses one; result.index says which.
  GRIDSTORE_ASSIGN_OR_RETURN(grid::QueryResult result,
                             requested.empty()
                                 ? store->QueryDataSets(request.query, request.params)
                                 : store->QueryDataSets(requested, request.query, request.params));
  const std::string index = result.index;
  if (args.json) {
    std::fputs(FormatQueryResultJson(result, args.ids).c_str(), stdout);
    return Status::OK();
  }
  const size_t total = static_cast<size_t>(std::max<int64_t>(result.total, 0));
  std::fputs((args.ids ? FormatIdListText(result.ids) : FormatDataSetListText(result.metas, total))
                 .c_str(),
             stdout);
  if (result.scanned) NoteScan(result, request, index, indexes);
  return Status::OK();
}

}  // namespace

Command RegisterQuery(CLI::App& parent, const CommandContext& context) {
  auto args = std::make_shared<QueryArgs>();
  CLI::App* app = parent.add_subcommand("query", "Find datasets by their attributes");
  AddOptionalString(app, "--where", &args->where,
                    "Condition on attributes: status = 'DONE' and create_time > now - 1 day and "
                    "(source = 'ECMWF' or source in ('NMC'))")
      ->type_name("EXPR");
  AddOptionalString(app, "--sort", &args->sort, "FIELD[:asc|:desc],... (ties break on id)")
      ->type_name("FIELD[:asc|:desc],...");
  app->add_option("--index", args->index,
                  "Meta index to use (default: the only one, else the one covering most fields)")
      ->type_name("NAME");
  AddOptionalString(app, "--offset", &args->offset, "Datasets to skip (default 0)")->type_name("N");
  AddOptionalString(app, "--limit", &args->limit, "Most datasets to print (default: all)")
      ->type_name("N");
  app->add_flag("--json", args->json, "Print JSON");
  app->add_flag("--ids", args->ids,
                "Print the ids alone, one per line (with --json: entries of \"id\" only); a "
                "query the index covers then reads no meta");
  return {app, Done([&context, args] { return RunQuery(context, *args); })};
}

}  // namespace gridstore::tools
