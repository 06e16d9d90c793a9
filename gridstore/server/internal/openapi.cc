// Copyright 2026 The GridStore Authors.
//
// /api: the OpenAPI 3.0 description of this service, built from the same tables the service
// answers from (the query types and their parameters), so that it cannot drift from them.
#include "gridstore/server/internal/endpoints.h"

namespace gridstore::server {
namespace {

using json = nlohmann::ordered_json;

json Param(const char* name, const char* in, const char* description, bool required = false,
           json schema = {{"type", "string"}}) {
  return {{"name", name},
          {"in", in},
          {"description", description},
          {"required", required},
          {"schema", std::move(schema)}};
}

json Responses(const char* what, const json& content_types) {
  json content = json::object();
  for (const auto& type : content_types) content[type.get<std::string>()] = json::object();
  json error = {{"description", "an error: {\"code\", \"description\"}"},
                {"content", {{"application/json", json::object()}}}};
  return {{"200", {{"description", what}, {"content", content}}},
          {"400", error},
          {"404", error},
          {"413", error},
          {"503", error}};
}

json QueryParams(EdrQueryType type) {
  json params = {Param("collectionId", "path", "the dataset id (a '/' in it as %2F)", true)};
  switch (type) {
    case EdrQueryType::kPosition:
      params.push_back(Param("coords", "query", "WKT POINT(lon lat) or MULTIPOINT", true));
      break;
    case EdrQueryType::kArea:
      params.push_back(Param("coords", "query", "WKT POLYGON or MULTIPOLYGON (lon lat)", true));
      break;
    case EdrQueryType::kCube:
      params.push_back(Param("bbox", "query", "minLon,minLat,maxLon,maxLat", true));
      break;
    case EdrQueryType::kRadius:
      params.push_back(Param("coords", "query", "WKT POINT(lon lat): the centre", true));
      params.push_back(Param("within", "query", "the radius", true, {{"type", "number"}}));
      params.push_back(Param("within-units", "query", "km, m, mi or nmi", true));
      break;
    case EdrQueryType::kTrajectory:
    case EdrQueryType::kCorridor:
      params.push_back(Param("coords", "query",
                             "WKT LINESTRING (Z: level per vertex, M: Unix time per vertex)",
                             true));
      if (type == EdrQueryType::kCorridor) {
        params.push_back(
            Param("corridor-width", "query", "the full width", true, {{"type", "number"}}));
        params.push_back(Param("width-units", "query", "km, m, mi or nmi", true));
      }
      break;
  }
  params.push_back(Param("datetime", "query", "ISO 8601 time, or an interval A/B (.. open)"));
  params.push_back(Param("z", "query", "level(s): V, V1,V2, V1/V2 or Rn/start/step"));
  params.push_back(Param("parameter-name", "query", "comma-separated parameters (default all)"));
  params.push_back(Param("crs", "query", "CRS84 only"));
  params.push_back(Param("f", "query", "CoverageJSON (default), NetCDF or CSV"));
  params.push_back(Param("method", "query", "nearest (default) or bilinear (points, paths)"));
  return params;
}

// The parameters of a forecast collection's queries beyond EDR's (docs/serve.md, "Forecast
// collections"); `instance`: asked of one run, which then takes no run=.
json ForecastParams(EdrQueryType type, bool instance) {
  json params = QueryParams(type);
  params[0] = Param("collectionId", "path", "the forecast collection (a '/' in it as %2F)", true);
  if (instance) {
    params.insert(params.begin() + 1,
                  Param("instanceId", "path", "the run: its ISO 8601 time, or latest", true));
  } else {
    params.push_back(Param("run", "query",
                           "the runs: latest (default), latest-N, an ISO 8601 run time, "
                           "ISO/ISO (.. open) or all"));
  }
  params.push_back(Param("member", "query", "all (default) or a list of member numbers: 0,3,5"));
  params.push_back(Param("stat", "query",
                         "ensemble statistics instead of the members: mean, spread, min, max, "
                         "pN (percentile, e.g. p90), prob>X, prob<X (write > as %3E)"));
  params.push_back(Param("lead", "query",
                         "constant offset: the value at this lead time (24h, 1d12h) from every "
                         "run (run= defaults to all)"));
  params.push_back(Param("best", "query",
                         "true: for each valid time the newest run covering it (run= defaults to "
                         "all; datetime narrows the valid times)",
                         false, {{"type", "boolean"}}));
  params.push_back(Param("units", "query", "output units, comma-separated (udunits2): degC,hPa"));
  for (json& p : params) {
    if (p["name"] == "datetime") {
      p["description"] =
          "valid time(s): ISO 8601 or A/B; one time with run=all or ISO/ISO is the constant "
          "forecast time view (that valid time from every run)";
    }
    if (p["name"] == "f") p["description"] = "CoverageJSON (default), NetCDF, CSV or JSON";
  }
  return params;
}

// The common parameters of the map resources (docs/serve.md, "Maps and tiles").
json MapResourceParams() {
  json params = {
      Param("collectionId", "path", "a dataset or forecast collection (a '/' in it as %2F)", true),
      Param("parameter-name", "query", "one parameter (default: the collection's first)"),
      Param("datetime", "query", "one valid time, ISO 8601 (default: the first step)"),
      Param("z", "query", "one level (default: the first)"),
      Param("run", "query", "forecast collections: latest (default), latest-N or an ISO time"),
      Param("member", "query", "forecast collections: one member number (default: the first)"),
      Param("stat", "query",
            "forecast collections: one statistic instead of a member: mean, spread, min, max, "
            "pNN, median, prob>X, prob<X"),
      Param("colormap", "query",
            "viridis, turbo, gray, coolwarm, temperature, precipitation or wind (default: by "
            "quantity)"),
      Param("range", "query", "min,max of the colours (default: the run's range)")};
  for (const char* name :
       {"diff-collection", "diff-run", "diff-member", "diff-stat", "diff-datetime"}) {
    params.push_back(Param(name, "query",
                           "a difference A - B: B's collection, run, member, statistic or time "
                           "(each defaults to A's)"));
  }
  return params;
}

template <typename Get>
void AddMapPaths(json& paths, const Get& get, const json& meta_json) {
  json map = MapResourceParams();
  map.push_back(Param("bbox", "query", "west,south,east,north (default: the collection's)"));
  map.push_back(Param("bbox-crs", "query", "CRS84 (default) or EPSG:3857"));
  map.push_back(Param("crs", "query", "the map's CRS: CRS84 (default) or EPSG:3857"));
  map.push_back(Param("width", "query", "pixels, at most 4096", false, {{"type", "integer"}}));
  map.push_back(Param("height", "query", "pixels, at most 4096", false, {{"type", "integer"}}));
  paths["/collections/{collectionId}/map"] =
      get("OGC API - Maps: the field over a bbox at a size, without legend", map,
          Responses("PNG", {"image/png"}));
  paths["/collections/{collectionId}/map/legend"] =
      get("the colour bar of a map: range, ticks, stops, units, steps", MapResourceParams(),
          Responses("the legend", meta_json));
  paths["/collections/{collectionId}/map/tiles"] = get(
      "OGC API - Tiles: the map tile sets", MapResourceParams(), Responses("tile sets", meta_json));
  json tileset = MapResourceParams();
  tileset.push_back(Param("tileMatrixSetId", "path", "WebMercatorQuad", true));
  tileset.push_back(Param("limits", "query",
                          "matrix (default: every tile of each tile matrix, as GDAL 3.6 needs) or "
                          "bbox (the tiles covering the data)"));
  paths["/collections/{collectionId}/map/tiles/{tileMatrixSetId}"] =
      get("the WebMercatorQuad tile set, with tileMatrixSetLimits", tileset,
          Responses("tile set", meta_json));
  json tile = MapResourceParams();
  tile.push_back(Param("tileMatrixSetId", "path", "WebMercatorQuad", true));
  tile.push_back(Param("tileMatrix", "path", "the zoom level, 0 to 24", true));
  tile.push_back(Param("tileRow", "path", "the row, 0 at the top", true));
  tile.push_back(Param("tileCol", "path", "the column, 0 at the west", true));
  paths
      ["/collections/{collectionId}/map/tiles/{tileMatrixSetId}/{tileMatrix}/{tileRow}/"
       "{tileCol}"] = get("a 256x256 PNG tile", tile, Responses("PNG", {"image/png"}));
  paths["/tileMatrixSets"] = get("the tile matrix sets", json::array(), Responses("", meta_json));
  paths["/tileMatrixSets/{tileMatrixSetId}"] =
      get("a tile matrix set: the 1.0 JSON encoding, or 2.0 with encoding=2.0",
          {Param("tileMatrixSetId", "path", "WebMercatorQuad", true),
           Param("encoding", "query", "1.0 (default) or 2.0")},
          Responses("", meta_json));
}

}  // namespace

nlohmann::ordered_json OpenApiDocument(const std::string& base) {
  json paths = json::object();
  auto get = [](const char* summary, json params, json responses) {
    return json{{"get", {{"summary", summary}, {"parameters", params}, {"responses", responses}}}};
  };
  const json meta_json = {"application/json"};
  paths["/"] = get("the landing page", json::array(), Responses("links", meta_json));
  paths["/conformance"] = get("conformance classes", json::array(), Responses("", meta_json));
  paths["/api"] = get("this document", json::array(),
                      Responses("OpenAPI 3.0", {"application/vnd.oai.openapi+json;version=3.0"}));
  paths["/collections"] =
      get("the forecast collections, then the DONE datasets outside them, searched with the "
          "--where language",
          {Param("where", "query", "e.g. source in ('ECMWF','NMC') and create_time > now - 1 day"),
           Param("sort", "query", "FIELD[:asc|:desc],..."),
           Param("limit", "query", "1 to 1000 (default 100)", false, {{"type", "integer"}}),
           Param("offset", "query", "datasets to skip", false, {{"type", "integer"}})},
          Responses("collections", meta_json));
  paths["/collections/{collectionId}"] = get(
      "one dataset or forecast collection: extents, parameters, queries",
      {Param("collectionId", "path", "the dataset or collection id (a '/' in it as %2F)", true)},
      Responses("a collection", meta_json));
  for (EdrQueryType type : kEdrQueryTypes) {
    const std::string name = EdrQueryTypeName(type);
    // One path serves datasets and forecast collections: the forecast parameters (run, member,
    // stat, lead, best, units) are listed, and apply to forecast collections only.
    json params = QueryParams(type);
    for (const json& p : ForecastParams(type, false)) {
      const std::string pname = p["name"];
      if (pname == "run" || pname == "member" || pname == "stat" || pname == "lead" ||
          pname == "best" || pname == "units") {
        json own = p;
        own["description"] = "forecast collections only: " + own["description"].get<std::string>();
        params.push_back(std::move(own));
      }
    }
    paths["/collections/{collectionId}/" + name] =
        get(("EDR " + name + " query").c_str(), params,
            Responses("the values", {"application/prs.coverage+json", "application/x-netcdf",
                                     "text/csv", "application/json"}));
  }
  const json values = {"application/prs.coverage+json", "application/x-netcdf", "text/csv",
                       "application/json"};
  paths["/collections/{collectionId}/instances"] =
      get("a forecast collection's runs (EDR instances), newest first",
          {Param("collectionId", "path", "the forecast collection (a '/' in it as %2F)", true)},
          Responses("instances", meta_json));
  paths["/collections/{collectionId}/instances/{instanceId}"] =
      get("one run of a forecast collection",
          {Param("collectionId", "path", "the forecast collection (a '/' in it as %2F)", true),
           Param("instanceId", "path", "the run: its ISO 8601 time, or latest", true)},
          Responses("an instance", meta_json));
  for (EdrQueryType type : kEdrQueryTypes) {
    const std::string name = EdrQueryTypeName(type);
    paths["/collections/{collectionId}/instances/{instanceId}/" + name] =
        get(("EDR " + name + " query of one run of a forecast collection").c_str(),
            ForecastParams(type, true), Responses("the values", values));
  }
  paths["/collections/{collectionId}/map.png"] = get(
      "a quick-look map of one plane",
      {Param("collectionId", "path", "the dataset id", true),
       Param("parameter-name", "query", "one parameter"), Param("datetime", "query", "one time"),
       Param("z", "query", "one level"), Param("bbox", "query", "minLon,minLat,maxLon,maxLat"),
       Param("width", "query", "pixels (default 800)", false, {{"type", "integer"}}),
       Param("colormap", "query", "viridis, turbo, gray or coolwarm"),
       Param("range", "query", "min,max of the colour scale")},
      Responses("PNG", {"image/png"}));
  AddMapPaths(paths, get, meta_json);
  return {{"openapi", "3.0.3"},
          {"info",
           {{"title", "GridStore OGC API - EDR"},
            {"version", "1.1"},
            {"description", "Read-only access to gridded forecast data"}}},
          {"servers", {{{"url", base}}}},
          {"paths", paths}};
}

}  // namespace gridstore::server
