// Copyright 2026 The GridStore Authors.
//
// /collections (the catalog search: the --where language, sort, paging; forecast collections
// first, then the datasets outside them) and /collections/{id}.
#include <charconv>
#include <set>
#include <vector>

#include "gridstore/catalog/query_parser.h"
#include "gridstore/forecast/collection.h"
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

// The forecast collections /collections lists: every served one, or with a `where`, those one
// of whose served datasets matches it (`status_text` is the status condition). By name.
Result<std::vector<forecast::Collection>> ListedCollections(const EndpointContext& context,
                                                            const std::string* where,
                                                            const std::string& status_text) {
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<forecast::Collection> all,
                             forecast::ListCollections(*context.store));
  std::set<std::string> matching;
  if (where != nullptr) {
    GRIDSTORE_ASSIGN_OR_RETURN(
        grid::Query query,
        grid::ParseQuery("(" + *where + ") and " + status_text + " and (" +
                         std::string(forecast::kCollectionAttribute) + " exists)"));
    grid::QueryParams params;
    params.limit = -1;
    GRIDSTORE_ASSIGN_OR_RETURN(grid::QueryResult found,
                               context.store->QueryDataSets(query, params));
    for (const grid::DataSetMeta& meta : found.metas) {
      matching.insert(grid::StringAttribute(meta.attributes, forecast::kCollectionAttribute));
    }
  }
  std::vector<forecast::Collection> listed;
  for (forecast::Collection& c : all) {
    if (NewestServedRun(c) == nullptr) continue;
    if (where != nullptr && !matching.contains(c.name)) continue;
    listed.push_back(std::move(c));
  }
  return listed;
}

// Adds the documents of `metas` to `collections`, and returns how many were added or named.
// Datasets that cannot be an EDR collection (no grid located in longitude and latitude) are not
// collections (an EDR client needs their extent) but go to `not_collections` with the reason,
// so that a page lists them instead of losing them (issue 32).
int64_t AddDatasets(const EndpointContext& context, const std::vector<grid::DataSetMeta>& metas,
                    ordered_json* collections, ordered_json* not_collections) {
  for (const grid::DataSetMeta& meta : metas) {
    Result<std::shared_ptr<const CollectionSummary>> summary = context.summaries->Get(meta);
    if (summary.ok()) {
      collections->push_back(CollectionDocument(meta, **summary, context.base));
    } else {
      not_collections->push_back(
          {{"id", meta.id}, {"reason", std::string(summary.status().message())}});
    }
  }
  return int64_t(metas.size());
}

Result<HttpResponse> Catalog(const EndpointContext& context, const RequestTarget& target) {
  GRIDSTORE_RETURN_IF_ERROR(
      CheckParameters(target, {"where", "sort", "limit", "offset", "f"}, "/collections"));
  auto where = target.query.find("where");
  // Complete datasets, and runs still arriving (their complete steps are served).
  const std::string status_text = "(status = 'DONE' or status = 'INGESTING')";
  const std::string* user_where = nullptr;
  if (where != target.query.end() && !Trim(where->second).empty()) {
    // The user's expression alone first, so that its errors point into what they wrote.
    Result<grid::Query> own = grid::ParseQuery(where->second);
    if (!own.ok()) {
      return Status::InvalidArgument("where: " + std::string(own.status().message()));
    }
    user_where = &where->second;
  }
  // The datasets outside any forecast collection (its members are listed as the collection).
  std::string text =
      status_text + " and not (" + std::string(forecast::kCollectionAttribute) + " exists)";
  if (user_where != nullptr) text = "(" + *user_where + ") and " + text;
  GRIDSTORE_ASSIGN_OR_RETURN(grid::Query query, grid::ParseQuery(text));
  grid::QueryParams params;
  auto sort = target.query.find("sort");
  if (sort != target.query.end()) {
    GRIDSTORE_ASSIGN_OR_RETURN(params.sort, grid::ParseSortFields(sort->second, "sort"));
  }
  GRIDSTORE_ASSIGN_OR_RETURN(params.limit, Integer(target, "limit", kDefaultLimit, 1, kMaxLimit));
  GRIDSTORE_ASSIGN_OR_RETURN(params.offset,
                             Integer(target, "offset", 0, 0, std::numeric_limits<int64_t>::max()));
  const int64_t limit = params.limit, offset = params.offset;
  // The forecast collections come first, by name, then the datasets: one list, paged as one.
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<forecast::Collection> forecasts,
                             ListedCollections(context, user_where, status_text));
  const int64_t num_forecasts = int64_t(forecasts.size());
  ordered_json collections = ordered_json::array();
  for (int64_t i = offset; i < num_forecasts && i < offset + limit; ++i) {
    Result<ordered_json> doc = ForecastCollectionDocument(context, forecasts[size_t(i)]);
    if (doc.ok()) collections.push_back(std::move(*doc));
  }
  const int64_t from_forecasts = std::max<int64_t>(
      0, std::min(num_forecasts, offset + limit) - std::min(num_forecasts, offset));
  params.offset = std::max<int64_t>(0, offset - num_forecasts);
  params.limit = std::max<int64_t>(1, limit - from_forecasts);
  params.ids_only = from_forecasts == limit;  // the page is full: only the count is needed
  params.get_total_count = true;
  GRIDSTORE_ASSIGN_OR_RETURN(grid::QueryResult found, context.store->QueryDataSets(query, params));
  ordered_json not_collections = ordered_json::array();
  const int64_t from_datasets =
      params.ids_only ? 0 : AddDatasets(context, found.metas, &collections, &not_collections);
  const int64_t total = num_forecasts + found.total;
  const int64_t returned = from_forecasts + from_datasets;
  ordered_json links = {
      {{"href", PageLink(context, target, offset)}, {"rel", "self"}, {"type", "application/json"}}};
  if (offset + returned < total) {
    links.push_back({{"href", PageLink(context, target, offset + returned)},
                     {"rel", "next"},
                     {"type", "application/json"}});
  }
  if (offset > 0) {
    links.push_back({{"href", PageLink(context, target, std::max<int64_t>(0, offset - limit))},
                     {"rel", "prev"},
                     {"type", "application/json"}});
  }
  ordered_json page = {{"links", links},
                       {"collections", collections},
                       {"numberMatched", total},
                       {"numberReturned", returned}};
  if (!not_collections.empty()) page["gridstore"] = {{"not_collections", not_collections}};
  return JsonResponse(page);
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
  if (!meta.ok()) {
    // Not a served dataset: a forecast collection of that name, or the dataset's error.
    if (meta.status().IsNotFound()) {
      Result<forecast::Collection> c = ServedCollection(context, id);
      if (c.ok()) return ForecastCollectionEndpoint(context, *c, target);
    }
    return ErrorResponse(meta.status());
  }
  Result<std::shared_ptr<const CollectionSummary>> summary = context.summaries->Get(*meta);
  if (!summary.ok()) return ErrorResponse(404, "NotFound", std::string(summary.status().message()));
  return JsonResponse(CollectionDocument(*meta, **summary, context.base));
}

}  // namespace gridstore::server
