// Copyright 2026 The GridStore Authors.
#include "gridstore/server/store_source.h"

#include <cstdio>
#include <utility>

namespace gridstore::server {

Result<std::unique_ptr<StoreSource>> StoreSource::Open(const std::string& uri,
                                                       std::chrono::milliseconds refresh) {
  GRIDSTORE_ASSIGN_OR_RETURN(std::unique_ptr<grid::GridStore> store,
                             grid::GridStore::Open(uri, {.read_only = true}));
  std::unique_ptr<StoreSource> source(new StoreSource(uri, std::move(store)));
  if (refresh.count() > 0) {
    source->refresher_ = std::thread([s = source.get(), refresh] { s->RefreshLoop(refresh); });
  }
  return source;
}

StoreSource::StoreSource(std::string uri, std::shared_ptr<grid::GridStore> store)
    : uri_(std::move(uri)), store_(std::move(store)) {}

StoreSource::~StoreSource() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  stop_signal_.SignalAll();
  if (refresher_.joinable()) refresher_.join();
}

std::shared_ptr<grid::GridStore> StoreSource::Current() const {
  MutexLock lock(&mu_);
  return store_;
}

Status StoreSource::Refresh() {
  // Opened outside the lock: requests keep taking the current handle meanwhile.
  Result<std::unique_ptr<grid::GridStore>> reopened =
      grid::GridStore::Open(uri_, {.read_only = true});
  std::shared_ptr<grid::GridStore> old;
  MutexLock lock(&mu_);
  if (!reopened.ok()) {
    // Said once per distinct error, so that a store being rewritten does not flood the log.
    if (reopened.status().ToString() != last_error_) {
      last_error_ = reopened.status().ToString();
      std::fprintf(stderr,
                   "gridstore serve: could not reopen the store (still serving the last "
                   "state): %s\n",
                   last_error_.c_str());
    }
    return reopened.status();
  }
  last_error_.clear();
  old = std::exchange(store_, std::shared_ptr<grid::GridStore>(std::move(*reopened)));
  return Status::OK();  // `old` closes here, or when its last request ends
}

void StoreSource::RefreshLoop(std::chrono::milliseconds refresh) {
  for (;;) {
    {
      MutexLock lock(&mu_);
      if (!stopping_) stop_signal_.WaitFor(&mu_, refresh);
      if (stopping_) return;
    }
    Refresh().IgnoreError();
  }
}

}  // namespace gridstore::server
