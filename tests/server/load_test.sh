#!/usr/bin/env bash
# The bounded load test (ctest server.load): bench/serve_load.sh for 3 s per query kind with 16
# connections on a store of a real file; fails if any request errs or is not 200. Times are
# printed, never asserted (docs/benchmarks.md has the 30 s, 64-connection run).
#   load_test.sh BUILD_DIR DATA_DIR WORK_DIR
set -euo pipefail
build=$1 data=$2 work=$3
rm -rf "$work"
mkdir -p "$work"
"$build/tools/gridstore" --store "$work/store" import "$data/tos_O1_2001-2002.nc" \
  --dataset ocean/tos > /dev/null 2>&1
bash "$(dirname "$0")/../../bench/serve_load.sh" "$build" "$work/store" ocean/tos 3 16 20
