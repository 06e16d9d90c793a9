// Copyright 2026 The GridStore Authors.
#include "gridstore/grid/derived_cache.h"

#include <list>
#include <map>
#include <utility>

#include "gridstore/util/internal/mutex.h"
#include "gridstore/util/internal/thread_annotations.h"

namespace gridstore::grid {

struct DerivedCache::State {
  struct Entry {
    Key key;
    std::shared_ptr<const void> value;
    size_t bytes;
  };
  mutable Mutex mu;
  std::list<Entry> lru GUARDED_BY(mu);  // front = most recently used
  std::map<Key, std::list<Entry>::iterator> index GUARDED_BY(mu);
  size_t usage GUARDED_BY(mu) = 0;
};

DerivedCache::DerivedCache(size_t capacity_bytes)
    : capacity_(capacity_bytes), state_(std::make_unique<State>()) {}

DerivedCache::~DerivedCache() = default;

size_t DerivedCache::usage() const {
  MutexLock lock(&state_->mu);
  return state_->usage;
}

std::shared_ptr<const void> DerivedCache::Lookup(const Key& key) {
  State& s = *state_;
  MutexLock lock(&s.mu);
  auto it = s.index.find(key);
  if (it == s.index.end()) return nullptr;
  s.lru.splice(s.lru.begin(), s.lru, it->second);
  return it->second->value;
}

void DerivedCache::Insert(const Key& key, std::shared_ptr<const void> value, size_t bytes) {
  if (bytes > capacity_) return;
  State& s = *state_;
  MutexLock lock(&s.mu);
  if (auto it = s.index.find(key); it != s.index.end()) {
    s.usage -= it->second->bytes;
    s.lru.erase(it->second);
    s.index.erase(it);
  }
  while (!s.lru.empty() && s.usage + bytes > capacity_) {
    s.usage -= s.lru.back().bytes;
    s.index.erase(s.lru.back().key);
    s.lru.pop_back();
  }
  s.lru.push_front(State::Entry{key, std::move(value), bytes});
  s.index.emplace(key, s.lru.begin());
  s.usage += bytes;
}

}  // namespace gridstore::grid
