// Copyright 2026 The GridStore Authors.
//
// `gridstore import FILE... --dataset ID ...`: NetCDF files (split along time), or GRIB files (one
// run, possibly arriving step by step with --append), become a dataset.
#include "gridstore/importers/import.h"

#include <malloc.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gridstore/model/names.h"
#include "gridstore/storage/kv_store_factory.h"
#include "gridstore/util/internal/strings.h"
#include "tools/cli_parse.h"
#include "tools/commands/command.h"
#include "tools/commands/series_options.h"
#include "tools/progress.h"
#include "tools/text_escape.h"

namespace gridstore::tools {
namespace {

// --threads: more than this is surely a typo, and each thread costs a stack.
constexpr int64_t kMaxThreads = 1024;
// --frame-rows, as DataSetMeta::Validate allows.
constexpr int64_t kMaxFrameRows = int64_t{1} << 20;

struct ImportArgs {
  std::vector<std::string> files;
  std::string dataset;
  std::optional<std::string> variables;
  std::vector<std::string> attrs;
  std::vector<std::string> keep_bits;    // VAR=N, repeatable
  std::vector<std::string> keep_digits;  // VAR=N, repeatable
  std::optional<std::string> block;      // default: the store's (importers::ImportLayoutFor)
  std::string codec = "shuffle-zstd:3";
  std::optional<std::string> frame_rows;
  std::optional<std::string> threads;
  std::optional<std::string> type;  // GRIB: float32 (default) or float64
  bool overwrite = false;
  bool append = false;
  bool finish = false;
  std::optional<std::string> expected_steps;
  std::optional<std::string> layouts;  // --layouts plane[,series]
  SeriesOptionArgs series;
  std::string collection;  // --collection NAME
  std::string run;         // --run ISO
};

// --keep-bits / --keep-digits: VAR=N each, one per variable. The range of N depends on the
// variable's type, so the import checks it (grid::CheckPrecision).
Result<std::map<std::string, int>> ParseKeepFlags(const std::vector<std::string>& values,
                                                  const std::string& flag) {
  std::map<std::string, int> keep;
  for (const std::string& value : values) {
    const size_t eq = value.rfind('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::InvalidArgument(flag + " wants VAR=N, not " + Quote(value));
    }
    const std::string name = value.substr(0, eq);
    GRIDSTORE_ASSIGN_OR_RETURN(int64_t n, ParseIntegerFlag(value.substr(eq + 1), flag + " " + name,
                                                           std::numeric_limits<int>::min(),
                                                           std::numeric_limits<int>::max()));
    if (!keep.emplace(name, static_cast<int>(n)).second) {
      return Status::InvalidArgument(flag + " gives variable " + Quote(name) + " twice");
    }
  }
  return keep;
}

// Every option checked and turned into import options (whether each applies to the files'
// format is PlanImport's to say); *threads gets --threads (0: one per core).
Result<importers::ImportOptions> ImportOptions(const CommandContext& context,
                                               const ImportArgs& args, int* threads) {
  GRIDSTORE_RETURN_IF_ERROR(grid::ValidateDataSetId(args.dataset).WithContext("--dataset"));
  importers::ImportOptions options;
  options.dataset_id = args.dataset;
  if (args.variables) {
    GRIDSTORE_ASSIGN_OR_RETURN(options.variables, ParseNameList(*args.variables, "--variables"));
  }
  options.overwrite = args.overwrite;
  options.collection = args.collection;
  options.run_time = args.run;
  for (const auto& a : args.attrs) {
    GRIDSTORE_ASSIGN_OR_RETURN(auto kv, ParseAttribute(a));
    options.attributes[kv.first] = kv.second;
  }
  GRIDSTORE_ASSIGN_OR_RETURN(options.keep_bits, ParseKeepFlags(args.keep_bits, "--keep-bits"));
  GRIDSTORE_ASSIGN_OR_RETURN(options.keep_digits,
                             ParseKeepFlags(args.keep_digits, "--keep-digits"));
  options.layout = importers::ImportLayoutFor(storage::IsDistributedUri(context.store()));
  if (args.block) {
    GRIDSTORE_ASSIGN_OR_RETURN(auto block, ParseBlockShape(*args.block));
    options.layout.block_x = block.first;
    options.layout.block_y = block.second;
  }
  auto codec = grid::ParseCodecOptions(args.codec);
  if (!codec.ok()) return codec.status().WithContext("--codec");
  options.layout.codec = *codec;
  if (args.frame_rows) {
    GRIDSTORE_ASSIGN_OR_RETURN(
        options.layout.frame_rows,
        ParseIntegerFlag(*args.frame_rows, "--frame-rows", 0, kMaxFrameRows));
  }
  *threads = 0;
  if (args.threads) {
    GRIDSTORE_ASSIGN_OR_RETURN(int64_t n,
                               ParseIntegerFlag(*args.threads, "--threads", 1, kMaxThreads));
    *threads = static_cast<int>(n);
    options.inflate_threads = *threads;  // the same number inflate netCDF-4 chunks
  }
  if (args.type) {
    if (*args.type != "float32" && *args.type != "float64") {
      return Status::InvalidArgument("--type must be float32 or float64, not " + Quote(*args.type));
    }
    options.type = *args.type == "float64" ? grid::DataType::kFloat64 : grid::DataType::kFloat32;
  }
  options.append = args.append;
  options.finish = args.finish;
  if (args.expected_steps) {
    GRIDSTORE_ASSIGN_OR_RETURN(
        options.expected_steps,
        ParseIntegerFlag(*args.expected_steps, "--expected-steps", 1, int64_t{1} << 31));
  }
  GRIDSTORE_ASSIGN_OR_RETURN(options.series, ParseLayoutsOption(args.layouts, args.series));
  return options;
}

// "f000.grib2", or "3 files (f000.grib2, ...)".
std::string FilesText(const std::vector<std::string>& files) {
  if (files.size() == 1) return EscapeBytes(files[0]);
  return std::to_string(files.size()) + " files (" + EscapeBytes(files[0]) + ", ...)";
}

// "'run'", or "10 datasets ('ens/m00' ... 'ens/m09')" (an ensemble, one per member).
std::string DatasetsText(const importers::ImportSummary& summary) {
  if (summary.datasets.size() <= 1) return Quote(summary.dataset_id);
  return std::to_string(summary.datasets.size()) + " datasets (" + Quote(summary.datasets.front()) +
         " ... " + Quote(summary.datasets.back()) + ")";
}

void PrintSummary(const importers::ImportSummary& summary, const std::vector<std::string>& files) {
  for (const auto& note : summary.notes) {
    std::fprintf(stderr, "note: %s\n", SanitizeMessage(note, false).c_str());
  }
  const double mb = static_cast<double>(summary.raw_bytes) / 1e6;
  std::printf(
      "imported %s from %s: %d variable(s)%s, %ld plane(s), %s raw, %s stored, compression "
      "ratio %.2f, %.2f s, %.1f MB/s\n",
      DatasetsText(summary).c_str(), FilesText(files).c_str(), summary.variables,
      summary.datasets.size() > 1 ? " each" : "", static_cast<long>(summary.planes),
      HumanBytes(static_cast<double>(summary.raw_bytes)).c_str(),
      HumanBytes(static_cast<double>(summary.stored_bytes)).c_str(),
      summary.stored_bytes > 0
          ? static_cast<double>(summary.raw_bytes) / static_cast<double>(summary.stored_bytes)
          : 0.0,
      summary.seconds, summary.seconds > 0 ? mb / summary.seconds : 0.0);
  if (summary.datasets.size() > 1) {
    for (const std::string& id : summary.datasets) std::printf("dataset %s\n", Quote(id).c_str());
  }
  if (summary.status != grid::kStatusDone) {
    std::printf("run %s: %ld of %ld step(s) complete for every variable; status %s\n",
                DatasetsText(summary).c_str(), static_cast<long>(summary.complete_steps),
                static_cast<long>(summary.steps), summary.status.c_str());
  }
}

// An import allocates and frees planes of megabytes at a high rate (decoded fields, planes, GRIB
// messages). glibc maps each such block afresh and unmaps it on free, so every plane costs page
// faults; keeping them in the heap reuses the memory instead (measured: 5% of a GRIB import's
// time). The heap's size stays bounded by the import's memory budget.
void KeepLargeBlocksInTheHeap() {
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
}

Status Import(const CommandContext& context, const ImportArgs& args) {
  KeepLargeBlocksInTheHeap();
  // Every option, then the files (importers/import.h: planned once, before the store is opened,
  // so that a mistake anywhere leaves no store, or no empty one, behind).
  int threads = 0;
  GRIDSTORE_ASSIGN_OR_RETURN(importers::ImportOptions options,
                             ImportOptions(context, args, &threads));
  GRIDSTORE_ASSIGN_OR_RETURN(auto plan, importers::PlanImport(args.files, options));
  GRIDSTORE_ASSIGN_OR_RETURN(auto store,
                             context.OpenStore({.create_if_missing = true, .threads = threads}));
  ProgressReporter progress(stderr, isatty(STDERR_FILENO));
  importers::SeriesOutcome series;
  auto summary = importers::RunImport(
      store.get(), *plan,
      [&](const importers::ImportProgress& p) {
        progress.Update(p.bytes_done, p.bytes_total, EscapeBytes(p.variable));
      },
      &series, [&](int64_t done, int64_t total) { progress.Update(done, total, "series blocks"); });
  progress.Finish();
  if (!summary.ok()) return summary.status();
  GRIDSTORE_RETURN_IF_ERROR(Settle(store.get()));
  PrintSummary(*summary, args.files);
  if (!options.series) return Status::OK();
  GRIDSTORE_RETURN_IF_ERROR(series.status);
  if (!series.added) {
    std::printf(
        "the series layout is added when the run is complete (the import that finishes it, "
        "given --layouts plane,series too)\n");
    return Status::OK();
  }
  // An ensemble's members ("ens/m*"): the report sums them.
  PrintSeriesReport(summary->datasets.size() > 1 ? args.dataset + "/m*" : args.dataset,
                    series.report, static_cast<uint64_t>(summary->stored_bytes));
  return Status::OK();
}
}  // namespace
Command RegisterImport(CLI::App& parent, const CommandContext& context) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* app = parent.add_subcommand("import", "Import NetCDF or GRIB files as a dataset");
  app->add_option("FILE", args->files,
                  "NetCDF (classic, 64-bit offset, netCDF-4) or GRIB (edition 1 or 2) file, told "
                  "apart by content; several files (one format) make one dataset along time")
      ->required()
      ->type_name("FILE...");
  app->add_option("--dataset", args->dataset, "Dataset id")->required()->type_name("ID");
  AddOptionalString(app, "--variables", &args->variables, "Variables to import: A,B (default all)")
      ->type_name("A,B");
  app->add_option("--attr", args->attrs, "Dataset attribute KEY=VALUE (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("KEY=VALUE");
  app->add_option("--collection", args->collection,
                  "Forecast collection the dataset is a run of, e.g. ecmf/ens (default: GRIB's "
                  "centre/kind, e.g. ecmf/ens, kwbc/fc; NetCDF: none)")
      ->type_name("NAME");
  app->add_option("--run", args->run,
                  "The run's reference time, ISO 8601 (default: GRIB's dataDate/dataTime, "
                  "NetCDF's forecast_reference_time)")
      ->type_name("ISO");
  app->add_option("--keep-bits", args->keep_bits,
                  "Lossy: round float variable VAR to N mantissa bits, as netCDF-C's BitRound "
                  "(float32 1-23, float64 1-52; repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("VAR=N");
  app->add_option("--keep-digits", args->keep_digits,
                  "Lossy: round float variable VAR to N significant digits, as netCDF-C's "
                  "Granular BitRound (float32 1-7, float64 1-15; repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("VAR=N");
  app->add_option("--block", args->block,
                  "Block shape XxY (default 64x128; 256x256 on a rados:// store)")
      ->type_name("XxY");
  app->add_option("--codec", args->codec,
                  "none, zstd or shuffle-zstd, optionally :LEVEL (default shuffle-zstd:3)")
      ->type_name("CODEC[:LEVEL]");
  AddOptionalString(app, "--frame-rows", &args->frame_rows,
                    "Rows (along x) per independently compressed frame of a block; 0 for one "
                    "frame (default " +
                        std::to_string(importers::kDefaultImportFrameRows) + ")")
      ->type_name("N");
  AddOptionalString(app, "--threads", &args->threads,
                    "Compression threads, and threads inflating netCDF-4 chunks, 1 to " +
                        std::to_string(kMaxThreads) + " (default: one per core)")
      ->type_name("N");
  AddOptionalString(app, "--type", &args->type,
                    "GRIB: store values as float32 (default) or float64 (ecCodes' doubles)")
      ->type_name("float32|float64");
  app->add_flag("--overwrite", args->overwrite, "Replace an existing dataset completely");
  app->add_flag("--append", args->append,
                "GRIB: add the files' steps to the run (created if absent); its complete steps "
                "are readable while it grows");
  app->add_flag("--finish", args->finish, "With --append: mark the run complete (DONE)");
  AddOptionalString(app, "--expected-steps", &args->expected_steps,
                    "With --append: mark the run DONE once N steps are complete for every "
                    "variable")
      ->type_name("N");
  AddLayoutsOption(app, &args->layouts, &args->series);
  return {app, Done([&context, args] { return Import(context, *args); })};
}

}  // namespace gridstore::tools
