// Copyright 2026 The GridStore Authors.
//
// The catalog shards: reading the meta and index tables (ranges merged over the shards, keys
// looked up in their shard), and splitting a batch into one part per shard.
#include <cerrno>
#include <cstring>
#include <optional>

#include "gridstore/storage/rados/rados_kv_store_impl.h"

namespace gridstore::storage::internal_rados {

Status RadosKvStore::ReadCatalogRange(Table table, const KeyRange& range,
                                      std::vector<std::pair<std::string, std::string>>* out,
                                      int max_shards) {
  out->clear();
  const KeyRange r = CatalogRange(table, range);
  if (!range.end.empty() && range.begin >= range.end) return Status::OK();
  std::vector<OmapCursor> cursors;
  std::string_view partition;
  if (shards_ > 1 && CatalogRangePartition(table, range.begin, range.end, &partition)) {
    cursors.emplace_back().oid = ShardName(CatalogShardOf(partition, shards_));
  } else {
    for (int shard = 0; shard < std::min(shards_, max_shards); ++shard) {
      cursors.emplace_back().oid = ShardName(shard);
    }
  }
  GRIDSTORE_RETURN_IF_ERROR(ReadOmapRanges(&cursors, r.begin, r.end));
  size_t total = 0;
  for (const OmapCursor& c : cursors) total += c.entries.size();
  out->reserve(total);
  // Each shard's entries are sorted and no key is in two shards: merge them.
  for (OmapCursor& c : cursors) {
    const auto middle = static_cast<std::ptrdiff_t>(out->size());
    for (auto& [k, v] : c.entries) out->emplace_back(k.substr(1), std::move(v));
    std::inplace_merge(out->begin(), out->begin() + middle, out->end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
  }
  return Status::OK();
}

void RadosKvStore::MultiGetCatalog(Table table, const std::vector<std::string_view>& keys,
                                   std::vector<std::string>* values,
                                   std::vector<Status>* statuses) {
  // Keys per shard; a posting (whose dataset the key does not say) is looked for in every shard.
  std::vector<std::set<std::string>> wanted(static_cast<size_t>(shards_));
  for (std::string_view k : keys) {
    std::string_view partition;
    switch (PlaceCatalogKey(table, k, &partition)) {
      case CatalogPlacement::kStoreWide:
        wanted[0].insert(CatalogKey(table, k));
        break;
      case CatalogPlacement::kPartition:
        wanted[static_cast<size_t>(CatalogShardOf(partition, shards_))].insert(
            CatalogKey(table, k));
        break;
      case CatalogPlacement::kPosting:
        for (auto& w : wanted) w.insert(CatalogKey(table, k));
        break;
    }
  }
  struct Read {
    librados::ObjectReadOperation op;
    std::map<std::string, bufferlist> found;
    int rval = 0;
  };
  std::map<std::string, bufferlist> found;
  Status failure;
  {
    AioWindow window(options_.max_in_flight);
    for (int shard = 0; shard < shards_; ++shard) {
      if (wanted[static_cast<size_t>(shard)].empty()) continue;
      auto read = std::make_shared<Read>();
      read->op.omap_get_vals_by_keys(wanted[static_cast<size_t>(shard)], &read->found, &read->rval);
      const std::string oid = ShardName(shard);
      window.Submit(
          [&](librados::AioCompletion* c) { return io_.aio_operate(oid, c, &read->op, nullptr); },
          [&, read](int r) {
            if (r == 0) r = read->rval;
            if (r == -ENOENT) return;  // a shard nothing was written to yet
            if (r < 0) {
              if (failure.ok()) failure = Error(r, "reading the catalog");
              return;
            }
            found.merge(read->found);
          });
    }
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    if (!failure.ok()) {
      (*statuses)[i] = failure;
    } else if (auto it = found.find(CatalogKey(table, keys[i])); it != found.end()) {
      CopyOut(it->second, &(*values)[i]);
    } else {
      (*statuses)[i] = Status::NotFound("");
    }
  }
}

namespace {

// The partitions a batch names (its meta and index keys and expectations that say their dataset),
// to which its postings are routed.
std::vector<std::string_view> BatchPartitions(
    const std::vector<const WriteBatch::Op*>& ops,
    const std::vector<WriteBatch::Expectation>& expectations) {
  std::vector<std::string_view> partitions;
  std::string_view p;
  for (const WriteBatch::Op* op : ops) {
    if (op->type != WriteBatch::OpType::kDeleteRange &&
        PlaceCatalogKey(op->table, op->key, &p) == CatalogPlacement::kPartition) {
      partitions.push_back(p);
    }
  }
  for (const WriteBatch::Expectation& e : expectations) {
    if (PlaceCatalogKey(e.table, e.key, &p) == CatalogPlacement::kPartition) {
      partitions.push_back(p);
    }
  }
  std::sort(partitions.begin(), partitions.end());
  partitions.erase(std::unique(partitions.begin(), partitions.end()), partitions.end());
  return partitions;
}

// The shard of a key: -1 for a store-wide key (home shard, and a fence on the others).
int ShardOfKey(Table table, std::string_view key, std::string_view partition,
               const std::vector<std::string_view>& partitions, int shards) {
  std::string_view p;
  switch (PlaceCatalogKey(table, key, &p)) {
    case CatalogPlacement::kPartition:
      return CatalogShardOf(p, shards);
    case CatalogPlacement::kPosting:
      // A posting lives with its dataset: the one the writer names (the grid layer always does),
      // else the one of the batch its key ends with; one written alone (only generic tests do)
      // is store-wide.
      if (!partition.empty()) return CatalogShardOf(partition, shards);
      return PostingOwner(key, partitions, &p) ? CatalogShardOf(p, shards) : -1;
    case CatalogPlacement::kStoreWide:
      break;
  }
  return -1;
}

}  // namespace

Status RadosKvStore::ApplyCatalogOps(const std::vector<const WriteBatch::Op*>& ops,
                                     const std::vector<WriteBatch::Expectation>& expectations) {
  if (ops.empty() && expectations.empty()) return Status::OK();
  const std::vector<std::string_view> partitions = BatchPartitions(ops, expectations);
  std::map<int, CatalogPart> parts;
  auto part = [&](int shard) -> CatalogPart& {
    CatalogPart& p = parts[shard];
    p.shard = shard;
    return p;
  };
  bool store_wide_expected = false;
  for (const WriteBatch::Op* op : ops) {
    std::string_view p;
    if (op->type == WriteBatch::OpType::kDeleteRange) {
      if (shards_ > 1 && CatalogRangePartition(op->table, op->key, op->value, &p)) {
        part(CatalogShardOf(p, shards_)).ops.push_back(op);
      } else {
        for (int shard = 0; shard < shards_; ++shard) part(shard).ops.push_back(op);
        part(0).store_wide_writes = true;
      }
      continue;
    }
    const int shard = ShardOfKey(op->table, op->key, op->partition, partitions, shards_);
    part(std::max(shard, 0)).ops.push_back(op);
    if (shard < 0) part(0).store_wide_writes = true;
  }
  for (const WriteBatch::Expectation& e : expectations) {
    const int shard = ShardOfKey(e.table, e.key, {}, partitions, shards_);
    part(std::max(shard, 0)).expectations.push_back(&e);
    if (shard < 0) store_wide_expected = true;
  }
  if (shards_ == 1) return ApplyCatalogParts({&parts[0]}, /*fenced=*/false);
  std::vector<CatalogPart*> rest;
  for (auto& [shard, p] : parts) {
    if (shard != 0 || !p.store_wide_writes) rest.push_back(&p);
  }
  if (parts.count(0) && parts[0].store_wide_writes) {
    // The other shards' expectations are checked first, so that a batch refused there has
    // changed nothing (a writer getting in between the check and the write is a partial batch).
    std::vector<CatalogPart*> expecting;
    for (CatalogPart* p : rest) {
      if (!p->expectations.empty()) expecting.push_back(p);
    }
    if (!expecting.empty()) {
      GRIDSTORE_RETURN_IF_ERROR(ReadCatalogParts(expecting));
      GRIDSTORE_RETURN_IF_ERROR(CheckCatalogParts(expecting, /*some_applied=*/false));
    }
    // Store-wide keys change at home first, with the batch's store-wide expectations; their new
    // sequence reaches every shard before the rest of the batch is written (and before Write
    // returns), so no shard accepts a write checked against the old store-wide keys after that.
    GRIDSTORE_RETURN_IF_ERROR(ApplyCatalogParts({&parts[0]}, /*fenced=*/false));
    GRIDSTORE_RETURN_IF_ERROR(PropagateStoreWideSeq(parts[0].seq + 1));
    return ApplyCatalogParts(rest, /*fenced=*/false);
  }
  return ApplyCatalogParts(rest, store_wide_expected);
}

}  // namespace gridstore::storage::internal_rados
