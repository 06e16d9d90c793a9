#!/usr/bin/env bash
# Fuzzes what `gridstore serve` parses from requests (tests/fuzz/request_fuzzer.cc) for SECONDS
# (default 60; CI runs 60, docs/serve.md gives the longer run's figures). Builds with clang into
# build-fuzz/ (or $2) unless that is already built.
#   scripts/fuzz.sh [SECONDS] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
build=${2:-build-fuzz}
if [ ! -x "$build/tests/fuzz/request_fuzzer" ]; then
  CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" -DGRIDSTORE_SANITIZE=fuzzer \
    -DCMAKE_UNITY_BUILD=ON -DGRIDSTORE_BUILD_TESTS=OFF -DGRIDSTORE_BUILD_SAMPLES=OFF > /dev/null
  cmake --build "$build" -j "$(nproc)" --target request_fuzzer
fi
# The seeds: one request target per line of tests/fuzz/corpus_seeds.txt.
corpus="$build/fuzz-corpus"
mkdir -p "$corpus"
n=0
while IFS= read -r line; do
  n=$((n + 1))
  printf '%s' "$line" > "$corpus/seed-$n"
done < tests/fuzz/corpus_seeds.txt
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  "$build/tests/fuzz/request_fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=4096 -print_final_stats=1 "$corpus"
