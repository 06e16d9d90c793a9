// Copyright 2026 The GridStore Authors.
#include "tools/info_format.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "gridstore/formats/internal/attributes_json.h"
#include "gridstore/geo/coordinates.h"
#include "gridstore/model/quantize.h"
#include "tools/cli_parse.h"
#include "tools/text_escape.h"

namespace gridstore::tools {

using formats::AttributesJson;
using grid::AttributeValue;
using nlohmann::ordered_json;

namespace {

std::string AttributeText(const AttributeValue& v) {
  if (v.is_string()) return "\"" + EscapeBytes(v.string_value()) + "\"";
  return v.ToString();
}

// Bytes that are not UTF-8 become U+FFFD (JSON strings are Unicode); see IdJson for ids.
std::string Dump(const ordered_json& doc) {
  return doc.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

// Adds "id" and, if the id is not UTF-8 (and so shows U+FFFD in "id"), "id_hex": its bytes in
// hexadecimal, so that a program can still address the dataset.
void AddId(const std::string& id, ordered_json* j) {
  (*j)["id"] = id;
  if (!IsValidUtf8(id)) (*j)["id_hex"] = HexBytes(id);
}

std::pair<double, double> Range(const std::vector<double>& values) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double v : values) {
    if (std::isnan(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  return {lo, hi};
}

std::string Num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%.6g", v);
  return buf;
}

std::string StatusLine(const grid::DataSetMeta& meta) {
  std::string s = meta.status().empty() ? "(none)" : EscapeBytes(meta.status());
  auto it = meta.attributes.find(grid::kCreateTimeAttribute);
  if (it != meta.attributes.end() && it->second.is_number() && it->second.size() == 1) {
    s += " (created " + FormatTimestampMs(static_cast<int64_t>(it->second.AsDouble())) + ")";
  }
  return s;
}

// For the text output: escaped.
std::string Attr(const grid::Attributes& attrs, std::string_view name) {
  auto it = attrs.find(name);
  return it == attrs.end() ? "" : EscapeBytes(it->second.ToString());
}

}  // namespace

std::string FormatTimestampMs(int64_t ms) {
  std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[80];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(ms % 1000));
  return buf;
}

// The variable's horizontal grid ("rectilinear (lat, lon)", "curvilinear (...)"), or why it has
// none.
std::string GridText(const grid::DataSetMeta& meta, const grid::VariableMeta& v) {
  auto grid = grid::HorizontalGrid::Build(meta, v);
  if (grid.ok()) return (*grid)->description();
  return "none (" + std::string(grid.status().message()) + ")";
}

// A coordinate that is some variable's t axis but has no CF time units (`Month`, `mon`, a bare
// number): shown as such, since its values are not dates (issue 29, 3.2).
static bool IsTimeAxisWithoutCalendar(const grid::DataSetMeta& meta, const grid::Coordinate& c,
                                      const grid::CoordinateSummary& summary) {
  if (summary.is_time) return false;
  for (const grid::VariableMeta& v : meta.variables) {
    if (v.dimension_names[grid::kT] == c.name) return true;
  }
  return false;
}

std::string FormatInfoText(const grid::DataSetMeta& meta, std::optional<uint64_t> stored_bytes) {
  std::ostringstream out;
  out << "dataset      " << EscapeBytes(meta.id) << "\n";
  out << "status       " << StatusLine(meta) << "\n";
  if (stored_bytes)
    out << "stored       " << HumanBytes(static_cast<double>(*stored_bytes)) << " (approximate)\n";
  out << "blocks       " << meta.layout.block_x << "x" << meta.layout.block_y << " (x by y)\n";
  out << "codec        " << grid::CodecOptionsToString(meta.layout.codec) << "\n";
  if (meta.layout.frame_rows > 0 && meta.layout.frame_rows < meta.layout.block_x) {
    out << "frames       " << meta.layout.frame_rows << " rows per frame\n";
  }
  if (meta.series) {
    out << "series       " << grid::SeriesLayoutToString(*meta.series)
        << (meta.series->ready ? " (time-major second layout)"
                               : " (being written: run relayout again to finish it)")
        << "\n";
  }
  out << "variables    " << meta.variables.size() << "\n";
  for (const auto& v : meta.variables) {
    out << "  " << EscapeBytes(v.name) << "  " << grid::DataTypeName(v.type) << "  [";
    for (int a = 0; a < grid::kRank; ++a) {
      if (a) out << ", ";
      out << grid::AxisName(a) << "=" << v.shape[a];
      if (!v.dimension_names[a].empty()) out << " (" << EscapeBytes(v.dimension_names[a]) << ")";
    }
    out << "]";
    if (v.packing) {
      out << "  packed: x " << Num(v.packing->scale_factor) << " + " << Num(v.packing->add_offset)
          << " -> " << grid::DataTypeName(v.packing->unpacked_type);
    }
    if (v.has_fill_value()) out << "  fill " << Num(v.FillValueAsDouble());
    if (std::string units = Attr(v.attributes, "units"); !units.empty()) out << "  units " << units;
    if (std::string name = Attr(v.attributes, "long_name"); !name.empty())
      out << "  \"" << name << "\"";
    out << "\n    grid: " << GridText(meta, v) << "\n";
    if (auto precision = grid::FindRecordedPrecision(v.attributes)) {
      out << "    precision: " << grid::DescribePrecision(*precision) << "\n";
    }
    if (meta.status() == grid::kStatusIngesting) {
      out << "    complete steps: " << v.complete_steps.ToString() << " of " << v.shape[grid::kT]
          << "\n";
    }
  }
  if (!meta.coordinates.empty()) out << "coordinates  " << meta.coordinates.size() << "\n";
  for (const auto& c : meta.coordinates) {
    out << "  " << EscapeBytes(c.name) << " (";
    for (size_t i = 0; i < c.dimensions.size(); ++i) {
      out << (i ? ", " : "") << EscapeBytes(c.dimensions[i]) << ": " << c.shape[i];
    }
    out << ") " << grid::DataTypeName(c.type);
    const grid::CoordinateSummary summary = grid::SummarizeCoordinate(c);
    if (!summary.first.empty()) {
      out << "  " << summary.first;
      if (c.values.size() > 1) out << " .. " << summary.last;
    }
    if (!summary.direction.empty()) out << "  " << summary.direction;
    if (summary.step) out << ", step " << Num(*summary.step);
    if (std::string units = Attr(c.attributes, "units"); !units.empty()) out << "  " << units;
    if (std::string cal = Attr(c.attributes, "calendar"); !cal.empty()) out << "  calendar " << cal;
    if (IsTimeAxisWithoutCalendar(meta, c, summary)) out << "  (not CF time: no calendar)";
    out << "\n";
  }
  out << "attributes   " << meta.attributes.size() << "\n";
  for (const auto& [k, v] : meta.attributes) {
    out << "  " << EscapeBytes(k) << " = " << AttributeText(v) << "\n";
  }
  return out.str();
}

std::string FormatInfoJson(const grid::DataSetMeta& meta, std::optional<uint64_t> stored_bytes) {
  ordered_json doc;
  AddId(meta.id, &doc);
  doc["status"] = meta.status();
  if (stored_bytes) doc["stored_bytes"] = *stored_bytes;
  doc["layout"] = {{"block_x", meta.layout.block_x},
                   {"block_y", meta.layout.block_y},
                   {"codec", grid::CodecOptionsToString(meta.layout.codec)},
                   {"frame_rows", meta.layout.frame_rows}};
  if (meta.series) {
    doc["series_layout"] = {{"block_t", meta.series->block_t},
                            {"tile_x", meta.series->tile_x},
                            {"tile_y", meta.series->tile_y},
                            {"block_z", meta.series->block_z},
                            {"frame_points", meta.series->frame_points},
                            {"ready", meta.series->ready}};
  }
  ordered_json vars = ordered_json::array();
  for (const auto& v : meta.variables) {
    ordered_json j;
    j["name"] = v.name;
    j["type"] = std::string(grid::DataTypeName(v.type));
    j["shape"] = v.shape;
    j["dimensions"] = v.dimension_names;
    if (v.has_fill_value()) j["fill_value"] = v.FillValueAsDouble();
    if (v.packing) {
      j["packing"] = {{"scale_factor", v.packing->scale_factor},
                      {"add_offset", v.packing->add_offset},
                      {"unpacked_type", std::string(grid::DataTypeName(v.packing->unpacked_type))}};
    }
    if (!v.missing_values.empty()) j["missing_values"] = v.missing_values;
    j["attributes"] = AttributesJson(v.attributes);
    j["grid"] = GridText(meta, v);
    if (auto precision = grid::FindRecordedPrecision(v.attributes)) {
      const bool bits = precision->precision.mode == grid::QuantizeMode::kBitRound;
      j["precision"] = {
          {"mode", bits ? "BitRound" : (precision->bitgroom ? "BitGroom" : "GranularBitRound")},
          {bits ? "mantissa_bits" : "significant_digits", precision->precision.keep}};
    }
    if (meta.status() == grid::kStatusIngesting) {
      ordered_json steps = ordered_json::array();
      for (const auto& [begin, end] : v.complete_steps.ranges()) steps.push_back({begin, end});
      j["complete_steps"] = std::move(steps);  // [begin, end) t index ranges
    }
    vars.push_back(std::move(j));
  }
  doc["variables"] = std::move(vars);
  ordered_json coords = ordered_json::array();
  for (const auto& c : meta.coordinates) {
    auto [lo, hi] = Range(c.values);
    ordered_json j;
    j["name"] = c.name;
    j["dimensions"] = c.dimensions;
    j["shape"] = c.shape;
    j["type"] = std::string(grid::DataTypeName(c.type));
    if (lo <= hi) {
      j["min"] = lo;
      j["max"] = hi;
    }
    const grid::CoordinateSummary summary = grid::SummarizeCoordinate(c);
    if (!summary.first.empty()) {
      j["first"] = summary.first;
      j["last"] = summary.last;
    }
    if (!summary.direction.empty()) j["direction"] = summary.direction;
    if (summary.step) j["step"] = *summary.step;
    if (IsTimeAxisWithoutCalendar(meta, c, summary)) j["time_axis_without_calendar"] = true;
    j["attributes"] = AttributesJson(c.attributes);
    coords.push_back(std::move(j));
  }
  doc["coordinates"] = std::move(coords);
  doc["attributes"] = AttributesJson(meta.attributes);
  return Dump(doc);
}

std::string FormatDataSetListText(const std::vector<grid::DataSetMeta>& metas, size_t total) {
  std::ostringstream out;
  for (const auto& m : metas) {
    out << EscapeBytes(m.id) << "  " << StatusLine(m);
    for (const auto& [k, v] : m.attributes) {
      if (k == grid::kStatusAttribute || k == grid::kCreateTimeAttribute) continue;
      out << "  " << EscapeBytes(k) << "=" << EscapeBytes(v.ToString());
    }
    out << "\n";
  }
  out << metas.size() << " of " << total << " dataset(s)\n";
  return out.str();
}

std::string FormatDataSetListJson(const std::vector<grid::DataSetMeta>& metas, size_t total) {
  ordered_json doc;
  doc["total"] = total;
  ordered_json list = ordered_json::array();
  for (const auto& m : metas) {
    ordered_json j;
    AddId(m.id, &j);
    j["status"] = m.status();
    j["attributes"] = AttributesJson(m.attributes);
    list.push_back(std::move(j));
  }
  doc["datasets"] = std::move(list);
  return Dump(doc);
}

std::string FormatIdListText(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += EscapeBytes(id) + "\n";
  return out;
}

std::string FormatIdListJson(const std::vector<std::string>& ids, size_t total) {
  ordered_json doc;
  doc["total"] = total;
  ordered_json list = ordered_json::array();
  for (const std::string& id : ids) {
    ordered_json j;
    AddId(id, &j);
    list.push_back(std::move(j));
  }
  doc["datasets"] = std::move(list);
  return Dump(doc);
}

}  // namespace gridstore::tools
