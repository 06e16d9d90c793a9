// Copyright 2026 The GridStore Authors.
#include "tools/commands/series_options.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <vector>

#include "gridstore/util/internal/strings.h"
#include "tools/cli_parse.h"
#include "tools/commands/command.h"

namespace gridstore::tools {

void AddSeriesOptions(CLI::App* app, SeriesOptionArgs* args) {
  app->add_option("--series-steps", args->steps,
                  "Series layout: steps per block, or 'all' (default: chosen for the dataset: "
                  "256 for series up to 256 steps, else all of them up to 2^20; a point's series "
                  "up to that many steps is one read)")
      ->type_name("N|all");
  app->add_option("--series-tile", args->tile,
                  "Series layout: points per block along x and y (default: chosen for the "
                  "dataset, 16x16 for series up to 256 steps, fewer for longer ones)")
      ->type_name("XxY");
  app->add_option("--series-levels", args->levels,
                  "Series layout: levels per block (default 1; with more, a point's series at "
                  "those levels, a time-height section, is one read of one or two frames)")
      ->type_name("N");
  app->add_option("--series-frame-points", args->frame_points,
                  "Series layout: rows per independently decoded frame, a row being one point's "
                  "series at one level (default: chosen for the dataset, 16 for series up to 256 "
                  "steps, fewer for longer ones)")
      ->type_name("N");
}

Result<grid::SeriesLayout> ParseSeriesOptions(const SeriesOptionArgs& args) {
  // What is not given is chosen for the dataset by the relayout (grid_meta.h, kSeriesChoose).
  grid::SeriesLayout series{.block_t = grid::kSeriesChoose,
                            .tile_x = grid::kSeriesChoose,
                            .tile_y = grid::kSeriesChoose,
                            .block_z = grid::kSeriesChoose,
                            .frame_points = grid::kSeriesChoose};
  constexpr int64_t kMax = int64_t{1} << 20;
  if (args.steps && *args.steps == "all") {
    series.block_t = grid::kSeriesWholeSeries;
  } else if (args.steps) {
    GRIDSTORE_ASSIGN_OR_RETURN(series.block_t,
                               ParseIntegerFlag(*args.steps, "--series-steps", 1, kMax));
  }
  if (args.tile) {
    GRIDSTORE_ASSIGN_OR_RETURN(std::tie(series.tile_x, series.tile_y),
                               ParseBlockShape(*args.tile, "--series-tile"));
  }
  if (args.levels) {
    GRIDSTORE_ASSIGN_OR_RETURN(series.block_z,
                               ParseIntegerFlag(*args.levels, "--series-levels", 1, kMax));
  }
  if (args.frame_points) {
    GRIDSTORE_ASSIGN_OR_RETURN(
        series.frame_points,
        ParseIntegerFlag(*args.frame_points, "--series-frame-points", 1, kMax));
  }
  return series;
}

void PrintSeriesReport(const std::string& dataset, const grid::RelayoutReport& report,
                       uint64_t planes_bytes) {
  if (report.already_ready && report.blocks_written == 0) {  // a run appended to, say
    std::printf("relayout: dataset %s: series layout (%s) kept\n", Quote(dataset).c_str(),
                grid::SeriesLayoutToString(report.layout).c_str());
    return;
  }
  std::string extra;
  if (planes_bytes > 0) {
    char pct[32];
    std::snprintf(
        pct, sizeof(pct), "%.0f%%",
        100.0 * static_cast<double>(report.stored_bytes) / static_cast<double>(planes_bytes));
    extra = " (+" + std::string(pct) + " of the planes' " +
            HumanBytes(static_cast<double>(planes_bytes)) + ")";
  }
  std::printf("relayout: dataset %s: series layout (%s) added: %ld block(s) written",
              Quote(dataset).c_str(), grid::SeriesLayoutToString(report.layout).c_str(),
              static_cast<long>(report.blocks_written));
  if (report.blocks_resumed > 0) {
    std::printf(", %ld found written by an interrupted run",
                static_cast<long>(report.blocks_resumed));
  }
  std::printf(", %s of values in %s%s\n", HumanBytes(static_cast<double>(report.raw_bytes)).c_str(),
              HumanBytes(static_cast<double>(report.stored_bytes)).c_str(), extra.c_str());
}

void AddLayoutsOption(CLI::App* app, std::optional<std::string>* layouts, SeriesOptionArgs* args) {
  AddOptionalString(app, "--layouts", layouts,
                    "plane (default), or plane,series to add a time-major copy for fast point "
                    "and area time series (see relayout); a run still arriving gets it as its "
                    "steps complete")
      ->type_name("plane[,series]");
  AddSeriesOptions(app, args);
}

Result<std::optional<grid::SeriesLayout>> ParseLayoutsOption(
    const std::optional<std::string>& layouts, const SeriesOptionArgs& args) {
  if (!layouts) {
    if (args.given()) {
      return Status::InvalidArgument(
          "the --series-* options shape the series layout: give "
          "--layouts plane,series with them");
    }
    return std::optional<grid::SeriesLayout>();
  }
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<std::string> names, ParseNameList(*layouts, "--layouts"));
  bool plane = false, series = false;
  for (const std::string& name : names) {
    if (name != "plane" && name != "series") {
      return Status::InvalidArgument("--layouts: unknown layout " + Quote(name) +
                                     " (the layouts are plane and series)");
    }
    (name == "plane" ? plane : series) = true;
  }
  if (!plane) {
    return Status::InvalidArgument(
        "--layouts: every dataset has the plane layout (series is written from it): give "
        "plane or plane,series");
  }
  if (!series) return std::optional<grid::SeriesLayout>();
  GRIDSTORE_ASSIGN_OR_RETURN(grid::SeriesLayout layout, ParseSeriesOptions(args));
  return std::optional<grid::SeriesLayout>(layout);
}

}  // namespace gridstore::tools
