// Copyright 2026 The GridStore Authors.
//
// What the map resources keep between requests (docs/serve.md, "Maps and tiles"): the decoded
// planes of fields (and their colour indices) in a bounded LRU cache, and the fixed ranges of
// runs, one MapCache per service shared by its workers, so that the tiles of one step cost one
// read and every tile of every step matches one colour bar. Concurrent first requests for one
// key share one load (SingleFlight). Apart from map_layers.h so that the service, which owns the
// cache, needs only this.
#ifndef GRIDSTORE_SERVER_INTERNAL_MAP_CACHE_H_
#define GRIDSTORE_SERVER_INTERNAL_MAP_CACHE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <future>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "gridstore/geo/coordinates.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/internal/mutex.h"
#include "gridstore/util/result.h"

namespace gridstore::server {

// One horizontal field over its whole grid (the area box of an extraction of the grid's bbox).
struct MapPlane {
  std::shared_ptr<const grid::HorizontalGrid> grid;
  std::array<int64_t, 4> area{};  // x0, y0, nx, ny
  int wrap_axis = -1;
  int64_t wrap_period = 0;
  std::vector<float> values;      // area nx x ny, x-major; NaN where missing
  std::vector<uint8_t> indices;   // an index plane's colour indices (ColourIndexer), else empty
  std::string difference_method;  // a difference's: "same grid, cell by cell" or nearest

  // The index in `values` of grid cell `c`, or -1 if the area does not hold it.
  int64_t Index(const grid::Cell& c) const;
  // The grid cell of area cell (x, y).
  grid::Cell AreaCellFor(int64_t x, int64_t y) const {
    grid::Cell c{area[0] + x, area[1] + y};
    if (wrap_axis == grid::kX) c.x %= wrap_period;
    if (wrap_axis == grid::kY) c.y %= wrap_period;
    return c;
  }
  size_t bytes() const { return values.size() * sizeof(float) + indices.size() + 256; }
};

// Calls for one key at a time: callers asking for a key being computed wait for that answer
// instead of computing it again (the dozen tiles of a first view all need one plane and one
// range). Errors are shared the same way, and not kept. Thread-safe.
template <typename T>
class SingleFlight {
 public:
  Result<T> Do(const std::string& key, const std::function<Result<T>()>& fn) {
    std::promise<Result<T>> promise;
    std::shared_future<Result<T>> future;
    bool leader = false;
    {
      MutexLock lock(&mu_);
      auto it = calls_.find(key);
      if (it != calls_.end()) {
        future = it->second;
      } else {
        future = promise.get_future().share();
        calls_.emplace(key, future);
        leader = true;
      }
    }
    if (!leader) return future.get();
    Result<T> result = fn();
    promise.set_value(result);
    MutexLock lock(&mu_);
    calls_.erase(key);
    return result;
  }

 private:
  Mutex mu_;
  std::map<std::string, std::shared_future<Result<T>>> calls_ GUARDED_BY(mu_);
};

// Planes by key, least recently used dropped beyond a byte budget, and ranges by key. Thread-safe.
class MapCache {
 public:
  explicit MapCache(int64_t max_bytes) : max_bytes_(max_bytes) {}
  // The plane or range of `key`: kept, else made by `load` (once for concurrent callers) and
  // kept if it succeeds.
  Result<std::shared_ptr<const MapPlane>> Plane(
      const std::string& key, const std::function<Result<std::shared_ptr<const MapPlane>>()>& load);
  Result<std::array<double, 2>> Range(const std::string& key,
                                      const std::function<Result<std::array<double, 2>>()>& load);
  std::shared_ptr<const MapPlane> Find(const std::string& key);
  void Put(const std::string& key, std::shared_ptr<const MapPlane> plane);
  std::optional<std::array<double, 2>> FindRange(const std::string& key);
  void PutRange(const std::string& key, std::array<double, 2> range);

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const MapPlane>>;
  const int64_t max_bytes_;
  Mutex mu_;
  int64_t bytes_ GUARDED_BY(mu_) = 0;
  std::list<Entry> lru_ GUARDED_BY(mu_);  // most recent first
  std::unordered_map<std::string, std::list<Entry>::iterator> index_ GUARDED_BY(mu_);
  std::map<std::string, std::array<double, 2>> ranges_ GUARDED_BY(mu_);
  SingleFlight<std::shared_ptr<const MapPlane>> plane_loads_;
  SingleFlight<std::array<double, 2>> range_loads_;
};

}  // namespace gridstore::server

#endif  // GRIDSTORE_SERVER_INTERNAL_MAP_CACHE_H_
