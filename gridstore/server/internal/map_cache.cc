// Copyright 2026 The GridStore Authors.
//
// The map resources' cache (map_cache.h): the planes' LRU by bytes and the runs' fixed ranges,
// each loaded once for concurrent callers. Apart from map_layers.cc, which decides what is read
// and drawn, because keeping is one concern and its locking is best read alone.
#include "gridstore/server/internal/map_cache.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "gridstore/geo/coordinates.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/internal/mutex.h"
#include "gridstore/util/result.h"

namespace gridstore::server {

int64_t MapPlane::Index(const grid::Cell& c) const {
  int64_t x = c.x - area[0], y = c.y - area[1];
  if (wrap_axis == grid::kX) x = ((x % wrap_period) + wrap_period) % wrap_period;
  if (wrap_axis == grid::kY) y = ((y % wrap_period) + wrap_period) % wrap_period;
  if (x < 0 || y < 0 || x >= area[2] || y >= area[3]) return -1;
  return x * area[3] + y;
}

std::shared_ptr<const MapPlane> MapCache::Find(const std::string& key) {
  MutexLock lock(&mu_);
  auto it = index_.find(key);
  if (it == index_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void MapCache::Put(const std::string& key, std::shared_ptr<const MapPlane> plane) {
  const int64_t bytes = int64_t(plane->bytes());
  if (bytes > max_bytes_) return;
  MutexLock lock(&mu_);
  if (index_.contains(key)) return;
  lru_.emplace_front(key, std::move(plane));
  index_[key] = lru_.begin();
  bytes_ += bytes;
  while (bytes_ > max_bytes_ && !lru_.empty()) {
    bytes_ -= int64_t(lru_.back().second->bytes());
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

std::optional<std::array<double, 2>> MapCache::FindRange(const std::string& key) {
  MutexLock lock(&mu_);
  auto it = ranges_.find(key);
  if (it == ranges_.end()) return std::nullopt;
  return it->second;
}

Result<std::shared_ptr<const MapPlane>> MapCache::Plane(
    const std::string& key, const std::function<Result<std::shared_ptr<const MapPlane>>()>& load) {
  if (auto hit = Find(key)) return hit;
  return plane_loads_.Do(key, [&]() -> Result<std::shared_ptr<const MapPlane>> {
    if (auto hit = Find(key)) return hit;  // made while this caller waited for the lock
    GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const MapPlane> plane, load());
    Put(key, plane);
    return plane;
  });
}

Result<std::array<double, 2>> MapCache::Range(
    const std::string& key, const std::function<Result<std::array<double, 2>>()>& load) {
  if (auto hit = FindRange(key)) return *hit;
  return range_loads_.Do(key, [&]() -> Result<std::array<double, 2>> {
    if (auto hit = FindRange(key)) return *hit;
    GRIDSTORE_ASSIGN_OR_RETURN(auto range, load());
    PutRange(key, range);
    return range;
  });
}

void MapCache::PutRange(const std::string& key, std::array<double, 2> range) {
  MutexLock lock(&mu_);
  if (ranges_.size() > 10000) ranges_.clear();  // bounded: ever-new runs
  ranges_[key] = range;
}

}  // namespace gridstore::server
