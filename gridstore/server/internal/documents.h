// Copyright 2026 The GridStore Authors.
//
// The service's metadata documents (OGC API-Common and API-EDR): the landing page, conformance,
// one collection per dataset with its extents, parameters and data queries, and the catalog
// listing. A collection's extents cost a look at its coordinates (every cell of a curvilinear
// grid), so they are computed once per state of a dataset (id, incarnation, generation) and kept.
#ifndef GRIDSTORE_SERVER_INTERNAL_DOCUMENTS_H_
#define GRIDSTORE_SERVER_INTERNAL_DOCUMENTS_H_

#include <array>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "gridstore/geo/coordinates.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/server/http_message.h"
#include "gridstore/util/internal/mutex.h"
#include "gridstore/util/result.h"

namespace gridstore::server {

using nlohmann::ordered_json;

// What a collection document says of a dataset beyond its meta.
struct CollectionSummary {
  std::vector<std::string> variables;          // every variable with a horizontal grid
  std::vector<std::string> default_variables;  // those on the first one's grid and axes
  std::optional<std::array<double, 4>> bbox;   // west, south, east, north (degrees)
  std::string grid_description;
  int64_t nx = 0, ny = 0;                                     // the horizontal grid's cells
  std::optional<grid::AxisCoordinate> time_axis, level_axis;  // of the first variable
};

class CollectionSummaries {
 public:
  // The summary of `meta`'s current state. InvalidArgument if no variable has a horizontal grid
  // (such a dataset is not a collection).
  Result<std::shared_ptr<const CollectionSummary>> Get(const grid::DataSetMeta& meta);

 private:
  struct Entry {
    uint64_t incarnation = 0, generation = 0;
    std::shared_ptr<const CollectionSummary> summary;
  };
  Mutex mu_;
  std::map<std::string, Entry, std::less<>> entries_ GUARDED_BY(mu_);
};

// "http://HOST[/prefix]" as the client sees the service (a reverse proxy's X-Forwarded-* first).
std::string BaseUrl(const HttpRequest& request);

ordered_json LandingPage(const std::string& base);
ordered_json ConformancePage();
// The OGC API-EDR collection of a dataset.
ordered_json CollectionDocument(const grid::DataSetMeta& meta, const CollectionSummary& summary,
                                const std::string& base);

// The parts of a collection document (also the forecast collections' and their instances').
ordered_json Link(const std::string& href, const char* rel, const char* type,
                  const std::string& title);
// An axis's extent as OGC API-EDR 1.1's extent.yaml has it (`temporal` for CF time, otherwise
// with the axis's name, units and values).
ordered_json AxisExtent(const grid::AxisCoordinate& axis);
// A variable as an EDR parameter: units, description, observed property, data type.
ordered_json Parameter(const grid::VariableMeta& var);
// The EDR data queries of a collection at `collection_url`, each answered in `output_formats`.
ordered_json DataQueries(const std::string& collection_url,
                         const std::vector<std::string>& output_formats);

// The map links of the collection at `collection_url`: OGC API - Maps (rel .../ogc/1.0/map, PNG),
// the tile sets (rel .../ogc/1.0/tilesets-map) and the legend; what GDAL's OGCAPI driver looks
// for.
ordered_json MapLinks(const std::string& collection_url);

// The conformance classes the service declares (also in the OpenAPI document).
const std::vector<std::string>& ConformanceClasses();

}  // namespace gridstore::server

#endif  // GRIDSTORE_SERVER_INTERNAL_DOCUMENTS_H_
