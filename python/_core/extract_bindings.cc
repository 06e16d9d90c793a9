// Copyright 2026 The GridStore Authors.
//
// Store._extract: geo/extract.h's Extract, its result handed to Python as numpy arrays (or written
// in a file format by the shared writers, formats/output_format.h). The pure-Python layer
// (gridstore/_extract.py) turns the arrays into an xarray.Dataset laid out as `gridstore extract
// --format nc` writes its files.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "gridstore/formats/output_format.h"
#include "gridstore/geo/extract.h"
#include "python/_core/convert.h"
#include "python/_core/errors.h"
#include "python/_core/extraction.h"
#include "python/_core/py_store.h"

namespace gridstore::python {
namespace {

namespace py = pybind11;
using grid::Extraction;
using grid::ExtractPlan;

const char* KindName(grid::FeatureKind kind) {
  switch (kind) {
    case grid::FeatureKind::kArea:
      return "area";
    case grid::FeatureKind::kTrajectory:
      return "trajectory";
    case grid::FeatureKind::kPosition:
      break;
  }
  return "position";
}

}  // namespace

grid::ExtractRequest RequestFromPython(const py::dict& r) {
  grid::ExtractRequest request;
  request.variables = r["variables"].cast<std::vector<std::string>>();
  if (!r["points"].is_none()) {
    for (auto [lon, lat] : r["points"].cast<std::vector<std::pair<double, double>>>()) {
      request.points.push_back({lon, lat});
    }
  }
  if (!r["bbox"].is_none()) request.bbox = r["bbox"].cast<std::array<double, 4>>();
  if (!r["polygon"].is_none()) request.polygon = r["polygon"].cast<std::string>();
  if (!r["radius"].is_none()) {
    auto [lon, lat, km] = r["radius"].cast<std::tuple<double, double, double>>();
    request.radius = grid::Radius{{lon, lat}, km};
  }
  if (!r["trajectory"].is_none()) request.trajectory = r["trajectory"].cast<std::string>();
  request.corridor_width_km = r["corridor_width_km"].cast<double>();
  request.time = r["time"].cast<std::string>();
  request.level = r["level"].cast<std::string>();
  const std::string method = r["method"].cast<std::string>();
  if (method == "bilinear") {
    request.method = grid::InterpolationMethod::kBilinear;
  } else if (method != "nearest") {
    ThrowIfError(
        Status::InvalidArgument("method must be 'nearest' or 'bilinear', not '" + method + "'"));
  }
  request.tolerance_km = r["tolerance_km"].cast<double>();
  request.unpack = r["unpack"].cast<bool>();
  request.allow_incomplete = r["allow_incomplete"].cast<bool>();
  return request;
}

namespace {

// Per point (or trajectory sample): where it was asked, the cell used and its time/level index.
py::dict PointsToPython(const ExtractPlan& plan) {
  const size_t n = plan.points.size();
  std::vector<double> lon(n), lat(n), grid_lon(n), grid_lat(n), distance(n);
  std::vector<int64_t> x(n), y(n), time(n), level(n);
  for (size_t i = 0; i < n; ++i) {
    const ExtractPlan::Point& p = plan.points[i];
    lon[i] = p.requested.lon;
    lat[i] = p.requested.lat;
    grid_lon[i] = p.grid.lon;
    grid_lat[i] = p.grid.lat;
    distance[i] = p.distance_km;
    x[i] = p.cell.x;
    y[i] = p.cell.y;
    time[i] = p.time;
    level[i] = p.level;
  }
  py::dict out;
  out["lon"] = CopyToArray(lon);
  out["lat"] = CopyToArray(lat);
  out["grid_lon"] = CopyToArray(grid_lon);
  out["grid_lat"] = CopyToArray(grid_lat);
  out["distance_km"] = CopyToArray(distance);
  out["x"] = CopyToArray(x);
  out["y"] = CopyToArray(y);
  out["time"] = CopyToArray(time);
  out["level"] = CopyToArray(level);
  return out;
}

}  // namespace

py::dict ExtractionToPython(Extraction r) {
  const ExtractPlan& plan = r.plan;
  py::dict out;
  out["kind"] = KindName(plan.kind);
  out["grid"] = plan.grid_description;
  out["incarnation"] = r.meta->incarnation;
  out["points"] = PointsToPython(plan);
  out["times"] = CopyToArray(plan.times);
  out["levels"] = CopyToArray(plan.levels);
  out["time_per_point"] = plan.time_per_point;
  out["level_per_point"] = plan.level_per_point;
  out["time_axis"] = r.time_axis.name();
  out["level_axis"] = r.level_axis.name();
  out["area"] = py::make_tuple(plan.area[0], plan.area[1], plan.area[2], plan.area[3]);
  // An area round a global grid's edge: the wrapped axis (2 = x, 3 = y) and its grid indices.
  out["wrap"] = py::none();
  if (plan.kind == grid::FeatureKind::kArea && plan.wrap_axis >= 0) {
    std::vector<int64_t> columns;
    const bool along_x = plan.wrap_axis == grid::kX;
    for (int64_t i = 0; i < plan.area[along_x ? 2 : 3]; ++i) {
      const grid::Cell c = plan.AreaCell(along_x ? i : 0, along_x ? 0 : i);
      columns.push_back(along_x ? c.x : c.y);
    }
    out["wrap"] = py::make_tuple(plan.wrap_axis, CopyToArray(columns));
  }
  out["lon_from"] = plan.lon_from;
  py::array_t<uint8_t> mask = CopyToArray(plan.mask);
  if (plan.kind == grid::FeatureKind::kArea) {
    mask = mask.attr("reshape")(py::make_tuple(plan.area[2], plan.area[3]));
  }
  out["mask"] = mask;
  py::dict variables;
  for (Extraction::Variable& v : r.variables) {
    variables[py::str(v.meta.name)] = VectorToArray(std::move(v.values));
  }
  out["variables"] = variables;
  py::dict stats;
  stats["blocks"] = r.stats.blocks;
  stats["blocks_read"] = r.stats.blocks_read;
  stats["cache_hits"] = r.stats.cache_hits;
  stats["bytes_read"] = r.stats.bytes_read;
  out["stats"] = stats;
  return out;
}

// Every group of `request` (as Store.extract) written in `format` (covjson, csv, json or nc) by
// the writers every front end shares (formats/output_format.h). NetCDF holds the first group:
// the others go to left_out, as for the command.
py::dict ExtractBytes(PyStore& self, const std::string& id, const py::dict& request,
                      const std::string& format_name) {
  const std::optional<formats::OutputFormat> format = formats::ParseOutputFormat(format_name);
  if (!format || !formats::WritesExtractions(*format)) {
    ThrowIfError(
        Status::InvalidArgument("format '" + format_name + "' is not covjson, csv, json or nc"));
  }
  const grid::ExtractRequest parsed = RequestFromPython(request);
  auto gs = self.Get();
  std::vector<std::string> left_out;
  std::string bytes;
  {
    py::gil_scoped_release release;
    std::vector<Extraction> results = ValueOrThrow(grid::ExtractEvery(*gs, id, parsed, &left_out));
    if (*format == formats::OutputFormat::kNetCdf) {
      for (size_t k = 1; k < results.size(); ++k) {
        for (const Extraction::Variable& v : results[k].variables) {
          left_out.push_back("'" + v.meta.name + "': on other axes than '" +
                             results[0].variables[0].meta.name +
                             "', which one netCDF file cannot hold; ask for it by name");
        }
      }
    }
    std::ostringstream out;
    ThrowIfError(formats::WriteExtractions(results, *format, out));
    bytes = std::move(out).str();
  }
  py::dict out;
  out["bytes"] = py::bytes(bytes);
  out["left_out"] = py::cast(left_out);
  return out;
}

void BindExtract(py::class_<PyStore, std::shared_ptr<PyStore>>& store) {
  store.def("extract_bytes", &ExtractBytes, py::arg("id"), py::arg("request"), py::arg("format"));
  store.def(
      "extract",
      [](PyStore& self, const std::string& id, const py::dict& request) {
        const grid::ExtractRequest parsed = RequestFromPython(request);
        auto gs = self.Get();
        std::vector<Extraction> results;
        std::vector<std::string> left_out;
        {
          py::gil_scoped_release release;
          // No variables: every variable, one result per group of variables sharing a grid and
          // axes (geo/extract.h), as `gridstore extract` without --variables.
          results = ValueOrThrow(grid::ExtractEvery(*gs, id, parsed, &left_out));
        }
        py::list groups;
        for (Extraction& r : results) groups.append(ExtractionToPython(std::move(r)));
        py::dict out;
        out["groups"] = groups;
        out["left_out"] = py::cast(left_out);
        return out;
      },
      py::arg("id"), py::arg("request"));
}

}  // namespace gridstore::python
