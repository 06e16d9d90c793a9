// Copyright 2026 The GridStore Authors.
#include "gridstore/storage/kv_store.h"

namespace gridstore::storage {

void KvStore::MultiGetVisit(const ReadOptions& options, Table table,
                            const std::vector<std::string_view>& keys,
                            std::vector<Status>* statuses,
                            const std::function<void(size_t, std::string_view)>& fn) {
  std::vector<std::string> values;
  MultiGet(options, table, keys, &values, statuses);
  for (size_t i = 0; i < keys.size(); ++i) {
    if ((*statuses)[i].ok()) fn(i, values[i]);
  }
}

std::string_view TableName(Table table) {
  switch (table) {
    case Table::kMeta:
      return "meta";
    case Table::kData:
      return "data";
    case Table::kIndex:
      return "index";
  }
  return "unknown";
}

KeyRange KeyRange::Prefix(std::string_view prefix) {
  KeyRange range{std::string(prefix), std::string(prefix)};
  // The smallest key greater than every key with this prefix: strip trailing 0xff bytes, then
  // increment the last byte. All-0xff (or empty) prefixes have no such key: unbounded.
  while (!range.end.empty() && static_cast<uint8_t>(range.end.back()) == 0xff) range.end.pop_back();
  if (!range.end.empty()) range.end.back() = static_cast<char>(range.end.back() + 1);
  return range;
}

Status CheckExpectations(const WriteBatch& batch,
                         const std::function<Status(Table, std::string_view, std::string*)>& get) {
  std::string value;
  for (const WriteBatch::Expectation& e : batch.expectations()) {
    Status s = get(e.table, e.key, &value);
    if (!s.ok() && !s.IsNotFound()) return s;
    const bool matches = e.value ? s.ok() && value == *e.value : s.IsNotFound();
    if (!matches) {
      return Status::Aborted("a concurrent write changed a key of table '" +
                             std::string(TableName(e.table)) + "' this write depends on");
    }
  }
  return Status::OK();
}

Status ValidateDeleteRange(Table table, std::string_view begin, std::string_view end) {
  if (end.empty()) {
    return Status::InvalidArgument("DeleteRange in table '" + std::string(TableName(table)) +
                                   "' needs a non-empty end (an unbounded delete is not allowed)");
  }
  if (begin > end) {
    return Status::InvalidArgument("DeleteRange in table '" + std::string(TableName(table)) +
                                   "' has begin > end");
  }
  return Status::OK();
}

void WriteBatch::Put(Table table, std::string_view key, std::string_view value,
                     std::string_view partition) {
  bytes_ += key.size() + value.size();
  ops_.push_back(
      Op{OpType::kPut, table, std::string(key), std::string(value), std::string(partition)});
}

void WriteBatch::Delete(Table table, std::string_view key, std::string_view partition) {
  bytes_ += key.size();
  ops_.push_back(Op{OpType::kDelete, table, std::string(key), {}, std::string(partition)});
}

void WriteBatch::DeleteRange(Table table, std::string_view begin, std::string_view end) {
  bytes_ += begin.size() + end.size();
  ops_.push_back(Op{OpType::kDeleteRange, table, std::string(begin), std::string(end), {}});
}

void WriteBatch::Expect(Table table, std::string_view key, std::optional<std::string_view> value) {
  expectations_.push_back(
      Expectation{table, std::string(key),
                  value ? std::optional<std::string>(std::string(*value)) : std::nullopt});
}

void WriteBatch::Clear() {
  ops_.clear();
  expectations_.clear();
  bytes_ = 0;
}

}  // namespace gridstore::storage
