// Copyright 2026 The GridStore Authors.
//
// The EDR data queries: parameters -> ExtractRequest -> plan (size checked before any read) ->
// Extract -> CoverageJSON, NetCDF or CSV.
#include <cmath>
#include <optional>

#include "gridstore/formats/output_format.h"
#include "gridstore/geo/extract.h"
#include "gridstore/server/internal/endpoints.h"
#include "gridstore/server/internal/responses.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::server {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::string MiB(double bytes) { return FormatDouble(std::round(bytes / kMiB * 10) / 10); }

// About what the response will weigh, from the plan: bytes per value of each format (CoverageJSON
// numbers as text, CSV rows with their coordinates, netCDF doubles).
// Why the response would be too large (413), or nullopt.
std::optional<std::string> TooLarge(const grid::ExtractPlan& plan, size_t variables,
                                    OutputFormat format, int64_t limit) {
  const double places = plan.kind == grid::FeatureKind::kArea
                            ? double(plan.area[2]) * double(plan.area[3])
                            : double(plan.points.size());
  const double values = places * double(plan.num_times()) * double(plan.num_levels());
  const double per_value = format == OutputFormat::kCoverageJson ? 10
                           : format == OutputFormat::kCsv        ? 14 + 60.0 / double(variables)
                                                                 : 8;
  const double bytes = values * double(variables) * per_value;
  if (bytes <= double(limit)) return std::nullopt;
  return std::string("the response would be about " + MiB(bytes) + " MiB (" + FormatDouble(places) +
                     (plan.kind == grid::FeatureKind::kArea ? " cells" : " points") + " x " +
                     std::to_string(plan.num_times()) + " times x " +
                     std::to_string(plan.num_levels()) + " levels x " + std::to_string(variables) +
                     " parameters), over the limit of " + MiB(double(limit)) +
                     " MiB: narrow the area (coords or bbox), datetime, z or parameter-name");
}

Result<HttpResponse> Query(const EndpointContext& context, grid::DataSetMeta meta,
                           EdrQueryType type, const RequestTarget& target) {
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const CollectionSummary> summary,
                             context.summaries->Get(meta));
  GRIDSTORE_ASSIGN_OR_RETURN(EdrQuery q, ParseEdrQuery(type, target.query, summary->variables));
  // Planned once against the collection's meta (geo/extract.h): without parameter-name, every
  // variable, each group on its own axes (a group the request does not fit is left out), each
  // sized before anything is read, then read as planned.
  const int64_t limit = context.options->max_response_bytes;
  std::vector<std::string> left_out;
  GRIDSTORE_ASSIGN_OR_RETURN(
      std::vector<grid::PlannedExtract> planned,
      grid::PlanExtractions(*context.store,
                            std::make_shared<const grid::DataSetMeta>(std::move(meta)), q.request,
                            &left_out));
  for (const grid::PlannedExtract& one : planned) {
    if (auto why = TooLarge(one.plan(), one.variables().size() * planned.size(), q.format, limit)) {
      return ErrorResponse(413, "PayloadTooLarge", *why);
    }
  }
  std::vector<grid::Extraction> results;
  for (const grid::PlannedExtract& one : planned) {
    GRIDSTORE_ASSIGN_OR_RETURN(grid::Extraction result, grid::Extract(*context.store, one));
    results.push_back(std::move(result));
  }
  HttpResponse r;
  if (q.format == OutputFormat::kNetCdf && results.size() > 1) {
    // One netCDF file holds one group's axes: the first group (the collection's
    // default_parameters), the others named as left out.
    for (size_t k = 1; k < results.size(); ++k) {
      left_out.push_back(
          Join(results[k].variables, ", ",
               [](const grid::Extraction::Variable& v) { return Quote(v.meta.name); }) +
          ": on other axes than " + Quote(results[0].variables[0].meta.name) +
          ", which one netCDF answer cannot hold; ask for them with parameter-name");
    }
    results.resize(1);
  }
  if (!left_out.empty()) {
    // Said, not silent (issue 29, 3.6): what is not in the answer and why.
    r.headers.emplace_back("X-GridStore-Left-Out", Join(left_out, "; "));
  }
  // The one dispatch of every front end (formats/output_format.h); NetCDF is made in memory.
  GRIDSTORE_ASSIGN_OR_RETURN(
      r.body,
      formats::FormatExtractions(results, q.format, {.layout = formats::JsonLayout::kCompact}));
  r.content_type = std::string(formats::ContentType(q.format));
  if (q.format == OutputFormat::kNetCdf) {
    r.headers.emplace_back(
        "Content-Disposition",
        "attachment; filename=\"" + std::string(EdrQueryTypeName(type)) + ".nc\"");
  }
  if (int64_t(r.body.size()) > limit) {
    return ErrorResponse(413, "PayloadTooLarge",
                         "the response is " + MiB(double(r.body.size())) +
                             " MiB, over the limit of " + MiB(double(limit)) +
                             " MiB: narrow the area (coords or bbox), datetime, z or "
                             "parameter-name");
  }
  return r;
}

}  // namespace

HttpResponse QueryEndpoint(const EndpointContext& context, const std::string& id, EdrQueryType type,
                           const RequestTarget& target) {
  Result<grid::DataSetMeta> meta = CollectionMeta(context, id);
  if (!meta.ok()) {
    // Not a served dataset: a forecast collection of that name, or the dataset's error.
    if (meta.status().IsNotFound()) {
      Result<forecast::Collection> c = ServedCollection(context, id);
      if (c.ok()) return ForecastQueryEndpoint(context, *c, type, target);
    }
    return ErrorResponse(meta.status());
  }
  Result<HttpResponse> r = Query(context, std::move(*meta), type, target);
  return r.ok() ? std::move(*r) : ErrorResponse(r.status());
}

}  // namespace gridstore::server
