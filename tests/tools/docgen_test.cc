// Copyright 2026 The GridStore Authors.
//
// The man page and the bash completion written from the command's definition (tools/docgen.h):
// they name every command and option the definition has, the files the build wrote are exactly
// what the definition gives, groff reads the page without a warning, and bash completes commands,
// options, fixed values and files from the script.
#include "tools/docgen.h"

#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gridstore/util/internal/strings.h"
#include "tests/test_util.h"
#include "tests/tools/cli_testutil.h"
#include "tools/cli_app.h"

namespace gridstore {
namespace {

using ::testing::HasSubstr;
using testing::ReadFile;
using testing::ShellQuote;

// The command at `path` ("index create") in `app`.
const CLI::App* Find(const CLI::App& app, const std::string& path) {
  const CLI::App* at = &app;
  for (const std::string& word : SplitList(path, ' ')) at = at->get_subcommand(word);
  return at;
}

// How `name` (an option or argument) appears in the page.
std::string Roff(const std::string& name) {
  std::string out;
  for (char c : tools::RoffEscape(name)) out += c == '-' ? std::string("\\-") : std::string(1, c);
  return out;
}

TEST(DocgenTest, ManPageHasEveryCommandOptionAndHelpText) {
  const tools::CliApp cli;
  const std::string page = tools::ManPage(cli.app());
  const std::vector<std::string> paths = tools::CommandPaths(cli.app());
  EXPECT_EQ(paths.size(), 19u);  // 15 commands (2 of them groups), 3 under index, 1 under meta
  for (const char* section :
       {".SH NAME", ".SH SYNOPSIS", ".SH DESCRIPTION", ".SH OPTIONS", ".SH COMMANDS",
        ".SH EXIT STATUS", ".SH ENVIRONMENT", ".SH FILES", "GRIDSTORE_STORE", "./gridstore-data"}) {
    EXPECT_THAT(page, HasSubstr(section));
  }
  for (const std::string& path : paths) {
    SCOPED_TRACE(path);
    const CLI::App* command = Find(cli.app(), path);
    const size_t at = page.find(".SS \"" + path + "\"\n");
    ASSERT_NE(at, std::string::npos);
    const size_t end = page.find(".SS", at + 1);
    const std::string section = page.substr(at, end == std::string::npos ? end : end - at);
    EXPECT_THAT(section, HasSubstr("\\fBgridstore " + path + "\\fR"));
    EXPECT_THAT(section, HasSubstr(tools::RoffEscape(command->get_description())));
    for (const CLI::Option* opt : tools::DocumentedOptions(*command)) {
      for (const std::string& name : opt->get_lnames()) {
        EXPECT_THAT(section, HasSubstr(Roff("--" + name)));
      }
      for (const std::string& name : opt->get_snames()) {
        EXPECT_THAT(section, HasSubstr(Roff("-" + name)));
      }
      if (opt->get_positional()) {
        EXPECT_THAT(section, HasSubstr("\\fI" + opt->get_name()));
      }
      EXPECT_THAT(section, HasSubstr(tools::RoffEscape(opt->get_description())));
    }
  }
  // --store is documented once, where it is defined, and the page says it may follow a command.
  EXPECT_THAT(page, HasSubstr("\\fB\\-\\-store\\fR \\fIURI\\fR\n"));
  EXPECT_THAT(page, HasSubstr("May also follow the command"));
  EXPECT_THAT(page, HasSubstr("\\fB\\-\\-version\\fR"));
}

TEST(DocgenTest, DocumentedOptionsLeaveOutHelpAndTheTopLevelStore) {
  const tools::CliApp cli;
  const CLI::App* fetch = cli.app().get_subcommand("fetch");
  std::vector<std::string> names;
  for (const CLI::Option* opt : tools::DocumentedOptions(*fetch)) names.push_back(opt->get_name());
  EXPECT_EQ(Join(names, " "),
            "ID --variables --origin --shape --unpack --allow-incomplete --format --output "
            "--sync --explain");
}

TEST(DocgenTest, RoffEscapeProtectsBackslashesAndRequests) {
  EXPECT_EQ(tools::RoffEscape("a\\b"), "a\\eb");
  EXPECT_EQ(tools::RoffEscape(".TH x"), "\\&.TH x");
  EXPECT_EQ(tools::RoffEscape("x\n'y\n.z"), "x\n\\&'y\n\\&.z");
  EXPECT_EQ(tools::RoffEscape("a.b 'c'"), "a.b 'c'");
}

TEST(DocgenTest, TheBuiltFilesAreWhatTheDefinitionGives) {
  const tools::CliApp cli;
  EXPECT_EQ(ReadFile(GRIDSTORE_MAN_PAGE), tools::ManPage(cli.app()));
  EXPECT_EQ(ReadFile(GRIDSTORE_BASH_COMPLETION), tools::BashCompletion(cli.app()));
}

TEST(DocgenTest, GroffReadsTheManPageWithoutWarnings) {
  testing::ScopedTempDir dir;
  const std::string out = dir.Sub("groff.out");
  const std::string cmd = "groff -man -Tutf8 -ww -z " + ShellQuote(GRIDSTORE_MAN_PAGE) + " > " +
                          ShellQuote(out) + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << ReadFile(out);
  EXPECT_EQ(ReadFile(out), "");
  // And it renders the sections a reader looks for.
  const std::string text = dir.Sub("page.txt");
  ASSERT_EQ(std::system(("groff -man -Tascii -P-cbou " + ShellQuote(GRIDSTORE_MAN_PAGE) + " > " +
                         ShellQuote(text) + " 2>&1")
                            .c_str()),
            0);
  const std::string rendered = ReadFile(text);
  EXPECT_THAT(rendered, HasSubstr("EXIT STATUS"));
  EXPECT_THAT(rendered, HasSubstr("gridstore fetch [OPTIONS] ID"));
  EXPECT_THAT(rendered, HasSubstr("-o, --output FILE"));
}

class CompletionTest : public ::testing::Test {
 protected:
  // COMPREPLY after sourcing the completion and completing the last of `words`, run in a folder
  // holding a.nc, b.npy and the folder sub/.
  std::vector<std::string> Complete(const std::vector<std::string>& words) {
    std::string array;
    for (const std::string& w : words) array += " " + ShellQuote(w);
    const std::string script = "source " + ShellQuote(GRIDSTORE_BASH_COMPLETION) +
                               "\nCOMP_WORDS=(" + array +
                               ")\nCOMP_CWORD=" + std::to_string(words.size() - 1) +
                               "\n_gridstore\nprintf '%s\\n' \"${COMPREPLY[@]}\" | sort\n";
    std::ofstream(dir_.Sub("script.sh")) << script;
    const std::string out = dir_.Sub("out");
    const std::string cmd = "cd " + ShellQuote(dir_.Sub("work")) + " && bash --norc " +
                            ShellQuote(dir_.Sub("script.sh")) + " > " + ShellQuote(out) + " 2>&1";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << ReadFile(out);
    std::vector<std::string> reply = SplitList(ReadFile(out), '\n');
    return reply;
  }

  void SetUp() override {
    std::filesystem::create_directories(dir_.Sub("work/sub"));
    std::ofstream(dir_.Sub("work/a.nc")) << "";
    std::ofstream(dir_.Sub("work/b.npy")) << "";
  }

  testing::ScopedTempDir dir_;
};

using Words = std::vector<std::string>;

TEST_F(CompletionTest, CommandsOptionsValuesAndFiles) {
  EXPECT_EQ(Complete({"gridstore", "fe"}), Words({"fetch"}));
  EXPECT_EQ(Complete({"gridstore", "fetch", "--va"}), Words({"--variables"}));
  EXPECT_EQ(Complete({"gridstore", "i"}), Words({"import", "index", "info", "ingest"}));
  EXPECT_EQ(Complete({"gridstore", "index", ""}), Words({"create", "drop", "list"}));
  EXPECT_EQ(Complete({"gridstore", "--store", "sub", "fetch", "--ex"}), Words({"--explain"}));
  EXPECT_EQ(Complete({"gridstore", "fetch", "d", "--st"}), Words({"--store"}));
  EXPECT_EQ(Complete({"gridstore", "--v"}), Words({"--version"}));
  EXPECT_EQ(Complete({"gridstore", "fetch", "--format", ""}), Words({"csv", "json", "nc", "npy"}));
  EXPECT_EQ(Complete({"gridstore", "fetch", "--format", "=", "n"}), Words({"nc", "npy"}));
  EXPECT_EQ(Complete({"gridstore", "fetch", "d", "-o", ""}), Words({"a.nc", "b.npy", "sub"}));
  EXPECT_EQ(Complete({"gridstore", "import", "a"}), Words({"a.nc"}));
  EXPECT_EQ(Complete({"gridstore", "meta", "put", ""}), Words({"a.nc", "b.npy", "sub"}));
  EXPECT_EQ(Complete({"gridstore", "--store", ""}), Words({"sub"}));        // a store is a folder
  EXPECT_EQ(Complete({"gridstore", "fetch", "--variables", ""}), Words());  // free text
  EXPECT_EQ(Complete({"gridstore", "fetch", "--", "-"}), Words());          // after --, no options
}

// Every option of every command is completed, as the definition has it.
TEST_F(CompletionTest, EveryCommandCompletesItsOwnOptions) {
  const tools::CliApp cli;
  for (const std::string& path : tools::CommandPaths(cli.app())) {
    SCOPED_TRACE(path);
    const CLI::App* command = Find(cli.app(), path);
    Words words = {"gridstore"};
    for (const std::string& w : SplitList(path, ' ')) words.push_back(w);
    words.push_back("--");
    const Words reply = Complete(words);
    for (const CLI::Option* opt : command->get_options()) {
      for (const std::string& name : opt->get_lnames()) {
        EXPECT_NE(std::find(reply.begin(), reply.end(), "--" + name), reply.end()) << name;
      }
    }
  }
}

}  // namespace
}  // namespace gridstore
