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
      get("the DONE datasets, searched with the --where language",
          {Param("where", "query", "e.g. source in ('ECMWF','NMC') and create_time > now - 1 day"),
           Param("sort", "query", "FIELD[:asc|:desc],..."),
           Param("limit", "query", "1 to 1000 (default 100)", false, {{"type", "integer"}}),
           Param("offset", "query", "datasets to skip", false, {{"type", "integer"}})},
          Responses("collections", meta_json));
  paths["/collections/{collectionId}"] =
      get("one dataset: extents, parameters, queries",
          {Param("collectionId", "path", "the dataset id (a '/' in it as %2F)", true)},
          Responses("a collection", meta_json));
  for (EdrQueryType type : kEdrQueryTypes) {
    const std::string name = EdrQueryTypeName(type);
    paths["/collections/{collectionId}/" + name] =
        get(("EDR " + name + " query").c_str(), QueryParams(type),
            Responses("the values",
                      {"application/prs.coverage+json", "application/x-netcdf", "text/csv"}));
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
  return {{"openapi", "3.0.3"},
          {"info",
           {{"title", "GridStore OGC API - EDR"},
            {"version", "1.1"},
            {"description", "Read-only access to gridded forecast data"}}},
          {"servers", {{{"url", base}}}},
          {"paths", paths}};
}

}  // namespace gridstore::server
