// Copyright 2026 The GridStore Authors.
//
// The catalog replica's plumbing (docs/design/catalog.md, "A catalog replica in each process on
// RADOS"): every shard watched, then listed into the replica; each committed catalog write
// applied to this process's replica and sent to the other processes' as a notify; watch errors
// and shard versions the notifies do not explain lead to re-listing the shard.
#include <cerrno>
#include <chrono>
#include <cstring>

#include "gridstore/storage/rados/rados_kv_store_impl.h"

namespace gridstore::storage::internal_rados {
namespace {

// Shards listed at once (in parallel) when loading.
constexpr size_t kShardsPerLoad = 8;
// How often the refresher compares shard versions with the replica's (and retries failed
// watches); a shard still behind a version seen one check earlier is listed again.
constexpr auto kCheckInterval = std::chrono::seconds(1);
// Notifies larger than this ask receivers to list the shard instead (far below Ceph's message
// limits; a catalog write that large is a batch of thousands of metas).
constexpr size_t kMaxNotifyBytes = 4 << 20;
// How long a notify waits for watchers' acks (a watcher that died without unwatching holds it
// until the OSD drops its watch). Nobody waits for it but the notifier thread and the store's
// close.
constexpr uint64_t kNotifyTimeoutMs = 3000;
// Notifies queued beyond this (watchers far slower than the writer) are dropped: receivers find
// those changes by the shard's version within a couple of seconds, as when a notify fails.
constexpr size_t kMaxQueuedNotifies = 256;
// How soon the OSD drops the watch of a client that stopped answering its pings.
constexpr uint32_t kWatchTimeoutSeconds = 10;

}  // namespace

void RadosKvStore::ShardWatch::handle_notify(uint64_t notify_id, uint64_t cookie, uint64_t,
                                             bufferlist& bl) {
  std::string payload;
  CopyOut(bl, &payload);
  store->OnNotify(shard, payload);
  bufferlist ack;
  store->io_.notify_ack(store->ShardName(shard), notify_id, cookie, ack);
}

void RadosKvStore::ShardWatch::handle_error(uint64_t cookie, int) {
  if (cookie == handle.load()) store->MarkStale(shard);  // not an old watch's late error
}

Status RadosKvStore::CreateShards(bool home) {
  Failures failures;
  {
    AioWindow window(options_.max_in_flight);
    for (int shard = 1; shard < shards_; ++shard) {
      auto op = std::make_shared<librados::ObjectWriteOperation>();
      op->create(/*exclusive=*/false);
      const std::string oid = ShardName(shard);
      window.Submit([&](librados::AioCompletion* c) { return io_.aio_operate(oid, c, op.get()); },
                    [&, op, oid](int r) {
                      if (r < 0) failures.Add(Error(r, "creating catalog shard '" + oid + "'"));
                    });
    }
  }
  GRIDSTORE_RETURN_IF_ERROR(
      failures.Summary("catalog shard creations", static_cast<size_t>(shards_ - 1)));
  if (!home) return Status::OK();
  librados::ObjectWriteOperation create;
  create.create(/*exclusive=*/false);
  create.setxattr(kCatalogShardsXattr, ToBufferList(std::to_string(shards_)));
  const int r = RunWrite(ShardName(0), &create);
  return r < 0 ? Error(r, "creating the catalog") : Status::OK();
}

Status RadosKvStore::StartReplica() {
  replica_ = std::make_unique<CatalogReplica>(shards_);
  ahead_at_.assign(static_cast<size_t>(shards_), 0);
  std::vector<int> all;
  for (int shard = 0; shard < shards_; ++shard) {
    watches_.push_back(std::make_unique<ShardWatch>(this, shard));
    // Watch before listing: a change made after the listing's version then arrives as a notify.
    // A shard that does not exist yet is picked up by the version checks once it does.
    WatchShard(shard);
    all.push_back(shard);
  }
  GRIDSTORE_RETURN_IF_ERROR(ReloadShards(all).WithContext("loading the catalog replica"));
  refresher_ = std::thread([this] { RefreshLoop(); });
  return Status::OK();
}

bool RadosKvStore::WatchShard(int shard) {
  ShardWatch& w = *watches_[static_cast<size_t>(shard)];
  if (const uint64_t old = w.handle.exchange(0); old != 0) io_.unwatch2(old);
  uint64_t handle = 0;
  if (io_.watch3(ShardName(shard), &handle, &w, kWatchTimeoutSeconds) < 0) return false;
  w.handle = handle;
  return true;
}

Status RadosKvStore::ReloadShards(const std::vector<int>& shards) {
  // Listed a few shards at a time, replaced all together: the replica merges the listings in
  // key order, so that its first load costs no search per key (the listings' strings move into
  // the replica; their vectors, 64 bytes a key, are what the load holds on top).
  std::vector<CatalogReplica::Listing> listings;
  listings.reserve(shards.size());
  for (size_t from = 0; from < shards.size(); from += kShardsPerLoad) {
    const size_t to = std::min(shards.size(), from + kShardsPerLoad);
    std::vector<OmapCursor> cursors(to - from);
    for (size_t i = from; i < to; ++i) cursors[i - from].oid = ShardName(shards[i]);
    GRIDSTORE_RETURN_IF_ERROR(ReadOmapRanges(&cursors, "", ""));
    for (size_t i = from; i < to; ++i) {
      OmapCursor& c = cursors[i - from];
      listings.push_back({shards[i], c.version, std::move(c.entries)});
    }
  }
  replica_->Reload(std::move(listings));
  return Status::OK();
}

void RadosKvStore::OnNotify(int shard, std::string_view payload) {
  ShardChange change;
  if (!DecodeShardChange(payload, &change) || change.relist) {
    MarkStale(shard);
    return;
  }
  replica_->Apply(shard, change);
}

void RadosKvStore::MarkStale(int shard) {
  {
    std::lock_guard<std::mutex> lock(refresh_mu_);
    stale_.insert(shard);
  }
  refresh_cv_.notify_one();
}

void RadosKvStore::RefreshLoop() {
  auto next_check = std::chrono::steady_clock::now() + kCheckInterval;
  while (true) {
    std::vector<int> stale;
    {
      std::unique_lock<std::mutex> lock(refresh_mu_);
      refresh_cv_.wait_until(lock, next_check, [&] { return stopping_ || !stale_.empty(); });
      if (stopping_) return;
      stale.assign(stale_.begin(), stale_.end());
      stale_.clear();
    }
    // A shard whose watch broke may have missed notifies: watch it again, then list it.
    std::vector<int> watched, failed;
    for (int shard : stale) (WatchShard(shard) ? watched : failed).push_back(shard);
    if (!watched.empty() && !ReloadShards(watched).ok()) {
      failed.insert(failed.end(), watched.begin(), watched.end());
    }
    if (!failed.empty()) {
      // Tried again at the next check (the cluster may be down for a while).
      std::lock_guard<std::mutex> lock(refresh_mu_);
      stale_.insert(failed.begin(), failed.end());
    }
    if (std::chrono::steady_clock::now() >= next_check) {
      CheckShardVersions();
      next_check = std::chrono::steady_clock::now() + kCheckInterval;
    } else if (!failed.empty()) {
      std::unique_lock<std::mutex> lock(refresh_mu_);
      refresh_cv_.wait_until(lock, next_check, [&] { return stopping_; });
    }
  }
}

void RadosKvStore::CheckShardVersions() {
  std::vector<uint64_t> versions(static_cast<size_t>(shards_), 0);
  std::vector<bool> exists(static_cast<size_t>(shards_), false);
  {
    AioWindow window(options_.max_in_flight);
    for (int shard = 0; shard < shards_; ++shard) {
      auto op = std::make_shared<librados::ObjectReadOperation>();
      op->assert_exists();
      const std::string oid = ShardName(shard);
      window.Submit(
          [&](librados::AioCompletion* c) { return io_.aio_operate(oid, c, op.get(), nullptr); },
          [&, op, shard](int r) {
            if (r < 0) return;  // absent (nothing written yet) or unreachable: nothing to do
            exists[static_cast<size_t>(shard)] = true;
            versions[static_cast<size_t>(shard)] = window.version();
          });
    }
  }
  std::vector<int> behind;
  for (int shard = 0; shard < shards_; ++shard) {
    const size_t i = static_cast<size_t>(shard);
    if (!exists[i]) continue;
    if (watches_[i]->handle.load() == 0) {  // created since the replica started
      behind.push_back(shard);
      continue;
    }
    const uint64_t known = replica_->version(shard);
    if (ahead_at_[i] != 0 && known < ahead_at_[i]) {
      behind.push_back(shard);  // a second without the notify of that version: list it
      ahead_at_[i] = 0;
    } else {
      ahead_at_[i] = versions[i] > known ? versions[i] : 0;
    }
  }
  if (behind.empty()) return;
  std::lock_guard<std::mutex> lock(refresh_mu_);
  stale_.insert(behind.begin(), behind.end());
}

void RadosKvStore::PublishChanges(std::vector<std::pair<int, ShardChange>>* changes) {
  if (changes->empty()) return;
  for (auto& [shard, change] : *changes) {
    if (replica_ != nullptr) replica_->Apply(shard, change);  // read-your-writes
    bufferlist bl = ToBufferList(EncodeShardChange(change, kMaxNotifyBytes));
    std::lock_guard<std::mutex> lock(notify_mu_);
    if (notify_queue_.size() < kMaxQueuedNotifies) notify_queue_.emplace_back(shard, std::move(bl));
    if (!notifier_.joinable()) notifier_ = std::thread([this] { NotifyLoop(); });
  }
  changes->clear();
  notify_cv_.notify_one();
}

void RadosKvStore::NotifyLoop() {
  std::unique_lock<std::mutex> lock(notify_mu_);
  while (true) {
    notify_cv_.wait(lock, [&] { return notifier_stopping_ || !notify_queue_.empty(); });
    if (notify_queue_.empty()) return;  // closing, and everything sent
    auto [shard, bl] = std::move(notify_queue_.front());
    notify_queue_.pop_front();
    lock.unlock();
    // A failure is not retried: watchers find the change by the shard's version
    // (CheckShardVersions).
    bufferlist acks;
    io_.notify2(ShardName(shard), bl, kNotifyTimeoutMs, &acks);
    lock.lock();
  }
}

void RadosKvStore::StopNotifier() {
  {
    std::lock_guard<std::mutex> lock(notify_mu_);
    if (!notifier_.joinable()) return;
    notifier_stopping_ = true;
  }
  notify_cv_.notify_one();
  notifier_.join();
}

void RadosKvStore::MultiGetFromReplica(Table table, const std::vector<std::string_view>& keys,
                                       std::vector<std::string>* values,
                                       std::vector<Status>* statuses) {
  for (size_t i = 0; i < keys.size(); ++i) {
    std::string_view partition;
    int shard = 0;
    switch (PlaceCatalogKey(table, keys[i], &partition)) {
      case CatalogPlacement::kStoreWide:
        break;
      case CatalogPlacement::kPartition:
        shard = CatalogShardOf(partition, shards_);
        break;
      case CatalogPlacement::kPosting:
        shard = -1;  // any shard
        break;
    }
    if (!replica_->Get(shard, CatalogKey(table, keys[i]), &(*values)[i])) {
      (*statuses)[i] = Status::NotFound("");
    }
  }
}

void RadosKvStore::StopReplica() {
  if (refresher_.joinable()) {
    {
      std::lock_guard<std::mutex> lock(refresh_mu_);
      stopping_ = true;
    }
    refresh_cv_.notify_one();
    refresher_.join();
  }
  for (auto& w : watches_) {
    if (const uint64_t handle = w->handle.exchange(0); handle != 0) io_.unwatch2(handle);
  }
  // No callback may run once the watch contexts are gone.
  if (!watches_.empty()) cluster_->watch_flush();
}

}  // namespace gridstore::storage::internal_rados
