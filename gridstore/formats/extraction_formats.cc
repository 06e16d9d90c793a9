// Copyright 2026 The GridStore Authors.
#include "gridstore/formats/extraction_formats.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <span>
#include <sstream>

#include "gridstore/formats/internal/coverage_json.h"
#include "gridstore/formats/internal/coverage_json_stream.h"
#include "gridstore/formats/internal/extraction_rows.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::formats {
namespace {

using grid::Extraction;
using json = nlohmann::ordered_json;  // members in the order written: "type" first
using internal_formats::EmitJson;
using internal_formats::RawArrays;

}  // namespace

Status WriteCoverageJson(const Extraction& r, std::ostream& out, JsonLayout layout) {
  if (layout == JsonLayout::kCompact) {
    // One point's coverage, the service's commonest answer: written as text, the same bytes.
    std::string text;
    if (internal_formats::AppendPointCoverageJson(r, &text)) {
      out.write(text.data(), std::streamsize(text.size()));
      return out ? Status::OK() : Status::Unavailable("writing the output failed");
    }
  }
  RawArrays raw;
  std::vector<json> coverages = internal_formats::ExtractionCoverages(r, &raw);
  if (coverages.size() == 1) {
    json& c = coverages[0];
    json doc = {{"type", c["type"]},
                {"domain", std::move(c["domain"])},
                {"parameters", internal_formats::CoverageParameters(r)},
                {"ranges", std::move(c["ranges"])}};
    return EmitJson(doc, out, layout, &raw);
  }
  json doc = {{"type", "CoverageCollection"},
              {"parameters", internal_formats::CoverageParameters(r)},
              {"coverages", coverages}};
  return EmitJson(doc, out, layout, &raw);
}

namespace {

// The rows of one extraction under the header `columns` (every variable of the response): one
// row per (place, time, level). `lat`/`lon` are where the user asked (for an area, the cell
// itself); `cell_lat`/`cell_lon` the centre of the cell whose value the row holds, and
// `distance_km` how far apart the two are (issue 29, 3.4: on a 3-degree grid they can be 100 km
// apart, and a CSV that shows only the asked place hides that). A column of another extraction
// (variables on other axes) is empty.
void CsvRows(const Extraction& r, const std::vector<std::string>& columns, std::string* text) {
  std::vector<const Extraction::Variable*> by_column;
  for (const std::string& name : columns) {
    const Extraction::Variable* found = nullptr;
    for (const auto& v : r.variables) found = v.meta.name == name ? &v : found;
    by_column.push_back(found);
  }
  internal_formats::ForEachRow(r, [&](const internal_formats::ExtractionRow& row) {
    *text += CsvField(r.time_axis.Label(row.time)) + "," + CsvField(r.level_axis.Label(row.level)) +
             "," + FormatDouble(row.at.lat) + "," + FormatDouble(row.at.lon) + "," +
             FormatDouble(row.cell.lat) + "," + FormatDouble(row.cell.lon) + "," +
             FormatDouble(std::round(row.distance_km * 1000) / 1000);
    for (const Extraction::Variable* v : by_column) {
      *text += ",";
      if (v == nullptr) continue;
      const double value = v->values[row.value_index];
      if (std::isfinite(value)) *text += FormatDouble(value);
    }
    *text += "\n";
  });
}

Status WriteText(const std::string& text, std::ostream& out) {
  out.write(text.data(), std::streamsize(text.size()));
  return out ? Status::OK() : Status::Unavailable("writing the output failed");
}

}  // namespace

Status WriteExtractionCsv(const Extraction& r, std::ostream& out) {
  return WriteExtractionCsv(std::span<const Extraction>(&r, 1), out);
}

Status WriteExtractionCsv(std::span<const Extraction> results, std::ostream& out) {
  std::vector<std::string> columns;
  for (const Extraction& r : results) {
    for (const auto& v : r.variables) columns.push_back(v.meta.name);
  }
  std::string text = "time,level,lat,lon,cell_lat,cell_lon,distance_km";
  for (const std::string& name : columns) text += "," + CsvField(name);
  text += "\n";
  for (const Extraction& r : results) CsvRows(r, columns, &text);
  return WriteText(text, out);
}

Status WriteCoverageJson(std::span<const Extraction> results, std::ostream& out,
                         JsonLayout layout) {
  if (results.size() == 1) return WriteCoverageJson(results[0], out, layout);
  // Variables on different axes: one CoverageCollection, each coverage with its own domain.
  RawArrays raw;
  json coverages = json::array(), parameters = json::object();
  for (const Extraction& r : results) {
    for (json& c : internal_formats::ExtractionCoverages(r, &raw))
      coverages.push_back(std::move(c));
    const json own = internal_formats::CoverageParameters(r);
    for (auto it = own.begin(); it != own.end(); ++it) parameters[it.key()] = it.value();
  }
  json doc = {{"type", "CoverageCollection"}, {"parameters", parameters}, {"coverages", coverages}};
  return EmitJson(doc, out, layout, &raw);
}

Status WriteExtractionJson(std::span<const Extraction> results, std::ostream& out) {
  if (results.size() == 1) return WriteExtractionJson(results[0], out);
  // One document per group of variables on the same axes.
  std::string text = "{\"groups\": [\n";
  for (size_t i = 0; i < results.size(); ++i) {
    std::ostringstream one;
    GRIDSTORE_RETURN_IF_ERROR(WriteExtractionJson(results[i], one));
    std::string doc = one.str();
    while (!doc.empty() && doc.back() == '\n') doc.pop_back();
    text += doc + (i + 1 < results.size() ? ",\n" : "\n");
  }
  text += "]}\n";
  return WriteText(text, out);
}

Status WriteExtractionJson(const Extraction& r, std::ostream& out) {
  const grid::ExtractPlan& plan = r.plan;
  json points = json::array();
  internal_formats::TimeLabels labels(r.time_axis);
  for (const auto& p : plan.points) {
    points.push_back({{"lon", p.requested.lon},
                      {"lat", p.requested.lat},
                      {"grid_lon", p.grid.lon},
                      {"grid_lat", p.grid.lat},
                      {"distance_km", p.distance_km},
                      {"x", p.cell.x},
                      {"y", p.cell.y}});
    if (p.time >= 0) points.back()["time"] = internal_formats::TimeValue(r, labels, p.time);
    if (p.level >= 0) points.back()["level"] = r.level_axis.values()[size_t(p.level)];
  }
  RawArrays raw;
  json values = json::object();
  for (const auto& v : r.variables) {
    values[v.meta.name] = raw.Add(&v.values, v.meta.type == grid::DataType::kFloat32);
  }
  json doc = {{"grid", plan.grid_description},
              {"times", internal_formats::TimeValues(r, plan.times)},
              {"levels", internal_formats::LevelValues(r, plan.levels)},
              {"values", values}};
  if (plan.kind != grid::FeatureKind::kArea) doc["points"] = points;
  if (plan.kind == grid::FeatureKind::kArea)
    doc["area"] = {
        {"x0", plan.area[0]}, {"y0", plan.area[1]}, {"nx", plan.area[2]}, {"ny", plan.area[3]}};
  if (plan.kind == grid::FeatureKind::kArea && plan.wrap_axis >= 0) {
    // The area runs past the grid's last column: its indices along this axis are modulo.
    doc["area"]["wraps"] = {{"axis", plan.wrap_axis == grid::kX ? "x" : "y"},
                            {"period", plan.wrap_period}};
  }
  return EmitJson(doc, out, formats::JsonLayout::kIndented, &raw);
}

}  // namespace gridstore::formats
