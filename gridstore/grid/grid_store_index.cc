// Copyright 2026 The GridStore Authors.
//
// GridStoreImpl: meta indexes (definitions, postings, building) and queries.
#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "gridstore/blocks/internal/block_cache.h"
#include "gridstore/blocks/internal/store_context.h"
#include "gridstore/catalog/internal/meta_covering.h"
#include "gridstore/catalog/internal/meta_index.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/grid/internal/store_walk.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/util/internal/coding.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::grid {
namespace {

// Datasets indexed per write batch when an index is created on a populated store.
constexpr size_t kBackfillBatch = 1000;

// Reads the definitions under `range` (ready: AllIndexDefinitions, or building).
Status ReadIndexDefinitions(storage::KvStore* kv, const storage::KeyRange& range,
                            std::vector<MetaIndexInfo>* defs,
                            const storage::ReadOptions& read = {}) {
  Status error;
  GRIDSTORE_RETURN_IF_ERROR(kv->Scan(
      read, storage::Table::kIndex, range, [&](std::string_view key, std::string_view value) {
        std::string_view name;
        if (!DecodeIndexDefinitionKey(key, &name)) {
          error = Status::DataLoss("malformed meta index definition key '" + EscapeForMessage(key) +
                                   "'");
          return false;
        }
        auto schema = internal_grid::DecodeMetaIndexSchema(value);
        if (!schema.ok()) {
          error = schema.status().WithContext("meta index " + Quote(name));
          return false;
        }
        defs->push_back(MetaIndexInfo{std::string(name), std::move(schema).value()});
        return true;
      }));
  return error;
}

Result<std::vector<MetaIndexInfo>> ReadReadyIndexDefinitions(storage::KvStore* kv) {
  std::vector<MetaIndexInfo> defs;
  // For queries and listings: a catalog replica may answer (writers read IndexDefinitions()).
  GRIDSTORE_RETURN_IF_ERROR(ReadIndexDefinitions(kv, AllIndexDefinitions(), &defs,
                                                 storage::ReadOptions{.allow_replica = true}));
  return defs;
}

}  // namespace

Result<const std::vector<MetaIndexInfo>*> GridStoreImpl::IndexDefinitions() {
  if (index_defs_ == nullptr) {
    auto loaded = std::make_unique<IndexDefinitionsCache>();
    // The version first: definitions written after it was read make the next write conflict.
    std::string version;
    Status s = kv_->Get(storage::ReadOptions{}, storage::Table::kIndex,
                        IndexDefinitionsVersionKey(), &version);
    if (s.ok()) {
      loaded->version = std::move(version);
    } else if (!s.IsNotFound()) {
      return s;
    }
    GRIDSTORE_RETURN_IF_ERROR(
        ReadIndexDefinitions(kv_.get(), AllIndexDefinitions(), &loaded->defs));
    GRIDSTORE_RETURN_IF_ERROR(
        ReadIndexDefinitions(kv_.get(), AllBuildingIndexDefinitions(), &loaded->defs));
    std::sort(loaded->defs.begin(), loaded->defs.end(),
              [](const MetaIndexInfo& a, const MetaIndexInfo& b) { return a.name < b.name; });
    index_defs_ = std::move(loaded);
  }
  return &index_defs_->defs;
}

Status GridStoreImpl::AddPostingChanges(std::string_view id, const Attributes* before,
                                        const Attributes* after, storage::WriteBatch* batch) {
  GRIDSTORE_ASSIGN_OR_RETURN(const std::vector<MetaIndexInfo>* defs, IndexDefinitions());
  std::vector<std::string> old_keys, new_keys, gone, added;
  std::string old_covered, new_covered;
  for (const MetaIndexInfo& def : *defs) {
    old_keys.clear();
    new_keys.clear();
    old_covered.clear();
    new_covered.clear();
    if (before != nullptr) {
      internal_grid::AppendMetaPostings(def, id, *before, &old_keys);
      internal_grid::EncodeCoveredValues(def, *before, &old_covered);
    }
    if (after != nullptr) {
      internal_grid::AppendMetaPostings(def, id, *after, &new_keys);
      internal_grid::EncodeCoveredValues(def, *after, &new_covered);
    }
    std::sort(old_keys.begin(), old_keys.end());
    std::sort(new_keys.begin(), new_keys.end());
    gone.clear();
    std::set_difference(old_keys.begin(), old_keys.end(), new_keys.begin(), new_keys.end(),
                        std::back_inserter(gone));
    // The id goes with each posting: a posting key does not say where its id starts.
    for (const std::string& key : gone) batch->Delete(storage::Table::kIndex, key, id);
    // Unchanged postings are left alone, so an update touching no indexed attribute writes
    // nothing here; a change of any indexed value rewrites every posting's covered values.
    const std::vector<std::string>* put = &new_keys;
    if (old_covered == new_covered) {
      added.clear();
      std::set_difference(new_keys.begin(), new_keys.end(), old_keys.begin(), old_keys.end(),
                          std::back_inserter(added));
      put = &added;
    }
    for (const std::string& key : *put) batch->Put(storage::Table::kIndex, key, new_covered, id);
  }
  return Status::OK();
}

Status GridStoreImpl::WriteIndexDefinition(std::string_view name, const MetaIndexSchema* ready,
                                           const MetaIndexSchema* building, bool clear_postings) {
  storage::WriteBatch batch;
  GRIDSTORE_RETURN_IF_ERROR(ExpectIndexDefinitions(&batch));
  std::string value;
  if (ready != nullptr) {
    internal_grid::EncodeMetaIndexSchema(*ready, &value);
    batch.Put(storage::Table::kIndex, IndexDefinitionKey(name), value);
  } else {
    batch.Delete(storage::Table::kIndex, IndexDefinitionKey(name));
  }
  if (building != nullptr) {
    value.clear();
    internal_grid::EncodeMetaIndexSchema(*building, &value);
    batch.Put(storage::Table::kIndex, BuildingIndexDefinitionKey(name), value);
  } else {
    batch.Delete(storage::Table::kIndex, BuildingIndexDefinitionKey(name));
  }
  std::string version;
  PutFixed64(&version, RandomNonZero());
  batch.Put(storage::Table::kIndex, IndexDefinitionsVersionKey(), version);
  if (clear_postings) {
    const storage::KeyRange postings = IndexPostingsRange(name);
    batch.DeleteRange(storage::Table::kIndex, postings.begin, postings.end);
  }
  Status s = kv_->Write(storage::WriteOptions{.sync = true}, batch);
  index_defs_.reset();  // reloaded, with the new version, by the next write
  return s;
}

// Declares the index as being built: from then on every writer (here or in another process)
// maintains its postings, while queries do not use it yet.
Status GridStoreImpl::DeclareIndexBuilding(std::string_view name, const MetaIndexSchema& schema,
                                           const std::string& what, bool* exists) {
  return RetryOnConflict(what, [&]() -> Status {
    meta_write_mu_.AssertHeld();
    std::vector<MetaIndexInfo> ready;
    GRIDSTORE_RETURN_IF_ERROR(ReadIndexDefinitions(kv_.get(), AllIndexDefinitions(), &ready));
    for (const MetaIndexInfo& def : ready) {
      if (def.name != name) continue;
      std::string why = internal_grid::MetaIndexSchemaConflict(def.schema, schema);
      if (!why.empty()) {
        return Status::FailedPrecondition("meta index " + Quote(name) +
                                          " already exists with another schema: " + why);
      }
      *exists = true;
      return Status::OK();
    }
    GRIDSTORE_ASSIGN_OR_RETURN(const std::vector<MetaIndexInfo>* defs, IndexDefinitions());
    bool resuming = false;
    for (const MetaIndexInfo& def : *defs) {
      if (def.name != name) continue;
      if (!internal_grid::MetaIndexSchemaConflict(def.schema, schema).empty()) {
        return Status::FailedPrecondition("meta index " + Quote(name) +
                                          " is being built with another schema");
      }
      resuming = true;  // a build that died: its postings are kept up to date, so go on
    }
    // Postings left by an index of this name that was dropped half-way go first. Only if there
    // are any: a range tombstone is checked by every later read of the index until compaction.
    bool leftovers = false;
    if (!resuming) {
      GRIDSTORE_RETURN_IF_ERROR(kv_->Scan(storage::ReadOptions{}, storage::Table::kIndex,
                                          IndexPostingsRange(name),
                                          [&](std::string_view, std::string_view) {
                                            leftovers = true;
                                            return false;
                                          }));
    }
    return WriteIndexDefinition(name, nullptr, &schema, leftovers);
  });
}

// Indexes existing datasets a bounded batch at a time. Each batch expects the metas it read
// unchanged: one a writer changed meanwhile is read again (the writer maintained the index).
Status GridStoreImpl::BackfillIndex(std::string_view name, const MetaIndexSchema& schema,
                                    const std::string& what) {
  const MetaIndexInfo info{std::string(name), schema};
  std::string begin = AllMetaKeys().begin;
  std::vector<std::string> keys;
  std::string covered;
  while (true) {
    size_t datasets = 0;
    std::string last;
    GRIDSTORE_RETURN_IF_ERROR(RetryOnConflict(what, [&]() -> Status {
      meta_write_mu_.AssertHeld();
      storage::WriteBatch batch;
      datasets = 0;
      Status error;
      Attributes attributes;
      GRIDSTORE_RETURN_IF_ERROR(kv_->Scan(
          storage::ReadOptions{.fill_cache = false}, storage::Table::kMeta,
          storage::KeyRange{begin, ""}, [&](std::string_view key, std::string_view value) {
            if (datasets == kBackfillBatch) return false;
            Status s = DataSetMeta::DecodeAttributes(value, &attributes);
            if (!s.ok()) {
              error = s.WithContext("indexing the meta of dataset " + Quote(key));
              return false;
            }
            batch.Expect(storage::Table::kMeta, key, value);
            keys.clear();
            internal_grid::AppendMetaPostings(info, key, attributes, &keys);
            covered.clear();
            internal_grid::EncodeCoveredValues(info, attributes, &covered);
            for (const std::string& k : keys) batch.Put(storage::Table::kIndex, k, covered, key);
            last.assign(key);
            ++datasets;
            return true;
          }));
      GRIDSTORE_RETURN_IF_ERROR(error);
      if (datasets == 0) return Status::OK();
      // The index must still be the one being built (not dropped meanwhile).
      std::string building;
      internal_grid::EncodeMetaIndexSchema(schema, &building);
      batch.Expect(storage::Table::kIndex, BuildingIndexDefinitionKey(name), building);
      return kv_->Write(storage::WriteOptions{}, batch);
    }));
    if (datasets < kBackfillBatch) break;
    begin = last + '\0';
  }
  return Status::OK();
}

Status GridStoreImpl::CreateMetaIndex(std::string_view name, const MetaIndexSchema& schema) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  GRIDSTORE_RETURN_IF_ERROR(ValidateIndexName(name));
  GRIDSTORE_RETURN_IF_ERROR(
      internal_grid::ValidateMetaIndexSchema(schema).WithContext("meta index " + Quote(name)));
  MutexLock write_lock(&meta_write_mu_);
  const std::string what = "creating meta index " + Quote(name);
  bool exists = false;
  GRIDSTORE_RETURN_IF_ERROR(DeclareIndexBuilding(name, schema, what, &exists));
  if (exists) return Status::OK();
  GRIDSTORE_RETURN_IF_ERROR(BackfillIndex(name, schema, what));
  // Ready: queries use it from now on.
  return RetryOnConflict(what, [&] {
    meta_write_mu_.AssertHeld();
    return WriteIndexDefinition(name, &schema, nullptr, false);
  });
}

Status GridStoreImpl::DropMetaIndex(std::string_view name) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  GRIDSTORE_RETURN_IF_ERROR(ValidateIndexName(name));
  MutexLock write_lock(&meta_write_mu_);
  return RetryOnConflict("dropping meta index " + Quote(name), [&]() -> Status {
    meta_write_mu_.AssertHeld();
    GRIDSTORE_ASSIGN_OR_RETURN(const std::vector<MetaIndexInfo>* defs, IndexDefinitions());
    const bool found = std::any_of(defs->begin(), defs->end(),
                                   [&](const MetaIndexInfo& def) { return def.name == name; });
    if (!found) return Status::NotFound("meta index " + Quote(name) + " does not exist");
    return WriteIndexDefinition(name, nullptr, nullptr, /*clear_postings=*/true);
  });
}

Result<std::vector<MetaIndexInfo>> GridStoreImpl::ListMetaIndexes() {
  return ReadReadyIndexDefinitions(kv_.get());  // not the cache: never waits for an index build
}

Result<QueryResult> GridStoreImpl::QueryDataSets(std::string_view index, const Query& query,
                                                 const QueryParams& params) {
  if (index.empty()) return internal_grid::RunMetaQuery(kv_.get(), nullptr, query, params);
  GRIDSTORE_RETURN_IF_ERROR(ValidateIndexName(index));
  // Read the definition itself (not the writers' cache) so that queries never wait for a writer.
  std::string value;
  Status s = kv_->Get(storage::ReadOptions{.allow_replica = true}, storage::Table::kIndex,
                      IndexDefinitionKey(index), &value);
  if (s.IsNotFound()) return Status::NotFound("meta index " + Quote(index) + " does not exist");
  GRIDSTORE_RETURN_IF_ERROR(s);
  auto schema = internal_grid::DecodeMetaIndexSchema(value);
  if (!schema.ok()) return schema.status().WithContext("meta index " + Quote(index));
  const MetaIndexInfo info{std::string(index), std::move(schema).value()};
  return internal_grid::RunMetaQuery(kv_.get(), &info, query, params);
}

}  // namespace gridstore::grid
