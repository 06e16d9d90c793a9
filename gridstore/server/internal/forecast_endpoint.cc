// Copyright 2026 The GridStore Authors.
//
// Forecast collections (forecast/collection.h) over OGC API-EDR 1.1 (docs/serve.md, "Forecast
// collections"): one EDR collection per forecast collection, its runs as EDR instances, and the
// data queries through forecast::ExtractCollection (runs, members, ensemble statistics, the
// cross-run views, units) written by formats::WriteCollection. A run is served when every one of
// its member datasets is DONE or INGESTING (as datasets are).
#include <algorithm>
#include <cmath>
#include <sstream>

#include "gridstore/forecast/collection_query.h"
#include "gridstore/forecast/derived.h"
#include "gridstore/formats/output_format.h"
#include "gridstore/geo/extract.h"
#include "gridstore/server/internal/endpoints.h"
#include "gridstore/server/internal/responses.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::server {
namespace {

using forecast::Collection;
using forecast::Run;

constexpr size_t kMaxListedRuns = 1000;  // values listed in a custom extent
constexpr double kForecastMiB = 1024.0 * 1024.0;
// The parameters a forecast collection's queries take beyond EDR's (docs/serve.md).
const std::vector<std::string> kForecastParameters = {"run",  "member", "stat",
                                                      "lead", "best",   "units"};
const std::vector<std::string> kForecastFormats = {"CoverageJSON", "NetCDF", "CSV", "JSON"};

bool ServedRun(const Run& run) {
  return !run.members.empty() &&
         std::all_of(run.members.begin(), run.members.end(), [](const forecast::RunMember& m) {
           return m.meta->status() == grid::kStatusDone ||
                  m.meta->status() == grid::kStatusIngesting;
         });
}

std::string CollectionUrl(const EndpointContext& context, const std::string& name) {
  return context.base + "/collections/" + PercentEncode(name);
}

std::string InstanceId(const Run& run) { return forecast::FormatIsoMs(run.run_time_ms); }

std::string ForecastMiB(double bytes) {
  return FormatDouble(std::round(bytes / kForecastMiB * 10) / 10);
}

// extent.custom's entry for `values` (strings) of axis `id`.
ordered_json CustomExtent(const std::string& id, const std::vector<std::string>& values,
                          const std::string& reference) {
  ordered_json listed = ordered_json::array();
  for (size_t i = 0; i < values.size() && i < kMaxListedRuns; ++i) listed.push_back(values[i]);
  return {{"id", id},
          {"interval", ordered_json::array({ordered_json::array({values.front(), values.back()})})},
          {"values", listed},
          {"reference", reference}};
}

// The parameters of `meta` (the variables with a horizontal grid) and the wind speed and
// direction its u/v pairs derive (forecast/derived.h).
ordered_json ForecastParameters(const grid::DataSetMeta& meta, const CollectionSummary& summary) {
  ordered_json parameters = ordered_json::object();
  for (const std::string& name : summary.variables) {
    parameters[name] = Parameter(*meta.FindVariable(name));
  }
  for (const forecast::WindPair& pair : forecast::WindPairs(meta)) {
    for (bool speed : {true, false}) {
      grid::VariableMeta derived = *meta.FindVariable(pair.u);
      derived.name = speed ? pair.speed : pair.direction;
      derived.attributes.clear();
      derived.attributes["long_name"] = grid::AttributeValue::String(
          std::string(speed ? "wind speed" : "wind direction (from, clockwise from north)") +
          " derived from " + pair.u + " and " + pair.v);
      derived.attributes["units"] = grid::AttributeValue::String(
          speed ? grid::StringAttribute(meta.FindVariable(pair.u)->attributes, "units") : "degree");
      derived.attributes["standard_name"] =
          grid::AttributeValue::String(speed ? "wind_speed" : "wind_from_direction");
      parameters[derived.name] = Parameter(derived);
    }
  }
  return parameters;
}

// The runs of `c` that are served, oldest first.
std::vector<const Run*> ServedRuns(const Collection& c) {
  std::vector<const Run*> served;
  for (const Run& r : c.runs) {
    if (ServedRun(r)) served.push_back(&r);
  }
  return served;
}

// The members a document lists: those of `run` for an instance, of any run for the collection.
std::vector<int64_t> DocumentMembers(const Collection& c, const Run& run, bool instance) {
  std::vector<int64_t> members;
  if (instance) {
    for (const forecast::RunMember& m : run.members) {
      if (m.member != forecast::kNoMember) members.push_back(m.member);
    }
  } else {
    members = c.Members();
  }
  return members;
}

// The document's description: the run's datasets, or the collection's runs and how to ask more.
std::string ForecastDescription(const Collection& c, const Run& run, bool instance,
                                size_t served_runs, const std::vector<int64_t>& members) {
  return instance ? "run " + InstanceId(run) + " of forecast collection " + Quote(c.name) + ": " +
                        std::to_string(run.members.size()) + " dataset(s)"
                  : "forecast collection " + Quote(c.name) + ": " + std::to_string(served_runs) +
                        " run(s), the latest " + InstanceId(run) +
                        (members.empty() ? ", deterministic"
                                         : ", " + std::to_string(members.size()) + " members") +
                        ". Queries answer from the latest run; run=, member=, stat=, lead=, "
                        "best=true and run=all with one datetime (constant forecast time) ask for "
                        "more";
}

// The document's links: itself, and the collection (instance) or its runs and map (collection).
ordered_json ForecastLinks(const std::string& url, const std::string& collection_url,
                           bool instance) {
  ordered_json links = {Link(url, "self", "application/json", "")};
  if (instance) {
    links.push_back(
        Link(collection_url, "collection", "application/json", "the forecast collection"));
  } else {
    links.push_back(Link(collection_url + "/instances", "data", "application/json",
                         "the runs (EDR instances)"));
  }
  if (!instance) {
    links.push_back(
        Link(url + "/map.png", "preview", "image/png", "quick-look map of the latest run"));
    for (ordered_json& link : MapLinks(url)) links.push_back(std::move(link));
  }
  return links;
}

// The document's extent: the summary's space, time and level, and in extent.custom a time-like
// axis without calendar, the members and the runs (`runs`, instance ids).
ordered_json ForecastExtent(const CollectionSummary& summary, const std::vector<int64_t>& members,
                            const std::vector<std::string>& runs) {
  ordered_json extent = ordered_json::object();
  if (summary.bbox) {
    const auto& b = *summary.bbox;
    extent["spatial"] = {{"bbox", {{b[0], b[1], b[2], b[3]}}},
                         {"crs", "http://www.opengis.net/def/crs/OGC/1.3/CRS84"}};
  }
  ordered_json custom = ordered_json::array();
  if (summary.time_axis) {
    ordered_json t = AxisExtent(*summary.time_axis);
    if (summary.time_axis->is_time()) {
      extent["temporal"] = std::move(t);
    } else {
      t["id"] = summary.time_axis->name();
      t["reference"] = "a time-like axis without CF time units: it has no calendar";
      custom.push_back(std::move(t));
    }
  }
  if (summary.level_axis) extent["vertical"] = AxisExtent(*summary.level_axis);
  if (!members.empty()) {
    std::vector<std::string> values;
    for (int64_t m : members) values.push_back(std::to_string(m));
    custom.push_back(CustomExtent(
        "member", values,
        "ensemble member number (GRIB number; 0 is the control forecast): member=all or a list "
        "such as 0,3,5; stat= gives statistics over them"));
  }
  custom.push_back(CustomExtent(
      "run", runs,
      "forecast reference time, ISO 8601 (each run is an instance): run=latest, latest-N, ISO, "
      "ISO/ISO or all"));
  extent["custom"] = std::move(custom);
  return extent;
}

// The document's data_queries: EDR's, and for the collection its instances.
ordered_json ForecastDataQueries(const std::string& url, const std::string& collection_url,
                                 bool instance) {
  ordered_json queries = DataQueries(url, kForecastFormats);
  if (!instance) {
    queries["instances"] = {{"link",
                             {{"href", collection_url + "/instances"},
                              {"rel", "data"},
                              {"title", "the runs"},
                              {"variables", {{"query_type", "instances"}}}}}};
  }
  return queries;
}

// gridstore.forecast of the document: the run and its datasets (instance) or the latest run and
// the count of runs (collection), then the members, statistics and leads.
ordered_json ForecastAbout(const Collection& c, const Run& run, bool instance,
                           const std::vector<int64_t>& members, size_t runs) {
  ordered_json about = {{"collection", c.name}};
  if (instance) {
    about["run"] = InstanceId(run);
    about["complete"] = run.complete();
    about["datasets"] = ordered_json::array();
    for (const auto& m : run.members) about["datasets"].push_back(m.meta->id);
  } else {
    about["latest"] = InstanceId(run);
    about["runs"] = runs;
  }
  about["members"] = members;
  about["statistics"] = "stat=mean,spread,min,max,pN,prob>X,prob<X (comma-separated)";
  ordered_json leads = ordered_json::array();
  for (int64_t l : c.LeadsMs()) leads.push_back(forecast::FormatLead(l));
  about["leads"] = leads;
  return about;
}

// The document of a forecast collection (`instance` null) or of one of its runs (an EDR
// instance), described from `run`'s first member: extents, parameters, queries. Its parts are
// made by the helpers above, in the order of the document's keys.
Result<ordered_json> ForecastDocument(const EndpointContext& context, const Collection& c,
                                      const Run& run, bool instance) {
  const grid::DataSetMeta& meta = *run.members.front().meta;
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const CollectionSummary> summary,
                             context.summaries->Get(meta));
  const std::string collection_url = CollectionUrl(context, c.name);
  const std::string url =
      instance ? collection_url + "/instances/" + PercentEncode(InstanceId(run)) : collection_url;
  const std::vector<const Run*> served = ServedRuns(c);
  const std::vector<int64_t> members = DocumentMembers(c, run, instance);
  std::vector<std::string> runs;  // instance ids, as extent.custom lists them
  if (instance) {
    runs.push_back(InstanceId(run));
  } else {
    for (const Run* r : served) runs.push_back(InstanceId(*r));
  }
  ordered_json doc = {{"id", instance ? InstanceId(run) : c.name}};
  doc["title"] = instance ? c.name + ", run " + InstanceId(run) : c.name;
  doc["description"] = ForecastDescription(c, run, instance, served.size(), members);
  doc["links"] = ForecastLinks(url, collection_url, instance);
  doc["extent"] = ForecastExtent(*summary, members, runs);
  doc["data_queries"] = ForecastDataQueries(url, collection_url, instance);
  doc["crs"] = {"CRS84"};
  doc["output_formats"] = kForecastFormats;
  doc["parameter_names"] = ForecastParameters(meta, *summary);
  doc["gridstore"] = {{"forecast", ForecastAbout(c, run, instance, members, runs.size())},
                      {"grid", summary->grid_description},
                      {"cells", {{"x", summary->nx}, {"y", summary->ny}}},
                      {"default_parameters", summary->default_variables}};
  return doc;
}

// A query string value: "" if absent.
std::optional<std::string> Take(QueryParameters* parameters, const char* name) {
  auto it = parameters->find(name);
  if (it == parameters->end()) return std::nullopt;
  std::string value(Trim(it->second));
  parameters->erase(it);
  return value;
}

// Why the answer would be too large (413), estimated from a plan of the newest run asked, or
// nullopt (also when the estimate cannot be made: the query then says what is wrong).
std::optional<std::string> CollectionTooLarge(const EndpointContext& context, const Collection& c,
                                              const forecast::CollectionRequest& request,
                                              OutputFormat format) {
  const bool one_time_per_run = !request.valid_time.empty() || !request.lead.empty();
  const std::string runs_spec = !request.runs.empty()                ? request.runs
                                : (one_time_per_run || request.best) ? "all"
                                                                     : "latest";
  Result<std::vector<const Run*>> runs = forecast::SelectRuns(c, runs_spec);
  if (!runs.ok() || runs->empty()) return std::nullopt;
  const Run& newest = *runs->back();
  size_t entries = newest.members.size();
  if (!request.statistics.empty()) {
    entries = SplitList(request.statistics, ',').size();
  } else if (!request.members.empty() && request.members != "all") {
    entries = SplitList(request.members, ',').size();
  }
  const double slices = double(runs->size()) * double(entries);
  grid::ExtractRequest extract = request.extract;
  if (one_time_per_run) extract.time.clear();
  if (request.best) extract.time.clear();
  if (!extract.variables.empty()) {
    extract.variables =
        forecast::ResolveDerived(*newest.members.front().meta, extract.variables).read;
  }
  Result<std::vector<grid::PlannedExtract>> plans =
      grid::PlanExtractions(*context.store, newest.members.front().meta, extract, nullptr);
  if (!plans.ok()) return std::nullopt;
  double values = 0, variables = 0;
  for (const grid::PlannedExtract& p : *plans) {
    const grid::ExtractPlan& plan = p.plan();
    const double places = plan.kind == grid::FeatureKind::kArea
                              ? double(plan.area[2]) * double(plan.area[3])
                              : double(plan.points.size());
    const double times = one_time_per_run ? 1.0 : double(plan.num_times());
    values += places * times * double(plan.num_levels()) * double(p.variables().size());
    variables += double(p.variables().size());
  }
  const double per_value = format == OutputFormat::kCoverageJson ? 10
                           : format == OutputFormat::kNetCdf     ? 8
                           : format == OutputFormat::kCsv ? 14 + 120.0 / std::max(variables, 1.0)
                                                          : 24 + 160.0 / std::max(variables, 1.0);
  const double bytes = values * slices * per_value;
  const int64_t limit = context.options->max_response_bytes;
  if (bytes <= double(limit)) return std::nullopt;
  return "the response would be about " + ForecastMiB(bytes) + " MiB (" +
         std::to_string(runs->size()) + " run(s) x " + std::to_string(entries) +
         (request.statistics.empty() ? " member(s)" : " statistic(s)") + " x " +
         FormatDouble(values) + " values), over the limit of " + ForecastMiB(double(limit)) +
         " MiB: narrow run, member, stat, the area (coords or bbox), datetime, z or "
         "parameter-name";
}

// Moves the forecast parameters (run, member, stat, lead, best, units) from `parameters` into
// `request`, checking their values.
Status TakeForecastParameters(QueryParameters* parameters, forecast::CollectionRequest* request) {
  if (auto run = Take(parameters, "run")) {
    if (run->empty()) return Status::InvalidArgument("run is empty: latest, ISO, ISO/ISO or all");
    request->runs = *run;
  }
  if (auto member = Take(parameters, "member")) request->members = *member;
  if (auto stat = Take(parameters, "stat")) {
    if (stat->empty()) {
      return Status::InvalidArgument("stat is empty: mean, spread, min, max, pN, prob>X, prob<X");
    }
    request->statistics = *stat;
  }
  if (auto lead = Take(parameters, "lead")) {
    if (lead->empty()) return Status::InvalidArgument("lead is empty: a duration such as 24h");
    request->lead = *lead;
  }
  if (auto best = Take(parameters, "best")) {
    if (*best != "true" && *best != "false") {
      return Status::InvalidArgument("best " + Quote(*best) + " is not true or false");
    }
    request->best = *best == "true";
  }
  if (auto units = Take(parameters, "units")) request->units = *units;
  return Status::OK();
}

// The collection request of a query of `type` on `c`: EDR's `extract` with the forecast
// parameters, the run being `instance` when asked under /instances (which refuses run=).
Result<forecast::CollectionRequest> ForecastRequest(const Collection& c, EdrQueryType type,
                                                    grid::ExtractRequest extract,
                                                    QueryParameters* parameters,
                                                    const std::string* instance) {
  forecast::CollectionRequest request;
  request.collection = c.name;
  request.extract = std::move(extract);
  if (instance != nullptr) {
    if (parameters->contains("run")) {
      return Status::InvalidArgument("run " + Quote((*parameters)["run"]) + ": the instance " +
                                     Quote(*instance) + " is the run already; ask /collections/" +
                                     PercentEncode(c.name) + "/" + EdrQueryTypeName(type) +
                                     "?run=... for others");
    }
    request.runs = *instance;
  }
  GRIDSTORE_RETURN_IF_ERROR(TakeForecastParameters(parameters, &request));
  // Constant forecast time: one valid time (datetime) from every run asked (run=all or a range).
  const std::string& time = request.extract.time;
  const bool several_runs = request.runs == "all" || request.runs.find('/') != std::string::npos;
  if (several_runs && !time.empty() && time.find('/') == std::string::npos &&
      time.find(',') == std::string::npos && request.lead.empty() && !request.best) {
    request.valid_time = time;
    request.extract.time.clear();
  }
  return request;
}

// What the answer leaves out (X-GridStore-Left-Out): the extraction's notes and, in netCDF, the
// groups of variables on other axes than the first (one file holds one set of axes).
std::vector<std::string> LeftOut(const forecast::CollectionExtraction& result,
                                 OutputFormat format) {
  std::vector<std::string> left_out = result.notes;
  if (format == OutputFormat::kNetCdf && !result.slices.empty() &&
      result.slices.front().groups.size() > 1) {
    const auto& groups = result.slices.front().groups;
    for (size_t k = 1; k < groups.size(); ++k) {
      left_out.push_back(
          Join(groups[k].variables, ", ",
               [](const grid::Extraction::Variable& v) { return Quote(v.meta.name); }) +
          ": on other axes than " + Quote(groups[0].variables[0].meta.name) +
          ", which one netCDF answer cannot hold; ask for them with parameter-name");
    }
  }
  return left_out;
}

// The HTTP answer of a query of `type`: `result` written as `format`, or 413 if it is over the
// response limit after all (CollectionTooLarge only estimates).
Result<HttpResponse> ForecastResponse(const EndpointContext& context, EdrQueryType type,
                                      OutputFormat format,
                                      const forecast::CollectionExtraction& result) {
  const std::vector<std::string> left_out = LeftOut(result, format);
  HttpResponse r;
  if (!left_out.empty()) r.headers.emplace_back("X-GridStore-Left-Out", Join(left_out, "; "));
  std::ostringstream out;
  GRIDSTORE_RETURN_IF_ERROR(
      formats::WriteCollection(result, format, out, {.layout = formats::JsonLayout::kCompact}));
  r.body = std::move(out).str();
  r.content_type = std::string(formats::ContentType(format));
  if (format == OutputFormat::kNetCdf) {
    r.headers.emplace_back(
        "Content-Disposition",
        "attachment; filename=\"" + std::string(EdrQueryTypeName(type)) + ".nc\"");
  }
  const int64_t limit = context.options->max_response_bytes;
  if (int64_t(r.body.size()) > limit) {
    return ErrorResponse(413, "PayloadTooLarge",
                         "the response is " + ForecastMiB(double(r.body.size())) +
                             " MiB, over the limit of " + ForecastMiB(double(limit)) +
                             " MiB: narrow run, member, stat, the area (coords or bbox), "
                             "datetime, z or parameter-name");
  }
  return r;
}

// A data query of `type` on `c` (`instance`: the run asked under /instances, else null): the
// request (ForecastRequest), refused early if too large, extracted, then answered.
Result<HttpResponse> ForecastQuery(const EndpointContext& context, const Collection& c,
                                   EdrQueryType type, const RequestTarget& target,
                                   const std::string* instance) {
  QueryParameters parameters(target.query.begin(), target.query.end());
  GRIDSTORE_ASSIGN_OR_RETURN(EdrQuery q,
                             ParseEdrQuery(type, parameters, c.Variables(),
                                           {.parameters = kForecastParameters, .json = true}));
  GRIDSTORE_ASSIGN_OR_RETURN(forecast::CollectionRequest request,
                             ForecastRequest(c, type, std::move(q.request), &parameters, instance));
  if (auto why = CollectionTooLarge(context, c, request, q.format)) {
    return ErrorResponse(413, "PayloadTooLarge", *why);
  }
  GRIDSTORE_ASSIGN_OR_RETURN(forecast::CollectionExtraction result,
                             forecast::ExtractCollection(*context.store, request));
  return ForecastResponse(context, type, q.format, result);
}

Result<HttpResponse> Instances(const EndpointContext& context, const std::string& name,
                               const RequestTarget& target) {
  const auto& path = target.path;  // collections, NAME, instances[, RUN[, QUERY]]
  GRIDSTORE_ASSIGN_OR_RETURN(Collection c, ServedCollection(context, name));
  if (path.size() == 3) {
    GRIDSTORE_RETURN_IF_ERROR(CheckParameters(target, {"f"}, "the instances"));
    ordered_json instances = ordered_json::array();
    for (auto it = c.runs.rbegin(); it != c.runs.rend(); ++it) {  // newest first
      if (!ServedRun(*it)) continue;
      GRIDSTORE_ASSIGN_OR_RETURN(ordered_json doc, ForecastDocument(context, c, *it, true));
      instances.push_back(std::move(doc));
    }
    const std::string url = CollectionUrl(context, c.name);
    return JsonResponse({{"links",
                          {Link(url + "/instances", "self", "application/json", ""),
                           Link(url, "collection", "application/json", "the forecast collection")}},
                         {"instances", std::move(instances)}});
  }
  if (path.size() > 5) {
    return Status::NotFound("no such resource under the instances of " + Quote(c.name));
  }
  // The run: its id (an ISO run time; "latest" and "latest-N" too), as SelectRuns takes it.
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<const Run*> runs, forecast::SelectRuns(c, path[3]));
  if (runs.size() != 1 || path[3] == "all" || path[3].find('/') != std::string::npos) {
    return Status::NotFound("instance " + Quote(path[3]) + " is not one run of " + Quote(c.name) +
                            ": its instances are run times (ISO 8601), or latest");
  }
  const Run& run = *runs.front();
  if (!ServedRun(run)) {
    return Status::NotFound("run " + InstanceId(run) + " of " + Quote(c.name) +
                            " is not served: a dataset of it is not DONE nor INGESTING");
  }
  if (path.size() == 4) {
    GRIDSTORE_RETURN_IF_ERROR(CheckParameters(target, {"f"}, "an instance"));
    GRIDSTORE_ASSIGN_OR_RETURN(ordered_json doc, ForecastDocument(context, c, run, true));
    return JsonResponse(doc);
  }
  const std::optional<EdrQueryType> type = EdrQueryTypeFromName(path[4]);
  if (!type) {
    return Status::NotFound("no query " + Quote(path[4]) +
                            ": the queries are position, area, cube, radius, trajectory, corridor");
  }
  const std::string id = InstanceId(run);
  return ForecastQuery(context, c, *type, target, &id);
}

}  // namespace

const Run* NewestServedRun(const Collection& c) {
  const Run* latest = c.Latest();
  if (latest != nullptr) return latest;
  for (auto it = c.runs.rbegin(); it != c.runs.rend(); ++it) {
    if (ServedRun(*it)) return &*it;
  }
  return nullptr;
}

Result<Collection> ServedCollection(const EndpointContext& context, const std::string& name) {
  GRIDSTORE_ASSIGN_OR_RETURN(Collection c, forecast::GetCollection(*context.store, name));
  if (NewestServedRun(c) == nullptr) {
    return Status::NotFound("forecast collection " + Quote(name) +
                            " has no run whose datasets are all DONE or INGESTING yet");
  }
  return c;
}

Result<ordered_json> ForecastCollectionDocument(const EndpointContext& context,
                                                const Collection& c) {
  return ForecastDocument(context, c, *NewestServedRun(c), false);
}

HttpResponse ForecastCollectionEndpoint(const EndpointContext& context, const Collection& c,
                                        const RequestTarget& target) {
  Status s = CheckParameters(target, {"f"}, "a collection");
  if (!s.ok()) return ErrorResponse(s);
  Result<ordered_json> doc = ForecastCollectionDocument(context, c);
  return doc.ok() ? JsonResponse(*doc) : ErrorResponse(doc.status());
}

HttpResponse ForecastQueryEndpoint(const EndpointContext& context, const Collection& c,
                                   EdrQueryType type, const RequestTarget& target) {
  Result<HttpResponse> r = ForecastQuery(context, c, type, target, nullptr);
  return r.ok() ? std::move(*r) : ErrorResponse(r.status());
}

HttpResponse InstancesEndpoint(const EndpointContext& context, const std::string& name,
                               const RequestTarget& target) {
  Result<HttpResponse> r = Instances(context, name, target);
  return r.ok() ? std::move(*r) : ErrorResponse(r.status());
}

}  // namespace gridstore::server
