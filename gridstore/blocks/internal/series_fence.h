// Copyright 2026 The GridStore Authors.
//
// Plane writes vs the start of a series layout (issue 18, part 1). The series blocks are copied
// from the planes, so a plane written once a relayout has begun would leave them stale. A writer
// checks for a series layout when it is made; the fence also stops a writer made before: its
// block batches and the meta write that starts a layout exclude each other, and any batch after
// that start is refused. In-process only: the embedded store has one writing process; several
// processes writing one RADOS store at once are not covered (docs/design/blocks-and-layouts.md).
#ifndef GRIDSTORE_BLOCKS_INTERNAL_SERIES_FENCE_H_
#define GRIDSTORE_BLOCKS_INTERNAL_SERIES_FENCE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "gridstore/util/internal/mutex.h"
#include "gridstore/util/internal/thread_annotations.h"
#include "gridstore/util/status.h"

namespace gridstore::internal_grid {

class SeriesFence {
 public:
  // How many series layouts incarnation `incarnation` of dataset `id` has been given by this
  // process so far. A writer reads it before it reads the meta it writes against.
  uint64_t Starts(std::string_view id, uint64_t incarnation) const EXCLUDES(mu_);

  // Runs `write` (a batch of plane blocks of the dataset, by a writer that read Starts as
  // `seen`) unless a series layout was started since: then FailedPrecondition, nothing written.
  Status WritePlanes(std::string_view id, uint64_t incarnation, uint64_t seen,
                     const std::function<Status()>& write) EXCLUDES(mu_);

  // Runs `start` (the meta write that gives the dataset a series layout) while no plane batch
  // is being written, and counts it if it succeeds.
  Status StartSeries(std::string_view id, uint64_t incarnation,
                     const std::function<Status()>& start) EXCLUDES(mu_);

 private:
  static std::string Key(std::string_view id, uint64_t incarnation);

  mutable SharedMutex mu_;
  std::map<std::string, uint64_t, std::less<>> starts_ GUARDED_BY(mu_);
};

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_BLOCKS_INTERNAL_SERIES_FENCE_H_
