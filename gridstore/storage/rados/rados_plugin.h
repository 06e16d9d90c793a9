// Copyright 2026 The GridStore Authors.
//
// The RADOS backend is a plugin: libgridstore_rados.so, loaded with dlopen when a rados:// URI is
// first opened, so that programs that never open one (the CLI on a local store, an application on
// RocksDB) neither link nor load librados and the 20-odd libraries of Ceph it pulls in.
//
// The plugin is built from the same sources as the library that loads it and exchanges C++
// objects with it (KvStore, RadosOptions, Status); kRadosPluginAbi names that contract and the
// loader refuses a plugin built with another.
#ifndef GRIDSTORE_STORAGE_RADOS_RADOS_PLUGIN_H_
#define GRIDSTORE_STORAGE_RADOS_RADOS_PLUGIN_H_

#include <memory>
#include <string>

#include "gridstore/storage/kv_store.h"
#include "gridstore/storage/rados/rados_kv_store.h"
#include "gridstore/util/result.h"

namespace gridstore::storage {

// Bump whenever KvStore, WriteBatch, RadosOptions, Status or Result change shape (3: postings
// name their partition, WriteBatch::Op::partition; 4: KvStore::MultiGetVisit; 5:
// ReadOptions::allow_replica, RadosOptions::catalog_replica).
inline constexpr int kRadosPluginAbi = 5;

// The plugin's file name, and its exported entry points (extern "C", found with dlsym).
inline constexpr char kRadosPluginFile[] = "libgridstore_rados.so";
inline constexpr char kRadosPluginAbiSymbol[] = "gridstore_rados_plugin_abi";
inline constexpr char kRadosPluginOpenSymbol[] = "gridstore_rados_plugin_open";
using RadosPluginAbiFn = int (*)();
using RadosPluginOpenFn = void (*)(const RadosOptions* options,
                                   Result<std::unique_ptr<KvStore>>* result);

// Opens a RADOS store through the plugin, loading it on first use (thread-safe; a plugin that
// loaded stays loaded). Looks in $GRIDSTORE_PLUGIN_DIR only, if it is set; else in the installed
// plugin directory (<libdir>/gridstore), then in this build's own. FailedPrecondition naming every
// place tried and why it failed if none holds a usable plugin.
Result<std::unique_ptr<KvStore>> OpenRadosKvStoreViaPlugin(const RadosOptions& options);

}  // namespace gridstore::storage

#endif  // GRIDSTORE_STORAGE_RADOS_RADOS_PLUGIN_H_
