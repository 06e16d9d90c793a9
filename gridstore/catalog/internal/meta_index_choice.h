// Copyright 2026 The GridStore Authors.
//
// Which meta index answers a query when the caller names none (GridStore::QueryDataSets without
// an index, grid/grid_query.cc). A pure function of the query, the sort and the indexes.
#ifndef GRIDSTORE_CATALOG_INTERNAL_META_INDEX_CHOICE_H_
#define GRIDSTORE_CATALOG_INTERNAL_META_INDEX_CHOICE_H_

#include <string>
#include <vector>

#include "gridstore/catalog/meta_query.h"

namespace gridstore::internal_grid {

// The distinct attribute names the query's conditions name, then those of `sort` (not "id"), in
// first-seen order.
std::vector<std::string> QueryAndSortFields(const grid::Query& query,
                                            const std::vector<grid::SortField>& sort);

// The only index if there is exactly one; else the one whose schema holds the most of the query's
// and the sort's fields (ties: the first in `indexes`); "" (no index) if there is none or none
// holds any of them.
std::string ChooseMetaIndex(const grid::Query& query, const std::vector<grid::SortField>& sort,
                            const std::vector<grid::MetaIndexInfo>& indexes);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_CATALOG_INTERNAL_META_INDEX_CHOICE_H_
