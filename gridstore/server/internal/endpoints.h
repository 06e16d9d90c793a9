// Copyright 2026 The GridStore Authors.
//
// The endpoints EdrService routes to, each answering from one store handle.
#ifndef GRIDSTORE_SERVER_INTERNAL_ENDPOINTS_H_
#define GRIDSTORE_SERVER_INTERNAL_ENDPOINTS_H_

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "gridstore/forecast/collection.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/server/edr_query.h"
#include "gridstore/server/edr_service.h"
#include "gridstore/server/internal/documents.h"
#include "gridstore/server/query_string.h"

namespace gridstore::server {

class MapCache;  // internal/map_cache.h

struct EndpointContext {
  std::shared_ptr<grid::GridStore> store;  // the one state of the store this request sees
  const ServiceOptions* options = nullptr;
  CollectionSummaries* summaries = nullptr;
  std::string base;          // BaseUrl of the request
  MapCache* maps = nullptr;  // decoded planes and ranges of the map resources
};

// A served dataset: NotFound naming `id` if there is none, or if it is not DONE (saying so).
Result<grid::DataSetMeta> CollectionMeta(const EndpointContext& context, const std::string& id);

// /collections: the catalog, with where / sort / limit / offset.
HttpResponse CatalogEndpoint(const EndpointContext& context, const RequestTarget& target);
// /collections/{id}
HttpResponse CollectionEndpoint(const EndpointContext& context, const std::string& id,
                                const RequestTarget& target);
// /collections/{id}/{position|area|cube|radius|trajectory|corridor}
HttpResponse QueryEndpoint(const EndpointContext& context, const std::string& id, EdrQueryType type,
                           const RequestTarget& target);
// /collections/{id}/map.png
HttpResponse MapEndpoint(const EndpointContext& context, const std::string& id,
                         const RequestTarget& target);
// /collections/{id}/map (OGC API - Maps), /map/legend and /map/tiles[/WebMercatorQuad[/z/y/x]]
// (OGC API - Tiles), of a dataset or a forecast collection (internal/tiles_endpoint.cc).
HttpResponse MapResourceEndpoint(const EndpointContext& context, const std::string& id,
                                 const RequestTarget& target);
// /tileMatrixSets and /tileMatrixSets/WebMercatorQuad.
HttpResponse TileMatrixSetsEndpoint(const EndpointContext& context, const RequestTarget& target);
// Forecast collections (forecast/collection.h; internal/forecast_endpoint.cc). A run is served
// when every dataset of it is DONE or INGESTING; a collection when one of its runs is.
// The newest complete run of `c`, else its newest served run; null if none is served.
const forecast::Run* NewestServedRun(const forecast::Collection& c);
// The forecast collection `name`: NotFound if there is none or none of its runs is served.
Result<forecast::Collection> ServedCollection(const EndpointContext& context,
                                              const std::string& name);
// The EDR collection of a served forecast collection (also in the /collections listing).
Result<nlohmann::ordered_json> ForecastCollectionDocument(const EndpointContext& context,
                                                          const forecast::Collection& c);
// /collections/{name} of a forecast collection.
HttpResponse ForecastCollectionEndpoint(const EndpointContext& context,
                                        const forecast::Collection& c, const RequestTarget& target);
// /collections/{name}/{query} of a forecast collection: the latest run unless run= says.
HttpResponse ForecastQueryEndpoint(const EndpointContext& context, const forecast::Collection& c,
                                   EdrQueryType type, const RequestTarget& target);
// /collections/{name}/instances, /instances/{run} and /instances/{run}/{query}.
HttpResponse InstancesEndpoint(const EndpointContext& context, const std::string& name,
                               const RequestTarget& target);

// /api: an OpenAPI 3.0 document of this service.
nlohmann::ordered_json OpenApiDocument(const std::string& base);

// InvalidArgument naming the first parameter of `target` not in `allowed` (comma-separated).
Status CheckParameters(const RequestTarget& target, std::initializer_list<std::string_view> allowed,
                       std::string_view where);

}  // namespace gridstore::server

#endif  // GRIDSTORE_SERVER_INTERNAL_ENDPOINTS_H_
