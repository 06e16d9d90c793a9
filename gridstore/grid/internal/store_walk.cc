// Copyright 2026 The GridStore Authors.
#include "gridstore/grid/internal/store_walk.h"

#include <vector>

#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/util/internal/coding.h"

namespace gridstore::internal_grid {

namespace {

// Keys after `at`, nearest first: its immediate successor, then `at` cut shorter and
// incremented (each skips more: the rest of a block, a plane, a variable, a dataset...).
std::vector<std::string> SuccessorsOf(std::string_view at) {
  std::vector<std::string> out;
  std::string next(at);
  next.push_back('\0');
  out.push_back(std::move(next));
  for (size_t n = at.size(); n > 0; --n) {
    std::string cut(at.substr(0, n));
    while (!cut.empty() && static_cast<uint8_t>(cut.back()) == 0xff) cut.pop_back();
    if (cut.empty()) break;
    cut.back() = static_cast<char>(static_cast<uint8_t>(cut.back()) + 1);
    if (out.back() != cut) out.push_back(std::move(cut));
  }
  return out;
}

}  // namespace

Status ScanPastDamage(storage::KvStore* kv, storage::Table table, const storage::KeyRange& range,
                      const std::function<bool(std::string_view, std::string_view)>& fn,
                      const DamageFn& on_damage) {
  std::string begin = range.begin;
  while (true) {
    std::optional<std::string> last;
    bool stopped = false;
    Status s = kv->Scan(storage::ReadOptions{.fill_cache = false}, table,
                        storage::KeyRange{begin, range.end},
                        [&](std::string_view key, std::string_view value) {
                          last.emplace(key);
                          if (!fn(key, value)) {
                            stopped = true;
                            return false;
                          }
                          return true;
                        });
    if (s.ok() || stopped) return Status::OK();
    if (!s.IsDataLoss()) return s;
    const std::string at = last ? *last : begin;
    on_damage(at, s);
    // Resume at the nearest successor that reads; the probes' own failures are the same damage.
    bool resumed = false;
    for (std::string& candidate : SuccessorsOf(at)) {
      if (!range.end.empty() && candidate >= range.end) return Status::OK();
      Status probe = kv->Scan(storage::ReadOptions{.fill_cache = false}, table,
                              storage::KeyRange{candidate, range.end},
                              [](std::string_view, std::string_view) { return false; });
      if (probe.ok()) {
        begin = std::move(candidate);
        resumed = true;
        break;
      }
      if (!probe.IsDataLoss()) return probe;
    }
    if (!resumed) return Status::OK();  // nothing after the damage can be read
  }
}

Status ForEachDataGroup(storage::KvStore* kv, const storage::KeyRange& range,
                        const std::function<Status(const DataGroup&)>& fn,
                        const DamageFn& on_damage) {
  std::string position = range.begin;
  while (range.end.empty() || position < range.end) {
    std::optional<std::string> first;
    GRIDSTORE_RETURN_IF_ERROR(ScanPastDamage(
        kv, storage::Table::kData, storage::KeyRange{position, range.end},
        [&](std::string_view key, std::string_view) {
          first.emplace(key);
          return false;
        },
        on_damage));
    if (!first) return Status::OK();
    auto address = grid::DecodeDataKey(*first);
    if (!address.ok()) {
      on_damage(*first, address.status());
      position = *first + '\0';
      continue;
    }
    DataGroup group{std::string(address->dataset), address->incarnation,
                    grid::IncarnationDataRange(address->dataset, address->incarnation)};
    GRIDSTORE_RETURN_IF_ERROR(fn(group));
    if (group.range.end.empty()) return Status::OK();
    position = group.range.end;
    // A group of incarnation 0 ends where the id's whole range ends, beyond its incarnation
    // keys; but those sort first, so nothing is skipped.
  }
  return Status::OK();
}

Result<StagedRecord> DecodeStagedRecord(std::string_view value) {
  if (value.size() < 8) return Status::DataLoss("a replacement record is truncated");
  StagedRecord record;
  record.started_ms = static_cast<int64_t>(DecodeFixed64(value.data()));
  GRIDSTORE_ASSIGN_OR_RETURN(record.meta, grid::DataSetMeta::Decode(value.substr(8)));
  return record;
}

Result<GroupOwner> FindGroupOwner(storage::KvStore* kv, std::string_view dataset,
                                  uint64_t incarnation) {
  GroupOwner owner;
  std::string bytes;
  Status s = kv->Get(storage::ReadOptions{}, storage::Table::kMeta, grid::MetaKey(dataset), &bytes);
  if (s.ok()) {
    owner.has_meta = true;
    auto meta = grid::DataSetMeta::Decode(bytes);
    // A meta that does not decode still owns its dataset's blocks: never delete them for it.
    if (!meta.ok() || meta->key_incarnation() == incarnation) {
      owner.kind = GroupOwner::Kind::kCurrent;
      return owner;
    }
  } else if (s.IsDataLoss()) {
    owner.kind = GroupOwner::Kind::kUnknown;
    owner.damage = s;
    return owner;
  } else if (!s.IsNotFound()) {
    return s;
  }
  if (incarnation != 0) {
    s = kv->Get(storage::ReadOptions{}, storage::Table::kMeta,
                grid::StagedKey(dataset, incarnation), &bytes);
    if (s.ok()) {
      owner.kind = GroupOwner::Kind::kReplacement;
      auto record = DecodeStagedRecord(bytes);
      if (record.ok()) owner.replacement_started_ms = record->started_ms;
      return owner;
    }
    if (s.IsDataLoss()) {
      owner.kind = GroupOwner::Kind::kUnknown;
      owner.damage = s;
      return owner;
    }
    if (!s.IsNotFound()) return s;
  }
  return owner;
}

Status CountRange(storage::KvStore* kv, const storage::KeyRange& range, int64_t* keys,
                  uint64_t* bytes, const DamageFn& on_damage) {
  return ScanPastDamage(
      kv, storage::Table::kData, range,
      [&](std::string_view, std::string_view value) {
        ++*keys;
        *bytes += value.size();
        return true;
      },
      on_damage);
}

}  // namespace gridstore::internal_grid
