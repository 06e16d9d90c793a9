// Copyright 2026 The GridStore Authors.
//
// The RADOS backend. Three kinds of objects (object_names.h, docs/format.md "RADOS"):
//   - the catalog: one omap object holding the meta and index tables, so a batch's meta + index
//     operations are one RADOS write operation, atomic on the OSD;
//   - data values: one object each, named from the key, so Get and MultiGet need no lookup and a
//     fetch of N blocks is N reads in flight at once (about one round trip);
//   - directories: per partition (dataset) and shard, an omap of its data keys, which is what makes
//     a dataset's keys listable and deletable as a range.
// A directory entry is written before its value object and removed after it, so every value
// object is listed (a crash leaves at most an entry without an object, which scans skip).

#include "gridstore/storage/rados/rados_kv_store.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <rados/librados.hpp>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gridstore/storage/rados/object_names.h"
#include "gridstore/util/internal/coding.h"

namespace gridstore::storage {
namespace {

using librados::bufferlist;
using namespace rados_internal;  // NOLINT: the backend's own object naming

// Entries per omap read: a page is one round trip; small enough that a catalog page of metas
// with coordinate arrays stays a few MB.
constexpr unsigned kOmapPage = 512;
// A scan that keeps seeing the catalog change between its pages gives up after this many tries.
constexpr int kMaxConsistentReadTries = 20;

bufferlist ToBufferList(std::string_view bytes) {
  bufferlist bl;
  bl.append(bytes.data(), static_cast<unsigned>(bytes.size()));
  return bl;
}

void CopyOut(bufferlist& bl, std::string* out) {
  out->resize(bl.length());
  if (bl.length() > 0) bl.begin().copy(bl.length(), out->data());
}

std::string EncodeSize(uint64_t size) {
  std::string s;
  PutFixed64(&s, size);
  return s;
}

// A directory entry's value size; 0 for a damaged entry (it only feeds size estimates).
uint64_t DecodeSize(const std::string& s) { return s.size() == 8 ? DecodeFixed64(s.data()) : 0; }

char CatalogTag(Table table) { return table == Table::kMeta ? kMetaTag : kIndexTag; }

std::string CatalogKey(Table table, std::string_view key) {
  std::string k(1, CatalogTag(table));
  k.append(key);
  return k;
}

// The omap range of `range` within a table's tag.
KeyRange CatalogRange(Table table, const KeyRange& range) {
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

class RadosKvStore final : public KvStore {
 public:
  RadosKvStore(std::unique_ptr<librados::Rados> cluster, librados::IoCtx io, RadosOptions options)
      : cluster_(std::move(cluster)), io_(std::move(io)), options_(std::move(options)) {
    where_ = "RADOS pool '" + options_.pool + "'";
    if (!options_.rados_namespace.empty())
      where_ += " namespace '" + options_.rados_namespace + "'";
  }
  ~RadosKvStore() override {
    io_.close();
    cluster_->shutdown();
  }

  Status Get(const ReadOptions& options, Table table, std::string_view key,
             std::string* value) override {
    std::vector<std::string_view> keys = {key};
    std::vector<std::string> values;
    std::vector<Status> statuses;
    MultiGet(options, table, keys, &values, &statuses);
    if (statuses[0].ok()) *value = std::move(values[0]);
    return statuses[0];
  }

  void MultiGet(const ReadOptions&, Table table, const std::vector<std::string_view>& keys,
                std::vector<std::string>* values, std::vector<Status>* statuses) override {
    values->assign(keys.size(), std::string());
    statuses->assign(keys.size(), Status::OK());
    if (keys.empty()) return;
    if (table == Table::kData) {
      ReadDataValues(keys, [&](size_t i, int r, bufferlist& bl) {
        if (r == 0) {
          CopyOut(bl, &(*values)[i]);
        } else {
          (*statuses)[i] = r == -ENOENT ? Status::NotFound("") : Error(r, "reading a data value");
        }
        return true;
      });
      return;
    }
    std::set<std::string> wanted;
    for (std::string_view k : keys) wanted.insert(CatalogKey(table, k));
    std::map<std::string, bufferlist> found;
    int rval = 0;
    librados::ObjectReadOperation op;
    op.omap_get_vals_by_keys(wanted, &found, &rval);
    int r = RunRead(std::string(kCatalogObject), &op);
    if (r == 0) r = rval;
    for (size_t i = 0; i < keys.size(); ++i) {
      if (r == -ENOENT) {
        (*statuses)[i] = Status::NotFound("");
      } else if (r < 0) {
        (*statuses)[i] = Error(r, "reading the catalog");
      } else if (auto it = found.find(CatalogKey(table, keys[i])); it != found.end()) {
        CopyOut(it->second, &(*values)[i]);
      } else {
        (*statuses)[i] = Status::NotFound("");
      }
    }
  }

  Status Put(const WriteOptions& options, Table table, std::string_view key,
             std::string_view value) override {
    WriteBatch batch;
    batch.Put(table, key, value);
    return Write(options, batch);
  }

  Status Delete(const WriteOptions& options, Table table, std::string_view key) override {
    WriteBatch batch;
    batch.Delete(table, key);
    return Write(options, batch);
  }

  Status DeleteRange(const WriteOptions& options, Table table, const KeyRange& range) override {
    GRIDSTORE_RETURN_IF_ERROR(ValidateDeleteRange(table, range.begin, range.end));
    WriteBatch batch;
    batch.DeleteRange(table, range.begin, range.end);
    return Write(options, batch);
  }

  // Meta and index operations are one catalog write (atomic). Data operations up to the batch's
  // last data Put go first, the rest after the catalog: blocks land before the meta that
  // publishes them, and a deleted dataset leaves the catalog before its blocks go.
  Status Write(const WriteOptions&, const WriteBatch& batch) override {
    if (options_.read_only) {
      return Status::FailedPrecondition(where_ + " is open read-only");
    }
    std::vector<const WriteBatch::Op*> catalog_ops, data_ops;
    size_t data_before_catalog = 0;
    for (const WriteBatch::Op& op : batch.ops()) {
      if (op.type == WriteBatch::OpType::kDeleteRange) {
        GRIDSTORE_RETURN_IF_ERROR(ValidateDeleteRange(op.table, op.key, op.value));
      }
      if (op.table == Table::kData) {
        GRIDSTORE_RETURN_IF_ERROR(CheckDataKey(op));
        data_ops.push_back(&op);
        if (op.type == WriteBatch::OpType::kPut) data_before_catalog = data_ops.size();
      } else {
        catalog_ops.push_back(&op);
      }
    }
    GRIDSTORE_RETURN_IF_ERROR(ApplyDataOps(data_ops, 0, data_before_catalog));
    GRIDSTORE_RETURN_IF_ERROR(ApplyCatalogOps(catalog_ops, batch.expectations()));
    return ApplyDataOps(data_ops, data_before_catalog, data_ops.size());
  }

  Status Scan(const ReadOptions& options, Table table, const KeyRange& range,
              const std::function<bool(std::string_view, std::string_view)>& fn) override {
    return ScanImpl(options, table, range, /*reverse=*/false, fn);
  }

  Status ReverseScan(const ReadOptions& options, Table table, const KeyRange& range,
                     const std::function<bool(std::string_view, std::string_view)>& fn) override {
    return ScanImpl(options, table, range, /*reverse=*/true, fn);
  }

  // An acknowledged RADOS write is already on every replica's journal: nothing to flush.
  Status Sync() override { return Status::OK(); }
  Status Flush() override { return Status::OK(); }
  // Deleting an object or omap key frees its space (the OSDs' own compaction does the rest).
  Status CompactRange(Table, const KeyRange&) override { return Status::OK(); }
  // Ceph checks its own data (scrubbing); there is nothing to check from a client.
  Status CheckIntegrity(std::vector<std::string>*) override { return Status::OK(); }
  // Any number of clients may write one pool.
  bool single_writer() const override { return false; }

  Result<uint64_t> ApproximateSize(Table table, const KeyRange& range) override {
    uint64_t total = 0;
    if (table == Table::kData) {
      std::vector<std::pair<std::string, uint64_t>> keys;
      GRIDSTORE_RETURN_IF_ERROR(ListDataKeys(range, &keys));
      for (const auto& [key, size] : keys) total += size;
      return total;
    }
    std::vector<std::pair<std::string, std::string>> entries;
    GRIDSTORE_RETURN_IF_ERROR(ReadCatalogRange(table, range, &entries));
    for (const auto& [key, value] : entries) total += key.size() + value.size();
    return total;
  }

 private:
  Status Error(int r, std::string_view what) const {
    const std::string msg = where_ + ": " + std::string(what) + ": " + std::strerror(-r);
    switch (-r) {
      case ENOENT:
        return Status::NotFound(msg);
      case ETIMEDOUT:
        return Status::Unavailable(msg + " (no answer within the RADOS op timeout: is the " +
                                   "cluster up, and not full?)");
      case ENOSPC:
      case EDQUOT:
        return Status::Unavailable(msg + " (the cluster or the pool is full)");
      case EPERM:
      case EACCES:
        return Status::FailedPrecondition(msg + " (check client." + options_.client_id +
                                          "'s key and caps)");
      case E2BIG:
      case EFBIG:
      case ENAMETOOLONG:
        return Status::InvalidArgument(msg + " (beyond the cluster's object limits)");
      default:
        return Status::Unavailable(msg);
    }
  }

  Status CheckDataKey(const WriteBatch::Op& op) const {
    const size_t name_bytes = 2 + op.key.size() * 3;  // worst case of DataObjectName
    if (op.type != WriteBatch::OpType::kDeleteRange && name_bytes > kMaxObjectNameBytes &&
        DataObjectName(op.key).size() > kMaxObjectNameBytes) {
      return Status::InvalidArgument(where_ + ": a data key of " + std::to_string(op.key.size()) +
                                     " bytes makes an object name longer than " +
                                     std::to_string(kMaxObjectNameBytes) + " bytes");
    }
    return Status::OK();
  }

  // Runs one read operation and waits.
  int RunRead(const std::string& oid, librados::ObjectReadOperation* op) {
    AioWindow window(1);
    int result = 0;
    window.Submit([&](librados::AioCompletion* c) { return io_.aio_operate(oid, c, op, nullptr); },
                  [&](int r) { result = r; });
    window.Drain();
    return result;
  }

  int RunWrite(const std::string& oid, librados::ObjectWriteOperation* op) {
    AioWindow window(1);
    int result = 0;
    window.Submit([&](librados::AioCompletion* c) { return io_.aio_operate(oid, c, op); },
                  [&](int r) { result = r; });
    window.Drain();
    return result;
  }

  // Reads the data values of `keys` with up to max_in_flight reads at once, calling
  // on_value(i, r, bl) in key order; stops issuing reads once it returns false. `ramp_up` starts
  // the window at 2 and doubles it per value, so a scan stopped after a few keys reads few.
  void ReadDataValues(const std::vector<std::string_view>& keys,
                      const std::function<bool(size_t, int, bufferlist&)>& on_value,
                      bool ramp_up = false) {
    struct Read {
      librados::ObjectReadOperation op;
      bufferlist bl;
      int rval = 0;
    };
    AioWindow window(ramp_up ? 2 : options_.max_in_flight);
    bool stop = false;
    for (size_t i = 0; i < keys.size() && !stop; ++i) {
      auto read = std::make_shared<Read>();
      read->op.read(0, 0, &read->bl, &read->rval);  // length 0: the whole object
      const std::string oid = DataObjectName(keys[i]);
      window.Submit(
          [&](librados::AioCompletion* c) { return io_.aio_operate(oid, c, &read->op, nullptr); },
          [&, read, i](int r) {
            if (stop) return;
            if (r == 0) r = read->rval;
            if (!on_value(i, r, read->bl)) stop = true;
            if (ramp_up && window.limit() < options_.max_in_flight) {
              window.set_limit(std::min(options_.max_in_flight, window.limit() * 2));
            }
          });
    }
    window.Drain();
  }

  // Fills each cursor with its object's omap entries in [begin, end), each at one object version
  // (retrying an object whose version moved between pages). The first pages of all cursors are in
  // flight together. A missing object lists as empty.
  Status ReadOmapRanges(std::vector<OmapCursor>* cursors, std::string_view begin,
                        std::string_view end) {
    struct Page {
      librados::ObjectReadOperation op;
      std::map<std::string, bufferlist> begin_entry, entries;
      bool more = false;
      int r_begin = 0, r_page = 0;
    };
    const std::set<std::string> begin_key = {std::string(begin)};
    Status failure;
    for (bool active = true; active && failure.ok();) {
      active = false;
      AioWindow window(options_.max_in_flight);
      for (OmapCursor& cursor : *cursors) {
        if (cursor.done) continue;
        active = true;
        auto page = std::make_shared<Page>();
        if (cursor.first) {
          cursor.start_after = std::string(begin);
          cursor.entries.clear();
          // omap_get_vals2 starts after a key; the inclusive first key is asked for by name.
          page->op.omap_get_vals_by_keys(begin_key, &page->begin_entry, &page->r_begin);
        } else {
          page->op.assert_version(cursor.version);
        }
        page->op.omap_get_vals2(cursor.start_after, kOmapPage, &page->entries, &page->more,
                                &page->r_page);
        OmapCursor* const cur = &cursor;
        window.Submit(
            [&](librados::AioCompletion* c) {
              return io_.aio_operate(cur->oid, c, &page->op, nullptr);
            },
            [&window, &failure, &end, this, cur, page](int r) {
              if (r == 0) r = page->r_begin < 0 ? page->r_begin : page->r_page;
              if (r == -ENOENT && cur->first) {
                cur->done = true;
                return;
              }
              if (r == -ERANGE || r == -EOVERFLOW || r == -ENOENT) {  // changed since page 1
                cur->first = true;
                if (++cur->tries >= kMaxConsistentReadTries && failure.ok()) {
                  failure = Status::Unavailable(where_ + ": object '" + cur->oid +
                                                "' kept changing while it was listed");
                }
                return;
              }
              if (r < 0) {
                if (failure.ok()) failure = Error(r, "listing object '" + cur->oid + "'");
                return;
              }
              if (cur->first) {
                cur->version = window.version();
                cur->first = false;
                for (auto& [k, v] : page->begin_entry) {
                  if (!end.empty() && k >= end) break;  // an empty range [begin, begin)
                  cur->entries.emplace_back(k, std::string());
                  CopyOut(v, &cur->entries.back().second);
                }
              }
              for (auto& [k, v] : page->entries) {
                if (!end.empty() && k >= end) {
                  cur->done = true;
                  return;
                }
                cur->entries.emplace_back(k, std::string());
                CopyOut(v, &cur->entries.back().second);
                cur->start_after = k;
              }
              if (!page->more) cur->done = true;
            });
      }
      window.Drain();
    }
    return failure;
  }

  Status ReadCatalogRange(Table table, const KeyRange& range,
                          std::vector<std::pair<std::string, std::string>>* out) {
    out->clear();
    const KeyRange r = CatalogRange(table, range);
    if (!range.end.empty() && range.begin >= range.end) return Status::OK();
    std::vector<OmapCursor> cursor(1);
    cursor[0].oid = std::string(kCatalogObject);
    GRIDSTORE_RETURN_IF_ERROR(ReadOmapRanges(&cursor, r.begin, r.end));
    for (auto& [k, v] : cursor[0].entries) out->emplace_back(k.substr(1), std::move(v));
    return Status::OK();
  }

  // The partitions whose keys may fall in `range`.
  Status PartitionsOf(const KeyRange& range, std::vector<std::string>* partitions) {
    partitions->clear();
    const std::string_view first = DataPartition(range.begin);
    if (!first.empty() && !range.end.empty() && range.end <= PartitionEnd(first)) {
      partitions->emplace_back(first);  // the common case: one dataset
      return Status::OK();
    }
    partitions->emplace_back();  // keys without a NUL can be anywhere
    std::vector<OmapCursor> cursor(1);
    cursor[0].oid = std::string(kPartitionsObject);
    GRIDSTORE_RETURN_IF_ERROR(
        ReadOmapRanges(&cursor, first.empty() ? std::string_view(range.begin) : first, range.end));
    for (auto& [p, unused] : cursor[0].entries) {
      if (!p.empty() && PartitionEnd(p) > range.begin) partitions->push_back(p);
    }
    return Status::OK();
  }

  // Every data key in `range` with its value's size, sorted, from the directories.
  Status ListDataKeys(const KeyRange& range, std::vector<std::pair<std::string, uint64_t>>* keys) {
    keys->clear();
    if (!range.end.empty() && range.begin >= range.end) return Status::OK();
    std::vector<std::string> partitions;
    GRIDSTORE_RETURN_IF_ERROR(PartitionsOf(range, &partitions));
    std::vector<OmapCursor> cursors;
    for (const std::string& p : partitions) {
      for (int shard = 0; shard < kDirectoryShards; ++shard) {
        cursors.emplace_back();
        cursors.back().oid = DirectoryObjectName(p, shard);
      }
    }
    GRIDSTORE_RETURN_IF_ERROR(ReadOmapRanges(&cursors, range.begin, range.end));
    for (OmapCursor& c : cursors) {
      for (auto& [k, v] : c.entries) keys->emplace_back(std::move(k), DecodeSize(v));
    }
    std::sort(keys->begin(), keys->end());
    return Status::OK();
  }

  Status ScanImpl(const ReadOptions&, Table table, const KeyRange& range, bool reverse,
                  const std::function<bool(std::string_view, std::string_view)>& fn) {
    if (table != Table::kData) {
      std::vector<std::pair<std::string, std::string>> entries;
      GRIDSTORE_RETURN_IF_ERROR(ReadCatalogRange(table, range, &entries));
      if (reverse) std::reverse(entries.begin(), entries.end());
      for (const auto& [k, v] : entries) {
        if (!fn(k, v)) break;
      }
      return Status::OK();
    }
    std::vector<std::pair<std::string, uint64_t>> listed;
    GRIDSTORE_RETURN_IF_ERROR(ListDataKeys(range, &listed));
    if (reverse) std::reverse(listed.begin(), listed.end());
    std::vector<std::string_view> keys;
    keys.reserve(listed.size());
    for (const auto& entry : listed) keys.push_back(entry.first);
    Status failure;
    std::string value;
    ReadDataValues(
        keys,
        [&](size_t i, int r, bufferlist& bl) {
          if (r == -ENOENT) return true;  // deleted since listed (or a crashed write's entry)
          if (r < 0) {
            failure = Error(r, "reading a data value while scanning");
            return false;
          }
          CopyOut(bl, &value);
          return fn(keys[i], value);
        },
        /*ramp_up=*/true);
    return failure;
  }

  // Applies data_ops[from, to) in order: runs of Puts and of Deletes go in parallel (the last op
  // on a key wins within a run), each DeleteRange on its own.
  Status ApplyDataOps(const std::vector<const WriteBatch::Op*>& ops, size_t from, size_t to) {
    size_t i = from;
    while (i < to) {
      const WriteBatch::OpType type = ops[i]->type;
      if (type == WriteBatch::OpType::kDeleteRange) {
        GRIDSTORE_RETURN_IF_ERROR(DeleteDataRange(KeyRange{ops[i]->key, ops[i]->value}));
        ++i;
        continue;
      }
      std::map<std::string_view, std::string_view> run;  // key -> value (Puts)
      std::set<std::string> deletes;
      while (i < to && ops[i]->type == type) {
        if (type == WriteBatch::OpType::kPut) {
          run[ops[i]->key] = ops[i]->value;
        } else {
          deletes.insert(ops[i]->key);
        }
        ++i;
      }
      GRIDSTORE_RETURN_IF_ERROR(type == WriteBatch::OpType::kPut ? PutDataValues(run)
                                                                 : DeleteDataKeys(deletes));
    }
    return Status::OK();
  }

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

  Status PutDataValues(const std::map<std::string_view, std::string_view>& values) {
    // 1. Directory entries (and partition registrations), one omap write per object touched.
    std::map<std::string, std::map<std::string, bufferlist>> directory_updates;
    std::map<std::string, bufferlist> partitions;
    for (const auto& [key, value] : values) {
      const std::string_view partition = DataPartition(key);
      directory_updates[DirectoryObjectName(partition, DirectoryShard(key))].emplace(
          std::string(key), ToBufferList(EncodeSize(value.size())));
      if (!partition.empty()) partitions.emplace(std::string(partition), bufferlist());
    }
    std::vector<std::pair<std::string, std::map<std::string, bufferlist>>> omap_writes(
        directory_updates.begin(), directory_updates.end());
    if (!partitions.empty()) omap_writes.emplace_back(std::string(kPartitionsObject), partitions);
    GRIDSTORE_RETURN_IF_ERROR(WriteOmaps(omap_writes, {}));
    // 2. The values.
    Failures failures;
    {
      AioWindow window(options_.max_in_flight);
      for (const auto& entry : values) {
        auto op = std::make_shared<librados::ObjectWriteOperation>();
        op->write_full(ToBufferList(entry.second));
        const std::string oid = DataObjectName(entry.first);
        const size_t bytes = entry.second.size();
        window.Submit([&](librados::AioCompletion* c) { return io_.aio_operate(oid, c, op.get()); },
                      [&failures, this, op, bytes](int r) {
                        if (r < 0) {
                          failures.Add(Error(
                              r, "writing a data value of " + std::to_string(bytes) + " bytes"));
                        }
                      });
      }
    }
    return failures.Summary("data writes", values.size());
  }

  Status DeleteDataKeys(const std::set<std::string>& keys) {
    Failures failures;
    {
      AioWindow window(options_.max_in_flight);
      for (const std::string& key : keys) {
        auto op = std::make_shared<librados::ObjectWriteOperation>();
        op->remove();
        const std::string oid = DataObjectName(key);
        window.Submit([&](librados::AioCompletion* c) { return io_.aio_operate(oid, c, op.get()); },
                      [&, op](int r) {
                        if (r < 0 && r != -ENOENT) failures.Add(Error(r, "deleting a data value"));
                      });
      }
    }
    GRIDSTORE_RETURN_IF_ERROR(failures.Summary("data deletes", keys.size()));
    std::map<std::string, std::set<std::string>> removals;
    for (const std::string& key : keys) {
      removals[DirectoryObjectName(DataPartition(key), DirectoryShard(key))].insert(key);
    }
    return WriteOmaps({}, std::vector<std::pair<std::string, std::set<std::string>>>(
                              removals.begin(), removals.end()));
  }

  Status DeleteDataRange(const KeyRange& range) {
    std::vector<std::pair<std::string, uint64_t>> listed;
    GRIDSTORE_RETURN_IF_ERROR(ListDataKeys(range, &listed));
    std::set<std::string> keys;
    for (auto& entry : listed) keys.insert(std::move(entry.first));
    GRIDSTORE_RETURN_IF_ERROR(DeleteDataKeys(keys));
    // Forget partitions the range covered whole, so store-wide scans stop visiting them.
    std::vector<std::string> partitions;
    GRIDSTORE_RETURN_IF_ERROR(PartitionsOf(range, &partitions));
    std::set<std::string> covered;
    for (const std::string& p : partitions) {
      if (!p.empty() && p >= range.begin && PartitionEnd(p) <= range.end) covered.insert(p);
    }
    if (covered.empty()) return Status::OK();
    return WriteOmaps({}, {{std::string(kPartitionsObject), covered}});
  }

  // omap_set / omap_rm_keys on many objects, all in flight together.
  Status WriteOmaps(
      const std::vector<std::pair<std::string, std::map<std::string, bufferlist>>>& sets,
      const std::vector<std::pair<std::string, std::set<std::string>>>& removals) {
    Failures failures;
    {
      AioWindow window(options_.max_in_flight);
      auto submit = [&](const std::string& oid,
                        std::shared_ptr<librados::ObjectWriteOperation> op) {
        window.Submit([&](librados::AioCompletion* c) { return io_.aio_operate(oid, c, op.get()); },
                      [&, op, oid](int r) {
                        if (r < 0) failures.Add(Error(r, "updating object '" + oid + "'"));
                      });
      };
      for (const auto& [oid, entries] : sets) {
        auto op = std::make_shared<librados::ObjectWriteOperation>();
        op->omap_set(entries);
        submit(oid, op);
      }
      for (const auto& [oid, keys] : removals) {
        auto op = std::make_shared<librados::ObjectWriteOperation>();
        op->omap_rm_keys(keys);
        submit(oid, op);
      }
    }
    return failures.Summary("directory updates", sets.size() + removals.size());
  }

  // One atomic write of the catalog. A DeleteRange needs the keys it covers: they are read at
  // one catalog version and the write asserts that version, retrying if another writer got in.
  // Reads the catalog keys `keys` and the catalog's version (0 if it does not exist).
  Status ReadCatalogKeys(const std::set<std::string>& keys,
                         std::map<std::string, bufferlist>* found, uint64_t* version) {
    librados::ObjectReadOperation op;
    int rval = 0;
    op.omap_get_vals_by_keys(keys, found, &rval);
    AioWindow window(1);
    int r = 0;
    window.Submit(
        [&](librados::AioCompletion* c) {
          return io_.aio_operate(std::string(kCatalogObject), c, &op, nullptr);
        },
        [&](int result) {
          r = result == 0 ? rval : result;
          *version = window.version();
        });
    window.Drain();
    if (r == -ENOENT) {
      found->clear();
      *version = 0;
      return Status::OK();
    }
    if (r < 0) return Error(r, "reading the catalog");
    return Status::OK();
  }

  // Applies the catalog operations in one atomic write, if every expectation holds at the
  // version written (asserted, so that a concurrent writer makes this one read again).
  Status ApplyCatalogOps(const std::vector<const WriteBatch::Op*>& ops,
                         const std::vector<WriteBatch::Expectation>& expectations) {
    if (ops.empty() && expectations.empty()) return Status::OK();
    const bool has_range = std::any_of(ops.begin(), ops.end(), [](const WriteBatch::Op* op) {
      return op->type == WriteBatch::OpType::kDeleteRange;
    });
    std::set<std::string> expected_keys;
    for (const WriteBatch::Expectation& e : expectations) {
      expected_keys.insert(CatalogKey(e.table, e.key));
    }
    for (int attempt = 0; attempt < kMaxConsistentReadTries; ++attempt) {
      // Existing keys of every deleted range, at one version.
      std::set<std::string> existing;
      uint64_t version = 0;
      bool catalog_exists = false, moved = false;
      bool version_known = false;
      if (!expectations.empty()) {
        std::map<std::string, bufferlist> found;
        GRIDSTORE_RETURN_IF_ERROR(ReadCatalogKeys(expected_keys, &found, &version));
        version_known = true;
        catalog_exists = version != 0;
        for (const WriteBatch::Expectation& e : expectations) {
          auto it = found.find(CatalogKey(e.table, e.key));
          std::string value;
          if (it != found.end()) CopyOut(it->second, &value);
          const bool matches = e.value ? it != found.end() && value == *e.value : it == found.end();
          if (!matches) {
            return Status::Aborted(where_ + ": a concurrent write changed a key of table '" +
                                   std::string(TableName(e.table)) + "' this write depends on");
          }
        }
      }
      if (has_range) {
        std::vector<OmapCursor> cursor(1);
        cursor[0].oid = std::string(kCatalogObject);
        for (const WriteBatch::Op* op : ops) {
          if (op->type != WriteBatch::OpType::kDeleteRange) continue;
          const KeyRange r = CatalogRange(op->table, KeyRange{op->key, op->value});
          cursor[0] = OmapCursor{.oid = std::string(kCatalogObject)};
          GRIDSTORE_RETURN_IF_ERROR(ReadOmapRanges(&cursor, r.begin, r.end));
          if (version_known && cursor[0].version != version) {
            moved = true;  // changed between two reads
            break;
          }
          version_known = true;
          if (cursor[0].version != 0) catalog_exists = true;
          version = cursor[0].version;
          for (auto& entry : cursor[0].entries) existing.insert(std::move(entry.first));
        }
      }
      if (moved) continue;
      // The batch's net effect per key, applied in order.
      std::map<std::string, std::optional<std::string_view>> effect;
      for (const WriteBatch::Op* op : ops) {
        switch (op->type) {
          case WriteBatch::OpType::kPut:
            effect[CatalogKey(op->table, op->key)] = op->value;
            break;
          case WriteBatch::OpType::kDelete:
            effect[CatalogKey(op->table, op->key)] = std::nullopt;
            break;
          case WriteBatch::OpType::kDeleteRange: {
            const KeyRange r = CatalogRange(op->table, KeyRange{op->key, op->value});
            for (auto it = existing.lower_bound(r.begin); it != existing.end() && *it < r.end;
                 ++it) {
              effect[*it] = std::nullopt;
            }
            for (auto it = effect.lower_bound(r.begin); it != effect.end() && it->first < r.end;
                 ++it) {
              it->second = std::nullopt;
            }
            break;
          }
        }
      }
      std::map<std::string, bufferlist> sets;
      std::set<std::string> removals;
      for (const auto& [key, value] : effect) {
        if (value.has_value()) {
          sets.emplace(key, ToBufferList(*value));
        } else {
          removals.insert(key);
        }
      }
      librados::ObjectWriteOperation write;
      if (version_known) {
        if (catalog_exists) {
          write.assert_version(version);
        } else {
          write.create(/*exclusive=*/true);  // still absent, as read
        }
      }
      if (!removals.empty()) write.omap_rm_keys(removals);
      if (!sets.empty()) write.omap_set(sets);
      if (removals.empty() && sets.empty()) return Status::OK();
      const int r = RunWrite(std::string(kCatalogObject), &write);
      // Another writer got in (or created the catalog) since the read: read again.
      if (r == -ERANGE || r == -EOVERFLOW || r == -EEXIST) continue;
      if (r < 0) return Error(r, "writing the catalog");
      return Status::OK();
    }
    return Status::Unavailable(where_ +
                               ": the catalog kept changing under a conditional write "
                               "or range delete");
  }

  std::unique_ptr<librados::Rados> cluster_;
  librados::IoCtx io_;
  const RadosOptions options_;
  std::string where_;
};

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

}  // namespace

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

  // The catalog object marks a store: it is created with the store, and never deleted.
  uint64_t size = 0;
  time_t mtime = 0;
  r = io.stat(std::string(rados_internal::kCatalogObject), &size, &mtime);
  if (r == -ENOENT) {
    if (!options.create_if_missing || options.read_only) {
      io.close();
      cluster->shutdown();
      return Status::NotFound("no GridStore store in " + where + " (" + conf + ")");
    }
    if (!options.initialize) {
      librados::ObjectWriteOperation create;
      create.create(/*exclusive=*/false);
      r = io.operate(std::string(rados_internal::kCatalogObject), &create);
    } else {
      // The initializer's first catalog write creates the catalog, so no client sees a store
      // before it is initialised.
      auto store = std::make_unique<RadosKvStore>(std::move(cluster), std::move(io), options);
      GRIDSTORE_RETURN_IF_ERROR(options.initialize(store.get()));
      return std::unique_ptr<KvStore>(std::move(store));
    }
  }
  if (r < 0) {
    io.close();
    cluster->shutdown();
    return fail(r, "reading the catalog");
  }
  return std::unique_ptr<KvStore>(new RadosKvStore(std::move(cluster), std::move(io), options));
}

}  // namespace gridstore::storage
