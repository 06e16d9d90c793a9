// Copyright 2026 The GridStore Authors.
//
// /collections/{id}/map.png: one plane (a parameter at one time and level) over a lon/lat box,
// read with the extraction library and drawn by map_image.h. The box's pixels are mapped to grid
// cells by nearest centre; on a rectilinear grid a column's cell column and a row's cell row are
// looked up once each.
#include <charconv>
#include <cmath>

#include "gridstore/geo/extract.h"
#include "gridstore/server/internal/endpoints.h"
#include "gridstore/server/internal/responses.h"
#include "gridstore/server/map_image.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::server {
namespace {

constexpr int kDefaultWidth = 800;
// Pixels of a map of a curvilinear grid (each a k-d tree search): about 0.3 s of CPU.
constexpr int64_t kMaxCurvilinearPixels = 1 << 20;

Result<std::vector<double>> Numbers(const std::string& text, size_t count, const char* name) {
  std::vector<double> out;
  for (const std::string& item : SplitList(text, ',')) {
    const std::string_view trimmed = Trim(item);
    size_t used = 0;
    const std::optional<double> v = ParseDecimal(trimmed, &used);
    if (!v || used != trimmed.size()) break;
    out.push_back(*v);
  }
  if (out.size() != count) {
    return Status::InvalidArgument(std::string(name) + " " + Quote(text) + " is not " +
                                   std::to_string(count) + " comma-separated numbers");
  }
  return out;
}

struct MapParams {
  grid::ExtractRequest request;
  std::array<double, 4> bbox{};
  int width = kDefaultWidth;
  Colormap colormap = Colormap::kViridis;
  std::optional<std::array<double, 2>> range;
};

// The first value of axis `axis` of `var` ("" if it has no coordinate: then there is one index).
std::string FirstLabel(const grid::DataSetMeta& meta, const grid::VariableMeta& var,
                       grid::Axis axis) {
  Result<grid::AxisCoordinate> a = grid::AxisCoordinate::Build(meta, var, axis);
  return a.ok() && !a->name().empty() && a->size() > 0 ? a->Label(0) : "";
}

Result<MapParams> ParseMapParams(const grid::DataSetMeta& meta, const CollectionSummary& summary,
                                 const RequestTarget& target) {
  GRIDSTORE_RETURN_IF_ERROR(CheckParameters(
      target, {"parameter-name", "datetime", "z", "bbox", "width", "colormap", "range"},
      "map.png"));
  MapParams p;
  auto get = [&](const char* name) -> const std::string* {
    auto it = target.query.find(name);
    return it == target.query.end() ? nullptr : &it->second;
  };
  const std::string* name = get("parameter-name");
  const std::string variable = name ? *name : summary.default_variables.front();
  const grid::VariableMeta* var = meta.FindVariable(variable);
  if (var == nullptr) {
    return Status::InvalidArgument("parameter-name " + Quote(variable) + " is not a parameter of " +
                                   Quote(meta.id) + " (one of " + Join(summary.variables, ", ") +
                                   ")");
  }
  p.request.variables = {variable};
  p.request.time = get("datetime") ? *get("datetime") : FirstLabel(meta, *var, grid::Axis::kT);
  p.request.level = get("z") ? *get("z") : FirstLabel(meta, *var, grid::Axis::kZ);
  if (const std::string* b = get("bbox")) {
    GRIDSTORE_ASSIGN_OR_RETURN(std::vector<double> v, Numbers(*b, 4, "bbox"));
    p.bbox = {v[0], v[1], v[2], v[3]};
  } else if (summary.bbox) {
    p.bbox = *summary.bbox;
  }
  if (p.bbox[3] <= p.bbox[1]) {
    return Status::InvalidArgument("bbox: the north edge must be above the south edge");
  }
  p.request.bbox = p.bbox;
  if (const std::string* w = get("width")) {
    auto [end, ec] = std::from_chars(w->data(), w->data() + w->size(), p.width);
    if (ec != std::errc() || end != w->data() + w->size() || p.width < 1 || p.width > 4096) {
      return Status::InvalidArgument("width " + Quote(*w) + " is not 1 to 4096 pixels");
    }
  }
  if (const std::string* c = get("colormap")) {
    GRIDSTORE_ASSIGN_OR_RETURN(p.colormap, ParseColormap(*c));
  }
  if (const std::string* r = get("range")) {
    GRIDSTORE_ASSIGN_OR_RETURN(std::vector<double> v, Numbers(*r, 2, "range"));
    p.range = std::array<double, 2>{v[0], v[1]};
  }
  return p;
}

// The plane's value at each map pixel.
struct PlaneSampler {
  const grid::Extraction& result;
  std::vector<int64_t> column_cell, row_cell;  // rectilinear: per pixel column / row, -1 outside

  double Value(const grid::Cell& c) const {
    const grid::ExtractPlan& plan = result.plan;
    const auto& a = plan.area;  // x0, y0, nx, ny
    int64_t x = c.x - a[0], y = c.y - a[1];
    if (plan.wrap_axis == grid::kX) x = (x + plan.wrap_period) % plan.wrap_period;
    if (plan.wrap_axis == grid::kY) y = (y + plan.wrap_period) % plan.wrap_period;
    if (x < 0 || y < 0 || x >= a[2] || y >= a[3]) return NAN;
    return result.variables[0].values[size_t(x * a[3] + y)];
  }
};

Result<HttpResponse> Map(const EndpointContext& context, const std::string& id,
                         const RequestTarget& target) {
  GRIDSTORE_ASSIGN_OR_RETURN(grid::DataSetMeta meta, CollectionMeta(context, id));
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const CollectionSummary> summary,
                             context.summaries->Get(meta));
  GRIDSTORE_ASSIGN_OR_RETURN(MapParams p, ParseMapParams(meta, *summary, target));
  GRIDSTORE_ASSIGN_OR_RETURN(grid::Extraction result, grid::Extract(*context.store, id, p.request));
  // Plain copies: clang 14 cannot capture structured bindings in lambdas (C++20 P1091).
  const double west = p.bbox[0], south = p.bbox[1], east = p.bbox[2], north = p.bbox[3];
  const double lon_span = east >= west ? east - west : east + 360 - west;
  const int height = std::clamp<int>(
      int(std::lround(p.width * (north - south) / std::max(lon_span, 1e-9))), 1, 4096);
  const grid::HorizontalGrid& g = *result.grid;
  // A curvilinear grid costs a nearest-cell search per pixel: bounded, so that one request
  // cannot take seconds of the service's CPU (issue 29, 4.6: width=4096 on a Lambert grid
  // took 3.8 s).
  const int64_t pixels = int64_t(p.width) * height;
  if (g.type() != grid::GridType::kRectilinear && pixels > kMaxCurvilinearPixels) {
    const int64_t width =
        int64_t(double(p.width) * std::sqrt(double(kMaxCurvilinearPixels) / double(pixels)));
    return Status::ResourceExhausted(
        "map.png of " + std::to_string(p.width) + "x" + std::to_string(height) +
        " pixels on a curvilinear grid takes a nearest-cell search per pixel; the most is " +
        std::to_string(kMaxCurvilinearPixels) +
        " pixels: ask for width=" + std::to_string(std::max<int64_t>(1, width)) + " or less");
  }
  PlaneSampler sampler{result, {}, {}};
  auto lon_of = [&](int i) { return west + (i + 0.5) * lon_span / p.width; };
  auto lat_of = [&](int j) { return north - (j + 0.5) * (north - south) / height; };
  if (g.type() == grid::GridType::kRectilinear) {
    const double mid_lon = lon_of(p.width / 2), mid_lat = lat_of(height / 2);
    for (int i = 0; i < p.width; ++i) {
      auto n = g.FindNearest({lon_of(i), mid_lat});
      sampler.column_cell.push_back(n.ok() ? (g.x_is_latitude() ? n->cell.y : n->cell.x) : -1);
    }
    for (int j = 0; j < height; ++j) {
      auto n = g.FindNearest({mid_lon, lat_of(j)});
      sampler.row_cell.push_back(n.ok() ? (g.x_is_latitude() ? n->cell.x : n->cell.y) : -1);
    }
  }
  MapImageRequest image{
      .width = p.width, .height = height, .value_at = {}, .range = p.range, .colormap = p.colormap};
  image.value_at = [&](int i, int j) -> double {
    if (g.type() == grid::GridType::kRectilinear) {
      const int64_t along_lon = sampler.column_cell[size_t(i)];
      const int64_t along_lat = sampler.row_cell[size_t(j)];
      if (along_lon < 0 || along_lat < 0) return NAN;
      return sampler.Value(g.x_is_latitude() ? grid::Cell{along_lat, along_lon}
                                             : grid::Cell{along_lon, along_lat});
    }
    auto n = g.FindNearest({lon_of(i), lat_of(j)});
    return n.ok() ? sampler.Value(n->cell) : NAN;
  };
  GRIDSTORE_ASSIGN_OR_RETURN(MapImage rendered, RenderMapImage(image));
  HttpResponse r;
  r.content_type = "image/png";
  r.body = std::move(rendered.png);
  r.headers.emplace_back("X-GridStore-Bbox", FormatDouble(west) + "," + FormatDouble(south) + "," +
                                                 FormatDouble(east) + "," + FormatDouble(north));
  r.headers.emplace_back("X-GridStore-Range",
                         FormatDouble(rendered.min) + "," + FormatDouble(rendered.max));
  r.headers.emplace_back("X-GridStore-Legend-Height", std::to_string(kLegendHeight));
  return r;
}

}  // namespace

HttpResponse MapEndpoint(const EndpointContext& context, const std::string& id,
                         const RequestTarget& target) {
  std::string dataset = id;
  if (CollectionMeta(context, id).status().IsNotFound()) {
    // A forecast collection's map is its newest run's first member's.
    Result<forecast::Collection> c = ServedCollection(context, id);
    if (c.ok()) dataset = NewestServedRun(*c)->members.front().meta->id;
  }
  Result<HttpResponse> r = Map(context, dataset, target);
  return r.ok() ? std::move(*r) : ErrorResponse(r.status());
}

}  // namespace gridstore::server
