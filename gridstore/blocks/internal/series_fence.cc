// Copyright 2026 The GridStore Authors.
#include "gridstore/blocks/internal/series_fence.h"

#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_grid {

std::string SeriesFence::Key(std::string_view id, uint64_t incarnation) {
  std::string key(id);
  key.push_back('\0');  // ids hold no NUL (model/names.h)
  key.append(std::to_string(incarnation));
  return key;
}

uint64_t SeriesFence::Starts(std::string_view id, uint64_t incarnation) const {
  ReaderMutexLock lock(&mu_);
  auto it = starts_.find(Key(id, incarnation));
  return it == starts_.end() ? 0 : it->second;
}

Status SeriesFence::WritePlanes(std::string_view id, uint64_t incarnation, uint64_t seen,
                                const std::function<Status()>& write) {
  ReaderMutexLock lock(&mu_);  // batches of many writers at once; no layout starts meanwhile
  auto it = starts_.find(Key(id, incarnation));
  if ((it == starts_.end() ? 0 : it->second) != seen) {
    return Status::FailedPrecondition(
        "dataset " + Quote(id) +
        " was given a series layout after this writer was made, which writing planes would "
        "leave stale; drop it (gridstore relayout ID --drop series), write, then add it again");
  }
  return write();
}

Status SeriesFence::StartSeries(std::string_view id, uint64_t incarnation,
                                const std::function<Status()>& start) {
  WriterMutexLock lock(&mu_);
  Status s = start();
  if (s.ok()) ++starts_[Key(id, incarnation)];
  return s;
}

}  // namespace gridstore::internal_grid
