// Copyright 2026 The GridStore Authors.
//
// What the layers above the store derive from a dataset's meta and want to keep between requests
// (geo/'s horizontal grids with their k-d trees: building one for a large curvilinear grid takes
// far longer than a point read). Owned by the GridStore (GridStore::derived_cache), so that it
// lives and dies with the store and is bounded by GridStoreOptions::derived_cache_bytes; entries
// are typeless to this layer, which knows nothing of what geo/ builds. LRU by bytes charged;
// entries are immutable and reference-counted (a caller keeps one evicted meanwhile).
// Thread-safe.
#ifndef GRIDSTORE_GRID_DERIVED_CACHE_H_
#define GRIDSTORE_GRID_DERIVED_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

#include "gridstore/util/result.h"

namespace gridstore::grid {

class DerivedCache {
 public:
  // What an entry derives from: one incarnation and generation of a dataset's meta, and a name
  // (a variable's, or the kind of thing derived). A meta written again has a new generation, so
  // an entry never outlives the meta it was derived from.
  struct Key {
    std::string dataset;
    uint64_t incarnation = 0;
    uint64_t generation = 0;
    std::string name;
    auto operator<=>(const Key&) const = default;
  };

  // A cache holding at most about `capacity_bytes`; 0 keeps nothing.
  explicit DerivedCache(size_t capacity_bytes);
  ~DerivedCache();
  DerivedCache(const DerivedCache&) = delete;
  DerivedCache& operator=(const DerivedCache&) = delete;

  // The entry for `key`, built by `build` (returning the value and the bytes it holds) if it is
  // not cached. An error of `build` is returned and nothing is cached. Two callers missing the
  // same key at once may both build it; the second result replaces the first.
  template <typename T>
  Result<std::shared_ptr<const T>> GetOrBuild(
      const Key& key,
      const std::function<Result<std::pair<std::shared_ptr<const T>, size_t>>()>& build) {
    if (std::shared_ptr<const void> hit = Lookup(key))
      return std::static_pointer_cast<const T>(hit);
    GRIDSTORE_ASSIGN_OR_RETURN(auto built, build());
    Insert(key, built.first, built.second);
    return built.first;
  }

  size_t capacity() const { return capacity_; }
  size_t usage() const;

 private:
  struct State;
  std::shared_ptr<const void> Lookup(const Key& key);
  // Caches `value` (holding `bytes`), evicting the least recently used beyond the budget; a value
  // larger than the whole budget is not kept.
  void Insert(const Key& key, std::shared_ptr<const void> value, size_t bytes);

  const size_t capacity_;
  const std::unique_ptr<State> state_;
};

}  // namespace gridstore::grid

#endif  // GRIDSTORE_GRID_DERIVED_CACHE_H_
