// Copyright 2026 The GridStore Authors.
//
// Verification: reads every stored block of one dataset (or of the whole store), decodes it and
// checks its checksum, type and shape against the dataset's meta, and reports every problem by
// name. Used by `gridstore verify`. Reads only; safe to run while other fetchers read.
#ifndef GRIDSTORE_GRID_GRID_VERIFY_H_
#define GRIDSTORE_GRID_GRID_VERIFY_H_

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "grid/grid_store.h"
#include "util/result.h"

namespace gridstore::grid {

struct VerifyProblem {
  std::string dataset;
  // What is wrong, naming the variable, t, z and block where there is one:
  // "variable 'T', t=1, z=0, block (2, 3): checksum mismatch: ...".
  std::string message;
};

struct VerifyReport {
  int64_t datasets = 0;        // datasets whose metas were checked
  int64_t blocks = 0;          // blocks read and decoded
  int64_t bytes_read = 0;      // stored bytes read
  int64_t datasets_not_done = 0;  // datasets whose status is not DONE (import running or failed)
  std::vector<VerifyProblem> problems;

  bool ok() const { return problems.empty(); }
};

struct VerifyOptions {
  // Called now and then with the blocks checked so far; may be empty.
  std::function<void(int64_t blocks)> on_progress;
};

// Verifies dataset `id`, or every dataset of the store when `id` is empty (then blocks with no
// dataset meta are reported too). Problems go into the report; the returned status is an error only
// when verification itself could not run (NotFound for an unknown `id`, store errors).
Result<VerifyReport> Verify(GridStore* store, std::string_view id, const VerifyOptions& options = {});

}  // namespace gridstore::grid

#endif  // GRIDSTORE_GRID_GRID_VERIFY_H_
