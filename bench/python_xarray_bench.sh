#!/usr/bin/env bash
# Copyright 2026 The GridStore Authors.
#
# Python/xarray read benchmark: point time series, vertical profile, 100x200 region and a whole
# plane through xarray, engine="gridstore" vs engine="netcdf4" (netCDF-4 deflate + shuffle,
# chunked like the blocks) vs engine="zarr" (zarr v2, same chunks, Blosc zstd + shuffle), in one
# run (bench/python_xarray_bench.py does the work; docs/benchmarks.md has the results).
# Builds nothing: give it a build folder configured with -DGRIDSTORE_BUILD_BENCHMARKS=ON in which
# the targets gridstore_python and make_derived_netcdf are built.
#
# Usage: bash bench/python_xarray_bench.sh BUILD_DIR WORK_DIR [ROUNDS=30]
# Environment:
#   GRIDSTORE_TEST_DATA=../shared/data   where tos_O1_2001-2002.nc is, to derive the input
#   SIZE="--times 24 --levels 8 --lat 570 --lon 1440"
#                                        make_derived_netcdf's size options (the input is made
#                                        only if WORK_DIR/thetao_derived.nc is missing)
#   PASSES=3                             the rounds are split into passes; in each pass every
#                                        engine runs in a fresh process, in rotating order
#   ENGINES=gridstore,gridstore-nocache,netcdf4,zarr
#                                        also: gridstore-1thread (store_options threads=1)
#   NCCOPY_LEVEL=1                       deflate level of the netCDF-4 copy
#   WAIT_IDLE=                           e.g. 85: before each engine's process, wait (at most 10
#                                        min) until the CPUs were that % idle for 3 s
#   PROFILE=0                            1: afterwards, time the gridstore engine's layers and
#                                        cProfile each query (python_xarray_bench.py profile)
#   PYTHON=/usr/bin/python3              Debian's Python, with numpy, xarray, dask, netCDF4,
#                                        zarr 2 and numcodecs
# Prints a markdown table and one JSON line starting with {"bench":"python_xarray"; every timing
# goes to WORK_DIR/python_xarray.json. The inputs (about 1.2 GB) stay in WORK_DIR for the next run.
set -euo pipefail

die() { echo "python_xarray_bench: $*" >&2; exit 1; }
[[ $# -ge 2 && $# -le 3 ]] || die "usage: bash bench/python_xarray_bench.sh BUILD_DIR WORK_DIR [ROUNDS=30]"
BUILD=$(realpath -m "$1")
WORK=$(realpath -m "$2")
ROUNDS=${3:-30}
HERE=$(cd "$(dirname "$0")" && pwd)
DATA=$(realpath -m "${GRIDSTORE_TEST_DATA:-$HERE/../../shared/data}")
SIZE=${SIZE:-"--times 24 --levels 8 --lat 570 --lon 1440"}
PASSES=${PASSES:-3}
ENGINES=${ENGINES:-gridstore,gridstore-nocache,netcdf4,zarr}
NCCOPY_LEVEL=${NCCOPY_LEVEL:-1}
WAIT_IDLE=${WAIT_IDLE:-0}
PROFILE=${PROFILE:-0}
PYTHON=${PYTHON:-/usr/bin/python3}

GENERATOR="$BUILD/bench/make_derived_netcdf"
PYDIR="$BUILD/python"
IN="$WORK/thetao_derived.nc"

[[ $ROUNDS =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive integer, not '$ROUNDS'"
[[ -x $PYTHON ]] || die "no Python at $PYTHON (set PYTHON; Debian's /usr/bin/python3 is meant)"
[[ -d $PYDIR/gridstore ]] ||
  die "no Python package in $PYDIR (build it: cmake --build $BUILD --target gridstore_python)"
command -v nccopy > /dev/null || die "nccopy is not installed (Debian: netcdf-bin)"
export PYTHONPATH="$PYDIR${PYTHONPATH:+:$PYTHONPATH}"
missing=$("$PYTHON" - << 'EOF'
import importlib
missing = []
for m in ("numpy", "xarray", "dask", "netCDF4", "zarr", "numcodecs", "gridstore"):
    try:
        importlib.import_module(m)
    except Exception as e:  # noqa: BLE001
        missing.append(f"{m} ({type(e).__name__}: {e})")
print("; ".join(missing))
EOF
) || die "$PYTHON cannot run"
[[ -z $missing ]] || die "$PYTHON lacks: $missing (Debian: python3-xarray python3-dask python3-netcdf4 python3-zarr python3-numcodecs; gridstore from $PYDIR)"
"$PYTHON" -c 'import zarr, sys; sys.exit(0 if zarr.__version__.startswith("2.") else 1)' ||
  die "zarr 2 is needed (the zarr v2 format with numcodecs.Blosc)"

mkdir -p "$WORK"
if [[ ! -f $IN ]]; then
  [[ -x $GENERATOR ]] ||
    die "$GENERATOR is missing: configure with -DGRIDSTORE_BUILD_BENCHMARKS=ON and build the target make_derived_netcdf"
  [[ -f $DATA/tos_O1_2001-2002.nc ]] || die "no $DATA/tos_O1_2001-2002.nc (set GRIDSTORE_TEST_DATA)"
  echo "generating $IN ..."
  # shellcheck disable=SC2086  # SIZE is a list of options
  "$GENERATOR" "$IN.tmp" --source "$DATA/tos_O1_2001-2002.nc" $SIZE | tee "$WORK/thetao_derived.txt"
  mv "$IN.tmp" "$IN"
fi

"$PYTHON" "$HERE/python_xarray_bench.py" prepare --input "$IN" --work "$WORK" \
  --deflate "$NCCOPY_LEVEL"
"$PYTHON" "$HERE/python_xarray_bench.py" run --work "$WORK" --rounds "$ROUNDS" \
  --passes "$PASSES" --engines "$ENGINES" --wait-idle "$WAIT_IDLE" \
  --json "$WORK/python_xarray.json"
if [[ $PROFILE == 1 ]]; then
  "$PYTHON" "$HERE/python_xarray_bench.py" profile --work "$WORK" --rounds "$ROUNDS"
fi
