// Copyright 2026 The GridStore Authors.
//
// `gridstore import FILE --dataset ID ...`: a NetCDF file becomes a dataset.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gridstore/grid/names.h"
#include "gridstore/importers/grib_importer.h"
#include "gridstore/importers/netcdf_importer.h"
#include "gridstore/util/internal/strings.h"
#include "tools/cli_parse.h"
#include "tools/commands/command.h"
#include "tools/progress.h"
#include "tools/text_escape.h"

namespace gridstore::tools {
namespace {

// --threads: more than this is surely a typo, and each thread costs a stack.
constexpr int64_t kMaxThreads = 1024;
// --frame-rows, as DataSetMeta::Validate allows.
constexpr int64_t kMaxFrameRows = int64_t{1} << 20;

struct ImportArgs {
  std::string file;
  std::string dataset;
  std::optional<std::string> variables;
  std::vector<std::string> attrs;
  std::string block = "256x256";
  std::string codec = "shuffle-zstd:3";
  std::optional<std::string> frame_rows;
  std::optional<std::string> threads;
  std::optional<std::string> type;  // GRIB: float32 (default) or float64
  bool overwrite = false;
};

// Every option checked and turned into import options; *threads gets --threads (0: one per core).
Result<importers::NetCdfImportOptions> ImportOptions(const ImportArgs& args, int* threads) {
  GRIDSTORE_RETURN_IF_ERROR(grid::ValidateDataSetId(args.dataset).WithContext("--dataset"));
  importers::NetCdfImportOptions options;
  options.dataset_id = args.dataset;
  if (args.variables) {
    GRIDSTORE_ASSIGN_OR_RETURN(options.variables, ParseNameList(*args.variables, "--variables"));
  }
  options.overwrite = args.overwrite;
  for (const auto& a : args.attrs) {
    GRIDSTORE_ASSIGN_OR_RETURN(auto kv, ParseAttribute(a));
    options.attributes[kv.first] = kv.second;
  }
  GRIDSTORE_ASSIGN_OR_RETURN(auto block, ParseBlockShape(args.block));
  options.layout.block_x = block.first;
  options.layout.block_y = block.second;
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
  }
  return options;
}

void PrintSummary(const importers::ImportSummary& summary, const std::string& file) {
  for (const auto& note : summary.notes) {
    std::fprintf(stderr, "note: %s\n", SanitizeMessage(note, false).c_str());
  }
  const double mb = static_cast<double>(summary.raw_bytes) / 1e6;
  std::printf(
      "imported %s from %s: %d variable(s), %ld plane(s), %s raw, %s stored, compression "
      "ratio %.2f, %.2f s, %.1f MB/s\n",
      Quote(summary.dataset_id).c_str(), EscapeBytes(file).c_str(), summary.variables,
      static_cast<long>(summary.planes), HumanBytes(static_cast<double>(summary.raw_bytes)).c_str(),
      HumanBytes(static_cast<double>(summary.stored_bytes)).c_str(),
      summary.stored_bytes > 0
          ? static_cast<double>(summary.raw_bytes) / static_cast<double>(summary.stored_bytes)
          : 0.0,
      summary.seconds, summary.seconds > 0 ? mb / summary.seconds : 0.0);
}

// A GRIB file: the same options, and --type (float32 or float64).
Result<importers::GribImportOptions> GribOptions(const ImportArgs& args,
                                                 const importers::NetCdfImportOptions& netcdf) {
  if (args.variables) {
    return Status::InvalidArgument(Quote(args.file) +
                                   " is GRIB: --variables applies to NetCDF files only (every "
                                   "field of a GRIB file is imported)");
  }
  importers::GribImportOptions options;
  options.dataset_id = netcdf.dataset_id;
  options.attributes = netcdf.attributes;
  options.layout = netcdf.layout;
  options.overwrite = netcdf.overwrite;
  if (args.type && *args.type != "float32") {
    if (*args.type != "float64") {
      return Status::InvalidArgument("--type must be float32 or float64, not " + Quote(*args.type));
    }
    options.type = grid::DataType::kFloat64;
  }
  return options;
}

// Imports with progress on stderr, then settles the store and prints the summary.
template <typename Options, typename ImportFn>
Status ImportWithProgress(const CommandContext& context, const ImportArgs& args, int threads,
                          Options options, ImportFn import) {
  GRIDSTORE_ASSIGN_OR_RETURN(auto store,
                             context.OpenStore({.create_if_missing = true, .threads = threads}));
  ProgressReporter progress(stderr, isatty(STDERR_FILENO));
  options.on_progress = [&](const importers::ImportProgress& p) {
    progress.Update(p.bytes_done, p.bytes_total, EscapeBytes(p.variable));
  };
  auto summary = import(store.get(), args.file, options);
  progress.Finish();
  if (!summary.ok()) return summary.status();
  GRIDSTORE_RETURN_IF_ERROR(Settle(store.get()));
  PrintSummary(*summary, args.file);
  return Status::OK();
}

Status RunImport(const CommandContext& context, const ImportArgs& args) {
  // Every option first, then the file, then the layout as a whole: only then the store, so that a
  // mistake anywhere leaves no store (or no empty one) behind. The format is the file's content's
  // (GRIB, else NetCDF), never its name's.
  int threads = 0;
  GRIDSTORE_ASSIGN_OR_RETURN(importers::NetCdfImportOptions options, ImportOptions(args, &threads));
  if (importers::IsGribFile(args.file)) {
    GRIDSTORE_ASSIGN_OR_RETURN(importers::GribImportOptions grib, GribOptions(args, options));
    GRIDSTORE_ASSIGN_OR_RETURN(grid::DataSetMeta meta, importers::ReadGribMeta(args.file, grib));
    GRIDSTORE_RETURN_IF_ERROR(meta.Validate().WithContext("importing " + Quote(args.file)));
    return ImportWithProgress(context, args, threads, std::move(grib), importers::ImportGrib);
  }
  if (args.type) {
    return Status::InvalidArgument("--type applies to GRIB files; " + Quote(args.file) +
                                   " keeps its NetCDF types");
  }
  GRIDSTORE_ASSIGN_OR_RETURN(grid::DataSetMeta meta, importers::ReadNetCdfMeta(args.file, options));
  GRIDSTORE_RETURN_IF_ERROR(meta.Validate().WithContext("importing " + Quote(args.file)));
  return ImportWithProgress(context, args, threads, std::move(options), importers::ImportNetCdf);
}

}  // namespace

Command RegisterImport(CLI::App& parent, const CommandContext& context) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* app = parent.add_subcommand("import", "Import a NetCDF or GRIB file as a dataset");
  app->add_option("FILE", args->file,
                  "NetCDF (classic, 64-bit offset, netCDF-4) or GRIB (edition 1 or 2) file, told "
                  "apart by content")
      ->required()
      ->type_name("FILE");
  app->add_option("--dataset", args->dataset, "Dataset id")->required()->type_name("ID");
  AddOptionalString(app, "--variables", &args->variables, "Variables to import: A,B (default all)")
      ->type_name("A,B");
  app->add_option("--attr", args->attrs, "Dataset attribute KEY=VALUE (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->type_name("KEY=VALUE");
  app->add_option("--block", args->block, "Block shape XxY (default 256x256)")->type_name("XxY");
  app->add_option("--codec", args->codec,
                  "none, zstd or shuffle-zstd, optionally :LEVEL (default shuffle-zstd:3)")
      ->type_name("CODEC[:LEVEL]");
  AddOptionalString(app, "--frame-rows", &args->frame_rows,
                    "Rows (along x) per independently compressed frame of a block; 0 for one "
                    "frame (default " +
                        std::to_string(importers::kDefaultImportFrameRows) + ")")
      ->type_name("N");
  AddOptionalString(
      app, "--threads", &args->threads,
      "Compression threads, 1 to " + std::to_string(kMaxThreads) + " (default: one per core)")
      ->type_name("N");
  AddOptionalString(app, "--type", &args->type,
                    "GRIB: store values as float32 (default) or float64 (ecCodes' doubles)")
      ->type_name("float32|float64");
  app->add_flag("--overwrite", args->overwrite, "Replace an existing dataset completely");
  return {app, Done([&context, args] { return RunImport(context, *args); })};
}

}  // namespace gridstore::tools
