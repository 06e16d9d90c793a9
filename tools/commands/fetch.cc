// Copyright 2026 The GridStore Authors.
//
// `gridstore fetch ID [--variables A,B] [--origin ...] [--shape ...] [-o FILE] ...`: a slice of a
// dataset, as netCDF, npy, csv or json.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gridstore/formats/output_format.h"
#include "gridstore/util/internal/strings.h"
#include "tools/cli_parse.h"
#include "tools/commands/command.h"
#include "tools/fetch_output.h"
#include "tools/output_file.h"
#include "tools/text_escape.h"

namespace gridstore::tools {
namespace {

struct FetchArgs {
  std::string id;
  std::optional<std::string> variables;
  std::string origin;
  std::string shape;
  bool unpack = false;
  bool allow_incomplete = false;
  std::string format;
  std::optional<std::string> output;
  bool explain = false;
  bool sync = false;
};

// The arguments checked and parsed, before the store is opened and the output touched.
struct FetchRequest {
  formats::OutputFormat format = formats::OutputFormat::kCsv;
  std::optional<grid::Shape4> origin, shape;
  std::vector<std::string> variables;
};

// The format from --format, else from the output file's extension, else csv.
Result<formats::OutputFormat> ChooseFormat(const FetchArgs& args) {
  std::string format = args.format;
  const std::string output = args.output.value_or("");
  if (format.empty() && !output.empty() && output != "-") {
    format = std::filesystem::path(output).extension().string();
    if (!format.empty()) format.erase(0, 1);
  }
  if (format.empty()) format = "csv";
  const std::optional<formats::OutputFormat> parsed = formats::ParseOutputFormat(format);
  if (!parsed || !formats::WritesFetches(*parsed)) {
    return Status::InvalidArgument("unknown output format " + Quote(format) +
                                   " (expected nc, npy, csv or json)");
  }
  return *parsed;
}

Result<FetchRequest> ParseRequest(const FetchArgs& args) {
  FetchRequest request;
  GRIDSTORE_ASSIGN_OR_RETURN(request.format, ChooseFormat(args));
  if (args.output && args.output->empty()) {
    return Status::InvalidArgument("-o is empty; give a file name, or - for standard output");
  }
  if (!args.origin.empty()) {
    GRIDSTORE_ASSIGN_OR_RETURN(request.origin, ParseShape4(args.origin, "--origin"));
  }
  if (!args.shape.empty()) {
    GRIDSTORE_ASSIGN_OR_RETURN(request.shape, ParseShape4(args.shape, "--shape"));
  }
  if (args.variables) {
    GRIDSTORE_ASSIGN_OR_RETURN(request.variables, ParseNameList(*args.variables, "--variables"));
  }
  return request;
}

std::string PlanText(const grid::FetchPlan& plan) {
  std::string out = "layout: " + plan.layout + "\n";
  for (const auto& v : plan.variables) {
    char line[512];
    std::snprintf(line, sizeof(line),
                  ": origin %ld,%ld,%ld,%ld shape %ld,%ld,%ld,%ld: %ld block(s), %s to decode, "
                  "%s returned\n",
                  long(v.origin[0]), long(v.origin[1]), long(v.origin[2]), long(v.origin[3]),
                  long(v.shape[0]), long(v.shape[1]), long(v.shape[2]), long(v.shape[3]),
                  long(v.blocks), HumanBytes(double(v.bytes_to_decode)).c_str(),
                  HumanBytes(double(v.bytes_returned)).c_str());
    out += "  " + EscapeBytes(v.name) + line;
    if (v.series_blocks >= 0) {  // both layouts: show the choice and what it weighed
      std::snprintf(line, sizeof(line),
                    "    reads %s: plane layout %ld block(s), %s to decode; series layout %ld "
                    "block(s), %s to decode\n",
                    v.layout.c_str(), long(v.plane_blocks),
                    HumanBytes(double(v.plane_bytes_to_decode)).c_str(), long(v.series_blocks),
                    HumanBytes(double(v.series_bytes_to_decode)).c_str());
      out += line;
    }
  }
  out += "total: " + std::to_string(plan.blocks) + " block(s), " +
         HumanBytes(double(plan.bytes_to_decode)) + " to decode, " +
         HumanBytes(double(plan.bytes_returned)) + " returned\n";
  return out;
}

// The box of --origin without --shape: from the origin to the end of `first` (the first variable
// fetched). An origin at or beyond that variable's extent is an error about the origin: there is
// no shape to blame, the user gave none.
Result<grid::Shape4> ShapeToEnd(const grid::VariableMeta& first, const grid::Shape4& origin,
                                const std::string& origin_text) {
  grid::Shape4 shape;
  for (int a = 0; a < grid::kRank; ++a) {
    if (origin[a] >= first.shape[a]) {
      std::string axis = std::string(grid::AxisName(a));
      if (!first.dimension_names[a].empty())
        axis += " (" + EscapeBytes(first.dimension_names[a]) + ")";
      return Status::OutOfRange("--origin " + Quote(origin_text) + ": variable " +
                                Quote(first.name) + ", axis " + axis + ": origin " +
                                std::to_string(origin[a]) + " is beyond the extent " +
                                std::to_string(first.shape[a]) + " (the largest origin is " +
                                std::to_string(first.shape[a] - 1) + ")");
    }
    // A negative origin gives a shape beyond the extent; the library names the origin then.
    shape[a] = first.shape[a] - origin[a];
  }
  return shape;
}

// Sets the fetcher's box. A missing --origin starts at 0; a missing --shape runs to the end of
// the first variable.
Status SetBox(const FetchRequest& request, const std::string& origin_text,
              grid::GridDataFetcher& fetcher) {
  if (!request.origin && !request.shape) return Status::OK();
  const grid::DataSetMeta& meta = fetcher.meta();
  const grid::Shape4 origin = request.origin.value_or(grid::Shape4{0, 0, 0, 0});
  if (request.shape) {
    fetcher.SetOriginShape(origin, *request.shape);
    return Status::OK();
  }
  const grid::VariableMeta* first = nullptr;
  if (!request.variables.empty()) {
    first = meta.FindVariable(request.variables[0]);
  } else if (!meta.variables.empty()) {
    first = &meta.variables[0];
  }
  // Without a first variable (an unknown one, or a dataset without any) Explain says which.
  if (first == nullptr) return Status::OK();
  GRIDSTORE_ASSIGN_OR_RETURN(grid::Shape4 shape, ShapeToEnd(*first, origin, origin_text));
  fetcher.SetOriginShape(origin, shape);
  return Status::OK();
}

// Writes `result` to `out` as json and commits it; on failure the output is left as it was.
// (json is for small slices, kMaxTextValues: it is written whole.)
Status WriteJsonOutput(const grid::DataSetMeta& meta, const grid::GridDataSet& result,
                       OutputFile& out) {
  Status s = formats::WriteFetched(meta, result, formats::OutputFormat::kJson, out.stream());
  if (!s.ok()) {
    // A writer that stopped at a failed write cannot know why; the output knows (errno).
    Status io = out.WriteError();
    return io.ok() ? s : io;
  }
  return out.Commit();
}

// The bytes of values fetched at once: kDefaultSlabBytes, or GRIDSTORE_FETCH_SLAB_BYTES (for
// tests: many slabs out of a small dataset).
int64_t SlabBytes() {
  const char* env = std::getenv("GRIDSTORE_FETCH_SLAB_BYTES");
  if (env == nullptr || *env == '\0') return kDefaultSlabBytes;
  const long long bytes = std::atoll(env);
  return bytes > 0 ? bytes : kDefaultSlabBytes;
}

Status RunFetch(const CommandContext& context, const FetchArgs& args) {
  // Every argument is checked before the store is opened and the output touched.
  GRIDSTORE_ASSIGN_OR_RETURN(FetchRequest request, ParseRequest(args));
  // The output is opened first: a bad path fails fast, before any reading, and nothing there
  // changes unless the whole output is written (tools/output_file.h). First also because then
  // every descriptor /proc/self/fd/N can name is one the command inherited, never one the store
  // opened.
  std::unique_ptr<OutputFile> out;
  if (!args.explain) {
    GRIDSTORE_ASSIGN_OR_RETURN(
        out, OutputFile::Open(
                 args.output.value_or("-"),
                 request.format == formats::OutputFormat::kNetCdf ? OutputFile::WriterKind::kPath
                                                                  : OutputFile::WriterKind::kStream,
                 args.sync ? OutputFile::Durability::kSynced : OutputFile::Durability::kDefault));
  }
  GRIDSTORE_ASSIGN_OR_RETURN(auto store, context.OpenStore({.read_only = true}));
  GRIDSTORE_ASSIGN_OR_RETURN(auto fetcher, store->GetDataFetcher(args.id));
  const grid::DataSetMeta& meta = fetcher->meta();
  fetcher->SetVariablesToGet(request.variables);
  GRIDSTORE_RETURN_IF_ERROR(SetBox(request, args.origin, *fetcher));
  fetcher->set_options({.unpack = args.unpack, .allow_incomplete = args.allow_incomplete});
  // Explain checks the whole request (variables, box) without reading a block.
  GRIDSTORE_ASSIGN_OR_RETURN(grid::FetchPlan plan, fetcher->Explain());
  if (args.allow_incomplete && meta.status() != grid::kStatusDone) {
    Warn("dataset " + Quote(meta.id) + " is not complete (status " +
         (meta.status().empty() ? std::string("unset") : Quote(meta.status())) +
         "); blocks not yet written read as fill values");
  }
  if (args.explain) {
    std::fputs(PlanText(plan).c_str(), stdout);
    return Status::OK();
  }
  if (request.format == formats::OutputFormat::kNpy && plan.variables.size() != 1) {
    return Status::InvalidArgument("npy output holds one variable; name it with --variables");
  }
  // On failure `out` is abandoned: the file is untouched.
  if (request.format != formats::OutputFormat::kJson) {
    // Slab by slab, in bounded memory (tools/fetch_output.h).
    return WriteFetchOutput(request.format, plan, args.unpack, SlabBytes(), *fetcher, *out);
  }
  GRIDSTORE_ASSIGN_OR_RETURN(grid::GridDataSet result, fetcher->Fetch());
  return WriteJsonOutput(meta, result, *out);
}

}  // namespace

Command RegisterFetch(CLI::App& parent, const CommandContext& context) {
  auto args = std::make_shared<FetchArgs>();
  CLI::App* app = parent.add_subcommand("fetch", "Fetch a slice of a dataset");
  app->add_option("ID", args->id, "Dataset id")->required();
  AddOptionalString(app, "--variables", &args->variables, "Variables: A,B (default all)")
      ->type_name("A,B");
  app->add_option("--origin", args->origin, "Origin T,Z,X,Y (default 0,0,0,0)")
      ->type_name("T,Z,X,Y");
  app->add_option("--shape", args->shape, "Shape T,Z,X,Y (default: to the end)")
      ->type_name("T,Z,X,Y");
  app->add_flag("--unpack", args->unpack, "Apply scale/offset; fill values become NaN");
  app->add_flag("--allow-incomplete", args->allow_incomplete,
                "Read a dataset that is not DONE (unwritten blocks read as fill values)");
  app->add_option("--format", args->format, "nc, npy, csv or json (default: from -o, else csv)")
      ->type_name("nc|npy|csv|json");
  AddOptionalString(
      app, "-o,--output", &args->output,
      "Output: a file (replaced only once completely written), a FIFO or device (streamed), or - "
      "for stdout (the default)")
      ->type_name("FILE");
  app->add_flag("--sync", args->sync,
                "Flush the output file to disk before it replaces FILE (survives a power failure)");
  app->add_flag("--explain", args->explain, "Print the plan (blocks, bytes) without fetching");
  return {app, Done([&context, args] { return RunFetch(context, *args); })};
}

}  // namespace gridstore::tools
