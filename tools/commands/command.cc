// Copyright 2026 The GridStore Authors.
#include "tools/commands/command.h"

#include <CLI/CLI.hpp>
#include <cstdio>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "tools/text_escape.h"

namespace gridstore::tools {

CLI::Option* AddOptionalString(CLI::App* app, const std::string& name,
                               std::optional<std::string>* target, const std::string& help) {
  return app->add_option_function<std::string>(
      name, [target](const std::string& value) { *target = value; }, help);
}

Status Settle(grid::GridStore* store) {
  return store->Flush().WithContext("the write succeeded, but settling the store failed");
}

void KeepFreedBuffersInTheHeap() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 64 << 20);
#endif
}

void Warn(std::string_view text) {
  std::fprintf(stderr, "gridstore: warning: %s\n", SanitizeMessage(text, false).c_str());
}

}  // namespace gridstore::tools
