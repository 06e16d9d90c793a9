#!/usr/bin/env bash
# Configures and builds GridStore into build/ (or $1), Release with debug info, using every core.
#   scripts/build.sh [BUILD_DIR] [extra cmake arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
shift || true
cmake -S . -B "$build_dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRIDSTORE_WERROR=ON "$@"
cmake --build "$build_dir" -j "$(nproc)"
