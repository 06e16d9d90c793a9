// Copyright 2026 The GridStore Authors.
#include "tools/extraction_formats.h"

#include <cmath>
#include <nlohmann/json.hpp>

#include "gridstore/util/internal/strings.h"

namespace gridstore::tools {
namespace {

using grid::Extraction;
using nlohmann::json;

json Number(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

std::string Attr(const grid::VariableMeta& v, std::string_view name) {
  auto it = v.attributes.find(name);
  return it != v.attributes.end() && it->second.is_string() ? it->second.string_value() : "";
}

json Parameters(const Extraction& r) {
  json params = json::object();
  for (const auto& v : r.variables) {
    json p = {{"type", "Parameter"}};
    const std::string long_name = Attr(v.meta, "long_name");
    const std::string standard = Attr(v.meta, "standard_name");
    const std::string units = Attr(v.meta, "units");
    if (!long_name.empty()) p["description"] = {{"en", long_name}};
    if (!units.empty()) p["unit"] = {{"symbol", units}};
    json prop = {
        {"label",
         {{"en", long_name.empty() ? (standard.empty() ? v.meta.name : standard) : long_name}}}};
    if (!standard.empty()) {
      prop["id"] = "http://vocab.nerc.ac.uk/standard_name/" + standard + "/";
    }
    p["observedProperty"] = prop;
    params[v.meta.name] = p;
  }
  return params;
}

json Referencing(const Extraction& r) {
  json refs = json::array();
  refs.push_back(
      {{"coordinates", {"x", "y"}},
       {"system",
        {{"type", "GeographicCRS"}, {"id", "http://www.opengis.net/def/crs/OGC/1.3/CRS84"}}}});
  if (r.time_axis.is_time()) {
    const grid::Calendar cal = r.time_axis.time_units()->calendar();
    const bool gregorian =
        cal == grid::Calendar::kStandard || cal == grid::Calendar::kProlepticGregorian;
    refs.push_back({{"coordinates", {"t"}},
                    {"system",
                     {{"type", "TemporalRS"},
                      {"calendar", gregorian ? std::string("Gregorian")
                                             : "http://cfconventions.org/calendars/" +
                                                   std::string(grid::CalendarName(cal))}}}});
  }
  return refs;
}

json TimeValues(const Extraction& r, const std::vector<int64_t>& indices) {
  json values = json::array();
  for (int64_t i : indices) {
    if (r.time_axis.is_time()) {
      values.push_back(r.time_axis.Label(i));
    } else {
      values.push_back(r.time_axis.values()[size_t(i)]);
    }
  }
  return values;
}

json LevelValues(const Extraction& r, const std::vector<int64_t>& indices) {
  json values = json::array();
  for (int64_t i : indices) values.push_back(r.level_axis.values()[size_t(i)]);
  return values;
}

// One coverage at point `p` over times `ti` and levels `zi` (one of them a single index).
json PointCoverage(const Extraction& r, size_t p, const std::vector<int64_t>& ti,
                   const std::vector<int64_t>& zi) {
  const grid::ExtractPlan& plan = r.plan;
  const grid::LonLat& at = plan.points[p].requested;
  const bool series = ti.size() > 1, profile = zi.size() > 1;
  json domain = {{"type", "Domain"},
                 {"domainType", series    ? "PointSeries"
                                : profile ? "VerticalProfile"
                                          : "Point"}};
  json axes = {{"x", {{"values", {at.lon}}}}, {"y", {{"values", {at.lat}}}}};
  axes["t"] = {{"values", TimeValues(r, ti)}};
  axes["z"] = {{"values", LevelValues(r, zi)}};
  domain["axes"] = axes;
  domain["referencing"] = Referencing(r);
  json ranges = json::object();
  const size_t nt = plan.times.size(), nz = plan.levels.size();
  for (const auto& v : r.variables) {
    json values = json::array();
    for (int64_t t : ti) {
      for (int64_t z : zi) {
        const size_t it =
            size_t(std::find(plan.times.begin(), plan.times.end(), t) - plan.times.begin());
        const size_t iz =
            size_t(std::find(plan.levels.begin(), plan.levels.end(), z) - plan.levels.begin());
        values.push_back(Number(v.values[(p * nt + it) * nz + iz]));
      }
    }
    json range = {{"type", "NdArray"}, {"dataType", "float"}, {"values", values}};
    if (series) {
      range["axisNames"] = {"t"};
      range["shape"] = {ti.size()};
    } else if (profile) {
      range["axisNames"] = {"z"};
      range["shape"] = {zi.size()};
    }
    ranges[v.meta.name] = range;
  }
  return {{"type", "Coverage"}, {"domain", domain}, {"ranges", ranges}};
}

Result<json> GridCoverage(const Extraction& r) {
  const grid::ExtractPlan& plan = r.plan;
  if (r.grid->type() != grid::GridType::kRectilinear) {
    return Status::Unimplemented("CoverageJSON of an area on a curvilinear grid (" +
                                 plan.grid_description +
                                 ") is not written yet; use --format csv or json");
  }
  const auto [x0, y0, nx, ny] = plan.area;
  json xs = json::array(), ys = json::array();
  const bool x_is_lat = r.grid->x_is_latitude();
  for (int64_t y = 0; y < ny; ++y) {
    const grid::LonLat c = r.grid->At({x0, y0 + y});
    (x_is_lat ? xs : ys).push_back(x_is_lat ? c.lon : c.lat);
  }
  for (int64_t x = 0; x < nx; ++x) {
    const grid::LonLat c = r.grid->At({x0 + x, y0});
    (x_is_lat ? ys : xs).push_back(x_is_lat ? c.lat : c.lon);
  }
  json domain = {{"type", "Domain"}, {"domainType", "Grid"}};
  domain["axes"] = {{"x", {{"values", xs}}},
                    {"y", {{"values", ys}}},
                    {"t", {{"values", TimeValues(r, plan.times)}}},
                    {"z", {{"values", LevelValues(r, plan.levels)}}}};
  domain["referencing"] = Referencing(r);
  json ranges = json::object();
  for (const auto& v : r.variables) {
    json values = json::array();
    for (double d : v.values) values.push_back(Number(d));
    ranges[v.meta.name] = {{"type", "NdArray"},
                           {"dataType", "float"},
                           {"axisNames", {"t", "z", x_is_lat ? "y" : "x", x_is_lat ? "x" : "y"}},
                           {"shape", {plan.times.size(), plan.levels.size(), nx, ny}},
                           {"values", values}};
  }
  return json{
      {"type", "Coverage"}, {"domain", domain}, {"parameters", Parameters(r)}, {"ranges", ranges}};
}

Status Emit(const json& doc, std::ostream& out) {
  const std::string text = doc.dump(1, ' ', false, json::error_handler_t::replace) + "\n";
  out.write(text.data(), std::streamsize(text.size()));
  return out ? Status::OK() : Status::Unavailable("writing the output failed");
}

}  // namespace

Status WriteCoverageJson(const grid::DataSetMeta& meta, const Extraction& r, std::ostream& out) {
  (void)meta;
  const grid::ExtractPlan& plan = r.plan;
  if (plan.points.empty()) {
    GRIDSTORE_ASSIGN_OR_RETURN(json doc, GridCoverage(r));
    return Emit(doc, out);
  }
  // Coverages: per point, and per time when there are many times and many levels.
  std::vector<json> coverages;
  for (size_t p = 0; p < plan.points.size(); ++p) {
    if (plan.times.size() > 1 && plan.levels.size() > 1) {
      for (int64_t t : plan.times) coverages.push_back(PointCoverage(r, p, {t}, plan.levels));
    } else {
      coverages.push_back(PointCoverage(r, p, plan.times, plan.levels));
    }
  }
  if (coverages.size() == 1) {
    json doc = coverages[0];
    doc["parameters"] = Parameters(r);
    return Emit(doc, out);
  }
  json doc = {
      {"type", "CoverageCollection"}, {"parameters", Parameters(r)}, {"coverages", coverages}};
  return Emit(doc, out);
}

Status WriteExtractionCsv(const Extraction& r, std::ostream& out) {
  const grid::ExtractPlan& plan = r.plan;
  std::string text = "time,level,lat,lon";
  for (const auto& v : r.variables) text += "," + v.meta.name;
  text += "\n";
  const size_t nt = plan.times.size(), nz = plan.levels.size();
  auto row = [&](const grid::LonLat& at, size_t it, size_t iz, size_t index) {
    text += r.time_axis.Label(plan.times[it]) + "," + r.level_axis.Label(plan.levels[iz]) + "," +
            FormatDouble(at.lat) + "," + FormatDouble(at.lon);
    for (const auto& v : r.variables) {
      text += ",";
      if (std::isfinite(v.values[index])) text += FormatDouble(v.values[index]);
    }
    text += "\n";
  };
  if (!plan.points.empty()) {
    for (size_t p = 0; p < plan.points.size(); ++p)
      for (size_t it = 0; it < nt; ++it)
        for (size_t iz = 0; iz < nz; ++iz)
          row(plan.points[p].requested, it, iz, (p * nt + it) * nz + iz);
  } else {
    const auto [x0, y0, nx, ny] = plan.area;
    for (size_t it = 0; it < nt; ++it)
      for (size_t iz = 0; iz < nz; ++iz)
        for (int64_t x = 0; x < nx; ++x)
          for (int64_t y = 0; y < ny; ++y) {
            if (!plan.mask[size_t(x * ny + y)]) continue;
            row(r.grid->At({x0 + x, y0 + y}), it, iz,
                ((it * nz + iz) * size_t(nx) + size_t(x)) * size_t(ny) + size_t(y));
          }
  }
  out.write(text.data(), std::streamsize(text.size()));
  return out ? Status::OK() : Status::Unavailable("writing the output failed");
}

Status WriteExtractionJson(const Extraction& r, std::ostream& out) {
  const grid::ExtractPlan& plan = r.plan;
  json points = json::array();
  for (const auto& p : plan.points) {
    points.push_back({{"lon", p.requested.lon},
                      {"lat", p.requested.lat},
                      {"grid_lon", p.grid.lon},
                      {"grid_lat", p.grid.lat},
                      {"distance_km", p.distance_km},
                      {"x", p.cell.x},
                      {"y", p.cell.y}});
  }
  json values = json::object();
  for (const auto& v : r.variables) {
    json a = json::array();
    for (double d : v.values) a.push_back(Number(d));
    values[v.meta.name] = a;
  }
  json doc = {{"grid", plan.grid_description},
              {"times", TimeValues(r, plan.times)},
              {"levels", LevelValues(r, plan.levels)},
              {"values", values}};
  if (!plan.points.empty()) doc["points"] = points;
  if (plan.points.empty())
    doc["area"] = {
        {"x0", plan.area[0]}, {"y0", plan.area[1]}, {"nx", plan.area[2]}, {"ny", plan.area[3]}};
  return Emit(doc, out);
}

}  // namespace gridstore::tools
