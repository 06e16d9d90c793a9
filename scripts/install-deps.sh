#!/usr/bin/env bash
# Installs every build, test and benchmark dependency of GridStore from Debian 12 packages.
# Idempotent and non-interactive; run as root (or a user with sudo).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  librocksdb-dev libzstd-dev zstd libxxhash-dev
  libnetcdf-dev netcdf-bin libhdf5-dev
  libdeflate-dev                          # inflating netCDF-4 chunks in parallel (loaded at run time)
  libeccodes-dev libeccodes-tools         # GRIB import (ecCodes, loaded at run time); grib_* tools
  libproj-dev libnanoflann-dev libgeos-dev  # grid mappings (PROJ), nearest points on 2-D grids (k-d tree), polygons (GEOS)
  libeigen3-dev
  libudunits2-dev                         # unit conversion on output (--units: udunits2 and its database)
  python3-cfgrib                          # ensemble members and steps read as cfgrib shapes them (tests/python/)
  libgtest-dev libgmock-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev
  libsqlite3-dev
  python3                                 # the corruption test (tests/reliability/)
  python3-cftime                          # CF calendars checked against cftime (tests/grid/)
  python3-xarray python3-netcdf4          # CF fidelity of netCDF output judged by xarray (tests/tools/)
  python3-dev pybind11-dev python3-numpy  # the Python package (python/): its extension module
  python3-dask python3-pytest             # ... its tests (dask chunks) and test runner
  python3-zarr python3-numcodecs          # ... and its benchmark against the zarr engine
  groff-base                              # the man page test (groff -man -ww)
  nco time hyperfine                      # bench/cli_vs_ncks.sh (ncks, /usr/bin/time, hyperfine)
  libboost-dev wrk                        # Boost.Beast for `serve`; wrk, its load test
  libpng-dev                              # serve's quick-look maps (map.png)
  chromium fonts-dejavu-core              # the viewer's test in a real (headless) browser
  chromium-driver python3-selenium        # ... and behind a token (the page's prompt answered)
  python3-websocket                       # the viewer driven through Chromium's DevTools protocol
  gmt-gshhg-low                           # the viewer's coastlines and borders (GSHHG, LGPL), simplified at build time
  gdal-bin                                # a real GIS client of the map tiles (GDAL's OGCAPI driver)
  python3-pil                             # the service test decodes map.png
  python3-jsonschema                      # the service's documents checked against OGC API-EDR's rules
  python3-eccodes                         # GRIB values compared with ecCodes (tests/tools/corpus_test.py)
  libclang-rt-14-dev                      # libFuzzer (clang -fsanitize=fuzzer): the request fuzzer
  libmicrohttpd-dev libcpp-httplib-dev    # the other candidates in bench/http_choice.sh
  strace                                  # the output test (what fetch --sync syncs)
  clang clang-format                      # the thread-safety build and the format check (CI)
  python3-build python3-setuptools        # the wheel (python3 -m build --no-isolation, offline)
  python3-wheel python3-venv              # ... and the throwaway venv it is installed into
  dpkg-dev systemd curl                   # the .deb's checks (dpkg-shlibdeps, systemd-analyze, HTTP)
  hdf5-filter-plugin-blosc-serial
  librados-dev libradospp-dev             # the RADOS backend (librados.hpp is only in -pp)
  ceph-mon ceph-osd ceph-mgr jq           # the throwaway test cluster (scripts/ceph-test-cluster.sh)
)

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${packages[@]}"
