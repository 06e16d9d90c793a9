// Copyright 2026 The GridStore Authors.
#include "gridstore/catalog/internal/meta_page_token.h"

#include <cstdio>

namespace gridstore::internal_grid {
namespace {

constexpr std::string_view kTokenPrefix = "gsq1.";

uint64_t Fnv1a(std::string_view s, uint64_t h = 14695981039346656037ull) {
  for (char c : s) {
    h ^= static_cast<uint8_t>(c);
    h *= 1099511628211ull;
  }
  return h;
}

std::string Hex(uint64_t fingerprint) {
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(fingerprint));
  return buf;
}

}  // namespace

uint64_t QueryFingerprint(const grid::MetaIndexInfo* index, const grid::Query& query,
                          const std::vector<grid::SortField>& sort) {
  uint64_t h = Fnv1a(index == nullptr ? std::string_view("\x01") : index->name);
  h = Fnv1a(std::string_view("\0", 1), h);
  h = Fnv1a(query.ToString(), h);
  for (const grid::SortField& s : sort) {
    h = Fnv1a(std::string_view("\0", 1), h);
    h = Fnv1a(s.field, h);
    h = Fnv1a(s.order == grid::SortOrder::kDescending ? "-" : "+", h);
  }
  return h;
}

std::string MakePageToken(uint64_t fingerprint, int64_t offset) {
  return std::string(kTokenPrefix) + std::to_string(offset) + "." + Hex(fingerprint);
}

Result<int64_t> ParsePageToken(std::string_view token, uint64_t fingerprint) {
  const Status bad = Status::InvalidArgument(
      "the page token was not made by this query (its index, conditions and sort must match)");
  if (token.substr(0, kTokenPrefix.size()) != kTokenPrefix) return bad;
  token.remove_prefix(kTokenPrefix.size());
  const size_t dot = token.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot > 18) return bad;
  int64_t offset = 0;
  for (char c : token.substr(0, dot)) {
    if (c < '0' || c > '9') return bad;
    offset = offset * 10 + (c - '0');
  }
  if (token.substr(dot + 1) != Hex(fingerprint)) return bad;
  return offset;
}

}  // namespace gridstore::internal_grid
