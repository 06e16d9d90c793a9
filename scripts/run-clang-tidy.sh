#!/usr/bin/env bash
# Runs clang-tidy (.clang-tidy's checks) over the library and the command, using the compile
# commands of a build (default build/). Slow (minutes): a documented command, not a CI step.
#   scripts/run-clang-tidy.sh [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
[ -f "$build/compile_commands.json" ] || { echo "no $build/compile_commands.json: build first"; exit 1; }
git ls-files 'gridstore/*.cc' 'tools/*.cc' |
  xargs -P "$(nproc)" -n 4 clang-tidy -p "$build" --quiet
