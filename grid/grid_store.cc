// Copyright 2026 The GridStore Authors.
#include "grid/grid_store.h"

#include <algorithm>
#include <chrono>
#include <random>
#include <unordered_map>

#include "grid/grid_keys.h"
#include "grid/internal/block_cache.h"
#include "grid/internal/dictionary_cache.h"
#include "grid/internal/meta_index.h"
#include "grid/internal/store_context.h"
#include "storage/kv_store_factory.h"
#include "util/coding.h"
#include "util/thread_pool.h"

namespace gridstore::grid {

namespace {

// The store marker's value: a magic word and the store format version.
constexpr std::string_view kStoreMagic = "GridStore";
constexpr uint32_t kStoreFormatVersion = 1;

std::string Quoted(std::string_view id) { return "'" + EscapeForMessage(id) + "'"; }

// Datasets indexed per write batch when an index is created on a populated store.
constexpr size_t kBackfillBatch = 1000;

uint64_t NewIncarnation() {
  static std::mutex mu;
  static std::mt19937_64 rng(std::random_device{}() ^
                             static_cast<uint64_t>(
                                 std::chrono::steady_clock::now().time_since_epoch().count()));
  std::lock_guard<std::mutex> lock(mu);
  uint64_t v = 0;
  while (v == 0) v = rng();
  return v;
}

std::string ShapeString(const Shape4& s) {
  return "[" + std::to_string(s[0]) + ", " + std::to_string(s[1]) + ", " + std::to_string(s[2]) +
         ", " + std::to_string(s[3]) + "]";
}

// Why `next` may not replace `prev` once the dataset has data, or "" if it may.
std::string LayoutChange(const DataSetMeta& prev, const DataSetMeta& next) {
  if (!(prev.layout == next.layout)) {
    return "its block layout cannot change (" + BlockLayoutToString(prev.layout) + " -> " +
           BlockLayoutToString(next.layout) + ")";
  }
  return "";
}

std::string VariableChange(const VariableMeta& prev, const VariableMeta* next) {
  if (next == nullptr) return "variable '" + EscapeForMessage(prev.name) + "' cannot be removed";
  if (next->type != prev.type) {
    return "variable '" + EscapeForMessage(prev.name) + "' cannot change type (" +
           std::string(DataTypeName(prev.type)) + " -> " + std::string(DataTypeName(next->type)) +
           ")";
  }
  if (next->shape != prev.shape) {
    return "variable '" + EscapeForMessage(prev.name) + "' cannot change shape (" +
           ShapeString(prev.shape) + " -> " + ShapeString(next->shape) + ")";
  }
  return "";
}

}  // namespace

GridStore::GridStore(std::unique_ptr<storage::KvStore> kv, const GridStoreOptions& options)
    : options_(options),
      kv_(std::move(kv)),
      pool_(std::make_unique<ThreadPool>(options.threads)),
      cache_(std::make_unique<internal_grid::BlockCache>(options.block_cache_bytes)),
      dictionaries_(std::make_unique<internal_grid::DictionaryCache>(kv_.get())),
      context_(std::make_unique<internal_grid::StoreContext>(internal_grid::StoreContext{
          kv_.get(), pool_.get(), cache_.get(), dictionaries_.get(), options.read_only})) {}

GridStore::~GridStore() = default;

Result<std::unique_ptr<GridStore>> GridStore::Open(const std::string& uri,
                                                   const GridStoreOptions& options) {
  storage::OpenOptions open_options;
  open_options.create_if_missing = options.create_if_missing && !options.read_only;
  open_options.read_only = options.read_only;
  GRIDSTORE_ASSIGN_OR_RETURN(std::unique_ptr<storage::KvStore> kv,
                             storage::OpenKvStore(uri, open_options));
  auto opened = Open(std::move(kv), options);
  if (!opened.ok()) return opened.status().WithContext("store '" + uri + "'");
  return opened;
}

Result<std::unique_ptr<GridStore>> GridStore::Open(std::unique_ptr<storage::KvStore> kv,
                                                   const GridStoreOptions& options) {
  std::unique_ptr<GridStore> store(new GridStore(std::move(kv), options));
  std::string marker;
  Status s = store->kv_->Get(storage::ReadOptions{}, storage::Table::kMeta, StoreMarkerKey(),
                             &marker);
  if (s.IsNotFound()) {
    if (!options.create_if_missing || options.read_only) {
      return Status::FailedPrecondition(
          "not a GridStore store (the key-value store has no GridStore marker)");
    }
    GRIDSTORE_RETURN_IF_ERROR(store->CreateStore());
    return store;
  }
  GRIDSTORE_RETURN_IF_ERROR(s);
  GRIDSTORE_RETURN_IF_ERROR(store->CreateStore());  // checks the marker's version
  return store;
}

Status GridStore::CreateStore() {
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
    return Status::OK();
  }
  if (!s.IsNotFound()) return s;
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  std::string value(kStoreMagic);
  PutFixed32(&value, kStoreFormatVersion);
  return kv_->Put(storage::WriteOptions{.sync = true}, storage::Table::kMeta, StoreMarkerKey(),
                  value);
}

Status GridStore::CheckWritable() const {
  if (options_.read_only) return Status::FailedPrecondition("the store is open read-only");
  return Status::OK();
}

Result<bool> GridStore::HasData(const storage::KeyRange& range) {
  bool found = false;
  GRIDSTORE_RETURN_IF_ERROR(kv_->Scan(storage::ReadOptions{.fill_cache = false},
                                      storage::Table::kData, range,
                                      [&](std::string_view, std::string_view) {
                                        found = true;
                                        return false;
                                      }));
  return found;
}

Result<std::shared_ptr<const DataSetMeta>> GridStore::LoadMeta(std::string_view id) {
  GRIDSTORE_RETURN_IF_ERROR(ValidateDataSetId(id));
  {
    std::lock_guard<std::mutex> lock(meta_cache_mu_);
    if (auto it = meta_cache_.find(id); it != meta_cache_.end()) return it->second;
  }
  std::string bytes;
  Status s = kv_->Get(storage::ReadOptions{}, storage::Table::kMeta, MetaKey(id), &bytes);
  if (s.IsNotFound()) return Status::NotFound("dataset " + Quoted(id) + " does not exist");
  GRIDSTORE_RETURN_IF_ERROR(s.WithContext("reading the meta of dataset " + Quoted(id)));
  auto decoded = DataSetMeta::Decode(bytes);
  if (!decoded.ok()) return decoded.status().WithContext("meta of dataset " + Quoted(id));
  auto meta = std::make_shared<const DataSetMeta>(std::move(decoded).value());
  std::lock_guard<std::mutex> lock(meta_cache_mu_);
  meta_cache_.emplace(std::string(id), meta);
  return meta;
}

Status GridStore::AddMetaWrite(const DataSetMeta& meta, const DataSetMeta* prev,
                               storage::WriteBatch* batch, DataSetMeta* stored) {
  *stored = meta;
  if (prev != nullptr) {
    stored->incarnation = prev->incarnation;
    // A layout change matters if any block exists; a variable change only if that variable's do.
    std::string why = LayoutChange(*prev, meta);
    storage::KeyRange range = DataSetDataRange(meta.id);
    for (size_t i = 0; i < prev->variables.size() && why.empty(); ++i) {
      const VariableMeta& var = prev->variables[i];
      why = VariableChange(var, meta.FindVariable(var.name));
      range = VariableDataRange(meta.id, var.name);
    }
    if (!why.empty()) {
      GRIDSTORE_ASSIGN_OR_RETURN(bool has_data, HasData(range));
      if (has_data) {
        return Status::FailedPrecondition("dataset " + Quoted(meta.id) + " has data, so " + why +
                                          "; delete the dataset and write it again instead");
      }
    }
  } else {
    stored->incarnation = NewIncarnation();
  }
  batch->Put(storage::Table::kMeta, MetaKey(stored->id), stored->Encode());
  // Postings go in the same batch as the meta: a crash never leaves them disagreeing.
  return AddPostingChanges(stored->id, prev != nullptr ? &prev->attributes : nullptr,
                           &stored->attributes, batch);
}

Status GridStore::StoreMeta(const DataSetMeta& meta, bool must_exist) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  GRIDSTORE_RETURN_IF_ERROR(meta.Validate());
  std::lock_guard<std::mutex> write_lock(meta_write_mu_);
  EraseCachedMeta(meta.id);  // check against the stored meta itself, not a cached copy
  auto existing = LoadMeta(meta.id);
  if (!existing.ok() && !existing.status().IsNotFound()) return existing.status();
  if (!existing.ok() && must_exist) return existing.status();
  storage::WriteBatch batch;
  DataSetMeta stored;
  GRIDSTORE_RETURN_IF_ERROR(
      AddMetaWrite(meta, existing.ok() ? existing->get() : nullptr, &batch, &stored));
  Status s = kv_->Write(storage::WriteOptions{}, batch);
  EraseCachedMeta(meta.id);
  return s.WithContext("writing the meta of dataset " + Quoted(meta.id));
}

Status GridStore::PutDataSetMetas(const std::vector<DataSetMeta>& metas) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  auto which = [&](size_t i) {
    return "meta " + std::to_string(i + 1) + " of " + std::to_string(metas.size()) +
           " (dataset " + Quoted(metas[i].id) + ")";
  };
  for (size_t i = 0; i < metas.size(); ++i) {
    GRIDSTORE_RETURN_IF_ERROR(metas[i].Validate().WithContext(which(i)));
  }
  if (metas.empty()) return Status::OK();
  std::lock_guard<std::mutex> write_lock(meta_write_mu_);
  std::vector<std::string> keys;
  keys.reserve(metas.size());
  for (const DataSetMeta& meta : metas) keys.push_back(MetaKey(meta.id));
  const std::vector<std::string_view> key_views(keys.begin(), keys.end());
  std::vector<std::string> values;
  std::vector<Status> statuses;
  kv_->MultiGet(storage::ReadOptions{}, storage::Table::kMeta, key_views, &values, &statuses);

  // What this batch has written so far, so that a repeated id is checked against its
  // predecessor in the batch.
  std::unordered_map<std::string_view, DataSetMeta> written;
  storage::WriteBatch batch;
  for (size_t i = 0; i < metas.size(); ++i) {
    const DataSetMeta* prev = nullptr;
    DataSetMeta decoded;
    if (auto it = written.find(metas[i].id); it != written.end()) {
      prev = &it->second;
    } else if (statuses[i].ok()) {
      auto d = DataSetMeta::Decode(values[i]);
      if (!d.ok()) return d.status().WithContext("stored meta of " + which(i));
      decoded = std::move(d).value();
      prev = &decoded;
    } else if (!statuses[i].IsNotFound()) {
      return statuses[i].WithContext("reading the meta of " + which(i));
    }
    DataSetMeta stored;
    GRIDSTORE_RETURN_IF_ERROR(AddMetaWrite(metas[i], prev, &batch, &stored).WithContext(which(i)));
    written[metas[i].id] = std::move(stored);
  }
  Status s = kv_->Write(storage::WriteOptions{}, batch);
  for (const DataSetMeta& meta : metas) EraseCachedMeta(meta.id);
  return s.WithContext("writing " + std::to_string(metas.size()) + " dataset metas");
}

void GridStore::EraseCachedMeta(std::string_view id) {
  std::lock_guard<std::mutex> lock(meta_cache_mu_);
  if (auto it = meta_cache_.find(id); it != meta_cache_.end()) meta_cache_.erase(it);
}

Status GridStore::PutDataSetMeta(const DataSetMeta& meta) { return StoreMeta(meta, false); }

Status GridStore::UpdateDataSetMeta(const DataSetMeta& meta) { return StoreMeta(meta, true); }

Result<DataSetMeta> GridStore::GetDataSetMeta(std::string_view id) {
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const DataSetMeta> meta, LoadMeta(id));
  return *meta;
}

Result<std::vector<DataSetMeta>> GridStore::ListDataSets() {
  std::vector<DataSetMeta> metas;
  Status error;
  GRIDSTORE_RETURN_IF_ERROR(kv_->Scan(
      storage::ReadOptions{}, storage::Table::kMeta, AllMetaKeys(),
      [&](std::string_view key, std::string_view value) {
        auto meta = DataSetMeta::Decode(value);
        if (!meta.ok()) {
          error = meta.status().WithContext("meta of dataset " + Quoted(key));
          return false;
        }
        metas.push_back(std::move(meta).value());
        return true;
      }));
  GRIDSTORE_RETURN_IF_ERROR(error);
  return metas;
}

Status GridStore::DeleteDataSet(std::string_view id) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  GRIDSTORE_RETURN_IF_ERROR(ValidateDataSetId(id));
  std::lock_guard<std::mutex> write_lock(meta_write_mu_);
  std::string bytes;
  Status s = kv_->Get(storage::ReadOptions{}, storage::Table::kMeta, MetaKey(id), &bytes);
  if (s.IsNotFound()) {
    // No meta: delete anyway if blocks were left behind, else there is nothing to delete.
    GRIDSTORE_ASSIGN_OR_RETURN(bool has_data, HasData(DataSetDataRange(id)));
    if (!has_data) return Status::NotFound("dataset " + Quoted(id) + " does not exist");
  } else {
    GRIDSTORE_RETURN_IF_ERROR(s);
  }
  storage::WriteBatch batch;
  if (s.ok()) {
    // Postings are not under the dataset's index range; delete them by what the meta implies.
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
  batch.Delete(storage::Table::kMeta, MetaKey(id));
  const storage::KeyRange data = DataSetDataRange(id), index = DataSetIndexRange(id);
  batch.DeleteRange(storage::Table::kData, data.begin, data.end);
  batch.DeleteRange(storage::Table::kIndex, index.begin, index.end);
  s = kv_->Write(storage::WriteOptions{.sync = true}, batch);
  // Cached blocks are keyed by incarnation, so a re-created dataset never sees them; they age out.
  EraseCachedMeta(id);
  return s.WithContext("deleting dataset " + Quoted(id));
}

namespace {

Result<std::vector<MetaIndexInfo>> ReadIndexDefinitions(storage::KvStore* kv) {
  std::vector<MetaIndexInfo> defs;
  Status error;
  GRIDSTORE_RETURN_IF_ERROR(
      kv->Scan(storage::ReadOptions{}, storage::Table::kIndex, AllIndexDefinitions(),
               [&](std::string_view key, std::string_view value) {
                 std::string_view name;
                 if (!DecodeIndexDefinitionKey(key, &name)) {
                   error = Status::DataLoss("malformed meta index definition key '" +
                                            EscapeForMessage(key) + "'");
                   return false;
                 }
                 auto schema = internal_grid::DecodeMetaIndexSchema(value);
                 if (!schema.ok()) {
                   error = schema.status().WithContext("meta index " + Quoted(name));
                   return false;
                 }
                 defs.push_back(MetaIndexInfo{std::string(name), std::move(schema).value()});
                 return true;
               }));
  GRIDSTORE_RETURN_IF_ERROR(error);
  return defs;
}

}  // namespace

Result<const std::vector<MetaIndexInfo>*> GridStore::IndexDefinitions() {
  if (!index_defs_.has_value()) {
    GRIDSTORE_ASSIGN_OR_RETURN(index_defs_, ReadIndexDefinitions(kv_.get()));
  }
  return &*index_defs_;
}

Status GridStore::AddPostingChanges(std::string_view id, const Attributes* before,
                                    const Attributes* after, storage::WriteBatch* batch) {
  GRIDSTORE_ASSIGN_OR_RETURN(const std::vector<MetaIndexInfo>* defs, IndexDefinitions());
  if (defs->empty()) return Status::OK();
  std::vector<std::string> old_keys, new_keys;
  for (const MetaIndexInfo& def : *defs) {
    if (before != nullptr) internal_grid::AppendMetaPostings(def, id, *before, &old_keys);
    if (after != nullptr) internal_grid::AppendMetaPostings(def, id, *after, &new_keys);
  }
  std::sort(old_keys.begin(), old_keys.end());
  std::sort(new_keys.begin(), new_keys.end());
  // Unchanged postings are left alone, so an update touching one attribute writes little.
  std::vector<std::string> gone, added;
  std::set_difference(old_keys.begin(), old_keys.end(), new_keys.begin(), new_keys.end(),
                      std::back_inserter(gone));
  std::set_difference(new_keys.begin(), new_keys.end(), old_keys.begin(), old_keys.end(),
                      std::back_inserter(added));
  for (const std::string& key : gone) batch->Delete(storage::Table::kIndex, key);
  for (const std::string& key : added) batch->Put(storage::Table::kIndex, key, "");
  return Status::OK();
}

Status GridStore::CreateMetaIndex(std::string_view name, const MetaIndexSchema& schema) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  GRIDSTORE_RETURN_IF_ERROR(ValidateIndexName(name));
  GRIDSTORE_RETURN_IF_ERROR(
      internal_grid::ValidateMetaIndexSchema(schema).WithContext("meta index " + Quoted(name)));
  std::lock_guard<std::mutex> write_lock(meta_write_mu_);
  GRIDSTORE_ASSIGN_OR_RETURN(const std::vector<MetaIndexInfo>* defs, IndexDefinitions());
  for (const MetaIndexInfo& def : *defs) {
    if (def.name != name) continue;
    std::string why = internal_grid::MetaIndexSchemaConflict(def.schema, schema);
    if (why.empty()) return Status::OK();
    return Status::FailedPrecondition("meta index " + Quoted(name) +
                                      " already exists with another schema: " + why);
  }
  const MetaIndexInfo info{std::string(name), schema};
  // Postings left by a creation that crashed before writing the definition. Only if there are
  // any: a range tombstone is checked by every later read of the index until compaction drops it.
  const storage::KeyRange postings = IndexPostingsRange(name);
  storage::WriteBatch batch;
  bool leftovers = false;
  GRIDSTORE_RETURN_IF_ERROR(kv_->Scan(storage::ReadOptions{}, storage::Table::kIndex, postings,
                                      [&](std::string_view, std::string_view) {
                                        leftovers = true;
                                        return false;
                                      }));
  if (leftovers) {
    batch.DeleteRange(storage::Table::kIndex, postings.begin, postings.end);
    GRIDSTORE_RETURN_IF_ERROR(kv_->Write(storage::WriteOptions{}, batch));
  }

  // Index existing datasets a bounded batch at a time; the definition comes last, so queries
  // never see a half-built index.
  std::string begin = AllMetaKeys().begin;
  std::vector<std::string> keys;
  while (true) {
    batch.Clear();
    size_t datasets = 0;
    std::string last;
    Status error;
    Attributes attributes;
    GRIDSTORE_RETURN_IF_ERROR(
        kv_->Scan(storage::ReadOptions{.fill_cache = false}, storage::Table::kMeta,
                  storage::KeyRange{begin, ""}, [&](std::string_view key, std::string_view value) {
                    if (datasets == kBackfillBatch) return false;
                    Status s = DataSetMeta::DecodeAttributes(value, &attributes);
                    if (!s.ok()) {
                      error = s.WithContext("indexing the meta of dataset " + Quoted(key));
                      return false;
                    }
                    keys.clear();
                    internal_grid::AppendMetaPostings(info, key, attributes, &keys);
                    for (const std::string& k : keys) batch.Put(storage::Table::kIndex, k, "");
                    last.assign(key);
                    ++datasets;
                    return true;
                  }));
    GRIDSTORE_RETURN_IF_ERROR(error);
    if (!batch.empty()) GRIDSTORE_RETURN_IF_ERROR(kv_->Write(storage::WriteOptions{}, batch));
    if (datasets < kBackfillBatch) break;
    begin = last + '\0';
  }
  std::string value;
  internal_grid::EncodeMetaIndexSchema(schema, &value);
  GRIDSTORE_RETURN_IF_ERROR(kv_->Put(storage::WriteOptions{.sync = true}, storage::Table::kIndex,
                                     IndexDefinitionKey(name), value));
  index_defs_->push_back(info);
  std::sort(index_defs_->begin(), index_defs_->end(),
            [](const MetaIndexInfo& a, const MetaIndexInfo& b) { return a.name < b.name; });
  return Status::OK();
}

Status GridStore::DropMetaIndex(std::string_view name) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  GRIDSTORE_RETURN_IF_ERROR(ValidateIndexName(name));
  std::lock_guard<std::mutex> write_lock(meta_write_mu_);
  GRIDSTORE_ASSIGN_OR_RETURN(const std::vector<MetaIndexInfo>* defs, IndexDefinitions());
  auto it = std::find_if(defs->begin(), defs->end(),
                         [&](const MetaIndexInfo& def) { return def.name == name; });
  if (it == defs->end()) return Status::NotFound("meta index " + Quoted(name) + " does not exist");
  const storage::KeyRange postings = IndexPostingsRange(name);
  storage::WriteBatch batch;
  batch.Delete(storage::Table::kIndex, IndexDefinitionKey(name));
  batch.DeleteRange(storage::Table::kIndex, postings.begin, postings.end);
  GRIDSTORE_RETURN_IF_ERROR(kv_->Write(storage::WriteOptions{.sync = true}, batch));
  index_defs_->erase(index_defs_->begin() + (it - defs->begin()));
  return Status::OK();
}

Result<std::vector<MetaIndexInfo>> GridStore::ListMetaIndexes() {
  return ReadIndexDefinitions(kv_.get());  // not the cache: never waits for an index build
}

Result<QueryResult> GridStore::QueryDataSets(std::string_view index, const Query& query,
                                             const QueryParams& params) {
  if (index.empty()) return internal_grid::RunMetaQuery(kv_.get(), nullptr, query, params);
  GRIDSTORE_RETURN_IF_ERROR(ValidateIndexName(index));
  // Read the definition itself (not the writers' cache) so that queries never wait for a writer.
  std::string value;
  Status s =
      kv_->Get(storage::ReadOptions{}, storage::Table::kIndex, IndexDefinitionKey(index), &value);
  if (s.IsNotFound()) return Status::NotFound("meta index " + Quoted(index) + " does not exist");
  GRIDSTORE_RETURN_IF_ERROR(s);
  auto schema = internal_grid::DecodeMetaIndexSchema(value);
  if (!schema.ok()) return schema.status().WithContext("meta index " + Quoted(index));
  const MetaIndexInfo info{std::string(index), std::move(schema).value()};
  return internal_grid::RunMetaQuery(kv_.get(), &info, query, params);
}

Result<std::unique_ptr<GridDataWriter>> GridStore::GetDataWriter(std::string_view id,
                                                                 const WriteGridOptions& options) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const DataSetMeta> meta, LoadMeta(id));
  return std::unique_ptr<GridDataWriter>(new GridDataWriter(context_.get(), meta, options));
}

Result<std::unique_ptr<GridDataFetcher>> GridStore::GetDataFetcher(std::string_view id) {
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const DataSetMeta> meta, LoadMeta(id));
  return std::unique_ptr<GridDataFetcher>(new GridDataFetcher(context_.get(), meta));
}

Result<uint64_t> GridStore::ApproximateDataSetSize(std::string_view id) {
  GRIDSTORE_RETURN_IF_ERROR(ValidateDataSetId(id));
  return kv_->ApproximateSize(storage::Table::kData, DataSetDataRange(id));
}

storage::KvStore* GridStore::kv_store() { return kv_.get(); }

}  // namespace gridstore::grid
