// Copyright 2026 The GridStore Authors.
//
// The `gridstore` command line, defined once: the command runs it, and the build's generator
// (tools/cli_docgen.cc) writes the man page and the bash completion from the same definition, so
// that they cannot drift apart. The names and options are a contract (docs/usage.md).
//
// Exit status, decided here and nowhere else: 0 success, 1 an error (one sentence on stderr), 2 a
// usage error (one line on stderr), 3 `verify` found problems. No exception leaves RunGuarded.
#ifndef GRIDSTORE_TOOLS_CLI_APP_H_
#define GRIDSTORE_TOOLS_CLI_APP_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gridstore/util/result.h"
#include "tools/commands/command.h"

namespace gridstore::tools {

inline constexpr int kExitSuccess = 0;
inline constexpr int kExitError = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitProblemsFound = 3;

// Where the store is when no --store is given: $GRIDSTORE_STORE if set and not empty, else this.
inline constexpr char kDefaultStore[] = "./gridstore-data";

class CliApp {
 public:
  // Defines every command and option. Reads nothing but $GRIDSTORE_STORE (the default store).
  CliApp();
  ~CliApp();
  CliApp(const CliApp&) = delete;
  CliApp& operator=(const CliApp&) = delete;

  // The definition: commands, options and help texts.
  const CLI::App& app() const { return *app_; }

  // Parses `argv` and runs the command it names; returns the exit status. Errors are printed as
  // one sentence on stderr; --help and --version print to stdout and open no store. May throw
  // (out of memory, ...): run it inside RunGuarded.
  int Run(int argc, const char* const* argv);

 private:
  // The store URI from --store (before and after the command, which must agree), else the
  // default. InvalidArgument if two --store values differ.
  Result<std::string> ChosenStore() const;
  // Adds --store to `app` and, recursively, to every command under it.
  void AddStoreOptions(CLI::App* app);

  std::unique_ptr<CLI::App> app_;
  CommandContext context_;
  std::vector<Command> commands_;
  std::string default_store_;
  std::vector<std::string> stores_given_;  // every --store value, in the order parsed
};

// The exit status of a command's result; an error is printed as one sentence on stderr first.
int ExitStatusOf(const Result<Outcome>& result);

// Runs `body` and returns what it returns; an exception escaping it (out of memory, anything)
// becomes one sentence on stderr and kExitError instead. Destructors run on the way, so an
// output's temporary folder is removed.
int RunGuarded(const std::function<int()>& body) noexcept;

}  // namespace gridstore::tools

#endif  // GRIDSTORE_TOOLS_CLI_APP_H_
