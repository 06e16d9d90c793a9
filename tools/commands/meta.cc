// Copyright 2026 The GridStore Authors.
//
// `gridstore meta put [FILE|-]`: data-less dataset metas from JSON lines.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>

#include "gridstore/util/internal/strings.h"
#include "tools/commands/command.h"
#include "tools/meta_commands.h"

namespace gridstore::tools {
namespace {

// Opens `file` for reading; errors name it and the system's reason.
Result<int> OpenInput(const std::string& file, const std::string& shown) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOENT) return Status::NotFound("cannot open " + shown + ": no such file");
    return Status::FailedPrecondition("cannot open " + shown + ": " + std::strerror(err));
  }
  struct stat st;
  if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return Status::InvalidArgument("cannot read " + shown + ": it is a directory");
  }
  return fd;
}

// The whole of `file` ("" or "-": stdin). Errors name the file and the system's reason.
Result<std::string> ReadInput(const std::string& file) {
  const bool stdin_input = file.empty() || file == "-";
  const std::string shown = stdin_input ? "standard input" : Quote(file);
  int fd = STDIN_FILENO;
  if (!stdin_input) {
    GRIDSTORE_ASSIGN_OR_RETURN(fd, OpenInput(file, shown));
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

Status RunMetaPut(const CommandContext& context, const std::string& file) {
  GRIDSTORE_ASSIGN_OR_RETURN(std::string input, ReadInput(file));
  // Bad input must not even create the store.
  GRIDSTORE_RETURN_IF_ERROR(CheckMetaPutInput(input));
  GRIDSTORE_ASSIGN_OR_RETURN(auto store, context.OpenStore({.create_if_missing = true}));
  GRIDSTORE_ASSIGN_OR_RETURN(MetaPutSummary summary, PutMetas(store.get(), input));
  GRIDSTORE_RETURN_IF_ERROR(Settle(store.get()));
  std::printf("%ld dataset meta(s) created, %ld updated\n", static_cast<long>(summary.created),
              static_cast<long>(summary.updated));
  return Status::OK();
}

}  // namespace

Command RegisterMeta(CLI::App& parent, const CommandContext& context) {
  auto file = std::make_shared<std::string>();
  CLI::App* meta = parent.add_subcommand("meta", "Write dataset metas");
  meta->require_subcommand(1);
  CLI::App* put = meta->add_subcommand("put",
                                       "Create or update data-less dataset metas from JSON lines "
                                       "{\"id\": ..., \"attributes\": {...}}");
  put->add_option("FILE", *file, "JSON-lines file, or - for stdin (default)")->type_name("FILE");
  return {put, Done([&context, file] { return RunMetaPut(context, *file); })};
}

}  // namespace gridstore::tools
