// Copyright 2026 The GridStore Authors.
//
// Meta writes are read-modify-write cycles (the previous meta decides the index postings to
// remove and whether a layout may change). Within one GridStore they are serialised by
// meta_write_mu_; against other processes writing the same store (RADOS), each write expects
// the meta it read and the index definitions it holds to be unchanged (WriteBatch::Expect), and
// is redone after a conflict. Every meta write also writes the meta's stamp (incarnation,
// generation), which readers check before trusting a cached meta.
#include "gridstore/grid/grid_store.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <thread>
#include <unordered_map>

#include "gridstore/blocks/internal/block_cache.h"
#include "gridstore/blocks/internal/dictionary_cache.h"
#include "gridstore/blocks/internal/grid_data_writer_impl.h"
#include "gridstore/blocks/internal/store_context.h"
#include "gridstore/catalog/internal/meta_index.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/grid/internal/store_walk.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/storage/kv_store_factory.h"
#include "gridstore/util/internal/coding.h"
#include "gridstore/util/internal/strings.h"
#include "gridstore/util/internal/thread_pool.h"

namespace gridstore::grid {

namespace {

// The store marker's value: a magic word and the store format version. Version 2 put the
// incarnation into data keys; version 3 put covered values into postings (docs/format.md: an
// older build's meta writes would leave them stale). Older stores are read as they are and
// marked with the current version on their first open for writing, so that older builds refuse
// them from then on.
constexpr std::string_view kStoreMagic = "GridStore";
constexpr uint32_t kStoreFormatVersion = 3;

// Conflicting writers retry this often before a meta write gives up with Aborted.
constexpr int kMaxConflictRetries = 64;

std::string VariableChange(const VariableMeta& prev, const VariableMeta* next) {
  if (next == nullptr) return "variable '" + EscapeForMessage(prev.name) + "' cannot be removed";
  if (next->type != prev.type) {
    return "variable '" + EscapeForMessage(prev.name) + "' cannot change type (" +
           std::string(DataTypeName(prev.type)) + " -> " + std::string(DataTypeName(next->type)) +
           ")";
  }
  // t may grow (a run appended step by step): blocks are keyed by t, so none moves.
  const bool t_grows = next->shape[kT] >= prev.shape[kT] && next->shape[kZ] == prev.shape[kZ] &&
                       next->shape[kX] == prev.shape[kX] && next->shape[kY] == prev.shape[kY];
  if (next->shape != prev.shape && !t_grows) {
    return "variable '" + EscapeForMessage(prev.name) + "' cannot change shape (" +
           ShapeString(prev.shape) + " -> " + ShapeString(next->shape) + ")";
  }
  return "";
}

Status WriteStoreMarker(storage::KvStore* kv) {
  std::string value(kStoreMagic);
  PutFixed32(&value, kStoreFormatVersion);
  return kv->Put(storage::WriteOptions{.sync = true}, storage::Table::kMeta, StoreMarkerKey(),
                 value);
}

// True if no table of `kv` holds any key.
Result<bool> IsEmpty(storage::KvStore* kv) {
  for (int t = 0; t < storage::kNumTables; ++t) {
    bool any = false;
    GRIDSTORE_RETURN_IF_ERROR(kv->Scan(storage::ReadOptions{}, static_cast<storage::Table>(t),
                                       storage::KeyRange{},
                                       [&](std::string_view, std::string_view) {
                                         any = true;
                                         return false;
                                       }));
    if (any) return false;
  }
  return true;
}

}  // namespace

uint64_t RandomNonZero() {
  static std::mutex mu;
  static std::mt19937_64 rng(
      std::random_device{}() ^
      static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::lock_guard<std::mutex> lock(mu);
  uint64_t v = 0;
  while (v == 0) v = rng();
  return v;
}

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

GridStoreImpl::GridStoreImpl(std::unique_ptr<storage::KvStore> kv, std::unique_ptr<ThreadPool> pool,
                             const GridStoreOptions& options)
    : options_(options),
      kv_(std::move(kv)),
      pool_(std::move(pool)),
      cache_(std::make_unique<internal_grid::BlockCache>(options.block_cache_bytes)),
      dictionaries_(std::make_unique<internal_grid::DictionaryCache>(kv_.get())),
      series_fence_(std::make_unique<internal_grid::SeriesFence>()),
      context_(std::make_unique<internal_grid::StoreContext>(
          internal_grid::StoreContext{kv_.get(), pool_.get(), cache_.get(), dictionaries_.get(),
                                      options.read_only, series_fence_.get()})),
      derived_cache_(options.derived_cache_bytes) {}

void GridStoreImpl::RunInParallel(size_t n, const std::function<void(size_t)>& fn) {
  gridstore::ParallelFor(pool_.get(), n, 0, fn);
}

GridStore::~GridStore() = default;
GridStoreImpl::~GridStoreImpl() = default;

Result<std::unique_ptr<GridStore>> GridStore::Open(const std::string& uri,
                                                   const GridStoreOptions& options) {
  if (options.threads < 0 || options.threads > ThreadPool::kMaxThreads) {
    return Status::InvalidArgument("store '" + uri + "': thread count " +
                                   std::to_string(options.threads) + " is outside [0, " +
                                   std::to_string(ThreadPool::kMaxThreads) + "]");
  }
  // The threads first: if they cannot start, no store has been created for nothing.
  auto pool = ThreadPool::Create(options.threads);
  if (!pool.ok()) return pool.status().WithContext("store '" + uri + "'");
  storage::OpenOptions open_options;
  open_options.create_if_missing = options.create_if_missing && !options.read_only;
  open_options.read_only = options.read_only;
  open_options.open_tables_lazily = options.open_tables_lazily;
  open_options.initialize = WriteStoreMarker;
  GRIDSTORE_ASSIGN_OR_RETURN(std::unique_ptr<storage::KvStore> kv,
                             storage::OpenKvStore(uri, open_options));
  auto opened = GridStoreImpl::OpenWith(std::move(kv), std::move(pool).value(), options);
  if (!opened.ok()) return opened.status().WithContext("store '" + uri + "'");
  return opened;
}

Result<std::unique_ptr<GridStore>> OpenGridStore(std::unique_ptr<storage::KvStore> kv,
                                                 const GridStoreOptions& options) {
  GRIDSTORE_ASSIGN_OR_RETURN(std::unique_ptr<ThreadPool> pool, ThreadPool::Create(options.threads));
  return GridStoreImpl::OpenWith(std::move(kv), std::move(pool), options);
}

storage::KvStore* KvStoreOf(GridStore* store) {
  return static_cast<GridStoreImpl*>(store)->kv_store();
}

Result<std::unique_ptr<GridStore>> GridStoreImpl::OpenWith(std::unique_ptr<storage::KvStore> kv,
                                                           std::unique_ptr<ThreadPool> pool,
                                                           const GridStoreOptions& options) {
  std::unique_ptr<GridStoreImpl> store(new GridStoreImpl(std::move(kv), std::move(pool), options));
  std::string marker;
  Status s =
      store->kv_->Get(storage::ReadOptions{}, storage::Table::kMeta, StoreMarkerKey(), &marker);
  if (s.IsNotFound() && (!options.create_if_missing || options.read_only)) {
    return Status::FailedPrecondition(
        "not a GridStore store (the key-value store has no GridStore marker)");
  }
  if (!s.ok() && !s.IsNotFound()) return s;
  GRIDSTORE_RETURN_IF_ERROR(store->CreateStore());  // checks the marker's version
  return store;
}

Status GridStoreImpl::CreateStore() {
  std::string marker;
  Status s = kv_->Get(storage::ReadOptions{}, storage::Table::kMeta, StoreMarkerKey(), &marker);
  if (s.ok()) {
    ByteReader reader(marker);
    std::string_view magic;
    uint32_t version = 0;
    if (!reader.ReadBytes(kStoreMagic.size(), &magic) || magic != kStoreMagic ||
        !reader.ReadFixed32(&version)) {
      return Status::DataLoss("the GridStore store marker is corrupt");
    }
    if (version > kStoreFormatVersion) {
      return Status::FailedPrecondition("the store has format version " + std::to_string(version) +
                                        "; this build reads up to " +
                                        std::to_string(kStoreFormatVersion));
    }
    if (version < kStoreFormatVersion && !options_.read_only) return WriteStoreMarker(kv_.get());
    return Status::OK();
  }
  if (!s.IsNotFound()) return s;
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  // Only an empty key-value store becomes a GridStore store: one holding anything else belongs
  // to someone else. (New stores get their marker as they are created; an empty one without it
  // was left by a creation that died, before creation was atomic.)
  GRIDSTORE_ASSIGN_OR_RETURN(bool empty, IsEmpty(kv_.get()));
  if (!empty) {
    return Status::FailedPrecondition(
        "not a GridStore store (the key-value store holds data but no GridStore marker)");
  }
  return WriteStoreMarker(kv_.get());
}

Status GridStoreImpl::Flush() { return kv_->Flush(); }

Status GridStoreImpl::CheckWritable() const {
  if (options_.read_only) return Status::FailedPrecondition("the store is open read-only");
  return Status::OK();
}

Result<bool> GridStoreImpl::HasData(const storage::KeyRange& range) {
  bool found = false;
  GRIDSTORE_RETURN_IF_ERROR(kv_->Scan(storage::ReadOptions{.fill_cache = false},
                                      storage::Table::kData, range,
                                      [&](std::string_view, std::string_view) {
                                        found = true;
                                        return false;
                                      }));
  return found;
}

Result<std::shared_ptr<const DataSetMeta>> GridStoreImpl::LoadMeta(std::string_view id) {
  GRIDSTORE_RETURN_IF_ERROR(ValidateDataSetId(id));
  std::shared_ptr<const DataSetMeta> cached;
  {
    MutexLock lock(&meta_cache_mu_);
    if (auto it = meta_cache_.find(id); it != meta_cache_.end()) cached = it->second;
  }
  if (cached != nullptr && cached->generation != 0) {
    // Another process may have rewritten, deleted or re-created the dataset: trust the cached
    // meta only while the stored stamp still names it (a small read, not the whole meta).
    std::string stamp;
    Status s = kv_->Get(storage::ReadOptions{}, storage::Table::kMeta, MetaStampKey(id), &stamp);
    uint64_t incarnation = 0, generation = 0;
    if (s.ok() && DecodeMetaStamp(stamp, &incarnation, &generation) &&
        incarnation == cached->incarnation && generation == cached->generation) {
      return cached;
    }
    if (!s.ok() && !s.IsNotFound()) {
      return s.WithContext("reading the meta of dataset " + Quote(id));
    }
  }
  std::string bytes;
  Status s = kv_->Get(storage::ReadOptions{}, storage::Table::kMeta, MetaKey(id), &bytes);
  if (s.IsNotFound()) {
    EraseCachedMeta(id);
    return Status::NotFound("dataset " + Quote(id) + " does not exist");
  }
  GRIDSTORE_RETURN_IF_ERROR(s.WithContext("reading the meta of dataset " + Quote(id)));
  auto decoded = DataSetMeta::Decode(bytes);
  if (!decoded.ok()) return decoded.status().WithContext("meta of dataset " + Quote(id));
  auto meta = std::make_shared<const DataSetMeta>(std::move(decoded).value());
  MutexLock lock(&meta_cache_mu_);
  meta_cache_[std::string(id)] = meta;
  return meta;
}

Status GridStoreImpl::AddMetaWrite(const DataSetMeta& meta, const DataSetMeta* prev,
                                   storage::WriteBatch* batch, DataSetMeta* stored,
                                   bool series_change) {
  *stored = meta;
  if (!series_change) {
    // Only relayout adds or drops it: a meta written back (or built afresh from a source file)
    // keeps the stored one.
    stored->series = prev != nullptr ? prev->series : std::nullopt;
  }
  if (prev != nullptr && prev->series && stored->series) {
    GRIDSTORE_RETURN_IF_ERROR(KeepSeriesLayout(meta, *prev, &*stored->series));
  }
  if (prev != nullptr) {
    stored->incarnation = prev->incarnation;
    stored->incarnation_in_keys = prev->incarnation_in_keys;
    stored->generation = prev->generation + 1;
    // A layout change matters if any block exists; a variable change only if that variable's
    // do. Every variable is checked: one unchanged or data-less variable does not hide another.
    const uint64_t inc = prev->key_incarnation();
    std::vector<std::pair<std::string, storage::KeyRange>> changes;
    if (!(prev->layout == meta.layout)) {
      changes.emplace_back("its block layout cannot change (" + BlockLayoutToString(prev->layout) +
                               " -> " + BlockLayoutToString(meta.layout) + ")",
                           IncarnationDataRange(meta.id, inc));
    }
    for (const VariableMeta& var : prev->variables) {
      std::string why = VariableChange(var, meta.FindVariable(var.name));
      if (!why.empty()) {
        changes.emplace_back(std::move(why), VariableDataRange(meta.id, inc, var.name));
      }
    }
    for (const auto& [why, range] : changes) {
      GRIDSTORE_ASSIGN_OR_RETURN(bool has_data, HasData(range));
      if (has_data) {
        return Status::FailedPrecondition("dataset " + Quote(meta.id) + " has data, so " + why +
                                          "; delete the dataset and write it again instead");
      }
    }
  } else {
    stored->incarnation = RandomNonZero();
    stored->incarnation_in_keys = true;
    stored->generation = 1;
  }
  batch->Put(storage::Table::kMeta, MetaKey(stored->id), stored->Encode());
  batch->Put(storage::Table::kMeta, MetaStampKey(stored->id),
             EncodeMetaStamp(stored->incarnation, stored->generation));
  // Postings go in the same batch as the meta: a crash never leaves them disagreeing.
  return AddPostingChanges(stored->id, prev != nullptr ? &prev->attributes : nullptr,
                           &stored->attributes, batch);
}

void GridStoreImpl::ExpectUnchanged(std::string_view id,
                                    const std::optional<std::string>& prev_bytes,
                                    storage::WriteBatch* batch) {
  batch->Expect(storage::Table::kMeta, MetaKey(id),
                prev_bytes ? std::optional<std::string_view>(*prev_bytes) : std::nullopt);
}

Status GridStoreImpl::ExpectIndexDefinitions(storage::WriteBatch* batch) {
  GRIDSTORE_RETURN_IF_ERROR(IndexDefinitions().status());
  // The postings a write adds follow the definitions this store holds: the write must fail if
  // another process created or dropped an index since they were read.
  batch->Expect(
      storage::Table::kIndex, IndexDefinitionsVersionKey(),
      index_defs_->version ? std::optional<std::string_view>(*index_defs_->version) : std::nullopt);
  return Status::OK();
}

Status GridStoreImpl::RetryOnConflict(std::string_view what,
                                      const std::function<Status()>& attempt) {
  for (int i = 0; i < kMaxConflictRetries; ++i) {
    Status s = attempt();
    if (!s.IsAborted()) return s;
    // Another writer changed a meta this one read, or the index definitions: read again.
    index_defs_.reset();
    std::this_thread::sleep_for(std::chrono::microseconds(100 * (i + 1)));
  }
  return Status::Aborted(std::string(what) + ": other writers kept changing the same metas; " +
                         "try again");
}

Status GridStoreImpl::StoreMeta(const DataSetMeta& meta, bool must_exist) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  GRIDSTORE_RETURN_IF_ERROR(meta.Validate());
  auto stored = std::make_shared<DataSetMeta>();
  {
    MutexLock write_lock(&meta_write_mu_);
    GRIDSTORE_RETURN_IF_ERROR(WriteMeta(meta, must_exist, stored.get()));
  }
  // A run appended to with a growing series layout: a block of steps complete goes to it now.
  // Not an error of this write if it fails (the meta is stored, and the planes answer those
  // steps exactly): the next write, `relayout --add series` or an import asking for the layout
  // tries again, and verify reports a layout left behind.
  RelayoutReport grown;
  GrowSeriesLayout(std::move(stored), RelayoutOptions{}, &grown).IgnoreError();
  return Status::OK();
}

Status GridStoreImpl::WriteMeta(const DataSetMeta& meta, bool must_exist, DataSetMeta* stored) {
  const std::string what = "writing the meta of dataset " + Quote(meta.id);
  return RetryOnConflict(what, [&]() -> Status {
    meta_write_mu_.AssertHeld();
    std::string bytes;
    Status s = kv_->Get(storage::ReadOptions{}, storage::Table::kMeta, MetaKey(meta.id), &bytes);
    if (!s.ok() && !s.IsNotFound()) return s.WithContext(what);
    if (s.IsNotFound() && must_exist) {
      return Status::NotFound("dataset " + Quote(meta.id) + " does not exist");
    }
    std::optional<DataSetMeta> prev;
    if (s.ok()) {
      auto decoded = DataSetMeta::Decode(bytes);
      if (!decoded.ok()) return decoded.status().WithContext("stored meta of " + Quote(meta.id));
      prev = std::move(decoded).value();
    }
    storage::WriteBatch batch;
    GRIDSTORE_RETURN_IF_ERROR(AddMetaWrite(meta, prev ? &*prev : nullptr, &batch, stored));
    ExpectUnchanged(meta.id, s.ok() ? std::optional<std::string>(bytes) : std::nullopt, &batch);
    GRIDSTORE_RETURN_IF_ERROR(ExpectIndexDefinitions(&batch));
    Status written = kv_->Write(storage::WriteOptions{}, batch);
    EraseCachedMeta(meta.id);
    return written.WithContext(what);
  });
}

Status GridStoreImpl::PutDataSetMetas(const std::vector<DataSetMeta>& metas) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  auto which = [&](size_t i) {
    return "meta " + std::to_string(i + 1) + " of " + std::to_string(metas.size()) + " (dataset " +
           Quote(metas[i].id) + ")";
  };
  for (size_t i = 0; i < metas.size(); ++i) {
    GRIDSTORE_RETURN_IF_ERROR(metas[i].Validate().WithContext(which(i)));
  }
  if (metas.empty()) return Status::OK();
  MutexLock write_lock(&meta_write_mu_);
  const std::string what = "writing " + std::to_string(metas.size()) + " dataset metas";
  return RetryOnConflict(what, [&]() -> Status {
    meta_write_mu_.AssertHeld();
    std::vector<std::string> keys;
    keys.reserve(metas.size());
    for (const DataSetMeta& meta : metas) keys.push_back(MetaKey(meta.id));
    const std::vector<std::string_view> key_views(keys.begin(), keys.end());
    std::vector<std::string> values;
    std::vector<Status> statuses;
    kv_->MultiGet(storage::ReadOptions{}, storage::Table::kMeta, key_views, &values, &statuses);

    // What this batch has written so far, so that a repeated id is checked against its
    // predecessor in the batch (and expected unchanged only once).
    std::unordered_map<std::string_view, DataSetMeta> written;
    storage::WriteBatch batch;
    for (size_t i = 0; i < metas.size(); ++i) {
      const DataSetMeta* prev = nullptr;
      DataSetMeta decoded;
      if (auto it = written.find(metas[i].id); it != written.end()) {
        prev = &it->second;
      } else {
        if (statuses[i].ok()) {
          auto d = DataSetMeta::Decode(values[i]);
          if (!d.ok()) return d.status().WithContext("stored meta of " + which(i));
          decoded = std::move(d).value();
          prev = &decoded;
        } else if (!statuses[i].IsNotFound()) {
          return statuses[i].WithContext("reading the meta of " + which(i));
        }
        ExpectUnchanged(metas[i].id,
                        statuses[i].ok() ? std::optional<std::string>(values[i]) : std::nullopt,
                        &batch);
      }
      DataSetMeta stored;
      GRIDSTORE_RETURN_IF_ERROR(
          AddMetaWrite(metas[i], prev, &batch, &stored).WithContext(which(i)));
      written[metas[i].id] = std::move(stored);
    }
    GRIDSTORE_RETURN_IF_ERROR(ExpectIndexDefinitions(&batch));
    Status s = kv_->Write(storage::WriteOptions{}, batch);
    for (const DataSetMeta& meta : metas) EraseCachedMeta(meta.id);
    return s.WithContext(what);
  });
}

void GridStoreImpl::EraseCachedMeta(std::string_view id) {
  MutexLock lock(&meta_cache_mu_);
  if (auto it = meta_cache_.find(id); it != meta_cache_.end()) meta_cache_.erase(it);
}

Status GridStoreImpl::PutDataSetMeta(const DataSetMeta& meta) { return StoreMeta(meta, false); }

Status GridStoreImpl::UpdateDataSetMeta(const DataSetMeta& meta) { return StoreMeta(meta, true); }

Result<DataSetMeta> GridStoreImpl::GetDataSetMeta(std::string_view id) {
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const DataSetMeta> meta, LoadMeta(id));
  return *meta;
}

Result<std::vector<DataSetMeta>> GridStoreImpl::ListDataSets() {
  std::vector<DataSetMeta> metas;
  Status error;
  GRIDSTORE_RETURN_IF_ERROR(kv_->Scan(storage::ReadOptions{}, storage::Table::kMeta, AllMetaKeys(),
                                      [&](std::string_view key, std::string_view value) {
                                        auto meta = DataSetMeta::Decode(value);
                                        if (!meta.ok()) {
                                          error = meta.status().WithContext("meta of dataset " +
                                                                            Quote(key));
                                          return false;
                                        }
                                        metas.push_back(std::move(meta).value());
                                        return true;
                                      }));
  GRIDSTORE_RETURN_IF_ERROR(error);
  return metas;
}

Status GridStoreImpl::ReclaimDataRange(const storage::KeyRange& range, std::string_view what) {
  return kv_->CompactRange(storage::Table::kData, range)
      .WithContext(std::string(what) + " succeeded, but reclaiming its space failed");
}

Status GridStoreImpl::DeleteDataSet(std::string_view id) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  GRIDSTORE_RETURN_IF_ERROR(ValidateDataSetId(id));
  const std::string what = "deleting dataset " + Quote(id);
  {
    MutexLock write_lock(&meta_write_mu_);
    GRIDSTORE_RETURN_IF_ERROR(RetryOnConflict(what, [&]() -> Status {
      meta_write_mu_.AssertHeld();
      std::string bytes;
      Status s = kv_->Get(storage::ReadOptions{}, storage::Table::kMeta, MetaKey(id), &bytes);
      if (!s.ok() && !s.IsNotFound()) return s.WithContext(what);
      std::vector<std::string> staged;
      GRIDSTORE_RETURN_IF_ERROR(kv_->Scan(storage::ReadOptions{}, storage::Table::kMeta,
                                          StagedKeysOf(id),
                                          [&](std::string_view key, std::string_view) {
                                            staged.emplace_back(key);
                                            return true;
                                          }));
      if (s.IsNotFound() && staged.empty()) {
        // No meta: delete anyway if blocks were left behind, else there is nothing to delete.
        GRIDSTORE_ASSIGN_OR_RETURN(bool has_data, HasData(DataSetDataRange(id)));
        if (!has_data) return Status::NotFound("dataset " + Quote(id) + " does not exist");
      }
      storage::WriteBatch batch;
      if (s.ok()) {
        // Postings are not under the dataset's index range; delete them by what the meta
        // implies.
        Attributes attributes;
        Status decoded = DataSetMeta::DecodeAttributes(bytes, &attributes);
        if (decoded.ok()) {
          GRIDSTORE_RETURN_IF_ERROR(AddPostingChanges(id, &attributes, nullptr, &batch));
        } else {
          // A damaged meta: find its postings by scanning each indexed field.
          GRIDSTORE_ASSIGN_OR_RETURN(const std::vector<MetaIndexInfo>* defs, IndexDefinitions());
          for (const MetaIndexInfo& def : *defs) {
            for (const IndexField& field : def.schema.fields) {
              const std::string prefix = IndexFieldPrefix(def.name, field.name);
              const size_t width = field.type == IndexFieldType::kString ? 0
                                   : field.type == IndexFieldType::kBool ? 1
                                                                         : 8;
              GRIDSTORE_RETURN_IF_ERROR(kv_->Scan(
                  storage::ReadOptions{.fill_cache = false}, storage::Table::kIndex,
                  storage::KeyRange::Prefix(prefix), [&](std::string_view key, std::string_view) {
                    std::string_view value, posting_id;
                    if (SplitIndexPosting(key.substr(prefix.size()), width, &value, &posting_id) &&
                        posting_id == id) {
                      batch.Delete(storage::Table::kIndex, key);
                    }
                    return true;
                  }));
            }
          }
        }
      }
      ExpectUnchanged(id, s.ok() ? std::optional<std::string>(bytes) : std::nullopt, &batch);
      GRIDSTORE_RETURN_IF_ERROR(ExpectIndexDefinitions(&batch));
      batch.Delete(storage::Table::kMeta, MetaKey(id));
      batch.Delete(storage::Table::kMeta, MetaStampKey(id));
      for (const std::string& key : staged) batch.Delete(storage::Table::kMeta, key);
      const storage::KeyRange data = DataSetDataRange(id), index = DataSetIndexRange(id);
      batch.DeleteRange(storage::Table::kData, data.begin, data.end);
      batch.DeleteRange(storage::Table::kIndex, index.begin, index.end);
      Status written = kv_->Write(storage::WriteOptions{.sync = true}, batch);
      // Cached blocks are keyed by incarnation, so a re-created dataset never sees them; they
      // age out.
      EraseCachedMeta(id);
      return written.WithContext(what);
    }));
  }
  return ReclaimDataRange(DataSetDataRange(id), what);
}

// ---- Replacements ----

Result<std::unique_ptr<GridDataWriter>> GridStoreImpl::GetDataWriter(
    std::string_view id, const WriteGridOptions& options) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const DataSetMeta> meta, LoadMeta(id));
  // The layouts started before the meta is read again: a layout started in between shows in the
  // meta, one started later in the fence (series_fence.h).
  const uint64_t seen = series_fence_->Starts(id, meta->incarnation);
  const uint64_t incarnation = meta->incarnation;
  GRIDSTORE_ASSIGN_OR_RETURN(meta, LoadMeta(id));
  if (meta->incarnation != incarnation) {
    return Status::Aborted("dataset " + Quote(id) + " was replaced meanwhile; try again");
  }
  if (meta->series && meta->series->steps == kSeriesAllSteps) {
    // A plane written now would leave the series blocks holding the old values. (A growing
    // layout takes planes of the steps it does not hold yet: GridDataWriterImpl checks.)
    return Status::FailedPrecondition(
        "dataset " + Quote(id) +
        " has a series layout, which writing planes would leave stale; drop it first "
        "(gridstore relayout ID --drop series), write, then add it again");
  }
  return std::unique_ptr<GridDataWriter>(new GridDataWriterImpl(
      context_.get(), meta, options, seen, [this](const DataSetMeta& done) -> Status {
        GRIDSTORE_RETURN_IF_ERROR(UpdateDataSetMeta(done));
        return Flush();
      }));
}

Result<std::unique_ptr<GridDataFetcher>> GridStoreImpl::GetDataFetcher(std::string_view id) {
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const DataSetMeta> meta, LoadMeta(id));
  return std::unique_ptr<GridDataFetcher>(
      std::make_unique<internal_grid::GridDataFetcherImpl>(context_.get(), meta));
}

Result<uint64_t> GridStoreImpl::ApproximateDataSetSize(std::string_view id) {
  GRIDSTORE_RETURN_IF_ERROR(ValidateDataSetId(id));
  return kv_->ApproximateSize(storage::Table::kData, DataSetDataRange(id));
}

}  // namespace gridstore::grid
