// Copyright 2026 The GridStore Authors.
//
// `gridstore relayout ID --add series | --drop series`: adds a dataset's second, time-major
// layout (grid_meta.h, SeriesLayout) from its planes, or removes it.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "gridstore/util/internal/strings.h"
#include "tools/cli_parse.h"
#include "tools/commands/command.h"
#include "tools/commands/series_options.h"
#include "tools/progress.h"

namespace gridstore::tools {
namespace {

struct RelayoutArgs {
  std::string dataset;
  std::string add, drop;
  SeriesOptionArgs series;
};

Status CheckLayoutName(const std::string& name, const char* flag) {
  if (name == "series") return Status::OK();
  return Status::InvalidArgument(std::string(flag) + " " + Quote(name) +
                                 ": the only layout that can be added or dropped is 'series' "
                                 "(the planes are every dataset's first layout)");
}

Status RunAdd(grid::GridStore* store, const RelayoutArgs& args) {
  GRIDSTORE_ASSIGN_OR_RETURN(grid::SeriesLayout series, ParseSeriesOptions(args.series));
  GRIDSTORE_ASSIGN_OR_RETURN(uint64_t planes_bytes, store->ApproximateDataSetSize(args.dataset));
  ProgressReporter progress(stderr, isatty(STDERR_FILENO));
  grid::RelayoutOptions options;
  options.on_progress = [&](int64_t done, int64_t total) {
    progress.Update(done, total, "series blocks");
  };
  auto report = store->AddSeriesLayout(args.dataset, series, options);
  progress.Finish();
  GRIDSTORE_RETURN_IF_ERROR(report.status());
  GRIDSTORE_RETURN_IF_ERROR(store->Flush());
  if (report->already_ready) {
    std::printf("relayout: dataset %s has the series layout (%s) already\n",
                Quote(args.dataset).c_str(), grid::SeriesLayoutToString(report->layout).c_str());
    return Status::OK();
  }
  PrintSeriesReport(args.dataset, *report, planes_bytes);
  return Status::OK();
}

Status RunRelayout(const CommandContext& context, const RelayoutArgs& args) {
  if (args.add.empty() == args.drop.empty()) {
    return Status::InvalidArgument("give exactly one of --add series and --drop series");
  }
  if (!args.add.empty()) GRIDSTORE_RETURN_IF_ERROR(CheckLayoutName(args.add, "--add"));
  if (!args.drop.empty()) GRIDSTORE_RETURN_IF_ERROR(CheckLayoutName(args.drop, "--drop"));
  GRIDSTORE_ASSIGN_OR_RETURN(auto store, context.OpenStore({}));
  if (!args.add.empty()) return RunAdd(store.get(), args);
  GRIDSTORE_RETURN_IF_ERROR(store->DropSeriesLayout(args.dataset));
  GRIDSTORE_RETURN_IF_ERROR(store->Flush());
  std::printf("relayout: dataset %s: series layout dropped\n", Quote(args.dataset).c_str());
  return Status::OK();
}

}  // namespace

Command RegisterRelayout(CLI::App& parent, const CommandContext& context) {
  auto args = std::make_shared<RelayoutArgs>();
  CLI::App* app = parent.add_subcommand(
      "relayout",
      "Add a second, time-major layout to a dataset (fast point and area time series), or drop it");
  app->add_option("ID", args->dataset, "Dataset id")->required();
  app->add_option("--add", args->add, "Add a layout: series")->type_name("LAYOUT");
  app->add_option("--drop", args->drop, "Drop a layout: series")->type_name("LAYOUT");
  AddSeriesOptions(app, &args->series);
  return {app, Done([&context, args] { return RunRelayout(context, *args); })};
}

}  // namespace gridstore::tools
