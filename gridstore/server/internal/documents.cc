// Copyright 2026 The GridStore Authors.
#include "gridstore/server/internal/documents.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

#include "gridstore/formats/internal/attributes_json.h"
#include "gridstore/server/edr_query.h"
#include "gridstore/server/query_string.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::server {
namespace {

constexpr const char* kCrs84 = "http://www.opengis.net/def/crs/OGC/1.3/CRS84";
constexpr size_t kMaxListedValues = 1000;  // axis values listed in an extent

std::optional<std::array<double, 4>> GridBbox(const grid::HorizontalGrid& g) {
  double w = std::numeric_limits<double>::infinity(), e = -w, s = w, n = -w;
  auto add = [&](int64_t x, int64_t y) {
    const grid::LonLat p = g.At({x, y});
    if (!std::isfinite(p.lon) || !std::isfinite(p.lat)) return;
    w = std::min(w, p.lon), e = std::max(e, p.lon), s = std::min(s, p.lat), n = std::max(n, p.lat);
  };
  if (g.type() == grid::GridType::kRectilinear) {  // the axes are along the edges
    for (int64_t x = 0; x < g.nx(); ++x) add(x, 0);
    for (int64_t y = 0; y < g.ny(); ++y) add(0, y);
  } else {
    for (int64_t x = 0; x < g.nx(); ++x) {
      for (int64_t y = 0; y < g.ny(); ++y) add(x, y);
    }
  }
  if (w > e) return std::nullopt;
  return std::array<double, 4>{w, s, e, n};
}

Result<std::shared_ptr<const CollectionSummary>> Summarize(const grid::DataSetMeta& meta) {
  auto summary = std::make_shared<CollectionSummary>();
  const grid::VariableMeta* first = nullptr;
  for (const grid::VariableMeta& var : meta.variables) {
    Result<std::shared_ptr<const grid::HorizontalGrid>> g = grid::HorizontalGrid::Build(meta, var);
    if (!g.ok()) continue;
    summary->variables.push_back(var.name);
    if (first == nullptr) {
      first = &var;
      summary->bbox = GridBbox(**g);
      summary->grid_description = (*g)->description();
      summary->nx = (*g)->nx();
      summary->ny = (*g)->ny();
      for (grid::Axis axis : {grid::Axis::kT, grid::Axis::kZ}) {
        Result<grid::AxisCoordinate> a = grid::AxisCoordinate::Build(meta, var, axis);
        if (a.ok() && !a->name().empty()) {
          (axis == grid::Axis::kT ? summary->time_axis : summary->level_axis) = std::move(*a);
        }
      }
    }
    if (var.dimension_names == first->dimension_names && var.shape == first->shape) {
      summary->default_variables.push_back(var.name);
    }
  }
  if (first == nullptr) {
    return Status::InvalidArgument("dataset " + Quote(meta.id) +
                                   " has no variable with latitude and longitude");
  }
  return std::shared_ptr<const CollectionSummary>(std::move(summary));
}

}  // namespace

ordered_json Link(const std::string& href, const char* rel, const char* type,
                  const std::string& title) {
  ordered_json link = {{"href", href}, {"rel", rel}, {"type", type}};
  if (!title.empty()) link["title"] = title;
  return link;
}

// An axis's extent as OGC API-EDR 1.1's extent.yaml has it: `interval` is an array of [lo, hi]
// pairs. A time axis is a `temporal` extent only if it has CF time units (its labels are then ISO
// 8601 with a temporal reference system); any other axis (levels, or a "time" counted in `mon`
// or without units) is described by its name, units and values, never as dates.
ordered_json AxisExtent(const grid::AxisCoordinate& axis) {
  ordered_json values = ordered_json::array();
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  int64_t lo_i = 0, hi_i = 0;
  for (int64_t i = 0; i < axis.size(); ++i) {
    const double v = axis.values()[size_t(i)];
    if (v < lo) lo = v, lo_i = i;
    if (v > hi) hi = v, hi_i = i;
    if (size_t(i) < kMaxListedValues) values.push_back(axis.Label(i));
  }
  ordered_json extent = ordered_json::object();
  extent["interval"] =
      ordered_json::array({ordered_json::array({axis.Label(lo_i), axis.Label(hi_i)})});
  if (size_t(axis.size()) <= kMaxListedValues) extent["values"] = values;
  if (axis.is_time()) {
    const grid::Calendar cal = axis.time_units()->calendar();
    const bool gregorian =
        cal == grid::Calendar::kStandard || cal == grid::Calendar::kProlepticGregorian;
    extent["trs"] =
        gregorian ? std::string("http://www.opengis.net/def/uom/ISO-8601/0/Gregorian")
                  : "http://cfconventions.org/calendars/" + std::string(grid::CalendarName(cal));
  } else {
    extent["vrs"] = axis.name() + (axis.units().empty() ? "" : " (" + axis.units() + ")");
    extent["name"] = axis.name();
    if (!axis.units().empty()) extent["units"] = axis.units();
  }
  return extent;
}

ordered_json Parameter(const grid::VariableMeta& var) {
  const std::string long_name = grid::StringAttribute(var.attributes, "long_name");
  const std::string units = grid::StringAttribute(var.attributes, "units");
  const std::string standard = grid::StringAttribute(var.attributes, "standard_name");
  ordered_json p = {{"type", "Parameter"}, {"id", var.name}};
  if (!long_name.empty()) p["description"] = long_name;
  p["unit"] = {{"symbol", units}};
  if (!standard.empty()) {
    p["observedProperty"] = {{"id", "http://vocab.nerc.ac.uk/standard_name/" + standard + "/"},
                             {"label", long_name.empty() ? standard : long_name}};
  } else {
    p["observedProperty"] = {{"label", long_name.empty() ? var.name : long_name}};
  }
  p["data-type"] = grid::IsFloatingPoint(var.type) || var.packing ? "float" : "integer";
  return p;
}

ordered_json DataQueries(const std::string& collection_url,
                         const std::vector<std::string>& output_formats) {
  ordered_json queries = ordered_json::object();
  for (EdrQueryType type : kEdrQueryTypes) {
    const std::string name = EdrQueryTypeName(type);
    queries[name] = {{"link",
                      {{"href", collection_url + "/" + name},
                       {"rel", "data"},
                       {"title", name + " query"},
                       {"variables",
                        {{"query_type", name},
                         {"output_formats", output_formats},
                         {"default_output_format", "CoverageJSON"},
                         {"crs_details", {{{"crs", "CRS84"}, {"wkt", "GEOGCS[\"WGS 84\"]"}}}}}}}}};
    if (type == EdrQueryType::kRadius) {
      queries[name]["link"]["variables"]["within_units"] = {"km", "m", "mi", "nmi"};
    }
    if (type == EdrQueryType::kCorridor) {
      queries[name]["link"]["variables"]["width_units"] = {"km", "m", "mi", "nmi"};
    }
  }
  return queries;
}

Result<std::shared_ptr<const CollectionSummary>> CollectionSummaries::Get(
    const grid::DataSetMeta& meta) {
  {
    MutexLock lock(&mu_);
    auto it = entries_.find(meta.id);
    if (it != entries_.end() && it->second.incarnation == meta.incarnation &&
        it->second.generation == meta.generation) {
      return it->second.summary;
    }
  }
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const CollectionSummary> summary, Summarize(meta));
  MutexLock lock(&mu_);
  if (entries_.size() > 100000) entries_.clear();  // bounded: a store of ever-new ids
  entries_[meta.id] = {meta.incarnation, meta.generation, summary};
  return summary;
}

namespace {

// A host[:port] as a URL may hold it: letters, digits, '.', '-', ':' and IPv6 brackets. Anything
// else (a client's "evil.com/x?", a line break) is not a host.
bool IsHostName(std::string_view host) {
  if (host.empty() || host.size() > 255) return false;
  for (char c : host) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != ':' &&
        c != '[' && c != ']') {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string BaseUrl(const HttpRequest& r) {
  // X-Forwarded-* reach here only from a trusted proxy (`serve --trusted-proxy`); even then
  // the scheme is http or https and the host a host name, never a script's scheme or a path.
  const std::string proto = r.forwarded_proto == "https" ? "https" : "http";
  std::string host = IsHostName(r.forwarded_host) ? r.forwarded_host : r.host;
  if (!IsHostName(host)) host = "";
  std::string prefix = r.forwarded_prefix;
  for (char c : prefix) {
    if (!std::isalnum(static_cast<unsigned char>(c)) &&
        std::string_view("/-._~").find(c) == std::string_view::npos) {
      prefix.clear();  // a prefix is a path of plain segments
      break;
    }
  }
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  if (!prefix.empty() && prefix.front() != '/') prefix = "/" + prefix;
  return proto + "://" + (host.empty() ? "localhost" : host) + prefix;
}

ordered_json MapLinks(const std::string& collection_url) {
  return {Link(collection_url + "/map", "http://www.opengis.net/def/rel/ogc/1.0/map", "image/png",
               "the map (OGC API - Maps: bbox, width, height, crs)"),
          Link(collection_url + "/map/tiles", "http://www.opengis.net/def/rel/ogc/1.0/tilesets-map",
               "application/json", "map tile sets (OGC API - Tiles: WebMercatorQuad)"),
          Link(collection_url + "/map/legend", "describedby", "application/json",
               "the map's colour bar (range, ticks, stops)")};
}

const std::vector<std::string>& ConformanceClasses() {
  static const std::vector<std::string> classes = {
      "http://www.opengis.net/spec/ogcapi-common-1/1.0/conf/core",
      "http://www.opengis.net/spec/ogcapi-common-2/1.0/conf/collections",
      "http://www.opengis.net/spec/ogcapi-edr-1/1.1/conf/core",
      "http://www.opengis.net/spec/ogcapi-edr-1/1.1/conf/collections",
      "http://www.opengis.net/spec/ogcapi-edr-1/1.1/conf/json",
      "http://www.opengis.net/spec/ogcapi-edr-1/1.1/conf/covjson",
      "http://www.opengis.net/spec/ogcapi-edr-1/1.1/conf/oas30",
      "http://www.opengis.net/spec/ogcapi-edr-1/1.1/conf/queries",
      "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/core",
      "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tileset",
      "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/tilesets-list",
      "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/geodata-tilesets",
      "http://www.opengis.net/spec/ogcapi-tiles-1/1.0/conf/png",
      "http://www.opengis.net/spec/ogcapi-maps-1/1.0/conf/core",
      "http://www.opengis.net/spec/ogcapi-maps-1/1.0/conf/scaling",
      "http://www.opengis.net/spec/ogcapi-maps-1/1.0/conf/spatial-subsetting",
      "http://www.opengis.net/spec/ogcapi-maps-1/1.0/conf/crs",
      "http://www.opengis.net/spec/ogcapi-maps-1/1.0/conf/png",
      "http://www.opengis.net/spec/tms/2.0/conf/tilematrixset",
      "http://www.opengis.net/spec/tms/2.0/conf/json-tilematrixset"};
  return classes;
}

ordered_json LandingPage(const std::string& base) {
  return {{"title", "GridStore"},
          {"description",
           "Gridded forecast data by OGC API - Environmental Data Retrieval: positions, areas, "
           "cubes, radii, trajectories and corridors of every DONE dataset, and of forecast "
           "collections (their runs as instances, members, ensemble statistics and cross-run "
           "views)"},
          {"links",
           {Link(base + "/", "self", "application/json", "this document"),
            Link(base + "/api", "service-desc", "application/vnd.oai.openapi+json;version=3.0",
                 "the API definition"),
            Link(base + "/conformance", "conformance", "application/json", "conformance classes"),
            Link(base + "/collections", "data", "application/json",
                 "the forecast collections and datasets"),
            Link(base + "/tileMatrixSets", "http://www.opengis.net/def/rel/ogc/1.0/tiling-schemes",
                 "application/json", "the tile matrix sets (WebMercatorQuad)"),
            Link(base + "/viewer", "alternate", "text/html", "the map viewer")}}};
}

ordered_json ConformancePage() { return {{"conformsTo", ConformanceClasses()}}; }

ordered_json CollectionDocument(const grid::DataSetMeta& meta, const CollectionSummary& summary,
                                const std::string& base) {
  const std::string url = base + "/collections/" + PercentEncode(meta.id);
  ordered_json doc = {{"id", meta.id}};
  const std::string title = grid::StringAttribute(meta.attributes, "title");
  doc["title"] = title.empty() ? meta.id : title;
  const std::string about = grid::StringAttribute(meta.attributes, "summary");
  if (!about.empty()) doc["description"] = about;
  doc["links"] = {Link(url, "self", "application/json", ""),
                  Link(url + "/map.png", "preview", "image/png", "quick-look map")};
  for (ordered_json& link : MapLinks(url)) doc["links"].push_back(std::move(link));
  ordered_json extent = ordered_json::object();
  if (summary.bbox) {
    const auto& b = *summary.bbox;
    extent["spatial"] = {{"bbox", {{b[0], b[1], b[2], b[3]}}}, {"crs", kCrs84}};
  }
  ordered_json custom = ordered_json::array();
  if (summary.time_axis) {
    ordered_json t = AxisExtent(*summary.time_axis);
    if (summary.time_axis->is_time()) {
      extent["temporal"] = std::move(t);
    } else {  // not CF time: no calendar, so not a temporal extent (issue 29, 3.2)
      t["id"] = summary.time_axis->name();
      t["reference"] = summary.time_axis->units().empty()
                           ? "a time-like axis without units: it has no calendar"
                           : "a time-like axis in " + Quote(summary.time_axis->units()) +
                                 ", which are not CF time units: it has no calendar";
      custom.push_back(std::move(t));
    }
  }
  if (summary.level_axis) extent["vertical"] = AxisExtent(*summary.level_axis);
  if (!custom.empty()) extent["custom"] = std::move(custom);
  doc["extent"] = extent;
  doc["data_queries"] = DataQueries(url, {"CoverageJSON", "NetCDF", "CSV"});
  doc["crs"] = {"CRS84"};
  doc["output_formats"] = {"CoverageJSON", "NetCDF", "CSV"};
  ordered_json parameters = ordered_json::object();
  for (const std::string& name : summary.variables) {
    parameters[name] = Parameter(*meta.FindVariable(name));
  }
  doc["parameter_names"] = parameters;
  doc["gridstore"] = {{"grid", summary.grid_description},
                      {"cells", {{"x", summary.nx}, {"y", summary.ny}}},
                      {"default_parameters", summary.default_variables},
                      {"attributes", formats::AttributesJson(meta.attributes)}};
  return doc;
}

}  // namespace gridstore::server
