// Copyright 2026 The GridStore Authors.
//
// A dataset's meta as JSON: the one mapping `info --format json` prints and any other front end
// that describes a dataset as JSON uses (the attributes alone: attributes_json.h). Bytes that are
// not UTF-8 are replaced when the document is dumped (error_handler_t::replace).
#ifndef GRIDSTORE_FORMATS_INTERNAL_META_JSON_H_
#define GRIDSTORE_FORMATS_INTERNAL_META_JSON_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "gridstore/geo/coordinates.h"
#include "gridstore/model/grid_meta.h"

namespace gridstore::formats {

// {"status", ["stored_bytes",] "layout", ["series_layout",] "variables": [{name, type, shape,
// dimensions, [fill_value], [packing], [missing_values], attributes, grid, [precision],
// [complete_steps]}], "coordinates": [{name, dimensions, shape, type, [min, max], [first, last],
// [direction], [step], [time_axis_without_calendar], attributes}], "attributes"}: everything but
// the id, which each document writes its own way.
nlohmann::ordered_json DataSetMetaJson(const grid::DataSetMeta& meta,
                                       std::optional<uint64_t> stored_bytes);

// The variable's horizontal grid ("rectilinear (lat, lon)", "curvilinear (...)"), or why it has
// none.
std::string GridText(const grid::DataSetMeta& meta, const grid::VariableMeta& v);

// A coordinate that is some variable's t axis but has no CF time units (`Month`, `mon`, a bare
// number): shown as such, since its values are not dates (issue 29, 3.2).
bool IsTimeAxisWithoutCalendar(const grid::DataSetMeta& meta, const grid::Coordinate& c,
                               const grid::CoordinateSummary& summary);

}  // namespace gridstore::formats

#endif  // GRIDSTORE_FORMATS_INTERNAL_META_JSON_H_
