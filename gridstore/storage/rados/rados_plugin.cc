// Copyright 2026 The GridStore Authors.
//
// The entry points of libgridstore_rados.so (see rados_plugin.h). Only these two symbols are
// exported: the plugin's copies of the storage and util code stay private to it.
#include "gridstore/storage/rados/rados_plugin.h"

extern "C" __attribute__((visibility("default"))) int gridstore_rados_plugin_abi() {
  return gridstore::storage::kRadosPluginAbi;
}

extern "C" __attribute__((visibility("default"))) void gridstore_rados_plugin_open(
    const gridstore::storage::RadosOptions* options,
    gridstore::Result<std::unique_ptr<gridstore::storage::KvStore>>* result) {
  *result = gridstore::storage::OpenRadosKvStore(*options);
}
