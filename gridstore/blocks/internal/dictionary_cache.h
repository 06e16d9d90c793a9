// Copyright 2026 The GridStore Authors.
//
// The compression dictionaries of variables (BlockDictionary), loaded from or trained into the
// data table once per process and shared by every writer and fetcher of a store. A variable's
// dictionary is trained from the first plane written to it and never changes while the dataset
// lives; it is stored before any block that uses it. Entries are keyed by the dataset's
// incarnation, so a re-created dataset never sees its predecessor's dictionaries. Thread-safe.
#ifndef GRIDSTORE_BLOCKS_INTERNAL_DICTIONARY_CACHE_H_
#define GRIDSTORE_BLOCKS_INTERNAL_DICTIONARY_CACHE_H_

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/model/grid.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/storage/kv_store.h"
#include "gridstore/util/internal/mutex.h"

namespace gridstore::internal_grid {

class DictionaryCache {
 public:
  explicit DictionaryCache(storage::KvStore* kv) : kv_(kv) {}

  // The dictionary of `variable`, for reading blocks that need it. DataLoss if it is missing or
  // damaged (blocks flagged as needing one exist, so it was written).
  Result<std::shared_ptr<const grid::BlockDictionary>> Get(const grid::DataSetMeta& meta,
                                                           std::string_view variable);

  // The dictionary to compress `plane` (a plane of `variable`) with: the stored one, or, if none
  // is stored yet, one trained from `plane` and stored now (synced if `sync`). Null when the
  // layout or the plane does not call for one (unframed, codec none, a small plane). Training
  // holds a lock, so concurrent writers of one variable train once.
  Result<std::shared_ptr<const grid::BlockDictionary>> GetOrTrain(
      const grid::DataSetMeta& meta, const grid::VariableMeta& variable, const grid::Grid2D& plane,
      bool sync);

 private:
  // Dictionaries kept at most (each holds about 100 KB plus zstd's tables); older ones are
  // dropped first and reloaded when needed again.
  static constexpr size_t kMaxEntries = 256;

  // The cached entry for `key`: false if there is none.
  bool Lookup(const std::string& key, std::shared_ptr<const grid::BlockDictionary>* dictionary)
      EXCLUDES(mu_);
  void Insert(const std::string& key, std::shared_ptr<const grid::BlockDictionary> dictionary)
      EXCLUDES(mu_);
  // The stored dictionary of `variable`; null if none is stored.
  Result<std::shared_ptr<const grid::BlockDictionary>> Load(const grid::DataSetMeta& meta,
                                                            std::string_view variable);

  storage::KvStore* const kv_;
  Mutex train_mu_;  // held while looking up, training and storing for a writer
  Mutex mu_;
  // Null values: the writer found nothing to train (never served to readers as "missing").
  std::map<std::string, std::shared_ptr<const grid::BlockDictionary>> entries_ GUARDED_BY(mu_);
  std::deque<std::string> order_ GUARDED_BY(mu_);  // insertion order, for eviction
};

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_BLOCKS_INTERNAL_DICTIONARY_CACHE_H_
