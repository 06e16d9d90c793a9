// Copyright 2026 The GridStore Authors.
//
// Data values (one object each) and their directories (per partition and shard, an omap of the
// partition's keys): listing, writing and deleting, directory entries before objects on writes
// and after them on deletes.
#include <cerrno>
#include <cstring>

#include "gridstore/storage/rados/rados_kv_store_impl.h"

namespace gridstore::storage::internal_rados {

Status RadosKvStore::PartitionsOf(const KeyRange& range, std::vector<std::string>* partitions) {
  partitions->clear();
  const std::string_view first = DataPartition(range.begin);
  if (!first.empty() && !range.end.empty() && range.end <= PartitionEnd(first)) {
    partitions->emplace_back(first);  // the common case: one dataset
    return Status::OK();
  }
  partitions->emplace_back();  // keys without a NUL can be anywhere
  std::vector<OmapCursor> cursor(1);
  cursor[0].oid = std::string(kPartitionsObject);
  GRIDSTORE_RETURN_IF_ERROR(
      ReadOmapRanges(&cursor, first.empty() ? std::string_view(range.begin) : first, range.end));
  for (auto& [p, unused] : cursor[0].entries) {
    if (!p.empty() && PartitionEnd(p) > range.begin) partitions->push_back(p);
  }
  return Status::OK();
}

Status RadosKvStore::ListDataKeys(const KeyRange& range,
                                  std::vector<std::pair<std::string, uint64_t>>* keys) {
  keys->clear();
  if (!range.end.empty() && range.begin >= range.end) return Status::OK();
  std::vector<std::string> partitions;
  GRIDSTORE_RETURN_IF_ERROR(PartitionsOf(range, &partitions));
  std::vector<OmapCursor> cursors;
  for (const std::string& p : partitions) {
    for (int shard = 0; shard < kDirectoryShards; ++shard) {
      cursors.emplace_back();
      cursors.back().oid = DirectoryObjectName(p, shard);
    }
  }
  GRIDSTORE_RETURN_IF_ERROR(ReadOmapRanges(&cursors, range.begin, range.end));
  for (OmapCursor& c : cursors) {
    for (auto& [k, v] : c.entries) keys->emplace_back(std::move(k), DecodeSize(v));
  }
  std::sort(keys->begin(), keys->end());
  return Status::OK();
}

Status RadosKvStore::ApplyDataOps(const std::vector<const WriteBatch::Op*>& ops, size_t from,
                                  size_t to) {
  size_t i = from;
  while (i < to) {
    const WriteBatch::OpType type = ops[i]->type;
    if (type == WriteBatch::OpType::kDeleteRange) {
      GRIDSTORE_RETURN_IF_ERROR(DeleteDataRange(KeyRange{ops[i]->key, ops[i]->value}));
      ++i;
      continue;
    }
    std::map<std::string_view, std::string_view> run;  // key -> value (Puts)
    std::set<std::string> deletes;
    while (i < to && ops[i]->type == type) {
      if (type == WriteBatch::OpType::kPut) {
        run[ops[i]->key] = ops[i]->value;
      } else {
        deletes.insert(ops[i]->key);
      }
      ++i;
    }
    GRIDSTORE_RETURN_IF_ERROR(type == WriteBatch::OpType::kPut ? PutDataValues(run)
                                                               : DeleteDataKeys(deletes));
  }
  return Status::OK();
}

Status RadosKvStore::PutDataValues(const std::map<std::string_view, std::string_view>& values) {
  // 1. Directory entries (and partition registrations), one omap write per object touched.
  std::map<std::string, std::map<std::string, bufferlist>> directory_updates;
  std::map<std::string, bufferlist> partitions;
  for (const auto& [key, value] : values) {
    const std::string_view partition = DataPartition(key);
    directory_updates[DirectoryObjectName(partition, DirectoryShard(key))].emplace(
        std::string(key), ToBufferList(EncodeSize(value.size())));
    if (!partition.empty()) partitions.emplace(std::string(partition), bufferlist());
  }
  std::vector<std::pair<std::string, std::map<std::string, bufferlist>>> omap_writes(
      directory_updates.begin(), directory_updates.end());
  if (!partitions.empty()) omap_writes.emplace_back(std::string(kPartitionsObject), partitions);
  GRIDSTORE_RETURN_IF_ERROR(WriteOmaps(omap_writes, {}));
  // 2. The values.
  Failures failures;
  {
    AioWindow window(options_.max_in_flight);
    for (const auto& entry : values) {
      auto op = std::make_shared<librados::ObjectWriteOperation>();
      op->write_full(ToBufferList(entry.second));
      const std::string oid = DataObjectName(entry.first);
      const size_t bytes = entry.second.size();
      window.Submit(
          [&](librados::AioCompletion* c) { return io_.aio_operate(oid, c, op.get()); },
          [&failures, this, op, bytes](int r) {
            if (r < 0) {
              failures.Add(Error(r, "writing a data value of " + std::to_string(bytes) + " bytes"));
            }
          });
    }
  }
  return failures.Summary("data writes", values.size());
}

Status RadosKvStore::DeleteDataKeys(const std::set<std::string>& keys) {
  Failures failures;
  {
    AioWindow window(options_.max_in_flight);
    for (const std::string& key : keys) {
      auto op = std::make_shared<librados::ObjectWriteOperation>();
      op->remove();
      const std::string oid = DataObjectName(key);
      window.Submit([&](librados::AioCompletion* c) { return io_.aio_operate(oid, c, op.get()); },
                    [&, op](int r) {
                      if (r < 0 && r != -ENOENT) failures.Add(Error(r, "deleting a data value"));
                    });
    }
  }
  GRIDSTORE_RETURN_IF_ERROR(failures.Summary("data deletes", keys.size()));
  std::map<std::string, std::set<std::string>> removals;
  for (const std::string& key : keys) {
    removals[DirectoryObjectName(DataPartition(key), DirectoryShard(key))].insert(key);
  }
  return WriteOmaps({}, std::vector<std::pair<std::string, std::set<std::string>>>(removals.begin(),
                                                                                   removals.end()));
}

Status RadosKvStore::DeleteDataRange(const KeyRange& range) {
  std::vector<std::pair<std::string, uint64_t>> listed;
  GRIDSTORE_RETURN_IF_ERROR(ListDataKeys(range, &listed));
  std::set<std::string> keys;
  for (auto& entry : listed) keys.insert(std::move(entry.first));
  GRIDSTORE_RETURN_IF_ERROR(DeleteDataKeys(keys));
  // Forget partitions the range covered whole, so store-wide scans stop visiting them.
  std::vector<std::string> partitions;
  GRIDSTORE_RETURN_IF_ERROR(PartitionsOf(range, &partitions));
  std::set<std::string> covered;
  for (const std::string& p : partitions) {
    if (!p.empty() && p >= range.begin && PartitionEnd(p) <= range.end) covered.insert(p);
  }
  if (covered.empty()) return Status::OK();
  return WriteOmaps({}, {{std::string(kPartitionsObject), covered}});
}

}  // namespace gridstore::storage::internal_rados
