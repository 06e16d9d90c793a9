// Copyright 2026 The GridStore Authors.
//
// Writing the catalog shards: each part of a batch is one atomic write of its shard, asserting
// the version at which its expectations were checked (docs/format.md, "Catalog shards").
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "gridstore/storage/rados/rados_kv_store_impl.h"

namespace gridstore::storage::internal_rados {
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

bool HasRange(const CatalogPart& part) {
  return std::any_of(part.ops.begin(), part.ops.end(), [](const WriteBatch::Op* op) {
    return op->type == WriteBatch::OpType::kDeleteRange;
  });
}

uint64_t DecodeSeq(const std::map<std::string, bufferlist>& xattrs) {
  auto it = xattrs.find(kStoreWideSeqXattr);
  if (it == xattrs.end()) return 0;
  std::string s;
  bufferlist bl = it->second;
  CopyOut(bl, &s);
  return std::strtoull(s.c_str(), nullptr, 10);
}

}  // namespace

Status RadosKvStore::ReadCatalogParts(const std::vector<CatalogPart*>& parts) {
  struct Read {
    librados::ObjectReadOperation op;
    std::map<std::string, bufferlist> xattrs;
    int rval_keys = 0, rval_xattrs = 0;
  };
  Status failure;
  {
    AioWindow window(options_.max_in_flight);
    for (CatalogPart* part : parts) {
      auto read = std::make_shared<Read>();
      std::set<std::string> keys;
      for (const WriteBatch::Expectation* e : part->expectations) {
        keys.insert(CatalogKey(e->table, e->key));
      }
      part->found.clear();
      part->existing.clear();
      if (!keys.empty()) read->op.omap_get_vals_by_keys(keys, &part->found, &read->rval_keys);
      read->op.getxattrs(&read->xattrs, &read->rval_xattrs);
      const std::string oid = ShardName(part->shard);
      window.Submit(
          [&](librados::AioCompletion* c) { return io_.aio_operate(oid, c, &read->op, nullptr); },
          [&, read, part, oid](int r) {
            if (r == 0) r = read->rval_keys < 0 ? read->rval_keys : read->rval_xattrs;
            part->read = true;
            part->exists = r != -ENOENT;
            part->version = part->exists ? window.version() : 0;
            part->seq = part->exists ? DecodeSeq(read->xattrs) : 0;
            if (r == -ENOENT) {
              part->found.clear();
            } else if (r < 0 && failure.ok()) {
              failure = Error(r, "reading catalog shard '" + oid + "'");
            }
          });
    }
  }
  GRIDSTORE_RETURN_IF_ERROR(failure);
  // The keys of every deleted range, at the version just read (moved: read everything again).
  for (CatalogPart* part : parts) {
    for (const WriteBatch::Op* op : part->ops) {
      if (op->type != WriteBatch::OpType::kDeleteRange) continue;
      std::vector<OmapCursor> cursor(1);
      cursor[0].oid = ShardName(part->shard);
      const KeyRange r = CatalogRange(op->table, KeyRange{op->key, op->value});
      GRIDSTORE_RETURN_IF_ERROR(ReadOmapRanges(&cursor, r.begin, r.end));
      if (cursor[0].version != part->version) {
        part->read = false;
        break;
      }
      for (auto& entry : cursor[0].entries) part->existing.insert(std::move(entry.first));
    }
  }
  return Status::OK();
}

Status RadosKvStore::WriteCatalogParts(const std::vector<CatalogPart*>& parts, bool* retry) {
  Status failure;
  // What each committed part changed, for this process's replica and the other processes' (by
  // notify): published once every write of the round is back.
  std::vector<std::pair<int, ShardChange>> committed;
  AioWindow window(options_.max_in_flight);
  for (CatalogPart* part : parts) {
    std::map<std::string, bufferlist> sets;
    std::set<std::string> removals;
    NetEffect(part->ops, part->existing, &sets, &removals);
    const bool bump = shards_ > 1 && part->store_wide_writes;
    const bool record_shards = part->shard == 0 && ((part->read && !part->exists) || creating_);
    if (sets.empty() && removals.empty() && !bump) {
      part->applied = true;
      continue;
    }
    auto write = std::make_shared<librados::ObjectWriteOperation>();
    if (part->read) {
      if (part->exists) {
        write->assert_version(part->version);
      } else {
        write->create(/*exclusive=*/true);  // still absent, as read
      }
    }
    if (record_shards) write->setxattr(kCatalogShardsXattr, ToBufferList(std::to_string(shards_)));
    if (bump) write->setxattr(kStoreWideSeqXattr, ToBufferList(std::to_string(part->seq + 1)));
    if (!removals.empty()) write->omap_rm_keys(removals);
    if (!sets.empty()) write->omap_set(sets);
    const std::string oid = ShardName(part->shard);
    auto change = std::make_shared<ShardChange>();
    change->keys.reserve(sets.size() + removals.size());
    for (auto& [key, value] : sets) {
      change->keys.emplace_back(key, std::string());
      CopyOut(value, &*change->keys.back().second);
    }
    for (const std::string& key : removals) change->keys.emplace_back(key, std::nullopt);
    window.Submit([&](librados::AioCompletion* c) { return io_.aio_operate(oid, c, write.get()); },
                  [&, write, part, oid, record_shards, change](int r) {
                    // Another writer got in (or created the shard) since the read: read again.
                    if (r == -ERANGE || r == -EOVERFLOW || r == -EEXIST) {
                      *retry = true;
                    } else if (r < 0) {
                      if (failure.ok()) failure = Error(r, "writing catalog shard '" + oid + "'");
                    } else {
                      part->applied = true;
                      if (record_shards) creating_ = false;
                      change->version = window.version();  // the shard's version after it
                      committed.emplace_back(part->shard, std::move(*change));
                    }
                  });
  }
  window.Drain();
  PublishChanges(&committed);
  return failure;
}

Status RadosKvStore::CheckCatalogParts(const std::vector<CatalogPart*>& parts,
                                       bool some_applied) const {
  for (const CatalogPart* p : parts) {
    for (const WriteBatch::Expectation* e : p->expectations) {
      auto it = p->found.find(CatalogKey(e->table, e->key));
      std::string value;
      if (it != p->found.end()) {
        bufferlist bl = it->second;
        CopyOut(bl, &value);
      }
      const bool matches =
          e->value ? it != p->found.end() && value == *e->value : it == p->found.end();
      if (matches) continue;
      return Status::Aborted(
          where_ + ": a concurrent write changed a key of table '" +
          std::string(TableName(e->table)) + "' this write depends on" +
          (some_applied ? " (the parts of the batch in other catalog shards were written)" : ""));
    }
  }
  return Status::OK();
}

Status RadosKvStore::ApplyCatalogParts(std::vector<CatalogPart*> parts, bool fenced) {
  CatalogPart* home = nullptr;
  for (CatalogPart* p : parts) {
    if (p->shard == 0) home = p;
  }
  bool some_applied = false;
  for (int attempt = 0; attempt < kMaxConsistentReadTries; ++attempt) {
    std::vector<CatalogPart*> pending, to_read;
    for (CatalogPart* p : parts) {
      if (p->applied) continue;
      pending.push_back(p);
      const bool needs_read = !p->expectations.empty() || HasRange(*p) ||
                              (p->store_wide_writes && shards_ > 1) || fenced ||
                              (p->shard == 0 && creating_);
      p->read = false;
      if (needs_read) to_read.push_back(p);
    }
    if (pending.empty()) break;
    // The fence is the home shard's sequence, read with the parts (home is always a part then).
    if (fenced && home != nullptr && home->applied) to_read.push_back(home);
    GRIDSTORE_RETURN_IF_ERROR(ReadCatalogParts(to_read));
    bool moved = false;
    for (CatalogPart* p : to_read) moved = moved || !p->read;
    if (moved) continue;
    GRIDSTORE_RETURN_IF_ERROR(CheckCatalogParts(pending, some_applied));
    if (fenced && home != nullptr) {
      // A shard behind the home shard's store-wide sequence has not heard of its last change:
      // bring it up to date and read again. One ahead means home changed since it was read.
      uint64_t behind = 0;
      for (CatalogPart* p : pending) {
        if (p->seq < home->seq) behind = home->seq;
        if (p->seq != home->seq) moved = true;
      }
      if (behind != 0) GRIDSTORE_RETURN_IF_ERROR(PropagateStoreWideSeq(behind));
      if (moved) continue;
    }
    bool retry = false;
    GRIDSTORE_RETURN_IF_ERROR(WriteCatalogParts(pending, &retry));
    for (CatalogPart* p : pending) some_applied = some_applied || p->applied;
    if (!retry) return Status::OK();
  }
  for (CatalogPart* p : parts) {
    if (!p->applied) {
      return Status::Unavailable(where_ +
                                 ": the catalog kept changing under a conditional write "
                                 "or range delete");
    }
  }
  return Status::OK();
}

Status RadosKvStore::PropagateStoreWideSeq(uint64_t seq) {
  std::vector<CatalogPart> shards(static_cast<size_t>(shards_ - 1));
  for (int attempt = 0; attempt < kMaxConsistentReadTries; ++attempt) {
    std::vector<CatalogPart*> behind;
    for (size_t i = 0; i < shards.size(); ++i) {
      shards[i].shard = static_cast<int>(i) + 1;
      if (!shards[i].applied) behind.push_back(&shards[i]);
    }
    GRIDSTORE_RETURN_IF_ERROR(ReadCatalogParts(behind));
    std::vector<CatalogPart*> to_write;
    for (CatalogPart* p : behind) {
      if (p->seq >= seq) {
        p->applied = true;  // there already, or further (never moved back)
      } else {
        p->seq = seq - 1;  // WriteCatalogParts writes seq + 1
        p->store_wide_writes = true;
        to_write.push_back(p);
      }
    }
    if (to_write.empty()) return Status::OK();
    bool retry = false;
    GRIDSTORE_RETURN_IF_ERROR(WriteCatalogParts(to_write, &retry));
    if (!retry) return Status::OK();
  }
  return Status::Unavailable(where_ + ": catalog shards kept changing while a change of " +
                             "store-wide keys was copied to them");
}

}  // namespace gridstore::storage::internal_rados
