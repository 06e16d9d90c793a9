// Copyright 2026 The GridStore Authors.
//
// `gridstore extract ID --variables A,B (--point LON,LAT ... | --bbox W,S,E,N | --polygon WKT |
// --radius LON,LAT,KM | --trajectory WKT [--width KM]) [--time ...] [--level ...]
// [--method nearest|bilinear] [--units U] [--format covjson|csv|json] [-o FILE] [--explain]`:
// values at places given in longitude and latitude, times and levels given by value. ID may name
// a forecast collection instead (`--run`, `--member`, `--stat`, `--valid-time`, `--lead`,
// `--best`; forecast/collection_query.h).
#include "gridstore/geo/extract.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gridstore/forecast/collection_query.h"
#include "gridstore/forecast/derived.h"
#include "gridstore/formats/output_format.h"
#include "gridstore/util/internal/strings.h"
#include "tools/cli_parse.h"
#include "tools/commands/command.h"
#include "tools/output_file.h"
#include "tools/text_escape.h"

namespace gridstore::tools {
namespace {

struct ExtractArgs {
  std::string id;
  std::optional<std::string> variables;  // none: every variable (grid::ExtractEvery)
  std::vector<std::string> points;
  std::optional<std::string> bbox;
  std::string polygon;
  std::optional<std::string> radius;
  std::string trajectory;
  double width_km = 0;
  std::string time, level;
  std::string method = "nearest";
  std::string time_method = "exact", level_method = "exact";
  double tolerance_km = 0;
  bool unpack = false;  // the default since issue 29; kept so that scripts that pass it still work
  bool raw = false;
  bool allow_incomplete = false;
  std::string format = "covjson";
  std::optional<std::string> output;
  bool explain = false;
  // Derived quantities' units, and a forecast collection's runs, members and views.
  std::string units;
  std::optional<std::string> run, member, stat, valid_time, lead;
  bool best = false;
  bool collection_options() const { return run || member || stat || valid_time || lead || best; }
};

// "A,B,..." as exactly `count` finite numbers.
Result<std::vector<double>> ParseNumbers(std::string_view text, size_t count, std::string_view flag,
                                         std::string_view form) {
  std::vector<double> out;
  for (const std::string& item : SplitList(text, ',')) {
    const std::string_view trimmed = Trim(item);
    size_t used = 0;
    const std::optional<double> v = ParseDecimal(trimmed, &used);
    if (!v || used != trimmed.size()) {
      return Status::InvalidArgument(std::string(flag) + " " + Quote(text) + ": " + Quote(item) +
                                     " is not a number (expected " + std::string(form) + ")");
    }
    out.push_back(*v);
  }
  if (out.size() != count) {
    return Status::InvalidArgument(std::string(flag) + " " + Quote(text) + " is not " +
                                   std::string(form));
  }
  return out;
}

Result<grid::AxisMatch> ParseAxisMatch(const std::string& text, std::string_view flag) {
  if (text == "exact") return grid::AxisMatch::kExact;
  if (text == "nearest") return grid::AxisMatch::kNearest;
  return Status::InvalidArgument(std::string(flag) + " " + Quote(text) +
                                 " is not exact or nearest");
}

Result<grid::ExtractRequest> ParseRequest(const ExtractArgs& args) {
  grid::ExtractRequest r;
  if (args.variables) {
    GRIDSTORE_ASSIGN_OR_RETURN(r.variables, ParseNameList(*args.variables, "--variables"));
  }
  for (const std::string& p : args.points) {
    GRIDSTORE_ASSIGN_OR_RETURN(std::vector<double> v, ParseNumbers(p, 2, "--point", "LON,LAT"));
    r.points.push_back({v[0], v[1]});
  }
  if (args.bbox) {
    GRIDSTORE_ASSIGN_OR_RETURN(std::vector<double> v,
                               ParseNumbers(*args.bbox, 4, "--bbox", "W,S,E,N"));
    r.bbox = std::array<double, 4>{v[0], v[1], v[2], v[3]};
  }
  if (args.radius) {
    GRIDSTORE_ASSIGN_OR_RETURN(std::vector<double> v,
                               ParseNumbers(*args.radius, 3, "--radius", "LON,LAT,KM"));
    r.radius = grid::Radius{{v[0], v[1]}, v[2]};
  }
  r.polygon = args.polygon;
  r.trajectory = args.trajectory;
  r.corridor_width_km = args.width_km;
  if (args.method == "nearest") {
    r.method = grid::InterpolationMethod::kNearest;
  } else if (args.method == "bilinear") {
    r.method = grid::InterpolationMethod::kBilinear;
  } else {
    return Status::InvalidArgument("--method " + Quote(args.method) +
                                   " is not nearest or bilinear");
  }
  const std::optional<formats::OutputFormat> format = formats::ParseOutputFormat(args.format);
  if (!format || !formats::WritesExtractions(*format)) {
    return Status::InvalidArgument("--format " + Quote(args.format) +
                                   " is not covjson, nc, csv or json");
  }
  r.time = args.time;
  r.level = args.level;
  GRIDSTORE_ASSIGN_OR_RETURN(r.time_match, ParseAxisMatch(args.time_method, "--time-method"));
  GRIDSTORE_ASSIGN_OR_RETURN(r.level_match, ParseAxisMatch(args.level_method, "--level-method"));
  r.tolerance_km = args.tolerance_km;
  // Values as the variable means them (scale/offset applied, fill values missing) in every
  // format: a packed short or a 1e20 fill printed as data misleads (issue 29, 3.3). --raw gives
  // csv and json the stored numbers; CoverageJSON and netCDF have no packing of their own.
  if (args.raw && args.unpack) {
    return Status::InvalidArgument("--raw and --unpack contradict each other: give one");
  }
  if (args.raw && (args.format == "nc" || args.format == "covjson")) {
    return Status::InvalidArgument("--raw is for --format csv and json; " + args.format +
                                   " always holds unpacked values");
  }
  r.unpack = !args.raw;
  r.allow_incomplete = args.allow_incomplete;
  return r;
}

std::string PlanText(const grid::ExtractPlan& plan) {
  std::string out = "grid: " + plan.grid_description + "\n";
  const char* what = plan.kind == grid::FeatureKind::kTrajectory ? "sample (" : "point (";
  for (const auto& p : plan.points) {
    out += what + FormatDouble(p.requested.lon) + ", " + FormatDouble(p.requested.lat) +
           "): cell x=" + std::to_string(p.cell.x) + " y=" + std::to_string(p.cell.y) + " at (" +
           FormatDouble(p.grid.lon) + ", " + FormatDouble(p.grid.lat) + "), " +
           FormatDouble(std::round(p.distance_km * 1000) / 1000) + " km away";
    if (p.weights.count > 0) out += ", bilinear over " + std::to_string(p.weights.count) + " cells";
    if (p.time >= 0) out += ", time index " + std::to_string(p.time);
    if (p.level >= 0) out += ", level index " + std::to_string(p.level);
    out += "\n";
  }
  if (plan.kind == grid::FeatureKind::kArea) {
    int64_t inside = 0;
    for (uint8_t m : plan.mask) inside += m;
    out += "area: x " + std::to_string(plan.area[0]) + ".." +
           std::to_string(plan.area[0] + plan.area[2] - 1) + ", y " + std::to_string(plan.area[1]) +
           ".." + std::to_string(plan.area[1] + plan.area[3] - 1) + ", " + std::to_string(inside) +
           " cell(s) inside\n";
  }
  out += "times: " + std::to_string(plan.times.size()) +
         ", levels: " + std::to_string(plan.levels.size()) + "\n";
  out += "read: " + std::to_string(plan.boxes.size()) + " box(es), " + std::to_string(plan.blocks) +
         " block(s), at most " + std::to_string(plan.max_bytes_to_decode) + " bytes to decode\n";
  // The layout each variable is read from: the fetch planner's own choice (a point series
  // from a series layout reads a few series blocks, not a block per step).
  for (const grid::FetchPlan::Variable& v : plan.read.variables) {
    out += "  " + v.name + ": " + v.layout + " layout, " + std::to_string(v.blocks) +
           " block(s), " + std::to_string(v.bytes_to_decode) + " bytes to decode";
    if (v.series_blocks >= 0) {
      out += " (plane: " + std::to_string(v.plane_blocks) + " block(s), " +
             std::to_string(v.plane_bytes_to_decode) +
             " bytes; series: " + std::to_string(v.series_blocks) + " block(s), " +
             std::to_string(v.series_bytes_to_decode) + " bytes)";
    }
    out += "\n";
  }
  out += "layouts: " + plan.read.layout + "\n";
  return out;
}

// `extract COLLECTION`: the runs and members (or statistics) asked, through the library's one
// collection query; --explain names what would be read.
Status RunCollectionExtract(grid::GridStore& store, const ExtractArgs& args,
                            grid::ExtractRequest request, formats::OutputFormat format,
                            OutputFile* out) {
  forecast::CollectionRequest r;
  r.collection = args.id;
  r.runs = args.run.value_or("");
  r.members = args.member.value_or("");
  r.statistics = args.stat.value_or("");
  if (args.stat && args.stat->empty()) {
    return Status::InvalidArgument("--stat names no statistic (e.g. mean,spread,p10,p90)");
  }
  r.valid_time = args.valid_time.value_or("");
  r.lead = args.lead.value_or("");
  r.best = args.best;
  r.units = args.units;
  r.extract = std::move(request);
  if (args.explain) {
    GRIDSTORE_ASSIGN_OR_RETURN(forecast::Collection c, forecast::GetCollection(store, args.id));
    const std::string runs_spec =
        r.runs.empty() ? (r.valid_time.empty() && r.lead.empty() && !r.best ? "latest" : "all")
                       : r.runs;
    GRIDSTORE_ASSIGN_OR_RETURN(auto runs, forecast::SelectRuns(c, runs_spec));
    std::string text = "collection: " + c.name + " (" + std::to_string(c.runs.size()) +
                       " run(s))\nruns selected (" + runs_spec + "):\n";
    for (const forecast::Run* run : runs) {
      text += "  " + forecast::FormatIsoMs(run->run_time_ms) + ": " +
              std::to_string(run->members.size()) + " dataset(s), " +
              (run->complete() ? "complete" : "still arriving") + "\n";
    }
    std::fputs(SanitizeMessage(text, true).c_str(), stdout);
    return Status::OK();
  }
  GRIDSTORE_ASSIGN_OR_RETURN(forecast::CollectionExtraction result,
                             forecast::ExtractCollection(store, r));
  for (const std::string& note : result.notes) {
    std::fprintf(stderr, "note: %s\n", SanitizeMessage(note, false).c_str());
  }
  Status s = formats::WriteCollection(result, format, out->stream());
  if (!s.ok()) {
    Status io = out->WriteError();
    return io.ok() ? s : io;
  }
  return out->Commit();
}

Status RunExtract(const CommandContext& context, const ExtractArgs& args) {
  GRIDSTORE_ASSIGN_OR_RETURN(grid::ExtractRequest request, ParseRequest(args));
  const formats::OutputFormat format = *formats::ParseOutputFormat(args.format);  // checked
  std::unique_ptr<OutputFile> out;
  if (!args.explain) {
    GRIDSTORE_ASSIGN_OR_RETURN(
        out, OutputFile::Open(args.output.value_or("-"), OutputFile::WriterKind::kStream,
                              OutputFile::Durability::kDefault));
  }
  GRIDSTORE_ASSIGN_OR_RETURN(auto store, context.OpenStore({.read_only = true}));
  // A collection's options, or an id that is no dataset but a collection's name.
  Result<grid::DataSetMeta> meta = store->GetDataSetMeta(args.id);
  if (args.collection_options() ||
      (meta.status().IsNotFound() && forecast::GetCollection(*store, args.id).ok())) {
    return RunCollectionExtract(*store, args, std::move(request), format, out.get());
  }
  if (!meta.ok()) return meta.status();
  auto shared = std::make_shared<const grid::DataSetMeta>(*std::move(meta));
  std::vector<std::string> left_out;
  if (args.explain) {
    // Planned once against one meta (geo/extract.h): the plan of the first group of variables
    // when none is named.
    GRIDSTORE_ASSIGN_OR_RETURN(std::vector<grid::PlannedExtract> planned,
                               grid::PlanExtractions(*store, shared, request, &left_out));
    std::fputs(PlanText(planned.front().plan()).c_str(), stdout);
    return Status::OK();
  }
  // Each group planned once and read; derived quantities (wind from u/v) and units applied.
  GRIDSTORE_ASSIGN_OR_RETURN(
      std::vector<grid::Extraction> results,
      forecast::ExtractDerived(*store, shared, request, args.units, &left_out));
  if (format == formats::OutputFormat::kNetCdf && results.size() > 1) {
    // One netCDF file holds one group's axes: the first group, the others named as left out.
    for (size_t k = 1; k < results.size(); ++k) {
      left_out.push_back(
          Join(results[k].variables, ", ",
               [](const grid::Extraction::Variable& v) { return Quote(v.meta.name); }) +
          ": on other axes than " + Quote(results[0].variables[0].meta.name) +
          ", which one netCDF file cannot hold; extract them with --variables (or --format "
          "covjson, csv or json for all)");
    }
    results.resize(1);
  }
  for (const std::string& why : left_out) {
    std::fprintf(stderr, "note: left out %s\n", SanitizeMessage(why, false).c_str());
  }
  // The one dispatch of every front end (formats/output_format.h); NetCDF is made in memory.
  Status s = formats::WriteExtractions(results, format, out->stream());
  if (!s.ok()) {
    Status io = out->WriteError();
    return io.ok() ? s : io;
  }
  return out->Commit();
}

// --units, and what a forecast collection takes (forecast/collection_query.h).
void AddCollectionOptions(CLI::App* app, ExtractArgs* args) {
  app->add_option("--units", args->units,
                  "Output units, converted per value with udunits2 (degC, hPa, km/h; a list "
                  "converts each variable whose units convert to one of them)")
      ->type_name("U[,U]");
  AddOptionalString(app, "--run", &args->run,
                    "Collection: latest (default), latest-N, ISO, ISO/ISO or all")
      ->type_name("RUN");
  AddOptionalString(app, "--member", &args->member, "Collection: all (default) or 0,1,5")
      ->type_name("all|LIST");
  AddOptionalString(app, "--stat", &args->stat,
                    "Collection: ensemble statistics instead of members: mean, spread, min, max, "
                    "median, pNN, prob>X, prob<X")
      ->type_name("S[,S]");
  AddOptionalString(app, "--valid-time", &args->valid_time,
                    "Collection: one valid time from every run (constant forecast time; runs "
                    "default to all)")
      ->type_name("ISO");
  AddOptionalString(app, "--lead", &args->lead,
                    "Collection: one lead time from every run, a series over run times "
                    "(constant offset), e.g. 24h")
      ->type_name("DURATION");
  app->add_flag("--best", args->best,
                "Collection: for each valid time the newest run that covers it");
}

}  // namespace

Command RegisterExtract(CLI::App& parent, const CommandContext& context) {
  auto args = std::make_shared<ExtractArgs>();
  CLI::App* app = parent.add_subcommand(
      "extract",
      "Extract values at points, in areas or along paths given in longitude/latitude, by time "
      "and level");
  app->add_option("ID", args->id, "Dataset id, or a forecast collection's name")->required();
  AddOptionalString(app, "--variables", &args->variables,
                    "Variables: A,B (default: every variable, each group on its own axes)")
      ->type_name("A,B");
  app->add_option("--point", args->points, "A point LON,LAT (repeat for several)")
      ->type_name("LON,LAT");
  AddOptionalString(app, "--bbox", &args->bbox,
                    "A box W,S,E,N in degrees (W > E crosses the antimeridian)")
      ->type_name("W,S,E,N");
  app->add_option("--polygon", args->polygon,
                  "An area: a WKT POLYGON or MULTIPOLYGON in lon/lat order")
      ->type_name("WKT");
  AddOptionalString(app, "--radius", &args->radius, "A circle: the cells within KM of LON,LAT")
      ->type_name("LON,LAT,KM");
  app->add_option("--trajectory", args->trajectory,
                  "A path: a WKT LINESTRING (Z: per-vertex level, M: per-vertex time in Unix "
                  "seconds, ZM: both)")
      ->type_name("WKT");
  app->add_option("--width", args->width_km,
                  "With --trajectory: a corridor, the cells within KM/2 of the path")
      ->type_name("KM");
  app->add_option("--time", args->time,
                  "Times: ISO, ISO/ISO (.. for an open end) or ISO,ISO (default all)")
      ->type_name("ISO[/ISO]");
  app->add_option("--level", args->level, "Levels by value: V, V1/V2 or V1,V2 (default all)")
      ->type_name("V[/V]");
  app->add_option("--time-method", args->time_method,
                  "A --time value not on the axis: exact (default: an error naming the nearest) "
                  "or nearest")
      ->type_name("exact|nearest");
  app->add_option("--level-method", args->level_method,
                  "A --level value not on the axis: exact (default) or nearest (hybrid levels "
                  "786.5/866.4 for 850)")
      ->type_name("exact|nearest");
  app->add_option("--method", args->method, "nearest (default) or bilinear")
      ->type_name("nearest|bilinear");
  app->add_option("--tolerance-km", args->tolerance_km,
                  "How far the nearest cell centre may be (default: the local cell spacing on "
                  "curvilinear and unstructured grids; on rectilinear ones, points outside the "
                  "grid are taken within KM of its edge)")
      ->type_name("KM");
  app->add_flag("--unpack", args->unpack,
                "Apply scale/offset; fill values become empty / null (the default: kept for "
                "scripts that pass it)");
  app->add_flag("--raw", args->raw,
                "csv and json: the stored values (packed integers, fill values as numbers)");
  app->add_flag("--allow-incomplete", args->allow_incomplete,
                "Read a dataset that is not DONE (unwritten blocks read as fill values)");
  app->add_option(
         "--format", args->format,
         "covjson (default), nc (CF: a point time series / profile / trajectory, or an "
         "area's box with its coordinates, bounds and grid mapping; unpacked), csv or json")
      ->type_name("covjson|nc|csv|json");
  AddOptionalString(app, "-o,--output", &args->output,
                    "Output: a file (replaced only once completely written), or - for stdout "
                    "(the default)")
      ->type_name("FILE");
  AddCollectionOptions(app, args.get());
  app->add_flag("--explain", args->explain,
                "Print the cells each point resolves to and the blocks to read, reading no data");
  return {app, Done([&context, args] { return RunExtract(context, *args); })};
}

}  // namespace gridstore::tools
