// Copyright 2026 The GridStore Authors.
//
// GridStoreImpl: the GridStore that Open returns (LevelDB's DBImpl to its DB). Its methods are
// spread over files by concern: grid_store.cc (opening, metas, deletes), grid_store_replace.cc
// (replacements), grid_store_index.cc (meta indexes and queries), grid_verify.cc, grid_compact.cc.
#ifndef GRIDSTORE_GRID_INTERNAL_GRID_STORE_IMPL_H_
#define GRIDSTORE_GRID_INTERNAL_GRID_STORE_IMPL_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gridstore/blocks/internal/grid_data_fetcher_impl.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/storage/kv_store.h"
#include "gridstore/util/internal/mutex.h"

namespace gridstore {
class ThreadPool;
}  // namespace gridstore

namespace gridstore::internal_grid {
class BlockCache;
class DictionaryCache;
class SeriesFence;
struct StoreContext;
}  // namespace gridstore::internal_grid

namespace gridstore::grid {

// Opens a GridStore over an opened key-value store (tests, custom backends); takes ownership.
// As GridStore::Open, without the URI.
Result<std::unique_ptr<GridStore>> OpenGridStore(std::unique_ptr<storage::KvStore> kv,
                                                 const GridStoreOptions& options = {});

// The key-value store under `store` (which Open or OpenGridStore made). For tests and tools that
// inspect or damage it on purpose.
storage::KvStore* KvStoreOf(GridStore* store);

// Helpers shared by GridStoreImpl's files.
uint64_t RandomNonZero();  // incarnations and index versions
int64_t NowMillis();       // wall clock, ms since the epoch

class GridStoreImpl final : public GridStore {
 public:
  // Checks the marker (writing it into an empty store if options.create_if_missing).
  static Result<std::unique_ptr<GridStore>> OpenWith(std::unique_ptr<storage::KvStore> kv,
                                                     std::unique_ptr<ThreadPool> pool,
                                                     const GridStoreOptions& options);
  ~GridStoreImpl() override;

  Status CreateStore() override;
  Status Flush() override;
  Status PutDataSetMeta(const DataSetMeta& meta) override;
  Status UpdateDataSetMeta(const DataSetMeta& meta) override;
  Status PutDataSetMetas(const std::vector<DataSetMeta>& metas) override;
  Result<DataSetMeta> GetDataSetMeta(std::string_view id) override;
  Result<std::vector<DataSetMeta>> ListDataSets() override;
  Status DeleteDataSet(std::string_view id) override;
  Result<DataSetMeta> BeginReplacement(const DataSetMeta& meta) override;
  Result<std::unique_ptr<GridDataWriter>> GetReplacementWriter(
      const DataSetMeta& staged, const WriteGridOptions& options) override;
  Status CommitReplacement(const DataSetMeta& meta) override;
  Status AbandonReplacement(const DataSetMeta& staged) override;
  Result<RelayoutReport> AddSeriesLayout(std::string_view id, const SeriesLayout& series,
                                         const RelayoutOptions& options) override;
  Status DropSeriesLayout(std::string_view id) override;
  Result<VerifyReport> Verify(std::string_view id, const VerifyOptions& options) override;
  Result<CompactReport> Compact(const CompactOptions& options) override;
  Status CreateMetaIndex(std::string_view name, const MetaIndexSchema& schema) override;
  Status DropMetaIndex(std::string_view name) override;
  Result<std::vector<MetaIndexInfo>> ListMetaIndexes() override;
  using GridStore::QueryDataSets;
  Result<QueryResult> QueryDataSets(std::string_view index, const Query& query,
                                    const QueryParams& params) override;
  Result<std::unique_ptr<GridDataWriter>> GetDataWriter(std::string_view id,
                                                        const WriteGridOptions& options) override;
  Result<std::unique_ptr<GridDataFetcher>> GetDataFetcher(std::string_view id) override;
  Result<uint64_t> ApproximateDataSetSize(std::string_view id) override;
  const GridStoreOptions& options() const override { return options_; }
  DerivedCache& derived_cache() override { return derived_cache_; }
  void RunInParallel(size_t n, const std::function<void(size_t)>& fn) override;

  // A fetcher reading against `meta` as given (not as stored): relayout and its verification.
  std::unique_ptr<GridDataFetcher> NewFetcher(std::shared_ptr<const DataSetMeta> meta) {
    return std::make_unique<internal_grid::GridDataFetcherImpl>(context_.get(), std::move(meta));
  }

  // The underlying key-value store (tests and tools inspect it). Owned by this store.
  storage::KvStore* kv_store() { return kv_.get(); }

 private:
  // The index definitions a writer maintains, and the stored version they were read at.
  struct IndexDefinitionsCache {
    std::vector<MetaIndexInfo> defs;  // ready and building, ordered by name
    std::optional<std::string> version;
  };
  GridStoreImpl(std::unique_ptr<storage::KvStore> kv, std::unique_ptr<ThreadPool> pool,
                const GridStoreOptions& options);
  // The meta of `id`: the cached one if the stored stamp says it is still current, else read.
  Result<std::shared_ptr<const DataSetMeta>> LoadMeta(std::string_view id) EXCLUDES(meta_cache_mu_);
  Status StoreMeta(const DataSetMeta& meta, bool must_exist) EXCLUDES(meta_write_mu_);
  // Adds to `batch` what replaces `prev` (null for a new dataset) by `meta`, after checking the
  // change is allowed; *stored is the meta as written.
  // The series layout is left as stored unless `series_change` (relayout's own writes).
  Status AddMetaWrite(const DataSetMeta& meta, const DataSetMeta* prev, storage::WriteBatch* batch,
                      DataSetMeta* stored, bool series_change = false) REQUIRES(meta_write_mu_);
  // Makes `batch` conditional on the meta key of `id` holding `prev_bytes` (absent: nullopt)
  // and on the index definitions being those this store holds.
  void ExpectUnchanged(std::string_view id, const std::optional<std::string>& prev_bytes,
                       storage::WriteBatch* batch) REQUIRES(meta_write_mu_);
  // Makes `batch` conditional on the index definitions being the ones this store holds (its
  // postings follow them).
  Status ExpectIndexDefinitions(storage::WriteBatch* batch) REQUIRES(meta_write_mu_);
  // Runs `attempt` (a read-modify-write of metas, under meta_write_mu_) until its conditional
  // write is not Aborted by a concurrent writer, reloading the index definitions in between.
  // `attempt` runs with the mutex held (it says so with meta_write_mu_.AssertHeld()).
  Status RetryOnConflict(std::string_view what, const std::function<Status()>& attempt)
      REQUIRES(meta_write_mu_);
  Status CheckWritable() const;
  // StoreMeta's write (read, check against the stored meta, conditional write, retried on a
  // conflict); *stored gets the meta as written.
  Status WriteMeta(const DataSetMeta& meta, bool must_exist, DataSetMeta* stored)
      REQUIRES(meta_write_mu_);
  // Sets the series layout of `expected` (a meta read earlier) to `series`, keeping whatever
  // else changed in the stored meta since (attributes); FailedPrecondition naming `what` if the
  // dataset was deleted or replaced, or its variables or layout changed.
  Status StoreSeriesState(const DataSetMeta& expected, const std::optional<SeriesLayout>& series,
                          const std::string& what) EXCLUDES(meta_write_mu_);
  // (A meta write's check, grid_store_relayout.cc.) The series layout `series` of `prev` as it
  // stays under `meta`. Its blocks cover the variables as they are: a new variable, or one of
  // another shape, would read fill values from blocks never written. Only t may grow (a run
  // appended to): the layout then holds only whole blocks of steps below each grown variable's
  // former end (a partial last block is written again once complete).
  static Status KeepSeriesLayout(const DataSetMeta& meta, const DataSetMeta& prev,
                                 SeriesLayout* series);
  // Verify's check of `meta`'s series blocks: each decodes, equals the values of the planes
  // it covers, and (once ready) exists; problems go into *report.
  Status VerifySeriesBlocks(std::shared_ptr<const DataSetMeta> meta, VerifyReport* report);
  // Writes the series blocks of `meta` (its series layout set) holding steps [from, to) (to:
  // kSeriesAllSteps for all) from the planes; with `resume`, skips the groups written already
  // (a relayout run again).
  Status WriteSeriesBlocks(std::shared_ptr<const DataSetMeta> meta, const RelayoutOptions& options,
                           int64_t from, int64_t to, bool resume, RelayoutReport* report);
  // AddSeriesLayout for a run still arriving: a growing layout (SeriesLayout::steps), then the
  // blocks of steps already complete.
  Result<RelayoutReport> StartGrowingSeries(std::shared_ptr<const DataSetMeta> meta,
                                            const SeriesLayout& series,
                                            const RelayoutOptions& options);
  // If `meta` (as just stored) has a growing series layout and completes its next blocks of
  // steps (all of them once DONE), writes them and records that the layout holds them.
  Status GrowSeriesLayout(std::shared_ptr<const DataSetMeta> meta, const RelayoutOptions& options,
                          RelayoutReport* report);
  void EraseCachedMeta(std::string_view id) EXCLUDES(meta_cache_mu_);
  Result<bool> HasData(const storage::KeyRange& range);
  // The meta index definitions (ready and being built), loaded once and reloaded after a
  // conflict.
  Result<const std::vector<MetaIndexInfo>*> IndexDefinitions() REQUIRES(meta_write_mu_);
  // Adds to `batch` the posting changes from `before` to `after` (either may be null) of `id`.
  Status AddPostingChanges(std::string_view id, const Attributes* before, const Attributes* after,
                           storage::WriteBatch* batch) REQUIRES(meta_write_mu_);
  // Reclaims the space of `range` of the data table after a delete.
  Status ReclaimDataRange(const storage::KeyRange& range, std::string_view what);
  // True if replacement (id, incarnation) is being written by this store.
  bool ReplacementActive(std::string_view id, uint64_t incarnation) EXCLUDES(replacements_mu_);
  // The replacements whose records lie in `records` (a range of the meta table) and that are
  // abandoned (ReplacementAbandoned), as (id, incarnation).
  Result<std::vector<std::pair<std::string, uint64_t>>> AbandonedReplacements(
      const storage::KeyRange& records, std::chrono::seconds min_age);
  // Deletes the record and the blocks of replacement (id, incarnation), reclaiming their space
  // if `reclaim`; *blocks (if not null) gets how many blocks it had (read to count them).
  Status RemoveReplacement(std::string_view id, uint64_t incarnation, bool reclaim,
                           int64_t* blocks = nullptr);
  // True if replacement (id, incarnation), begun at `started_ms`, is dead: not written here,
  // and either no other process can write the store or it began longer than `min_age` ago.
  bool ReplacementAbandoned(std::string_view id, uint64_t incarnation, int64_t started_ms,
                            std::chrono::seconds min_age);
  // Verify's check of the replacements of `id` (all if empty); problems go to `problem`
  // (dataset, what).
  Status VerifyReplacements(std::string_view id, const VerifyOptions& options, VerifyReport* report,
                            const std::function<void(std::string, std::string)>& problem);
  // CreateMetaIndex's steps. Declares index `name` as being built (*exists: it exists already,
  // ready, with this schema).
  Status DeclareIndexBuilding(std::string_view name, const MetaIndexSchema& schema,
                              const std::string& what, bool* exists) REQUIRES(meta_write_mu_);
  // Adds the postings of every stored dataset, a bounded batch per write.
  Status BackfillIndex(std::string_view name, const MetaIndexSchema& schema,
                       const std::string& what) REQUIRES(meta_write_mu_);
  // Writes the index definition `name` as ready and/or building (null: removed), optionally
  // removes its postings, and bumps the definitions version, conditional on the version this
  // store holds.
  Status WriteIndexDefinition(std::string_view name, const MetaIndexSchema* ready,
                              const MetaIndexSchema* building, bool clear_postings)
      REQUIRES(meta_write_mu_);

  const GridStoreOptions options_;
  std::unique_ptr<storage::KvStore> kv_;
  std::unique_ptr<ThreadPool> pool_;
  std::unique_ptr<internal_grid::BlockCache> cache_;
  std::unique_ptr<internal_grid::DictionaryCache> dictionaries_;
  std::unique_ptr<internal_grid::SeriesFence> series_fence_;
  std::unique_ptr<internal_grid::StoreContext> context_;
  DerivedCache derived_cache_;

  // Serialises this store's meta writes; other writers of a shared store are kept consistent
  // by conditional writes (RetryOnConflict).
  Mutex meta_write_mu_;
  // Index definitions as stored, with the version they were read at; every meta write expects
  // that version, so it maintains exactly the indexes that exist.
  std::unique_ptr<IndexDefinitionsCache> index_defs_ GUARDED_BY(meta_write_mu_);
  Mutex replacements_mu_;
  // Replacements (id, incarnation) this store is writing.
  std::set<std::pair<std::string, uint64_t>> replacements_ GUARDED_BY(replacements_mu_);
  Mutex meta_cache_mu_;
  // Decoded metas by id; entries are dropped whenever this store writes or deletes that id.
  std::map<std::string, std::shared_ptr<const DataSetMeta>, std::less<>> meta_cache_
      GUARDED_BY(meta_cache_mu_);
};

}  // namespace gridstore::grid

#endif  // GRIDSTORE_GRID_INTERNAL_GRID_STORE_IMPL_H_
