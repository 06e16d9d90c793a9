#!/bin/bash
# Copyright 2026 The GridStore Authors.
#
# Lossy precision (issue 18): compression ratio and maximum / mean absolute error of
# `gridstore import --keep-bits / --keep-digits` beside netCDF-C's own BitRound and Granular
# BitRound (+ deflate 1 and shuffle), for the real float fields of ../shared/data and a field
# derived from the real `tos` (bench/make_derived_netcdf; 24 x LEVELS x 570 x 2880 float32: 158 MB
# with the default LEVELS=1, 1.26 GB with LEVELS=8, the import benchmark's file; ONLY_DERIVED=1
# skips the real files). Prints one markdown table (bench/bitround_compare.py does the work).
# Builds nothing.
#
# Usage: bench/bitround_bench.sh [BUILD_DIR] [WORK_DIR]
#   needs: BUILD_DIR/tools/gridstore and BUILD_DIR/bench/make_derived_netcdf;
#   GRIDSTORE_TEST_DATA (default ../shared/data beside the repository); /usr/bin/python3 with
#   netCDF4 and numpy (Debian: python3-netcdf4).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
BUILD="${1:-$HERE/../build}"
WORK="${2:-/tmp/gridstore-bitround}"
DATA="${GRIDSTORE_TEST_DATA:-$HERE/../../shared/data}"
mkdir -p "$WORK"
LEVELS="${LEVELS:-1}"
DERIVED="$WORK/thetao_24x${LEVELS}x570x2880.nc"
if [ ! -f "$DERIVED" ]; then
  "$BUILD/bench/make_derived_netcdf" "$DERIVED" --source "$DATA/tos_O1_2001-2002.nc" \
    --times 24 --levels "$LEVELS" >&2
fi
REAL=("$DATA/tos_O1_2001-2002.nc:tos"
  "$DATA/small_theta_colpex.nc:air_potential_temperature"
  "$DATA/nc4uvt.nc:T" "$DATA/nc4uvt.nc:U"
  "$DATA/contour.cdf:Z" "$DATA/contour.cdf:Psl"
  "$DATA/era5_1995-07-14T12.nc:t2m_C")
[ "${ONLY_DERIVED:-0}" = 1 ] && REAL=()
exec /usr/bin/python3 "$HERE/bitround_compare.py" "$BUILD/tools/gridstore" "$WORK" \
  "${REAL[@]}" "$DERIVED:thetao"
