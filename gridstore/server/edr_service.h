// Copyright 2026 The GridStore Authors.
//
// The service behind `gridstore serve`: request in, response out, no socket (http_server.h is the
// transport). Read-only: OGC API-EDR (landing page, conformance, the OpenAPI document,
// collections and their position / area / cube / radius / trajectory / corridor queries), the
// catalog search (/collections?where=...), quick-look maps (/collections/{id}/map.png), OGC API -
// Maps and Tiles (/collections/{id}/map, /map/tiles, /tileMatrixSets) and the viewer (/viewer).
// Each request is answered from one state of the store (StoreSource::Current), and only datasets
// whose status is DONE are collections.
#ifndef GRIDSTORE_SERVER_EDR_SERVICE_H_
#define GRIDSTORE_SERVER_EDR_SERVICE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/server/http_message.h"
#include "gridstore/server/store_source.h"
#include "gridstore/util/result.h"

namespace gridstore::server {

class CollectionSummaries;
class MapCache;

struct ServiceOptions {
  // A response larger than this is refused with 413 and what to narrow (estimated before any
  // data is read, and checked again on the bytes written).
  int64_t max_response_bytes = int64_t{20} << 20;
  // If not empty, every request must carry "Authorization: Bearer TOKEN" with one of these
  // (compared in constant time); 401 otherwise.
  std::vector<std::string> tokens;
  // The byte budget of the decoded planes the map resources (tiles, maps, legends) keep.
  int64_t map_cache_bytes = int64_t{256} << 20;
};

// Tokens from a file: one per line; blank lines and lines starting with '#' are skipped.
// InvalidArgument if it does not exist, is not a regular file of at most 1 MiB, cannot be read or
// holds no token.
Result<std::vector<std::string>> ReadTokenFile(const std::string& path);
// Compares in time independent of where the strings differ (their lengths may leak).
bool ConstantTimeEquals(std::string_view a, std::string_view b);

class EdrService {
 public:
  // `source` must outlive the service.
  EdrService(StoreSource* source, ServiceOptions options);
  ~EdrService();

  // Thread-safe: called by many workers at once.
  HttpResponse Handle(const HttpRequest& request) const;

  // Whether a request may cost much CPU (areas, cubes, radii, trajectories, corridors, map.png,
  // maps, legends and tiles), for the transport's expensive lane
  // (HttpServerOptions::is_expensive). Positions, documents and the catalog are cheap.
  static bool IsExpensive(const HttpRequest& request);

 private:
  StoreSource* const source_;
  const ServiceOptions options_;
  std::unique_ptr<CollectionSummaries> summaries_;
  std::unique_ptr<MapCache> maps_;
};

}  // namespace gridstore::server

#endif  // GRIDSTORE_SERVER_EDR_SERVICE_H_
