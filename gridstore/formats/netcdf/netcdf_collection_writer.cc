// Copyright 2026 The GridStore Authors.
#include "gridstore/formats/netcdf/netcdf_collection_writer.h"

#include <netcdf.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include "gridstore/formats/internal/collection_time.h"
#include "gridstore/formats/netcdf/internal/netcdf_output.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::formats {
namespace {

using forecast::CollectionExtraction;
using forecast::CollectionSlice;
using grid::Extraction;
using internal_formats::NetCdfWriter;

constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();
constexpr const char* kEpochSeconds = "seconds since 1970-01-01 00:00:00";

// The level values a slice's first group answers, in order.
std::vector<double> SliceLevels(const Extraction& r) {
  std::vector<double> levels;
  for (size_t j = 0; j < r.plan.num_levels(); ++j) {
    levels.push_back(
        r.level_axis.name().empty() ? 0.0 : r.level_axis.values()[size_t(r.plan.LevelOf(0, j))]);
  }
  return levels;
}

// What the file is made of: the axes over all slices, checked to agree.
struct CollectionLayout {
  std::vector<int64_t> runs;                           // ms, in the order of the slices
  std::vector<int64_t> members;                        // has_members
  std::vector<std::string> stats;                      // has_statistics
  std::vector<std::pair<size_t, size_t>> slice_index;  // per slice: (run, member or stat)
  size_t entries = 1;                                  // members, statistics, or 1
  size_t times = 0;                                    // the most times of any slice
  std::vector<double> levels;
  size_t places = 0;  // points, or cells of the area box
};

Result<CollectionLayout> Layout(const CollectionExtraction& c) {
  if (c.slices.empty()) return Status::InvalidArgument("no slice of the collection to write");
  CollectionLayout out;
  const CollectionSlice& first = c.slices.front();
  if (first.groups.empty()) return Status::InvalidArgument("the collection's answer is empty");
  const Extraction& r0 = first.groups.front();
  const grid::ExtractPlan& p0 = r0.plan;
  if (p0.kind == grid::FeatureKind::kTrajectory) {
    return Status::InvalidArgument(
        "a trajectory of a forecast collection is not written as netCDF: ask CoverageJSON, CSV or "
        "JSON");
  }
  out.levels = SliceLevels(r0);
  out.places =
      p0.kind == grid::FeatureKind::kArea ? size_t(p0.area[2] * p0.area[3]) : p0.points.size();
  for (const CollectionSlice& s : c.slices) {
    if (s.groups.empty()) return Status::InvalidArgument("a slice of the answer is empty");
    const Extraction& r = s.groups.front();
    const std::string what = "run " + forecast::FormatIsoMs(s.run_time_ms) +
                             (s.statistic.empty() ? "" : " (" + s.statistic + ")");
    if (r.variables.size() != r0.variables.size() ||
        !std::equal(r.variables.begin(), r.variables.end(), r0.variables.begin(),
                    [](const auto& a, const auto& b) { return a.meta.name == b.meta.name; })) {
      return Status::InvalidArgument(
          what + " has other variables than the first run: " +
          "one netCDF file cannot hold both; ask them one run at a time");
    }
    if (r.plan.kind != p0.kind || r.plan.points.size() != p0.points.size() ||
        r.plan.area != p0.area) {
      return Status::InvalidArgument(what +
                                     " answers other places than the first run (another "
                                     "grid?): one netCDF file cannot hold both; ask one run");
    }
    if (SliceLevels(r) != out.levels) {
      return Status::InvalidArgument(
          what +
          " has other levels than the first run: one netCDF file cannot hold both; ask "
          "one run, or the same levels of both with z");
    }
    out.times = std::max(out.times, r.plan.num_times());
    auto run = std::find(out.runs.begin(), out.runs.end(), s.run_time_ms);
    if (run == out.runs.end()) run = out.runs.insert(out.runs.end(), s.run_time_ms);
    size_t entry = 0;
    if (c.has_statistics) {
      auto it = std::find(out.stats.begin(), out.stats.end(), s.statistic);
      if (it == out.stats.end()) it = out.stats.insert(out.stats.end(), s.statistic);
      entry = size_t(it - out.stats.begin());
    } else if (c.has_members) {
      auto it = std::find(out.members.begin(), out.members.end(), s.member);
      if (it == out.members.end()) it = out.members.insert(out.members.end(), s.member);
      entry = size_t(it - out.members.begin());
    }
    out.slice_index.emplace_back(size_t(run - out.runs.begin()), entry);
  }
  out.entries = c.has_statistics ? out.stats.size() : c.has_members ? out.members.size() : 1;
  return out;
}

// The netCDF ids and names of the file's dimensions and variables (-1: not in this file), made
// in define mode by the Define* helpers and used again by the Put* ones to write the values.
struct CollectionFileIds {
  bool area = false;         // an area (x, y) rather than points (station)
  bool with_level = false;   // the variables have a level axis
  bool rectilinear = false;  // an area on a rectilinear grid: 1-D x and y coordinates
  std::string level_name, x_name, y_name;
  int run_dim = -1, entry_dim = -1, time_dim = -1, level_dim = -1, place_dim = -1, x_dim = -1,
      y_dim = -1;
  int run_id = -1, entry_id = -1, valid_id = -1, lead_id = -1, level_id = -1;
  int lon_id = -1, lat_id = -1, glon_id = -1, glat_id = -1, x_id = -1, y_id = -1;
  std::string coordinates = "valid_time lead_time";  // the variables' coordinates attribute
  std::vector<int> variables;                        // of the first group's variables
};

// The dimensions, outermost first; the level is renamed if it clashes with another dimension.
Status DefineDimensions(NetCdfWriter& w, const CollectionExtraction& c, const CollectionLayout& l,
                        CollectionFileIds& f) {
  const Extraction& r0 = c.slices.front().groups.front();
  const grid::ExtractPlan& p0 = r0.plan;
  GRIDSTORE_RETURN_IF_ERROR(w.Dim("run", l.runs.size(), &f.run_dim));
  if (c.has_statistics || c.has_members) {
    GRIDSTORE_RETURN_IF_ERROR(w.Dim(c.has_statistics ? "stat" : "member", l.entries, &f.entry_dim));
  }
  GRIDSTORE_RETURN_IF_ERROR(w.Dim("time", l.times, &f.time_dim));
  f.level_name = r0.level_axis.name();
  if (f.level_name == "run" || f.level_name == "member" || f.level_name == "stat" ||
      f.level_name == "time" || f.level_name == "station") {
    f.level_name += "_level";
  }
  if (f.with_level) GRIDSTORE_RETURN_IF_ERROR(w.Dim(f.level_name, l.levels.size(), &f.level_dim));
  if (f.area) {
    f.x_name = r0.variables[0].meta.dimension_names[grid::kX];
    f.y_name = r0.variables[0].meta.dimension_names[grid::kY];
    if (f.x_name.empty() || f.x_name == f.y_name) f.x_name = "x";
    if (f.y_name.empty() || f.x_name == f.y_name) f.y_name = "y";
    GRIDSTORE_RETURN_IF_ERROR(w.Dim(f.x_name, size_t(p0.area[2]), &f.x_dim));
    GRIDSTORE_RETURN_IF_ERROR(w.Dim(f.y_name, size_t(p0.area[3]), &f.y_dim));
  } else {
    GRIDSTORE_RETURN_IF_ERROR(w.Dim("station", l.places, &f.place_dim));
  }
  return Status::OK();
}

// The coordinates of the run, member or statistic, valid and lead times, and level.
Status DefineRunCoordinates(NetCdfWriter& w, const CollectionExtraction& c, CollectionFileIds& f) {
  const Extraction& r0 = c.slices.front().groups.front();
  GRIDSTORE_RETURN_IF_ERROR(w.Var("run", {f.run_dim}, &f.run_id));
  GRIDSTORE_RETURN_IF_ERROR(w.Text(f.run_id, "units", kEpochSeconds));
  GRIDSTORE_RETURN_IF_ERROR(w.Text(f.run_id, "calendar", "standard"));
  GRIDSTORE_RETURN_IF_ERROR(w.Text(f.run_id, "standard_name", "forecast_reference_time"));
  GRIDSTORE_RETURN_IF_ERROR(w.Text(f.run_id, "long_name", "forecast reference time (run)"));
  if (c.has_statistics) {
    GRIDSTORE_RETURN_IF_ERROR(w.TypedVar("stat", NC_STRING, {f.entry_dim}, &f.entry_id));
    GRIDSTORE_RETURN_IF_ERROR(w.Text(f.entry_id, "long_name", "ensemble statistic"));
    GRIDSTORE_RETURN_IF_ERROR(w.Text(
        f.entry_id, "comment",
        "mean; spread (population standard deviation); min; max; pN, the N-th percentile (linear "
        "between members); prob>X / prob<X, the fraction of members beyond X (values 0..1)"));
  } else if (c.has_members) {
    GRIDSTORE_RETURN_IF_ERROR(w.TypedVar("member", NC_INT, {f.entry_dim}, &f.entry_id));
    GRIDSTORE_RETURN_IF_ERROR(w.Text(f.entry_id, "standard_name", "realization"));
    GRIDSTORE_RETURN_IF_ERROR(w.Text(f.entry_id, "long_name", "ensemble member number"));
  }
  GRIDSTORE_RETURN_IF_ERROR(
      w.Var("valid_time", {f.run_dim, f.time_dim}, &f.valid_id, /*data=*/true));
  GRIDSTORE_RETURN_IF_ERROR(w.Text(f.valid_id, "units", kEpochSeconds));
  GRIDSTORE_RETURN_IF_ERROR(w.Text(f.valid_id, "calendar", "standard"));
  GRIDSTORE_RETURN_IF_ERROR(w.Text(f.valid_id, "standard_name", "time"));
  GRIDSTORE_RETURN_IF_ERROR(w.Text(f.valid_id, "long_name", "valid time"));
  GRIDSTORE_RETURN_IF_ERROR(w.Var("lead_time", {f.run_dim, f.time_dim}, &f.lead_id, /*data=*/true));
  GRIDSTORE_RETURN_IF_ERROR(w.Text(f.lead_id, "units", "hours"));
  GRIDSTORE_RETURN_IF_ERROR(w.Text(f.lead_id, "standard_name", "forecast_period"));
  GRIDSTORE_RETURN_IF_ERROR(w.Text(f.lead_id, "long_name", "lead time (valid time - run)"));
  if (f.with_level) {
    GRIDSTORE_RETURN_IF_ERROR(w.Var(f.level_name, {f.level_dim}, &f.level_id));
    if (const grid::Coordinate* level = r0.meta->FindCoordinate(r0.level_axis.name())) {
      GRIDSTORE_RETURN_IF_ERROR(w.CopyAttributes(f.level_id, level->attributes));
    }
  }
  return Status::OK();
}

// The horizontal coordinates: the points asked and the cells used (points), 1-D x and y
// (rectilinear area) or 2-D lon and lat (other areas); adds the auxiliary ones to coordinates.
Status DefinePlaceCoordinates(NetCdfWriter& w, const Extraction& r0, CollectionFileIds& f) {
  if (!f.area) {
    GRIDSTORE_RETURN_IF_ERROR(w.Var("lon", {f.place_dim}, &f.lon_id));
    GRIDSTORE_RETURN_IF_ERROR(w.Var("lat", {f.place_dim}, &f.lat_id));
    GRIDSTORE_RETURN_IF_ERROR(w.Var("grid_lon", {f.place_dim}, &f.glon_id));
    GRIDSTORE_RETURN_IF_ERROR(w.Var("grid_lat", {f.place_dim}, &f.glat_id));
    GRIDSTORE_RETURN_IF_ERROR(w.Text(f.glon_id, "long_name", "longitude of the grid cell used"));
    GRIDSTORE_RETURN_IF_ERROR(w.Text(f.glat_id, "long_name", "latitude of the grid cell used"));
    f.coordinates += " lat lon grid_lat grid_lon";
  } else if (f.rectilinear) {
    GRIDSTORE_RETURN_IF_ERROR(w.Var(f.x_name, {f.x_dim}, &f.x_id));
    GRIDSTORE_RETURN_IF_ERROR(w.Var(f.y_name, {f.y_dim}, &f.y_id));
    const bool x_is_lat = r0.grid->x_is_latitude();
    f.lat_id = x_is_lat ? f.x_id : f.y_id;
    f.lon_id = x_is_lat ? f.y_id : f.x_id;
  } else {
    GRIDSTORE_RETURN_IF_ERROR(w.Var("lon", {f.x_dim, f.y_dim}, &f.lon_id, /*data=*/true));
    GRIDSTORE_RETURN_IF_ERROR(w.Var("lat", {f.x_dim, f.y_dim}, &f.lat_id, /*data=*/true));
    f.coordinates += " lat lon";
  }
  for (auto [id, sn, units] :
       {std::tuple{f.lon_id, "longitude", "degrees_east"},
        std::tuple{f.lat_id, "latitude", "degrees_north"},
        std::tuple{f.glon_id, "", "degrees_east"}, std::tuple{f.glat_id, "", "degrees_north"}}) {
    if (id < 0) continue;
    if (*sn != '\0') GRIDSTORE_RETURN_IF_ERROR(w.Text(id, "standard_name", sn));
    GRIDSTORE_RETURN_IF_ERROR(w.Text(id, "units", units));
  }
  return Status::OK();
}

// The attributes to copy to variable `v`: those of the first slice that is not a probability
// (whose units are "1"), else the first group's.
const grid::Attributes& VariableAttributes(const CollectionExtraction& c,
                                           const Extraction::Variable& v) {
  const grid::Attributes* attributes = &v.meta.attributes;
  for (const CollectionSlice& s : c.slices) {
    if (s.statistic.rfind("prob", 0) == 0) continue;
    for (const auto& sv : s.groups.front().variables) {
      if (sv.meta.name == v.meta.name) attributes = &sv.meta.attributes;
    }
    break;
  }
  return *attributes;
}

// The data variables over (run, member|stat, time[, level], x, y) for an area or (run,
// member|stat, station, time[, level]) for points, then the global attributes.
Status DefineVariables(NetCdfWriter& w, const CollectionExtraction& c, CollectionFileIds& f) {
  std::vector<int> value_dims = {f.run_dim};
  if (f.entry_dim >= 0) value_dims.push_back(f.entry_dim);
  if (f.area) {
    value_dims.push_back(f.time_dim);
    if (f.with_level) value_dims.push_back(f.level_dim);
    value_dims.push_back(f.x_dim);
    value_dims.push_back(f.y_dim);
  } else {
    value_dims.push_back(f.place_dim);
    value_dims.push_back(f.time_dim);
    if (f.with_level) value_dims.push_back(f.level_dim);
  }
  for (const Extraction::Variable& v : c.slices.front().groups.front().variables) {
    int id;
    GRIDSTORE_RETURN_IF_ERROR(w.Var(v.meta.name, value_dims, &id, /*data=*/true));
    GRIDSTORE_RETURN_IF_ERROR(w.CopyAttributes(id, VariableAttributes(c, v)));
    GRIDSTORE_RETURN_IF_ERROR(w.Text(id, "coordinates", f.coordinates));
    f.variables.push_back(id);
  }
  GRIDSTORE_RETURN_IF_ERROR(w.Text(NC_GLOBAL, "Conventions", "CF-1.8"));
  GRIDSTORE_RETURN_IF_ERROR(
      w.Text(NC_GLOBAL, "source", "GridStore forecast collection " + c.collection));
  GRIDSTORE_RETURN_IF_ERROR(w.Text(NC_GLOBAL, "collection", c.collection));
  GRIDSTORE_RETURN_IF_ERROR(
      w.Text(NC_GLOBAL, "collection_view", std::string(forecast::RunViewName(c.view))));
  if (!c.notes.empty()) GRIDSTORE_RETURN_IF_ERROR(w.Text(NC_GLOBAL, "notes", Join(c.notes, "; ")));
  return Status::OK();
}

// The values of the run, member or statistic, valid and lead times (NaN where a run has fewer
// times; the first slice of a run giving a time wins) and level coordinates.
Status PutRunCoordinates(NetCdfWriter& w, const CollectionExtraction& c, const CollectionLayout& l,
                         const CollectionFileIds& f) {
  const size_t nr = l.runs.size(), nt = l.times;
  std::vector<double> runs;
  for (int64_t ms : l.runs) runs.push_back(double(ms) / 1000.0);
  GRIDSTORE_RETURN_IF_ERROR(w.Put(f.run_id, runs, "run"));
  if (c.has_statistics) GRIDSTORE_RETURN_IF_ERROR(w.PutStrings(f.entry_id, l.stats, "stat"));
  if (!c.has_statistics && c.has_members) {
    std::vector<int> members;
    for (int64_t m : l.members) members.push_back(int(m));
    GRIDSTORE_RETURN_IF_ERROR(w.PutInts(f.entry_id, members, "member"));
  }
  std::vector<double> valid(nr * nt, kNoValue), lead(nr * nt, kNoValue);
  for (size_t k = 0; k < c.slices.size(); ++k) {
    const CollectionSlice& s = c.slices[k];
    const Extraction& r = s.groups.front();
    const size_t ri = l.slice_index[k].first;
    for (size_t i = 0; i < r.plan.num_times(); ++i) {
      const auto ms = internal_formats::ValidTimeMs(r, r.plan.TimeOf(0, i), s.run_time_ms);
      if (!ms || !std::isnan(valid[ri * nt + i])) continue;
      valid[ri * nt + i] = double(*ms) / 1000.0;
      lead[ri * nt + i] = double(*ms - s.run_time_ms) / 3'600'000.0;
    }
  }
  GRIDSTORE_RETURN_IF_ERROR(w.Put(f.valid_id, valid, "valid_time"));
  GRIDSTORE_RETURN_IF_ERROR(w.Put(f.lead_id, lead, "lead_time"));
  if (f.with_level) GRIDSTORE_RETURN_IF_ERROR(w.Put(f.level_id, l.levels, f.level_name));
  return Status::OK();
}

// The values of the horizontal coordinates DefinePlaceCoordinates made.
Status PutPlaceCoordinates(NetCdfWriter& w, const Extraction& r0, const CollectionFileIds& f) {
  const grid::ExtractPlan& p0 = r0.plan;
  if (!f.area) {
    std::vector<double> lons, lats, glons, glats;
    for (const auto& p : p0.points) {
      lons.push_back(p.requested.lon);
      lats.push_back(p.requested.lat);
      glons.push_back(p.grid.lon);
      glats.push_back(p.grid.lat);
    }
    GRIDSTORE_RETURN_IF_ERROR(w.Put(f.lon_id, lons, "lon"));
    GRIDSTORE_RETURN_IF_ERROR(w.Put(f.lat_id, lats, "lat"));
    GRIDSTORE_RETURN_IF_ERROR(w.Put(f.glon_id, glons, "grid_lon"));
    GRIDSTORE_RETURN_IF_ERROR(w.Put(f.glat_id, glats, "grid_lat"));
  } else if (f.rectilinear) {
    const bool x_is_lat = r0.grid->x_is_latitude();
    std::vector<double> xs, ys;
    for (int64_t x = 0; x < p0.area[2]; ++x) {
      const grid::LonLat at = r0.grid->At(p0.AreaCell(x, 0));
      xs.push_back(x_is_lat ? at.lat : p0.Lon(at.lon));
    }
    for (int64_t y = 0; y < p0.area[3]; ++y) {
      const grid::LonLat at = r0.grid->At(p0.AreaCell(0, y));
      ys.push_back(x_is_lat ? p0.Lon(at.lon) : at.lat);
    }
    GRIDSTORE_RETURN_IF_ERROR(w.Put(f.x_id, xs, f.x_name));
    GRIDSTORE_RETURN_IF_ERROR(w.Put(f.y_id, ys, f.y_name));
  } else {
    std::vector<double> lons, lats;
    for (int64_t x = 0; x < p0.area[2]; ++x) {
      for (int64_t y = 0; y < p0.area[3]; ++y) {
        const grid::LonLat at = r0.grid->At(p0.AreaCell(x, y));
        lons.push_back(p0.Lon(at.lon));
        lats.push_back(at.lat);
      }
    }
    GRIDSTORE_RETURN_IF_ERROR(w.Put(f.lon_id, lons, "lon"));
    GRIDSTORE_RETURN_IF_ERROR(w.Put(f.lat_id, lats, "lat"));
  }
  return Status::OK();
}

// The values of each variable: every slice's into its (run, member|stat) block, NaN where the
// answer lacks a combination or a run has fewer times.
Status PutVariables(NetCdfWriter& w, const CollectionExtraction& c, const CollectionLayout& l,
                    const CollectionFileIds& f) {
  const Extraction& r0 = c.slices.front().groups.front();
  const size_t nr = l.runs.size(), ne = l.entries, nt = l.times, nz = l.levels.size();
  const size_t np = l.places;
  for (size_t v = 0; v < f.variables.size(); ++v) {
    std::vector<double> values(nr * ne * np * nt * nz, kNoValue);
    for (size_t k = 0; k < c.slices.size(); ++k) {
      const Extraction& r = c.slices[k].groups.front();
      const std::vector<double>& src = r.variables[v].values;
      const size_t block = l.slice_index[k].first * ne + l.slice_index[k].second;
      const size_t ns = r.plan.num_times();
      if (f.area) {
        // [time][level][cells]: the slice's times are the first of the block's.
        std::copy(src.begin(), src.begin() + std::ptrdiff_t(std::min(src.size(), ns * nz * np)),
                  values.begin() + std::ptrdiff_t(block * nt * nz * np));
        continue;
      }
      for (size_t p = 0; p < np; ++p) {  // [place][time][level]
        for (size_t i = 0; i < ns; ++i) {
          for (size_t j = 0; j < nz; ++j) {
            values[((block * np + p) * nt + i) * nz + j] = src[(p * ns + i) * nz + j];
          }
        }
      }
    }
    GRIDSTORE_RETURN_IF_ERROR(w.Put(f.variables[v], values, r0.variables[v].meta.name));
  }
  return Status::OK();
}

// The file: its definitions in the order netCDF numbers them (dimensions, coordinates,
// variables, attributes), then the values.
Status WriteCollectionFile(NetCdfWriter& w, const CollectionExtraction& c,
                           const CollectionLayout& l) {
  const Extraction& r0 = c.slices.front().groups.front();
  CollectionFileIds f;
  f.area = r0.plan.kind == grid::FeatureKind::kArea;
  f.with_level = !r0.level_axis.name().empty();
  f.rectilinear = f.area && r0.grid->type() == grid::GridType::kRectilinear;
  GRIDSTORE_RETURN_IF_ERROR(DefineDimensions(w, c, l, f));
  GRIDSTORE_RETURN_IF_ERROR(DefineRunCoordinates(w, c, f));
  GRIDSTORE_RETURN_IF_ERROR(DefinePlaceCoordinates(w, r0, f));
  GRIDSTORE_RETURN_IF_ERROR(DefineVariables(w, c, f));
  GRIDSTORE_RETURN_IF_ERROR(w.EndDef());
  GRIDSTORE_RETURN_IF_ERROR(PutRunCoordinates(w, c, l, f));
  GRIDSTORE_RETURN_IF_ERROR(PutPlaceCoordinates(w, r0, f));
  return PutVariables(w, c, l, f);
}

Status WriteCollectionTo(const internal_formats::NetCdfDestination& to,
                         const CollectionExtraction& c) {
  GRIDSTORE_ASSIGN_OR_RETURN(CollectionLayout layout, Layout(c));
  return internal_formats::WriteNetCdfFile(to, [&](int ncid) {
    NetCdfWriter w(to.name, ncid);
    return WriteCollectionFile(w, c, layout);
  });
}

}  // namespace

Result<std::string> NetCdfCollectionBytes(const CollectionExtraction& result) {
  std::string bytes;
  GRIDSTORE_RETURN_IF_ERROR(
      WriteCollectionTo({.name = "the netCDF output", .memory = &bytes}, result));
  return bytes;
}

Status WriteNetCdfCollection(const std::string& path, const CollectionExtraction& result) {
  return WriteCollectionTo({.name = path}, result);
}

}  // namespace gridstore::formats
