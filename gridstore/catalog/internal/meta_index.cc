// Copyright 2026 The GridStore Authors.
//
// The entry points of meta queries. The parts, in the order a query meets them
// (docs/meta-queries.md, "Planner"):
//   meta_compile.cc     1. resolve fields against the schema, check and convert values;
//   meta_postings.cc       the posting key ranges a condition on an indexed field reads;
//   meta_candidates.cc  2. candidate id sets from those ranges (`and` intersects, `or` unites);
//   meta_walk.cc        3. order by walking the first sort field's postings, or
//   meta_executor.cc       by reading sort keys; 4. or scan every meta; then the page;
//   meta_page_token.cc     the token of the next page.
// meta_value.cc has the value semantics all of them share; meta_index_schema.cc the schemas.
#include "gridstore/catalog/internal/meta_index.h"

#include "gridstore/catalog/internal/meta_compile.h"
#include "gridstore/catalog/internal/meta_executor.h"
#include "gridstore/catalog/internal/meta_value.h"
#include "gridstore/model/internal/grid_keys.h"

namespace gridstore::internal_grid {

void AppendMetaPostings(const grid::MetaIndexInfo& index, std::string_view id,
                        const grid::Attributes& attributes, std::vector<std::string>* keys) {
  for (const grid::IndexField& f : index.schema.fields) {
    auto it = attributes.find(f.name);
    if (it == attributes.end()) continue;
    const Scalar v = VisibleValue(&it->second, &f);
    if (v.kind == Scalar::kNone) continue;
    std::string key = grid::IndexFieldPrefix(index.name, f.name);
    AppendEncodedValue(v, &key);
    grid::AppendIndexPostingId(id, &key);
    keys->push_back(std::move(key));
  }
}

Result<grid::QueryResult> RunMetaQuery(storage::KvStore* kv, const grid::MetaIndexInfo* index,
                                       const grid::Query& query, const grid::QueryParams& params) {
  MetaQueryExecutor executor(kv, index, params);
  return executor.Run(query);
}

Result<bool> MatchesMetaQuery(const grid::MetaIndexInfo* index, const grid::Query& query,
                              const grid::Attributes& attributes) {
  CompiledNode root;
  GRIDSTORE_RETURN_IF_ERROR(CompileQuery(index, query, &root));
  return EvaluateCompiled(root, attributes);
}

}  // namespace gridstore::internal_grid
