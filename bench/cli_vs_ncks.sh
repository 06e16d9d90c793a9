#!/usr/bin/env bash
# Copyright 2026 The GridStore Authors.
#
# CLI start-to-exit benchmark (issue 13): `gridstore fetch` of small slices from a settled RocksDB
# store versus `ncks -d` extracting the same hyperslab from a netCDF-4 deflate copy of the file
# chunked like the store's blocks, each timed as a whole process (start-up, open, read, write,
# exit), median of RUNS runs (hyperfine -N: no shell in between), the two tools in the same
# hyperfine run so that both see the same machine. Builds nothing: give it the build folder that holds tools/gridstore.
#
# With FB set, also on the fetch benchmark's data (bench/fetch_bench_data FB: 4 variables of
# 24 t x 10 z x 570 x 2880 float32; fields_deflate.nc, netCDF-4 chunked 1x1x256x256 with shuffle
# and deflate 1, against the store of the same data): a point series, a vertical profile, a
# 100 x 200 region and a whole plane of thetao, to nc and npy, and `extract --point LON,LAT`
# against `ncks -d lat,V -d lon,V` by coordinate value (issue 33, part 1). Read-only there.
#
# Usage: bench/cli_vs_ncks.sh [BUILD_DIR=build] [WORK_DIR=/tmp/gridstore-cli-bench]
# Environment:
#   FB=                                     a fetch_bench_data folder (fields_deflate.nc, store)
#   RUNS=50                                 runs per command; the median is reported
#   GRIDSTORE_TEST_DATA=../shared/data      where tos_O1_2001-2002.nc and era5_1995-07-14T12.nc are
#   BLOCK=64                                block side of the store and chunk side of the netCDF-4
#                                           copy (nccopy -c time/1,lat/B,lon/B)
#   KEEP=0                                  1 keeps the store, the copies and the outputs
# Prints a table (query, gridstore's output format, gridstore and ncks medians in ms, their ratio
# ncks/gridstore, the mean CPU time (user + system) of each in ms and its ratio, peak RSS of each
# in KiB from /usr/bin/time -f %M) and one JSON line per row starting with {"bench":"cli_vs_ncks".
# On a shared machine the CPU ratio is the steadier one: wall times include waiting for a core.
set -euo pipefail

BUILD=$(realpath -m "${1:-build}")
WORK=$(realpath -m "${2:-/tmp/gridstore-cli-bench}")
RUNS=${RUNS:-50}
BLOCK=${BLOCK:-64}
KEEP=${KEEP:-0}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$(realpath -m "${GRIDSTORE_TEST_DATA:-$HERE/../../shared/data}")

GRIDSTORE="$BUILD/tools/gridstore"
TOS="$DATA/tos_O1_2001-2002.nc"
ERA5="$DATA/era5_1995-07-14T12.nc"
STORE="$WORK/store"

die() { echo "cli_vs_ncks: $*" >&2; exit 1; }
[ -x "$GRIDSTORE" ] || die "no gridstore command at $GRIDSTORE (build it, or give the build folder)"
for tool in ncks nccopy hyperfine jq /usr/bin/time; do
  command -v "$tool" > /dev/null || die "$tool is missing (scripts/install-deps.sh installs it)"
done
for f in "$TOS" "$ERA5"; do [ -r "$f" ] || die "cannot read $f (set GRIDSTORE_TEST_DATA)"; done
if [ -n "${FB:-}" ]; then
  FB=$(realpath -m "$FB")
  [ -r "$FB/fields_deflate.nc" ] && [ -d "$FB/store" ] ||
    die "FB=$FB holds no fields_deflate.nc and store (make them: build/bench/fetch_bench_data FB)"
fi
[[ $RUNS =~ ^[1-9][0-9]*$ ]] || die "RUNS must be a positive integer, not '$RUNS'"
# Commands are kept as words split at spaces (row below).
[[ "$WORK$BUILD" != *" "* ]] || die "the build and work folders must not contain spaces"

rm -rf "$WORK"
mkdir -p "$WORK/out"
cleanup() { if [ "$KEEP" != 1 ]; then rm -rf "$WORK"; fi; }
trap cleanup EXIT

# ---- inputs: the store (settled by import) and the netCDF-4 copies ----
for input in "tos $TOS" "era5 $ERA5"; do
  read -r id file <<< "$input"
  "$GRIDSTORE" --store "$STORE" import "$file" --dataset "$id" --block "${BLOCK}x${BLOCK}" \
    > "$WORK/import.log" 2>&1 || die "importing $file failed: $(tail -n 1 "$WORK/import.log")"
done
nccopy -k nc4 -d 1 -c "time/1,lat/$BLOCK,lon/$BLOCK" "$TOS" "$WORK/tos_nc4.nc"
nccopy -k nc4 -d 1 -c "latitude/$BLOCK,longitude/$BLOCK" "$ERA5" "$WORK/era5_nc4.nc"

# ---- timing ----
# hyperfine -N runs each command without a shell (fork+exec and wait, nothing else), after two
# warm-up runs (the files then sit in the page cache), RUNS times; the medians are compared. (A
# bash loop timing with $EPOCHREALTIME adds bash's own fork, ~0.5 ms, to both tools alike, which
# understates the ratio of the faster one.)
peak_rss_kib() {
  /usr/bin/time -f %M -o "$WORK/rss" "$@" > /dev/null 2>&1 || die "failed: $*"
  tail -n 1 "$WORK/rss"
}
# The median of hyperfine's result N (0-based) in ms, 3 decimals; its mean CPU time (user + system).
median_ms() { jq -r ".results[$1].median * 1000 | . * 1000 | round / 1000" "$WORK/h.json"; }
cpu_ms() { jq -r ".results[$1] | (.user + .system) * 1000 | . * 100 | round / 100" "$WORK/h.json"; }

# One row: a query, gridstore's command and ncks's command for the same hyperslab, timed in one
# hyperfine run.
printf '%-34s %-7s %12s %10s %14s %9s %9s %9s %12s %10s\n' query format gridstore_ms ncks_ms \
  ncks/gridstore g_cpu_ms n_cpu_ms cpu_ratio gridstore_KiB ncks_KiB
row() {
  local name=$1 format=$2 g=$3 n=$4
  local -a gs ns
  read -r -a gs <<< "$g"
  read -r -a ns <<< "$n"
  "${gs[@]}" > /dev/null 2>&1 || die "failed: ${gs[*]}"
  "${ns[@]}" > /dev/null 2>&1 || die "failed: ${ns[*]}"
  hyperfine -N --style none --warmup 2 --runs "$RUNS" --export-json "$WORK/h.json" "$g" "$n" \
    > /dev/null 2>&1 || die "hyperfine failed on: $g / $n"
  local gm nm ratio grss nrss gc nc cratio
  gm=$(median_ms 0)
  nm=$(median_ms 1)
  ratio=$(awk -v g="$gm" -v n="$nm" 'BEGIN { printf "%.2f\n", n / g }')
  gc=$(cpu_ms 0)
  nc=$(cpu_ms 1)
  cratio=$(awk -v g="$gc" -v n="$nc" 'BEGIN { printf "%.2f\n", n / g }')
  grss=$(peak_rss_kib "${gs[@]}")
  nrss=$(peak_rss_kib "${ns[@]}")
  printf '%-34s %-7s %12s %10s %14s %9s %9s %9s %12s %10s\n' "$name" "$format" "$gm" "$nm" \
    "$ratio" "$gc" "$nc" "$cratio" "$grss" "$nrss"
  printf '{"bench":"cli_vs_ncks","query":"%s","format":"%s","runs":%d,"gridstore_ms":%s,%s%s\n' \
    "$name" "$format" "$RUNS" "$gm" \
    "\"ncks_ms\":$nm,\"ratio\":$ratio,\"gridstore_cpu_ms\":$gc,\"ncks_cpu_ms\":$nc," \
    "\"cpu_ratio\":$cratio,\"gridstore_rss_kib\":$grss,\"ncks_rss_kib\":$nrss}" >> "$WORK/json"
}

G="$GRIDSTORE --store $STORE fetch"
O="$WORK/out"
# tos(time 24, lat 170, lon 180) is t, x, y in the store: origin and shape are T,Z,X,Y.
for format in csv npy nc; do
  row "tos point series (24 values)" "$format" \
    "$G tos --variables tos --origin 0,0,85,100 --shape 24,1,1,1 -o $O/series.$format" \
    "ncks -O -d lat,85 -d lon,100 -v tos $WORK/tos_nc4.nc $O/series_ncks.nc"
done
for format in csv npy nc; do
  row "tos box (1 x 10 x 10)" "$format" \
    "$G tos --variables tos --origin 0,0,80,90 --shape 1,1,10,10 -o $O/box.$format" \
    "ncks -O -d time,0 -d lat,80,89 -d lon,90,99 -v tos $WORK/tos_nc4.nc $O/box_ncks.nc"
done
for format in csv npy; do
  row "era5 t2m box (10 x 10)" "$format" \
    "$G era5 --variables t2m --origin 0,0,50,100 --shape 1,1,10,10 -o $O/era5.$format" \
    "ncks -O -d latitude,50,59 -d longitude,100,109 -v t2m $WORK/era5_nc4.nc $O/era5_ncks.nc"
done

if [ -n "${FB:-}" ]; then
  FBNC="$FB/fields_deflate.nc"
  G="$GRIDSTORE --store $FB/store fetch bench --variables thetao"
  N="ncks -O -v thetao"
  # thetao(time 24, depth 10, lat 570, lon 2880): t, z, x, y in the store.
  for format in nc npy; do
    row "fb point series (24 t)" "$format" \
      "$G --origin 0,0,300,1500 --shape 24,1,1,1 -o $O/fb_series.$format" \
      "$N -d depth,0 -d lat,300 -d lon,1500 $FBNC $O/fb_series_ncks.nc"
    row "fb profile (10 z)" "$format" \
      "$G --origin 5,0,300,1500 --shape 1,10,1,1 -o $O/fb_profile.$format" \
      "$N -d time,5 -d lat,300 -d lon,1500 $FBNC $O/fb_profile_ncks.nc"
    row "fb region (100 x 200)" "$format" \
      "$G --origin 5,3,200,1000 --shape 1,1,100,200 -o $O/fb_region.$format" \
      "$N -d time,5 -d depth,3 -d lat,200,299 -d lon,1000,1199 $FBNC $O/fb_region_ncks.nc"
    row "fb whole plane (570 x 2880)" "$format" \
      "$G --origin 5,3,0,0 --shape 1,1,570,2880 -o $O/fb_plane.$format" \
      "$N -d time,5 -d depth,3 $FBNC $O/fb_plane_ncks.nc"
  done
  # By coordinate value: lon[1500] = 187.5, lat[300] = 9.60369068541 (every t and z, 240 values).
  for format in csv nc covjson; do
    row "fb extract --point (24 t x 10 z)" "$format" \
      "$GRIDSTORE --store $FB/store extract bench --variables thetao --point 187.5,9.60369068541 --format $format -o $O/fb_point.$format" \
      "$N -d lat,9.60369068541 -d lon,187.5 $FBNC $O/fb_point_ncks.nc"
  done
  # The same values: ncks reads both outputs of the series (gridstore's nc is a classic file).
  for i in 0 23; do
    a=$(ncks -H --trd -C -v thetao -d time,$i "$O/fb_series_ncks.nc" | grep -o 'thetao\[[0-9]*\]=[^ ]*')
    b=$(ncks -H --trd -C -v thetao -d time,$i "$O/fb_series.nc" | grep -o 'thetao\[[0-9]*\]=[^ ]*')
    [ -n "$a" ] && [ "${a#*=}" = "${b#*=}" ] || die "the series differ at t=$i: ncks $a, gridstore $b"
  done
fi

# The slices are the same: the series has 24 rows, the box 100, and the first values agree.
[ "$(wc -l < "$O/series.csv")" -eq 25 ] || die "the series is not 24 rows"
[ "$(wc -l < "$O/box.csv")" -eq 101 ] || die "the box is not 100 rows"
ncks_first=$(ncks -H --trd -C -v tos -d lat,85 -d lon,100 -d time,0 "$WORK/tos_nc4.nc" |
  sed -n 's/.*tos\[[0-9]*\]=\([^ ]*\).*/\1/p' | head -n 1)
ours_first=$(sed -n 2p "$O/series.csv" | awk -F, '{ print $NF }')
awk -v a="$ncks_first" -v b="$ours_first" 'BEGIN { d = a - b; if (d < 0) d = -d;
  exit !(d <= 1e-5 * (a < 0 ? -a : a)) }' ||
  die "the first value differs: ncks $ncks_first, gridstore $ours_first"
cat "$WORK/json"
