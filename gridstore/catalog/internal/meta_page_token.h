// Copyright 2026 The GridStore Authors.
//
// Page tokens of meta queries: "gsq1.<offset>.<fingerprint>", where the fingerprint (64-bit
// FNV-1a, hex) covers the index name, the query's text and the sort, so that a token is refused
// by any other query. Not stored anywhere: a token lives as long as a client pages.
#ifndef GRIDSTORE_CATALOG_INTERNAL_META_PAGE_TOKEN_H_
#define GRIDSTORE_CATALOG_INTERNAL_META_PAGE_TOKEN_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/catalog/meta_query.h"
#include "gridstore/util/result.h"

namespace gridstore::internal_grid {

// The fingerprint of a query on `index` (null: no index) with `sort`.
uint64_t QueryFingerprint(const grid::MetaIndexInfo* index, const grid::Query& query,
                          const std::vector<grid::SortField>& sort);

// A token that continues at `offset`.
std::string MakePageToken(uint64_t fingerprint, int64_t offset);

// The offset of a token made with `fingerprint`; InvalidArgument for any other token.
Result<int64_t> ParsePageToken(std::string_view token, uint64_t fingerprint);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_CATALOG_INTERNAL_META_PAGE_TOKEN_H_
