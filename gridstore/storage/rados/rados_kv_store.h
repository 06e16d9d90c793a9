// Copyright 2026 The GridStore Authors.
//
// The distributed backend: Ceph RADOS through librados. This header exposes only options, the URI
// parser and a factory; librados types never leave storage/rados/*.cc. How tables map to objects
// (and why) is in docs/format.md, "RADOS".
//
// A store is named
// rados://POOL?conf=/etc/ceph/ceph.conf&id=CLIENT&namespace=NS[&catalog_shards=N][&catalog_replica=1]:
// every object of
// the store lives in one namespace of one existing pool, so one pool can hold many stores.
#ifndef GRIDSTORE_STORAGE_RADOS_RADOS_KV_STORE_H_
#define GRIDSTORE_STORAGE_RADOS_RADOS_KV_STORE_H_

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "gridstore/storage/kv_store.h"
#include "gridstore/util/result.h"

namespace gridstore::storage {

inline constexpr std::string_view kRadosScheme = "rados";

struct RadosOptions {
  std::string pool;       // must exist: GridStore does not create pools (that needs mon caps)
  std::string conf_path;  // empty: librados's default search ($CEPH_CONF, /etc/ceph/ceph.conf...)
  std::string client_id = "admin";  // the cephx user is client.<client_id>
  std::string rados_namespace;      // empty: the pool's default namespace

  // Create the store (its catalog object) when the namespace holds none. If false, a namespace
  // without a store is NotFound.
  bool create_if_missing = false;
  // Catalog shards (objects holding the meta and index tables, docs/format.md "Catalog shards").
  // Fixed when the store is created: 0 takes kDefaultCatalogShards (64) then; opening an existing
  // store, 0 takes what it has and any other count must match it (InvalidArgument otherwise).
  int catalog_shards = 0;
  // Keep the meta and index tables in memory (docs/design/catalog.md, "A catalog replica in each
  // process on RADOS"): loaded when the store opens, kept fresh by watching the catalog shards,
  // used by reads that allow it (ReadOptions::allow_replica: meta queries). For long-running
  // processes (`serve`); a one-shot command would pay the whole load for one query.
  bool catalog_replica = false;
  // Every write fails with FailedPrecondition.
  bool read_only = false;
  // Runs on a store this call creates; its first catalog write creates the catalog object, so
  // other clients see no store until it has run. May be empty.
  std::function<Status(KvStore*)> initialize;
  // Operations in flight per call (reads of a MultiGet or Scan, writes of a batch). Bounded so one
  // huge fetch cannot flood the OSDs' queues or this process's memory.
  int max_in_flight = 64;
  // Used for rados_osd_op_timeout and rados_mon_op_timeout when the configuration leaves them at
  // librados's default of 0 (wait forever), and for client_mount_timeout when it is at its default
  // of 300 s: a dead or full cluster then gives Unavailable instead of a hang.
  int default_timeout_seconds = 30;
};

// Parses "rados://POOL?conf=PATH&id=CLIENT&namespace=NS&catalog_shards=N&catalog_replica=0|1"
// (every parameter
// optional, each at most once, values percent-decoded). InvalidArgument naming the URI and the
// offending part otherwise.
Result<RadosOptions> ParseRadosUri(std::string_view uri);

// Connects to the cluster and opens the store. Errors, each naming the pool (and namespace) and the
// configuration file: Unavailable (cannot reach the monitors or OSDs in time, or I/O errors),
// NotFound (no such pool; or no store and !create_if_missing), FailedPrecondition (the client's
// key or caps are refused), InvalidArgument (unreadable configuration).
Result<std::unique_ptr<KvStore>> OpenRadosKvStore(const RadosOptions& options);

}  // namespace gridstore::storage

#endif  // GRIDSTORE_STORAGE_RADOS_RADOS_KV_STORE_H_
