#!/usr/bin/env bash
# Copyright 2026 The GridStore Authors.
#
# GRIB import benchmark (issue 17): `gridstore import` of one GRIB2 run vs ecCodes' grib_to_netcdf
# converting the same file, each as a whole process, in one run. The input (bench/make_grib_run)
# is LEVELS x STEPS fields of the real 1199 x 799 temperature field of ../shared/grib/lambert.grib2
# on a regular 0.25 degree grid (grib_to_netcdf converts regular grids only), complex packing with
# spatial differencing: a few hundred MB, as one file of an operational run.
#
# Usage: bench/grib_import_bench.sh [BUILD_DIR=build] [WORK_DIR=/tmp/gridstore-grib-bench]
# Environment: RUNS=3 (median), LEVELS=10, STEPS=48, CODECS="shuffle-zstd:3 shuffle-zstd:1"
#              GRIDSTORE_TEST_GRIB=../shared/grib
# Prints one line per run and tool, a summary, and a JSON line starting with {"bench":"grib_import".
set -euo pipefail

BUILD=$(realpath -m "${1:-build}")
WORK=$(realpath -m "${2:-/tmp/gridstore-grib-bench}")
RUNS=${RUNS:-3}
LEVELS=${LEVELS:-10}
STEPS=${STEPS:-48}
CODECS=${CODECS:-"shuffle-zstd:3 shuffle-zstd:1"}
GRIB=${GRIDSTORE_TEST_GRIB:-$(dirname "$(realpath "$0")")/../../shared/grib}
GRIDSTORE="$BUILD/tools/gridstore"
GENERATOR="$BUILD/bench/make_grib_run"
IN="$WORK/run_${LEVELS}x${STEPS}.grib2"

die() { echo "grib_import_bench: $*" >&2; exit 1; }
for tool in "$GRIDSTORE" "$GENERATOR"; do
  [[ -x $tool ]] || die "$tool is missing: build with -DGRIDSTORE_BUILD_BENCHMARKS=ON"
done
command -v grib_to_netcdf >/dev/null || die "grib_to_netcdf is missing (Debian: libeccodes-tools)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (Debian: time)"
[[ -f $GRIB/lambert.grib2 ]] || die "no $GRIB/lambert.grib2 (set GRIDSTORE_TEST_GRIB)"
mkdir -p "$WORK"
[[ -f $IN ]] || "$GENERATOR" "$GRIB/lambert.grib2" "$IN" "$LEVELS" "$STEPS"
FIELDS=$(grib_count "$IN")
echo "input:   $IN: $(stat -L -c %s "$IN") bytes, $FIELDS GRIB2 fields of 1199 x 799 points"
echo "machine: $(nproc) cores ($(lscpu | sed -n 's/^Model name: *//p' | head -n 1)), $(uname -r)"
echo "         GridStore $(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo ?)," \
     "ecCodes $(codes_info -v 2>/dev/null || echo ?); input in the page cache (read once first)"
cat "$IN" > /dev/null
# The ratio assumes both cores free: gridstore uses two, grib_to_netcdf one. On a shared machine
# the load says how far that held.
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) before the runs"

# timed LABEL OUT CMD...: RUNS runs; MED (wall, cpu, rss MB) of the median-wall run.
timed() {
  local label=$1 out=$2 lines=() line i
  shift 2
  for ((i = 1; i <= RUNS; i++)); do
    rm -rf "$out"
    /usr/bin/time -o "$WORK/time.txt" -f "%e %U %S %M" "$@" > "$WORK/out.txt" 2> "$WORK/err.txt" ||
      { cat "$WORK/err.txt" >&2; die "$label failed"; }
    line=$(tail -n 1 "$WORK/time.txt")
    lines+=("$line")
    awk -v l="$label" -v i="$i" '{ printf "  %s run %d: %.2f s wall, %.2f s cpu, %d MB max RSS\n",
      l, i, $1, $2 + $3, $4 / 1024 }' <<< "$line"
  done
  MED=$(printf '%s\n' "${lines[@]}" | sort -n -k1,1 | sed -n "$(((RUNS + 1) / 2))p" |
        awk '{ printf "%s %.2f %d", $1, $2 + $3, $4 / 1024 }')
}

timed grib_to_netcdf "$WORK/out.nc" grib_to_netcdf -o "$WORK/out.nc" "$IN"
read -r NC_WALL NC_CPU NC_RSS <<< "$MED"
NC_BYTES=$(stat -c %s "$WORK/out.nc")
rm -f "$WORK/out.nc"
JSON="{\"bench\":\"grib_import\",\"fields\":$FIELDS,\"input_bytes\":$(stat -L -c %s "$IN"),"
JSON+="\"grib_to_netcdf\":{\"seconds\":$NC_WALL,\"cpu_seconds\":$NC_CPU,\"max_rss_mb\":$NC_RSS,\"output_bytes\":$NC_BYTES}"
echo
printf '%-34s %8s %8s %8s %12s %8s\n' tool wall_s cpu_s rss_mb output_bytes speedup
printf '%-34s %8s %8s %8s %12s %8s\n' grib_to_netcdf "$NC_WALL" "$NC_CPU" "$NC_RSS" "$NC_BYTES" 1.00
SUMMARY=()
for codec in $CODECS; do
  timed "gridstore $codec" "$WORK/store" "$GRIDSTORE" --store "$WORK/store" import "$IN" \
    --dataset run --codec "$codec"
  read -r GS_WALL GS_CPU GS_RSS <<< "$MED"
  GS_BYTES=$(du -sb "$WORK/store" | cut -f1)
  SPEEDUP=$(awk -v a="$NC_WALL" -v b="$GS_WALL" 'BEGIN { printf "%.2f", a / b }')
  SUMMARY+=("$(printf '%-34s %8s %8s %8s %12s %8s' "gridstore import --codec $codec" "$GS_WALL" "$GS_CPU" "$GS_RSS" "$GS_BYTES" "$SPEEDUP")")
  JSON+=",\"gridstore $codec\":{\"seconds\":$GS_WALL,\"cpu_seconds\":$GS_CPU,\"max_rss_mb\":$GS_RSS,\"store_bytes\":$GS_BYTES,\"speedup\":$SPEEDUP}"
done
rm -rf "$WORK/store"
printf '%s\n' "${SUMMARY[@]}"
echo "load:    $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) after the runs"
echo "$JSON}"
