#!/usr/bin/env bash
# Copyright 2026 The GridStore Authors.
#
# A run that grows (issue 33, part 3): STEPS GRIB2 files of LEVELS levels, one per step as a
# centre publishes them (bench/make_grib_run's real field on a 0.25 degree grid, split by
# grib_copy), each appended by its own `gridstore import --append` process, as `ingest` does,
# into two stores in one run: planes only, and with the series layout (--layouts plane,series:
# a block of steps joins it each time that many are complete). Prints, per store:
#   - arrival-to-readable per step: from the import process's start until a reader in another
#     process fetches a value of the step (polled every 20 ms; p50, p99, max), and the import
#     process's own wall time (it may go on writing series blocks after the step is readable);
#   - ingest throughput (steps per second over the run) and the series store's share of the
#     planes-only one;
#   - a point's whole series so far at N random places (bench/random_places_bench, in-process,
#     block cache off), median ms at each step of AT, and the speed-up of the series store.
# And one JSON line starting with {"bench":"growing_run".
#
# Usage: bench/growing_run_bench.sh [BUILD_DIR=build] [WORK_DIR=/tmp/gridstore-growing-bench]
# Environment: LEVELS=10 STEPS=48 AT="4 8 16 24 32 48" N=30 SERIES_STEPS (default: chosen)
#              GRIDSTORE_TEST_GRIB=../shared/grib
set -euo pipefail
build=${1:-build}
work=${2:-/tmp/gridstore-growing-bench}
here=$(cd "$(dirname "$0")" && pwd)
grib_dir=${GRIDSTORE_TEST_GRIB:-$here/../../shared/grib}
levels=${LEVELS:-10} steps=${STEPS:-48} at=${AT:-"4 8 16 24 32 48"} n=${N:-30}
gridstore=$build/tools/gridstore
mkdir -p "$work"
run=$work/run-${levels}x${steps}.grib2
if [ ! -s "$run" ]; then
  "$build/bench/make_grib_run" "$grib_dir/lambert.grib2" "$run.tmp" "$levels" "$steps"
  mv "$run.tmp" "$run"
fi
rm -rf "$work/steps" && mkdir -p "$work/steps"
grib_copy "$run" "$work/steps/f[step].grib2"
mapfile -t files < <(ls "$work/steps" | sort -V)
[ "${#files[@]}" -eq "$steps" ] || { echo "expected $steps step files, got ${#files[@]}" >&2; exit 1; }

series_flags=(--layouts plane,series)
[ -n "${SERIES_STEPS:-}" ] && series_flags+=(--series-steps "$SERIES_STEPS")
results=$work/results.txt
: > "$results"
for mode in planes series; do
  store=$work/store-$mode
  rm -rf "$store"
  flags=()
  [ "$mode" = series ] && flags=("${series_flags[@]}")
  k=0
  for f in "${files[@]}"; do
    k=$((k + 1))
    start=$(date +%s%N)
    "$gridstore" --store "$store" import "$work/steps/$f" --dataset run --append \
      --expected-steps "$steps" "${flags[@]}" > /dev/null 2>&1 &
    importer=$!
    # Readable: a reader in another process fetches a value of the step (polled every 20 ms).
    until "$gridstore" --store "$store" fetch run --variables t --origin "$((k - 1)),0,0,0" \
        --shape 1,1,1,1 --format csv > /dev/null 2>&1; do
      kill -0 "$importer" 2> /dev/null || break
      sleep 0.02
    done
    readable=$(date +%s%N)
    wait "$importer"
    end=$(date +%s%N)
    echo "$mode readable $k $(( (readable - start) / 1000 ))" >> "$results"
    echo "$mode import $k $(( (end - start) / 1000 ))" >> "$results"
    for a in $at; do
      [ "$a" -eq "$k" ] || continue
      ms=$("$build/bench/random_places_bench" "$store" run t --only series --n "$n" |
        /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["shapes"]["series"]["median_ms"])')
      echo "$mode series $k $ms" >> "$results"
    done
  done
done
/usr/bin/python3 - "$results" "$levels" "$steps" <<'EOF'
import json, statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
levels, steps = int(sys.argv[2]), int(sys.argv[3])
def q(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p * (len(v) - 1))))]
out = {"bench": "growing_run", "levels": levels, "steps": steps}
for mode in ("planes", "series"):
    ms = [int(r[3]) / 1000 for r in rows if r[0] == mode and r[1] == "import"]
    ready = [int(r[3]) / 1000 for r in rows if r[0] == mode and r[1] == "readable"]
    out[mode] = {"arrival_to_readable_ms": {"p50": q(ready, .5), "p99": q(ready, .99),
                                            "max": max(ready)},
                 "import_ms": {"p50": q(ms, .5), "p99": q(ms, .99), "max": max(ms)},
                 "steps_per_s": len(ms) / (sum(ms) / 1000),
                 "point_series_ms": {r[2]: float(r[3]) for r in rows
                                     if r[0] == mode and r[1] == "series"}}
    a, i = out[mode]["arrival_to_readable_ms"], out[mode]["import_ms"]
    print(f"{mode:7s} arrival-to-readable p50 {a['p50']:.0f} ms, p99 {a['p99']:.0f} ms, "
          f"max {a['max']:.0f} ms; import process p50 {i['p50']:.0f} ms, max {i['max']:.0f} ms; "
          f"{out[mode]['steps_per_s']:.2f} steps/s")
out["throughput_share"] = out["series"]["steps_per_s"] / out["planes"]["steps_per_s"]
print(f"series store's ingest throughput: {100 * out['throughput_share']:.0f}% of planes only")
out["speedup"] = {}
for k, ms in out["planes"]["point_series_ms"].items():
    s = out["series"]["point_series_ms"].get(k)
    if s:
        out["speedup"][k] = ms / s
        print(f"point series after {k:>3s} steps: planes {ms:.3f} ms, series {s:.3f} ms "
              f"({ms / s:.1f}x)")
print(json.dumps(out))
EOF
