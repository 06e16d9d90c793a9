// Copyright 2026 The GridStore Authors.
//
// Walks over a store that may be damaged, and over the (dataset, incarnation) groups of its data
// table. Used by verification and compaction, which must go on past unreadable keys instead of
// stopping at the first one. Thread-compatible.
#ifndef GRIDSTORE_GRID_INTERNAL_STORE_WALK_H_
#define GRIDSTORE_GRID_INTERNAL_STORE_WALK_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "gridstore/model/grid_meta.h"
#include "gridstore/storage/kv_store.h"
#include "gridstore/util/result.h"

namespace gridstore::internal_grid {

// Called with the last key read before the damage (or the position the read began at) and the
// error, once per damaged stretch.
using DamageFn = std::function<void(std::string_view near_key, const Status& error)>;

// As KvStore::Scan, but a DataLoss read error is reported to `on_damage` and the scan resumes
// past the damage: first at the key after the last one read, then, while reads there still
// fail, at ever coarser successors of it (so a damaged file is skipped, and the keys skipped with
// it are part of the reported stretch). Other errors end the scan and are returned.
Status ScanPastDamage(storage::KvStore* kv, storage::Table table, const storage::KeyRange& range,
                      const std::function<bool(std::string_view, std::string_view)>& fn,
                      const DamageFn& on_damage);

// A run of data keys of one incarnation of one dataset.
struct DataGroup {
  std::string dataset;
  uint64_t incarnation = 0;  // 0: keys written before incarnations were part of them
  storage::KeyRange range;   // grid::IncarnationDataRange(dataset, incarnation)
};

// Calls fn for every (dataset, incarnation) with a data key in `range`, in key order, with one
// seek per group (the blocks themselves are not read). Stops at fn's first error. A key that
// does not parse, or damage, goes to on_damage and is skipped.
Status ForEachDataGroup(storage::KvStore* kv, const storage::KeyRange& range,
                        const std::function<Status(const DataGroup&)>& fn,
                        const DamageFn& on_damage);

// What owns a group of blocks, read fresh from the meta table (not a cache), so that a decision
// to delete a group cannot rest on a stale view.
struct GroupOwner {
  enum class Kind {
    kCurrent,      // the dataset's meta names this incarnation
    kReplacement,  // a replacement record names it
    kNone,         // nothing: garbage
    kUnknown,      // the meta table cannot be read there (damage): never garbage
  };
  Kind kind = Kind::kNone;
  bool has_meta = false;               // the dataset has a meta (of another incarnation, if kNone)
  int64_t replacement_started_ms = 0;  // kReplacement: when it began
  Status damage;                       // kUnknown: the read error
};
Result<GroupOwner> FindGroupOwner(storage::KvStore* kv, std::string_view dataset,
                                  uint64_t incarnation);

// A replacement record (meta table, grid::StagedKey) decoded.
struct StagedRecord {
  int64_t started_ms = 0;
  grid::DataSetMeta meta;
};
Result<StagedRecord> DecodeStagedRecord(std::string_view value);

// Counts the keys of `range` and their value bytes (reading past damage).
Status CountRange(storage::KvStore* kv, const storage::KeyRange& range, int64_t* keys,
                  uint64_t* bytes, const DamageFn& on_damage);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_GRID_INTERNAL_STORE_WALK_H_
