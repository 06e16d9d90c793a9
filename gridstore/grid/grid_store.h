// Copyright 2026 The GridStore Authors.
//
// GridStore: the entry point. It owns a key-value store (meta, data and index tables), a thread
// pool for block compression and decompression, and a cache of decompressed blocks shared by all
// fetchers. It creates datasets, updates and deletes them, and hands out writers and fetchers.
//
//   GRIDSTORE_ASSIGN_OR_RETURN(auto store, GridStore::Open("/data/gridstore", {.create_if_missing =
//   true})); GRIDSTORE_RETURN_IF_ERROR(store->PutDataSetMeta(meta));
//   GRIDSTORE_ASSIGN_OR_RETURN(auto writer, store->GetDataWriter(meta.id));
//   GRIDSTORE_RETURN_IF_ERROR(writer->WriteGrid2D("temperature", t, z, plane));
//   GRIDSTORE_ASSIGN_OR_RETURN(auto fetcher, store->GetDataFetcher(meta.id));
//   fetcher->SetOriginShape({0, 0, 0, 0}, {1, 1, 570, 2880});
//   GRIDSTORE_ASSIGN_OR_RETURN(GridDataSet result, fetcher->Fetch());
//
// Thread safety: every method may be called concurrently from many threads, and any number of
// writers and fetchers may work at once. Writers and fetchers must be destroyed before the store.
//
// GridStore is an interface (as LevelDB's DB): Open returns the implementation, whose state stays
// out of this header (grid/internal/grid_store_impl.h).
#ifndef GRIDSTORE_GRID_GRID_STORE_H_
#define GRIDSTORE_GRID_GRID_STORE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/blocks/grid_data_fetcher.h"
#include "gridstore/blocks/grid_data_writer.h"
#include "gridstore/catalog/meta_query.h"
#include "gridstore/grid/derived_cache.h"
#include "gridstore/grid/grid_verify.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::grid {

struct GridStoreOptions {
  // Create the store (and initialise it, as CreateStore does) if the URI names none. If false,
  // opening a missing store is NotFound and a key-value store that GridStore never initialised is
  // FailedPrecondition.
  bool create_if_missing = false;
  // Open for reading only: fetching works; every write is refused with FailedPrecondition.
  bool read_only = false;
  // Open the store's files when reads first need them rather than all at once: for a process
  // that opens the store for a few reads (the command), not for one that serves many.
  bool open_tables_lazily = false;
  // Worker threads for compression and decompression, in [0, 1024]; 0 means one per core.
  int threads = 0;
  // Byte budget of the shared cache of decompressed blocks; 0 disables it.
  size_t block_cache_bytes = 256ull << 20;
  // Byte budget of what the layers above derive from metas and keep (derived_cache.h: the
  // horizontal grids and k-d trees of extraction); 0 keeps nothing.
  size_t derived_cache_bytes = 128ull << 20;
};

struct CompactOptions {
  // A replacement being written (see BeginReplacement) by another process is left alone unless
  // it started longer ago than this. On a store only one process can write (RocksDB), any
  // replacement not being written by this GridStore belongs to a dead process and goes at once.
  std::chrono::seconds shared_store_min_age = std::chrono::hours(24);
};

struct CompactReport {
  int64_t orphan_incarnations = 0;   // (dataset, incarnation) block ranges no meta owns, removed
  int64_t orphan_blocks = 0;         // their blocks
  int64_t replacements_removed = 0;  // abandoned replacements removed (record and blocks)
  uint64_t bytes_before = 0;         // approximate stored bytes of every table, before and after
  uint64_t bytes_after = 0;
};

struct RelayoutOptions {
  // Raw bytes of plane values read at once (each group of tiles); the group's encoded blocks
  // add about as much again.
  size_t memory_budget_bytes = 64ull << 20;
  // Called after each group with the raw bytes of values done (written, or found written by an
  // earlier run) and in all.
  std::function<void(int64_t bytes_done, int64_t bytes_total)> on_progress;
};

struct RelayoutReport {
  int64_t blocks_written = 0;
  int64_t blocks_resumed = 0;  // found written by an earlier, interrupted run
  int64_t raw_bytes = 0;       // bytes of values written
  int64_t stored_bytes = 0;    // compressed bytes of the blocks written
  bool already_ready = false;  // the layout was there: nothing to do
  SeriesLayout layout;         // the layout added (its chosen fields filled in)
};

class GridStore {
 public:
  // Opens the store named by `uri`: a directory path (RocksDB), file://PATH, memory://, or
  // rados://POOL?conf=PATH[&id=CLIENT][&namespace=NS] (Ceph RADOS). A store this call creates
  // is created whole (marker included) before any other process can see it.
  // Errors name the URI: NotFound (no store, !create_if_missing), FailedPrecondition (not a
  // GridStore store, in use by another process, read-only file system), InvalidArgument (bad URI
  // or options), Unavailable (threads cannot start), DataLoss (a damaged store).
  static Result<std::unique_ptr<GridStore>> Open(const std::string& uri,
                                                 const GridStoreOptions& options = {});
  virtual ~GridStore();

  GridStore(const GridStore&) = delete;
  GridStore& operator=(const GridStore&) = delete;

  // Initialises the tables of an empty key-value store for GridStore; OK (and a no-op) if it is
  // already initialised. FailedPrecondition if it was written by a newer, incompatible format,
  // or if the key-value store holds data but no GridStore marker (a foreign store).
  virtual Status CreateStore() = 0;

  // Moves everything written so far into the store's tables and makes it durable, so that the
  // next open replays no log and the store takes its settled size. Commands that write call it
  // before they return; a program that writes in bursts calls it after each. OK on a read-only
  // store.
  virtual Status Flush() = 0;

  // Creates the dataset `meta.id`, or replaces its meta if it exists. The meta is validated
  // (InvalidArgument naming what is wrong). Once data is written, changing a variable's type or
  // shape, removing a variable, or changing the block layout is refused with FailedPrecondition;
  // attributes, coordinates and new variables may change freely, and a variable's t extent may
  // grow (a run appended step by step: set status INGESTING and each variable's complete_steps,
  // so readers see only the steps written; see importers::GribImportOptions::append).
  virtual Status PutDataSetMeta(const DataSetMeta& meta) = 0;
  // As PutDataSetMeta, but the dataset must exist (NotFound otherwise).
  virtual Status UpdateDataSetMeta(const DataSetMeta& meta) = 0;
  // PutDataSetMeta for many metas in one atomic write: all are stored or none (the error names
  // the first meta refused, by position and id). An id may repeat; the last one wins. Much faster
  // than one call each for catalogues and migrations (one lock, one batched read, one write);
  // keep batches to thousands, as the whole batch is held in memory.
  virtual Status PutDataSetMetas(const std::vector<DataSetMeta>& metas) = 0;
  // The dataset's meta. NotFound (a normal result) if there is no such dataset.
  virtual Result<DataSetMeta> GetDataSetMeta(std::string_view id) = 0;
  // Every dataset's meta, ordered by id.
  virtual Result<std::vector<DataSetMeta>> ListDataSets() = 0;
  // Removes the dataset's meta, every data block of every incarnation, any replacement being
  // written, and every index entry, atomically (by key ranges), then reclaims their space.
  // NotFound if nothing of the dataset exists.
  virtual Status DeleteDataSet(std::string_view id) = 0;

  // ---- Replacing a dataset (import --overwrite): the old one stays until the new is whole ----

  // Starts a replacement of dataset `meta.id` (which may or may not exist): a new incarnation
  // whose blocks are written beside the current dataset's while readers keep reading the
  // current one. Returns the staged meta (`meta` with its new incarnation); write its planes with
  // GetReplacementWriter, then CommitReplacement or AbandonReplacement. If the process dies
  // first, the current dataset is untouched, and the replacement's blocks are removed by
  // Compact, DeleteDataSet or the next replacement of the id (Verify lists them meanwhile).
  virtual Result<DataSetMeta> BeginReplacement(const DataSetMeta& meta) = 0;
  // A writer of the replacement `staged` (from BeginReplacement of this store).
  // FailedPrecondition if it is not in progress here.
  virtual Result<std::unique_ptr<GridDataWriter>> GetReplacementWriter(
      const DataSetMeta& staged, const WriteGridOptions& options = {}) = 0;
  // Switches dataset `meta.id` to the replacement `meta.incarnation` (begun here) in one atomic
  // write of its meta and index entries, then removes the replaced incarnation's blocks and
  // reclaims their space. `meta` may differ from the staged meta in attributes and coordinates
  // (status DONE, say), not in variables or layout. FailedPrecondition if the replacement was
  // removed meanwhile (the dataset was deleted); the meta's validation errors as PutDataSetMeta.
  virtual Status CommitReplacement(const DataSetMeta& meta) = 0;
  // Removes the replacement `staged` and its blocks; the current dataset stays as it was.
  virtual Status AbandonReplacement(const DataSetMeta& staged) = 0;

  // ---- The series layout (grid_meta.h, SeriesLayout) ----

  // Adds a series layout to dataset `id`, written from its planes in bounded memory: each group
  // of tiles (at most options.memory_budget_bytes of values) is read from the planes, cut into
  // series blocks and written in one atomic batch. The meta says the layout is being written
  // until every block is, and only then ready, so fetches never read a partial one. Resumable:
  // run again with the same layout after a failure or kill, and it continues with the groups not
  // written. OK (and nothing written) if the dataset has this layout ready already.
  // FailedPrecondition if the dataset is not DONE (a run still arriving: finish it first), has
  // another series layout (drop it first), or was replaced or changed its variables meanwhile;
  // InvalidArgument for an invalid layout or a dataset without variables; NotFound.
  virtual Result<RelayoutReport> AddSeriesLayout(std::string_view id, const SeriesLayout& series,
                                                 const RelayoutOptions& options = {}) = 0;
  // Removes dataset `id`'s series layout: the meta first (fetches stop using it), then its
  // blocks. NotFound if there is no such dataset or it has no series layout.
  virtual Status DropSeriesLayout(std::string_view id) = 0;

  // ---- Checking and reclaiming ----

  // Reads every block of dataset `id` (or of every dataset, with `id` empty: then the engine's
  // own checksums, incomplete replacements and blocks no meta owns are checked too), decodes it
  // and checks it against the meta. Reads past damage: every unreadable or corrupt block,
  // meta or file is a problem in the report. The status is an error only when verification
  // could not run at all (NotFound for an unknown `id`).
  virtual Result<VerifyReport> Verify(std::string_view id, const VerifyOptions& options = {}) = 0;
  // Removes what interrupted writes left behind: blocks of incarnations no meta owns (a killed
  // import, replacement or delete) and abandoned replacements (see CompactOptions); then
  // reclaims the space of everything deleted. Never touches a dataset's current blocks.
  virtual Result<CompactReport> Compact(const CompactOptions& options = {}) = 0;

  // ---- Meta queries (catalog/meta_query.h; semantics in docs/meta-queries.md) ----

  // Creates meta index `name` over the attributes `schema` declares, indexing every dataset
  // already stored (in bounded batches; meta writes wait meanwhile, queries do not, and the index
  // becomes visible to queries only once complete). OK and a no-op if the index exists with the
  // same schema; FailedPrecondition naming the field if it exists with another. InvalidArgument
  // for a bad name or schema (no fields, a duplicate or empty field name).
  virtual Status CreateMetaIndex(std::string_view name, const MetaIndexSchema& schema) = 0;
  // Removes the index and every entry of it, atomically. NotFound if there is no such index.
  virtual Status DropMetaIndex(std::string_view name) = 0;
  // Every meta index, ordered by name.
  virtual Result<std::vector<MetaIndexInfo>> ListMetaIndexes() = 0;
  // The datasets matching `query`, ordered and paged by `params`, answered from index `index`
  // where it can and by checking metas where it cannot (QueryResult::scanned, ::plan). An empty
  // `index` uses no index: every condition is checked on every meta, and no declared types apply.
  // Consistent at once: a query sees every meta write that returned before it started.
  // Errors: NotFound (no index `index`), InvalidArgument (a condition whose value cannot have
  // the declared type of an indexed field, naming both; bounds of different kinds; a negative
  // offset; limit < -1; a page token from another query), or the store's read errors.
  virtual Result<QueryResult> QueryDataSets(std::string_view index, const Query& query,
                                            const QueryParams& params = {}) = 0;
  // As above, on the index that covers the query best (grid_query.cc): the store's only index
  // if it has exactly one; else the one whose schema holds the most of the fields that the
  // query's conditions and params.sort name (ties: the first by name); no index if none holds
  // any. QueryResult::index says which was used. Errors as above (NotFound only if the chosen
  // index is dropped between the choice and the query).
  Result<QueryResult> QueryDataSets(const Query& query, const QueryParams& params = {});

  // A writer for dataset `id` (which must exist: NotFound otherwise).
  virtual Result<std::unique_ptr<GridDataWriter>> GetDataWriter(
      std::string_view id, const WriteGridOptions& options = {}) = 0;
  // A fetcher for dataset `id` (NotFound if none). It reads against the meta as it is now.
  virtual Result<std::unique_ptr<GridDataFetcher>> GetDataFetcher(std::string_view id) = 0;

  // Approximate stored bytes of the dataset's blocks.
  virtual Result<uint64_t> ApproximateDataSetSize(std::string_view id) = 0;

  // The options the store was opened with.
  virtual const GridStoreOptions& options() const = 0;

  // What the layers above derive from this store's metas and keep (derived_cache.h).
  virtual DerivedCache& derived_cache() = 0;

  // Calls fn(i) for every i in [0, n) on the store's worker threads and the caller, returning
  // when every call has returned: for the layers above that read many datasets for one answer
  // (a forecast collection's members). Safe to nest inside the store's own reads. `fn` must not
  // throw.
  virtual void RunInParallel(size_t n, const std::function<void(size_t)>& fn) = 0;

 protected:
  GridStore() = default;
};

}  // namespace gridstore::grid

#endif  // GRIDSTORE_GRID_GRID_STORE_H_
