#!/usr/bin/env bash
# Fuzzes what GridStore parses from outside with libFuzzer, each target in turn:
#   request_fuzzer  what `gridstore serve` parses from requests (tests/fuzz/request_fuzzer.cc),
#                   for SECONDS (default 60);
#   header_fuzzer   the GRIB structure check and the netCDF classic header check, seeded with the
#                   real files of ../shared (their first 64 KiB), for SECONDS / 3;
#   parser_fuzzer   WKT, decimal numbers, CF time units, time and level selections, SECONDS / 3.
# CI runs 60; docs/reliability.md gives a longer run's figures. Builds with clang into build-fuzz/
# (or $2) unless that is already built.
#   scripts/fuzz.sh [SECONDS] [BUILD_DIR] [SHARED_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${2:-build-fuzz}
shared=${3:-$(pwd)/../shared}
targets=(request_fuzzer header_fuzzer parser_fuzzer)
if [ ! -f "$build/build.ninja" ]; then
  CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DGRIDSTORE_SANITIZE=fuzzer \
    -DCMAKE_UNITY_BUILD=ON -DGRIDSTORE_BUILD_TESTS=OFF -DGRIDSTORE_BUILD_SAMPLES=OFF > /dev/null
fi
cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"  # nothing to do when up to date
run() {  # TARGET CORPUS SECONDS [extra libFuzzer flags...]
  local target=$1 corpus=$2 time=$3
  shift 3
  echo "-- $target, $time s"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$build/tests/fuzz/$target" -max_total_time="$time" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$build/" "$@" "$corpus"
}
# The request seeds: one request target per line of tests/fuzz/corpus_seeds.txt.
corpus="$build/fuzz-corpus"
mkdir -p "$corpus"
n=0
while IFS= read -r line; do
  n=$((n + 1))
  printf '%s' "$line" > "$corpus/seed-$n"
done < tests/fuzz/corpus_seeds.txt
run request_fuzzer "$corpus" "$seconds" -max_len=4096
# The header seeds: every real file's head, once per reader (the first byte picks it).
headers="$build/fuzz-headers"
mkdir -p "$headers"
for f in "$shared"/data/* "$shared"/grib/* "$shared"/corpus/*; do
  case "$f" in *.md|*SHA256SUMS) continue ;; esac
  base=$(basename "$f")
  { printf '\001'; head -c 65536 "$f"; } > "$headers/grib-$base"
  { printf '\000'; head -c 65536 "$f"; } > "$headers/nc-$base"
  { printf '\002'; head -c 65536 "$f"; } > "$headers/grib2-$base"
done
run header_fuzzer "$headers" $((seconds / 3)) -max_len=70000
parsers="$build/fuzz-parsers"
mkdir -p "$parsers"
printf '\000POLYGON((0 0,10 0,10 10,0 0))' > "$parsers/polygon"
printf '\001LINESTRING ZM(0 0 850 1700000000,10 10 500 1700003600)' > "$parsers/line"
printf '\002-12.5e3hPa' > "$parsers/number"
printf '\003hours since 2026-11-27 00:00:00' > "$parsers/units"
printf '\0042026-11-27T00:00Z/2026-11-27T12:00Z' > "$parsers/times"
printf '\005850hPa,500' > "$parsers/levels"
printf '\013860' > "$parsers/nearest"
run parser_fuzzer "$parsers" $((seconds / 3)) -max_len=1024
