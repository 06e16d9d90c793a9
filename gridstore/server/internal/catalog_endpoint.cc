// Copyright 2026 The GridStore Authors.
//
// /collections (the catalog search: the --where language, sort, paging) and /collections/{id}.
#include <charconv>

#include "gridstore/catalog/query_parser.h"
#include "gridstore/server/internal/endpoints.h"
#include "gridstore/server/internal/responses.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::server {
namespace {

constexpr int64_t kDefaultLimit = 100;
constexpr int64_t kMaxLimit = 1000;

Result<int64_t> Integer(const RequestTarget& target, const char* name, int64_t fallback,
                        int64_t min, int64_t max) {
  auto it = target.query.find(name);
  if (it == target.query.end()) return fallback;
  int64_t v = -1;
  const std::string& text = it->second;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < min || v > max) {
    return Status::InvalidArgument(std::string(name) + " " + Quote(text) +
                                   " is not an integer from " + std::to_string(min) + " to " +
                                   std::to_string(max));
  }
  return v;
}

// The page link for `offset`, keeping the other parameters.
std::string PageLink(const EndpointContext& context, const RequestTarget& target, int64_t offset) {
  std::string link = context.base + "/collections?";
  for (const auto& [name, value] : target.query) {
    if (name != "offset") link += PercentEncode(name) + "=" + PercentEncode(value) + "&";
  }
  return link + "offset=" + std::to_string(offset);
}

Result<HttpResponse> Catalog(const EndpointContext& context, const RequestTarget& target) {
  GRIDSTORE_RETURN_IF_ERROR(
      CheckParameters(target, {"where", "sort", "limit", "offset", "f"}, "/collections"));
  auto where = target.query.find("where");
  // Complete datasets, and runs still arriving (their complete steps are served).
  std::string text = "(status = 'DONE' or status = 'INGESTING')";
  if (where != target.query.end() && !Trim(where->second).empty()) {
    // The user's expression alone first, so that its errors point into what they wrote.
    Result<grid::Query> own = grid::ParseQuery(where->second);
    if (!own.ok()) {
      return Status::InvalidArgument("where: " + std::string(own.status().message()));
    }
    text = "(" + where->second + ") and " + text;
  }
  GRIDSTORE_ASSIGN_OR_RETURN(grid::Query query, grid::ParseQuery(text));
  grid::QueryParams params;
  auto sort = target.query.find("sort");
  if (sort != target.query.end()) {
    GRIDSTORE_ASSIGN_OR_RETURN(params.sort, grid::ParseSortFields(sort->second, "sort"));
  }
  GRIDSTORE_ASSIGN_OR_RETURN(params.limit, Integer(target, "limit", kDefaultLimit, 1, kMaxLimit));
  GRIDSTORE_ASSIGN_OR_RETURN(params.offset,
                             Integer(target, "offset", 0, 0, std::numeric_limits<int64_t>::max()));
  params.get_total_count = true;
  GRIDSTORE_ASSIGN_OR_RETURN(grid::QueryResult found, context.store->QueryDataSets(query, params));
  ordered_json collections = ordered_json::array();
  for (const grid::DataSetMeta& meta : found.metas) {
    Result<std::shared_ptr<const CollectionSummary>> summary = context.summaries->Get(meta);
    if (summary.ok()) collections.push_back(CollectionDocument(meta, **summary, context.base));
  }
  ordered_json links = {{{"href", PageLink(context, target, params.offset)},
                         {"rel", "self"},
                         {"type", "application/json"}}};
  const int64_t returned = static_cast<int64_t>(found.metas.size());
  if (params.offset + returned < found.total) {
    links.push_back({{"href", PageLink(context, target, params.offset + returned)},
                     {"rel", "next"},
                     {"type", "application/json"}});
  }
  if (params.offset > 0) {
    links.push_back(
        {{"href", PageLink(context, target, std::max<int64_t>(0, params.offset - params.limit))},
         {"rel", "prev"},
         {"type", "application/json"}});
  }
  return JsonResponse({{"links", links},
                       {"collections", collections},
                       {"numberMatched", found.total},
                       {"numberReturned", returned}});
}

}  // namespace

HttpResponse CatalogEndpoint(const EndpointContext& context, const RequestTarget& target) {
  Result<HttpResponse> r = Catalog(context, target);
  return r.ok() ? std::move(*r) : ErrorResponse(r.status());
}

HttpResponse CollectionEndpoint(const EndpointContext& context, const std::string& id,
                                const RequestTarget& target) {
  Status s = CheckParameters(target, {"f"}, "a collection");
  if (!s.ok()) return ErrorResponse(s);
  Result<grid::DataSetMeta> meta = CollectionMeta(context, id);
  if (!meta.ok()) return ErrorResponse(meta.status());
  Result<std::shared_ptr<const CollectionSummary>> summary = context.summaries->Get(*meta);
  if (!summary.ok()) return ErrorResponse(404, "NotFound", std::string(summary.status().message()));
  return JsonResponse(CollectionDocument(*meta, **summary, context.base));
}

}  // namespace gridstore::server
