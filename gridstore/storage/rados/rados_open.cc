// Copyright 2026 The GridStore Authors.
//
// Connecting to a cluster and opening (or creating) a store in a pool.
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "gridstore/storage/rados/rados_kv_store_impl.h"

namespace gridstore::storage {
namespace internal_rados {
namespace {

std::string ConfName(const RadosOptions& options) {
  return options.conf_path.empty() ? "librados's default configuration"
                                   : "configuration '" + options.conf_path + "'";
}

// Sets `name` to `seconds` when the configuration leaves it at `unset` (its librados default).
void DefaultTimeout(librados::Rados& cluster, const char* name, const char* unset, int seconds) {
  std::string value;
  if (cluster.conf_get(name, value) == 0 && value == unset) {
    cluster.conf_set(name, std::to_string(seconds).c_str());
  }
}

// An OSD that crashed and came back on the same address stays "up" in the osdmap this client
// holds when nobody marked it down (a one-OSD cluster, or a restart quicker than the failure
// reports), and the new instance refuses connections meant for the old one. librados fetches a
// new map only for ops older than objecter_timeout, checked every objecter_tick_interval: with
// both at a quarter of the op timeout, the map arrives and ops are resent before they give up.
// (Measured: with the defaults of 10 s and 5 s and a 10 s op timeout, a client never recovered
// from an OSD restart; with 2.5 s and 2.5 s it read again 3 s after the restart.)
void AskForMapsBeforeTimingOut(librados::Rados& cluster) {
  std::string value;
  if (cluster.conf_get("rados_osd_op_timeout", value) != 0) return;
  const double op_timeout = std::atof(value.c_str());
  if (op_timeout <= 0) return;
  const double bound = std::max(0.5, op_timeout / 4);
  for (const char* name : {"objecter_timeout", "objecter_tick_interval"}) {
    if (cluster.conf_get(name, value) == 0 && std::atof(value.c_str()) > bound) {
      cluster.conf_set(name, std::to_string(bound).c_str());
    }
  }
}

// Opens the store in `io`'s namespace (creating it if asked): its home catalog shard marks it and
// records the shard count (absent: a store from before shards, with one).
Result<std::unique_ptr<KvStore>> OpenStoreIn(std::unique_ptr<librados::Rados> cluster,
                                             librados::IoCtx io, const RadosOptions& options,
                                             const std::string& where) {
  auto close = [&](Status s) -> Result<std::unique_ptr<KvStore>> {
    io.close();
    cluster->shutdown();
    return s;
  };
  // The catalog replica, when asked for, is loaded before the store is handed out.
  auto ready = [&](std::unique_ptr<RadosKvStore> store) -> Result<std::unique_ptr<KvStore>> {
    if (options.catalog_replica) GRIDSTORE_RETURN_IF_ERROR(store->StartReplica());
    return std::unique_ptr<KvStore>(std::move(store));
  };
  std::map<std::string, bufferlist> xattrs;
  int rval = 0;
  librados::ObjectReadOperation read;
  read.getxattrs(&xattrs, &rval);
  int r = io.operate(CatalogShardName(0), &read, nullptr);
  if (r == 0) r = rval;
  if (r == -ENOENT) {
    if (!options.create_if_missing || options.read_only) {
      return close(Status::NotFound("no GridStore store in " + where));
    }
    const int shards = options.catalog_shards > 0 ? options.catalog_shards : kDefaultCatalogShards;
    auto store = std::make_unique<RadosKvStore>(std::move(cluster), std::move(io), options, shards,
                                                /*creating=*/static_cast<bool>(options.initialize));
    // Every shard exists from the start, so that replicas can watch them all; the home shard
    // last, since it is what makes the store exist (here, or the initializer's first write).
    GRIDSTORE_RETURN_IF_ERROR(store->CreateShards(/*home=*/!options.initialize));
    if (!options.initialize) return ready(std::move(store));
    // The initializer's first catalog write creates the home shard (with the shard count), so no
    // client sees a store before it is initialised.
    GRIDSTORE_RETURN_IF_ERROR(options.initialize(store.get()));
    return ready(std::move(store));
  }
  if (r < 0) {
    return close(Status::Unavailable(where + ": reading the catalog: " + std::strerror(-r)));
  }
  int shards = 1;
  if (auto it = xattrs.find(kCatalogShardsXattr); it != xattrs.end()) {
    std::string value;
    CopyOut(it->second, &value);
    shards = std::atoi(value.c_str());
    if (shards < 1 || shards > kMaxCatalogShards) {
      return close(Status::DataLoss(where + ": the catalog records " + value +
                                    " catalog shards, not a number from 1 to " +
                                    std::to_string(kMaxCatalogShards)));
    }
  }
  if (options.catalog_shards > 0 && options.catalog_shards != shards) {
    return close(Status::InvalidArgument(
        where + " has " + std::to_string(shards) + " catalog shards (fixed when it was created" +
        (shards == 1 ? ", before catalogs were sharded" : "") + "), not the " +
        std::to_string(options.catalog_shards) +
        " catalog_shards= asks for; drop catalog_shards= " + "to open it"));
  }
  return ready(std::make_unique<RadosKvStore>(std::move(cluster), std::move(io), options, shards,
                                              /*creating=*/false));
}

}  // namespace
}  // namespace internal_rados

using internal_rados::AskForMapsBeforeTimingOut;
using internal_rados::ConfName;
using internal_rados::DefaultTimeout;
using internal_rados::OpenStoreIn;
using internal_rados::RadosKvStore;

Result<std::unique_ptr<KvStore>> OpenRadosKvStore(const RadosOptions& options) {
  std::string where = "RADOS pool '" + options.pool + "'";
  if (!options.rados_namespace.empty()) where += " namespace '" + options.rados_namespace + "'";
  const std::string conf = ConfName(options);
  auto fail = [&](int r, std::string_view what) {
    const std::string msg = "opening " + where + " with " + conf + " as client." +
                            options.client_id + ": " + std::string(what) + ": " + std::strerror(-r);
    switch (-r) {
      case ETIMEDOUT:
        return Status::Unavailable(msg + " (no monitor answered: is the cluster up?)");
      case EACCES:
      case EPERM:
        return Status::FailedPrecondition(msg + " (check the client's keyring and caps)");
      case ENOENT:
        return Status::NotFound(msg);
      case EINVAL:
        return Status::InvalidArgument(msg);
      default:
        return Status::Unavailable(msg);
    }
  };

  auto cluster = std::make_unique<librados::Rados>();
  int r = cluster->init2(("client." + options.client_id).c_str(), "ceph", 0);
  if (r < 0) return fail(r, "initialising librados");
  r = cluster->conf_read_file(options.conf_path.empty() ? nullptr : options.conf_path.c_str());
  if (r < 0) {
    cluster->shutdown();
    return fail(r, "reading the configuration");
  }
  DefaultTimeout(*cluster, "rados_osd_op_timeout", "0", options.default_timeout_seconds);
  DefaultTimeout(*cluster, "rados_mon_op_timeout", "0", options.default_timeout_seconds);
  DefaultTimeout(*cluster, "client_mount_timeout", "300", options.default_timeout_seconds);
  AskForMapsBeforeTimingOut(*cluster);
  r = cluster->connect();
  if (r < 0) {
    cluster->shutdown();
    return fail(r, "connecting");
  }
  librados::IoCtx io;
  r = cluster->ioctx_create(options.pool.c_str(), io);
  if (r < 0) {
    cluster->shutdown();
    if (r == -ENOENT) {
      return Status::NotFound("RADOS pool '" + options.pool + "' does not exist (" + conf +
                              "); create it with `ceph osd pool create " + options.pool + "`");
    }
    return fail(r, "opening the pool");
  }
  io.set_namespace(options.rados_namespace);

  return OpenStoreIn(std::move(cluster), std::move(io), options, where + " (" + conf + ")");
}

}  // namespace gridstore::storage
