// Copyright 2026 The GridStore Authors.
#include "gridstore/server/edr_service.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "gridstore/grid/grid_store.h"
#include "gridstore/server/internal/documents.h"
#include "gridstore/server/internal/endpoints.h"
#include "gridstore/server/internal/map_cache.h"
#include "gridstore/server/internal/responses.h"
#include "gridstore/server/internal/viewer_assets.h"
#include "gridstore/server/query_string.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::server {
namespace {

bool Authorized(const std::vector<std::string>& tokens, std::string_view header) {
  constexpr std::string_view kBearer = "Bearer ";
  if (header.size() <= kBearer.size() || header.substr(0, kBearer.size()) != kBearer) return false;
  const std::string_view given = header.substr(kBearer.size());
  bool match = false;
  for (const std::string& token : tokens) match |= ConstantTimeEquals(given, token);
  return match;  // every token compared: the time does not say which one matched
}

const char* ContentTypeOf(std::string_view name) {
  if (name.ends_with(".html")) return "text/html; charset=utf-8";
  if (name.ends_with(".js")) return "text/javascript; charset=utf-8";
  if (name.ends_with(".css")) return "text/css; charset=utf-8";
  return "application/octet-stream";
}

HttpResponse ViewerEndpoint(const RequestTarget& target) {
  const std::string name = target.path.size() == 1 ? "index.html" : target.path[1];
  if (target.path.size() <= 2) {
    for (const ViewerAsset& asset : ViewerAssets()) {
      if (asset.name != name) continue;
      HttpResponse r;
      r.content_type = ContentTypeOf(name);
      r.body = std::string(asset.content);
      // The basemap is made at build time and its URL names its format version (basemap.js):
      // a week in the browser's cache. The page's own files change with the build: revalidated.
      r.headers.emplace_back("Cache-Control",
                             name == "basemap.bin" ? "public, max-age=604800" : "no-cache");
      return r;
    }
  }
  return ErrorResponse(404, "NotFound", "the viewer has no file " + Quote(name));
}

HttpResponse CollectionsRouteAsSent(const EndpointContext& context, const RequestTarget& target) {
  const auto& path = target.path;
  if (path.size() == 1) return CatalogEndpoint(context, target);
  if (path.size() == 2) return CollectionEndpoint(context, path[1], target);
  if (path[2] == "map") return MapResourceEndpoint(context, path[1], target);
  if (path[2] == "instances") {
    // A forecast collection's runs (a dataset has none).
    if (CollectionMeta(context, path[1]).ok()) {
      return ErrorResponse(
          404, "NotFound",
          "dataset " + Quote(path[1]) + " has no instances: only forecast collections have runs");
    }
    return InstancesEndpoint(context, path[1], target);
  }
  if (path.size() == 3) {
    if (path[2] == "map.png") return MapEndpoint(context, path[1], target);
    if (auto type = EdrQueryTypeFromName(path[2])) {
      return QueryEndpoint(context, path[1], *type, target);
    }
    return ErrorResponse(404, "NotFound",
                         "no query " + Quote(path[2]) +
                             ": the queries are position, area, cube, radius, trajectory, "
                             "corridor (and map.png, map, map/legend, map/tiles)");
  }
  return ErrorResponse(404, "NotFound",
                       "no such resource (a dataset or collection id containing '/' is written "
                       "%2F)");
}

// /collections/..., with an id whose '/' was not written %2F taken as meant: a 404 of the path as
// sent is retried with the longest run of segments after /collections that names a served
// dataset or forecast collection as the id (/collections/ecmf/ens/position is
// /collections/ecmf%2Fens/position). Only a 404 pays for the look-ups.
HttpResponse CollectionsRoute(const EndpointContext& context, const RequestTarget& target) {
  HttpResponse r = CollectionsRouteAsSent(context, target);
  const auto& path = target.path;
  if (r.status != 404 || path.size() < 3) return r;
  for (size_t end = path.size(); end >= 3; --end) {
    std::string id = path[1];
    for (size_t k = 2; k < end; ++k) id += "/" + path[k];
    if (!CollectionMeta(context, id).ok() && !ServedCollection(context, id).ok()) continue;
    RequestTarget joined = target;
    joined.path = {path[0], id};
    joined.path.insert(joined.path.end(), path.begin() + std::ptrdiff_t(end), path.end());
    return CollectionsRouteAsSent(context, joined);
  }
  return r;
}

HttpResponse Route(const EndpointContext& context, const RequestTarget& target) {
  const auto& path = target.path;
  if (path.empty()) {
    Status s = CheckParameters(target, {"f"}, "the landing page");
    return s.ok() ? JsonResponse(LandingPage(context.base)) : ErrorResponse(s);
  }
  if (path[0] == "collections") return CollectionsRoute(context, target);
  if (path[0] == "viewer") return ViewerEndpoint(target);
  if (path[0] == "tileMatrixSets") return TileMatrixSetsEndpoint(context, target);
  if (path.size() == 1 && path[0] == "conformance") {
    Status s = CheckParameters(target, {"f"}, "conformance");
    return s.ok() ? JsonResponse(ConformancePage()) : ErrorResponse(s);
  }
  if (path.size() == 1 && path[0] == "api") {
    return JsonResponse(OpenApiDocument(context.base),
                        "application/vnd.oai.openapi+json;version=3.0");
  }
  return ErrorResponse(404, "NotFound",
                       "no such resource; start at / (links) or /viewer (the map viewer)");
}

}  // namespace

Result<std::vector<std::string>> ReadTokenFile(const std::string& path) {
  // A regular file of at most 1 MiB: a directory, FIFO or device (/dev/zero) is refused before it
  // is read, so that a wrong path cannot block the start or fill memory.
  constexpr uintmax_t kMaxBytes = 1 << 20;
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec || !std::filesystem::exists(status)) {
    return Status::InvalidArgument("--token-file " + Quote(path) + " does not exist");
  }
  if (!std::filesystem::is_regular_file(status)) {
    return Status::InvalidArgument("--token-file " + Quote(path) + " is not a regular file");
  }
  if (std::filesystem::file_size(path, ec) > kMaxBytes || ec) {
    return Status::InvalidArgument("--token-file " + Quote(path) + " is larger than 1 MiB");
  }
  std::ifstream in(path);
  if (!in) return Status::InvalidArgument("--token-file " + Quote(path) + " cannot be read");
  std::vector<std::string> tokens;
  std::string line;
  while (std::getline(in, line)) {
    const std::string_view token = Trim(line);
    if (!token.empty() && token[0] != '#') tokens.emplace_back(token);
  }
  if (tokens.empty()) {
    return Status::InvalidArgument("--token-file " + Quote(path) + " holds no token");
  }
  return tokens;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  volatile unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff = diff | (a[i] ^ b[i]);
  return diff == 0;
}

EdrService::EdrService(StoreSource* source, ServiceOptions options)
    : source_(source),
      options_(std::move(options)),
      summaries_(std::make_unique<CollectionSummaries>()),
      maps_(std::make_unique<MapCache>(options_.map_cache_bytes)) {}

EdrService::~EdrService() = default;

HttpResponse EdrService::Handle(const HttpRequest& request) const {
  if (request.method == "OPTIONS") {
    // A CORS preflight (browsers send one before a request with Authorization): it carries no
    // credentials, so it is answered without a token (issue 29, 4.4). The transport adds
    // Access-Control-Allow-Origin when `serve --cors` names an origin.
    HttpResponse r;
    r.status = 204;
    r.content_type = "text/plain";
    r.headers.emplace_back("Allow", "GET, HEAD, OPTIONS");
    r.headers.emplace_back("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS");
    r.headers.emplace_back("Access-Control-Allow-Headers", "Authorization");
    r.headers.emplace_back("Access-Control-Max-Age", "600");
    return r;
  }
  if (request.method != "GET" && request.method != "HEAD") {
    HttpResponse r = ErrorResponse(
        405, "MethodNotAllowed",
        "the service is read-only: " + Quote(request.method) + " is not allowed (GET, HEAD)");
    r.headers.emplace_back("Allow", "GET, HEAD, OPTIONS");
    return r;
  }
  // The viewer's page and scripts hold no data: they load without a token and ask for it.
  const bool viewer = request.target == "/viewer" || request.target.starts_with("/viewer/") ||
                      request.target.starts_with("/viewer?");
  if (!viewer && !options_.tokens.empty() && !Authorized(options_.tokens, request.authorization)) {
    HttpResponse r =
        ErrorResponse(401, "Unauthorized", "this service needs an Authorization: Bearer token");
    r.headers.emplace_back("WWW-Authenticate", "Bearer");
    return r;
  }
  Result<RequestTarget> target = ParseTarget(request.target);
  if (!target.ok()) return ErrorResponse(target.status());
  EndpointContext context{source_->Current(), &options_, summaries_.get(), BaseUrl(request),
                          maps_.get()};
  return Route(context, *target);
}

bool EdrService::IsExpensive(const HttpRequest& request) {
  std::string_view path = request.target;
  path = path.substr(0, path.find('?'));
  if (!path.starts_with("/collections/")) return false;
  // Maps, legends and tiles render (and a first one reads a run's planes for its range).
  if (path.find("/map/tiles/WebMercatorQuad/") != std::string_view::npos) return true;
  const std::string_view last = path.substr(path.rfind('/') + 1);
  for (std::string_view heavy :
       {"map.png", "map", "legend", "area", "cube", "radius", "trajectory", "corridor"}) {
    if (last == heavy) return true;
  }
  return false;
}

Result<grid::DataSetMeta> CollectionMeta(const EndpointContext& context, const std::string& id) {
  Result<grid::DataSetMeta> meta = context.store->GetDataSetMeta(id);
  if (meta.status().IsNotFound() || (meta.ok() && meta->status() != grid::kStatusDone &&
                                     meta->status() != grid::kStatusIngesting)) {
    std::string why = "no collection " + Quote(id);
    if (meta.ok()) {
      why += ": the dataset's status is " + Quote(meta->status()) +
             ", and only DONE datasets (and INGESTING runs, their complete steps) are served";
    }
    return Status::NotFound(why);
  }
  return meta;
}

Status CheckParameters(const RequestTarget& target, std::initializer_list<std::string_view> allowed,
                       std::string_view where) {
  for (const auto& [name, value] : target.query) {
    bool known = false;
    for (std::string_view a : allowed) known |= name == a;
    if (!known) {
      return Status::InvalidArgument(std::string(where) + " has no parameter " + Quote(name) +
                                     "; it takes " + Join(allowed, ", "));
    }
    if (name == "f" && value != "json" && value != "application/json") {
      return Status::InvalidArgument("f " + Quote(value) + ": " + std::string(where) +
                                     " is JSON only (f=json)");
    }
  }
  return Status::OK();
}

}  // namespace gridstore::server
