// Copyright 2026 The GridStore Authors.
//
// libFuzzer target for everything `gridstore serve` parses from a request: the target's
// percent-encoding and query string, each EDR query's parameters (WKT points, polygons and
// linestrings, bbox, z with units and Rn/start/step, datetime intervals, distances), then the
// extraction plan on a small synthetic dataset (nothing is read), and the catalog's where / sort.
// Any crash, sanitizer report, hang or uncaught exception is a bug. scripts/fuzz.sh runs it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gridstore/catalog/query_parser.h"
#include "gridstore/geo/extract.h"
#include "gridstore/server/edr_query.h"
#include "gridstore/server/query_string.h"
#include "tests/model/model_testutil.h"

namespace {

using gridstore::testing::Coord1D;

// t(time 4, level 3, lat 18, lon 36): a 10-degree global grid with CF coordinates.
const gridstore::grid::DataSetMeta& Meta() {
  static const gridstore::grid::DataSetMeta meta = [] {
    gridstore::grid::DataSetMeta m;
    m.id = "fuzz";
    std::vector<double> lat, lon;
    for (int i = 0; i < 18; ++i) lat.push_back(-85 + 10 * i);
    for (int i = 0; i < 36; ++i) lon.push_back(5 + 10 * i);
    m.coordinates = {
        Coord1D("time", {0, 6, 12, 18}, "hours since 2026-11-25 00:00:00", "", "standard"),
        Coord1D("level", {1000, 850, 500}, "hPa"), Coord1D("lat", lat, "degrees_north"),
        Coord1D("lon", lon, "degrees_east")};
    gridstore::grid::VariableMeta v;
    v.name = "t";
    v.shape = {4, 3, 18, 36};
    v.dimension_names = {"time", "level", "lat", "lon"};
    m.variables = {v};
    return m;
  }();
  return meta;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  namespace server = gridstore::server;
  (void)server::PercentDecode(input, true);
  auto target = server::ParseTarget(input);
  if (!target.ok()) return 0;
  for (server::EdrQueryType type : server::kEdrQueryTypes) {
    auto query = server::ParseEdrQuery(type, target->query, {"t"});
    if (query.ok()) (void)gridstore::grid::PlanExtract(Meta(), query->request);
  }
  auto where = target->query.find("where");
  if (where != target->query.end()) (void)gridstore::grid::ParseQuery(where->second, 0);
  auto sort = target->query.find("sort");
  if (sort != target->query.end()) (void)gridstore::grid::ParseSortFields(sort->second, "sort");
  return 0;
}
