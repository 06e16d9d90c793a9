// Copyright 2026 The GridStore Authors.
//
// The options that shape a series layout, shared by `relayout --add series` and
// `import --layouts plane,series`, and the report both print.
#ifndef GRIDSTORE_TOOLS_COMMANDS_SERIES_OPTIONS_H_
#define GRIDSTORE_TOOLS_COMMANDS_SERIES_OPTIONS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "gridstore/grid/grid_store.h"
#include "gridstore/util/result.h"

namespace CLI {
class App;
}  // namespace CLI

namespace gridstore::tools {

struct SeriesOptionArgs {
  // Absent when not given; given empty ("--series-steps ''") is an error, not the default.
  std::optional<std::string> steps;         // --series-steps N|all
  std::optional<std::string> tile;          // --series-tile XxY
  std::optional<std::string> levels;        // --series-levels N
  std::optional<std::string> frame_points;  // --series-frame-points N

  // Whether any of them was given.
  bool given() const { return steps || tile || levels || frame_points; }
};

// Adds --series-steps, --series-tile, --series-levels and --series-frame-points to `app`.
void AddSeriesOptions(CLI::App* app, SeriesOptionArgs* args);
// Adds --layouts plane[,series] (import, ingest) and the series options.
void AddLayoutsOption(CLI::App* app, std::optional<std::string>* layouts, SeriesOptionArgs* args);
// --layouts: "plane" (the default: none) or "plane,series" (the series layout the options
// give). InvalidArgument naming the flag.
Result<std::optional<grid::SeriesLayout>> ParseLayoutsOption(
    const std::optional<std::string>& layouts, const SeriesOptionArgs& args);
// The layout they give; what they leave out is grid::kSeriesChoose (chosen for the dataset by
// GridStore::AddSeriesLayout), `--series-steps all` grid::kSeriesWholeSeries. InvalidArgument
// naming the flag.
Result<grid::SeriesLayout> ParseSeriesOptions(const SeriesOptionArgs& args);
// "relayout: dataset 'ID': series layout (...) added: N blocks, RAW of values in STORED (+P% of
// the planes' PLANES)".
void PrintSeriesReport(const std::string& dataset, const grid::RelayoutReport& report,
                       uint64_t planes_bytes);

}  // namespace gridstore::tools

#endif  // GRIDSTORE_TOOLS_COMMANDS_SERIES_OPTIONS_H_
