// Copyright 2026 The GridStore Authors.
#include "gridstore/formats/internal/meta_json.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "gridstore/formats/internal/attributes_json.h"
#include "gridstore/model/quantize.h"

namespace gridstore::formats {

using nlohmann::ordered_json;

namespace {

std::pair<double, double> Range(const std::vector<double>& values) {
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (double v : values) {
    if (std::isnan(v)) continue;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  return {lo, hi};
}

}  // namespace

std::string GridText(const grid::DataSetMeta& meta, const grid::VariableMeta& v) {
  auto grid = grid::HorizontalGrid::Build(meta, v);
  if (grid.ok()) return (*grid)->description();
  return "none (" + std::string(grid.status().message()) + ")";
}

bool IsTimeAxisWithoutCalendar(const grid::DataSetMeta& meta, const grid::Coordinate& c,
                               const grid::CoordinateSummary& summary) {
  if (summary.is_time) return false;
  for (const grid::VariableMeta& v : meta.variables) {
    if (v.dimension_names[grid::kT] == c.name) return true;
  }
  return false;
}

ordered_json DataSetMetaJson(const grid::DataSetMeta& meta, std::optional<uint64_t> stored_bytes) {
  ordered_json doc;
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
    // A growing run's: the leading steps the series blocks hold (absent: every step).
    if (meta.series->steps != grid::kSeriesAllSteps) {
      doc["series_layout"]["held_steps"] = meta.series->steps;
    }
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
  return doc;
}

}  // namespace gridstore::formats
