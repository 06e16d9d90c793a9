// Copyright 2026 The GridStore Authors.
#include "gridstore/formats/netcdf/netcdf_extraction_writer.h"

#include <netcdf.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "gridstore/formats/netcdf/internal/netcdf_output.h"
#include "gridstore/formats/netcdf/netcdf_exporter.h"
#include "gridstore/model/netcdf/netcdf_api.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::formats {
namespace {

namespace netcdf = internal_netcdf::netcdf;
using grid::Extraction;
using grid::ExtractPlan;

bool IsRange(const std::vector<int64_t>& indices) {
  for (size_t i = 1; i < indices.size(); ++i) {
    if (indices[i] != indices[i - 1] + 1) return false;
  }
  return true;
}

// An area that wraps round a global grid (ExtractPlan::wrap_axis) as a box of its own: every
// coordinate along the wrapped dimension reordered to the area's columns (origin 0 then), and the
// longitudes (and their bounds) in the request's convention, so that the file holds the box
// contiguous, as asked (issue 29, 3.1).
grid::DataSetMeta RolledMeta(const grid::DataSetMeta& meta, const Extraction& r) {
  const ExtractPlan& plan = r.plan;
  const int axis = plan.wrap_axis;
  const std::string dim = r.variables[0].meta.dimension_names[axis];
  const int64_t width = plan.area[axis == grid::kX ? 2 : 3];
  std::vector<int64_t> columns;
  for (int64_t i = 0; i < width; ++i) {
    const grid::Cell c = plan.AreaCell(axis == grid::kX ? i : 0, axis == grid::kX ? 0 : i);
    columns.push_back(axis == grid::kX ? c.x : c.y);
  }
  grid::DataSetMeta rolled = meta;
  const grid::Coordinate* lon = meta.FindCoordinate(dim);
  for (grid::Coordinate& c : rolled.coordinates) {
    const auto at = std::find(c.dimensions.begin(), c.dimensions.end(), dim);
    if (at == c.dimensions.end()) continue;
    const size_t k = size_t(at - c.dimensions.begin());
    // Shape (outer, n, inner) around the dimension; values reordered along it.
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < c.shape.size(); ++d) {
      if (d < k) outer *= c.shape[d];
      if (d > k) inner *= c.shape[d];
    }
    const int64_t n = c.shape[k];
    const bool is_lon =
        lon != nullptr &&
        (c.name == lon->name || grid::StringAttribute(lon->attributes, "bounds") == c.name);
    std::vector<double> values;
    values.reserve(size_t(outer * width * inner));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t col : columns) {
        // The longitude's shift into the request's convention, the same for its bounds.
        const double shift = is_lon && lon != nullptr
                                 ? plan.Lon(lon->values[size_t(col)]) - lon->values[size_t(col)]
                                 : 0;
        for (int64_t i = 0; i < inner; ++i) {
          values.push_back(c.values[size_t((o * n + col) * inner + i)] + shift);
        }
      }
    }
    c.values = std::move(values);
    c.shape[k] = width;
  }
  return rolled;
}

Status WriteArea(const internal_formats::NetCdfDestination& to,
                 const grid::DataSetMeta& source_meta, const Extraction& r) {
  const std::string& path = to.name;
  const ExtractPlan& plan = r.plan;
  if (!IsRange(plan.times) || !IsRange(plan.levels)) {
    return Status::InvalidArgument(
        Quote(path) +
        ": netCDF output of an area needs its times and levels as a range "
        "(--time A/B), not a list");
  }
  const grid::DataSetMeta meta = plan.wrap_axis >= 0 ? RolledMeta(source_meta, r) : source_meta;
  grid::Shape4 origin = {plan.times[0], plan.levels[0], plan.area[0], plan.area[1]};
  if (plan.wrap_axis >= 0) origin[plan.wrap_axis] = 0;  // the rolled coordinates start there
  const grid::Shape4 shape = {int64_t(plan.times.size()), int64_t(plan.levels.size()), plan.area[2],
                              plan.area[3]};
  grid::GridDataSet data;
  data.id = meta.id;
  for (const Extraction::Variable& v : r.variables) {
    grid::Grid4D g(grid::UnpackedType(v.meta), origin, shape);
    grid::VisitDataType(g.type(), [&](auto tag) {
      using T = decltype(tag);
      if constexpr (std::is_floating_point_v<T>) {
        auto out = g.data<T>();
        for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<T>(v.values[i]);
      }
    });
    data.variables[v.meta.name] = std::move(g);
  }
  return internal_formats::WriteNetCdfDataSet(to, meta, data, {.unpacked = true});
}

// The netCDF writing of points and trajectories: the shared helper over the C API.
using DsgWriter = internal_formats::NetCdfWriter;

// The attributes of the point coordinates: where was asked, and which cell answered.
Status DescribeLonLat(DsgWriter& w, int lon_id, int lat_id, int glon_id, int glat_id) {
  for (auto [id, sn, units] : {std::tuple{lon_id, "longitude", "degrees_east"},
                               std::tuple{lat_id, "latitude", "degrees_north"}}) {
    GRIDSTORE_RETURN_IF_ERROR(w.Text(id, "standard_name", sn));
    GRIDSTORE_RETURN_IF_ERROR(w.Text(id, "units", units));
  }
  GRIDSTORE_RETURN_IF_ERROR(w.Text(glon_id, "long_name", "longitude of the grid cell used"));
  GRIDSTORE_RETURN_IF_ERROR(w.Text(glon_id, "units", "degrees_east"));
  GRIDSTORE_RETURN_IF_ERROR(w.Text(glat_id, "long_name", "latitude of the grid cell used"));
  GRIDSTORE_RETURN_IF_ERROR(w.Text(glat_id, "units", "degrees_north"));
  return Status::OK();
}

// The coordinate values of points (per station, and per time and level) or of a trajectory
// (per observation: sample x time x level).
struct PointColumns {
  std::vector<double> lons, lats, grid_lons, grid_lats, times, levels;
};

PointColumns ColumnsOf(const Extraction& r) {
  const ExtractPlan& plan = r.plan;
  const bool trajectory = plan.kind == grid::FeatureKind::kTrajectory;
  const size_t n = plan.points.size(), nt = plan.num_times(), nz = plan.num_levels();
  PointColumns c;
  for (size_t p = 0; p < n; ++p) {
    for (size_t rep = 0; rep < (trajectory ? nt * nz : 1); ++rep) {
      c.lons.push_back(plan.points[p].requested.lon);
      c.lats.push_back(plan.points[p].requested.lat);
      c.grid_lons.push_back(plan.points[p].grid.lon);
      c.grid_lats.push_back(plan.points[p].grid.lat);
      if (!trajectory) continue;
      c.times.push_back(r.time_axis.values()[size_t(plan.TimeOf(p, rep / nz))]);
      c.levels.push_back(r.level_axis.values()[size_t(plan.LevelOf(p, rep % nz))]);
    }
  }
  if (!trajectory) {
    for (size_t i = 0; i < nt; ++i)
      c.times.push_back(r.time_axis.values()[size_t(plan.TimeOf(0, i))]);
    for (size_t j = 0; j < nz; ++j) {
      c.levels.push_back(r.level_axis.values()[size_t(plan.LevelOf(0, j))]);
    }
  }
  return c;
}

// Points (dimensions station, time[, level]) or a trajectory (dimension obs): the layout of
// Extraction::Variable::values is [point][time][level] either way.
Status WritePoints(const std::string& path, const grid::DataSetMeta& meta, const Extraction& r,
                   int ncid) {
  const ExtractPlan& plan = r.plan;
  const bool trajectory = plan.kind == grid::FeatureKind::kTrajectory;
  const size_t n = plan.points.size(), nt = plan.num_times(), nz = plan.num_levels();
  DsgWriter w(path, ncid);
  const grid::Coordinate* time = meta.FindCoordinate(r.time_axis.name());
  const grid::Coordinate* level = meta.FindCoordinate(r.level_axis.name());
  // Dimensions and the coordinates along them.
  const std::string time_name = time != nullptr ? time->name : "time";
  const std::string level_name = level != nullptr ? level->name : "level";
  int station = -1, tdim = -1, zdim = -1;
  std::vector<int> value_dims;
  GRIDSTORE_RETURN_IF_ERROR(
      w.Dim(trajectory ? "obs" : "station", trajectory ? n * nt * nz : n, &station));
  value_dims.push_back(station);
  if (!trajectory && time != nullptr && nt >= 1) {
    GRIDSTORE_RETURN_IF_ERROR(w.Dim(time_name.c_str(), nt, &tdim));
    value_dims.push_back(tdim);
  }
  if (!trajectory && level != nullptr && nz >= 1) {
    GRIDSTORE_RETURN_IF_ERROR(w.Dim(level_name.c_str(), nz, &zdim));
    value_dims.push_back(zdim);
  }
  const PointColumns c = ColumnsOf(r);
  const std::vector<double>&lons = c.lons, &lats = c.lats, &glons = c.grid_lons,
        &glats = c.grid_lats, &times = c.times, &levels = c.levels;
  int lon_id, lat_id, glon_id, glat_id, time_id = -1, level_id = -1;
  GRIDSTORE_RETURN_IF_ERROR(w.Var("lon", {station}, &lon_id));
  GRIDSTORE_RETURN_IF_ERROR(w.Var("lat", {station}, &lat_id));
  GRIDSTORE_RETURN_IF_ERROR(w.Var("grid_lon", {station}, &glon_id));
  GRIDSTORE_RETURN_IF_ERROR(w.Var("grid_lat", {station}, &glat_id));
  GRIDSTORE_RETURN_IF_ERROR(DescribeLonLat(w, lon_id, lat_id, glon_id, glat_id));
  // grid_lon / grid_lat are auxiliary coordinates too: readers (xarray) keep them beside lon/lat.
  std::string coordinates =
      trajectory ? time_name + " lat lon grid_lat grid_lon" : "lat lon grid_lat grid_lon";
  if (time != nullptr) {
    GRIDSTORE_RETURN_IF_ERROR(w.Var(time_name, {trajectory ? station : tdim}, &time_id));
    GRIDSTORE_RETURN_IF_ERROR(w.CopyAttributes(time_id, time->attributes));
  }
  if (level != nullptr) {
    GRIDSTORE_RETURN_IF_ERROR(w.Var(level_name, {trajectory ? station : zdim}, &level_id));
    GRIDSTORE_RETURN_IF_ERROR(w.CopyAttributes(level_id, level->attributes));
    if (trajectory) coordinates += " " + level_name;
  }
  std::vector<int> ids;
  for (const Extraction::Variable& v : r.variables) {
    int id;
    GRIDSTORE_RETURN_IF_ERROR(w.Var(v.meta.name, value_dims, &id, /*data=*/true));
    GRIDSTORE_RETURN_IF_ERROR(w.CopyAttributes(id, v.meta.attributes));
    GRIDSTORE_RETURN_IF_ERROR(w.Text(id, "coordinates", coordinates));
    ids.push_back(id);
  }
  const std::string feature = trajectory ? "trajectory"
                              : nz > 1   ? "timeSeriesProfile"
                                         : "timeSeries";
  GRIDSTORE_RETURN_IF_ERROR(w.Text(NC_GLOBAL, "featureType", feature));
  GRIDSTORE_RETURN_IF_ERROR(w.Text(NC_GLOBAL, "Conventions", "CF-1.8"));
  GRIDSTORE_RETURN_IF_ERROR(w.Text(NC_GLOBAL, "source", "GridStore dataset " + meta.id));
  GRIDSTORE_RETURN_IF_ERROR(w.EndDef());
  GRIDSTORE_RETURN_IF_ERROR(w.Put(lon_id, lons, "lon"));
  GRIDSTORE_RETURN_IF_ERROR(w.Put(lat_id, lats, "lat"));
  GRIDSTORE_RETURN_IF_ERROR(w.Put(glon_id, glons, "grid_lon"));
  GRIDSTORE_RETURN_IF_ERROR(w.Put(glat_id, glats, "grid_lat"));
  if (time_id >= 0) GRIDSTORE_RETURN_IF_ERROR(w.Put(time_id, times, time_name));
  if (level_id >= 0) GRIDSTORE_RETURN_IF_ERROR(w.Put(level_id, levels, level_name));
  for (size_t k = 0; k < ids.size(); ++k) {
    GRIDSTORE_RETURN_IF_ERROR(w.Put(ids[k], r.variables[k].values, r.variables[k].meta.name));
  }
  return Status::OK();
}

Status WriteExtractionTo(const internal_formats::NetCdfDestination& to,
                         const grid::DataSetMeta& meta, const Extraction& extraction) {
  if (extraction.plan.kind == grid::FeatureKind::kArea) return WriteArea(to, meta, extraction);
  return internal_formats::WriteNetCdfFile(
      to, [&](int ncid) { return WritePoints(to.name, meta, extraction, ncid); });
}

}  // namespace

Status WriteNetCdfExtraction(const std::string& path, const grid::DataSetMeta& meta,
                             const Extraction& extraction) {
  return WriteExtractionTo({.name = path}, meta, extraction);
}

Result<std::string> NetCdfExtractionBytes(const grid::DataSetMeta& meta,
                                          const Extraction& extraction) {
  std::string bytes;
  GRIDSTORE_RETURN_IF_ERROR(
      WriteExtractionTo({.name = "the netCDF output", .memory = &bytes}, meta, extraction));
  return bytes;
}

}  // namespace gridstore::formats
