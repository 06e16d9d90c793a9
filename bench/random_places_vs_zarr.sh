#!/usr/bin/env bash
# Copyright 2026 The GridStore Authors.
#
# Random places, each read once (issue 33, part 0): GridStore in-process through the C++ library
# (bench/random_places_bench, decoded-block cache off) beside zarr-python (bench/
# random_places_zarr.py) on the same data, in one run. The data: thetao (24 t x 10 z x 570 x
# 1440 float32, 0.79 GB raw, derived from tos_O1_2001-2002.nc by bench/make_derived_netcdf), in
#   store       GridStore, `gridstore import` defaults (blocks 64x128, frames of 16 rows)
#   store256    GridStore, --block 256x256 (the earlier default)
#   zarr256     zarr v2, chunks 1x1x256x256, Blosc zstd 3 + shuffle (the issue's peer)
#   zarr64x128  zarr v2, chunks 1x1x64x128 (the same chunks as the store's blocks)
# Shapes: point series (24 t), profile (10 z), region 100x200, whole plane, 4-D box 6x5x200x300;
# 30 places each (fixed seed), the same for every engine. Rounds alternate the engines; each
# figure is the median over every place of every round. Then FRESH fresh processes each time the
# store's open and the first box of every shape (against the warm medians).
#
# Usage: bash bench/random_places_vs_zarr.sh BUILD_DIR WORK_DIR [ROUNDS=3] [FRESH=10]
# Needs the targets gridstore (tools), random_places_bench and make_derived_netcdf built, and
# Debian's /usr/bin/python3 with zarr 2, numcodecs and netCDF4. Prints a markdown table; the
# JSON of every run stays in WORK_DIR.
set -euo pipefail

die() { echo "random_places_vs_zarr: $*" >&2; exit 1; }
[[ $# -ge 2 && $# -le 4 ]] || die "usage: bash bench/random_places_vs_zarr.sh BUILD_DIR WORK_DIR [ROUNDS=3] [FRESH=10]"
BUILD=$(realpath -m "$1")
WORK=$(realpath -m "$2")
ROUNDS=${3:-3}
FRESH=${4:-10}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$(realpath -m "${GRIDSTORE_TEST_DATA:-$HERE/../../shared/data}")
PYTHON=${PYTHON:-/usr/bin/python3}
GS="$BUILD/tools/gridstore"
BENCH="$BUILD/bench/random_places_bench"
for f in "$GS" "$BENCH" "$BUILD/bench/make_derived_netcdf"; do
  [[ -x $f ]] || die "$f is missing: build the targets gridstore, random_places_bench and make_derived_netcdf"
done
"$PYTHON" -c 'import zarr, numcodecs, netCDF4, sys; sys.exit(0 if zarr.__version__.startswith("2.") else 1)' ||
  die "$PYTHON needs zarr 2, numcodecs and netCDF4 (Debian: python3-zarr python3-numcodecs python3-netcdf4)"

mkdir -p "$WORK"
IN="$WORK/thetao_derived.nc"
if [[ ! -f $IN ]]; then
  "$BUILD/bench/make_derived_netcdf" "$IN.tmp" --source "$DATA/tos_O1_2001-2002.nc" \
    --times 24 --levels 10 --lat 570 --lon 1440 >&2
  mv "$IN.tmp" "$IN"
fi
import_store() {  # DIR [import options]
  local dir=$1; shift
  [[ -d $dir ]] && return 0
  "$GS" --store "$dir.tmp" import "$IN" --dataset bench/thetao "$@" > /dev/null 2>&1 ||
    die "importing $IN into $dir.tmp failed"
  mv "$dir.tmp" "$dir"
}
import_store "$WORK/store"
import_store "$WORK/store256" --block 256x256
for chunk in 256x256 64x128; do
  z="$WORK/zarr$chunk"
  [[ -d $z ]] || "$PYTHON" "$HERE/random_places_zarr.py" prepare "$IN" thetao "$z" "${chunk%x*}" "${chunk#*x}"
done

"$BENCH" "$WORK/store" bench/thetao thetao --places "$WORK/places.json" > /dev/null
for r in $(seq 1 "$ROUNDS"); do
  echo "round $r of $ROUNDS" >&2
  "$BENCH" "$WORK/store" bench/thetao thetao > "$WORK/run-store-$r.json"
  "$PYTHON" "$HERE/random_places_zarr.py" "$WORK/zarr256x256" thetao "$WORK/places.json" > "$WORK/run-zarr256-$r.json"
  "$BENCH" "$WORK/store256" bench/thetao thetao > "$WORK/run-store256-$r.json"
  "$PYTHON" "$HERE/random_places_zarr.py" "$WORK/zarr64x128" thetao "$WORK/places.json" > "$WORK/run-zarr64x128-$r.json"
  "$BENCH" "$WORK/store" bench/thetao thetao --repeat > "$WORK/run-repeat-$r.json"
done
for i in $(seq 1 "$FRESH"); do
  "$BENCH" "$WORK/store" bench/thetao thetao --fresh-first > "$WORK/run-fresh-$i.json"
done

"$PYTHON" - "$WORK" "$ROUNDS" "$FRESH" << 'PY'
import json, statistics, sys
work, rounds, fresh = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
def runs(name, n):
    return [json.load(open(f"{work}/run-{name}-{i}.json")) for i in range(1, n + 1)]
def med(name, n, shape):
    return statistics.median(ms for r in runs(name, n) for ms in r["shapes"][shape]["ms"])
shapes = ["series", "profile", "region", "plane", "box4d"]
labels = {"series": "point series (24 t)", "profile": "profile (10 z)", "region": "region 100x200",
          "plane": "whole plane 570x1440", "box4d": "4-D box 6x5x200x300"}
first = runs("store", 1)[0]["shapes"]
print("| shape | GridStore ms | zarr 256x256 ms | ratio | GridStore 256x256 blocks ms | zarr 64x128 ms | ratio, same chunks | repeated box ms | fresh first box ms | fresh / warm | bytes read | bytes decoded |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for s in shapes:
    g, z2, g2, z6 = (med(n, rounds, s) for n in ("store", "zarr256", "store256", "zarr64x128"))
    rep = med("repeat", rounds, s)
    fr = statistics.median(r["shapes"][s]["ms"][0] for r in runs("fresh", fresh))
    print(f"| {labels[s]} | {g:.3f} | {z2:.3f} | **{z2 / g:.1f}x** | {g2:.3f} | {z6:.3f} | {z6 / g:.1f}x | {rep:.3f} | {fr:.3f} | {fr / g:.2f} | {first[s]['bytes_read']:,.0f} | {first[s]['bytes_decoded']:,.0f} |")
opens = [r["open_ms"] for r in runs("fresh", fresh)]
print(f"\nstore open + dataset meta in a fresh process: median {statistics.median(opens):.2f} ms")
PY
