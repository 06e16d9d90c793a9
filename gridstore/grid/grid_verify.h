// Copyright 2026 The GridStore Authors.
//
// What verification reports (GridStore::Verify, used by `gridstore verify`): every stored block of
// one dataset (or of the whole store) is read, decoded, and checked for its checksum, type and
// shape against the dataset's meta; damage is read past, so that every problem is listed. Blocks
// that interrupted writes left behind are listed too, apart from problems: they are garbage, not
// damage, and GridStore::Compact removes them.
#ifndef GRIDSTORE_GRID_GRID_VERIFY_H_
#define GRIDSTORE_GRID_GRID_VERIFY_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/util/result.h"

namespace gridstore::grid {

class GridStore;

struct VerifyProblem {
  std::string dataset;  // empty for damage that belongs to no one dataset (a table file)
  // What is wrong, naming the variable, t, z and block where there is one:
  // "variable 'T', t=1, z=0, block (2, 3): checksum mismatch: ...".
  std::string message;
};

// Blocks no meta owns: left by a killed import, replacement or delete.
struct VerifyOrphan {
  std::string dataset;
  uint64_t incarnation = 0;
  int64_t blocks = 0;
  uint64_t bytes = 0;
  // Why they are garbage: "no dataset meta", "replaced by a newer incarnation", "an abandoned
  // replacement".
  std::string reason;
};

struct VerifyReport {
  int64_t datasets = 0;           // datasets whose metas were checked
  int64_t blocks = 0;             // blocks read and decoded
  int64_t bytes_read = 0;         // stored bytes read
  int64_t datasets_not_done = 0;  // datasets whose status is not DONE (import running or failed)
  int64_t replacements_in_progress = 0;  // replacements being written (left alone)
  std::vector<VerifyProblem> problems;
  std::vector<VerifyOrphan> orphans;

  // No damage found (orphans are not damage).
  bool ok() const { return problems.empty(); }
};

struct VerifyOptions {
  // Called now and then with the blocks checked so far; may be empty.
  std::function<void(int64_t blocks)> on_progress;
  // Replacements begun longer ago than this by another process count as abandoned on stores
  // several processes can write (see CompactOptions).
  std::chrono::seconds shared_store_min_age = std::chrono::hours(24);
};

// Same as store->Verify(id, options).
Result<VerifyReport> Verify(GridStore* store, std::string_view id,
                            const VerifyOptions& options = {});

}  // namespace gridstore::grid

#endif  // GRIDSTORE_GRID_GRID_VERIFY_H_
