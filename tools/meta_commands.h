// Copyright 2026 The GridStore Authors.
//
// The logic behind `gridstore query`, `gridstore index` and `gridstore meta put` that is worth
// testing without the binary: argument parsing, what an index does not cover, the JSON-lines input
// of `meta put`, and the query result as JSON. (The library chooses the index:
// GridStore::QueryDataSets without an index name.)
#ifndef GRIDSTORE_TOOLS_META_COMMANDS_H_
#define GRIDSTORE_TOOLS_META_COMMANDS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/catalog/meta_query.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::tools {

// "FIELD[:asc|:desc],..." -> sort keys ("" -> none). InvalidArgument naming --sort and the bad
// item (an empty item too).
Result<std::vector<grid::SortField>> ParseSort(std::string_view text);

// "FIELD:TYPE" with TYPE string (or keyword), int64, double or bool. InvalidArgument naming the
// argument otherwise.
Result<grid::IndexField> ParseIndexField(std::string_view text);
// "status:string, create_time:int64".
std::string FormatIndexSchema(const grid::MetaIndexSchema& schema);

// The distinct attribute names a query's conditions name, in first-seen order.
std::vector<std::string> QueryFields(const grid::Query& query);

// The fields of the query and the sort that `schema` does not hold, comma-separated ("" if none).
std::string UncoveredFields(const grid::Query& query, const std::vector<grid::SortField>& sort,
                            const grid::MetaIndexSchema* schema);

// {"total", "datasets", "plan", "scanned", "next_token"}, pretty-printed; with `ids_only`, each
// of "datasets" holds the id alone.
std::string FormatQueryResultJson(const grid::QueryResult& result, bool ids_only = false);

// One line of `meta put` input: {"id": "...", "attributes": {...}}. A null attribute value
// removes that attribute.
struct MetaPutLine {
  std::string id;
  grid::Attributes set;
  std::vector<std::string> remove;
};

// Parses line `line_number` (1-based) of `meta put` input. InvalidArgument "line N: what is
// wrong" if it is not such an object, names no valid id, or holds a value that is not a string,
// number, boolean or null.
Result<MetaPutLine> ParseMetaPutLine(std::string_view text, size_t line_number);

struct MetaPutSummary {
  int64_t created = 0;
  int64_t updated = 0;
};

// Parses every line of `input` (blank lines are skipped) without a store: the first error, as
// ParseMetaPutLine gives it; InvalidArgument too if there is no line at all.
Status CheckMetaPutInput(std::string_view input);

// Applies JSON lines (blank lines are skipped) in order: a dataset that does not exist is created
// as a data-less meta (id and attributes); one that exists gets the attributes merged in
// (variables, coordinates and data are kept). Call CheckMetaPutInput first: this function checks
// only what needs the store before it writes, and stops at the first line that fails then. A
// dataset named on several lines counts as created once, then updated. Lines are written in
// atomic batches of 1000: on a store failure, earlier batches stay written (the error says how
// many datasets were), and none of the failing batch is.
Result<MetaPutSummary> PutMetas(grid::GridStore* store, std::string_view input);

}  // namespace gridstore::tools

#endif  // GRIDSTORE_TOOLS_META_COMMANDS_H_
