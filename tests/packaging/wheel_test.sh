#!/usr/bin/env bash
# The wheel as a user gets it (issue 30, item 9): `python3 -m build --wheel --no-isolation` of
# python/, reusing this build (GRIDSTORE_CMAKE_BUILD_DIR: only the python target is brought up to
# date, nothing is compiled twice), pip-installed into a throwaway venv that sees Debian's numpy
# and xarray (--system-site-packages) and nothing of the build. There the module must need
# nothing from the build tree (ldd, no RPATH), and gridstore imports a file into a store and
# reads it back through xarray's engine "gridstore". Nothing is installed outside WORK_DIR.
# Usage: wheel_test.sh SOURCE_DIR BUILD_DIR WORK_DIR DATA_DIR
set -euo pipefail
src=$(realpath "$1") build=$(realpath "$2") work=$3 data=$(realpath "$4")
rm -rf "$work" && mkdir -p "$work" && work=$(realpath "$work")

# Debian's interpreter and build (python3-build): the wheel is for its python3.
if ! (cd "$src/python" && GRIDSTORE_CMAKE_BUILD_DIR=$build /usr/bin/python3 -m build --wheel \
      --no-isolation --outdir "$work/dist" .) > "$work/build.log" 2>&1; then
  cat "$work/build.log"; exit 1
fi
wheel=$(ls "$work"/dist/gridstore-*.whl)
echo "wheel: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) KiB"
/usr/bin/python3 -m zipfile -l "$wheel" > "$work/wheel-contents.txt"
for name in gridstore/__init__.py gridstore/xarray_backend.py gridstore/_core.pyi \
    gridstore/py.typed 'gridstore/_core\.cpython-[^ ]*\.so' 'gridstore-[^/]*/entry_points\.txt'; do
  grep -q "^$name " "$work/wheel-contents.txt" || { echo "the wheel lacks $name"; exit 1; }
done

/usr/bin/python3 -m venv --system-site-packages "$work/venv"
# No index, no pip.conf, no PIP_* variables: numpy and xarray must come from Debian (the venv sees them), never
# from elsewhere. --force-reinstall --no-deps: a gridstore the venv sees in Debian's folders
# (CI's `cmake --install`) must not stand in for the wheel's; pip leaves that one alone. The
# requirements are checked below instead.
env -i PATH=/usr/bin:/bin HOME="$work" PIP_CONFIG_FILE=/dev/null "$work/venv/bin/pip" install --no-index --no-cache-dir \
  --disable-pip-version-check --force-reinstall --no-deps "$wheel" > "$work/pip.log"
module=$(ls "$work"/venv/lib/python3*/site-packages/gridstore/_core*.so)
ldd "$module" > "$work/ldd.txt"
if grep -E "not found|$build" "$work/ldd.txt" || readelf -d "$module" | grep -E "RPATH|RUNPATH"; then
  echo "the installed module needs something outside the system: $module"; exit 1
fi

cd "$work"
env -i PATH=/usr/bin:/bin HOME="$work" PYTHONWARNINGS=ignore \
  "$work/venv/bin/python" - "$work/venv" "$data" <<'PY'
import importlib.metadata, pathlib, sys
import gridstore
import xarray as xr
venv, data = sys.argv[1], pathlib.Path(sys.argv[2])
assert gridstore.__file__.startswith(venv), gridstore.__file__
assert gridstore.__version__ == importlib.metadata.version("gridstore"), gridstore.__version__
for requirement in importlib.metadata.requires("gridstore"):
    importlib.metadata.distribution(requirement)  # PackageNotFoundError if the venv lacks it
engine = xr.backends.list_engines()["gridstore"]
assert type(engine).__module__ == "gridstore.xarray_backend", engine
with gridstore.open("store", read_only=False, create=True) as s:
    s.import_netcdf(data / "sub.nc", "sub")
ds = xr.open_dataset("store", engine="gridstore", dataset="sub")
xr.testing.assert_identical(ds, xr.open_dataset(data / "sub.nc").assign_attrs())
print("wheel OK:", gridstore.__version__, gridstore.__file__)
PY
