// Copyright 2026 The GridStore Authors.
//
// What a `gridstore` command is: a CLI11 subcommand that declares its arguments, and a function
// that runs it once they are parsed. A command returns a Status (inside its Result) and prints
// nothing about a failure: tools/cli_app.cc turns an error into one sentence on stderr and an
// exit status, in one place. Each command lives in its own file in tools/commands/; adding one is
// a Register function here and a line in tools/cli_app.cc.
#ifndef GRIDSTORE_TOOLS_COMMANDS_COMMAND_H_
#define GRIDSTORE_TOOLS_COMMANDS_COMMAND_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/grid/grid_store.h"
#include "gridstore/util/result.h"
#include "gridstore/util/status.h"

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace gridstore::tools {

// How a command that did not fail ended.
enum class Outcome {
  kDone,           // exit status 0
  kProblemsFound,  // exit status 3: `verify` found damage, and its report on stdout says what
};

// Keeps freed blocks of up to 32 MiB in the heap for the next allocation (glibc's mmap
// threshold 32 MiB, trimming above 64 MiB free), where glibc would map large ones afresh and
// hand freed space back to the kernel: every new page is then faulted in and zeroed again.
// A read reads a batch of blocks into one buffer of a few hundred KiB (RocksDB's MultiGet), and
// `serve` builds answers of MiBs, over and over.
void KeepFreedBuffersInTheHeap();

// What every command shares: the store it works on, known once the command line is parsed.
class CommandContext {
 public:
  void set_store(std::string uri) { store_ = std::move(uri); }
  const std::string& store() const { return store_; }

  // The store; a missing one says how to name or make one (issue 29, 3.7). A command is one short
  // process: read-only, it opens the store's table files as its reads need them.
  Result<std::unique_ptr<grid::GridStore>> OpenStore(grid::GridStoreOptions options) const {
    options.open_tables_lazily = options.open_tables_lazily || options.read_only;
    if (options.read_only) KeepFreedBuffersInTheHeap();
    Result<std::unique_ptr<grid::GridStore>> store = grid::GridStore::Open(store_, options);
    if (!store.ok() && store.status().IsNotFound()) {
      return Status::NotFound(
          std::string(store.status().message()) +
          ": name the store with --store URI or $GRIDSTORE_STORE (the default is "
          "./gridstore-data), "
          "or make one by importing a file: gridstore --store URI import FILE --dataset ID");
    }
    return store;
  }

 private:
  std::string store_;
};

// One command of the command line.
struct Command {
  CLI::App* app = nullptr;               // its subcommand (owned by its parent CLI::App)
  std::function<Result<Outcome>()> run;  // runs it with the arguments parsed into it
};

// Each adds its subcommand to `parent` and returns the commands it defines; `context` must
// outlive them. The argument structs live in the returned run functions.
Command RegisterImport(CLI::App& parent, const CommandContext& context);
Command RegisterInfo(CLI::App& parent, const CommandContext& context);
Command RegisterQuery(CLI::App& parent, const CommandContext& context);
Command RegisterFetch(CLI::App& parent, const CommandContext& context);
std::vector<Command> RegisterIndex(CLI::App& parent, const CommandContext& context);  // 3
Command RegisterMeta(CLI::App& parent, const CommandContext& context);                // meta put
Command RegisterDelete(CLI::App& parent, const CommandContext& context);
Command RegisterVerify(CLI::App& parent, const CommandContext& context);
Command RegisterCompact(CLI::App& parent, const CommandContext& context);
Command RegisterExtract(CLI::App& parent, const CommandContext& context);
Command RegisterServe(CLI::App& parent, const CommandContext& context);
Command RegisterRetention(CLI::App& parent, const CommandContext& context);
Command RegisterIngest(CLI::App& parent, const CommandContext& context);
Command RegisterRelayout(CLI::App& parent, const CommandContext& context);
Command RegisterCollections(CLI::App& parent, const CommandContext& context);

// `ingest` checks each GRIB file in a fresh child process, `gridstore kGribCheckChildArgument
// FILE`, which main() hands to RunGribCheckChild before any command line parsing: it returns the
// exit status and writes "CODE MESSAGE" of a failure to descriptor kGribCheckChildReplyFd.
inline constexpr char kGribCheckChildArgument[] = "--internal-check-grib-file";
inline constexpr int kGribCheckChildReplyFd = 3;
int RunGribCheckChild(const char* path);

// ---- Helpers for the command files ----

// A run function for a command that either fails or is done.
template <typename Fn>
std::function<Result<Outcome>()> Done(Fn fn) {
  return [fn = std::move(fn)]() -> Result<Outcome> {
    GRIDSTORE_RETURN_IF_ERROR(fn());
    return Outcome::kDone;
  };
}

// An option whose absence matters (the default is not a value the user could give): *target is
// set only if the option is given.
CLI::Option* AddOptionalString(CLI::App* app, const std::string& name,
                               std::optional<std::string>* target, const std::string& help);

// Commands that write settle the store before they report success: everything is in the
// engine's tables and synced, so the next open replays no log (docs/reliability.md).
Status Settle(grid::GridStore* store);

// "gridstore: warning: TEXT" on stderr, made printable: for what is worth knowing but no error.
void Warn(std::string_view text);

}  // namespace gridstore::tools

#endif  // GRIDSTORE_TOOLS_COMMANDS_COMMAND_H_
