// Copyright 2026 The GridStore Authors.
//
// The RADOS backend's implementation, shared by its units: rados_kv_store.cc (the KvStore
// interface), rados_io.cc (asynchronous reads and omap pages), rados_catalog.cc (the catalog
// shards: reading the meta and index tables), rados_catalog_write.cc (writing them), rados_data.cc
// (data values and their directories), rados_catalog_watch.cc (the catalog replica's loading,
// watches and notifies) and rados_open.cc (connecting). See rados_kv_store.cc for the
// object layout. Only storage/rados/ includes it: it is the one header that sees librados.
#ifndef GRIDSTORE_STORAGE_RADOS_RADOS_KV_STORE_IMPL_H_
#define GRIDSTORE_STORAGE_RADOS_RADOS_KV_STORE_IMPL_H_

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <rados/librados.hpp>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "gridstore/storage/kv_store.h"
#include "gridstore/storage/rados/backward_probe.h"
#include "gridstore/storage/rados/object_names.h"
#include "gridstore/storage/rados/rados_catalog_replica.h"
#include "gridstore/storage/rados/rados_kv_store.h"
#include "gridstore/util/internal/coding.h"

namespace gridstore::storage::internal_rados {

using librados::bufferlist;

// Entries per omap read: a page is one round trip; small enough that a catalog page of metas
// with coordinate arrays stays a few MB.
inline constexpr unsigned kOmapPage = 512;
// ApproximateSize of a meta or index range over every shard reads this many shards and scales.
inline constexpr int kCatalogSizeSample = 4;
// A scan that keeps seeing the catalog change between its pages gives up after this many tries.
inline constexpr int kMaxConsistentReadTries = 20;

inline bufferlist ToBufferList(std::string_view bytes) {
  bufferlist bl;
  bl.append(bytes.data(), static_cast<unsigned>(bytes.size()));
  return bl;
}

inline void CopyOut(bufferlist& bl, std::string* out) {
  out->resize(bl.length());
  if (bl.length() > 0) bl.begin().copy(bl.length(), out->data());
}

inline std::string EncodeSize(uint64_t size) {
  std::string s;
  PutFixed64(&s, size);
  return s;
}

// A directory entry's value size; 0 for a damaged entry (it only feeds size estimates).
inline uint64_t DecodeSize(const std::string& s) {
  return s.size() == 8 ? DecodeFixed64(s.data()) : 0;
}

inline char CatalogTag(Table table) { return table == Table::kMeta ? kMetaTag : kIndexTag; }

inline std::string CatalogKey(Table table, std::string_view key) {
  std::string k(1, CatalogTag(table));
  k.append(key);
  return k;
}

// The omap range of `range` within a table's tag.
inline KeyRange CatalogRange(Table table, const KeyRange& range) {
  KeyRange r{CatalogKey(table, range.begin), CatalogKey(table, range.end)};
  if (range.end.empty()) r.end = std::string(1, static_cast<char>(CatalogTag(table) + 1));
  return r;
}

// Runs librados aio operations with at most `limit` in flight. Completions are handled on the
// calling thread in submission order, so callers deliver results in order without locks.
class AioWindow {
 public:
  explicit AioWindow(int limit) : limit_(std::max(1, limit)) {}
  AioWindow(const AioWindow&) = delete;
  AioWindow& operator=(const AioWindow&) = delete;
  ~AioWindow() { Drain(); }

  // start(c) issues the operation (returning aio_operate's result); done(r) gets its result.
  void Submit(const std::function<int(librados::AioCompletion*)>& start,
              std::function<void(int)> done) {
    while (static_cast<int>(pending_.size()) >= limit_) WaitOldest();
    librados::AioCompletion* c = librados::Rados::aio_create_completion();
    const int r = start(c);
    if (r < 0) {
      c->release();
      done(r);
      return;
    }
    pending_.push_back(Pending{c, std::move(done)});
  }
  void Drain() {
    while (!pending_.empty()) WaitOldest();
  }
  void set_limit(int limit) { limit_ = std::max(1, limit); }
  int limit() const { return limit_; }

  // The object version the oldest completed operation saw; valid inside its done().
  uint64_t version() const { return version_; }

 private:
  struct Pending {
    librados::AioCompletion* completion;
    std::function<void(int)> done;
  };
  void WaitOldest() {
    Pending p = std::move(pending_.front());
    pending_.pop_front();
    p.completion->wait_for_complete();
    const int r = p.completion->get_return_value();
    version_ = p.completion->get_version64();
    p.completion->release();
    p.done(r);
  }

  int limit_;
  uint64_t version_ = 0;
  std::deque<Pending> pending_;
};

// An omap listing of [begin, end) of one object, read page by page at one object version.
struct OmapCursor {
  std::string oid;
  std::vector<std::pair<std::string, std::string>> entries;
  // Internal state.
  std::string start_after;
  bool first = true;
  bool done = false;
  uint64_t version = 0;
  int tries = 0;
};
// The order a page's entries are handed over in: listing always reads forwards (omap has no
// other way); a backward scan reads a page below its top and takes it from the highest key down.
enum class OmapDirection { kForward, kBackward };

// One page of one object's omap to read (ReadOmapPages).
struct OmapPageRequest {
  std::string oid;
  std::string from;             // the page starts after this key,
  bool from_inclusive = false;  // or at it
  std::string end;              // exclusive bound; empty: none
  unsigned limit = kOmapPage;   // entries at most
  uint64_t version = 0;         // the object version the listing is at (0: not yet known)
  int* tries = nullptr;         // the listing's count of pages that found the object changed
};

// What one page read found.
struct OmapPage {
  enum Outcome {
    kEntries,  // `entries` (possibly none) in [from, end), at `version`
    kAbsent,   // no such object (and no version was asserted): it lists as empty
    kChanged,  // the object is no longer at the version asserted: list it again
  };
  Outcome outcome = kEntries;
  std::vector<std::pair<std::string, std::string>> entries;  // in the direction's order
  bool complete = false;                                     // nothing more below `end`
  uint64_t version = 0;
};

// A catalog shard listed page by page for a forward scan (rados_catalog_scan.cc).
struct CatalogCursor {
  std::string oid;
  std::vector<std::pair<std::string, std::string>> entries;  // the current page
  size_t next = 0;                                           // the next entry to merge
  std::string start_after;  // the first page: the range's first key (inclusive)
  bool first = true;
  bool done = false;
  uint64_t version = 0;  // 0: not yet known (first page, or the shard changed)
  int tries = 0;
  // Backward: start_after is the exclusive top of what is left; `probe` guesses the next page
  // below it; `whole`, when set, a start from which the keys up to the top are too dense to split
  // by number: the next page is all of [whole, top), read forwards.
  BackwardProbe probe;
  std::string whole;
};

// A batch's meta and index operations and expectations that fall in one catalog shard, and what
// was read of the shard to apply them (rados_catalog_write.cc).
struct CatalogPart {
  int shard = 0;
  std::vector<const WriteBatch::Op*> ops;
  std::vector<const WriteBatch::Expectation*> expectations;
  bool store_wide_writes = false;  // home shard: the batch writes store-wide keys
  bool fenced = false;             // checked against the store-wide sequence the batch read
  bool applied = false;
  // Read state.
  bool read = false;
  bool exists = false;
  uint64_t version = 0;
  uint64_t seq = 0;  // the shard's store-wide sequence
  std::map<std::string, bufferlist> found;
  std::set<std::string> existing;  // keys of the part's deleted ranges
};

class RadosKvStore final : public KvStore {
 public:
  RadosKvStore(std::unique_ptr<librados::Rados> cluster, librados::IoCtx io, RadosOptions options,
               int catalog_shards, bool creating)
      : cluster_(std::move(cluster)),
        io_(std::move(io)),
        options_(std::move(options)),
        shards_(catalog_shards),
        creating_(creating) {
    where_ = "RADOS pool '" + options_.pool + "'";
    if (!options_.rados_namespace.empty())
      where_ += " namespace '" + options_.rados_namespace + "'";
  }
  ~RadosKvStore() override {
    StopReplica();
    StopNotifier();
    io_.close();
    cluster_->shutdown();
  }

  // Creates the catalog shards other than the home shard (empty), so that replicas can watch
  // them from the start, then (`home`) the home shard with the shard count. For a store being
  // created.
  Status CreateShards(bool home);
  // Loads the catalog replica (watching every shard first) and starts keeping it fresh
  // (rados_catalog_watch.cc).
  Status StartReplica();

  Status Get(const ReadOptions& options, Table table, std::string_view key,
             std::string* value) override;

  void MultiGet(const ReadOptions&, Table table, const std::vector<std::string_view>& keys,
                std::vector<std::string>* values, std::vector<Status>* statuses) override;

  Status Put(const WriteOptions& options, Table table, std::string_view key,
             std::string_view value) override;

  Status Delete(const WriteOptions& options, Table table, std::string_view key) override;

  Status DeleteRange(const WriteOptions& options, Table table, const KeyRange& range) override;

  // Meta and index operations are one catalog write (atomic). Data operations up to the batch's
  // last data Put go first, the rest after the catalog: blocks land before the meta that
  // publishes them, and a deleted dataset leaves the catalog before its blocks go.
  Status Write(const WriteOptions&, const WriteBatch& batch) override;

  Status Scan(const ReadOptions& options, Table table, const KeyRange& range,
              const std::function<bool(std::string_view, std::string_view)>& fn) override;

  Status ReverseScan(const ReadOptions& options, Table table, const KeyRange& range,
                     const std::function<bool(std::string_view, std::string_view)>& fn) override;

  // An acknowledged RADOS write is already on every replica's journal: nothing to flush.
  Status Sync() override { return Status::OK(); }
  Status Flush() override { return Status::OK(); }
  // Deleting an object or omap key frees its space (the OSDs' own compaction does the rest).
  Status CompactRange(Table, const KeyRange&) override { return Status::OK(); }
  // Ceph checks its own data (scrubbing); there is nothing to check from a client.
  Status CheckIntegrity(std::vector<std::string>*) override { return Status::OK(); }
  // Any number of clients may write one pool.
  bool single_writer() const override { return false; }

  Result<uint64_t> ApproximateSize(Table table, const KeyRange& range) override;

 private:
  Status Error(int r, std::string_view what) const;

  Status CheckDataKey(const WriteBatch::Op& op) const;

  // Runs one read operation and waits.
  int RunRead(const std::string& oid, librados::ObjectReadOperation* op);

  int RunWrite(const std::string& oid, librados::ObjectWriteOperation* op);

  // Reads the data values of `keys` with up to max_in_flight reads at once, calling
  // on_value(i, r, bl) in key order; stops issuing reads once it returns false. `ramp_up` starts
  // the window at 2 and doubles it per value, so a scan stopped after a few keys reads few.
  void ReadDataValues(const std::vector<std::string_view>& keys,
                      const std::function<bool(size_t, int, bufferlist&)>& on_value,
                      bool ramp_up = false);

  // Reads one page of each request, all in flight together, and hands each page that came back
  // to on_page(i, page). An error other than absent or changed fails the whole read (`what`
  // names the kind of object: "catalog shard"), as does an object found changed
  // kMaxConsistentReadTries times by one listing (Unavailable).
  Status ReadOmapPages(const std::vector<OmapPageRequest>& requests, OmapDirection direction,
                       std::string_view what,
                       const std::function<void(size_t, OmapPage&)>& on_page);

  // Fills each cursor with its object's omap entries in [begin, end), each at one object version
  // (retrying an object whose version moved between pages). The first pages of all cursors are in
  // flight together. A missing object lists as empty.
  Status ReadOmapRanges(std::vector<OmapCursor>* cursors, std::string_view begin,
                        std::string_view end);

  // Every catalog entry of `range`, from the shards that may hold some (all in flight together),
  // merged in key order. Each shard is read at one version of it.
  // With `max_shards`, only the first max_shards shards are read (size estimates).
  Status ReadCatalogRange(Table table, const KeyRange& range,
                          std::vector<std::pair<std::string, std::string>>* out,
                          int max_shards = kMaxCatalogShards);

  // A forward scan of the meta or index table: the shards merged in key order, each read a page
  // at a time as the merge reaches it.
  Status ScanCatalog(Table table, const KeyRange& range,
                     const std::function<bool(std::string_view, std::string_view)>& fn);
  // As ScanCatalog, backwards (a reverse scan).
  Status ReverseScanCatalog(Table table, const KeyRange& range,
                            const std::function<bool(std::string_view, std::string_view)>& fn);
  // The merge of a reverse scan: refills the cursors' pages as the merge empties them and calls fn
  // with each key (its table tag stripped) from the highest down, until fn returns false.
  Status MergeBackward(std::vector<CatalogCursor>* cursors, const std::string& begin, size_t prefix,
                       const std::function<bool(std::string_view, std::string_view)>& fn);
  // Reads the next page below each cursor's top (all in flight together), down to `begin`;
  // `prefix` is the length of the range's common prefix.
  Status ReadCatalogPagesBackward(const std::vector<CatalogCursor*>& cursors,
                                  std::string_view begin, size_t prefix);
  // Reads the next page of each cursor (all in flight together), up to `end`.
  Status ReadCatalogPages(const std::vector<CatalogCursor*>& cursors, std::string_view end);

  // MultiGet of meta or index keys: one omap_get_vals_by_keys per shard involved, in flight
  // together.
  void MultiGetCatalog(Table table, const std::vector<std::string_view>& keys,
                       std::vector<std::string>* values, std::vector<Status>* statuses);

  // The partitions whose keys may fall in `range`.
  Status PartitionsOf(const KeyRange& range, std::vector<std::string>* partitions);

  // Every data key in `range` with its value's size, sorted, from the directories.
  Status ListDataKeys(const KeyRange& range, std::vector<std::pair<std::string, uint64_t>>* keys);

  Status ScanImpl(const ReadOptions&, Table table, const KeyRange& range, bool reverse,
                  const std::function<bool(std::string_view, std::string_view)>& fn);

  // Applies data_ops[from, to) in order: runs of Puts and of Deletes go in parallel (the last op
  // on a key wins within a run), each DeleteRange on its own.
  Status ApplyDataOps(const std::vector<const WriteBatch::Op*>& ops, size_t from, size_t to);

  // Collects a round of operations' failures: the first error, and how many failed.
  class Failures {
   public:
    void Add(Status s) {
      if (first_.ok()) first_ = std::move(s);
      ++count_;
    }
    Status Summary(std::string_view what, size_t total) const {
      if (first_.ok()) return first_;
      if (count_ == 1) return first_;
      return first_.WithContext(std::to_string(count_) + " of " + std::to_string(total) + " " +
                                std::string(what) + " failed; the first");
    }

   private:
    Status first_;
    size_t count_ = 0;
  };

  Status PutDataValues(const std::map<std::string_view, std::string_view>& values);

  Status DeleteDataKeys(const std::set<std::string>& keys);

  Status DeleteDataRange(const KeyRange& range);

  // omap_set / omap_rm_keys on many objects, all in flight together.
  Status WriteOmaps(
      const std::vector<std::pair<std::string, std::map<std::string, bufferlist>>>& sets,
      const std::vector<std::pair<std::string, std::set<std::string>>>& removals);

  // Splits the batch's catalog operations and expectations into one part per shard (routing
  // postings to the dataset the batch names) and applies them: the home shard first when the
  // batch writes store-wide keys, then the others.
  Status ApplyCatalogOps(const std::vector<const WriteBatch::Op*>& ops,
                         const std::vector<WriteBatch::Expectation>& expectations);

  // Applies each part atomically on its shard: reads what its expectations, range deletes and
  // fence need (all parts in flight together), checks every expectation before writing any part,
  // then writes every part asserting the version read, retrying a part another writer got into.
  Status ApplyCatalogParts(std::vector<CatalogPart*> parts, bool fenced);

  // Aborted unless every expectation of the parts holds in what was read of them.
  Status CheckCatalogParts(const std::vector<CatalogPart*>& parts, bool some_applied) const;

  // Reads each part's expected keys, xattrs and version (all in flight together).
  Status ReadCatalogParts(const std::vector<CatalogPart*>& parts);

  // Writes each part (all in flight together); marks the parts applied. Sets *retry if a part
  // must be read again (its shard changed since it was read).
  Status WriteCatalogParts(const std::vector<CatalogPart*>& parts, bool* retry);

  // Brings every shard's store-wide sequence up to `seq` (those below it).
  Status PropagateStoreWideSeq(uint64_t seq);

  // The object name of catalog shard `shard`.
  std::string ShardName(int shard) const { return CatalogShardName(shard); }

  // --- The catalog replica (rados_catalog_watch.cc) ---
  // A watch on one shard: notifies go to OnNotify, errors to MarkStale.
  struct ShardWatch final : librados::WatchCtx2 {
    ShardWatch(RadosKvStore* s, int n) : store(s), shard(n) {}
    void handle_notify(uint64_t notify_id, uint64_t cookie, uint64_t notifier,
                       bufferlist& bl) override;
    void handle_error(uint64_t cookie, int err) override;

    RadosKvStore* const store;
    const int shard;
    std::atomic<uint64_t> handle{0};  // 0: not watching
  };
  bool UseReplica(const ReadOptions& options, Table table) const {
    return replica_ != nullptr && options.allow_replica && table != Table::kData;
  }
  void MultiGetFromReplica(Table table, const std::vector<std::string_view>& keys,
                           std::vector<std::string>* values, std::vector<Status>* statuses);
  // Lists `shards` (a few in flight at a time) into the replica.
  Status ReloadShards(const std::vector<int>& shards);
  // (Re-)watches `shard`; false if the shard does not exist (yet) or the watch failed.
  bool WatchShard(int shard);
  // A notify or watch error of `shard` (librados's callback thread).
  void OnNotify(int shard, std::string_view payload);
  void MarkStale(int shard);
  // The background thread: re-watches and re-lists stale shards, and once a second compares
  // every shard's version with the replica's.
  void RefreshLoop();
  void CheckShardVersions();
  // After committed shard writes: applies them to this process's replica and queues a notify
  // of each to every watcher of its shard (sent by the notifier thread; the writer does not wait).
  void PublishChanges(std::vector<std::pair<int, ShardChange>>* changes);
  // The notifier thread: sends the queued notifies one at a time, each a synchronous notify2,
  // until the store closes (sending what is queued first). Not aio_notify: librados cancels an
  // aio_notify's linger operation on its finisher thread after the completion fires, which raced
  // with closing the store (a crash in librados at shutdown, about one close in a hundred).
  void NotifyLoop();
  void StopNotifier();
  void StopReplica();

  std::unique_ptr<CatalogReplica> replica_;
  std::vector<std::unique_ptr<ShardWatch>> watches_;
  std::thread refresher_;
  std::mutex refresh_mu_;
  std::condition_variable refresh_cv_;
  bool stopping_ = false;           // guarded by refresh_mu_
  std::set<int> stale_;             // guarded by refresh_mu_
  std::vector<uint64_t> ahead_at_;  // refresher only: a shard version the replica had not reached
  std::mutex notify_mu_;
  std::condition_variable notify_cv_;
  std::deque<std::pair<int, bufferlist>> notify_queue_;  // guarded by notify_mu_
  bool notifier_stopping_ = false;                       // guarded by notify_mu_
  std::thread notifier_;                                 // started by the first publish

  std::unique_ptr<librados::Rados> cluster_;
  librados::IoCtx io_;
  const RadosOptions options_;
  const int shards_;  // catalog shards (1: a store from before shards)
  // The store is being created: the home shard's first write records the shard count.
  std::atomic<bool> creating_;
  std::string where_;
  // What reverse scans learned: per table and common prefix of a range, each shard's step (the
  // key-space width that held half a probe near the top) and where its highest key was. The next
  // reverse scan of a range with that prefix starts just below that key: one round for its first
  // page instead of many, since a guess from the range's width is far too wide for the values of
  // one field, which lie in a narrow band of the key space. Only a first guess: any guess
  // converges. Cleared when it holds kMaxReverseHints prefixes.
  struct ReverseHint {
    uint64_t step = 0;  // 0: none
    uint64_t top = 0;
    bool top_seen = false;
  };
  static constexpr size_t kMaxReverseHints = 1024;
  std::mutex reverse_hints_mu_;
  std::map<std::string, std::vector<ReverseHint>> reverse_hints_;  // guarded by reverse_hints_mu_
};

}  // namespace gridstore::storage::internal_rados

#endif  // GRIDSTORE_STORAGE_RADOS_RADOS_KV_STORE_IMPL_H_
