// Copyright 2026 The GridStore Authors.
//
// The `gridstore` command: argument parsing (CLI11) and thin commands over library functions. The
// names and options are a contract (DESIGN.md, "The gridstore command"). Exit status: 0 success,
// 1 error (one sentence on stderr), 2 usage error, 3 `verify` found problems.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "grid/grid_keys.h"
#include "grid/grid_store.h"
#include "grid/grid_verify.h"
#include "importers/netcdf_exporter.h"
#include "importers/netcdf_importer.h"
#include "tools/cli_parse.h"
#include "tools/info_format.h"
#include "tools/meta_commands.h"
#include "tools/output_formats.h"
#include "tools/progress.h"
#include "tools/where_parser.h"

namespace gridstore::tools {
namespace {

using grid::GridStore;
using grid::GridStoreOptions;

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitProblemsFound = 3;

// Options shared by every command.
struct Global {
  std::string store;
};

int Fail(const Status& status) {
  std::fprintf(stderr, "gridstore: %s\n", std::string(status.message()).c_str());
  return kExitError;
}

Result<std::unique_ptr<GridStore>> OpenStore(const Global& global, GridStoreOptions options) {
  return GridStore::Open(global.store, options);
}

// Commands that write settle the store before they report success: everything is in the
// engine's tables and synced, so the next open replays no log (docs/reliability.md).
Status Settle(GridStore* store) {
  return store->Flush().WithContext("the write succeeded, but settling the store failed");
}

// ---- import -------------------------------------------------------------------------------------

struct ImportArgs {
  std::string file;
  std::string dataset;
  std::string variables;
  std::vector<std::string> attrs;
  std::string block = "256x256";
  std::string codec = "shuffle-zstd:3";
  int64_t frame_rows = importers::kDefaultImportFrameRows;
  int threads = 0;
  bool overwrite = false;
};

int RunImport(const Global& global, const ImportArgs& args) {
  importers::NetCdfImportOptions options;
  options.dataset_id = args.dataset;
  options.variables = SplitList(args.variables);
  options.overwrite = args.overwrite;
  for (const auto& a : args.attrs) {
    auto kv = ParseAttribute(a);
    if (!kv.ok()) return Fail(kv.status());
    options.attributes[kv->first] = kv->second;
  }
  auto block = ParseBlockShape(args.block);
  if (!block.ok()) return Fail(block.status());
  options.layout.block_x = block->first;
  options.layout.block_y = block->second;
  auto codec = grid::ParseCodecOptions(args.codec);
  if (!codec.ok()) return Fail(codec.status().WithContext("--codec"));
  options.layout.codec = *codec;
  options.layout.frame_rows = args.frame_rows;
  if (args.frame_rows < 0) {
    return Fail(Status::InvalidArgument("--frame-rows " + std::to_string(args.frame_rows) +
                                        " is invalid: it must be at least 0"));
  }

  // Check the file before creating a store for it, so a typo leaves no empty store behind.
  auto meta = importers::ReadNetCdfMeta(args.file, options);
  if (!meta.ok()) return Fail(meta.status());
  auto store = OpenStore(global, {.create_if_missing = true, .threads = args.threads});
  if (!store.ok()) return Fail(store.status());

  ProgressReporter progress(stderr, isatty(STDERR_FILENO));
  options.on_progress = [&](const importers::ImportProgress& p) {
    progress.Update(p.bytes_done, p.bytes_total, p.variable);
  };
  auto summary = importers::ImportNetCdf(store->get(), args.file, options);
  progress.Finish();
  if (!summary.ok()) return Fail(summary.status());
  if (Status s = Settle(store->get()); !s.ok()) return Fail(s);
  for (const auto& note : summary->notes) std::fprintf(stderr, "note: %s\n", note.c_str());
  const double mb = static_cast<double>(summary->raw_bytes) / 1e6;
  std::printf(
      "imported '%s' from %s: %d variable(s), %ld plane(s), %s raw, %s stored, compression "
      "ratio %.2f, %.2f s, %.1f MB/s\n",
      summary->dataset_id.c_str(), args.file.c_str(), summary->variables,
      static_cast<long>(summary->planes),
      HumanBytes(static_cast<double>(summary->raw_bytes)).c_str(),
      HumanBytes(static_cast<double>(summary->stored_bytes)).c_str(),
      summary->stored_bytes > 0
          ? static_cast<double>(summary->raw_bytes) / static_cast<double>(summary->stored_bytes)
          : 0.0,
      summary->seconds, summary->seconds > 0 ? mb / summary->seconds : 0.0);
  return 0;
}

// ---- info / query / delete / verify ------------------------------------------------------------

int RunInfo(const Global& global, const std::string& id, bool json) {
  auto store = OpenStore(global, {.read_only = true});
  if (!store.ok()) return Fail(store.status());
  auto meta = (*store)->GetDataSetMeta(id);
  if (!meta.ok()) return Fail(meta.status());
  auto size = (*store)->ApproximateDataSetSize(id);
  std::optional<uint64_t> stored;
  if (size.ok()) stored = *size;
  std::fputs((json ? FormatInfoJson(*meta, stored) : FormatInfoText(*meta, stored)).c_str(),
             stdout);
  return 0;
}

struct QueryArgs {
  bool has_where = false;
  std::string where;
  std::string sort;
  std::string index;
  int64_t offset = 0;
  int64_t limit = -1;
  bool json = false;
};

std::string IndexNames(const std::vector<grid::MetaIndexInfo>& indexes) {
  std::string names;
  for (const auto& i : indexes) names += (names.empty() ? "'" : ", '") + i.name + "'";
  return names;
}

int RunQuery(const Global& global, const QueryArgs& args) {
  if (args.offset < 0) return Fail(Status::InvalidArgument("--offset must not be negative"));
  if (args.limit < -1) return Fail(Status::InvalidArgument("--limit must not be negative"));
  grid::Query query;  // every dataset
  if (args.has_where) {
    auto parsed = ParseWhere(args.where);
    if (!parsed.ok()) return Fail(parsed.status());
    query = *parsed;
  }
  auto sort = ParseSort(args.sort);
  if (!sort.ok()) return Fail(sort.status());
  auto store = OpenStore(global, {.read_only = true});
  if (!store.ok()) return Fail(store.status());
  auto indexes = (*store)->ListMetaIndexes();
  if (!indexes.ok()) return Fail(indexes.status());

  std::string index = args.index;
  if (!index.empty()) {
    const bool known = std::any_of(indexes->begin(), indexes->end(),
                                   [&](const auto& i) { return i.name == index; });
    if (!known) {
      return Fail(Status::NotFound(
          "no index named '" + index + "' in this store" +
          (indexes->empty()
               ? std::string(" (it has none; create one with `gridstore index create`)")
               : " (it has " + IndexNames(*indexes) + ")")));
    }
  } else {
    index = ChooseIndex(query, *sort, *indexes);
  }
  const grid::MetaIndexSchema* schema = nullptr;
  for (const auto& i : *indexes) {
    if (i.name == index) schema = &i.schema;
  }

  grid::QueryParams params;
  params.offset = args.offset;
  params.limit = args.limit;
  params.sort = *sort;
  params.get_total_count = true;
  auto result = (*store)->QueryDataSets(index, query, params);
  if (!result.ok()) return Fail(result.status());
  if (args.json) {
    std::fputs(FormatQueryResultJson(*result).c_str(), stdout);
    return 0;
  }
  std::fputs(
      FormatDataSetListText(result->metas, static_cast<size_t>(std::max<int64_t>(result->total, 0)))
          .c_str(),
      stdout);
  if (result->scanned) {
    const std::string uncovered = UncoveredFields(query, *sort, schema);
    std::string note = result->plan;
    if (index.empty()) {
      note = uncovered.empty() ? "the store has no index" : "no index covers " + uncovered;
    } else if (!uncovered.empty()) {
      note = "index '" + index + "' does not cover " + uncovered;
    }
    std::fprintf(stderr, "(scanned: %s)\n", note.c_str());
  }
  return 0;
}

// ---- index / meta -------------------------------------------------------------------------------

int RunIndexCreate(const Global& global, const std::string& name,
                   const std::vector<std::string>& field_args) {
  grid::MetaIndexSchema schema;
  for (const std::string& arg : field_args) {
    auto field = ParseIndexField(arg);
    if (!field.ok()) return Fail(field.status());
    schema.fields.push_back(*field);
  }
  auto store = OpenStore(global, {.create_if_missing = true});
  if (!store.ok()) return Fail(store.status());
  Status s = (*store)->CreateMetaIndex(name, schema);
  if (s.ok()) s = Settle(store->get());
  if (!s.ok()) return Fail(s);
  std::printf("created index '%s': %s\n", name.c_str(), FormatIndexSchema(schema).c_str());
  return 0;
}

int RunIndexList(const Global& global) {
  auto store = OpenStore(global, {.read_only = true});
  if (!store.ok()) return Fail(store.status());
  auto indexes = (*store)->ListMetaIndexes();
  if (!indexes.ok()) return Fail(indexes.status());
  for (const auto& i : *indexes) {
    std::printf("%s  %s\n", i.name.c_str(), FormatIndexSchema(i.schema).c_str());
  }
  return 0;
}

int RunIndexDrop(const Global& global, const std::string& name) {
  auto store = OpenStore(global, {});
  if (!store.ok()) return Fail(store.status());
  Status s = (*store)->DropMetaIndex(name);
  if (s.ok()) s = Settle(store->get());
  if (!s.ok()) return Fail(s);
  std::printf("dropped index '%s'\n", name.c_str());
  return 0;
}

int RunMetaPut(const Global& global, const std::string& file) {
  std::string input;
  if (file.empty() || file == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    input = ss.str();
  } else {
    std::ifstream in(file, std::ios::binary);
    if (!in) return Fail(Status::NotFound("cannot open '" + file + "'"));
    std::ostringstream ss;
    ss << in.rdbuf();
    input = ss.str();
  }
  // Bad input must not even create the store.
  Status check = CheckMetaPutInput(input);
  if (!check.ok()) return Fail(check);
  auto store = OpenStore(global, {.create_if_missing = true});
  if (!store.ok()) return Fail(store.status());
  auto summary = PutMetas(store->get(), input);
  if (!summary.ok()) return Fail(summary.status());
  if (Status s = Settle(store->get()); !s.ok()) return Fail(s);
  std::printf("%ld dataset meta(s) created, %ld updated\n", static_cast<long>(summary->created),
              static_cast<long>(summary->updated));
  return 0;
}

int RunDelete(const Global& global, const std::string& id) {
  auto store = OpenStore(global, {});
  if (!store.ok()) return Fail(store.status());
  Status s = (*store)->DeleteDataSet(id);
  if (s.ok()) s = Settle(store->get());
  if (!s.ok()) return Fail(s);
  std::printf("deleted '%s'\n", id.c_str());
  return 0;
}

int RunVerify(const Global& global, const std::string& id) {
  auto store = OpenStore(global, {.read_only = true});
  if (!store.ok()) return Fail(store.status());
  auto report = (*store)->Verify(id);
  if (!report.ok()) return Fail(report.status());
  for (const auto& p : report->problems) {
    if (p.dataset.empty()) {
      std::printf("CORRUPT store: %s\n", p.message.c_str());
    } else {
      std::printf("CORRUPT dataset '%s': %s\n", grid::EscapeForMessage(p.dataset).c_str(),
                  p.message.c_str());
    }
  }
  int64_t orphan_blocks = 0;
  uint64_t orphan_bytes = 0;
  for (const auto& o : report->orphans) {
    std::printf("ORPHAN dataset '%s' incarnation %016llx: %ld block(s), %s: %s\n",
                grid::EscapeForMessage(o.dataset).c_str(),
                static_cast<unsigned long long>(o.incarnation), static_cast<long>(o.blocks),
                HumanBytes(static_cast<double>(o.bytes)).c_str(), o.reason.c_str());
    orphan_blocks += o.blocks;
    orphan_bytes += o.bytes;
  }
  std::string extra;
  if (report->datasets_not_done > 0) {
    extra += ", " + std::to_string(report->datasets_not_done) + " dataset(s) not DONE";
  }
  if (report->replacements_in_progress > 0) {
    extra += ", " + std::to_string(report->replacements_in_progress) +
             " replacement(s) being written";
  }
  if (!report->orphans.empty()) {
    extra += ", " + std::to_string(orphan_blocks) + " orphan block(s) (" +
             HumanBytes(static_cast<double>(orphan_bytes)) +
             ") left by interrupted writes: `gridstore compact` removes them";
  }
  std::printf("verified %ld dataset(s), %ld block(s), %s: %zu problem(s)%s\n",
              static_cast<long>(report->datasets), static_cast<long>(report->blocks),
              HumanBytes(static_cast<double>(report->bytes_read)).c_str(),
              report->problems.size(), extra.c_str());
  return report->ok() ? 0 : kExitProblemsFound;
}

int RunCompact(const Global& global) {
  auto store = OpenStore(global, {});
  if (!store.ok()) return Fail(store.status());
  auto report = (*store)->Compact();
  if (!report.ok()) return Fail(report.status());
  std::printf(
      "compacted: removed %ld orphan block group(s) and %ld abandoned replacement(s), %ld "
      "block(s) in all; tables %s -> %s\n",
      static_cast<long>(report->orphan_incarnations),
      static_cast<long>(report->replacements_removed), static_cast<long>(report->orphan_blocks),
      HumanBytes(static_cast<double>(report->bytes_before)).c_str(),
      HumanBytes(static_cast<double>(report->bytes_after)).c_str());
  return 0;
}

// ---- fetch --------------------------------------------------------------------------------------

struct FetchArgs {
  std::string id;
  std::string variables;
  std::string origin;
  std::string shape;
  bool unpack = false;
  std::string format;
  std::string output;
  bool explain = false;
};

// The format from --format, else from the output file's extension, else csv.
Result<std::string> ChooseFormat(const FetchArgs& args) {
  std::string format = args.format;
  if (format.empty() && !args.output.empty() && args.output != "-") {
    format = std::filesystem::path(args.output).extension().string();
    if (!format.empty()) format.erase(0, 1);
  }
  if (format.empty()) format = "csv";
  if (format != "nc" && format != "npy" && format != "csv" && format != "json") {
    return Status::InvalidArgument("unknown output format '" + format +
                                   "' (expected nc, npy, csv or json)");
  }
  return format;
}

std::string PlanText(const grid::FetchPlan& plan) {
  std::string out = "layout: " + plan.layout + "\n";
  for (const auto& v : plan.variables) {
    char line[512];
    std::snprintf(line, sizeof(line),
                  "  %s: origin %ld,%ld,%ld,%ld shape %ld,%ld,%ld,%ld: %ld block(s), %s to decode, "
                  "%s returned\n",
                  v.name.c_str(), long(v.origin[0]), long(v.origin[1]), long(v.origin[2]),
                  long(v.origin[3]), long(v.shape[0]), long(v.shape[1]), long(v.shape[2]),
                  long(v.shape[3]), long(v.blocks), HumanBytes(double(v.bytes_to_decode)).c_str(),
                  HumanBytes(double(v.bytes_returned)).c_str());
    out += line;
  }
  out += "total: " + std::to_string(plan.blocks) + " block(s), " +
         HumanBytes(double(plan.bytes_to_decode)) + " to decode, " +
         HumanBytes(double(plan.bytes_returned)) + " returned\n";
  return out;
}

int RunFetch(const Global& global, const FetchArgs& args) {
  auto format = ChooseFormat(args);
  if (!format.ok()) return Fail(format.status());
  std::optional<grid::Shape4> origin, shape;
  if (!args.origin.empty()) {
    auto o = ParseShape4(args.origin, "--origin");
    if (!o.ok()) return Fail(o.status());
    origin = *o;
  }
  if (!args.shape.empty()) {
    auto s = ParseShape4(args.shape, "--shape");
    if (!s.ok()) return Fail(s.status());
    shape = *s;
  }
  auto store = OpenStore(global, {.read_only = true});
  if (!store.ok()) return Fail(store.status());
  auto fetcher_or = (*store)->GetDataFetcher(args.id);
  if (!fetcher_or.ok()) return Fail(fetcher_or.status());
  grid::GridDataFetcher& fetcher = **fetcher_or;
  std::vector<std::string> variables = SplitList(args.variables);
  fetcher.SetVariablesToGet(variables);
  if (origin || shape) {
    // A missing --shape runs to the end of the first variable; a missing --origin starts at 0.
    grid::Shape4 o = origin.value_or(grid::Shape4{0, 0, 0, 0});
    grid::Shape4 s;
    if (shape) {
      s = *shape;
    } else {
      const grid::VariableMeta* first = variables.empty()
                                            ? &fetcher.meta().variables[0]
                                            : fetcher.meta().FindVariable(variables[0]);
      if (first == nullptr) first = &fetcher.meta().variables[0];  // Fetch reports the bad name
      for (int a = 0; a < grid::kRank; ++a) s[a] = first->shape[a] - o[a];
    }
    fetcher.SetOriginShape(o, s);
  }
  fetcher.set_options({.unpack = args.unpack});
  if (args.explain) {
    auto plan = fetcher.Explain();
    if (!plan.ok()) return Fail(plan.status());
    std::fputs(PlanText(*plan).c_str(), stdout);
    return 0;
  }
  if (*format == "npy" && fetcher.meta().variables.size() != 1 && variables.size() != 1) {
    return Fail(Status::InvalidArgument("npy output holds one variable; name it with --variables"));
  }
  auto result = fetcher.Fetch();
  if (!result.ok()) return Fail(result.status());

  const bool to_stdout = args.output.empty() || args.output == "-";
  if (*format == "nc") {
    // netCDF writes files, not streams: write a temporary file for stdout.
    std::string path = args.output;
    if (to_stdout)
      path = (std::filesystem::temp_directory_path() /
              ("gridstore-" + std::to_string(getpid()) + ".nc"))
                 .string();
    Status s = importers::WriteNetCdf(path, fetcher.meta(), *result, {.unpacked = args.unpack});
    if (s.ok() && to_stdout) {
      std::ifstream in(path, std::ios::binary);
      std::cout << in.rdbuf();
      std::cout.flush();
      if (!std::cout) s = Status::Unavailable("writing the nc output to stdout failed");
    }
    if (to_stdout) std::filesystem::remove(path);
    return s.ok() ? 0 : Fail(s);
  }
  std::ofstream file;
  if (!to_stdout) {
    file.open(args.output, std::ios::binary | std::ios::trunc);
    if (!file) {
      return Fail(
          Status::FailedPrecondition("cannot create the output file '" + args.output + "'"));
    }
  }
  std::ostream& out = to_stdout ? std::cout : file;
  Status s;
  if (*format == "npy") {
    s = WriteNpy(result->variables.begin()->second, out);
  } else if (*format == "csv") {
    s = WriteCsv(fetcher.meta(), *result, out);
  } else {
    s = WriteJson(fetcher.meta(), *result, out);
  }
  out.flush();
  if (s.ok() && !out) s = Status::Unavailable("writing the output failed");
  if (!s.ok() && !to_stdout) {
    file.close();
    std::filesystem::remove(args.output);  // no half-written output
  }
  return s.ok() ? 0 : Fail(s);
}

int Main(int argc, char** argv) {
  CLI::App app{"GridStore: store gridded meteorological data and fetch any slice of it fast."};
  app.name("gridstore");
  app.require_subcommand(1);
  Global global;
  const char* env_store = std::getenv("GRIDSTORE_STORE");
  global.store = env_store && *env_store ? env_store : "./gridstore-data";
  app.add_option("--store", global.store,
                 "Store URI: a directory (RocksDB), memory://, or "
                 "rados://POOL?conf=PATH[&id=CLIENT][&namespace=NS] (Ceph); default "
                 "$GRIDSTORE_STORE, else "
                 "./gridstore-data");

  ImportArgs import_args;
  auto* import = app.add_subcommand("import", "Import a NetCDF file as a dataset");
  import->add_option("FILE", import_args.file, "NetCDF file (classic, 64-bit offset, netCDF-4)")
      ->required();
  import->add_option("--dataset", import_args.dataset, "Dataset id")->required();
  import->add_option("--variables", import_args.variables,
                     "Variables to import: A,B (default all)");
  import->add_option("--attr", import_args.attrs, "Dataset attribute KEY=VALUE (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  import->add_option("--block", import_args.block, "Block shape XxY (default 256x256)");
  import->add_option("--codec", import_args.codec,
                     "none, zstd or shuffle-zstd, optionally :LEVEL (default shuffle-zstd:3)");
  import->add_option("--frame-rows", import_args.frame_rows,
                     "Rows (along x) per independently compressed frame of a block; 0 for one "
                     "frame (default " +
                         std::to_string(importers::kDefaultImportFrameRows) + ")");
  import->add_option("--threads", import_args.threads,
                     "Compression threads (default: one per core)");
  import->add_flag("--overwrite", import_args.overwrite, "Replace an existing dataset completely");

  std::string info_id;
  bool info_json = false;
  auto* info = app.add_subcommand("info", "Describe a dataset");
  info->add_option("ID", info_id, "Dataset id")->required();
  info->add_flag("--json", info_json, "Print JSON");

  QueryArgs query_args;
  auto* query = app.add_subcommand("query", "Find datasets by their attributes");
  auto* where = query->add_option(
      "--where", query_args.where,
      "Condition on attributes: status = 'DONE' and create_time > now - 1 day and "
      "(source = 'ECMWF' or source in ('NMC'))");
  query->add_option("--sort", query_args.sort, "FIELD[:asc|:desc],... (ties break on id)");
  query->add_option("--index", query_args.index,
                    "Meta index to use (default: the only one, else the one covering most fields)");
  query->add_option("--offset", query_args.offset, "Datasets to skip");
  query->add_option("--limit", query_args.limit, "Most datasets to print");
  query->add_flag("--json", query_args.json, "Print JSON");

  FetchArgs fetch_args;
  auto* fetch = app.add_subcommand("fetch", "Fetch a slice of a dataset");
  fetch->add_option("ID", fetch_args.id, "Dataset id")->required();
  fetch->add_option("--variables", fetch_args.variables, "Variables: A,B (default all)");
  fetch->add_option("--origin", fetch_args.origin, "Origin T,Z,X,Y (default 0,0,0,0)");
  fetch->add_option("--shape", fetch_args.shape, "Shape T,Z,X,Y (default: to the end)");
  fetch->add_flag("--unpack", fetch_args.unpack, "Apply scale/offset; fill values become NaN");
  fetch->add_option("--format", fetch_args.format,
                    "nc, npy, csv or json (default: from -o, else csv)");
  fetch->add_option("-o,--output", fetch_args.output, "Output file (default: stdout)");
  fetch->add_flag("--explain", fetch_args.explain,
                  "Print the plan (blocks, bytes) without fetching");

  std::string index_name;
  std::vector<std::string> index_fields;
  auto* index = app.add_subcommand("index", "Manage meta indexes (what `query` searches fast)");
  index->require_subcommand(1);
  auto* index_create = index->add_subcommand("create", "Create an index (indexes every dataset)");
  index_create->add_option("NAME", index_name, "Index name")->required();
  index_create
      ->add_option("FIELDS", index_fields, "FIELD:TYPE... (TYPE: string, int64, double, bool)")
      ->required();
  auto* index_list = index->add_subcommand("list", "List the indexes and their fields");
  auto* index_drop = index->add_subcommand("drop", "Drop an index");
  index_drop->add_option("NAME", index_name, "Index name")->required();

  std::string meta_file;
  auto* meta = app.add_subcommand("meta", "Write dataset metas");
  meta->require_subcommand(1);
  auto* meta_put = meta->add_subcommand("put",
                                        "Create or update data-less dataset metas from JSON lines "
                                        "{\"id\": ..., \"attributes\": {...}}");
  meta_put->add_option("FILE", meta_file, "JSON-lines file, or - for stdin (default)");

  std::string delete_id;
  auto* del = app.add_subcommand("delete", "Delete a dataset: meta, data and index entries");
  del->add_option("ID", delete_id, "Dataset id")->required();

  std::string verify_id;
  auto* verify = app.add_subcommand(
      "verify",
      "Check every block (one dataset or all); exit 3 if anything is damaged. Also lists blocks "
      "that interrupted writes left behind");
  verify->add_option("ID", verify_id, "Dataset id (default: the whole store)");

  auto* compact = app.add_subcommand(
      "compact", "Remove what interrupted imports and deletes left behind, and reclaim space");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the problem (or the help); every usage error exits 2, as documented.
    return app.exit(e) == 0 ? 0 : kExitUsage;
  }
  if (*import) return RunImport(global, import_args);
  if (*info) return RunInfo(global, info_id, info_json);
  if (*query) {
    query_args.has_where = where->count() > 0;
    return RunQuery(global, query_args);
  }
  if (*index_create) return RunIndexCreate(global, index_name, index_fields);
  if (*index_list) return RunIndexList(global);
  if (*index_drop) return RunIndexDrop(global, index_name);
  if (*meta_put) return RunMetaPut(global, meta_file);
  if (*fetch) return RunFetch(global, fetch_args);
  if (*del) return RunDelete(global, delete_id);
  if (*verify) return RunVerify(global, verify_id);
  if (*compact) return RunCompact(global);
  return kExitError;
}

}  // namespace
}  // namespace gridstore::tools

int main(int argc, char** argv) { return gridstore::tools::Main(argc, argv); }
