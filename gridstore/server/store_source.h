// Copyright 2026 The GridStore Authors.
//
// The store a long-running reader serves from, kept current. A read-only open is a snapshot: it
// never sees what another process (an import, a delete) writes after it. So the source reopens
// the store every `refresh` in the background and swaps the new handle in; each request takes one
// handle (Current) and answers from it alone, so that no response mixes two states of the store,
// and a handle lives until the last request that holds it ends.
#ifndef GRIDSTORE_SERVER_STORE_SOURCE_H_
#define GRIDSTORE_SERVER_STORE_SOURCE_H_

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "gridstore/grid/grid_store.h"
#include "gridstore/util/internal/mutex.h"
#include "gridstore/util/result.h"

namespace gridstore::server {

class StoreSource {
 public:
  // Opens `uri` read-only (errors as GridStore::Open) and starts refreshing it every `refresh`
  // (zero: never).
  static Result<std::unique_ptr<StoreSource>> Open(const std::string& uri,
                                                   std::chrono::milliseconds refresh);
  ~StoreSource();  // stops the refresher

  std::shared_ptr<grid::GridStore> Current() const;
  // Reopens now; on failure keeps the current handle and returns the error.
  Status Refresh();

 private:
  StoreSource(std::string uri, std::shared_ptr<grid::GridStore> store);
  void RefreshLoop(std::chrono::milliseconds refresh);

  const std::string uri_;
  mutable Mutex mu_;
  std::shared_ptr<grid::GridStore> store_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  CondVar stop_signal_;
  std::string last_error_ GUARDED_BY(mu_);
  std::thread refresher_;
};

}  // namespace gridstore::server

#endif  // GRIDSTORE_SERVER_STORE_SOURCE_H_
