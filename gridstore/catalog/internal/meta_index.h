// Copyright 2026 The GridStore Authors.
//
// Meta-query internals as GridStore uses them: the stored form of index schemas
// (meta_index_schema.cc), the postings a dataset contributes to an index, and the planner that
// answers a Query from postings, falling back to evaluating conditions on metas (meta_index.cc
// lists the files it is made of). Stateless functions over a KvStore; safe to call concurrently.
// GridStore serialises the writes that maintain postings.
#ifndef GRIDSTORE_CATALOG_INTERNAL_META_INDEX_H_
#define GRIDSTORE_CATALOG_INTERNAL_META_INDEX_H_

#include <string>
#include <string_view>
#include <vector>

#include "gridstore/catalog/meta_query.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/storage/kv_store.h"
#include "gridstore/util/result.h"

namespace gridstore::internal_grid {

// schema := 0x01 varint(n) (name:bytes type:u8){n}
void EncodeMetaIndexSchema(const grid::MetaIndexSchema& schema, std::string* dst);
// DataLoss if malformed.
Result<grid::MetaIndexSchema> DecodeMetaIndexSchema(std::string_view bytes);
// InvalidArgument unless the schema has 1..256 fields with valid, unique names and known types.
Status ValidateMetaIndexSchema(const grid::MetaIndexSchema& schema);
// Why `requested` may not replace `existing` (naming the first differing field), or "".
std::string MetaIndexSchemaConflict(const grid::MetaIndexSchema& existing,
                                    const grid::MetaIndexSchema& requested);

// Appends to *keys the posting keys that dataset `id` with `attributes` has in `index`: one per
// indexed field whose attribute holds a value of the field's declared type.
void AppendMetaPostings(const grid::MetaIndexInfo& index, std::string_view id,
                        const grid::Attributes& attributes, std::vector<std::string>* keys);

// Answers `query` over the store's metas. `index` is null to evaluate every condition by scanning
// metas. Errors: InvalidArgument (a condition of the wrong type for an indexed field, malformed
// nodes, bad params or page token), and whatever the KvStore returns.
Result<grid::QueryResult> RunMetaQuery(storage::KvStore* kv, const grid::MetaIndexInfo* index,
                                       const grid::Query& query, const grid::QueryParams& params);

// True if the dataset with `attributes` matches `query` under `index`'s declared types (null: no
// index). Used by tests and by the planner for conditions the index does not answer.
// REQUIRES: the query passed RunMetaQuery's validation.
Result<bool> MatchesMetaQuery(const grid::MetaIndexInfo* index, const grid::Query& query,
                              const grid::Attributes& attributes);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_CATALOG_INTERNAL_META_INDEX_H_
