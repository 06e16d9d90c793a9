// Copyright 2026 The GridStore Authors.
//
// Opens a KvStore from a store URI: the one explicit switch over backends (no self-registration).
//   /path/to/dir, ./dir, file:///path  -> RocksDB at that path
//   memory://                          -> a new, empty in-process store
//   rados://POOL?conf=PATH[&id=CLIENT][&namespace=NS] -> Ceph RADOS (storage/rados/)
#ifndef GRIDSTORE_STORAGE_KV_STORE_FACTORY_H_
#define GRIDSTORE_STORAGE_KV_STORE_FACTORY_H_

#include <functional>
#include <memory>
#include <string>

#include "gridstore/storage/kv_store.h"
#include "gridstore/util/result.h"

namespace gridstore::storage {

struct OpenOptions {
  // Create an empty store when the URI names none. If false, a missing store is NotFound.
  bool create_if_missing = false;
  // Open for reading only (no write lock; every write fails).
  bool read_only = false;
  // Open the store's files as reads need them (RocksDB: its table files), for a short-lived
  // reader; a long-lived one (a server) opens them all at once. A hint: backends may ignore it.
  bool open_tables_lazily = false;
  // Runs on a store this call creates, before other processes can see it (GridStore writes its
  // marker here, so that a store is never seen half-made). May be empty.
  std::function<Status(KvStore*)> initialize;
};

// Whether `uri` names a distributed store (rados://), whose reads pay a round trip per value,
// rather than an embedded one (a path, file://, memory://). By the URI alone: nothing is opened.
bool IsDistributedUri(std::string_view uri);

// Errors: InvalidArgument (malformed or unknown URI scheme), plus the backend's own errors.
Result<std::unique_ptr<KvStore>> OpenKvStore(const std::string& uri, const OpenOptions& options);

}  // namespace gridstore::storage

#endif  // GRIDSTORE_STORAGE_KV_STORE_FACTORY_H_
