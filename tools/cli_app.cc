// Copyright 2026 The GridStore Authors.
#include "tools/cli_app.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <tuple>
#include <vector>

#include "gridstore/features.h"
#include "gridstore/util/internal/strings.h"
#include "gridstore/version.h"
#include "tools/text_escape.h"

namespace gridstore::tools {
namespace {

// "gridstore 0.2.0" and, on a second line, the build features (cmake/GridStoreFeatures.cmake):
// "features: rados grib geo server", the ones left out named with what turned them off.
std::string VersionText() {
  std::string with, without;
  for (const auto& [name, on, option] :
       {std::tuple{"rados", GRIDSTORE_HAVE_RADOS, "GRIDSTORE_WITH_RADOS"},
        std::tuple{"grib", GRIDSTORE_HAVE_GRIB, "GRIDSTORE_WITH_GRIB"},
        std::tuple{"geo", GRIDSTORE_HAVE_GEO, "GRIDSTORE_WITH_GEO"},
        std::tuple{"server", GRIDSTORE_HAVE_SERVER, "GRIDSTORE_WITH_SERVER"}}) {
    std::string& to = on ? with : without;
    to += (to.empty() ? "" : " ") + std::string(name);
    if (!on) to += std::string(" (") + option + "=OFF)";
  }
  std::string text = std::string("gridstore ") + kVersion + "\nfeatures: " + with;
  if (!without.empty()) text += "; without: " + without;
  return text;
}

constexpr char kStoreHelp[] =
    "Store URI: a directory (RocksDB), memory://, or "
    "rados://POOL?conf=PATH[&id=CLIENT][&namespace=NS] (Ceph); default $GRIDSTORE_STORE, else "
    "./gridstore-data. May also follow the command";

// "gridstore index create": the words that select `app`.
std::string CommandPath(const CLI::App* app) {
  std::string path;
  for (const CLI::App* a = app; a != nullptr; a = a->get_parent()) {
    path = path.empty() ? a->get_name() : a->get_name() + " " + path;
  }
  return path;
}

// The last command the parse selected (the whole app if none).
const CLI::App* DeepestSelected(const CLI::App* app) {
  while (!app->get_subcommands().empty()) app = app->get_subcommands().back();
  return app;
}

// A usage error that is no command at all, or an unknown one: say which, and list the commands.
// Empty if `e` is another kind of usage error.
std::string MissingCommandMessage(const CLI::App* top, const CLI::Error& e) {
  const CLI::App* app = DeepestSelected(top);
  if (dynamic_cast<const CLI::RequiredError*>(&e) == nullptr ||
      app->get_require_subcommand_min() == 0 || !app->get_subcommands().empty()) {
    return "";
  }
  const std::string names = Join(app->get_subcommands([](const CLI::App*) { return true; }), ", ",
                                 [](const CLI::App* c) { return c->get_name(); });
  std::vector<std::string> rest = app->remaining();
  if (rest.empty()) rest = top->remaining(/*recurse=*/true);
  if (!rest.empty() && rest.front().size() > 1 && rest.front()[0] == '-') {
    return "unknown option " + Quote(rest.front());
  }
  // "index create": the words of the command path after "gridstore".
  const std::string group = app == top ? "" : CommandPath(app).substr(top->get_name().size() + 1);
  const std::string list = " (" + (group.empty() ? "" : group + " ") + "commands: " + names + ")";
  if (rest.empty()) {
    return "no command given" + (group.empty() ? "" : " after '" + group + "'") + list;
  }
  return "unknown command " + Quote(group.empty() ? rest.front() : group + " " + rest.front()) +
         list;
}

// The option-like word among the arguments the parse left over, if any.
std::string UnknownOption(const CLI::App* top) {
  for (const std::string& arg : top->remaining(/*recurse=*/true)) {
    if (arg.size() > 1 && arg[0] == '-') return arg;
  }
  return "";
}

bool TakesAnId(const CLI::App* command) {
  const auto ids = command->get_options(
      [](const CLI::Option* o) { return o->get_positional() && o->get_name() == "ID"; });
  return !ids.empty();
}

// Levenshtein distance, for "did you mean".
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The command's long option nearest `given` ("--piont" -> "--point"), or "" if none is close
// (at most 2 edits, and fewer than half the name).
std::string NearestOption(const CLI::App* command, const std::string& given) {
  std::string best;
  size_t best_distance = 3;
  const std::string name = given.substr(0, given.find('='));
  for (const CLI::Option* o : command->get_options()) {
    for (const std::string& l : o->get_lnames()) {
      const std::string candidate = "--" + l;
      const size_t d = EditDistance(name, candidate);
      if (d < best_distance && d * 2 < candidate.size()) best = candidate, best_distance = d;
    }
  }
  return best;
}

// One line, like every other error (CLI11's default adds a second one).
std::string FailureMessage(const CLI::App* top, const CLI::Error& e) {
  const CLI::App* command = DeepestSelected(top);
  std::string what = MissingCommandMessage(top, e);
  if (what.empty()) what = SanitizeMessage(e.what(), false);
  constexpr char kDashId[] = "; an ID that begins with '-' goes after `--`: ";
  // (CLI11 names an ExtrasError after the command, so its type tells what it is.)
  const std::string option = UnknownOption(top);
  if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr && !option.empty()) {
    what = "unknown option " + Quote(option);
    const std::vector<std::string> own = command->remaining();  // given after the command
    if (const std::string near = NearestOption(command, option); !near.empty()) {
      what += " (did you mean " + near + "?)";
    } else if (TakesAnId(command) && std::find(own.begin(), own.end(), option) != own.end()) {
      what += kDashId + CommandPath(command) + " -- " + EscapeBytes(option);
    }
  } else if (dynamic_cast<const CLI::RequiredError*>(&e) != nullptr &&
             what.find("ID") != std::string::npos) {
    what += std::string(kDashId) + "gridstore info -- -x";
  }
  return "gridstore: " + what + " (usage: " + CommandPath(command) + " --help)\n";
}

void PrintUsageError(const std::string& what) {
  std::fprintf(stderr, "gridstore: %s (usage: gridstore --help)\n",
               SanitizeMessage(what, false).c_str());
}

// A --where syntax error (grid::ParseQuery, with context "--where") adds the expression and a caret
// under the column on lines of their own, already made printable: those newlines stay.
bool KeepsItsLines(const Status& status) {
  return status.IsInvalidArgument() && status.message().starts_with("--where: column ");
}

void PrintUnexpected(const char* what) noexcept {
  try {
    std::fprintf(stderr, "gridstore: unexpected error: %s\n", SanitizeMessage(what, false).c_str());
  } catch (...) {
    std::fputs("gridstore: unexpected error\n", stderr);
  }
}

}  // namespace

CliApp::CliApp() : app_(std::make_unique<CLI::App>()) {
  app_->description("GridStore: store gridded meteorological data and fetch any slice of it fast.");
  app_->name("gridstore");
  app_->require_subcommand(1);
  app_->footer(
      "An ID that begins with '-' goes after `--`, which ends the options: gridstore info -- -x\n"
      "(or --dataset=-x for import). Manual: docs/usage.md.");
  app_->failure_message(FailureMessage);
  app_->set_version_flag("--version", VersionText(), "Print the version and exit");
  const char* env_store = std::getenv("GRIDSTORE_STORE");
  default_store_ = env_store != nullptr && *env_store != '\0' ? env_store : kDefaultStore;

  commands_.push_back(RegisterImport(*app_, context_));
  commands_.push_back(RegisterIngest(*app_, context_));
  commands_.push_back(RegisterInfo(*app_, context_));
  commands_.push_back(RegisterQuery(*app_, context_));
  commands_.push_back(RegisterFetch(*app_, context_));
  commands_.push_back(RegisterExtract(*app_, context_));
  commands_.push_back(RegisterCollections(*app_, context_));
  commands_.push_back(RegisterServe(*app_, context_));
  for (Command& c : RegisterIndex(*app_, context_)) commands_.push_back(std::move(c));
  commands_.push_back(RegisterMeta(*app_, context_));
  commands_.push_back(RegisterDelete(*app_, context_));
  commands_.push_back(RegisterVerify(*app_, context_));
  commands_.push_back(RegisterCompact(*app_, context_));
  commands_.push_back(RegisterRelayout(*app_, context_));
  commands_.push_back(RegisterRetention(*app_, context_));
  AddStoreOptions(app_.get());
}

CliApp::~CliApp() = default;

void CliApp::AddStoreOptions(CLI::App* app) {
  app->add_option_function<std::string>(
         "--store", [this](const std::string& uri) { stores_given_.push_back(uri); },
         app == app_.get() ? kStoreHelp : "Store URI, as --store before the command")
      ->type_name("URI");
  for (CLI::App* sub : app->get_subcommands([](const CLI::App*) { return true; })) {
    AddStoreOptions(sub);
  }
}

Result<std::string> CliApp::ChosenStore() const {
  if (stores_given_.empty()) return default_store_;
  for (const std::string& uri : stores_given_) {
    if (uri != stores_given_.front()) {
      return Status::InvalidArgument("--store is given twice, as " + Quote(stores_given_.front()) +
                                     " and as " + Quote(uri) + "; give it once");
    }
  }
  return stores_given_.front();
}

int CliApp::Run(int argc, const char* const* argv) {
  try {
    app_->parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // CLI11 prints the problem (FailureMessage), the help or the version.
    return app_->exit(e) == 0 ? kExitSuccess : kExitUsage;
  }
  auto store = ChosenStore();
  if (!store.ok()) {
    PrintUsageError(std::string(store.status().message()));
    return kExitUsage;
  }
  context_.set_store(*store);
  for (const Command& command : commands_) {
    if (command.app->parsed()) return ExitStatusOf(command.run());
  }
  // require_subcommand leaves no way here; say so rather than succeed silently.
  return ExitStatusOf(Status::Internal("the command line named no command"));
}

int ExitStatusOf(const Result<Outcome>& result) {
  if (result.ok()) return *result == Outcome::kProblemsFound ? kExitProblemsFound : kExitSuccess;
  // Messages quote ids, names and paths, which may hold any bytes: none reaches the terminal raw.
  const Status& status = result.status();
  std::fprintf(stderr, "gridstore: %s\n",
               SanitizeMessage(status.message(), KeepsItsLines(status)).c_str());
  return kExitError;
}

int RunGuarded(const std::function<int()>& body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    std::fputs("gridstore: out of memory\n", stderr);
  } catch (const std::exception& e) {
    PrintUnexpected(e.what());
  } catch (...) {
    std::fputs("gridstore: unexpected error of an unknown kind\n", stderr);
  }
  return kExitError;
}

}  // namespace gridstore::tools
