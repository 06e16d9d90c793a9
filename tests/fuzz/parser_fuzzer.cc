// Copyright 2026 The GridStore Authors.
//
// libFuzzer target for the text parsers that take coordinates, times and levels (issue 29):
// WKT polygons and linestrings (geo/internal/feature_geometry.h), decimal numbers
// (util ParseDecimal: no hexadecimal), CF time units, and time / level selections on a time and
// a pressure axis (AxisCoordinate::Select, exact and nearest: intervals, lists, units, reversed
// intervals). The first byte picks the parser. Any crash, sanitizer report or hang is a bug.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "gridstore/geo/coordinates.h"
#include "gridstore/geo/internal/feature_geometry.h"
#include "gridstore/model/cf_time.h"
#include "gridstore/util/internal/strings.h"
#include "tests/model/model_testutil.h"

namespace {

using gridstore::testing::Coord1D;

const gridstore::grid::DataSetMeta& Meta() {
  static const gridstore::grid::DataSetMeta meta = [] {
    gridstore::grid::DataSetMeta m;
    m.id = "fuzz";
    m.coordinates.push_back(Coord1D("time", {0, 6, 12, 18, 24}, "hours since 2026-11-27 00:00"));
    m.coordinates.push_back(Coord1D("level", {1000, 850, 700, 500}, "hPa"));
    gridstore::grid::VariableMeta v;
    v.name = "t";
    v.type = gridstore::grid::DataType::kFloat32;
    v.shape = {5, 4, 2, 2};
    v.dimension_names = {"time", "level", "x", "y"};
    m.variables.push_back(v);
    return m;
  }();
  return meta;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const gridstore::grid::VariableMeta& var = Meta().variables[0];
  const auto match =
      (data[0] & 8) ? gridstore::grid::AxisMatch::kNearest : gridstore::grid::AxisMatch::kExact;
  switch (data[0] % 6) {
    case 0:
      gridstore::internal_grid::LonLatPolygon::FromWkt(text).status().IgnoreError();
      break;
    case 1:
      gridstore::internal_grid::ParseLineString(text).status().IgnoreError();
      break;
    case 2: {
      size_t used = 0;
      (void)gridstore::ParseDecimal(text, &used);
      break;
    }
    case 3:
      gridstore::grid::TimeUnits::Parse(text, "standard").status().IgnoreError();
      break;
    case 4:
    case 5: {
      auto axis = gridstore::grid::AxisCoordinate::Build(
          Meta(), var, data[0] % 6 == 4 ? gridstore::grid::Axis::kT : gridstore::grid::Axis::kZ);
      if (axis.ok()) axis->Select(text, match).status().IgnoreError();
      break;
    }
  }
  return 0;
}
