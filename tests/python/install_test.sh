#!/usr/bin/env bash
# The installed package: `cmake --install BUILD --component python --prefix TMP` into a
# temporary prefix, then, from another folder and with nothing of the build tree on the path,
# Debian's python3 imports it, xarray finds engine="gridstore" through its entry point, and a
# store is read through it.
# Usage: install_test.sh BUILD_DIR WORK_DIR DATA_DIR
set -euo pipefail
build=$(realpath "$1") work=$2 data=$(realpath "$3")
rm -rf "$work" && mkdir -p "$work" && work=$(realpath "$work")
cmake --install "$build" --component python --prefix "$work/prefix" > "$work/install.log"
site=$(/usr/bin/python3 "$(dirname "$0")/../../python/install_dir.py")
test -f "$work/prefix/$site/gridstore/__init__.py"
test -f "$work/prefix/$site/gridstore/_core.pyi"
ls "$work/prefix/$site"/gridstore-*.dist-info/entry_points.txt > /dev/null
cd "$work"
env -i PATH=/usr/bin:/bin HOME="$work" PYTHONPATH="$work/prefix/$site" PYTHONWARNINGS=ignore \
  /usr/bin/python3 - "$work/prefix/$site" "$data" <<'PY'
import sys, pathlib
import gridstore
import xarray as xr
site, data = sys.argv[1], pathlib.Path(sys.argv[2])
assert gridstore.__file__.startswith(site), gridstore.__file__
engine = xr.backends.list_engines()["gridstore"]
assert type(engine).__module__ == "gridstore.xarray_backend", engine
with gridstore.open("store", read_only=False, create=True) as s:
    s.import_netcdf(data / "sub.nc", "sub")
ds = xr.open_dataset("store", engine="gridstore", dataset="sub")
expected = xr.open_dataset(data / "sub.nc")
xr.testing.assert_identical(ds, expected.assign_attrs())
print("installed package OK:", gridstore.__version__, gridstore.__file__)
PY
