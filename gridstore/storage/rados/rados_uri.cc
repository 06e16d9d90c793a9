// Copyright 2026 The GridStore Authors.
//
// ParseRadosUri: no librados here, so the factory's tests check URIs without a cluster.

#include <algorithm>
#include <string>
#include <string_view>

#include "gridstore/storage/rados/rados_kv_store.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::storage {

Result<RadosOptions> ParseRadosUri(std::string_view uri) {
  const std::string prefix = std::string(kRadosScheme) + "://";
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument(
        "store URI '" + std::string(uri) + "': " + std::string(why) +
        " (expected rados://POOL?conf=PATH&id=CLIENT&namespace=NS&catalog_shards=N" +
        "&catalog_replica=0|1)");
  };
  if (!uri.starts_with(prefix)) return bad("does not start with " + prefix);
  std::string_view rest = uri.substr(prefix.size());
  const size_t question = rest.find('?');
  const std::string_view pool_part = rest.substr(0, question);
  const std::string_view query =
      question == std::string_view::npos ? std::string_view() : rest.substr(question + 1);

  RadosOptions options;
  if (!PercentDecode(pool_part, /*plus_is_space=*/false, &options.pool))
    return bad("malformed %-escape in the pool name");
  if (options.pool.empty()) return bad("no pool name");
  if (options.pool.find('/') != std::string::npos) {
    return bad("the pool name '" + options.pool + "' holds '/' (a RADOS store is a whole pool " +
               "namespace, not a path inside one)");
  }

  bool seen_conf = false, seen_id = false, seen_namespace = false, seen_shards = false,
       seen_replica = false;
  size_t pos = 0;
  while (question != std::string_view::npos && pos <= query.size()) {
    const size_t amp = query.find('&', pos);
    const std::string_view param =
        query.substr(pos, amp == std::string_view::npos ? std::string_view::npos : amp - pos);
    pos = amp == std::string_view::npos ? query.size() + 1 : amp + 1;
    if (param.empty()) continue;
    const size_t eq = param.find('=');
    if (eq == std::string_view::npos)
      return bad("parameter '" + std::string(param) + "' has no '='");
    const std::string_view name = param.substr(0, eq);
    std::string value;
    if (!PercentDecode(param.substr(eq + 1), /*plus_is_space=*/false, &value)) {
      return bad("malformed %-escape in parameter '" + std::string(name) + "'");
    }
    auto take = [&](bool* seen, std::string* field) -> Status {
      if (*seen) return bad("parameter '" + std::string(name) + "' given twice");
      *seen = true;
      *field = std::move(value);
      return Status::OK();
    };
    if (name == "conf") {
      GRIDSTORE_RETURN_IF_ERROR(take(&seen_conf, &options.conf_path));
      if (options.conf_path.empty()) return bad("empty conf=");
    } else if (name == "id") {
      GRIDSTORE_RETURN_IF_ERROR(take(&seen_id, &options.client_id));
      if (options.client_id.empty()) return bad("empty id=");
      if (options.client_id.starts_with("client.")) {
        return bad("id= takes the name without 'client.' (id=" + options.client_id.substr(7) + ")");
      }
    } else if (name == "namespace") {
      GRIDSTORE_RETURN_IF_ERROR(take(&seen_namespace, &options.rados_namespace));
    } else if (name == "catalog_shards") {
      std::string shards;
      GRIDSTORE_RETURN_IF_ERROR(take(&seen_shards, &shards));
      int n = 0;
      for (char c : shards) {
        if (c < '0' || c > '9') return bad("catalog_shards= takes a number");
        n = std::min(n * 10 + (c - '0'), 100000);  // a huge number stays out of range
      }
      if (shards.empty() || n < 1 || n > 4096) return bad("catalog_shards= takes 1 to 4096");
      options.catalog_shards = n;
    } else if (name == "catalog_replica") {
      std::string replica;
      GRIDSTORE_RETURN_IF_ERROR(take(&seen_replica, &replica));
      if (replica != "0" && replica != "1") return bad("catalog_replica= takes 0 or 1");
      options.catalog_replica = replica == "1";
    } else {
      return bad("unknown parameter '" + std::string(name) +
                 "' (known: conf, id, namespace, catalog_shards, catalog_replica)");
    }
  }
  return options;
}

}  // namespace gridstore::storage
