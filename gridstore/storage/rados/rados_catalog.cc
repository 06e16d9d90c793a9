// Copyright 2026 The GridStore Authors.
//
// The catalog object: the meta and index tables as one omap, read by key or range and written
// atomically (one write operation, asserting the version read for conditional writes).
#include <cerrno>
#include <cstring>
#include <optional>

#include "gridstore/storage/rados/rados_kv_store_impl.h"

namespace gridstore::storage::rados_internal {

Status RadosKvStore::ReadCatalogRange(Table table, const KeyRange& range,
                                      std::vector<std::pair<std::string, std::string>>* out) {
  out->clear();
  const KeyRange r = CatalogRange(table, range);
  if (!range.end.empty() && range.begin >= range.end) return Status::OK();
  std::vector<OmapCursor> cursor(1);
  cursor[0].oid = std::string(kCatalogObject);
  GRIDSTORE_RETURN_IF_ERROR(ReadOmapRanges(&cursor, r.begin, r.end));
  for (auto& [k, v] : cursor[0].entries) out->emplace_back(k.substr(1), std::move(v));
  return Status::OK();
}

Status RadosKvStore::ReadCatalogKeys(const std::set<std::string>& keys,
                                     std::map<std::string, bufferlist>* found, uint64_t* version) {
  librados::ObjectReadOperation op;
  int rval = 0;
  op.omap_get_vals_by_keys(keys, found, &rval);
  AioWindow window(1);
  int r = 0;
  window.Submit(
      [&](librados::AioCompletion* c) {
        return io_.aio_operate(std::string(kCatalogObject), c, &op, nullptr);
      },
      [&](int result) {
        r = result == 0 ? rval : result;
        *version = window.version();
      });
  window.Drain();
  if (r == -ENOENT) {
    found->clear();
    *version = 0;
    return Status::OK();
  }
  if (r < 0) return Error(r, "reading the catalog");
  return Status::OK();
}

namespace {

// The batch's net effect on the catalog, its operations applied in order: the keys to set (with
// their values) and the keys to remove. `existing` holds the keys of every deleted range.
void NetEffect(const std::vector<const WriteBatch::Op*>& ops, const std::set<std::string>& existing,
               std::map<std::string, bufferlist>* sets, std::set<std::string>* removals) {
  std::map<std::string, std::optional<std::string_view>> effect;
  for (const WriteBatch::Op* op : ops) {
    switch (op->type) {
      case WriteBatch::OpType::kPut:
        effect[CatalogKey(op->table, op->key)] = op->value;
        break;
      case WriteBatch::OpType::kDelete:
        effect[CatalogKey(op->table, op->key)] = std::nullopt;
        break;
      case WriteBatch::OpType::kDeleteRange: {
        const KeyRange r = CatalogRange(op->table, KeyRange{op->key, op->value});
        for (auto it = existing.lower_bound(r.begin); it != existing.end() && *it < r.end; ++it) {
          effect[*it] = std::nullopt;
        }
        for (auto it = effect.lower_bound(r.begin); it != effect.end() && it->first < r.end; ++it) {
          it->second = std::nullopt;
        }
        break;
      }
    }
  }
  for (const auto& [key, value] : effect) {
    if (value.has_value()) {
      sets->emplace(key, ToBufferList(*value));
    } else {
      removals->insert(key);
    }
  }
}

}  // namespace

Status RadosKvStore::ApplyCatalogOps(const std::vector<const WriteBatch::Op*>& ops,
                                     const std::vector<WriteBatch::Expectation>& expectations) {
  if (ops.empty() && expectations.empty()) return Status::OK();
  const bool has_range = std::any_of(ops.begin(), ops.end(), [](const WriteBatch::Op* op) {
    return op->type == WriteBatch::OpType::kDeleteRange;
  });
  std::set<std::string> expected_keys;
  for (const WriteBatch::Expectation& e : expectations) {
    expected_keys.insert(CatalogKey(e.table, e.key));
  }
  for (int attempt = 0; attempt < kMaxConsistentReadTries; ++attempt) {
    // Existing keys of every deleted range, at one version.
    std::set<std::string> existing;
    uint64_t version = 0;
    bool catalog_exists = false, moved = false;
    bool version_known = false;
    if (!expectations.empty()) {
      std::map<std::string, bufferlist> found;
      GRIDSTORE_RETURN_IF_ERROR(ReadCatalogKeys(expected_keys, &found, &version));
      version_known = true;
      catalog_exists = version != 0;
      for (const WriteBatch::Expectation& e : expectations) {
        auto it = found.find(CatalogKey(e.table, e.key));
        std::string value;
        if (it != found.end()) CopyOut(it->second, &value);
        const bool matches = e.value ? it != found.end() && value == *e.value : it == found.end();
        if (!matches) {
          return Status::Aborted(where_ + ": a concurrent write changed a key of table '" +
                                 std::string(TableName(e.table)) + "' this write depends on");
        }
      }
    }
    if (has_range) {
      std::vector<OmapCursor> cursor(1);
      cursor[0].oid = std::string(kCatalogObject);
      for (const WriteBatch::Op* op : ops) {
        if (op->type != WriteBatch::OpType::kDeleteRange) continue;
        const KeyRange r = CatalogRange(op->table, KeyRange{op->key, op->value});
        cursor[0] = OmapCursor{.oid = std::string(kCatalogObject)};
        GRIDSTORE_RETURN_IF_ERROR(ReadOmapRanges(&cursor, r.begin, r.end));
        if (version_known && cursor[0].version != version) {
          moved = true;  // changed between two reads
          break;
        }
        version_known = true;
        if (cursor[0].version != 0) catalog_exists = true;
        version = cursor[0].version;
        for (auto& entry : cursor[0].entries) existing.insert(std::move(entry.first));
      }
    }
    if (moved) continue;
    std::map<std::string, bufferlist> sets;
    std::set<std::string> removals;
    NetEffect(ops, existing, &sets, &removals);
    librados::ObjectWriteOperation write;
    if (version_known) {
      if (catalog_exists) {
        write.assert_version(version);
      } else {
        write.create(/*exclusive=*/true);  // still absent, as read
      }
    }
    if (!removals.empty()) write.omap_rm_keys(removals);
    if (!sets.empty()) write.omap_set(sets);
    if (removals.empty() && sets.empty()) return Status::OK();
    const int r = RunWrite(std::string(kCatalogObject), &write);
    // Another writer got in (or created the catalog) since the read: read again.
    if (r == -ERANGE || r == -EOVERFLOW || r == -EEXIST) continue;
    if (r < 0) return Error(r, "writing the catalog");
    return Status::OK();
  }
  return Status::Unavailable(where_ +
                             ": the catalog kept changing under a conditional write "
                             "or range delete");
}

}  // namespace gridstore::storage::rados_internal
