// Copyright 2026 The GridStore Authors.
#include "gridstore/blocks/internal/dictionary_cache.h"

#include <cstring>
#include <utility>
#include <vector>

#include "gridstore/blocks/internal/block_geometry.h"
#include "gridstore/model/internal/grid_keys.h"

namespace gridstore::internal_grid {
namespace {

std::string CacheKey(const grid::DataSetMeta& meta, std::string_view variable) {
  std::string key(reinterpret_cast<const char*>(&meta.incarnation), sizeof(meta.incarnation));
  key += grid::DictionaryKey(meta.id, meta.key_incarnation(), variable);
  return key;
}

std::string Where(const grid::DataSetMeta& meta, std::string_view variable) {
  return "dictionary of dataset '" + gridstore::EscapeForMessage(meta.id) + "', variable '" +
         gridstore::EscapeForMessage(variable) + "'";
}

}  // namespace

bool DictionaryCache::Lookup(const std::string& key,
                             std::shared_ptr<const grid::BlockDictionary>* dictionary) {
  MutexLock lock(&mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return false;
  *dictionary = it->second;
  return true;
}

void DictionaryCache::Insert(const std::string& key,
                             std::shared_ptr<const grid::BlockDictionary> dictionary) {
  MutexLock lock(&mu_);
  if (!entries_.insert_or_assign(key, std::move(dictionary)).second) return;
  order_.push_back(key);
  while (order_.size() > kMaxEntries) {
    entries_.erase(order_.front());
    order_.pop_front();
  }
}

Result<std::shared_ptr<const grid::BlockDictionary>> DictionaryCache::Load(
    const grid::DataSetMeta& meta, std::string_view variable) {
  std::string stored;
  Status s = kv_->Get(storage::ReadOptions{}, storage::Table::kData,
                      grid::DictionaryKey(meta.id, meta.key_incarnation(), variable), &stored);
  if (s.IsNotFound()) return std::shared_ptr<const grid::BlockDictionary>();
  GRIDSTORE_RETURN_IF_ERROR(s.WithContext("reading the " + Where(meta, variable)));
  auto dictionary = grid::BlockDictionary::Load(stored);
  if (!dictionary.ok()) return dictionary.status().WithContext(Where(meta, variable));
  return *std::move(dictionary);
}

Result<std::shared_ptr<const grid::BlockDictionary>> DictionaryCache::Get(
    const grid::DataSetMeta& meta, std::string_view variable) {
  const std::string key = CacheKey(meta, variable);
  std::shared_ptr<const grid::BlockDictionary> dictionary;
  // A cached null only means a writer of this process trained none; check the store anyway.
  if (Lookup(key, &dictionary) && dictionary != nullptr) return dictionary;
  GRIDSTORE_ASSIGN_OR_RETURN(dictionary, Load(meta, variable));
  if (dictionary == nullptr) {
    return Status::DataLoss("the " + Where(meta, variable) +
                            " is missing, but its blocks were compressed with it");
  }
  Insert(key, dictionary);
  return dictionary;
}

Result<std::shared_ptr<const grid::BlockDictionary>> DictionaryCache::GetOrTrain(
    const grid::DataSetMeta& meta, const grid::VariableMeta& variable, const grid::Grid2D& plane,
    bool sync) {
  const grid::BlockLayout& layout = meta.layout;
  if (layout.codec.codec == grid::Codec::kNone || layout.frame_rows <= 0 ||
      layout.frame_rows >= layout.block_x) {
    return std::shared_ptr<const grid::BlockDictionary>();
  }
  const std::string key = CacheKey(meta, variable.name);
  std::shared_ptr<const grid::BlockDictionary> dictionary;
  if (Lookup(key, &dictionary)) return dictionary;

  MutexLock train_lock(&train_mu_);
  if (Lookup(key, &dictionary)) return dictionary;  // trained while this writer waited
  GRIDSTORE_ASSIGN_OR_RETURN(dictionary, Load(meta, variable.name));
  if (dictionary == nullptr) {
    // Train on the plane's blocks, exactly as the writer will cut them.
    const BlockGeometry g(variable, layout);
    const size_t es = grid::DataTypeSize(variable.type);
    std::vector<std::string> raws;
    std::vector<grid::RawBlock> blocks;
    raws.reserve(g.num_blocks());
    for (int64_t r = 0; r < g.block_rows; ++r) {
      for (int64_t c = 0; c < g.block_cols; ++c) {
        const int64_t rows = g.rows_of(r), cols = g.cols_of(c);
        std::string& raw = raws.emplace_back(rows * cols * es, '\0');
        for (int64_t i = 0; i < rows; ++i) {
          std::memcpy(raw.data() + i * cols * es,
                      plane.bytes() + ((g.row_begin(r) + i) * g.y + g.col_begin(c)) * es,
                      cols * es);
        }
        blocks.push_back(
            grid::RawBlock{static_cast<uint32_t>(rows), static_cast<uint32_t>(cols), raw});
      }
    }
    GRIDSTORE_ASSIGN_OR_RETURN(
        std::string stored,
        grid::TrainBlockDictionary(layout.codec, variable.type,
                                   static_cast<uint32_t>(layout.frame_rows), blocks));
    if (!stored.empty()) {
      GRIDSTORE_ASSIGN_OR_RETURN(dictionary, grid::BlockDictionary::Load(stored));
      // Stored before any block compressed with it, so no block is ever unreadable.
      storage::WriteBatch batch;
      batch.Put(storage::Table::kData,
                grid::DictionaryKey(meta.id, meta.key_incarnation(), variable.name), stored);
      Status s = kv_->Write(storage::WriteOptions{}, batch);
      if (s.ok() && sync) s = kv_->Sync();
      GRIDSTORE_RETURN_IF_ERROR(s.WithContext("writing the " + Where(meta, variable.name)));
    }
  }
  Insert(key, dictionary);
  return dictionary;
}

}  // namespace gridstore::internal_grid
