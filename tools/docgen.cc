// Copyright 2026 The GridStore Authors.
#include "tools/docgen.h"

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "gridstore/util/internal/strings.h"
#include "gridstore/version.h"
#include "tools/cli_app.h"

namespace gridstore::tools {
namespace {

std::vector<const CLI::App*> Subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App*) { return true; });
}

bool IsFlag(const CLI::Option& opt) { return opt.get_expected_max() == 0; }

// "-o", "--output" (positionals: their name).
std::vector<std::string> OptionNames(const CLI::Option& opt) {
  if (opt.get_positional()) return {opt.get_name()};
  std::vector<std::string> names;
  for (const std::string& s : opt.get_snames()) names.push_back("-" + s);
  for (const std::string& l : opt.get_lnames()) names.push_back("--" + l);
  return names;
}

// What an option's value is written as in help: FILE, URI, N, nc|npy|csv|json ("" for a flag).
// A positional that takes several values gets "...".
std::string ValueName(const CLI::Option& opt) {
  if (IsFlag(opt)) return "";
  std::string name = opt.get_positional() ? opt.get_name() : opt.get_type_name();
  if (opt.get_positional() && opt.get_expected_max() > 1) name += "...";
  return name;
}

// An option that is the same option the top level has (a name the command repeats from it).
bool RepeatsTopLevel(const CLI::App& command, const CLI::Option& opt) {
  const CLI::App* top = &command;
  while (top->get_parent() != nullptr) top = top->get_parent();
  if (top == &command || opt.get_lnames().empty()) return false;
  for (const CLI::Option* o : top->get_options()) {
    if (o->get_lnames() == opt.get_lnames()) return true;
  }
  return false;
}

// ---- roff ----

// Option names and value placeholders: bold names ('-' as \-, the minus sign roff wants), italic
// values.
std::string RoffName(std::string_view name) {
  std::string out;
  for (char c : RoffEscape(name)) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

std::string RoffTag(const CLI::Option& opt) {
  std::string tag;
  if (opt.get_positional()) return "\\fI" + RoffEscape(ValueName(opt)) + "\\fR";
  for (const std::string& n : OptionNames(opt)) {
    tag += (tag.empty() ? "\\fB" : ", \\fB") + RoffName(n) + "\\fR";
  }
  if (!IsFlag(opt)) tag += " \\fI" + RoffEscape(ValueName(opt)) + "\\fR";
  return tag;
}

// One .TP paragraph per argument and option: positionals first, then options.
std::string RoffOptionList(const std::vector<const CLI::Option*>& options) {
  std::string out;
  for (bool positional : {true, false}) {
    for (const CLI::Option* opt : options) {
      if (opt->get_positional() != positional) continue;
      out += ".TP\n" + RoffTag(*opt) + "\n" + RoffEscape(opt->get_description()) + "\n";
    }
  }
  return out;
}

// "\fBgridstore index create\fR \fINAME\fR \fIFIELD:TYPE...\fR": required options and arguments
// in full, the others as [OPTIONS].
std::string RoffUsage(const CLI::App& command, const std::string& path) {
  std::string out = "\\fBgridstore " + RoffEscape(path) + "\\fR";
  const auto options = DocumentedOptions(command);
  bool optional_options = false;
  for (const CLI::Option* opt : options) {
    if (opt->get_positional()) continue;
    if (!opt->get_required()) {
      optional_options = true;
      continue;
    }
    out += " \\fB" + RoffName(OptionNames(*opt).back()) + "\\fR \\fI" +
           RoffEscape(ValueName(*opt)) + "\\fR";
  }
  if (optional_options) out += " [\\fIOPTIONS\\fR]";
  for (const CLI::Option* opt : options) {
    if (!opt->get_positional()) continue;
    const std::string value = "\\fI" + RoffEscape(ValueName(*opt)) + "\\fR";
    out += opt->get_required() ? " " + value : " [" + value + "]";
  }
  if (!Subcommands(command).empty()) out += " \\fICOMMAND\\fR";
  return out;
}

std::string ManCommands(const CLI::App& app) {
  std::string out = ".SH COMMANDS\n";
  out +=
      "Every command takes \\fB\\-h\\fR, \\fB\\-\\-help\\fR, and \\fB\\-\\-store\\fR after it as "
      "well as before it.\n";
  std::vector<std::pair<const CLI::App*, std::string>> todo;
  for (const CLI::App* c : Subcommands(app)) todo.emplace_back(c, c->get_name());
  for (size_t i = 0; i < todo.size(); ++i) {
    const auto [command, path] = todo[i];
    out += ".SS \"" + RoffEscape(path) + "\"\n" + RoffUsage(*command, path) + "\n.PP\n" +
           RoffEscape(command->get_description()) + ".\n";
    const auto subs = Subcommands(*command);
    if (!subs.empty()) {
      out += "Its commands: " +
             Join(subs, ", ", [](const CLI::App* s) { return RoffEscape(s->get_name()); }) + ".\n";
    }
    out += RoffOptionList(DocumentedOptions(*command));
    // Subcommands follow their group, before the next top-level command.
    for (size_t k = 0; k < subs.size(); ++k) {
      todo.insert(todo.begin() + static_cast<std::ptrdiff_t>(i + 1 + k),
                  {subs[k], path + " " + subs[k]->get_name()});
    }
  }
  return out;
}

std::string ManTrailer() {
  return ".SH EXIT STATUS\n"
         ".TP\n.B " +
         std::to_string(kExitSuccess) +
         "\nSuccess.\n"
         ".TP\n.B " +
         std::to_string(kExitError) +
         "\n"
         "An error, explained in one sentence on standard error (\\fBgridstore: ...\\fR).\n"
         ".TP\n.B " +
         std::to_string(kExitUsage) +
         "\n"
         "A usage error: an unknown command or option, a missing argument, or \\fB\\-\\-store\\fR "
         "given twice with different values; one line on standard error.\n"
         ".TP\n.B " +
         std::to_string(kExitProblemsFound) +
         "\n"
         "\\fBverify\\fR found damage (its report on standard output says what).\n"
         ".SH ENVIRONMENT\n"
         ".TP\n.B GRIDSTORE_STORE\n"
         "The store when no \\fB\\-\\-store\\fR is given (unless empty).\n"
         ".TP\n.B CEPH_CONF\n"
         "The Ceph configuration file of a \\fBrados://\\fR store whose URI names no "
         "\\fBconf=\\fR.\n"
         ".TP\n.B TMPDIR\n"
         "Where \\fBfetch\\fR writes a netCDF output meant for a pipe or device before it is "
         "streamed.\n"
         ".SH FILES\n"
         ".TP\n.I " +
         RoffEscape(kDefaultStore) +
         "\n"
         "The store (a RocksDB directory) when neither \\fB\\-\\-store\\fR nor "
         "\\fBGRIDSTORE_STORE\\fR names one.\n"
         ".SH SEE ALSO\n"
         "The manual, docs/usage.md, in the GridStore sources.\n";
}

// ---- bash ----

// How the completion completes an option's value.
std::string ValueKind(const CLI::Option& opt) {
  const std::string type = opt.get_positional() ? opt.get_name() : opt.get_type_name();
  if (type == "FILE") return "file";
  if (type == "URI") return "dir";
  const bool choices =
      type.find('|') != std::string::npos &&
      type.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-|") == std::string::npos;
  return choices ? "choices" : "";
}

std::string BashQuote(std::string_view s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The words of the command at `path`: a case of _gridstore_spec, and of _gridstore_choices.
struct BashCases {
  std::string spec;
  std::string choices;
};

BashCases BashCommandCases(const CLI::App& command, const std::string& path) {
  std::vector<std::string> options, valued, files, dirs;
  std::string positional;
  BashCases cases;
  for (const CLI::Option* opt : command.get_options()) {
    if (opt->get_positional()) {
      if (ValueKind(*opt) == "file") positional = "file";
      continue;
    }
    const std::vector<std::string> names = OptionNames(*opt);
    options.insert(options.end(), names.begin(), names.end());
    if (IsFlag(*opt)) continue;
    valued.insert(valued.end(), names.begin(), names.end());
    const std::string kind = ValueKind(*opt);
    if (kind == "file") files.insert(files.end(), names.begin(), names.end());
    if (kind == "dir") dirs.insert(dirs.end(), names.begin(), names.end());
    if (kind != "choices") continue;
    const std::string values = Join(SplitList(opt->get_type_name(), '|'), " ");
    for (const std::string& n : names) {
      cases.choices += "    " + BashQuote(path + " " + n) + ") echo " + BashQuote(values) + " ;;\n";
    }
  }
  const auto words = [](const std::vector<std::string>& v) { return BashQuote(Join(v, " ")); };
  const std::string commands =
      Join(Subcommands(command), " ", [](const CLI::App* c) { return c->get_name(); });
  cases.spec = "    " + BashQuote(path) + ")\n      commands=" + BashQuote(commands) +
               " options=" + words(options) + "\n      valued=" + words(valued) +
               " files=" + words(files) + " dirs=" + words(dirs) +
               " positional=" + BashQuote(positional) + " ;;\n";
  return cases;
}

// The part of the script that does not depend on the definition.
constexpr char kBashCompletionBody[] = R"sh(
# Completes the word under the cursor from the command path the earlier words select.
_gridstore() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev="" cmd="" w opt="" i skip=0 ddash=0
  local commands options valued files dirs positional
  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD-1]}
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w=${COMP_WORDS[i]}
    if ((skip)); then skip=0; continue; fi
    ((ddash)) && continue  # after --, only arguments
    if [[ $w == -- ]]; then ddash=1; continue; fi
    _gridstore_spec "$cmd"
    if [[ $w == -* ]]; then
      [[ " $valued " == *" $w "* ]] && skip=1
    elif [[ $w == = ]]; then
      skip=1  # --option=value, split at '=' by COMP_WORDBREAKS: the value follows
    elif [[ " $commands " == *" $w "* ]]; then
      cmd=${cmd:+$cmd }$w
    fi
  done
  _gridstore_spec "$cmd"
  if ((skip)); then
    opt=$prev
  elif [[ $prev == = ]] && ((COMP_CWORD >= 2)); then
    opt=${COMP_WORDS[COMP_CWORD-2]}
  elif [[ $cur == = ]] && [[ " $valued " == *" $prev "* ]]; then
    opt=$prev cur=""
  fi
  if [[ -n $opt ]] && [[ " $valued " == *" $opt "* ]]; then
    if [[ " $files " == *" $opt "* ]]; then
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    elif [[ " $dirs " == *" $opt "* ]]; then
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -d -- "$cur")
    else
      mapfile -t COMPREPLY < <(compgen -W "$(_gridstore_choices "$cmd $opt")" -- "$cur")
    fi
    return 0
  fi
  if ((!ddash)) && [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$options" -- "$cur")
  elif [[ -n $commands ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
  elif [[ $positional == file ]]; then
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
  return 0
}
complete -F _gridstore gridstore
)sh";

}  // namespace

std::vector<std::string> CommandPaths(const CLI::App& app) {
  std::vector<std::string> paths;
  for (const CLI::App* c : Subcommands(app)) {
    paths.push_back(c->get_name());
    for (const std::string& sub : CommandPaths(*c)) paths.push_back(c->get_name() + " " + sub);
  }
  return paths;
}

std::vector<const CLI::Option*> DocumentedOptions(const CLI::App& command) {
  std::vector<const CLI::Option*> out;
  for (const CLI::Option* opt : command.get_options()) {
    if (opt == command.get_help_ptr() || RepeatsTopLevel(command, *opt)) continue;
    out.push_back(opt);
  }
  return out;
}

std::string RoffEscape(std::string_view text) {
  std::string out;
  bool line_start = true;
  for (char c : text) {
    if (line_start && (c == '.' || c == '\'')) out += "\\&";
    if (c == '\\') {
      out += "\\e";
    } else {
      out += c;
    }
    line_start = c == '\n';
  }
  return out;
}

std::string ManPage(const CLI::App& app) {
  std::string out =
      ".\\\" The gridstore(1) man page, generated by gridstore_docgen from the command's own\n"
      ".\\\" definition (tools/cli_app.cc, tools/commands/). Do not edit.\n";
  out += ".TH GRIDSTORE 1 \"\" \"gridstore " + std::string(kVersion) + "\" \"User Commands\"\n";
  // Left-aligned and unhyphenated: URIs and option names must read as they are typed.
  out += ".ad l\n.nh\n";
  out +=
      ".SH NAME\ngridstore \\- store gridded meteorological data and fetch any slice of it fast\n";
  out +=
      ".SH SYNOPSIS\n\\fBgridstore\\fR [\\fB\\-\\-store\\fR \\fIURI\\fR] \\fICOMMAND\\fR "
      "[\\fIOPTIONS\\fR] [\\fIARGUMENTS\\fR]\n.br\n\\fBgridstore \\-\\-version\\fR\n.br\n"
      "\\fBgridstore \\-\\-help\\fR\n";
  out += ".SH DESCRIPTION\n" + RoffEscape(app.get_description()) + "\n.PP\n";
  out += "The commands: " +
         Join(Subcommands(app), ", ",
              [](const CLI::App* c) { return "\\fB" + RoffEscape(c->get_name()) + "\\fR"; }) +
         ".\n.PP\n" + RoffEscape(app.get_footer()) + "\n";
  std::vector<const CLI::Option*> options;
  for (const CLI::Option* opt : app.get_options()) options.push_back(opt);
  out += ".SH OPTIONS\n" + RoffOptionList(options);
  out += ManCommands(app);
  out += ManTrailer();
  return out;
}

std::string BashCompletion(const CLI::App& app) {
  std::string spec, choices;
  std::vector<std::pair<const CLI::App*, std::string>> todo = {{&app, ""}};
  for (size_t i = 0; i < todo.size(); ++i) {
    const auto [command, path] = todo[i];
    BashCases cases = BashCommandCases(*command, path);
    spec += cases.spec;
    choices += cases.choices;
    for (const CLI::App* c : Subcommands(*command)) {
      todo.emplace_back(c, path.empty() ? c->get_name() : path + " " + c->get_name());
    }
  }
  return "# bash completion for gridstore " + std::string(kVersion) +
         ", generated by gridstore_docgen from the\n"
         "# command's own definition (tools/cli_app.cc, tools/commands/). Do not edit.\n\n"
         "# Sets the words of the command at path $1: its commands, options, the options that take "
         "a value,\n# those whose value is a file or a directory, and whether its arguments are "
         "files.\n_gridstore_spec() {\n  case \"$1\" in\n" +
         spec +
         "    *) commands='' options='' valued='' files='' dirs='' positional='' ;;\n  esac\n}\n\n"
         "# The values an option with a fixed set of them takes; $1 is \"PATH OPTION\".\n"
         "_gridstore_choices() {\n  case \"$1\" in\n" +
         choices + "  esac\n}\n" + kBashCompletionBody;
}

}  // namespace gridstore::tools
