// Copyright 2026 The GridStore Authors.
//
// `gridstore ingest --watch DIR --dataset-from PATTERN --dataset TEMPLATE`: imports GRIB files as
// they appear in a folder, each appended to the run its name belongs to
// (`gfs.t{run}z.pgrb2.0p25.f{step}` -> `gfs/{run}`). A file is taken once its size and time stay
// the same over one poll (it is not being written any more); the run records the files it holds
// (attribute `ingested_files`, written with their steps' completion), so a restart skips them.
#include <fcntl.h>
#include <malloc.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gridstore/forecast/collection.h"
#include "gridstore/importers/grib/grib_importer.h"
#include "gridstore/importers/import.h"
#include "gridstore/model/names.h"
#include "gridstore/storage/kv_store_factory.h"
#include "gridstore/util/internal/strings.h"
#include "tools/cli_parse.h"
#include "tools/commands/command.h"
#include "tools/commands/series_options.h"
#include "tools/text_escape.h"

namespace gridstore::tools {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kSourcesAttribute = "ingested_files";
// A field of a pattern is {NAME}.
constexpr char kFieldOpen = '{', kFieldClose = '}';

struct IngestArgs {
  std::string watch;
  std::string pattern;
  std::string dataset;
  std::optional<std::string> expected_steps;
  std::optional<std::string> interval;
  std::optional<std::string> type;
  std::optional<std::string> quarantine;  // default: WATCH/quarantine
  std::string collection;                 // --collection NAME (default: the files')
  std::optional<std::string> layouts;     // --layouts plane[,series]
  SeriesOptionArgs series;
  bool once = false;
};

// A file-name pattern: literal text and {name} fields (each matching one or more characters,
// as few as let the rest match).
struct NamePattern {
  struct Part {
    std::string literal;  // if field < 0
    int field = -1;       // index into fields
  };
  std::vector<Part> parts;
  std::vector<std::string> fields;
};

Result<NamePattern> CompilePattern(const std::string& pattern) {
  NamePattern p;
  for (size_t i = 0; i < pattern.size(); ++i) {
    const char c = pattern[i];
    if (c != kFieldOpen) {
      if (p.parts.empty() || p.parts.back().field >= 0) p.parts.push_back({});
      p.parts.back().literal += c;
      continue;
    }
    const size_t close = pattern.find(kFieldClose, i);
    const std::string name = close == std::string::npos ? "" : pattern.substr(i + 1, close - i - 1);
    constexpr std::string_view kWordChars =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";
    if (name.empty() || name.find_first_not_of(kWordChars) != std::string::npos) {
      return Status::InvalidArgument("--dataset-from " + Quote(pattern) +
                                     ": a field is {NAME} of letters, digits and _");
    }
    for (const std::string& f : p.fields) {
      if (f == name) {
        return Status::InvalidArgument("--dataset-from " + Quote(pattern) + ": field {" + name +
                                       "} appears twice");
      }
    }
    p.parts.push_back({"", static_cast<int>(p.fields.size())});
    p.fields.push_back(name);
    i = close;
  }
  return p;
}

// True if `text` matches parts[k...]; (*values)[f] gets what field f matched.
bool MatchFrom(const NamePattern& p, size_t k, std::string_view text,
               std::vector<std::string>* values) {
  if (k == p.parts.size()) return text.empty();
  const NamePattern::Part& part = p.parts[k];
  if (part.field < 0) {
    return text.starts_with(part.literal) &&
           MatchFrom(p, k + 1, text.substr(part.literal.size()), values);
  }
  for (size_t n = 1; n <= text.size(); ++n) {
    (*values)[size_t(part.field)] = std::string(text.substr(0, n));
    if (MatchFrom(p, k + 1, text.substr(n), values)) return true;
  }
  return false;
}

// The dataset id of `name` by `templ`, or nullopt if the name does not match.
Result<std::optional<std::string>> DatasetOf(const NamePattern& p, const std::string& templ,
                                             const std::string& name) {
  std::vector<std::string> values(p.fields.size());
  if (!MatchFrom(p, 0, name, &values)) return std::optional<std::string>();
  std::string id = templ;
  for (size_t f = 0; f < p.fields.size(); ++f) {
    const std::string key = kFieldOpen + p.fields[f] + kFieldClose;
    for (size_t at = id.find(key); at != std::string::npos; at = id.find(key, at)) {
      id.replace(at, key.size(), values[f]);
      at += values[f].size();
    }
  }
  GRIDSTORE_RETURN_IF_ERROR(grid::ValidateDataSetId(id).WithContext(
      "file " + Quote(name) + " makes dataset id " + Quote(id)));
  return std::optional<std::string>(id);
}

Status CheckTemplate(const NamePattern& p, const std::string& templ) {
  for (size_t at = templ.find(kFieldOpen); at != std::string::npos;
       at = templ.find(kFieldOpen, at + 1)) {
    const size_t close = templ.find(kFieldClose, at);
    const std::string name = templ.substr(at + 1, close == std::string::npos ? 0 : close - at - 1);
    bool known = false;
    for (const std::string& f : p.fields) known |= f == name;
    if (!known) {
      return Status::InvalidArgument("--dataset " + Quote(templ) + ": {" + name +
                                     "} is not a field of --dataset-from");
    }
  }
  return Status::OK();
}

std::atomic<bool> stop_requested{false};
extern "C" void RequestStop(int) { stop_requested = true; }

struct Seen {
  uintmax_t size = 0;
  fs::file_time_type mtime;
  bool settled = false;  // unchanged over one poll
  bool done = false;     // ingested, skipped as ingested, or failed (until it changes)
};

// One pass over the folder: the files ready to ingest, by dataset, in name order.
Result<std::map<std::string, std::vector<std::string>>> Poll(const IngestArgs& args,
                                                             const NamePattern& pattern,
                                                             std::map<std::string, Seen>* seen) {
  std::map<std::string, std::vector<std::string>> ready;
  std::error_code ec;
  std::set<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(args.watch, ec)) {
    if (e.is_regular_file(ec)) names.insert(e.path().filename().string());
  }
  if (ec) return Status::Unavailable("cannot list " + Quote(args.watch) + ": " + ec.message());
  for (const std::string& name : names) {
    GRIDSTORE_ASSIGN_OR_RETURN(std::optional<std::string> id,
                               DatasetOf(pattern, args.dataset, name));
    if (!id) continue;
    const fs::path path = fs::path(args.watch) / name;
    const uintmax_t size = fs::file_size(path, ec);
    const fs::file_time_type mtime = fs::last_write_time(path, ec);
    if (ec) continue;  // gone meanwhile
    Seen& s = (*seen)[name];
    if (s.size != size || s.mtime != mtime) {
      s = {size, mtime, args.once, false};  // new or changed: wait one poll (not with --once)
    } else {
      s.settled = true;
    }
    if (s.settled && !s.done) ready[*id].push_back(path.string());
  }
  return ready;
}

// Runs importers::CheckGribFile(path) in a child process: this very program started afresh
// (posix_spawn of /proc/self/exe with kGribCheckChildArgument), not a fork of this threaded one,
// whose copied locks (the allocator's, a sanitizer's) another thread may hold forever in the
// child. ecCodes aborts the process on some damaged messages that the structure check cannot
// see; in a child that costs the child, and the parent quarantines the file and goes on
// (issue 29, 1.2). The child's error comes back on its descriptor 3 with its status code.
Status CheckInChild(const std::string& path) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return Status::Unavailable(std::string("cannot make a pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], kGribCheckChildReplyFd);  // clears CLOEXEC
  std::string program = "gridstore";
  std::string flag = kGribCheckChildArgument;
  std::string file = path;
  char* argv[] = {program.data(), flag.data(), file.data(), nullptr};
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, "/proc/self/exe", &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  if (spawned != 0) {
    close(fds[0]);
    return Status::Unavailable(std::string("cannot start a process to check ") + Quote(path) +
                               ": " + std::strerror(spawned));
  }
  std::string reply;
  char buffer[4096];
  for (ssize_t n; (n = read(fds[0], buffer, sizeof(buffer))) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) break;
    reply.append(buffer, size_t(n));
  }
  close(fds[0]);
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(wstatus)) {
    return Status::DataLoss(Quote(path) + ": the GRIB library crashed reading it (" +
                            strsignal(WTERMSIG(wstatus)) + "): a corrupt message");
  }
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) return Status::OK();
  const size_t space = reply.find(' ');
  if (space == std::string::npos) {
    // A sanitizer's report or an abort that exited rather than died: the library failed on it.
    return Status::DataLoss(Quote(path) + ": the GRIB library failed reading it (exit status " +
                            std::to_string(WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1) +
                            "): a corrupt message");
  }
  return Status(StatusCode(std::atoi(reply.substr(0, space).c_str())), reply.substr(space + 1));
}

// Whether a failed file is at fault (and goes to quarantine) rather than the store or the
// system (and is tried again at the next poll... after it changes, or at the next start).
bool FileIsAtFault(const Status& s) {
  return s.code() == StatusCode::kDataLoss || s.code() == StatusCode::kInvalidArgument ||
         s.code() == StatusCode::kOutOfRange || s.code() == StatusCode::kUnimplemented;
}

// Moves `file` into the quarantine folder with a NAME.error beside it that says why: it is not
// tried again, even after a restart, and whoever looks finds the reason next to it.
void Quarantine(const std::string& file, const std::string& folder, const Status& why) {
  std::error_code ec;
  fs::create_directories(folder, ec);
  const fs::path target = fs::path(folder) / fs::path(file).filename();
  if (!ec) fs::rename(file, target, ec);
  if (ec) {
    std::fprintf(stderr,
                 "gridstore ingest: could not quarantine %s in %s (%s); it stays aside "
                 "until it changes or ingest restarts\n",
                 Quote(file).c_str(), Quote(folder).c_str(), ec.message().c_str());
    return;
  }
  std::ofstream(target.string() + ".error") << why.ToString() << "\n";
  std::fprintf(stderr, "gridstore ingest: quarantined %s in %s\n", Quote(file).c_str(),
               Quote(folder).c_str());
}

// The datasets of run `id`: itself, or an ensemble's members (id/m00, id/m01...; an import of
// an ensemble makes one dataset per member), found through the collection index that every
// import into a collection makes. Empty if there are none yet.
std::vector<std::string> RunDatasets(grid::GridStore* store, const std::string& id) {
  if (store->GetDataSetMeta(id).ok()) return {id};
  grid::QueryParams params;
  params.limit = -1;
  params.ids_only = true;
  auto found = store->QueryDataSets(
      forecast::kCollectionIndex,
      grid::QueryBuilder::Exists(std::string(forecast::kCollectionAttribute)), params);
  if (!found.ok()) return {};  // no collection index: no member of any run
  std::vector<std::string> ids;
  const std::string prefix = id + "/m";
  for (const std::string& one : found->ids) {
    if (one.size() > prefix.size() && one.starts_with(prefix) &&
        one.find_first_not_of("0123456789", prefix.size()) == std::string::npos) {
      ids.push_back(one);
    }
  }
  return ids;
}

// Appends one dataset's ready files, each on its own, skipping those the run already holds.
// Returns how many failed.
int IngestFiles(grid::GridStore* store, const std::string& id,
                const std::vector<std::string>& files, importers::ImportOptions options,
                const std::string& quarantine, std::map<std::string, Seen>* seen) {
  // The files the run holds: in its dataset, or in those of its ensemble members (id/m00...).
  std::set<std::string> held;
  for (const std::string& one : RunDatasets(store, id)) {
    if (auto meta = store->GetDataSetMeta(one); meta.ok()) {
      for (std::string& line :
           SplitList(grid::StringAttribute(meta->attributes, kSourcesAttribute), '\n')) {
        held.insert(std::move(line));
      }
    }
  }
  int failed = 0;
  options.dataset_id = id;
  for (const std::string& file : files) {
    const std::string name = fs::path(file).filename().string();
    (*seen)[name].done = true;
    if (held.count(name)) {
      std::printf("skipped %s: already in %s\n", EscapeBytes(name).c_str(), Quote(id).c_str());
      continue;
    }
    Status checked = CheckInChild(file);
    importers::SeriesOutcome series;
    Result<importers::ImportSummary> summary = checked;
    if (checked.ok()) {
      auto plan = importers::PlanImport({file}, options);
      summary = plan.ok() ? importers::RunImport(store, **plan, nullptr, &series, nullptr)
                          : plan.status();
    }
    if (!summary.ok()) {
      std::fprintf(stderr, "gridstore ingest: %s\n",
                   SanitizeMessage(summary.status().ToString(), false).c_str());
      if (FileIsAtFault(summary.status())) Quarantine(file, quarantine, summary.status());
      ++failed;
      continue;
    }
    for (const std::string& note : summary->notes) {
      std::fprintf(stderr, "note: %s\n", SanitizeMessage(note, false).c_str());
    }
    if (!series.status.ok()) {  // the planes are in: the next file's import tries again
      std::fprintf(stderr, "gridstore ingest: %s: the series layout: %s\n",
                   EscapeBytes(name).c_str(),
                   SanitizeMessage(series.status.ToString(), false).c_str());
    }
    const std::vector<std::string>& made = summary->datasets;
    const std::string into = made.size() <= 1
                                 ? Quote(summary->dataset_id)
                                 : std::to_string(made.size()) + " datasets (" +
                                       Quote(made.front()) + " ... " + Quote(made.back()) + ")";
    std::printf("ingested %s into %s: %ld plane(s); %ld of %ld step(s) complete, %s\n",
                EscapeBytes(name).c_str(), into.c_str(), static_cast<long>(summary->planes),
                static_cast<long>(summary->complete_steps), static_cast<long>(summary->steps),
                summary->status.c_str());
    std::fflush(stdout);
  }
  return failed;
}

Status RunIngest(const CommandContext& context, const IngestArgs& args) {
  GRIDSTORE_ASSIGN_OR_RETURN(NamePattern pattern, CompilePattern(args.pattern));
  GRIDSTORE_RETURN_IF_ERROR(CheckTemplate(pattern, args.dataset));
  importers::ImportOptions options;
  options.layout = importers::ImportLayoutFor(storage::IsDistributedUri(context.store()));
  options.append = true;
  options.sources_attribute = std::string(kSourcesAttribute);
  options.collection = args.collection;  // each file's run time is its own (dataDate/dataTime)
  if (args.expected_steps) {
    GRIDSTORE_ASSIGN_OR_RETURN(
        options.expected_steps,
        ParseIntegerFlag(*args.expected_steps, "--expected-steps", 1, int64_t{1} << 31));
  }
  GRIDSTORE_ASSIGN_OR_RETURN(options.series, ParseLayoutsOption(args.layouts, args.series));
  if (args.type) {
    if (*args.type != "float32" && *args.type != "float64") {
      return Status::InvalidArgument("--type must be float32 or float64, not " + Quote(*args.type));
    }
    options.type = *args.type == "float64" ? grid::DataType::kFloat64 : grid::DataType::kFloat32;
  }
  int64_t interval_ms = 2000;
  if (args.interval) {
    GRIDSTORE_ASSIGN_OR_RETURN(int64_t s, ParseIntegerFlag(*args.interval, "--interval", 1, 3600));
    interval_ms = s * 1000;
  }
  std::error_code ec;
  if (!fs::is_directory(args.watch, ec)) {
    return Status::NotFound("--watch " + Quote(args.watch) + " is not a folder");
  }
  const std::string quarantine =
      args.quarantine ? *args.quarantine : (fs::path(args.watch) / "quarantine").string();
  if (args.quarantine && args.quarantine->empty()) {
    return Status::InvalidArgument("--quarantine is empty: give a folder");
  }
  GRIDSTORE_ASSIGN_OR_RETURN(auto store, context.OpenStore({.create_if_missing = true}));
  // Planes of megabytes at a high rate: reused in the heap rather than mapped afresh (import.cc).
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  std::signal(SIGINT, RequestStop);
  std::signal(SIGTERM, RequestStop);
  std::map<std::string, Seen> seen;
  int failed = 0;
  while (!stop_requested) {
    GRIDSTORE_ASSIGN_OR_RETURN(auto ready, Poll(args, pattern, &seen));
    for (const auto& [id, files] : ready) {
      if (stop_requested) break;
      failed += IngestFiles(store.get(), id, files, options, quarantine, &seen);
    }
    GRIDSTORE_RETURN_IF_ERROR(Settle(store.get()));
    if (args.once) break;
    for (int64_t waited = 0; waited < interval_ms && !stop_requested; waited += 100) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  if (failed > 0) {
    return Status::FailedPrecondition(std::to_string(failed) + " file(s) could not be ingested");
  }
  return Status::OK();
}

}  // namespace

int RunGribCheckChild(const char* path) {
  // ingest only hands over regular files; anyone else gets a sentence, not a read of a device.
  std::error_code ec;
  const Status s = fs::exists(path, ec) && !fs::is_regular_file(path, ec)
                       ? Status::InvalidArgument(Quote(path) + " is not a regular file")
                       : importers::CheckGribFile(path);
  if (!s.ok()) {
    const std::string text = std::to_string(int(s.code())) + " " + std::string(s.message());
    const ssize_t written = write(kGribCheckChildReplyFd, text.data(), text.size());
    (void)written;  // the parent reads what arrived; nothing else to do about a short write
  }
  return s.ok() ? 0 : 1;
}

Command RegisterIngest(CLI::App& parent, const CommandContext& context) {
  auto args = std::make_shared<IngestArgs>();
  CLI::App* app = parent.add_subcommand(
      "ingest", "Import GRIB files as they appear in a folder, each appended to its run");
  app->add_option("--watch", args->watch, "The folder to watch (not its subfolders)")
      ->required()
      ->type_name("DIR");
  app->add_option("--dataset-from", args->pattern,
                  "File names to take, with {FIELD}s: gfs.t{run}z.pgrb2.0p25.f{step}")
      ->required()
      ->type_name("PATTERN");
  app->add_option("--dataset", args->dataset, "The run's dataset id, from the fields: gfs/{run}")
      ->required()
      ->type_name("TEMPLATE");
  AddOptionalString(app, "--expected-steps", &args->expected_steps,
                    "Mark a run DONE once N steps are complete for every variable")
      ->type_name("N");
  AddOptionalString(app, "--interval", &args->interval, "Seconds between polls (default 2)")
      ->type_name("S");
  AddOptionalString(app, "--type", &args->type, "Store values as float32 (default) or float64")
      ->type_name("float32|float64");
  AddOptionalString(app, "--quarantine", &args->quarantine,
                    "Where files that cannot be read go, each with NAME.error saying why "
                    "(default: a folder quarantine in the watched one)")
      ->type_name("DIR");
  app->add_option("--collection", args->collection,
                  "Forecast collection of the runs, e.g. ecmf/ens (default: the files' "
                  "centre/kind)")
      ->type_name("NAME");
  AddLayoutsOption(app, &args->layouts, &args->series);
  app->add_flag("--once", args->once,
                "Ingest the files there now and exit (for cron); exit status 1 if any failed");
  return {app, Done([&context, args] { return RunIngest(context, *args); })};
}

}  // namespace gridstore::tools
