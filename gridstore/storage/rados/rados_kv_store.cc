// Copyright 2026 The GridStore Authors.
//
// The RADOS backend. Three kinds of objects (object_names.h, docs/format.md "RADOS"):
//   - the catalog: omap objects (shards, by a hash of the dataset id) holding the meta and index
//     tables, so a dataset's meta + index operations are one RADOS write operation on its shard,
//     atomic on the OSD;
//   - data values: one object each, named from the key, so Get and MultiGet need no lookup and a
//     fetch of N blocks is N reads in flight at once (about one round trip);
//   - directories: per partition (dataset) and shard, an omap of its data keys, which is what makes
//     a dataset's keys listable and deletable as a range.
// A directory entry is written before its value object and removed after it, so every value
// object is listed (a crash leaves at most an entry without an object, which scans skip).

#include <cerrno>
#include <cstring>

#include "gridstore/storage/rados/rados_kv_store_impl.h"

namespace gridstore::storage::internal_rados {

Status RadosKvStore::Get(const ReadOptions& options, Table table, std::string_view key,
                         std::string* value) {
  std::vector<std::string_view> keys = {key};
  std::vector<std::string> values;
  std::vector<Status> statuses;
  MultiGet(options, table, keys, &values, &statuses);
  if (statuses[0].ok()) *value = std::move(values[0]);
  return statuses[0];
}

void RadosKvStore::MultiGet(const ReadOptions& options, Table table,
                            const std::vector<std::string_view>& keys,
                            std::vector<std::string>* values, std::vector<Status>* statuses) {
  values->assign(keys.size(), std::string());
  statuses->assign(keys.size(), Status::OK());
  if (keys.empty()) return;
  if (table == Table::kData) {
    ReadDataValues(keys, [&](size_t i, int r, bufferlist& bl) {
      if (r == 0) {
        CopyOut(bl, &(*values)[i]);
      } else {
        (*statuses)[i] = r == -ENOENT ? Status::NotFound("") : Error(r, "reading a data value");
      }
      return true;
    });
    return;
  }
  if (UseReplica(options, table)) return MultiGetFromReplica(table, keys, values, statuses);
  MultiGetCatalog(table, keys, values, statuses);
}

Status RadosKvStore::Put(const WriteOptions& options, Table table, std::string_view key,
                         std::string_view value) {
  WriteBatch batch;
  batch.Put(table, key, value);
  return Write(options, batch);
}

Status RadosKvStore::Delete(const WriteOptions& options, Table table, std::string_view key) {
  WriteBatch batch;
  batch.Delete(table, key);
  return Write(options, batch);
}

Status RadosKvStore::DeleteRange(const WriteOptions& options, Table table, const KeyRange& range) {
  GRIDSTORE_RETURN_IF_ERROR(ValidateDeleteRange(table, range.begin, range.end));
  WriteBatch batch;
  batch.DeleteRange(table, range.begin, range.end);
  return Write(options, batch);
}

Status RadosKvStore::Write(const WriteOptions&, const WriteBatch& batch) {
  if (options_.read_only) {
    return Status::FailedPrecondition(where_ + " is open read-only");
  }
  std::vector<const WriteBatch::Op*> catalog_ops, data_ops;
  size_t data_before_catalog = 0;
  for (const WriteBatch::Op& op : batch.ops()) {
    if (op.type == WriteBatch::OpType::kDeleteRange) {
      GRIDSTORE_RETURN_IF_ERROR(ValidateDeleteRange(op.table, op.key, op.value));
    }
    if (op.table == Table::kData) {
      GRIDSTORE_RETURN_IF_ERROR(CheckDataKey(op));
      data_ops.push_back(&op);
      if (op.type == WriteBatch::OpType::kPut) data_before_catalog = data_ops.size();
    } else {
      catalog_ops.push_back(&op);
    }
  }
  GRIDSTORE_RETURN_IF_ERROR(ApplyDataOps(data_ops, 0, data_before_catalog));
  GRIDSTORE_RETURN_IF_ERROR(ApplyCatalogOps(catalog_ops, batch.expectations()));
  return ApplyDataOps(data_ops, data_before_catalog, data_ops.size());
}

Status RadosKvStore::Scan(const ReadOptions& options, Table table, const KeyRange& range,
                          const std::function<bool(std::string_view, std::string_view)>& fn) {
  return ScanImpl(options, table, range, /*reverse=*/false, fn);
}

Status RadosKvStore::ReverseScan(
    const ReadOptions& options, Table table, const KeyRange& range,
    const std::function<bool(std::string_view, std::string_view)>& fn) {
  return ScanImpl(options, table, range, /*reverse=*/true, fn);
}

Result<uint64_t> RadosKvStore::ApproximateSize(Table table, const KeyRange& range) {
  uint64_t total = 0;
  if (table == Table::kData) {
    std::vector<std::pair<std::string, uint64_t>> keys;
    GRIDSTORE_RETURN_IF_ERROR(ListDataKeys(range, &keys));
    for (const auto& [key, size] : keys) total += size;
    return total;
  }
  std::string_view partition;
  const bool one_partition = CatalogRangePartition(table, range.begin, range.end, &partition);
  if (replica_ != nullptr) {
    const KeyRange r = CatalogRange(table, range);
    return replica_->RangeBytes(one_partition ? CatalogShardOf(partition, shards_) : -1, r.begin,
                                r.end);
  }
  std::vector<std::pair<std::string, std::string>> entries;
  GRIDSTORE_RETURN_IF_ERROR(ReadCatalogRange(table, range, &entries, kCatalogSizeSample));
  for (const auto& [key, value] : entries) total += key.size() + value.size();
  // Datasets spread evenly over the shards (a hash of their ids): a range over all of them is
  // estimated from the first few.
  if (shards_ > kCatalogSizeSample && !one_partition) {
    total = total * static_cast<uint64_t>(shards_) / kCatalogSizeSample;
  }
  return total;
}

Status RadosKvStore::Error(int r, std::string_view what) const {
  const std::string msg = where_ + ": " + std::string(what) + ": " + std::strerror(-r);
  switch (-r) {
    case ENOENT:
      return Status::NotFound(msg);
    case ETIMEDOUT:
      return Status::Unavailable(msg + " (no answer within the RADOS op timeout: is the " +
                                 "cluster up, and not full?)");
    case ENOSPC:
    case EDQUOT:
      return Status::Unavailable(msg + " (the cluster or the pool is full)");
    case EPERM:
    case EACCES:
      return Status::FailedPrecondition(msg + " (check client." + options_.client_id +
                                        "'s key and caps)");
    case E2BIG:
    case EFBIG:
    case ENAMETOOLONG:
      return Status::InvalidArgument(msg + " (beyond the cluster's object limits)");
    default:
      return Status::Unavailable(msg);
  }
}

Status RadosKvStore::CheckDataKey(const WriteBatch::Op& op) const {
  const size_t name_bytes = 2 + op.key.size() * 3;  // worst case of DataObjectName
  if (op.type != WriteBatch::OpType::kDeleteRange && name_bytes > kMaxObjectNameBytes &&
      DataObjectName(op.key).size() > kMaxObjectNameBytes) {
    return Status::InvalidArgument(where_ + ": a data key of " + std::to_string(op.key.size()) +
                                   " bytes makes an object name longer than " +
                                   std::to_string(kMaxObjectNameBytes) + " bytes");
  }
  return Status::OK();
}

Status RadosKvStore::ScanImpl(const ReadOptions& options, Table table, const KeyRange& range,
                              bool reverse,
                              const std::function<bool(std::string_view, std::string_view)>& fn) {
  if (UseReplica(options, table)) {
    if (!range.end.empty() && range.begin >= range.end) return Status::OK();
    const KeyRange r = CatalogRange(table, range);
    std::string_view partition;
    const int shard =
        shards_ > 1 && CatalogRangePartition(table, range.begin, range.end, &partition)
            ? CatalogShardOf(partition, shards_)
            : -1;
    replica_->Scan(shard, r.begin, r.end, reverse,
                   [&](std::string_view key, std::string_view value) {
                     return fn(key.substr(1), value);  // the table's tag off
                   });
    return Status::OK();
  }
  if (table != Table::kData) {
    return reverse ? ReverseScanCatalog(table, range, fn) : ScanCatalog(table, range, fn);
  }
  std::vector<std::pair<std::string, uint64_t>> listed;
  GRIDSTORE_RETURN_IF_ERROR(ListDataKeys(range, &listed));
  if (reverse) std::reverse(listed.begin(), listed.end());
  std::vector<std::string_view> keys;
  keys.reserve(listed.size());
  for (const auto& entry : listed) keys.push_back(entry.first);
  Status failure;
  std::string value;
  ReadDataValues(
      keys,
      [&](size_t i, int r, bufferlist& bl) {
        if (r == -ENOENT) return true;  // deleted since listed (or a crashed write's entry)
        if (r < 0) {
          failure = Error(r, "reading a data value while scanning");
          return false;
        }
        CopyOut(bl, &value);
        return fn(keys[i], value);
      },
      /*ramp_up=*/true);
  return failure;
}

}  // namespace gridstore::storage::internal_rados
