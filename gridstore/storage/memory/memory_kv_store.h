// Copyright 2026 The GridStore Authors.
//
// An in-process backend on ordered maps, for tests and short-lived tools. It passes the same
// conformance suite as RocksDB; nothing persists after the object is destroyed.
#ifndef GRIDSTORE_STORAGE_MEMORY_MEMORY_KV_STORE_H_
#define GRIDSTORE_STORAGE_MEMORY_MEMORY_KV_STORE_H_

#include <memory>

#include "gridstore/storage/kv_store.h"

namespace gridstore::storage {

std::unique_ptr<KvStore> NewMemoryKvStore();

}  // namespace gridstore::storage

#endif  // GRIDSTORE_STORAGE_MEMORY_MEMORY_KV_STORE_H_
