// Copyright 2026 The GridStore Authors.
//
// Retention: forecast runs are kept for a while, then go (the seed's table TTL). Each complete
// dataset expires at a time it carries itself or that a policy gives it:
//   1. its `expires` attribute: milliseconds since the epoch (a number) or an ISO 8601 time;
//   2. else its `create_time` (ms since the epoch, set by every import) plus its `ttl`
//      attribute: seconds (a number) or a duration ("36h", "7d", "1d12h");
//   3. else its `create_time` plus the policy's `older_than`, if the policy has one;
// and otherwise never. ApplyRetention deletes (or, dry, lists) the expired datasets among those a
// query selects and reclaims their space. Datasets that are not DONE (an import running, or one
// that died) are never touched; a dataset whose `expires` or `ttl` cannot be read is skipped and
// reported, never deleted on a guess.
#ifndef GRIDSTORE_GRID_RETENTION_H_
#define GRIDSTORE_GRID_RETENTION_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/catalog/meta_query.h"
#include "gridstore/util/result.h"

namespace gridstore::grid {

class GridStore;

inline constexpr std::string_view kExpiresAttribute = "expires";
inline constexpr std::string_view kTtlAttribute = "ttl";

// A duration as "N UNIT" terms, e.g. "7d", "36h", "1d12h", "90 min", "1.5 w" (units as in the
// query language's `now - N unit`: ms, s, min, h, d, w and their long names); a bare number is
// seconds. InvalidArgument naming `what` and the text otherwise; a negative or absurd (beyond
// 10,000 years) duration is InvalidArgument too.
Result<int64_t> ParseDurationMs(std::string_view text, std::string_view what);

struct RetentionPolicy {
  // The age after which a dataset without its own `expires` / `ttl` goes; none: only datasets
  // that carry one expire.
  std::optional<int64_t> older_than_ms;
  // Only datasets matching this (the query language of catalog/query_parser.h) are considered.
  Query where;
  // What "now" is, in ms since the epoch; 0: the system clock.
  int64_t now_ms = 0;
  // List what would go; delete nothing.
  bool dry_run = false;
};

struct RetentionReport {
  struct Expired {
    std::string id;
    int64_t create_time_ms = -1;  // -1 if the dataset has none (it expired by `expires`)
    int64_t expires_ms = 0;
    std::string rule;    // "expires 2026-11-20T00:00:00Z", "ttl 7d", "older than 7d"
    uint64_t bytes = 0;  // approximate stored bytes of its blocks
    bool deleted = false;
  };
  struct Skipped {
    std::string id;
    std::string why;  // "status INIT: not complete", "attribute 'ttl' = 'soon': ..."
  };
  int64_t examined = 0;          // datasets the query selected
  std::vector<Expired> expired;  // in id order
  // Datasets left alone: not DONE, or whose `expires`, `ttl` or (needed) `create_time` cannot
  // be read, or that changed while retention ran.
  std::vector<Skipped> skipped;
};

// Finds the expired datasets among those `policy.where` selects and, unless dry, deletes each
// (GridStore::DeleteDataSet: meta, blocks and index entries, space reclaimed), then flushes.
// Errors: the store's; a dataset deleted meanwhile by someone else is not an error. If a delete
// fails, the datasets deleted before it stay deleted and the error names the one that failed.
Result<RetentionReport> ApplyRetention(GridStore& store, const RetentionPolicy& policy);

}  // namespace gridstore::grid

#endif  // GRIDSTORE_GRID_RETENTION_H_
