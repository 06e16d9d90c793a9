// Copyright 2026 The GridStore Authors.
//
// The `gridstore` command: argument parsing (CLI11) and thin commands over library functions. The
// names and options are a contract (DESIGN.md, "The gridstore command"). Exit status: 0 success,
// 1 error (one sentence on stderr), 2 usage error, 3 `verify` found problems. Every option is
// checked before a store is opened or created, so that a bad option leaves nothing behind; no
// exception leaves main (one sentence and exit status 1 instead).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <limits>
#include <new>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "gridstore/grid/names.h"
#include "gridstore/util/internal/utf8.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/grid_verify.h"
#include "gridstore/grid/query_parser.h"
#include "gridstore/importers/netcdf_exporter.h"
#include "gridstore/importers/netcdf_importer.h"
#include "tools/cli_parse.h"
#include "tools/info_format.h"
#include "tools/meta_commands.h"
#include "tools/output_file.h"
#include "tools/output_formats.h"
#include "tools/progress.h"
#include "tools/text_escape.h"

namespace gridstore::tools {
namespace {

using grid::GridStore;
using grid::GridStoreOptions;

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitProblemsFound = 3;

// --threads: more than this is surely a typo, and each thread costs a stack.
constexpr int64_t kMaxThreads = 1024;
// --frame-rows, as DataSetMeta::Validate allows.
constexpr int64_t kMaxFrameRows = int64_t{1} << 20;

// Options shared by every command.
struct Global {
  std::string store;
};

// One sentence on stderr. Messages quote ids, names and paths, which may hold any bytes: none
// reaches the terminal raw. Only a --where error keeps its newlines (the caret lines).
int Fail(const Status& status, bool multiline = false) {
  std::fprintf(stderr, "gridstore: %s\n", SanitizeMessage(status.message(), multiline).c_str());
  return kExitError;
}

void Warn(const std::string& text) {
  std::fprintf(stderr, "gridstore: warning: %s\n", SanitizeMessage(text, false).c_str());
}

std::string Quoted(std::string_view bytes) { return "'" + EscapeBytes(bytes) + "'"; }

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
  std::optional<std::string> variables;
  std::vector<std::string> attrs;
  std::string block = "256x256";
  std::string codec = "shuffle-zstd:3";
  std::optional<std::string> frame_rows;
  std::optional<std::string> threads;
  bool overwrite = false;
};

int RunImport(const Global& global, const ImportArgs& args) {
  // Every option first, then the file, then the layout as a whole: only then the store, so that a
  // mistake anywhere leaves no store (or no empty one) behind.
  Status id = grid::ValidateDataSetId(args.dataset);
  if (!id.ok()) return Fail(id.WithContext("--dataset"));
  importers::NetCdfImportOptions options;
  options.dataset_id = args.dataset;
  if (args.variables) {
    auto names = ParseNameList(*args.variables, "--variables");
    if (!names.ok()) return Fail(names.status());
    options.variables = *names;
  }
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
  if (args.frame_rows) {
    auto rows = ParseIntegerFlag(*args.frame_rows, "--frame-rows", 0, kMaxFrameRows);
    if (!rows.ok()) return Fail(rows.status());
    options.layout.frame_rows = *rows;
  }
  int threads = 0;  // one per core
  if (args.threads) {
    auto n = ParseIntegerFlag(*args.threads, "--threads", 1, kMaxThreads);
    if (!n.ok()) return Fail(n.status());
    threads = static_cast<int>(*n);
  }

  auto meta = importers::ReadNetCdfMeta(args.file, options);
  if (!meta.ok()) return Fail(meta.status());
  Status valid = meta->Validate();
  if (!valid.ok()) return Fail(valid.WithContext("importing " + Quoted(args.file)));
  auto store = OpenStore(global, {.create_if_missing = true, .threads = threads});
  if (!store.ok()) return Fail(store.status());

  ProgressReporter progress(stderr, isatty(STDERR_FILENO));
  options.on_progress = [&](const importers::ImportProgress& p) {
    progress.Update(p.bytes_done, p.bytes_total, EscapeBytes(p.variable));
  };
  auto summary = importers::ImportNetCdf(store->get(), args.file, options);
  progress.Finish();
  if (!summary.ok()) return Fail(summary.status());
  if (Status s = Settle(store->get()); !s.ok()) return Fail(s);
  for (const auto& note : summary->notes) {
    std::fprintf(stderr, "note: %s\n", SanitizeMessage(note, false).c_str());
  }
  const double mb = static_cast<double>(summary->raw_bytes) / 1e6;
  std::printf(
      "imported %s from %s: %d variable(s), %ld plane(s), %s raw, %s stored, compression "
      "ratio %.2f, %.2f s, %.1f MB/s\n",
      Quoted(summary->dataset_id).c_str(), EscapeBytes(args.file).c_str(), summary->variables,
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
  std::optional<std::string> where;
  std::optional<std::string> sort;
  std::string index;
  std::optional<std::string> offset;
  std::optional<std::string> limit;
  bool json = false;
};

std::string IndexNames(const std::vector<grid::MetaIndexInfo>& indexes) {
  std::string names;
  for (const auto& i : indexes) names += (names.empty() ? "" : ", ") + Quoted(i.name);
  return names;
}

int RunQuery(const Global& global, const QueryArgs& args) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  grid::QueryParams params;
  params.offset = 0;
  params.limit = -1;  // all
  if (args.offset) {
    auto n = ParseIntegerFlag(*args.offset, "--offset", 0, kMax);
    if (!n.ok()) return Fail(n.status());
    params.offset = *n;
  }
  if (args.limit) {
    auto n = ParseIntegerFlag(*args.limit, "--limit", 0, kMax);
    if (!n.ok()) return Fail(n.status());
    params.limit = *n;
  }
  grid::Query query;  // every dataset
  if (args.where) {
    auto parsed = grid::ParseQuery(*args.where);
    if (!parsed.ok()) return Fail(parsed.status().WithContext("--where"), /*multiline=*/true);
    query = *parsed;
  }
  if (args.sort && args.sort->empty()) {
    return Fail(Status::InvalidArgument("--sort is empty; name a field, or leave the option out"));
  }
  auto sort = ParseSort(args.sort.value_or(""));
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
          "no index named " + Quoted(index) + " in this store" +
          (indexes->empty()
               ? std::string(" (it has none; create one with `gridstore index create`)")
               : " (it has " + IndexNames(*indexes) + ")")));
    }
  }

  params.sort = *sort;
  params.get_total_count = true;
  // Without --index the library chooses one; result->index says which.
  auto result = index.empty() ? (*store)->QueryDataSets(query, params)
                              : (*store)->QueryDataSets(index, query, params);
  if (!result.ok()) return Fail(result.status());
  index = result->index;
  const grid::MetaIndexSchema* schema = nullptr;
  for (const auto& i : *indexes) {
    if (i.name == index) schema = &i.schema;
  }
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
      note = "index " + Quoted(index) + " does not cover " + uncovered;
    }
    std::fprintf(stderr, "(scanned: %s)\n", SanitizeMessage(note, false).c_str());
  }
  return 0;
}

// ---- index / meta -------------------------------------------------------------------------------

int RunIndexCreate(const Global& global, const std::string& name,
                   const std::vector<std::string>& field_args) {
  // Checked here, not only by the library, so that a bad name creates no store.
  Status valid = grid::ValidateIndexName(name);
  if (!valid.ok()) return Fail(valid);
  grid::MetaIndexSchema schema;
  std::set<std::string, std::less<>> names;
  for (const std::string& arg : field_args) {
    auto field = ParseIndexField(arg);
    if (!field.ok()) return Fail(field.status());
    valid = grid::ValidateIndexFieldName(field->name);
    if (!valid.ok()) return Fail(valid.WithContext("index field " + Quoted(arg)));
    if (!names.insert(field->name).second) {
      return Fail(
          Status::InvalidArgument("index field " + Quoted(field->name) + " is given twice"));
    }
    schema.fields.push_back(*field);
  }
  auto store = OpenStore(global, {.create_if_missing = true});
  if (!store.ok()) return Fail(store.status());
  Status s = (*store)->CreateMetaIndex(name, schema);
  if (s.ok()) s = Settle(store->get());
  if (!s.ok()) return Fail(s);
  std::printf("created index %s: %s\n", Quoted(name).c_str(), FormatIndexSchema(schema).c_str());
  return 0;
}

int RunIndexList(const Global& global) {
  auto store = OpenStore(global, {.read_only = true});
  if (!store.ok()) return Fail(store.status());
  auto indexes = (*store)->ListMetaIndexes();
  if (!indexes.ok()) return Fail(indexes.status());
  for (const auto& i : *indexes) {
    std::printf("%s  %s\n", EscapeBytes(i.name).c_str(), FormatIndexSchema(i.schema).c_str());
  }
  return 0;
}

int RunIndexDrop(const Global& global, const std::string& name) {
  auto store = OpenStore(global, {});
  if (!store.ok()) return Fail(store.status());
  Status s = (*store)->DropMetaIndex(name);
  if (s.ok()) s = Settle(store->get());
  if (!s.ok()) return Fail(s);
  std::printf("dropped index %s\n", Quoted(name).c_str());
  return 0;
}

// The whole of `file` ("" or "-": stdin). Errors name the file and the system's reason.
Result<std::string> ReadInput(const std::string& file) {
  const bool stdin_input = file.empty() || file == "-";
  const std::string shown = stdin_input ? "standard input" : Quoted(file);
  int fd = STDIN_FILENO;
  if (!stdin_input) {
    fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      const int err = errno;
      const std::string why = std::strerror(err);
      if (err == ENOENT) return Status::NotFound("cannot open " + shown + ": no such file");
      return Status::FailedPrecondition("cannot open " + shown + ": " + why);
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
      ::close(fd);
      return Status::InvalidArgument("cannot read " + shown + ": it is a directory");
    }
  }
  std::string input;
  char buf[1 << 16];
  Status s;
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      s = Status::FailedPrecondition("cannot read " + shown + ": " + std::strerror(errno));
      break;
    }
    if (n == 0) break;
    input.append(buf, static_cast<size_t>(n));
  }
  if (!stdin_input) ::close(fd);
  if (!s.ok()) return s;
  return input;
}

int RunMetaPut(const Global& global, const std::string& file) {
  auto read = ReadInput(file);
  if (!read.ok()) return Fail(read.status());
  const std::string& input = *read;
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
  std::printf("deleted %s\n", Quoted(id).c_str());
  return 0;
}

int RunVerify(const Global& global, const std::string& id) {
  auto store = OpenStore(global, {.read_only = true});
  if (!store.ok()) return Fail(store.status());
  auto report = (*store)->Verify(id);
  if (!report.ok()) return Fail(report.status());
  for (const auto& p : report->problems) {
    if (p.dataset.empty()) {
      std::printf("CORRUPT store: %s\n", SanitizeMessage(p.message, false).c_str());
    } else {
      std::printf("CORRUPT dataset %s: %s\n", Quoted(p.dataset).c_str(),
                  SanitizeMessage(p.message, false).c_str());
    }
  }
  int64_t orphan_blocks = 0;
  uint64_t orphan_bytes = 0;
  for (const auto& o : report->orphans) {
    std::printf("ORPHAN dataset %s incarnation %016llx: %ld block(s), %s: %s\n",
                Quoted(o.dataset).c_str(), static_cast<unsigned long long>(o.incarnation),
                static_cast<long>(o.blocks), HumanBytes(static_cast<double>(o.bytes)).c_str(),
                o.reason.c_str());
    orphan_blocks += o.blocks;
    orphan_bytes += o.bytes;
  }
  std::string extra;
  if (report->datasets_not_done > 0) {
    extra += ", " + std::to_string(report->datasets_not_done) + " dataset(s) not DONE";
  }
  if (report->replacements_in_progress > 0) {
    extra +=
        ", " + std::to_string(report->replacements_in_progress) + " replacement(s) being written";
  }
  if (!report->orphans.empty()) {
    extra += ", " + std::to_string(orphan_blocks) + " orphan block(s) (" +
             HumanBytes(static_cast<double>(orphan_bytes)) +
             ") left by interrupted writes: `gridstore compact` removes them";
  }
  std::printf("verified %ld dataset(s), %ld block(s), %s: %zu problem(s)%s\n",
              static_cast<long>(report->datasets), static_cast<long>(report->blocks),
              HumanBytes(static_cast<double>(report->bytes_read)).c_str(), report->problems.size(),
              extra.c_str());
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
  std::optional<std::string> variables;
  std::string origin;
  std::string shape;
  bool unpack = false;
  bool allow_incomplete = false;
  std::string format;
  std::optional<std::string> output;
  bool explain = false;
};

// The format from --format, else from the output file's extension, else csv.
Result<std::string> ChooseFormat(const FetchArgs& args) {
  std::string format = args.format;
  const std::string output = args.output.value_or("");
  if (format.empty() && !output.empty() && output != "-") {
    format = std::filesystem::path(output).extension().string();
    if (!format.empty()) format.erase(0, 1);
  }
  if (format.empty()) format = "csv";
  if (format != "nc" && format != "npy" && format != "csv" && format != "json") {
    return Status::InvalidArgument("unknown output format " + Quoted(format) +
                                   " (expected nc, npy, csv or json)");
  }
  return format;
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
      return Status::OutOfRange("--origin " + Quoted(origin_text) + ": variable " +
                                Quoted(first.name) + ", axis " + axis + ": origin " +
                                std::to_string(origin[a]) + " is beyond the extent " +
                                std::to_string(first.shape[a]) + " (the largest origin is " +
                                std::to_string(first.shape[a] - 1) + ")");
    }
    // A negative origin gives a shape beyond the extent; the library names the origin then.
    shape[a] = first.shape[a] - origin[a];
  }
  return shape;
}

int RunFetch(const Global& global, const FetchArgs& args) {
  // Every argument is checked before the store is opened and the output touched.
  auto format = ChooseFormat(args);
  if (!format.ok()) return Fail(format.status());
  if (args.output && args.output->empty()) {
    return Fail(Status::InvalidArgument("-o is empty; give a file name, or - for standard output"));
  }
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
  std::vector<std::string> variables;
  if (args.variables) {
    auto names = ParseNameList(*args.variables, "--variables");
    if (!names.ok()) return Fail(names.status());
    variables = *names;
  }

  // The output is opened first: a bad path fails fast, before any reading, and nothing there
  // changes unless the whole output is written (tools/output_file.h). First also because then
  // every descriptor /proc/self/fd/N can name is one the command inherited, never one the store
  // opened.
  std::unique_ptr<OutputFile> out;
  if (!args.explain) {
    auto opened = OutputFile::Open(
        args.output.value_or("-"),
        *format == "nc" ? OutputFile::WriterKind::kPath : OutputFile::WriterKind::kStream);
    if (!opened.ok()) return Fail(opened.status());
    out = std::move(opened).value();
  }
  auto store = OpenStore(global, {.read_only = true});
  if (!store.ok()) return Fail(store.status());
  auto fetcher_or = (*store)->GetDataFetcher(args.id);
  if (!fetcher_or.ok()) return Fail(fetcher_or.status());
  grid::GridDataFetcher& fetcher = **fetcher_or;
  const grid::DataSetMeta& meta = fetcher.meta();
  fetcher.SetVariablesToGet(variables);
  if (origin || shape) {
    // A missing --origin starts at 0; a missing --shape runs to the end of the first variable.
    const grid::Shape4 o = origin.value_or(grid::Shape4{0, 0, 0, 0});
    const grid::VariableMeta* first = nullptr;
    if (!variables.empty()) {
      first = meta.FindVariable(variables[0]);
    } else if (!meta.variables.empty()) {
      first = &meta.variables[0];
    }
    if (shape) {
      fetcher.SetOriginShape(o, *shape);
    } else if (first != nullptr) {
      auto s = ShapeToEnd(*first, o, args.origin);
      if (!s.ok()) return Fail(s.status());
      fetcher.SetOriginShape(o, *s);
    }
    // Else an unknown variable or a dataset without any: Explain below says which.
  }
  fetcher.set_options({.unpack = args.unpack, .allow_incomplete = args.allow_incomplete});
  // Explain checks the whole request (variables, box) without reading a block.
  auto plan = fetcher.Explain();
  if (!plan.ok()) return Fail(plan.status());
  if (args.allow_incomplete && meta.status() != grid::kStatusDone) {
    Warn("dataset " + Quoted(meta.id) + " is not complete (status " +
         (meta.status().empty() ? std::string("unset") : Quoted(meta.status())) +
         "); blocks not yet written read as fill values");
  }
  if (args.explain) {
    std::fputs(PlanText(*plan).c_str(), stdout);
    return 0;
  }
  if (*format == "npy" && plan->variables.size() != 1) {
    return Fail(Status::InvalidArgument("npy output holds one variable; name it with --variables"));
  }

  auto result = fetcher.Fetch();
  if (!result.ok()) return Fail(result.status());  // `out` is abandoned: the file is untouched
  Status s;
  if (*format == "nc") {
    s = importers::WriteNetCdf(out->writer_path(), meta, *result, {.unpacked = args.unpack});
    if (!s.ok()) {
      s = Status(s.code(), "writing the netCDF output for " + out->display_name() +
                               " failed: " + std::string(s.message()));
      out->Abort();
      return Fail(s);
    }
  } else if (*format == "npy") {
    s = WriteNpy(result->variables.begin()->second, out->stream());
  } else if (*format == "csv") {
    s = WriteCsv(meta, *result, out->stream());
  } else {
    s = WriteJson(meta, *result, out->stream());
  }
  if (!s.ok()) {
    // A writer that stopped at a failed write cannot know why; the output knows (errno).
    Status io = out->WriteError();
    return Fail(io.ok() ? s : io);
  }
  s = out->Commit();
  return s.ok() ? 0 : Fail(s);
}

int Main(int argc, char** argv) {
  CLI::App app{"GridStore: store gridded meteorological data and fetch any slice of it fast."};
  app.name("gridstore");
  app.require_subcommand(1);
  app.footer(
      "An ID that begins with '-' goes after `--`, which ends the options: gridstore info -- -x\n"
      "(or --dataset=-x for import). Manual: docs/usage.md.");
  // One line, like every other error (CLI11's default adds a second one).
  app.failure_message([](const CLI::App* failed, const CLI::Error& e) {
    std::string what = SanitizeMessage(e.what(), false);
    const std::vector<std::string> rest = failed->remaining();
    if (e.get_name() == "RequiredError" && failed->get_subcommands().empty() && !rest.empty()) {
      what = "unknown command " + Quoted(rest.front()) +
             " (the commands: import, info, query, fetch, delete, verify, index, meta)";
    } else if (e.get_name() == "ExtrasError" ||
               (e.get_name() == "RequiredError" && what.find("ID") != std::string::npos)) {
      what += "; an ID that begins with '-' goes after `--`: gridstore info -- -x";
    }
    return "gridstore: " + what + " (usage: gridstore --help)\n";
  });
  Global global;
  const char* env_store = std::getenv("GRIDSTORE_STORE");
  global.store = env_store && *env_store ? env_store : "./gridstore-data";
  app.add_option("--store", global.store,
                 "Store URI: a directory (RocksDB), memory://, or "
                 "rados://POOL?conf=PATH[&id=CLIENT][&namespace=NS] (Ceph); default "
                 "$GRIDSTORE_STORE, else "
                 "./gridstore-data");

  // Options whose absence matters are read into strings here and copied to the std::optional
  // fields after parsing, when their count() tells whether they were given.
  std::string variables_text, frame_rows_text, threads_text;
  ImportArgs import_args;
  auto* import = app.add_subcommand("import", "Import a NetCDF file as a dataset");
  import->add_option("FILE", import_args.file, "NetCDF file (classic, 64-bit offset, netCDF-4)")
      ->required();
  import->add_option("--dataset", import_args.dataset, "Dataset id")->required();
  auto* import_variables =
      import->add_option("--variables", variables_text, "Variables to import: A,B (default all)");
  import->add_option("--attr", import_args.attrs, "Dataset attribute KEY=VALUE (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  import->add_option("--block", import_args.block, "Block shape XxY (default 256x256)");
  import->add_option("--codec", import_args.codec,
                     "none, zstd or shuffle-zstd, optionally :LEVEL (default shuffle-zstd:3)");
  auto* import_frame_rows =
      import->add_option("--frame-rows", frame_rows_text,
                         "Rows (along x) per independently compressed frame of a block; 0 for one "
                         "frame (default " +
                             std::to_string(importers::kDefaultImportFrameRows) + ")");
  auto* import_threads = import->add_option(
      "--threads", threads_text,
      "Compression threads, 1 to " + std::to_string(kMaxThreads) + " (default: one per core)");
  import->add_flag("--overwrite", import_args.overwrite, "Replace an existing dataset completely");

  std::string info_id;
  bool info_json = false;
  auto* info = app.add_subcommand("info", "Describe a dataset");
  info->add_option("ID", info_id, "Dataset id")->required();
  info->add_flag("--json", info_json, "Print JSON");

  QueryArgs query_args;
  std::string where_text, sort_text, offset_text, limit_text;
  auto* query = app.add_subcommand("query", "Find datasets by their attributes");
  auto* where = query->add_option(
      "--where", where_text,
      "Condition on attributes: status = 'DONE' and create_time > now - 1 day and "
      "(source = 'ECMWF' or source in ('NMC'))");
  auto* sort = query->add_option("--sort", sort_text, "FIELD[:asc|:desc],... (ties break on id)");
  query->add_option("--index", query_args.index,
                    "Meta index to use (default: the only one, else the one covering most fields)");
  auto* offset = query->add_option("--offset", offset_text, "Datasets to skip (default 0)");
  auto* limit = query->add_option("--limit", limit_text, "Most datasets to print (default: all)");
  query->add_flag("--json", query_args.json, "Print JSON");

  FetchArgs fetch_args;
  std::string fetch_variables_text, output_text;
  auto* fetch = app.add_subcommand("fetch", "Fetch a slice of a dataset");
  fetch->add_option("ID", fetch_args.id, "Dataset id")->required();
  auto* fetch_variables =
      fetch->add_option("--variables", fetch_variables_text, "Variables: A,B (default all)");
  fetch->add_option("--origin", fetch_args.origin, "Origin T,Z,X,Y (default 0,0,0,0)");
  fetch->add_option("--shape", fetch_args.shape, "Shape T,Z,X,Y (default: to the end)");
  fetch->add_flag("--unpack", fetch_args.unpack, "Apply scale/offset; fill values become NaN");
  fetch->add_flag("--allow-incomplete", fetch_args.allow_incomplete,
                  "Read a dataset that is not DONE (unwritten blocks read as fill values)");
  fetch->add_option("--format", fetch_args.format,
                    "nc, npy, csv or json (default: from -o, else csv)");
  auto* output = fetch->add_option(
      "-o,--output", output_text,
      "Output: a file (replaced only once completely written), a FIFO or device (streamed), or - "
      "for stdout (the default)");
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
  auto given = [](const CLI::Option* o, const std::string& text) {
    return o->count() > 0 ? std::optional<std::string>(text) : std::nullopt;
  };
  import_args.variables = given(import_variables, variables_text);
  import_args.frame_rows = given(import_frame_rows, frame_rows_text);
  import_args.threads = given(import_threads, threads_text);
  query_args.where = given(where, where_text);
  query_args.sort = given(sort, sort_text);
  query_args.offset = given(offset, offset_text);
  query_args.limit = given(limit, limit_text);
  fetch_args.variables = given(fetch_variables, fetch_variables_text);
  fetch_args.output = given(output, output_text);
  if (*import) return RunImport(global, import_args);
  if (*info) return RunInfo(global, info_id, info_json);
  if (*query) return RunQuery(global, query_args);
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

// No exception leaves a command as a crash: the library returns Status, but the standard library
// and the dependencies may still throw (thread creation, allocation). Destructors run on the way
// here, so an output's temporary folder is removed.
int main(int argc, char** argv) {
  try {
    return gridstore::tools::Main(argc, argv);
  } catch (const std::bad_alloc&) {
    std::fputs("gridstore: out of memory\n", stderr);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "gridstore: unexpected error: %s\n",
                 gridstore::tools::SanitizeMessage(e.what(), false).c_str());
  } catch (...) {
    std::fputs("gridstore: unexpected error of an unknown kind\n", stderr);
  }
  return 1;
}
