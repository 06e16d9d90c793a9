// Copyright 2026 The GridStore Authors.
//
// KvStore: the narrow key-value interface every storage backend implements. It knows bytes only,
// not grids. A store holds a small fixed set of tables (RocksDB: one column family each); keys in a
// table are ordered bytewise. Reads are batched (MultiGet) because a distributed backend pays
// latency per request, not per byte.
//
// Data-table keys are partitioned by their first NUL-terminated component (the grid layer puts
// the dataset id there): a distributed backend keeps each partition's keys listable together, so
// ranges within one partition are its cheap case. Implementations are safe for concurrent use from
// many threads without external locking.
#ifndef GRIDSTORE_STORAGE_KV_STORE_H_
#define GRIDSTORE_STORAGE_KV_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/util/result.h"
#include "gridstore/util/status.h"

namespace gridstore::storage {

enum class Table : uint8_t {
  kMeta = 0,   // dataset id -> dataset meta
  kData = 1,   // block key -> compressed block
  kIndex = 2,  // meta-query index entries
};
inline constexpr int kNumTables = 3;

// Returns "meta", "data" or "index".
std::string_view TableName(Table table);

struct ReadOptions {
  // If false, a backend with a cache of its own should not fill it with what this read brings
  // (e.g. full-store verification scans).
  bool fill_cache = true;
  // A backend that keeps the meta and index tables in memory, kept fresh by other processes'
  // notices (RADOS with catalog_replica=1), may answer from there: this process's own writes are
  // seen, other processes' within about a second. Meta queries set it; the reads a conditional
  // write or a fetch's checks depend on do not.
  bool allow_replica = false;
};

struct WriteOptions {
  // If true, the write reaches stable storage (fsync) before the call returns. If false, it is
  // still in the backend's write-ahead log when the call returns, so it survives a process crash
  // but maybe not a machine crash.
  bool sync = false;
  // Skip the write-ahead log (backends without one ignore this): the write survives a crash only
  // once its table is flushed (Flush). For bulk loads whose completion a later, logged write
  // records (an import's blocks, then its DONE meta). Not with `sync`.
  bool disable_wal = false;
};

// A half-open key range [begin, end). An empty `end` means "no upper bound".
struct KeyRange {
  std::string begin;
  std::string end;

  // Every key that starts with `prefix`. A prefix of only 0xff bytes (or empty) has no finite
  // upper bound, so its range is unbounded above.
  static KeyRange Prefix(std::string_view prefix);
  bool Contains(std::string_view key) const { return key >= begin && (end.empty() || key < end); }
};

// An ordered list of operations applied by KvStore::Write (see there for what is atomic). Not
// thread-safe; build it on one thread.
class WriteBatch {
 public:
  enum class OpType : uint8_t { kPut, kDelete, kDeleteRange };
  struct Op {
    OpType type;
    Table table;
    std::string key;    // kDeleteRange: begin
    std::string value;  // kPut: the value; kDeleteRange: end (exclusive)
    // The partition (dataset id) the key belongs to when the key alone does not say it (a
    // meta-query posting); backends that split a table by partition (the sharded RADOS catalog)
    // keep the key with its partition's other keys. Empty: placed by the key alone.
    std::string partition;
  };

  // A condition of a conditional write: `key` of `table` holds `value`, or is absent when
  // `value` is nullopt.
  struct Expectation {
    Table table;
    std::string key;
    std::optional<std::string> value;
  };

  // `partition`: see Op::partition.
  void Put(Table table, std::string_view key, std::string_view value,
           std::string_view partition = {});
  void Delete(Table table, std::string_view key, std::string_view partition = {});
  // Deletes every key in [begin, end) of `table`. REQUIRES: begin <= end, end not empty.
  void DeleteRange(Table table, std::string_view begin, std::string_view end);
  // Makes the batch conditional: KvStore::Write applies none of its meta and index operations
  // and returns Aborted unless, at the moment they are applied, `key` of `table` holds `value`
  // (or is absent, for nullopt). This is how read-modify-write cycles on metas stay correct when
  // several processes write one store. REQUIRES: table is kMeta or kIndex.
  void Expect(Table table, std::string_view key, std::optional<std::string_view> value);
  // Clears operations and expectations.
  void Clear();

  const std::vector<Op>& ops() const { return ops_; }
  const std::vector<Expectation>& expectations() const { return expectations_; }
  size_t count() const { return ops_.size(); }
  bool empty() const { return ops_.empty(); }
  // Approximate bytes of keys and values held, to size batches.
  size_t ApproximateSize() const { return bytes_; }

 private:
  std::vector<Op> ops_;
  std::vector<Expectation> expectations_;
  size_t bytes_ = 0;
};

// InvalidArgument unless [begin, end) is a valid range for DeleteRange in `table`: end not empty
// (an unbounded delete is too easy a mistake) and begin <= end. Shared by every backend.
Status ValidateDeleteRange(Table table, std::string_view begin, std::string_view end);

// OK if every expectation of `batch` holds, reading keys with `get` (which returns OK with the
// value, NotFound, or an error passed through); Aborted otherwise. For backends that check
// expectations under a lock of their own.
Status CheckExpectations(const WriteBatch& batch,
                         const std::function<Status(Table, std::string_view, std::string*)>& get);

class KvStore {
 public:
  virtual ~KvStore() = default;

  // Stores the value of `key` in *value and returns OK; returns NotFound and leaves *value alone if
  // `key` is absent. Other codes: Unavailable (I/O or cluster), DataLoss (corruption).
  virtual Status Get(const ReadOptions& options, Table table, std::string_view key,
                     std::string* value) = 0;

  // Batched lookup. On return values->size() == statuses->size() == keys.size(), and
  // (*values)[i], (*statuses)[i] describe keys[i]: OK with the value, NotFound for a missing key
  // (that entry only), or another error. Keys may repeat and come in any order; a backend may sort,
  // reorder or parallelise internally. The values need not come from one consistent snapshot: a
  // write that lands during the call may be seen for some keys and not others.
  virtual void MultiGet(const ReadOptions& options, Table table,
                        const std::vector<std::string_view>& keys, std::vector<std::string>* values,
                        std::vector<Status>* statuses) = 0;

  // MultiGet without copying the values into strings: calls fn(i, value) for each keys[i] found,
  // in any order, `value` being valid only during that call (a backend may lend its own cache's
  // memory); (*statuses)[i] as MultiGet. fn may read from this store, not write. The default calls
  // MultiGet, then fn for each value.
  virtual void MultiGetVisit(const ReadOptions& options, Table table,
                             const std::vector<std::string_view>& keys,
                             std::vector<Status>* statuses,
                             const std::function<void(size_t, std::string_view)>& fn);

  virtual Status Put(const WriteOptions& options, Table table, std::string_view key,
                     std::string_view value) = 0;

  // Removes `key`; OK if it was absent.
  virtual Status Delete(const WriteOptions& options, Table table, std::string_view key) = 0;

  // Removes every key in [range.begin, range.end). An empty range.end is not allowed here
  // (InvalidArgument): deleting "to infinity" is too easy a mistake.
  virtual Status DeleteRange(const WriteOptions& options, Table table, const KeyRange& range) = 0;

  // Applies the operations of `batch` in order. What every backend promises:
  //   - The batch's meta and index operations of one dataset are atomic together: all or nothing,
  //     and readers never see part of them. A dataset's keys are its meta key `id`, the meta keys
  //     `00 01 id` and `00 02 id 00 ...`, the index keys `02 id 00 ...`, and index postings
  //     (`01 ...`, ending with `id 00`) written in a batch that also writes, deletes or expects
  //     that dataset's meta; every other meta and index key is store-wide and atomic with each
  //     dataset's. A sharded backend (RADOS, docs/format.md "Catalog shards") applies a batch over
  //     several datasets one shard at a time.
  //   - Data operations are atomic per key only (a reader may see some of a batch's data writes
  //     and not others; a failed Write may leave some applied). They are ordered around the meta
  //     and index operations: data operations up to the batch's last data Put are applied
  //     before them, the rest after. So blocks written with the meta that publishes them are
  //     readable before the meta is, and a dataset deleted with its blocks leaves the meta table
  //     before any block goes.
  //   - An invalid operation (see DeleteRange) fails the whole batch before anything is applied.
  //   - Expectations (WriteBatch::Expect) are checked atomically with the meta and index
  //     operations of their dataset (store-wide keys: with every dataset's), against every
  //     writer of the store, in this process or another. If one fails, Write returns Aborted
  //     naming the key's table and applies no meta or index operation (a sharded backend: unless
  //     a writer got in between its check and its write of another shard, which the message
  //     says); data operations may have been applied, as for any failed Write.
  // A single-node backend (RocksDB, memory) applies the whole batch atomically, which is
  // stronger; a distributed one (RADOS) cannot make writes to many objects atomic.
  virtual Status Write(const WriteOptions& options, const WriteBatch& batch) = 0;

  // Calls fn(key, value) for each key in `range`, in ascending bytewise order. Stops early,
  // returning OK, when fn returns false. The views are valid only during the call of fn.
  // Meta and index scans see a consistent snapshot taken when the scan starts. A data scan sees
  // every key that exists throughout the scan once, with a value it held during the scan; a key
  // written or deleted while the scan runs may or may not be seen.
  virtual Status Scan(
      const ReadOptions& options, Table table, const KeyRange& range,
      const std::function<bool(std::string_view key, std::string_view value)>& fn) = 0;

  // As Scan, in descending bytewise order: from the last key below range.end (or the table's last
  // key when range.end is empty) down to range.begin. Newest-first listings walk index keys this
  // way instead of reading a whole range to reverse it.
  virtual Status ReverseScan(
      const ReadOptions& options, Table table, const KeyRange& range,
      const std::function<bool(std::string_view key, std::string_view value)>& fn) = 0;

  // Makes every write so far durable (flush the write-ahead log to stable storage).
  virtual Status Sync() = 0;

  // Moves every write so far into the backend's permanent structures and makes it durable, so
  // that the next open has no log to replay (RocksDB: flushes every table's memtable to a synced
  // file, after which no write-ahead log holds anything needed). Backends without such a log
  // just Sync. OK and a no-op on a read-only handle.
  virtual Status Flush() = 0;

  // Reclaims the space of deleted keys in `range` of `table` (RocksDB: drops the files wholly
  // inside it and compacts the rest). A no-op where deletes free their space at once (RADOS,
  // memory). Slow for large ranges; meant for after a delete. An empty range.end means the whole
  // rest of the table.
  virtual Status CompactRange(Table table, const KeyRange& range) = 0;

  // Checks the backend's own checksums of everything it stores (RocksDB: every block of every
  // table file), appending one sentence per damaged file to *problems. The status is an error
  // only when the check could not run. Backends with no checksums of their own append nothing.
  virtual Status CheckIntegrity(std::vector<std::string>* problems) = 0;

  // True if, while this handle is open for writing, no other process can write the store
  // (RocksDB holds a lock file); false for stores shared between processes (RADOS). GridStore
  // uses it to tell writes left by a dead process from writes another process is still making.
  virtual bool single_writer() const = 0;

  // Approximate bytes stored for keys in `range` of `table` (on disk, compressed, possibly stale).
  virtual Result<uint64_t> ApproximateSize(Table table, const KeyRange& range) = 0;
};

}  // namespace gridstore::storage

#endif  // GRIDSTORE_STORAGE_KV_STORE_H_
