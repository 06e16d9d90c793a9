// Copyright 2026 The GridStore Authors.
//
// What the map resources (OGC API - Tiles and Maps, and their legend; docs/serve.md, "Maps and
// tiles") draw: a layer is one field (a parameter of a dataset, or of a forecast collection's run
// and member or statistic, at one valid time and level) or the difference A - B of two, with a
// colour map and a range. The planes are read whole through the extraction library and kept in
// the service's MapCache (map_cache.h), so that the tiles of one step cost one read; the range
// without `range=` is the run's (min and max over up to 16 of its steps), cached too, so that
// every tile of every step matches one colour bar. ResolveMapLayer and the names of a request are
// in map_layer_resolution.cc; reading, ranges, drawing and the legend in map_layers.cc.
#ifndef GRIDSTORE_SERVER_INTERNAL_MAP_LAYERS_H_
#define GRIDSTORE_SERVER_INTERNAL_MAP_LAYERS_H_

#include <array>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/model/grid_meta.h"
#include "gridstore/server/internal/endpoints.h"
#include "gridstore/server/internal/map_cache.h"
#include "gridstore/server/map_image.h"
#include "gridstore/server/query_string.h"
#include "gridstore/util/result.h"

namespace gridstore::server {

// One side of a layer: what is read.
struct MapField {
  std::string collection;  // the id asked: a dataset or a forecast collection
  bool forecast = false;
  std::string run;           // forecast: the run's time (ISO)
  std::string member;        // forecast: a member number, or ""
  std::string stat;          // forecast: a statistic, or ""
  bool probability = false;  // the statistic is a probability (0..1)
  int64_t members_read = 1;  // datasets read for one plane (a statistic's: the run's members)
  std::string variable, time, level;  // time and level as their axes label them ("" for none)
  std::shared_ptr<const grid::DataSetMeta> meta;  // the dataset whose grid and axes are read
  std::string version;  // the states of the datasets read (ids, incarnations, generations)
  std::vector<std::string> steps, levels;  // the axes' labels
  std::string units, standard_name;

  // The key of this field at `time` (cache keys).
  std::string Key(const std::string& at_time) const;
};

struct MapLayer {
  MapField a;
  std::optional<MapField> b;  // a difference A - B
  bool b_time_given = false;  // diff-datetime was given (else B follows A's time)
  Colormap colormap = Colormap::kViridis;
  std::optional<std::array<double, 2>> range;  // range= as asked
  std::optional<double> transparent_below;     // precipitation's
};

// The common map parameters (docs/serve.md): parameter-name, datetime, z, run, member, stat,
// colormap, range and the diff-* ones.
const std::vector<std::string>& MapParameterNames();

// The layer `target` asks of collection `id` (a dataset or a forecast collection). `extra`: the
// resource's own parameters beyond MapParameterNames; any other parameter is InvalidArgument
// naming it and `where`. NotFound for an unknown collection, diff-collection, run or member;
// InvalidArgument for a bad value (which parameter, which bound).
Result<MapLayer> ResolveMapLayer(const EndpointContext& context, const std::string& id,
                                 const RequestTarget& target, const std::vector<std::string>& extra,
                                 std::string_view where);

// The layer's plane at its time and level (A - B for a difference), through the cache.
Result<std::shared_ptr<const MapPlane>> LayerPlane(const EndpointContext& context,
                                                   const MapLayer& layer);

// range= if given, else the run's (cached): min and max over up to 16 evenly spaced steps of the
// run (about 65,000 cells of each; a statistic over M members samples max(2, 64 / M) steps, so
// that about 64 member planes are read), symmetric about 0 for a difference, 0..1 for a
// probability.
Result<std::array<double, 2>> LayerRange(const EndpointContext& context, const MapLayer& layer);

// `plane` (LayerPlane's) drawn at pixel centres (lons[i], lats[j]) (columns and rows: the
// projections served keep meridians vertical and parallels horizontal) as a PNG. The plane's
// colour indices for `range` are computed once and kept with the planes, so that a map or tile
// costs a look-up per pixel and the PNG's compression. ResourceExhausted if a curvilinear grid
// would need more than 2^20 nearest-cell searches.
Result<std::string> RenderLayer(const EndpointContext& context, const MapLayer& layer,
                                const MapPlane& plane, std::array<double, 2> range,
                                const std::vector<double>& lons, const std::vector<double>& lats);

// GET .../map/legend: parameter, units, colormap, range, ticks, stops, transparent_below,
// difference_method, steps, levels.
nlohmann::ordered_json LegendDocument(const MapLayer& layer, std::array<double, 2> range,
                                      const MapPlane& plane);

// The map parameters of `target` as a query string ("?a=1&b=2", "" for none), for links.
std::string MapQueryString(const RequestTarget& target);

}  // namespace gridstore::server

#endif  // GRIDSTORE_SERVER_INTERNAL_MAP_LAYERS_H_
