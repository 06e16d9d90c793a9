#!/usr/bin/env bash
# Checks that every C++ file in the repository is formatted as .clang-format says (CI runs this).
# Prints the files that are not; fix them with: git clang-format, or clang-format -i FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
bad=$(git ls-files '*.cc' '*.h' | while read -r f; do
  clang-format --dry-run -Werror "$f" > /dev/null 2>&1 || echo "$f"
done)
if [ -n "$bad" ]; then
  echo "format: these files differ from .clang-format (run clang-format -i on them):"
  echo "$bad"
  exit 1
fi
echo "format: every C++ file follows .clang-format"
