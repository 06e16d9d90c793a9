// Copyright 2026 The GridStore Authors.
//
// GridStoreImpl::Compact: removes what interrupted writes left, then reclaims the space of every
// delete. Whether a group of blocks is garbage is decided from a fresh read of the meta table
// just before it is deleted: a dataset's meta is written before its first block and a
// replacement's record before its first block, so a group that neither names is garbage even
// while other processes write.
#include <chrono>

#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/grid/internal/store_walk.h"
#include "gridstore/model/internal/grid_keys.h"

namespace gridstore::grid {

Result<CompactReport> GridStoreImpl::Compact(const CompactOptions& options) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  CompactReport report;
  auto stored_bytes = [&]() -> Result<uint64_t> {
    uint64_t total = 0;
    for (int t = 0; t < storage::kNumTables; ++t) {
      GRIDSTORE_ASSIGN_OR_RETURN(uint64_t bytes,
                                 kv_->ApproximateSize(static_cast<storage::Table>(t), {}));
      total += bytes;
    }
    return total;
  };
  GRIDSTORE_ASSIGN_OR_RETURN(report.bytes_before, stored_bytes());
  // Damage is for `verify` to report; compaction removes only what it can read and prove dead.
  const internal_grid::DamageFn ignore_damage = [](std::string_view, const Status&) {};

  // Abandoned replacements: their records and blocks (reclaimed by the compaction below).
  GRIDSTORE_ASSIGN_OR_RETURN(auto dead,
                             AbandonedReplacements(AllStagedKeys(), options.shared_store_min_age));
  for (const auto& [dataset, incarnation] : dead) {
    int64_t blocks = 0;
    GRIDSTORE_RETURN_IF_ERROR(RemoveReplacement(dataset, incarnation, /*reclaim=*/false, &blocks));
    ++report.replacements_removed;
    report.orphan_blocks += blocks;
  }

  // Groups of blocks nobody owns.
  GRIDSTORE_RETURN_IF_ERROR(internal_grid::ForEachDataGroup(
      kv_.get(), storage::KeyRange{},
      [&](const internal_grid::DataGroup& group) -> Status {
        GRIDSTORE_ASSIGN_OR_RETURN(
            internal_grid::GroupOwner owner,
            internal_grid::FindGroupOwner(kv_.get(), group.dataset, group.incarnation));
        if (owner.kind != internal_grid::GroupOwner::Kind::kNone) return Status::OK();
        int64_t blocks = 0;
        uint64_t bytes = 0;
        GRIDSTORE_RETURN_IF_ERROR(
            internal_grid::CountRange(kv_.get(), group.range, &blocks, &bytes, ignore_damage));
        GRIDSTORE_RETURN_IF_ERROR(
            kv_->DeleteRange(storage::WriteOptions{}, storage::Table::kData, group.range));
        ++report.orphan_incarnations;
        report.orphan_blocks += blocks;
        return Status::OK();
      },
      ignore_damage));

  // Reclaim: every table, whole.
  for (int t = 0; t < storage::kNumTables; ++t) {
    GRIDSTORE_RETURN_IF_ERROR(kv_->CompactRange(static_cast<storage::Table>(t), {}));
  }
  GRIDSTORE_RETURN_IF_ERROR(kv_->Flush());
  GRIDSTORE_ASSIGN_OR_RETURN(report.bytes_after, stored_bytes());
  return report;
}

}  // namespace gridstore::grid
