// Copyright 2026 The GridStore Authors.
#include "gridstore/formats/collection_formats.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gridstore/formats/internal/collection_time.h"
#include "gridstore/formats/internal/coverage_json.h"
#include "gridstore/formats/internal/extraction_rows.h"
#include "gridstore/model/cf_time.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_formats {

std::optional<int64_t> ValidTimeMs(const grid::Extraction& r, int64_t t, int64_t run_time_ms) {
  if (r.time_axis.name().empty()) return run_time_ms;
  if (!r.time_axis.is_time() || t < 0 || t >= r.time_axis.size()) return std::nullopt;
  static const grid::TimeUnits epoch_seconds =
      *grid::TimeUnits::Parse("seconds since 1970-01-01 00:00:00", "standard");
  Result<grid::CivilTime> civil =
      r.time_axis.time_units()->ToCivil(r.time_axis.values()[size_t(t)]);
  if (!civil.ok()) return std::nullopt;
  return static_cast<int64_t>(std::llround(epoch_seconds.FromCivil(*civil) * 1000.0));
}

}  // namespace gridstore::internal_formats

namespace gridstore::formats {
namespace {

using forecast::CollectionExtraction;
using forecast::CollectionSlice;
using grid::Extraction;
using internal_formats::covjson;
using internal_formats::ExtractionRow;

// The slice's member or statistic column ("" for a deterministic collection).
const char* SliceAxisName(const CollectionExtraction& c) {
  return c.has_statistics ? "stat" : c.has_members ? "member" : "";
}

// The lead time in hours as a number ("" if the time axis has no CF units).
std::string LeadHours(const Extraction& r, int64_t t, int64_t run_time_ms) {
  const std::optional<int64_t> valid = internal_formats::ValidTimeMs(r, t, run_time_ms);
  if (!valid) return "";
  return FormatDouble(double(*valid - run_time_ms) / 3'600'000.0);
}

// The time of index `t` as a label: ISO 8601 (the run time if there is no time axis).
std::string TimeLabel(const Extraction& r, int64_t t, int64_t run_time_ms) {
  if (r.time_axis.name().empty()) return forecast::FormatIsoMs(run_time_ms);
  return r.time_axis.Label(t);
}

// Every variable of every slice and group, in the order first seen.
std::vector<std::string> CollectionColumns(const CollectionExtraction& c) {
  std::vector<std::string> columns;
  for (const CollectionSlice& s : c.slices) {
    for (const Extraction& g : s.groups) {
      for (const auto& v : g.variables) {
        if (std::find(columns.begin(), columns.end(), v.meta.name) == columns.end()) {
          columns.push_back(v.meta.name);
        }
      }
    }
  }
  return columns;
}

Status WriteCollectionText(const std::string& text, std::ostream& out) {
  out.write(text.data(), std::streamsize(text.size()));
  return out ? Status::OK() : Status::Unavailable("writing the output failed");
}

// A JSON string literal.
std::string JsonString(std::string_view text) {
  return covjson(std::string(text)).dump(-1, ' ', false, covjson::error_handler_t::replace);
}

std::string JsonNumberText(double v) { return std::isfinite(v) ? FormatDouble(v) : "null"; }

// The domain axes and reference systems a slice adds to each of its coverages.
void AddSliceAxes(const CollectionExtraction& c, const CollectionSlice& s, covjson* coverage) {
  covjson& domain = (*coverage)["domain"];
  domain["axes"]["run"] = {{"values", {forecast::FormatIsoMs(s.run_time_ms)}}};
  domain["referencing"].push_back(
      {{"coordinates", {"run"}}, {"system", {{"type", "TemporalRS"}, {"calendar", "Gregorian"}}}});
  if (c.has_statistics) {
    domain["axes"]["stat"] = {{"values", {s.statistic}}};
    domain["referencing"].push_back(
        {{"coordinates", {"stat"}},
         {"system",
          {{"type", "IdentifierRS"},
           {"label", {{"en", "ensemble statistic"}}},
           {"targetConcept",
            {{"label",
              {{"en",
                "a statistic over the ensemble members: mean, spread (population standard "
                "deviation), min, max, pN (the N-th percentile, linear between members) or "
                "prob>X / prob<X (the fraction of members beyond X)"}}}}}}}});
  } else if (c.has_members) {
    domain["axes"]["member"] = {{"values", {s.member}}};
    domain["referencing"].push_back(
        {{"coordinates", {"member"}},
         {"system",
          {{"type", "IdentifierRS"},
           {"label", {{"en", "ensemble member"}}},
           {"targetConcept", {{"label", {{"en", "ensemble member number (realization)"}}}}}}}});
  }
}

}  // namespace

Status WriteCollectionCoverageJson(const CollectionExtraction& c, std::ostream& out,
                                   JsonLayout layout) {
  if (c.slices.empty()) return Status::InvalidArgument("no slice of the collection to write");
  internal_formats::RawArrays raw;
  covjson coverages = covjson::array(), parameters = covjson::object();
  for (const CollectionSlice& s : c.slices) {
    for (const Extraction& r : s.groups) {
      const covjson own = internal_formats::CoverageParameters(r);
      bool differs = false;
      for (auto it = own.begin(); it != own.end(); ++it) {
        if (!parameters.contains(it.key())) {
          parameters[it.key()] = it.value();
        } else if (parameters[it.key()] != it.value()) {
          differs = true;
        }
      }
      for (covjson& coverage : internal_formats::ExtractionCoverages(r, &raw)) {
        AddSliceAxes(c, s, &coverage);
        if (differs) coverage["parameters"] = own;
        coverages.push_back(std::move(coverage));
      }
    }
  }
  covjson notes = covjson::array();
  for (const std::string& n : c.notes) notes.push_back(n);
  covjson doc = {{"type", "CoverageCollection"},
                 {"parameters", std::move(parameters)},
                 {"coverages", std::move(coverages)},
                 {"gridstore",
                  {{"collection", c.collection},
                   {"view", std::string(forecast::RunViewName(c.view))},
                   {"notes", std::move(notes)}}}};
  return internal_formats::EmitJson(doc, out, layout, &raw);
}

Status WriteCollectionCsv(const CollectionExtraction& c, std::ostream& out) {
  const std::vector<std::string> columns = CollectionColumns(c);
  const std::string axis = SliceAxisName(c);
  std::string text = "run," + (axis.empty() ? "" : axis + ",") +
                     "time,lead_hours,level,lat,lon,cell_lat,cell_lon,distance_km";
  for (const std::string& name : columns) text += "," + CsvField(name);
  text += "\n";
  GRIDSTORE_RETURN_IF_ERROR(WriteCollectionText(text, out));
  for (const CollectionSlice& s : c.slices) {
    text.clear();
    std::string prefix = CsvField(forecast::FormatIsoMs(s.run_time_ms)) + ",";
    if (c.has_statistics) prefix += CsvField(s.statistic) + ",";
    if (!c.has_statistics && c.has_members) prefix += std::to_string(s.member) + ",";
    for (const Extraction& r : s.groups) {
      std::vector<const Extraction::Variable*> by_column;
      for (const std::string& name : columns) {
        const Extraction::Variable* found = nullptr;
        for (const auto& v : r.variables) found = v.meta.name == name ? &v : found;
        by_column.push_back(found);
      }
      internal_formats::ForEachRow(r, [&](const ExtractionRow& row) {
        text += prefix + CsvField(TimeLabel(r, row.time, s.run_time_ms)) + "," +
                LeadHours(r, row.time, s.run_time_ms) + "," +
                CsvField(r.level_axis.Label(row.level)) + "," + FormatDouble(row.at.lat) + "," +
                FormatDouble(row.at.lon) + "," + FormatDouble(row.cell.lat) + "," +
                FormatDouble(row.cell.lon) + "," +
                FormatDouble(std::round(row.distance_km * 1000) / 1000);
        for (const Extraction::Variable* v : by_column) {
          text += ",";
          if (v == nullptr) continue;
          const double value = v->values[row.value_index];
          if (std::isfinite(value)) text += FormatDouble(value);
        }
        text += "\n";
      });
    }
    GRIDSTORE_RETURN_IF_ERROR(WriteCollectionText(text, out));
  }
  return Status::OK();
}

Status WriteCollectionJson(const CollectionExtraction& c, std::ostream& out) {
  // The parameters: each variable's units and names, from its first slice that is not a
  // probability (whose units are "1").
  covjson parameters = covjson::object();
  for (bool probabilities : {false, true}) {
    for (const CollectionSlice& s : c.slices) {
      if ((s.statistic.rfind("prob", 0) == 0) != probabilities) continue;
      for (const Extraction& r : s.groups) {
        for (const auto& v : r.variables) {
          if (parameters.contains(v.meta.name)) continue;
          covjson p = covjson::object();
          for (const char* key : {"units", "long_name", "standard_name"}) {
            const std::string value = grid::StringAttribute(v.meta.attributes, key);
            if (!value.empty()) p[key] = value;
          }
          parameters[v.meta.name] = std::move(p);
        }
      }
    }
  }
  covjson notes = covjson::array();
  for (const std::string& n : c.notes) notes.push_back(n);
  std::string text =
      "{\"collection\": " + JsonString(c.collection) +
      ",\n \"view\": " + JsonString(forecast::RunViewName(c.view)) +
      ",\n \"parameters\": " + parameters.dump(-1, ' ', false, covjson::error_handler_t::replace) +
      ",\n \"notes\": " + notes.dump(-1, ' ', false, covjson::error_handler_t::replace) +
      ",\n \"rows\": [";
  bool first_row = true;
  for (const CollectionSlice& s : c.slices) {
    std::string prefix = "{\"run\": " + JsonString(forecast::FormatIsoMs(s.run_time_ms));
    if (c.has_statistics) prefix += ", \"stat\": " + JsonString(s.statistic);
    if (!c.has_statistics && c.has_members) prefix += ", \"member\": " + std::to_string(s.member);
    for (const Extraction& r : s.groups) {
      std::vector<std::string> names;
      for (const auto& v : r.variables) names.push_back(", " + JsonString(v.meta.name) + ": ");
      const bool with_level = !r.level_axis.name().empty();
      const bool area = r.plan.kind == grid::FeatureKind::kArea;
      internal_formats::ForEachRow(r, [&](const ExtractionRow& row) {
        text += first_row ? "\n  " : ",\n  ";
        first_row = false;
        text += prefix + ", \"time\": " + JsonString(TimeLabel(r, row.time, s.run_time_ms));
        const std::string lead = LeadHours(r, row.time, s.run_time_ms);
        if (!lead.empty()) text += ", \"lead_hours\": " + lead;
        if (with_level) {
          text += ", \"level\": " + JsonNumberText(r.level_axis.values()[size_t(row.level)]);
        }
        text +=
            ", \"lat\": " + JsonNumberText(row.at.lat) + ", \"lon\": " + JsonNumberText(row.at.lon);
        if (!area) {
          text += ", \"cell_lat\": " + JsonNumberText(row.cell.lat) +
                  ", \"cell_lon\": " + JsonNumberText(row.cell.lon) +
                  ", \"distance_km\": " + JsonNumberText(std::round(row.distance_km * 1000) / 1000);
        }
        for (size_t k = 0; k < r.variables.size(); ++k) {
          text += names[k] + JsonNumberText(r.variables[k].values[row.value_index]);
        }
        text += "}";
      });
    }
    if (text.size() > (1 << 20)) {  // written as it grows: a meteogram is 10^5 rows
      GRIDSTORE_RETURN_IF_ERROR(WriteCollectionText(text, out));
      text.clear();
    }
  }
  text += "\n]}\n";
  return WriteCollectionText(text, out);
}

}  // namespace gridstore::formats
