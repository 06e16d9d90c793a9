// Copyright 2026 The GridStore Authors.
//
// OGC API - Tiles (WebMercatorQuad) and OGC API - Maps over the layers of map_layers.h:
// /tileMatrixSets, /collections/{id}/map/tiles (the tile sets, one), .../WebMercatorQuad (the
// tile set, with tileMatrixSetLimits and templated links), .../{z}/{y}/{x} (a 256x256 PNG),
// /collections/{id}/map (a bbox at a size) and /collections/{id}/map/legend (the colour bar as
// JSON). What GDAL 3.6's OGCAPI driver reads decided the details (docs/serve.md).
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "gridstore/server/http_message.h"
#include "gridstore/server/internal/documents.h"
#include "gridstore/server/internal/endpoints.h"
#include "gridstore/server/internal/map_cache.h"
#include "gridstore/server/internal/map_layers.h"
#include "gridstore/server/internal/responses.h"
#include "gridstore/server/query_string.h"
#include "gridstore/server/web_mercator.h"
#include "gridstore/util/internal/strings.h"
#include "gridstore/util/result.h"
#include "gridstore/util/status.h"

namespace gridstore::server {
namespace tiles_endpoint_detail {

constexpr const char* kCrs84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";
constexpr const char* kCrs3857 = "http://www.opengis.net/def/crs/EPSG/0/3857";
constexpr const char* kTmsUri = "http://www.opengis.net/def/tilematrixset/OGC/1.0/WebMercatorQuad";
constexpr const char* kTilingSchemeRel = "http://www.opengis.net/def/rel/ogc/1.0/tiling-scheme";
constexpr int kMaxMapSide = 4096;
constexpr int kDefaultMapWidth = 1024;

const std::string* Get(const RequestTarget& target, const char* name) {
  auto it = target.query.find(name);
  return it == target.query.end() ? nullptr : &it->second;
}

Result<int64_t> Integer(const std::string& text, const char* what) {
  int64_t v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return Status::InvalidArgument(std::string(what) + " " + Quote(text) + " is not an integer");
  }
  return v;
}

std::string CollectionUrl(const EndpointContext& context, const std::string& id) {
  return context.base + "/collections/" + PercentEncode(id);
}

HttpResponse Png(std::string body, std::array<double, 2> range, const MapPlane& plane,
                 const char* crs) {
  HttpResponse r;
  r.content_type = "image/png";
  r.body = std::move(body);
  r.headers.emplace_back("Content-Crs", std::string("<") + crs + ">");
  r.headers.emplace_back("X-GridStore-Range",
                         FormatDouble(range[0]) + "," + FormatDouble(range[1]));
  if (!plane.difference_method.empty()) {
    r.headers.emplace_back("X-GridStore-Difference-Method", plane.difference_method);
  }
  return r;
}

// The collection's bbox (the layer's A) and the finest useful tile matrix for its grid.
Result<std::pair<std::array<double, 4>, int>> Extent(const EndpointContext& context,
                                                     const MapLayer& layer) {
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const CollectionSummary> summary,
                             context.summaries->Get(*layer.a.meta));
  const std::array<double, 4> bbox =
      summary->bbox.value_or(std::array<double, 4>{-180, -90, 180, 90});
  const double cells =
      double(std::max<int64_t>(1, summary->nx)) * double(std::max<int64_t>(1, summary->ny));
  const double cell_degrees =
      std::sqrt(std::max(bbox[2] - bbox[0], 1e-6) * std::max(bbox[3] - bbox[1], 1e-6) / cells);
  return std::make_pair(bbox, MaxUsefulTileMatrix(cell_degrees));
}

Result<HttpResponse> TileSets(const EndpointContext& context, const std::string& id,
                              const RequestTarget& target) {
  GRIDSTORE_ASSIGN_OR_RETURN(MapLayer layer,
                             ResolveMapLayer(context, id, target, {"f"}, "the tile sets"));
  const std::string url = CollectionUrl(context, id) + "/map/tiles";
  const std::string query = MapQueryString(target);
  ordered_json tileset = {
      {"title", id + " in WebMercatorQuad"},
      {"dataType", "map"},
      {"crs", kCrs3857},
      {"tileMatrixSetURI", kTmsUri},
      {"links",
       {Link(url + "/WebMercatorQuad" + query, "self", "application/json", "the tile set"),
        Link(context.base + "/tileMatrixSets/WebMercatorQuad", kTilingSchemeRel, "application/json",
             "WebMercatorQuad")}}};
  return JsonResponse(
      {{"links",
        {Link(url + query, "self", "application/json", "the tile sets"),
         Link(CollectionUrl(context, id), "collection", "application/json", "the collection")}},
       {"tilesets", {tileset}}});
}

Result<HttpResponse> TileSet(const EndpointContext& context, const std::string& id,
                             const RequestTarget& target) {
  GRIDSTORE_ASSIGN_OR_RETURN(MapLayer layer,
                             ResolveMapLayer(context, id, target, {"f", "limits"}, "the tile set"));
  if (const std::string* l = Get(target, "limits"); l && *l != "bbox" && *l != "matrix") {
    return Status::InvalidArgument("limits " + Quote(*l) +
                                   " is not matrix (the default: every tile) or bbox");
  }
  GRIDSTORE_ASSIGN_OR_RETURN(auto extent, Extent(context, layer));
  const auto& [bbox, max_z] = extent;
  const std::string url = CollectionUrl(context, id) + "/map/tiles/WebMercatorQuad";
  const std::string query = MapQueryString(target);
  ordered_json limits = ordered_json::array();
  // Every tile of tile matrices 0 .. max_z: GDAL 3.6 reads a tile set only with limits, but
  // misplaces the tiles of limits narrower than the matrix (its WMS window takes the limits'
  // extent with the whole matrix's height in pixels, and counts tile columns from the limits'
  // first). Tiles outside the data are transparent; `boundingBox` says where the data are, and
  // ?limits=bbox gives the limits of the tiles that cover it.
  const bool exact = Get(target, "limits") != nullptr && *Get(target, "limits") == "bbox";
  for (int z = 0; z <= max_z; ++z) {
    TileLimits t = TilesCovering(z, bbox);
    if (!exact) t = {z, 0, (int64_t{1} << z) - 1, 0, (int64_t{1} << z) - 1};
    limits.push_back({{"tileMatrix", std::to_string(z)},
                      {"minTileRow", t.min_row},
                      {"maxTileRow", t.max_row},
                      {"minTileCol", t.min_col},
                      {"maxTileCol", t.max_col}});
  }
  ordered_json item = Link(url + "/{tileMatrix}/{tileRow}/{tileCol}" + query, "item", "image/png",
                           "a tile (OGC API - Tiles URI template)");
  item["templated"] = true;
  ordered_json xyz = Link(url + "/{z}/{y}/{x}.png" + query, "alternate", "image/png",
                          "a tile as an XYZ URL template (Leaflet, OpenLayers)");
  xyz["templated"] = true;
  ordered_json doc = {
      {"title", id + " in WebMercatorQuad"},
      {"dataType", "map"},
      {"crs", kCrs3857},
      {"tileMatrixSetURI", kTmsUri},
      {"tileMatrixSetLimits", std::move(limits)},
      {"boundingBox",
       {{"lowerLeft", {bbox[0], bbox[1]}}, {"upperRight", {bbox[2], bbox[3]}}, {"crs", kCrs84}}},
      {"links",
       {Link(url + query, "self", "application/json", "this tile set"),
        Link(context.base + "/tileMatrixSets/WebMercatorQuad", kTilingSchemeRel, "application/json",
             "WebMercatorQuad"),
        item, xyz,
        Link(CollectionUrl(context, id) + "/map/legend" + query, "describedby", "application/json",
             "the colour bar (range, ticks, stops)")}}};
  return JsonResponse(doc);
}

Result<HttpResponse> Tile(const EndpointContext& context, const std::string& id,
                          const RequestTarget& target) {
  const auto& path = target.path;  // collections, ID, map, tiles, WebMercatorQuad, z, y, x
  std::string col_text = path[7];
  if (col_text.ends_with(".png")) col_text.resize(col_text.size() - 4);
  GRIDSTORE_ASSIGN_OR_RETURN(int64_t z, Integer(path[5], "tileMatrix"));
  GRIDSTORE_ASSIGN_OR_RETURN(int64_t row, Integer(path[6], "tileRow"));
  GRIDSTORE_ASSIGN_OR_RETURN(int64_t col, Integer(col_text, "tileCol"));
  GRIDSTORE_RETURN_IF_ERROR(CheckTile(z, row, col));
  GRIDSTORE_ASSIGN_OR_RETURN(MapLayer layer, ResolveMapLayer(context, id, target, {}, "a tile"));
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const MapPlane> plane, LayerPlane(context, layer));
  GRIDSTORE_ASSIGN_OR_RETURN(auto range, LayerRange(context, layer));
  const std::array<double, 4> b = TileBoundsMetres(int(z), row, col);
  const double pixel = (b[2] - b[0]) / kTileSize;
  std::vector<double> lons(kTileSize), lats(kTileSize);
  for (int i = 0; i < kTileSize; ++i) {
    lons[size_t(i)] = LonOfMercatorX(b[0] + (i + 0.5) * pixel);
    lats[size_t(i)] = LatOfMercatorY(b[3] - (i + 0.5) * pixel);
  }
  GRIDSTORE_ASSIGN_OR_RETURN(std::string png,
                             RenderLayer(context, layer, *plane, range, lons, lats));
  return Png(std::move(png), range, *plane, kCrs3857);
}

Result<HttpResponse> Legend(const EndpointContext& context, const std::string& id,
                            const RequestTarget& target) {
  GRIDSTORE_ASSIGN_OR_RETURN(MapLayer layer,
                             ResolveMapLayer(context, id, target, {"f"}, "the legend"));
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const MapPlane> plane, LayerPlane(context, layer));
  GRIDSTORE_ASSIGN_OR_RETURN(auto range, LayerRange(context, layer));
  HttpResponse r = JsonResponse(LegendDocument(layer, range, *plane));
  if (!plane->difference_method.empty()) {
    r.headers.emplace_back("X-GridStore-Difference-Method", plane->difference_method);
  }
  return r;
}

// CRS84 (the default) or EPSG:3857, as bbox-crs and crs name them; `what` for the error.
Result<bool> IsWebMercator(const std::string* crs, const char* what) {
  if (crs == nullptr) return false;
  const std::string& c = *crs;
  if (c == kCrs84 || c == "CRS84" || c == "OGC:CRS84" || c == "[OGC:CRS84]") return false;
  if (c == kCrs3857 || c == "EPSG:3857" || c == "[EPSG:3857]") return true;
  return Status::InvalidArgument(std::string(what) + " " + Quote(c) + " is not served: " + kCrs84 +
                                 " (the default) or " + kCrs3857);
}

Result<int> Side(const std::string* text, const char* what) {
  GRIDSTORE_ASSIGN_OR_RETURN(int64_t v, Integer(*text, what));
  if (v < 1 || v > kMaxMapSide) {
    return Status::InvalidArgument(std::string(what) + " " + std::to_string(v) + " is not 1 to " +
                                   std::to_string(kMaxMapSide) + " pixels");
  }
  return int(v);
}

// bbox= in degrees (given in Web Mercator metres when `bbox_3857`), else the collection's.
Result<std::array<double, 4>> MapBbox(const EndpointContext& context, const MapLayer& layer,
                                      const RequestTarget& target, bool bbox_3857) {
  const std::string* text = Get(target, "bbox");
  if (text == nullptr) {
    GRIDSTORE_ASSIGN_OR_RETURN(auto extent, Extent(context, layer));
    return extent.first;
  }
  std::vector<double> v;
  for (const std::string& item : SplitList(*text, ',')) {
    size_t used = 0;
    const std::string_view t = Trim(item);
    const std::optional<double> d = ParseDecimal(t, &used);
    if (!d || used != t.size() || !std::isfinite(*d)) break;
    v.push_back(*d);
  }
  if (v.size() != 4) {
    return Status::InvalidArgument("bbox " + Quote(*text) +
                                   " is not 4 comma-separated numbers (west,south,east,north)");
  }
  std::array<double, 4> bbox = {v[0], v[1], v[2], v[3]};
  if (bbox_3857) {
    bbox = {LonOfMercatorX(v[0]), LatOfMercatorY(v[1]), LonOfMercatorX(v[2]), LatOfMercatorY(v[3])};
  }
  if (!(bbox[3] > bbox[1])) {
    return Status::InvalidArgument("bbox " + Quote(*text) +
                                   ": the north edge must be above the south edge");
  }
  if (!(bbox[2] > bbox[0])) {
    return Status::InvalidArgument("bbox " + Quote(*text) +
                                   ": the east edge must be east of the west edge");
  }
  return bbox;
}

// width and height in pixels: as asked, the one not asked by the extent's aspect (height /
// width), or kDefaultMapWidth wide.
Result<std::array<int, 2>> MapSize(const RequestTarget& target, double aspect) {
  int width = 0, height = 0;
  const std::string* w = Get(target, "width");
  const std::string* h = Get(target, "height");
  if (w) {
    GRIDSTORE_ASSIGN_OR_RETURN(width, Side(w, "width"));
  }
  if (h) {
    GRIDSTORE_ASSIGN_OR_RETURN(height, Side(h, "height"));
  }
  if (!w && !h) width = kDefaultMapWidth;
  if (!h) height = std::clamp(int(std::lround(width * aspect)), 1, kMaxMapSide);
  if (!w) width = std::clamp(int(std::lround(height / aspect)), 1, kMaxMapSide);
  return std::array<int, 2>{width, height};
}

Result<HttpResponse> Map(const EndpointContext& context, const std::string& id,
                         const RequestTarget& target) {
  GRIDSTORE_ASSIGN_OR_RETURN(
      MapLayer layer,
      ResolveMapLayer(context, id, target, {"bbox", "width", "height", "bbox-crs", "crs", "f"},
                      "the map"));
  if (const std::string* f = Get(target, "f"); f && *f != "png" && *f != "image/png") {
    return Status::InvalidArgument("f " + Quote(*f) + ": the map is PNG only (f=png)");
  }
  GRIDSTORE_ASSIGN_OR_RETURN(const bool bbox_3857,
                             IsWebMercator(Get(target, "bbox-crs"), "bbox-crs"));
  GRIDSTORE_ASSIGN_OR_RETURN(const bool out_3857, IsWebMercator(Get(target, "crs"), "crs"));
  GRIDSTORE_ASSIGN_OR_RETURN(auto bbox,
                             MapBbox(context, layer, target, bbox_3857));  // degrees  // in degrees
  if (out_3857) {
    bbox[1] = std::max(bbox[1], -kWebMercatorMaxLat);
    bbox[3] = std::min(bbox[3], kWebMercatorMaxLat);
  }
  // The projected extent: degrees, or Web Mercator metres.
  const double x0 = out_3857 ? MercatorX(bbox[0]) : bbox[0];
  const double x1 = out_3857 ? MercatorX(bbox[2]) : bbox[2];
  const double y0 = out_3857 ? MercatorY(bbox[1]) : bbox[1];
  const double y1 = out_3857 ? MercatorY(bbox[3]) : bbox[3];
  GRIDSTORE_ASSIGN_OR_RETURN(const auto size, MapSize(target, (y1 - y0) / (x1 - x0)));
  const auto [width, height] = size;
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const MapPlane> plane, LayerPlane(context, layer));
  GRIDSTORE_ASSIGN_OR_RETURN(auto range, LayerRange(context, layer));
  std::vector<double> lons(static_cast<size_t>(width));
  std::vector<double> lats(static_cast<size_t>(height));
  for (int i = 0; i < width; ++i) {
    const double x = x0 + (i + 0.5) * (x1 - x0) / width;
    lons[size_t(i)] = out_3857 ? LonOfMercatorX(x) : x;
  }
  for (int j = 0; j < height; ++j) {
    const double y = y1 - (j + 0.5) * (y1 - y0) / height;
    lats[size_t(j)] = out_3857 ? LatOfMercatorY(y) : y;
  }
  GRIDSTORE_ASSIGN_OR_RETURN(std::string png,
                             RenderLayer(context, layer, *plane, range, lons, lats));
  HttpResponse r = Png(std::move(png), range, *plane, out_3857 ? kCrs3857 : kCrs84);
  r.headers.emplace_back("X-GridStore-Bbox", FormatDouble(x0) + "," + FormatDouble(y0) + "," +
                                                 FormatDouble(x1) + "," + FormatDouble(y1));
  return r;
}

Result<HttpResponse> MapResource(const EndpointContext& context, const std::string& id,
                                 const RequestTarget& target) {
  const auto& path = target.path;  // collections, ID, map, ...
  if (path.size() == 3) return Map(context, id, target);
  if (path.size() == 4 && path[3] == "legend") return Legend(context, id, target);
  if (path[3] == "tiles") {
    if (path.size() == 4) return TileSets(context, id, target);
    if (path[4] != "WebMercatorQuad") {
      return Status::NotFound("no tile matrix set " + Quote(path[4]) +
                              ": the one served is WebMercatorQuad");
    }
    if (path.size() == 5) return TileSet(context, id, target);
    if (path.size() == 8) return Tile(context, id, target);
    return Status::NotFound(
        "a tile is /collections/{id}/map/tiles/WebMercatorQuad/{tileMatrix}/{tileRow}/{tileCol}");
  }
  return Status::NotFound("no map resource " + Quote(path[3]) +
                          ": the map resources are map, map/legend and map/tiles");
}

}  // namespace tiles_endpoint_detail

HttpResponse MapResourceEndpoint(const EndpointContext& context, const std::string& id,
                                 const RequestTarget& target) {
  using namespace tiles_endpoint_detail;  // NOLINT: this file's helpers
  Result<HttpResponse> r = MapResource(context, id, target);
  return r.ok() ? std::move(*r) : ErrorResponse(r.status());
}

HttpResponse TileMatrixSetsEndpoint(const EndpointContext& context, const RequestTarget& target) {
  using namespace tiles_endpoint_detail;  // NOLINT: this file's helpers
  const auto& path = target.path;         // tileMatrixSets[, ID]
  if (path.size() == 1) {
    Status s = CheckParameters(target, {"f"}, "the tile matrix sets");
    if (!s.ok()) return ErrorResponse(s);
    const std::string url = context.base + "/tileMatrixSets/WebMercatorQuad";
    return JsonResponse(
        {{"links",
          {Link(context.base + "/tileMatrixSets", "self", "application/json", "this list")}},
         {"tileMatrixSets",
          {{{"id", "WebMercatorQuad"},
            {"title", "Google Maps Compatible for the World"},
            {"uri", kTmsUri},
            {"links",
             {Link(url, "self", "application/json", "the definition"),
              Link(url, kTilingSchemeRel, "application/json", "the definition")}}}}}});
  }
  if (path.size() != 2 || path[1] != "WebMercatorQuad") {
    return ErrorResponse(404, "NotFound",
                         "no tile matrix set " + Quote(path.size() > 1 ? path[1] : "") +
                             ": the one served is WebMercatorQuad");
  }
  Status s = CheckParameters(target, {"f", "encoding"}, "the tile matrix set");
  if (!s.ok()) return ErrorResponse(s);
  bool v2 = false;
  if (const std::string* e = Get(target, "encoding")) {
    if (*e != "1.0" && *e != "2.0") {
      return ErrorResponse(Status::InvalidArgument(
          "encoding " + Quote(*e) + " is not 1.0 (the default, which GDAL 3.6 reads) or 2.0"));
    }
    v2 = *e == "2.0";
  }
  HttpResponse r;
  r.content_type = "application/json";
  r.body = WebMercatorQuadJson(v2);
  return r;
}

}  // namespace gridstore::server
