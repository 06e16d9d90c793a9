// Copyright 2026 The GridStore Authors.

#include "gridstore/storage/kv_store_factory.h"

#include <string_view>

#include "gridstore/features.h"
#include "gridstore/storage/memory/memory_kv_store.h"
#include "gridstore/storage/rados/rados_kv_store.h"
#include "gridstore/storage/rados/rados_plugin.h"
#include "gridstore/storage/rocksdb/rocksdb_kv_store.h"

namespace gridstore::storage {
namespace {

constexpr std::string_view kSchemeSeparator = "://";

// RFC 3986: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ). Anything else before "://" (such as
// "./a://b") makes the whole string a path.
bool IsScheme(std::string_view s) {
  if (s.empty() || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))) return false;
  for (char c : s) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '+' || c == '-' || c == '.';
    if (!ok) return false;
  }
  return true;
}

Result<std::unique_ptr<KvStore>> OpenPath(const std::string& uri, const std::string& path,
                                          const OpenOptions& options) {
  if (path.empty()) return Status::InvalidArgument("no path in store URI '" + uri + "'");
  RocksDbOptions rocks;
  rocks.create_if_missing = options.create_if_missing;
  rocks.read_only = options.read_only;
  rocks.open_tables_lazily = options.open_tables_lazily;
  rocks.initialize = options.initialize;
  return OpenRocksDbKvStore(rocks, path);
}

}  // namespace

bool IsDistributedUri(std::string_view uri) {
  const size_t sep = uri.find(kSchemeSeparator);
  return sep != std::string_view::npos && uri.substr(0, sep) == kRadosScheme;
}

Result<std::unique_ptr<KvStore>> OpenKvStore(const std::string& uri, const OpenOptions& options) {
  if (uri.empty()) {
    return Status::InvalidArgument(
        "empty store URI (use a directory path, file://PATH, memory:// or rados://POOL?conf=PATH)");
  }
  const size_t sep = uri.find(kSchemeSeparator);
  if (sep != std::string::npos && IsScheme(std::string_view(uri).substr(0, sep))) {
    const std::string scheme = uri.substr(0, sep);
    const std::string rest = uri.substr(sep + kSchemeSeparator.size());
    if (scheme == "memory") {
      if (!rest.empty()) {
        return Status::InvalidArgument("memory:// takes no path, got '" + uri + "'");
      }
      std::unique_ptr<KvStore> store = NewMemoryKvStore();
      if (options.create_if_missing && options.initialize) {
        GRIDSTORE_RETURN_IF_ERROR(options.initialize(store.get()));
      }
      return store;
    }
    if (scheme == "file") return OpenPath(uri, rest, options);
    if (scheme == kRadosScheme) {
      GRIDSTORE_ASSIGN_OR_RETURN(RadosOptions rados, ParseRadosUri(uri));
      rados.create_if_missing = options.create_if_missing;
      rados.read_only = options.read_only;
      rados.initialize = options.initialize;
      if (!GRIDSTORE_HAVE_RADOS) {
        return Status::Unimplemented("cannot open '" + uri + "': " + kEnableRados);
      }
      return OpenRadosKvStoreViaPlugin(rados);
    }
    return Status::InvalidArgument(
        "unknown store scheme '" + scheme + "' in '" + uri +
        "' (use a directory path, file://PATH, memory:// or rados://POOL?conf=PATH)");
  }
  return OpenPath(uri, uri, options);
}

}  // namespace gridstore::storage
