#!/usr/bin/env bash
# Copyright 2026 The GridStore Authors.
#
# Forecast collections as whole processes (issue 31), side by side in one run: the questions a
# forecaster asks of an ensemble and of many runs, answered by `gridstore extract COLLECTION`
# and by Python over the same data as files, each a fresh process (start-up, open, select,
# compute, print):
#   - xarray over the GRIB files with cfgrib (Debian's python3-cfgrib; its index files kept
#     beside the GRIB, as a user's second run has them);
#   - netCDF4 over NetCDF copies of them (one file per run, written once by xarray).
# The data: tests/data/make_forecast_runs.py (real ERA5 fields, runs 12 h apart, steps 6 h
# apart, members cf + pf), imported with the series layout.
# Questions: Q1 the latest run's p10/p50/p90 of t at 850 hPa at a point over every step;
# Q2 constant forecast time: member 0's t at one valid time from every run covering it;
# Q3 the latest run's every member at a point (a plume).
#
# Usage: bash bench/collection_vs_xarray.sh BUILD_DIR WORK_DIR
# Environment: RUNS=8 MEMBERS=10 STEPS=20 (the collection), ROUNDS=10 (hyperfine runs),
#              GRIDSTORE_TEST_GRIB=../shared/grib, PYTHON=/usr/bin/python3
set -euo pipefail
die() { echo "collection_vs_xarray: $*" >&2; exit 1; }
[[ $# -eq 2 ]] || die "usage: bash bench/collection_vs_xarray.sh BUILD_DIR WORK_DIR"
BUILD=$(realpath -m "$1")
WORK=$(realpath -m "$2")
HERE=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-8} MEMBERS=${MEMBERS:-10} STEPS=${STEPS:-20} ROUNDS=${ROUNDS:-10}
PYTHON=${PYTHON:-/usr/bin/python3}
GS="$BUILD/tools/gridstore"
[[ -x "$GS" ]] || die "$GS is not built"
command -v hyperfine >/dev/null || die "hyperfine is missing (scripts/install-deps.sh)"
mkdir -p "$WORK"
STORE="$WORK/store"

if [[ ! -d "$WORK/grib" ]]; then
  echo "== making $RUNS runs x $MEMBERS members x $STEPS steps"
  "$PYTHON" "$HERE/../tests/data/make_forecast_runs.py" --runs "$RUNS" --members "$MEMBERS" \
    --steps "$STEPS" --out "$WORK/grib.tmp"
  mv "$WORK/grib.tmp" "$WORK/grib"
fi
if [[ ! -d "$STORE" ]]; then
  echo "== importing into GridStore (series layout)"
  for f in "$WORK"/grib/*.grib; do
    run=$(basename "$f" .grib)
    "$GS" --store "$STORE" import "$f" --dataset "$run" --layouts plane,series >/dev/null 2>&1
  done
fi
if [[ ! -d "$WORK/nc" ]]; then
  echo "== NetCDF copies (xarray + cfgrib, once)"
  mkdir -p "$WORK/nc.tmp"
  for f in "$WORK"/grib/*.grib; do
    "$PYTHON" - "$f" "$WORK/nc.tmp/$(basename "$f" .grib).nc" <<'PY'
import sys, xarray as xr
# cfgrib opens the control (cf) and perturbed (pf) members apart; one ensemble is their concat.
kw = {"indexpath": ""}
pf = xr.open_dataset(sys.argv[1], engine="cfgrib", backend_kwargs={**kw, "filter_by_keys": {"dataType": "pf"}})
cf = xr.open_dataset(sys.argv[1], engine="cfgrib", backend_kwargs={**kw, "filter_by_keys": {"dataType": "cf"}})
xr.concat([cf.expand_dims("number"), pf], dim="number").to_netcdf(sys.argv[2])
PY
  done
  mv "$WORK/nc.tmp" "$WORK/nc"
fi
LATEST=$(ls "$WORK"/grib/*.grib | tail -1)
LATEST_NC="$WORK/nc/$(basename "$LATEST" .grib).nc"
LON=116.4 LAT=39.9
# Q2's valid time: the latest run's +12 h, which the last three runs cover (12 h apart, 6 h steps).
VALID=$("$GS" --store "$STORE" collections --json | "$PYTHON" -c '
import json, sys, datetime
c = json.load(sys.stdin)[0]
t = datetime.datetime.fromisoformat(c["runs"][-1].replace("Z", "+00:00")) + datetime.timedelta(hours=12)
print(t.strftime("%Y-%m-%dT%H:%M:%SZ"))')
COLLECTION=$("$GS" --store "$STORE" collections --json | "$PYTHON" -c 'import json,sys; print(json.load(sys.stdin)[0]["name"])')
# cfgrib's index files, made once (a user's second open has them).
for f in "$WORK"/grib/*.grib; do
  for t in cf pf; do
    "$PYTHON" -c "import xarray as xr, sys; xr.open_dataset(sys.argv[1], engine='cfgrib', backend_kwargs={'filter_by_keys': {'dataType': sys.argv[2]}})" "$f" "$t" >/dev/null 2>&1
  done
done

cat > "$WORK/q.py" <<'PY'
import glob, sys
import numpy as np
q, engine, path, lon, lat, valid = sys.argv[1:7]
lon, lat = float(lon), float(lat)
if engine == "cfgrib":
    import xarray as xr
    def open_(p):
        # cfgrib opens the control (cf) and perturbed (pf) members apart (its index files kept).
        pf = xr.open_dataset(p, engine="cfgrib", backend_kwargs={"filter_by_keys": {"dataType": "pf"}})
        cf = xr.open_dataset(p, engine="cfgrib", backend_kwargs={"filter_by_keys": {"dataType": "cf"}})
        return xr.concat([cf.expand_dims("number"), pf], dim="number")
else:
    import netCDF4
def point(ds):
    return ds.t.sel(isobaricInhPa=850).sel(latitude=lat, longitude=lon, method="nearest")
if engine == "cfgrib":
    if q == "q1":
        print(point(open_(path)).quantile([0.1, 0.5, 0.9], dim="number").values)
    elif q == "q3":
        print(point(open_(path)).values)
    else:
        v = np.datetime64(valid.rstrip("Z"))
        for p in sorted(glob.glob(path + "/*.grib")):
            ds = open_(p)
            hit = ds.valid_time.values == v
            if hit.any():
                print(point(ds).sel(number=0).isel(step=int(np.argmax(hit))).values)
else:
    def nc_point(d):
        la, lo = d["latitude"][:], d["longitude"][:]
        return int(np.abs(la - lat).argmin()), int(np.abs(lo - lon).argmin()), \
               int(np.where(d["isobaricInhPa"][:] == 850)[0][0])
    if q in ("q1", "q3"):
        d = netCDF4.Dataset(path)
        y, x, z = nc_point(d)
        t = d["t"][:, :, z, y, x]  # (number, step)
        print(np.percentile(t, [10, 50, 90], axis=0) if q == "q1" else t)
    else:
        v = np.datetime64(valid.rstrip("Z"))
        for p in sorted(glob.glob(path + "/*.nc")):
            d = netCDF4.Dataset(p)
            vt = netCDF4.num2date(d["valid_time"][:], d["valid_time"].units,
                                  only_use_cftime_datetimes=False)
            hit = np.array([np.datetime64(t) for t in vt]) == v
            if hit.any():
                y, x, z = nc_point(d)
                print(d["t"][0, int(np.argmax(hit)), z, y, x])
PY
G="$GS --store $STORE extract $COLLECTION --variables t --level 850 --point $LON,$LAT --format csv -o /dev/null"
P="$PYTHON $WORK/q.py"
hf() {  # hf NAME CMD...: hyperfine the commands, JSON into WORK/NAME.json
  local name=$1; shift
  hyperfine -N --warmup 2 --runs "$ROUNDS" --export-json "$WORK/$name.json" "$@" >/dev/null
  "$PYTHON" - "$WORK/$name.json" "$name" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = r[0]["median"]
for x in r:
    print(f"| {sys.argv[2]} | {x['command'][:70]} | {x['median']*1000:.1f} ms | {x['median']/base:.1f}x |")
PY
}
echo "| question | command | median | vs gridstore |"
echo "|---|---|---|---|"
hf q1 "$G --stat p10,p50,p90" "$P q1 cfgrib $LATEST $LON $LAT -" "$P q1 netcdf4 $LATEST_NC $LON $LAT -"
hf q2 "$G --member 0 --valid-time $VALID" "$P q2 cfgrib $WORK/grib $LON $LAT $VALID" \
  "$P q2 netcdf4 $WORK/nc $LON $LAT $VALID"
hf q3 "$G" "$P q3 cfgrib $LATEST $LON $LAT -" "$P q3 netcdf4 $LATEST_NC $LON $LAT -"
