// Copyright 2026 The GridStore Authors.
//
// What `gridstore info` and `gridstore query` print about datasets: human-readable text, or JSON.
#ifndef GRIDSTORE_TOOLS_INFO_FORMAT_H_
#define GRIDSTORE_TOOLS_INFO_FORMAT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gridstore/model/grid_meta.h"

namespace gridstore::tools {

// Text output escapes ids, names and attribute values for the terminal (EscapeBytes in
// tools/text_escape.h). JSON output writes bytes that are not UTF-8 as U+FFFD and, for an id that
// is not UTF-8, adds "id_hex" with its bytes in hexadecimal.

// A multi-line description: status, stored size, layout and codec, variables (type, shape with
// dimension names, packing, fill, units), coordinates with their ranges, attributes.
std::string FormatInfoText(const grid::DataSetMeta& meta, std::optional<uint64_t> stored_bytes);
// The same as a JSON document (pretty-printed).
std::string FormatInfoJson(const grid::DataSetMeta& meta, std::optional<uint64_t> stored_bytes);

// One line per dataset: id, status, create_time, other attributes. `total` datasets matched
// before paging.
std::string FormatDataSetListText(const std::vector<grid::DataSetMeta>& metas, size_t total);
// {"total": N, "datasets": [{"id":..., ["id_hex": ...,] "status":..., "attributes": {...}}, ...]}
std::string FormatDataSetListJson(const std::vector<grid::DataSetMeta>& metas, size_t total);
// The ids alone: one per line, or {"total": N, "datasets": [{"id":..., ["id_hex": ...]}, ...]}.
std::string FormatIdListText(const std::vector<std::string>& ids);
std::string FormatIdListJson(const std::vector<std::string>& ids, size_t total);

// Milliseconds since the epoch as "2026-11-21T06:00:00.000Z".
std::string FormatTimestampMs(int64_t ms);

}  // namespace gridstore::tools

#endif  // GRIDSTORE_TOOLS_INFO_FORMAT_H_
