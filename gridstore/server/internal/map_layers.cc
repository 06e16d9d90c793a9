// Copyright 2026 The GridStore Authors.
//
// What a resolved map layer (map_layers.h) draws: its plane read whole and kept (A - B for a
// difference, cell by cell or by B's nearest cells), the run's fixed range sampled over its
// steps, the plane's colour indices looked up at the pixels of a map or tile, and the legend.
// Apart from map_layer_resolution.cc (what a request names) and map_cache.cc (what is kept):
// this is the data and pixel work, where the time goes.
#include "gridstore/server/internal/map_layers.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gridstore/forecast/collection_query.h"
#include "gridstore/geo/coordinates.h"
#include "gridstore/geo/extract.h"
#include "gridstore/server/internal/documents.h"
#include "gridstore/server/internal/endpoints.h"
#include "gridstore/server/internal/map_cache.h"
#include "gridstore/server/map_image.h"
#include "gridstore/util/internal/strings.h"
#include "gridstore/util/result.h"
#include "gridstore/util/status.h"

namespace gridstore::server {
namespace map_layers_detail {

constexpr int64_t kRangeSteps = 16;            // steps sampled for a run's range
constexpr size_t kRangeCellsPerPlane = 65536;  // about this many cells of each
constexpr int64_t kMaxCurvilinearMapPixels = int64_t{1} << 20;
constexpr int kLegendStops = 32;

// Reads the field `f` at `time` whole (not cached).
Result<std::shared_ptr<const MapPlane>> ReadPlane(const EndpointContext& context, const MapField& f,
                                                  const std::string& time) {
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const CollectionSummary> summary,
                             context.summaries->Get(*f.meta));
  grid::ExtractRequest request;
  request.variables = {f.variable};
  request.bbox = summary->bbox.value_or(std::array<double, 4>{-180, -90, 180, 90});
  request.time = time;
  request.level = f.level;
  grid::Extraction e;
  if (f.forecast) {
    forecast::CollectionRequest c;
    c.collection = f.collection;
    c.runs = f.run;
    c.members = f.member;
    c.statistics = f.stat;
    c.extract = std::move(request);
    GRIDSTORE_ASSIGN_OR_RETURN(forecast::CollectionExtraction result,
                               forecast::ExtractCollection(*context.store, c));
    if (result.slices.empty() || result.slices.front().groups.empty()) {
      return Status::NotFound("run " + f.run + " of " + Quote(f.collection) + " has no " +
                              Quote(f.variable) + " at " + Quote(time));
    }
    e = std::move(result.slices.front().groups.front());
  } else {
    GRIDSTORE_ASSIGN_OR_RETURN(e, grid::Extract(*context.store, f.meta->id, request));
  }
  auto plane = std::make_shared<MapPlane>();
  plane->grid = e.grid;
  plane->area = e.plan.area;
  plane->wrap_axis = e.plan.wrap_axis;
  plane->wrap_period = e.plan.wrap_period;
  const size_t n = size_t(plane->area[2] * plane->area[3]);
  const std::vector<double>& values = e.variables.front().values;
  plane->values.resize(n, NAN);
  for (size_t i = 0; i < n && i < values.size(); ++i) plane->values[i] = float(values[i]);
  return std::shared_ptr<const MapPlane>(std::move(plane));
}

Result<std::shared_ptr<const MapPlane>> FieldPlane(const EndpointContext& context,
                                                   const MapField& f, const std::string& time) {
  return context.maps->Plane(f.Key(time), [&] { return ReadPlane(context, f, time); });
}

// For pixels (or cells) at columns of longitude lons[i] and rows of latitude lats[j] on a
// rectilinear grid: the plane index is rows[j] + cols[i] (-1 in either: outside).
struct SeparableIndex {
  std::vector<int64_t> cols, rows;
};

SeparableIndex Separable(const MapPlane& plane, const std::vector<double>& lons,
                         const std::vector<double>& lats) {
  const grid::HorizontalGrid& g = *plane.grid;
  // A longitude's cell is looked up at a latitude inside the grid, and a latitude's at a
  // longitude inside it: on a rectilinear grid each depends on one only.
  const grid::LonLat centre = g.At({g.nx() / 2, g.ny() / 2});
  const bool x_lat = g.x_is_latitude();
  SeparableIndex s;
  const int64_t ny = plane.area[3];
  auto offset = [&](int64_t cell_index, bool along_x) -> int64_t {
    grid::Cell c{along_x ? cell_index : plane.area[0], along_x ? plane.area[1] : cell_index};
    const int64_t i = plane.Index(c);
    if (i < 0) return -1;
    return along_x ? (i / ny) * ny : i % ny;
  };
  s.cols.reserve(lons.size());
  for (double lon : lons) {
    auto n = g.FindNearest({lon, centre.lat});
    s.cols.push_back(n.ok() ? offset(x_lat ? n->cell.y : n->cell.x, !x_lat) : -1);
  }
  s.rows.reserve(lats.size());
  for (double lat : lats) {
    auto n = g.FindNearest({centre.lon, lat});
    s.rows.push_back(n.ok() ? offset(x_lat ? n->cell.x : n->cell.y, x_lat) : -1);
  }
  return s;
}

bool SameGrid(const MapPlane& a, const MapPlane& b) {
  if (a.grid == b.grid) return a.area == b.area && a.wrap_axis == b.wrap_axis;
  const grid::HorizontalGrid& g = *a.grid;
  const grid::HorizontalGrid& h = *b.grid;
  if (g.nx() != h.nx() || g.ny() != h.ny() || g.type() != h.type() || a.area != b.area ||
      a.wrap_axis != b.wrap_axis) {
    return false;
  }
  for (int64_t x : {int64_t{0}, g.nx() / 2, g.nx() - 1}) {
    for (int64_t y : {int64_t{0}, g.ny() / 3, g.ny() - 1}) {
      const grid::LonLat p = g.At({x, y}), q = h.At({x, y});
      if (std::fabs(p.lat - q.lat) > 1e-6 || std::fabs(p.lon - q.lon) > 1e-6) return false;
    }
  }
  return true;
}

// A - B at A's cells: cell by cell on the same grid, else B's nearest cell to each of A's.
Result<std::shared_ptr<const MapPlane>> DifferencePlane(const MapPlane& a, const MapPlane& b) {
  auto d = std::make_shared<MapPlane>();
  d->grid = a.grid;
  d->area = a.area;
  d->wrap_axis = a.wrap_axis;
  d->wrap_period = a.wrap_period;
  d->values.resize(a.values.size(), NAN);
  if (SameGrid(a, b)) {
    d->difference_method = "same grid, cell by cell";
    for (size_t i = 0; i < a.values.size(); ++i) d->values[i] = a.values[i] - b.values[i];
    return std::shared_ptr<const MapPlane>(std::move(d));
  }
  d->difference_method = "nearest neighbour of B at A's cells";
  const grid::HorizontalGrid& ga = *a.grid;
  const int64_t nx = a.area[2], ny = a.area[3];
  if (ga.type() == grid::GridType::kRectilinear && b.grid->type() == grid::GridType::kRectilinear) {
    // A's columns of longitude and rows of latitude, mapped to B's once each.
    const bool x_lat = ga.x_is_latitude();
    std::vector<double> lons, lats;
    for (int64_t k = 0; k < (x_lat ? ny : nx); ++k) {
      lons.push_back(ga.At(x_lat ? a.AreaCellFor(0, k) : a.AreaCellFor(k, 0)).lon);
    }
    for (int64_t k = 0; k < (x_lat ? nx : ny); ++k) {
      lats.push_back(ga.At(x_lat ? a.AreaCellFor(k, 0) : a.AreaCellFor(0, k)).lat);
    }
    const SeparableIndex s = Separable(b, lons, lats);
    for (int64_t x = 0; x < nx; ++x) {
      for (int64_t y = 0; y < ny; ++y) {
        const int64_t col = s.cols[size_t(x_lat ? y : x)], row = s.rows[size_t(x_lat ? x : y)];
        if (col < 0 || row < 0) continue;
        const size_t i = size_t(x * ny + y);
        d->values[i] = a.values[i] - b.values[size_t(row + col)];
      }
    }
  } else {
    for (int64_t x = 0; x < nx; ++x) {
      for (int64_t y = 0; y < ny; ++y) {
        const size_t i = size_t(x * ny + y);
        if (std::isnan(a.values[i])) continue;
        auto n = b.grid->FindNearest(ga.At(a.AreaCellFor(x, y)));
        if (!n.ok()) continue;
        const int64_t j = b.Index(n->cell);
        if (j >= 0) d->values[i] = a.values[i] - b.values[size_t(j)];
      }
    }
  }
  return std::shared_ptr<const MapPlane>(std::move(d));
}

// The cache key of the layer's plane at `time` (PlaneAt's).
std::string PlaneKey(const MapLayer& layer, const std::string& time) {
  if (!layer.b) return layer.a.Key(time);
  return "D|" + layer.a.Key(time) + "|" + layer.b->Key(layer.b_time_given ? layer.b->time : time);
}

Result<std::shared_ptr<const MapPlane>> PlaneAt(const EndpointContext& context,
                                                const MapLayer& layer, const std::string& time) {
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const MapPlane> a, FieldPlane(context, layer.a, time));
  if (!layer.b) return a;
  const std::string b_time = layer.b_time_given ? layer.b->time : time;
  return context.maps->Plane(PlaneKey(layer, time),
                             [&]() -> Result<std::shared_ptr<const MapPlane>> {
                               GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const MapPlane> b,
                                                          FieldPlane(context, *layer.b, b_time));
                               return DifferencePlane(*a, *b);
                             });
}

// A range that renders: a single value (or none) widened.
std::array<double, 2> Widen(double lo, double hi) {
  if (!(lo <= hi)) return {0, 1};
  if (lo < hi) return {lo, hi};
  const double pad = std::max(std::fabs(lo) * 1e-6, 0.5);
  return {lo - pad, hi + pad};
}

}  // namespace map_layers_detail

Result<std::shared_ptr<const MapPlane>> LayerPlane(const EndpointContext& context,
                                                   const MapLayer& layer) {
  using namespace map_layers_detail;  // NOLINT: this file's helpers
  return PlaneAt(context, layer, layer.a.time);
}

Result<std::array<double, 2>> LayerRange(const EndpointContext& context, const MapLayer& layer) {
  using namespace map_layers_detail;  // NOLINT: this file's helpers
  if (layer.range) return *layer.range;
  if (layer.a.probability && !layer.b) return std::array<double, 2>{0, 1};
  std::string key = "R|" + layer.a.Key("*");
  if (layer.b) key += "|" + layer.b->Key(layer.b_time_given ? layer.b->time : "*");
  return context.maps->Range(key, [&]() -> Result<std::array<double, 2>> {
    // A statistic reads every member for each step: fewer steps, so that a first tile of an
    // ensemble's mean reads about 64 member planes, not 16 times the members.
    const int64_t members =
        std::max(layer.a.members_read, layer.b ? layer.b->members_read : int64_t{1});
    const size_t count =
        members > 1 ? size_t(std::clamp<int64_t>(64 / members, 2, kRangeSteps)) : kRangeSteps;
    std::vector<std::string> times;
    const std::vector<std::string>& steps = layer.a.steps;
    if (steps.size() <= count) {
      times = steps;
    } else {
      for (size_t k = 0; k < count; ++k) {
        times.push_back(steps[k * (steps.size() - 1) / (count - 1)]);
      }
    }
    if (times.empty()) times.push_back(layer.a.time);
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    Status first_error;
    bool any = false;
    for (const std::string& time : times) {
      Result<std::shared_ptr<const MapPlane>> plane = PlaneAt(context, layer, time);
      if (!plane.ok()) {
        // A step B lacks (another collection's run) is left out; every step failing is an error.
        if (first_error.ok()) first_error = plane.status();
        continue;
      }
      any = true;
      const std::vector<float>& v = (*plane)->values;
      const size_t stride = std::max<size_t>(1, v.size() / kRangeCellsPerPlane) | 1;
      for (size_t i = 0; i < v.size(); i += stride) {
        if (!std::isfinite(v[i])) continue;
        lo = std::min(lo, double(v[i]));
        hi = std::max(hi, double(v[i]));
      }
    }
    if (!any) return first_error;
    std::array<double, 2> range;
    if (layer.b) {
      double m = std::max(std::fabs(lo), std::fabs(hi));
      if (!(m > 0) || !std::isfinite(m)) m = 1;
      range = {-m, m};
    } else {
      range = Widen(lo, hi);
    }
    return range;
  });
}

Result<std::string> RenderLayer(const EndpointContext& context, const MapLayer& layer,
                                const MapPlane& plane, std::array<double, 2> range,
                                const std::vector<double>& lons, const std::vector<double>& lats) {
  using namespace map_layers_detail;  // NOLINT: this file's helpers
  const std::string key = "I|" + PlaneKey(layer, layer.a.time) + "|" + FormatDouble(range[0]) +
                          "," + FormatDouble(range[1]) + "|" +
                          (layer.transparent_below ? FormatDouble(*layer.transparent_below) : "");
  GRIDSTORE_ASSIGN_OR_RETURN(
      std::shared_ptr<const MapPlane> indexed,
      context.maps->Plane(key, [&]() -> Result<std::shared_ptr<const MapPlane>> {
        auto p = std::make_shared<MapPlane>();
        p->grid = plane.grid;
        p->area = plane.area;
        p->wrap_axis = plane.wrap_axis;
        p->wrap_period = plane.wrap_period;
        const ColourIndexer index(range, layer.transparent_below);
        p->indices.resize(plane.values.size());
        for (size_t i = 0; i < plane.values.size(); ++i) p->indices[i] = index(plane.values[i]);
        return std::shared_ptr<const MapPlane>(std::move(p));
      }));
  const int width = int(lons.size()), height = int(lats.size());
  std::vector<uint8_t> pixels(size_t(width) * size_t(height), 0);  // 0: transparent
  const uint8_t* cells = indexed->indices.data();
  const grid::HorizontalGrid& g = *plane.grid;
  if (g.type() == grid::GridType::kRectilinear) {
    const SeparableIndex s = Separable(plane, lons, lats);
    for (int j = 0; j < height; ++j) {
      const int64_t row = s.rows[size_t(j)];
      if (row < 0) continue;
      uint8_t* out = &pixels[size_t(j) * size_t(width)];
      for (int i = 0; i < width; ++i) {
        const int64_t col = s.cols[size_t(i)];
        if (col >= 0) out[i] = cells[row + col];
      }
    }
  } else {
    const int64_t count = int64_t(width) * height;
    if (count > kMaxCurvilinearMapPixels) {
      return Status::ResourceExhausted(
          "a map of " + std::to_string(width) + "x" + std::to_string(height) +
          " pixels on a curvilinear grid takes a nearest-cell search per pixel; the most is " +
          std::to_string(kMaxCurvilinearMapPixels) + " pixels: ask for a smaller width and height");
    }
    for (int j = 0; j < height; ++j) {
      for (int i = 0; i < width; ++i) {
        auto n = g.FindNearest({lons[size_t(i)], lats[size_t(j)]});
        if (!n.ok()) continue;
        const int64_t k = plane.Index(n->cell);
        if (k >= 0) pixels[size_t(j) * size_t(width) + size_t(i)] = cells[k];
      }
    }
  }
  return RenderIndexedPng(width, height, pixels.data(), layer.colormap);
}

nlohmann::ordered_json LegendDocument(const MapLayer& layer, std::array<double, 2> range,
                                      const MapPlane& plane) {
  using namespace map_layers_detail;  // NOLINT: this file's helpers
  using nlohmann::ordered_json;
  ordered_json doc;
  doc["parameter"] = layer.a.variable;
  doc["units"] = layer.a.units;
  doc["colormap"] = std::string(ColormapName(layer.colormap));
  doc["range"] = {range[0], range[1]};
  doc["ticks"] = LegendTicks(range[0], range[1]);
  ordered_json stops = ordered_json::array();
  for (int k = 0; k < kLegendStops; ++k) {
    const double t = double(k) / (kLegendStops - 1);
    stops.push_back({range[0] + t * (range[1] - range[0]), ColormapHex(layer.colormap, t)});
  }
  doc["stops"] = std::move(stops);
  doc["transparent_below"] =
      layer.transparent_below ? ordered_json(*layer.transparent_below) : ordered_json(nullptr);
  if (layer.b) doc["difference_method"] = plane.difference_method;
  doc["steps"] = layer.a.steps;
  doc["levels"] = layer.a.levels;
  doc["datetime"] = layer.a.time;
  doc["z"] = layer.a.level;
  if (layer.a.forecast) {
    doc["run"] = layer.a.run;
    if (!layer.a.member.empty()) doc["member"] = std::stoll(layer.a.member);
    if (!layer.a.stat.empty()) doc["stat"] = layer.a.stat;
  }
  if (layer.b) {
    ordered_json b = {{"collection", layer.b->collection},
                      {"datetime", layer.b_time_given ? layer.b->time : layer.a.time}};
    if (layer.b->forecast) {
      b["run"] = layer.b->run;
      if (!layer.b->member.empty()) b["member"] = std::stoll(layer.b->member);
      if (!layer.b->stat.empty()) b["stat"] = layer.b->stat;
    }
    doc["minus"] = std::move(b);
  }
  return doc;
}

}  // namespace gridstore::server
