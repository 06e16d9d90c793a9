// Copyright 2026 The GridStore Authors.
#include "tools/info_format.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gridstore/forecast/collection.h"
#include "gridstore/formats/internal/attributes_json.h"
#include "gridstore/formats/internal/meta_json.h"
#include "gridstore/geo/coordinates.h"
#include "gridstore/model/quantize.h"
#include "tools/cli_parse.h"
#include "tools/text_escape.h"

namespace gridstore::tools {

using formats::AttributesJson;
using formats::GridText;
using formats::IsTimeAxisWithoutCalendar;
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

// The run's reference time (attribute run_time, ms since 1970), if the dataset has one.
std::optional<int64_t> RunTimeMs(const grid::DataSetMeta& meta) {
  auto it = meta.attributes.find(forecast::kRunTimeAttribute);
  if (it == meta.attributes.end() || !it->second.is_number() || it->second.size() != 1) {
    return std::nullopt;
  }
  return static_cast<int64_t>(it->second.AsDouble());
}

// A run of a forecast collection: its run time, collection and member, then each time step's
// valid time and lead time (valid - run).
void RunText(const grid::DataSetMeta& meta, int64_t run_ms, std::ostringstream& out) {
  out << "run          " << forecast::FormatIsoMs(run_ms);
  std::vector<std::string> of;
  if (std::string c = Attr(meta.attributes, forecast::kCollectionAttribute); !c.empty()) {
    of.push_back("collection " + c);
  }
  if (std::string m = Attr(meta.attributes, forecast::kMemberAttribute); !m.empty()) {
    of.push_back("member " + m);
  }
  if (!of.empty()) out << " (" << Join(of, ", ") << ")";
  out << "\n";
  auto times = forecast::ValidTimesMs(meta);
  if (!times.ok()) return;
  out << "steps        " << times->size() << " (valid time, lead time)\n";
  for (int64_t t : *times) {
    out << "  " << forecast::FormatIsoMs(t) << "  " << forecast::FormatLead(t - run_ms) << "\n";
  }
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

std::string FormatInfoText(const grid::DataSetMeta& meta, std::optional<uint64_t> stored_bytes) {
  std::ostringstream out;
  out << "dataset      " << EscapeBytes(meta.id) << "\n";
  out << "status       " << StatusLine(meta) << "\n";
  if (auto run = RunTimeMs(meta)) RunText(meta, *run, out);
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
  if (auto run = RunTimeMs(meta)) doc["run_time"] = forecast::FormatIsoMs(*run);
  ordered_json body = formats::DataSetMetaJson(meta, stored_bytes);
  for (auto it = body.begin(); it != body.end(); ++it) doc[it.key()] = std::move(it.value());
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
