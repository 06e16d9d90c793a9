#!/usr/bin/env bash
# The build features as a user meets them, with the command as a whole process on real files
# (cmake/GridStoreFeatures.cmake): a feature built in works; one left out fails in one sentence
# that names the option and how to enable it, and everything else still works.
# Usage: features_test.sh GRIDSTORE SHARED_DIR WORK_DIR RADOS GRIB GEO SERVER (each ON or OFF)
set -uo pipefail
gs=$1 shared=$2 work=$3
declare -A with=([rados]=$4 [grib]=$5 [geo]=$6 [server]=$7)
rm -rf "$work" && mkdir -p "$work"
store=$work/store
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

on() { case "${with[$1]}" in ON | on | 1 | TRUE | true | YES | yes) return 0 ;; *) return 1 ;; esac; }

# Runs "$@"; with the feature on it must succeed, with it off fail naming the option.
expect() {
  local feature=$1 what=$2
  shift 2
  local out
  out=$("$@" 2>&1)
  local rc=$?
  local option="GRIDSTORE_WITH_${feature^^}=OFF"
  if on "$feature"; then
    [ $rc -eq 0 ] || fail "$what: exit $rc with $feature built in: $out"
    [[ "$out" != *"$option"* ]] || fail "$what: names $option with $feature built in"
  else
    [ $rc -ne 0 ] || fail "$what: succeeded without $feature"
    [[ "$out" == *"$option"* && "$out" == *"-DGRIDSTORE_WITH_${feature^^}=ON"* ]] ||
      fail "$what: does not say how to enable $feature: $out"
    [ "$(printf '%s\n' "$out" | grep -c .)" -le 1 ] || fail "$what: more than one line: $out"
  fi
}

# --version: the second line lists the features built in and names the ones left out.
version=$("$gs" --version) || fail "--version"
for f in rados grib geo server; do
  if on "$f"; then
    sed -n 2p <<<"$version" | sed 's/;.*//' | tr ' ' '\n' | grep -qx "$f" ||
      fail "--version lacks $f: $version"
  else
    [[ "$version" == *"$f (GRIDSTORE_WITH_${f^^}=OFF)"* ]] || fail "--version hides that $f is off"
  fi
done

# What needs no feature works in every build: NetCDF import, fetch, extract on a lat/lon grid.
"$gs" --store "$store" import "$shared/data/tos_O1_2001-2002.nc" --dataset tos > /dev/null \
  2> "$work/import.err" || fail "NetCDF import: $(cat "$work/import.err")"
"$gs" --store "$store" fetch tos --variables tos --origin 0,0,10,10 --shape 2,1,2,2 \
  --format csv > "$work/fetch.csv" || fail "fetch"
[ "$(wc -l < "$work/fetch.csv")" -gt 2 ] || fail "fetch wrote no values"
"$gs" --store "$store" extract tos --variables tos --point -30,0 --format csv > "$work/point.csv" ||
  fail "extract --point"
grep -q -- '-30' "$work/point.csv" || fail "extract --point wrote no row at -30"

# GRIB: recognised by content in every build; imported only with ecCodes.
expect grib "GRIB import" "$gs" --store "$store" import "$shared/grib/regular_gg.grib2" \
  --dataset gg
# GEO: a projected grid without lat/lon is placed with PROJ; a polygon is GEOS's.
"$gs" --store "$store" import "$shared/corpus/euro_air_temp_laea.nc" --dataset laea \
  > /dev/null 2>&1 || fail "LAEA import (the import itself needs no PROJ)"
expect geo "extract on a Lambert azimuthal grid" "$gs" --store "$store" extract laea --point 10,50 \
  --format csv
expect geo "extract --polygon" "$gs" --store "$store" extract tos --variables tos \
  --polygon "POLYGON((-40 -10,-20 -10,-20 10,-40 10,-40 -10))" --time 2001-01-16 --format csv
# RADOS: a cluster that does not exist is an error either way; without RADOS, that one.
out=$("$gs" --store "rados://nopool?conf=$work/none.conf" info x 2>&1) && fail "rados:// opened"
if on rados; then
  [[ "$out" != *GRIDSTORE_WITH_RADOS* ]] || fail "rados:// names the option with RADOS built in"
else
  [[ "$out" == *"GRIDSTORE_WITH_RADOS=OFF"* ]] || fail "rados:// without RADOS: $out"
fi
# SERVER: serve on a free port answers /collections; without it, one sentence.
if on server; then
  "$gs" --store "$store" serve --listen 127.0.0.1:0 2> "$work/serve.err" &
  pid=$!
  port=""
  for _ in $(seq 100); do
    port=$(grep -oE '127\.0\.0\.1:[0-9]+' "$work/serve.err" | head -1 | cut -d: -f2)
    [ -n "$port" ] && break
    sleep 0.1
  done
  if [ -z "$port" ]; then
    fail "serve printed no port: $(cat "$work/serve.err")"
  else
    python3 -c "import json,urllib.request as u; \
json.load(u.urlopen('http://127.0.0.1:$port/collections', timeout=30))" || fail "GET /collections"
  fi
  kill "$pid" 2> /dev/null
  wait "$pid" 2> /dev/null
else
  expect server "serve" "$gs" --store "$store" serve --listen 127.0.0.1:0
fi

[ $failures -eq 0 ] && echo "features: every check passed" || exit 1
