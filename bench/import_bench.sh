#!/usr/bin/env bash
# Copyright 2026 The GridStore Authors.
#
# Import benchmark (issue 3): `gridstore import` vs `nccopy` rewriting the same file as netCDF-4
# deflate + shuffle with the same chunk shape as GridStore's blocks (time/1, depth/1, lat/256,
# lon/256), on a > 1 GB file derived from a real field (bench/make_derived_netcdf). Builds nothing.
#
# Usage: bench/import_bench.sh [BUILD_DIR=build-bench] [WORK_DIR=/tmp/gridstore-bench]
# Environment:
#   RUNS=3                                  runs per tool; the median (and best) wall time is
#                                           reported
#   GRIDSTORE_TEST_DATA=../shared/data      where tos_O1_2001-2002.nc is, to derive the input
#   CODECS="shuffle-zstd:3 shuffle-zstd:2 shuffle-zstd:1 shuffle-zstd:-1"
#                                           GridStore codecs to time (3 is the command's default)
#   NCCOPY_LEVEL=1                          nccopy deflate level (-d)
#   CACHE=cold                              cold: drop the page cache before every run (needs
#                                           root); falls back to warm if that is impossible.
#                                           warm: read the input once before every run.
#   WAIT_IDLE=                              e.g. 90: before each run wait (at most 10 min) until
#                                           the machine's CPUs were at least 90% idle for 3 s
#                                           (the machine may be shared)
#   KEEP=0                                  1 keeps the outputs (the input is always kept)
# Prints a table (tool, codec, seconds, MB/s, CPU seconds, output bytes, compression ratio,
# speed relative to nccopy) and one JSON line starting with {"bench":"import".
set -euo pipefail

BUILD=$(realpath -m "${1:-build-bench}")
WORK=$(realpath -m "${2:-/tmp/gridstore-bench}")
RUNS=${RUNS:-3}
CODECS=${CODECS:-"shuffle-zstd:3 shuffle-zstd:2 shuffle-zstd:1 shuffle-zstd:-1"}
NCCOPY_LEVEL=${NCCOPY_LEVEL:-1}
CACHE=${CACHE:-cold}
WAIT_IDLE=${WAIT_IDLE:-}
KEEP=${KEEP:-0}

GRIDSTORE="$BUILD/tools/gridstore"
GENERATOR="$BUILD/bench/make_derived_netcdf"
IN="$WORK/thetao_derived.nc"
INFO="$WORK/thetao_derived.txt"  # what the generator said it derived
VAR=thetao

die() { echo "import_bench: $*" >&2; exit 1; }
for tool in "$GRIDSTORE" "$GENERATOR"; do
  [[ -x $tool ]] || die "$tool is missing: build with -DGRIDSTORE_BUILD_BENCHMARKS=ON (see docs/benchmarks.md)"
done
command -v nccopy >/dev/null || die "nccopy is not installed (Debian: netcdf-bin)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is not installed (Debian: time)"
mkdir -p "$WORK"

# ---- input ----
if [[ ! -f $IN ]]; then
  DATA=${GRIDSTORE_TEST_DATA:-$(dirname "$(realpath "$0")")/../../shared/data}
  [[ -f $DATA/tos_O1_2001-2002.nc ]] || die "no $DATA/tos_O1_2001-2002.nc (set GRIDSTORE_TEST_DATA)"
  echo "generating $IN ..."
  "$GENERATOR" "$IN" --source "$(realpath "$DATA/tos_O1_2001-2002.nc")" | tee "$INFO"
elif [[ ! -f $INFO ]]; then
  { echo "(existing $IN; delete it to regenerate) history: "
    ncdump -h "$IN" | sed -n 's/^[[:space:]]*:history = "\(.*\)" ;$/\1/p'; } | tr -d '\n' > "$INFO"
  echo >> "$INFO"
fi
dim() { ncdump -h "$IN" | awk -v d="$1" '$1 == d && $2 == "=" { print $3 + 0; exit }'; }
NT=$(dim time); NZ=$(dim depth); NX=$(dim lat); NY=$(dim lon)
RAW=$((NT * NZ * NX * NY * 4))
SOURCE=$(ncdump -h "$IN" | sed -n 's/.*:source_file = "\(.*\)" ;/\1/p')
CHUNK="time/1,depth/1,lat/$((NX < 256 ? NX : 256)),lon/$((NY < 256 ? NY : 256))"

CORES=$(nproc)
MODEL=$(lscpu | sed -n 's/^Model name: *//p' | head -n 1)
NCVERSION=$(nc-config --version 2>/dev/null || echo "netCDF ?")
REV=$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo "?")
if [[ -n $(git -C "$(dirname "$0")" status --porcelain 2>/dev/null | head -n 1) ]]; then REV="$REV+local changes"; fi

# ---- page cache ----
drop_cache() {
  sync
  { echo 3 > /proc/sys/vm/drop_caches; } 2>/dev/null || return 1
  # Did it work? fincore's RES column is the input's resident size.
  local res
  res=$(fincore -nb -o RES "$IN" 2>/dev/null | awk '{ print $1 }') || return 0
  [[ -z $res || $res -lt $((RAW / 100)) ]]
}
if [[ $CACHE == cold ]] && ! drop_cache; then
  echo "note: cannot drop the page cache (not root?): running warm instead"
  CACHE=warm
fi
prepare_cache() {
  if [[ $CACHE == cold ]]; then
    drop_cache || die "dropping the page cache stopped working"
  else
    sync
    cat "$IN" > /dev/null
  fi
}
cpu_idle_percent() {  # over the next 3 seconds, all CPUs
  local a b
  a=$(head -n 1 /proc/stat)
  sleep 3
  b=$(head -n 1 /proc/stat)
  awk -v a="$a" -v b="$b" 'BEGIN {
    n = split(a, x); split(b, y); total = 0
    for (i = 2; i <= n; i++) total += y[i] - x[i]
    printf "%d", (total > 0 ? 100 * ((y[5] - x[5]) + (y[6] - x[6])) / total : 100) }'
}
wait_idle() {
  [[ -z $WAIT_IDLE ]] && return 0
  local waited=0 idle
  while idle=$(cpu_idle_percent); ((idle < WAIT_IDLE)); do
    ((waited >= 600)) && { echo "  note: CPUs only $idle% idle after 10 min of waiting; running anyway"; return 0; }
    sleep 2
    waited=$((waited + 5))
  done
}

echo
echo "== Import benchmark: GridStore vs nccopy =="
echo "input:   $IN: float $VAR(time $NT, depth $NZ, lat $NX, lon $NY) = $RAW bytes raw, netCDF-4 contiguous,"
echo "         uncompressed. DERIVED (not a real file of this size) from the real field 'tos' of"
echo "         ${SOURCE:-tos_O1_2001-2002.nc} (../shared/data). Derivation:"
fold -s -w 94 "$INFO" | sed 's/^/           /'
echo "machine: $CORES cores ($MODEL), $(free -g | awk '/^Mem:/ { print $2 }') GB RAM, $(uname -r); $NCVERSION; GridStore $REV"
echo "cache:   $CACHE ($([[ $CACHE == cold ]] && echo 'page cache dropped before every run: each tool reads the input from disk' || echo 'input read once before every run: each tool reads it from the page cache'))"
echo "runs:    $RUNS per tool, median wall time; load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo

# run_timed LABEL OUTPUT_PATH CMD... : runs CMD $RUNS times; sets MED_WALL, MED_CPU, MED_RSS,
# MIN_WALL (the best run: on a shared machine, other load only ever adds time), ALL_WALL and LOADS. OUTPUT_PATH is removed before every run.
run_timed() {
  local label=$1 out=$2
  shift 2
  local walls=() line i
  LOADS=""
  for ((i = 1; i <= RUNS; i++)); do
    rm -rf "$out"
    wait_idle
    prepare_cache
    LOADS+="$(cut -d' ' -f1 /proc/loadavg) "
    /usr/bin/time -o "$WORK/time.txt" -f "%e %U %S %M" "$@" > "$WORK/stdout.txt" 2> "$WORK/stderr.txt" ||
      { cat "$WORK/stderr.txt" >&2; die "$label failed"; }
    line=$(tail -n 1 "$WORK/time.txt")
    walls+=("$line")
    echo "  $label run $i: $(awk '{ printf "%.2f s wall, %.2f s cpu (%.2f user + %.2f sys), %d MB max RSS", $1, $2 + $3, $2, $3, $4 / 1024 }' <<< "$line")"
    AFTER_RUN "$out"
  done
  line=$(printf '%s\n' "${walls[@]}" | sort -n -k1,1 | sed -n "$(((RUNS + 1) / 2))p")
  MED_WALL=$(awk '{ print $1 }' <<< "$line")
  MED_CPU=$(awk '{ printf "%.2f", $2 + $3 }' <<< "$line")
  MED_RSS=$(awk '{ printf "%d", $4 / 1024 }' <<< "$line")
  MIN_WALL=$(printf '%s\n' "${walls[@]}" | sort -n -k1,1 | head -n 1 | awk '{ print $1 }')
  ALL_WALL=$(printf '%s\n' "${walls[@]}" | awk '{ printf "%s%s", (NR > 1 ? "," : ""), $1 }')
}

ROWS=()
JSON_ROWS=()
add_row() {  # tool codec wall cpu rss out_bytes [settled_bytes stored_block_bytes reopen_s]
  local tool=$1 codec=$2 wall=$3 cpu=$4 rss=$5 out=$6 settled=${7:-} stored=${8:-} reopen=${9:-}
  ROWS+=("$tool|$codec|$wall|$MIN_WALL|$cpu|$out|$settled")
  JSON_ROWS+=("$(awk -v t="$tool" -v c="$codec" -v w="$wall" -v b="$MIN_WALL" -v u="$cpu" -v m="$rss" -v o="$out" \
    -v d="$settled" -v s="$stored" -v ro="$reopen" -v r="$RAW" -v all="$ALL_WALL" -v ld="$LOADS" 'BEGIN {
      printf "{\"tool\":\"%s\",\"codec\":\"%s\",\"seconds\":%s,\"best_seconds\":%s,\"runs_seconds\":[%s],\"cpu_seconds\":%s,", t, c, w, b, all, u
      printf "\"max_rss_mb\":%s,\"mb_per_s\":%.1f,\"output_bytes\":%s,\"ratio\":%.3f", m, r / w / 1e6, o, r / o
      if (d != "") printf ",\"settled_bytes\":%s,\"ratio_settled\":%.3f", d, r / d
      if (s != "") printf ",\"stored_block_bytes\":%s,\"ratio_blocks\":%.3f", s, r / s
      if (ro != "") printf ",\"reopen_seconds\":%s", ro
      gsub(/ $/, "", ld); gsub(/ /, ",", ld); printf ",\"load_avg_at_runs\":[%s]}", ld }')")
}

# ---- nccopy ----
NC_OUT="$WORK/nccopy_out.nc"
AFTER_RUN() { NC_BYTES=$(stat -c %s "$1"); }
echo "nccopy -k nc4 -d $NCCOPY_LEVEL -s -c $CHUNK  (netCDF-4 deflate level $NCCOPY_LEVEL + shuffle, one thread)"
run_timed nccopy "$NC_OUT" nccopy -k nc4 -d "$NCCOPY_LEVEL" -s -c "$CHUNK" "$IN" "$NC_OUT"
echo "  output: $(ncdump -hs "$NC_OUT" | grep -E "$VAR:_(ChunkSizes|DeflateLevel|Shuffle)" | tr -d '\t;' | paste -sd ',' | sed 's/ = /=/g')"
NC_WALL=$MED_WALL
NC_BEST=$MIN_WALL
add_row nccopy "deflate:$NCCOPY_LEVEL+shuffle" "$MED_WALL" "$MED_CPU" "$MED_RSS" "$NC_BYTES"
[[ $KEEP == 1 ]] || rm -f "$NC_OUT"

# ---- gridstore ----
STORE="$WORK/store"
AFTER_RUN() {
  STORE_DU=$(du -sb "$1" | cut -f1)
  STORED=$("$GRIDSTORE" --store "$1" info bench --json | sed -n 's/.*"stored_bytes": *\([0-9]*\).*/\1/p')
  grep '^imported' "$WORK/stdout.txt" | sed 's/^/    /'
  # The import leaves WAL files whose data are also in SST files; opening the store read-write
  # replays and flushes them (a delete of a missing id writes nothing). Not timed with the import.
  local t0
  t0=$(date +%s.%N)
  "$GRIDSTORE" --store "$1" delete __import_bench_reopen__ > /dev/null 2>&1 || true
  REOPEN_S=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
  STORE_SETTLED=$(du -sb "$1" | cut -f1)
}
for codec in $CODECS; do
  echo
  echo "gridstore --store STORE import IN --dataset bench --block 256x256 --codec $codec  ($CORES threads)"
  run_timed "gridstore $codec" "$STORE" "$GRIDSTORE" --store "$STORE" import "$IN" --dataset bench \
    --block 256x256 --codec "$codec"
  echo "  store (last run): $STORE_DU bytes on disk right after the import (du -sb, WAL files included);"
  echo "    $STORE_SETTLED bytes once reopened read-write (WAL replayed and flushed, took $REOPEN_S s);"
  echo "    $STORED bytes of blocks (info --json stored_bytes)"
  add_row gridstore "$codec" "$MED_WALL" "$MED_CPU" "$MED_RSS" "$STORE_DU" "$STORE_SETTLED" "$STORED" "$REOPEN_S"
done
[[ $KEEP == 1 ]] || rm -rf "$STORE"
rm -f "$WORK/time.txt" "$WORK/stdout.txt" "$WORK/stderr.txt"

# ---- table ----
echo
printf '%-10s %-17s %7s %6s %6s %6s %12s %6s %12s %7s %9s %8s\n' tool codec seconds best MB/s cpu_s \
  output_bytes ratio settled_bytes ratio_s "vs nccopy" "best vs"
for row in "${ROWS[@]}"; do
  IFS='|' read -r tool codec wall best cpu out settled <<< "$row"
  awk -v t="$tool" -v c="$codec" -v w="$wall" -v b="$best" -v u="$cpu" -v o="$out" -v s="$settled" -v r="$RAW" \
    -v n="$NC_WALL" -v nb="$NC_BEST" 'BEGIN {
    printf "%-10s %-17s %7.2f %6.2f %6.0f %6.2f %12d %6.3f ", t, c, w, b, r / w / 1e6, u, o, r / o
    if (s != "") printf "%12d %7.3f ", s, r / s; else printf "%12s %7s ", "-", "-"
    printf "%8.2fx %7.2fx\n", n / w, nb / b }'
done
echo "ratio = raw bytes / output bytes (nccopy: the .nc file; gridstore: du -sb of the store directory"
echo "right after the import, WAL files included); ratio_s = raw / du -sb of the store once reopened"
echo "(WAL flushed into SST files: the size the store settles at)."
echo "seconds = median wall time of the runs, best = the fastest run, cpu_s = user + sys of the median run;"
echo "MB/s = raw bytes / median seconds; vs nccopy = nccopy median / tool median, best vs = the same"
echo "for best runs (aim: >= 5x, with a ratio >= nccopy's)."

printf '{"bench":"import","input":"%s","derived_from":"%s","raw_bytes":%d,"shape":[%d,%d,%d,%d],"cores":%d,"cpu":"%s","cache":"%s","runs":%d,"results":[%s]}\n' \
  "$IN" "${SOURCE:-tos_O1_2001-2002.nc}:tos" "$RAW" "$NT" "$NZ" "$NX" "$NY" "$CORES" "$MODEL" "$CACHE" "$RUNS" \
  "$(IFS=,; echo "${JSON_ROWS[*]}")"
