// Copyright 2026 The GridStore Authors.
//
// Meta queries: find datasets by their attributes ("finished runs from the last day, from ECMWF or
// NMC, at 1 km, newest first"), answered inside the store and consistent at once: index entries
// are written in the same atomic batch as the meta they describe.
//
//   MetaIndexSchema schema{{{"status", IndexFieldType::kString},
//                           {"create_time", IndexFieldType::kInt64},
//                           {"source", IndexFieldType::kString}}};
//   store->CreateMetaIndex("main", schema);
//   Query q = QueryBuilder::And({QueryBuilder::Equal("status", "DONE"),
//                                QueryBuilder::GreaterThan("create_time", now_ms - 86'400'000),
//                                QueryBuilder::In("source", {"ECMWF", "NMC"})});
//   QueryParams params;
//   params.sort = {{"create_time", SortOrder::kDescending}};
//   params.limit = 10;
//   auto page = store->QueryDataSets("main", q, params);
//
// Semantics (docs/meta-queries.md has the full table):
//   - Values are strings, int64, double or bool. Numbers compare numerically across int64 and
//     double; strings compare bytewise (UTF-8 order); a value never equals or orders against a
//     value of another kind (a string attribute never matches `x > 3`).
//   - A missing attribute matches nothing but `not (...)` and `exists` is false; `!=` needs the
//     attribute to exist (SQL-like: `x != 3` is false for a dataset without x).
//   - NaN equals nothing and orders against nothing; `!=` matches it.
//   - Array-valued attributes (more than one number) match no condition.
//   - On an indexed field, only values of its declared type are indexed and visible to conditions
//     (a double field accepts int64 values too); a condition whose value cannot be of that type is
//     InvalidArgument naming the field and both types.
//   - Sorting by a field orders numbers numerically (NaN after them), then strings bytewise, then
//     false before true; descending reverses that order. Datasets without the field come last in
//     both directions. Ties break on id, ascending.
#ifndef GRIDSTORE_CATALOG_META_QUERY_H_
#define GRIDSTORE_CATALOG_META_QUERY_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::grid {

enum class IndexFieldType : uint8_t { kString = 1, kInt64 = 2, kDouble = 3, kBool = 4 };
// "string", "int64", "double", "bool".
std::string_view IndexFieldTypeName(IndexFieldType type);
// Parses IndexFieldTypeName's output (also "keyword" for string); InvalidArgument otherwise.
Result<IndexFieldType> ParseIndexFieldType(std::string_view name);

struct IndexField {
  std::string name;
  IndexFieldType type = IndexFieldType::kString;
  bool operator==(const IndexField&) const = default;
};

struct MetaIndexSchema {
  std::vector<IndexField> fields;
  bool operator==(const MetaIndexSchema&) const = default;
};

// An index as ListMetaIndexes reports it.
struct MetaIndexInfo {
  std::string name;
  MetaIndexSchema schema;
  bool operator==(const MetaIndexInfo&) const = default;
};

// A value in a condition.
using QueryValue = std::variant<std::string, int64_t, double, bool>;

// A query: a tree of conditions on dataset attributes. Build it with QueryBuilder. A value type,
// cheap to copy (nodes are shared and immutable).
class Query {
 public:
  enum class Op : uint8_t {
    kAll,  // matches every dataset
    kAnd,
    kOr,
    kNot,
    kEqual,
    kNotEqual,
    kIn,
    kGreater,
    kGreaterEqual,
    kLess,
    kLessEqual,
    kRange,  // lower <= v (or <) and v <= upper (or <)
    kPrefix,
    kExists,
  };
  struct Node {
    Op op = Op::kAll;
    std::string field;               // conditions
    std::vector<QueryValue> values;  // kEqual..kLessEqual, kPrefix: 1; kIn: n; kRange: 2
    bool include_lower = true;       // kRange
    bool include_upper = true;       // kRange
    std::vector<Query> children;     // kAnd, kOr: n; kNot: 1
  };

  Query();  // kAll
  explicit Query(std::shared_ptr<const Node> node) : node_(std::move(node)) {}
  const Node& node() const { return *node_; }
  // The query in the language of catalog/query_parser.h, which ParseQuery reads back as an equal
  // query: (status = "DONE" and create_time > 1700000000000). One spelling per query: strings in
  // double quotes (\\, \" and \xHH escapes), doubles always with a '.', an 'e' or a word (3.0,
  // 1e+300, -inf, nan), every `and` and `or` in parentheses, a range as 1 <= x < 2, the query that
  // matches everything as `true` and an empty `or` as `false`, attribute names in backquotes
  // where they are not plain words.
  std::string ToString() const;

  // The same tree: the same operations, fields and values in the same order (doubles by bit
  // pattern, so -0.0 differs from 0.0, but any NaN equals any NaN).
  friend bool operator==(const Query& a, const Query& b);

 private:
  std::shared_ptr<const Node> node_;
};

// Builders make the canonical tree of what they are asked for, so that equal meanings built the
// same way compare equal: And of no query is All(), And or Or of one query is that query, and
// In with no value is Or({}) (which matches nothing).
class QueryBuilder {
 public:
  static Query All();
  static Query And(std::vector<Query> children);
  static Query Or(std::vector<Query> children);
  static Query Not(Query child);
  static Query Equal(std::string field, QueryValue value);
  static Query NotEqual(std::string field, QueryValue value);
  static Query In(std::string field, std::vector<QueryValue> values);
  static Query GreaterThan(std::string field, QueryValue value);
  static Query GreaterEqual(std::string field, QueryValue value);
  static Query LessThan(std::string field, QueryValue value);
  static Query LessEqual(std::string field, QueryValue value);
  static Query Range(std::string field, QueryValue lower, QueryValue upper,
                     bool include_lower = true, bool include_upper = false);
  // String attributes that start with `prefix` (bytewise).
  static Query Prefix(std::string field, std::string prefix);
  static Query Exists(std::string field);
};

enum class SortOrder : uint8_t { kAscending, kDescending };

struct SortField {
  std::string field;  // an attribute name, or "id"
  SortOrder order = SortOrder::kAscending;
};

struct QueryParams {
  int64_t offset = 0;
  // At most this many metas; -1 means no limit.
  int64_t limit = 100;
  // Sort keys in order; ties (and an empty list) break on id, ascending.
  std::vector<SortField> sort;
  // Compute QueryResult::total (the count before offset/limit), which may cost a full pass.
  bool get_total_count = false;
  // A token from a previous QueryResult::next_token: continue after its page (offset is then
  // ignored). Only valid with the same query, sort and index.
  std::string page_token;
  // Return the page's ids only (QueryResult::ids; ::metas stays empty). A query the index
  // covers then reads no meta at all: its page comes straight from the postings.
  bool ids_only = false;
};

struct QueryResult {
  // The page, in order (empty with QueryParams::ids_only).
  std::vector<DataSetMeta> metas;
  // The page's ids, in order (also filled when metas are).
  std::vector<std::string> ids;
  // Matching datasets before offset/limit; -1 unless QueryParams::get_total_count.
  int64_t total = -1;
  // Pass as QueryParams::page_token for the next page; empty when there is none.
  std::string next_token;
  // The index that answered the query ("" for none): the one named, or the one chosen.
  std::string index;
  // True if any condition was answered by scanning metas instead of the index.
  bool scanned = false;
  // A one-line plan: which conditions used the index, which were checked on candidates.
  std::string plan;
};

}  // namespace gridstore::grid

#endif  // GRIDSTORE_CATALOG_META_QUERY_H_
