// Copyright 2026 The GridStore Authors.
//
// GridStore::QueryDataSets without an index name: the store picks the index that covers the
// query best. Built on GridStore's public methods only (ListMetaIndexes, QueryDataSets on a
// named index), so every implementation of GridStore gets it.
#include <algorithm>

#include "gridstore/catalog/internal/meta_index_choice.h"
#include "gridstore/grid/grid_store.h"

namespace gridstore {
namespace internal_grid {
namespace {

void CollectFields(const grid::Query& q, std::vector<std::string>* fields) {
  const grid::Query::Node& n = q.node();
  if (!n.field.empty() && std::find(fields->begin(), fields->end(), n.field) == fields->end()) {
    fields->push_back(n.field);
  }
  for (const grid::Query& c : n.children) CollectFields(c, fields);
}

bool Holds(const grid::MetaIndexSchema& schema, const std::string& field) {
  return std::any_of(schema.fields.begin(), schema.fields.end(),
                     [&](const grid::IndexField& f) { return f.name == field; });
}

}  // namespace

std::vector<std::string> QueryAndSortFields(const grid::Query& query,
                                            const std::vector<grid::SortField>& sort) {
  std::vector<std::string> fields;
  CollectFields(query, &fields);
  for (const grid::SortField& s : sort) {
    if (s.field != "id" && std::find(fields.begin(), fields.end(), s.field) == fields.end()) {
      fields.push_back(s.field);
    }
  }
  return fields;
}

std::string ChooseMetaIndex(const grid::Query& query, const std::vector<grid::SortField>& sort,
                            const std::vector<grid::MetaIndexInfo>& indexes) {
  if (indexes.size() == 1) return indexes[0].name;
  const std::vector<std::string> fields = QueryAndSortFields(query, sort);
  std::string best;
  size_t best_count = 0;
  for (const grid::MetaIndexInfo& index : indexes) {
    const auto count =
        static_cast<size_t>(std::count_if(fields.begin(), fields.end(), [&](const std::string& f) {
          return Holds(index.schema, f);
        }));
    if (count > best_count) {
      best = index.name;
      best_count = count;
    }
  }
  return best;
}

}  // namespace internal_grid

namespace grid {

Result<QueryResult> GridStore::QueryDataSets(const Query& query, const QueryParams& params) {
  GRIDSTORE_ASSIGN_OR_RETURN(const std::vector<MetaIndexInfo> indexes, ListMetaIndexes());
  return QueryDataSets(internal_grid::ChooseMetaIndex(query, params.sort, indexes), query, params);
}

}  // namespace grid
}  // namespace gridstore
