// Copyright 2026 The GridStore Authors.
//
// The man page and the bash completion of `gridstore`, written from the CLI11 definition of its
// command line (tools/cli_app.h), so that every command, option and help text in them is the
// command's own. The build writes both with tools/cli_docgen.cc and installs them.
#ifndef GRIDSTORE_TOOLS_DOCGEN_H_
#define GRIDSTORE_TOOLS_DOCGEN_H_

#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace gridstore::tools {

// A roff man page, section 1: NAME, SYNOPSIS, DESCRIPTION, OPTIONS (the top-level ones),
// COMMANDS (one subsection per command, with its arguments and options and their help texts),
// EXIT STATUS, ENVIRONMENT, FILES and SEE ALSO. An option that every command repeats from the
// top level (--store) is described once, in OPTIONS; -h/--help is described once too.
std::string ManPage(const CLI::App& app);

// A bash completion script defining `_gridstore` and registering it for `gridstore`: commands at
// each level, each command's options, the values of options with a fixed set of them (a type
// name such as nc|npy|csv|json), files for FILE arguments and options, and directories for URI
// (--store). Needs bash only (no bash-completion package).
std::string BashCompletion(const CLI::App& app);

// Every command of `app` as the words that select it ("import", "index create", ...), the groups
// ("index") too, in definition order.
std::vector<std::string> CommandPaths(const CLI::App& app);

// The options of one command as documented: its own, without -h/--help and without the ones it
// repeats from the top level.
std::vector<const CLI::Option*> DocumentedOptions(const CLI::App& command);

// `text` as roff body text: backslashes escaped, and a line that would start with '.' or '\''
// (a request) protected.
std::string RoffEscape(std::string_view text);

}  // namespace gridstore::tools

#endif  // GRIDSTORE_TOOLS_DOCGEN_H_
