// Copyright 2026 The GridStore Authors.
//
// GridStoreImpl: replacing a dataset while readers keep reading the old one (import --overwrite).
#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "gridstore/blocks/internal/block_cache.h"
#include "gridstore/blocks/internal/grid_data_writer_impl.h"
#include "gridstore/blocks/internal/series_fence.h"
#include "gridstore/blocks/internal/store_context.h"
#include "gridstore/catalog/internal/meta_index.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/grid/internal/store_walk.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/util/internal/coding.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::grid {
namespace {

// A staged replacement's record: when it began, then its meta.
std::string EncodeStagedRecord(const DataSetMeta& staged) {
  std::string s;
  PutFixed64(&s, static_cast<uint64_t>(NowMillis()));
  staged.EncodeTo(&s);
  return s;
}

}  // namespace

bool GridStoreImpl::ReplacementActive(std::string_view id, uint64_t incarnation) {
  MutexLock lock(&replacements_mu_);
  return replacements_.count({std::string(id), incarnation}) > 0;
}

bool GridStoreImpl::ReplacementAbandoned(std::string_view id, uint64_t incarnation,
                                         int64_t started_ms, std::chrono::seconds min_age) {
  if (ReplacementActive(id, incarnation)) return false;
  if (kv_->single_writer()) return true;
  return NowMillis() - started_ms >
         std::chrono::duration_cast<std::chrono::milliseconds>(min_age).count();
}

Result<DataSetMeta> GridStoreImpl::BeginReplacement(const DataSetMeta& meta) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  GRIDSTORE_RETURN_IF_ERROR(meta.Validate());
  DataSetMeta staged = meta;
  staged.incarnation = RandomNonZero();
  staged.incarnation_in_keys = true;
  staged.generation = 0;
  staged.series.reset();  // planes only; a series layout is added after the commit
  // Replacements of this id that a dead process left go first.
  GRIDSTORE_ASSIGN_OR_RETURN(
      auto dead,
      AbandonedReplacements(StagedKeysOf(meta.id), CompactOptions{}.shared_store_min_age));
  for (const auto& [id, incarnation] : dead) {
    GRIDSTORE_RETURN_IF_ERROR(RemoveReplacement(id, incarnation, /*reclaim=*/true));
  }
  {
    MutexLock lock(&replacements_mu_);
    replacements_.emplace(meta.id, staged.incarnation);
  }
  Status s = kv_->Put(storage::WriteOptions{.sync = true}, storage::Table::kMeta,
                      StagedKey(meta.id, staged.incarnation), EncodeStagedRecord(staged));
  if (!s.ok()) {
    MutexLock lock(&replacements_mu_);
    replacements_.erase({meta.id, staged.incarnation});
    return s.WithContext("starting a replacement of dataset " + Quote(meta.id));
  }
  return staged;
}

Result<std::unique_ptr<GridDataWriter>> GridStoreImpl::GetReplacementWriter(
    const DataSetMeta& staged, const WriteGridOptions& options) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  if (!ReplacementActive(staged.id, staged.incarnation)) {
    return Status::FailedPrecondition("no replacement of dataset " + Quote(staged.id) +
                                      " with that incarnation is in progress in this store");
  }
  auto meta = std::make_shared<const DataSetMeta>(staged);
  return std::unique_ptr<GridDataWriter>(new GridDataWriterImpl(
      context_.get(), meta, options, series_fence_->Starts(staged.id, staged.incarnation),
      [this](const DataSetMeta& done) -> Status {
        GRIDSTORE_RETURN_IF_ERROR(CommitReplacement(done));
        return Flush();
      }));
}

Status GridStoreImpl::CommitReplacement(const DataSetMeta& meta) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  GRIDSTORE_RETURN_IF_ERROR(meta.Validate());
  const std::string what = "committing the replacement of dataset " + Quote(meta.id);
  if (!ReplacementActive(meta.id, meta.incarnation)) {
    return Status::FailedPrecondition(what + ": it is not in progress in this store");
  }
  std::optional<storage::KeyRange> replaced;
  {
    MutexLock write_lock(&meta_write_mu_);
    GRIDSTORE_RETURN_IF_ERROR(RetryOnConflict(what, [&]() -> Status {
      meta_write_mu_.AssertHeld();
      const std::string staged_key = StagedKey(meta.id, meta.incarnation);
      std::string record;
      Status s = kv_->Get(storage::ReadOptions{}, storage::Table::kMeta, staged_key, &record);
      if (s.IsNotFound()) {
        return Status::FailedPrecondition(
            what + ": the replacement was removed meanwhile (was the dataset deleted?)");
      }
      GRIDSTORE_RETURN_IF_ERROR(s.WithContext(what));
      if (record.size() < 8) return Status::DataLoss(what + ": its record is truncated");
      auto staged = DataSetMeta::Decode(std::string_view(record).substr(8));
      if (!staged.ok()) return staged.status().WithContext(what + ": its record");
      if (!(staged->layout == meta.layout) || staged->variables != meta.variables) {
        return Status::InvalidArgument(what +
                                       ": its variables or layout differ from those it "
                                       "was begun with");
      }
      std::string bytes;
      s = kv_->Get(storage::ReadOptions{}, storage::Table::kMeta, MetaKey(meta.id), &bytes);
      if (!s.ok() && !s.IsNotFound()) return s.WithContext(what);
      std::optional<DataSetMeta> prev;
      if (s.ok()) {
        auto decoded = DataSetMeta::Decode(bytes);
        if (!decoded.ok()) {
          return decoded.status().WithContext("stored meta of dataset " + Quote(meta.id));
        }
        prev = std::move(decoded).value();
      }
      DataSetMeta stored = meta;
      stored.series.reset();  // a replacement has planes only: add a series layout after it
      stored.incarnation_in_keys = true;
      stored.generation = prev ? prev->generation + 1 : 1;
      storage::WriteBatch batch;
      ExpectUnchanged(meta.id, s.ok() ? std::optional<std::string>(bytes) : std::nullopt, &batch);
      batch.Expect(storage::Table::kMeta, staged_key, record);
      batch.Put(storage::Table::kMeta, MetaKey(meta.id), stored.Encode());
      batch.Put(storage::Table::kMeta, MetaStampKey(meta.id),
                EncodeMetaStamp(stored.incarnation, stored.generation));
      batch.Delete(storage::Table::kMeta, staged_key);
      GRIDSTORE_RETURN_IF_ERROR(AddPostingChanges(meta.id, prev ? &prev->attributes : nullptr,
                                                  &stored.attributes, &batch));
      GRIDSTORE_RETURN_IF_ERROR(ExpectIndexDefinitions(&batch));
      replaced.reset();
      if (prev) {
        // After the meta switches (KvStore::Write orders data deletes after the meta).
        replaced = IncarnationDataRange(meta.id, prev->key_incarnation());
        batch.DeleteRange(storage::Table::kData, replaced->begin, replaced->end);
      }
      Status written = kv_->Write(storage::WriteOptions{.sync = true}, batch);
      EraseCachedMeta(meta.id);
      return written.WithContext(what);
    }));
  }
  {
    MutexLock lock(&replacements_mu_);
    replacements_.erase({meta.id, meta.incarnation});
  }
  if (replaced) return ReclaimDataRange(*replaced, what);
  return Status::OK();
}

Status GridStoreImpl::AbandonReplacement(const DataSetMeta& staged) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  Status s = RemoveReplacement(staged.id, staged.incarnation, /*reclaim=*/true);
  MutexLock lock(&replacements_mu_);
  replacements_.erase({staged.id, staged.incarnation});
  return s;
}

Result<std::vector<std::pair<std::string, uint64_t>>> GridStoreImpl::AbandonedReplacements(
    const storage::KeyRange& records, std::chrono::seconds min_age) {
  std::vector<std::pair<std::string, uint64_t>> dead;
  // Damage is for Verify to report; what cannot be read is never declared dead.
  GRIDSTORE_RETURN_IF_ERROR(internal_grid::ScanPastDamage(
      kv_.get(), storage::Table::kMeta, records,
      [&](std::string_view key, std::string_view value) {
        std::string_view id;
        uint64_t incarnation = 0;
        auto record = internal_grid::DecodeStagedRecord(value);
        if (DecodeStagedKey(key, &id, &incarnation) &&
            ReplacementAbandoned(id, incarnation, record.ok() ? record->started_ms : 0, min_age)) {
          dead.emplace_back(std::string(id), incarnation);
        }
        return true;
      },
      [](std::string_view, const Status&) {}));
  return dead;
}

Status GridStoreImpl::RemoveReplacement(std::string_view id, uint64_t incarnation, bool reclaim,
                                        int64_t* blocks) {
  const std::string what = "removing the replacement of dataset " + Quote(id);
  const storage::KeyRange range = IncarnationDataRange(id, incarnation);
  if (blocks != nullptr) {
    uint64_t bytes = 0;
    GRIDSTORE_RETURN_IF_ERROR(internal_grid::CountRange(kv_.get(), range, blocks, &bytes,
                                                        [](std::string_view, const Status&) {}));
  }
  storage::WriteBatch batch;
  batch.Delete(storage::Table::kMeta, StagedKey(id, incarnation));
  batch.DeleteRange(storage::Table::kData, range.begin, range.end);
  GRIDSTORE_RETURN_IF_ERROR(kv_->Write(storage::WriteOptions{}, batch).WithContext(what));
  if (reclaim) GRIDSTORE_RETURN_IF_ERROR(ReclaimDataRange(range, what));
  return Status::OK();
}

// ---- Meta indexes ----

}  // namespace gridstore::grid
