#!/usr/bin/env bash
# Checks the module boundaries of docs/architecture.md: who may include whom. Prints every violation.
#   check_includes.sh SOURCE_DIR
set -uo pipefail
# !(name) patterns: "every header but the backend's internal one", so new headers are checked too.
shopt -s extglob
cd "$1"
fail=0
violation() { echo "layering: $1"; fail=1; }
check() {  # check FOLDER_GLOB PATTERN WHY
  local hits
  hits=$(grep -nE "$2" $1 2>/dev/null | grep -v '^\s*//' || true)
  [ -n "$hits" ] && violation "$3:"$'\n'"$hits"
}
g=gridstore
# The grid API's modules, lowest first (docs/architecture.md): each may include only modules to
# its left, data flowing one way.
#   util -> storage -> model -> {blocks, catalog} -> grid -> geo -> forecast
#   -> {importers, formats} -> {server, tools, python}
api="model|blocks|catalog|grid|geo|forecast"
upper="importers|formats|server"
files() { for m in "$@"; do printf '%s ' "$g/$m/*.h" "$g/$m/*.cc" "$g/$m/internal/*"; done; }
formats() { printf '%s ' $g/formats/*.* $g/formats/internal/* $g/formats/netcdf/*.* $g/formats/netcdf/internal/*; }
importers() { printf '%s ' $g/importers/*.* $g/importers/internal/* $g/importers/{netcdf,grib}/*.* $g/importers/{netcdf,grib}/internal/*; }
check "$g/util/*.h $g/util/*.cc $g/util/internal/*" "#include \"gridstore/(storage|$api|$upper)/|#include \"tools/" "util/ includes a higher module"
check "$g/storage/*.h $g/storage/*.cc $g/storage/memory/* $g/storage/rados/* $g/storage/rocksdb/*" "#include \"gridstore/($api|$upper)/|#include \"tools/" "storage/ includes a higher module"
check "$(files model) $g/model/netcdf/*" "#include \"gridstore/(blocks|catalog|grid|geo|$upper)/|#include \"tools/" "model/ includes a higher module"
check "$(files blocks)" "#include \"gridstore/(catalog|grid|geo|$upper)/|#include \"tools/" "blocks/ includes catalog/ or a higher module"
check "$(files catalog)" "#include \"gridstore/(blocks|grid|geo|$upper)/|#include \"tools/" "catalog/ includes blocks/ or a higher module"
check "$(files grid)" "#include \"gridstore/(geo|$upper)/|#include \"tools/" "grid/ includes geo/ or a higher module"
check "$(files geo)" "#include \"gridstore/(forecast|$upper)/|#include \"tools/" "geo/ includes a higher module"
check "$(files forecast)" "#include \"gridstore/($upper)/|#include \"tools/" "forecast/ includes a higher module"
check "$(files forecast)" '#include "gridstore/(catalog|grid|blocks|geo)/internal/' "forecast/ includes a lower module's internal/"
# Walls between rooms: a module's internal/ is its own. Allowed exceptions, each named: grid/
# (the store) owns the block engine's caches, writers and layouts and the catalog's indexes it
# creates, drops and rebuilds. geo/ sizes a plan through the fetcher's public ExplainBoxes, never
# blocks/internal/. Every module may use model/'s key grammar and messages and util/internal/.
check "$(files blocks)" '#include "gridstore/catalog/internal/' "blocks/ includes catalog/'s internal/"
check "$(files catalog)" '#include "gridstore/blocks/internal/' "catalog/ includes blocks/'s internal/"
check "$(files geo)" '#include "gridstore/(catalog|grid|blocks)/internal/' "geo/ includes catalog/'s, grid/'s or blocks/' internal/"
check "$g/storage/*.h $g/storage/*.cc $g/storage/memory/* $g/storage/rocksdb/!(rocksdb_internal).h" '#include <rocksdb/' "RocksDB outside storage/rocksdb/ (its .cc files and rocksdb_internal.h)"
check "$g/util/*/* $g/util/*.* $g/storage/*.h $g/storage/*.cc $g/storage/memory/* $g/storage/rocksdb/* $g/storage/rados/!(rados_kv_store_impl).h $(files model blocks catalog grid geo) $(importers) tools/* samples/* tests/*/* bench/*" '#include <rados/' "librados outside storage/rados/ (its .cc files and rados_kv_store_impl.h)"
check "$(files model blocks catalog grid geo)" '#include "gridstore/(storage/rocksdb|storage/memory|storage/rados)/' "the grid API includes a storage backend"
check "$(files model blocks catalog grid geo)" '#include <(rocksdb|rados|netcdf|hdf5)' "the grid API includes an engine or file-format header"
check "$g/util/*/* $g/util/*.* $g/storage/*/* $g/storage/*.* $(files model blocks catalog grid) $g/geo/*.h $g/geo/*.cc $g/geo/internal/!(geo_libraries).* $(importers) $g/formats/* tools/* samples/* bench/*" '#include <(proj|geos)' "PROJ or GEOS outside geo/internal/geo_libraries.{h,cc} (loaded at run time)"
check "$g/util/*/* $g/util/*.* $g/storage/*/* $g/storage/*.* $(files model catalog grid geo) $g/blocks/*.h $(importers) $g/formats/* tools/*" '#include <(zstd|xxhash)' "zstd/xxHash outside blocks/ (a public header of blocks/ included)"
# Installed (public) headers include only other public headers: no internal/, no storage/.
check "$g/util/*.h $g/model/*.h $g/blocks/*.h $g/catalog/*.h $g/grid/*.h $g/geo/*.h $g/forecast/*.h $g/importers/*.h $g/importers/netcdf/*.h $g/importers/grib/*.h $g/formats/*.h $g/formats/netcdf/*.h" '#include "gridstore/[a-z_]+/internal/|#include "gridstore/storage/' "a public header includes a private one"
# formats/ writes results from the grid API's public headers: no storage, no internals, nothing
# beside it (importers/) or above it; netCDF-C only in netcdf/'s .cc files and internal/, through
# the shared binding.
check "$(formats)" "#include \"gridstore/(storage|importers|($api)/internal)/|#include \"tools/|#include <(rocksdb|rados|proj|geos)" "formats/ includes a lower layer's internals, importers/ or a higher module"
check "$g/formats/*.* $g/formats/internal/* $g/formats/netcdf/*.h" '#include <(netcdf|hdf5|H5)' "netCDF-C outside formats/netcdf/'s .cc files and internal/"
# The netCDF-C binding (model/netcdf/netcdf_api.h: the function table, the one lock) is for the
# two rooms that read and write netCDF only.
netcdf_api=$(grep -rnE --include='*.cc' --include='*.h' '#include "gridstore/model/netcdf/' $g tools python 2>/dev/null |
  grep -v -e '^gridstore/importers/netcdf/' -e '^gridstore/formats/netcdf/' -e '^gridstore/model/netcdf/' || true)
[ -n "$netcdf_api" ] && violation "model/netcdf/ (the netCDF-C binding) outside importers/netcdf/ and formats/netcdf/:"$'\n'"$netcdf_api"
check "samples/*" '#include "gridstore/[a-z_]+/internal/|#include "gridstore/storage/|#include <(rocksdb|zstd|netcdf)' "samples/ includes a private or third-party header"
# tools/ sees public headers, plus util/internal/ (text and thread helpers shared with the library).
[ -d tools ] && check "tools/* tools/commands/*" "#include \"gridstore/($api|importers|storage)/internal/" "tools/ includes a private header"
check "$(importers)" "#include \"gridstore/(storage/rocksdb|storage/memory|storage/rados|($api)/internal)/" "importers/ includes a backend or the grid API's internals"
# importers/: each format in its own folder; netCDF-C and HDF5 only in netcdf/internal/, ecCodes
# only in grib/internal/; grib/ may use netcdf/'s public header (the shared import options).
check "$g/importers/grib/*.* $g/importers/grib/internal/* $g/importers/internal/*" '#include "gridstore/importers/netcdf/internal/' "grib/ includes netcdf/'s internal/"
check "$g/importers/netcdf/*.* $g/importers/netcdf/internal/* $g/importers/internal/*" '#include "gridstore/importers/grib/' "netcdf/ includes grib/"
check "$(files util storage model blocks catalog grid geo server) $g/importers/grib/*.* $g/importers/grib/internal/* $g/importers/internal/* $g/importers/netcdf/*.h tools/* tools/commands/*" '#include <(netcdf|hdf5|H5)' "netCDF-C or HDF5 outside model/netcdf/ (the binding), importers/netcdf/ and formats/netcdf/ (their .cc files and internal/)"
check "$(files util storage model blocks catalog grid geo server) $(formats) $g/importers/netcdf/*.* $g/importers/netcdf/internal/* $g/importers/internal/* $g/importers/grib/*.* tools/* tools/commands/*" '#include <(eccodes|grib_api)' "ecCodes outside importers/grib/internal/"
# server/ (the HTTP service) sits beside tools/: it sees public headers, util/internal/ and
# formats/internal/; nothing below it knows it; only http_server.cc includes the HTTP library.
check "$g/server/*.* $g/server/internal/*" "#include \"tools/|#include \"gridstore/(storage|($api)/internal|importers)/" "server/ includes a private header, importers/ or the command"
check "$g/util/*/* $g/util/*.* $g/storage/*/* $g/storage/*.* $(files model blocks catalog grid geo) $(importers) $(formats)" '#include "gridstore/server/' "a lower module includes server/"
# server/basemap/ is a build tool (the viewer's basemap from GSHHG): netCDF-C and the standard
# library only, nothing of GridStore's.
check "$g/server/basemap/*.cc" '#include "gridstore/' "server/basemap/ (a build tool) includes a GridStore header"
# importers/ and formats/ are beside each other: neither includes the other.
check "$(importers)" '#include "gridstore/formats/' "importers/ includes formats/"
beast=$(grep -rn --include='*.cc' --include='*.h' '#include <boost/' $g tools tests samples 2>/dev/null |
  grep -v -e '^gridstore/server/http_server.cc:' -e '^tests/server/http_server_test.cc:' || true)
[ -n "$beast" ] && violation "Boost.Beast/Asio outside server/http_server.cc (and its test):"$'\n'"$beast"
if [ $fail -eq 0 ]; then echo "layering: all module boundaries hold"; fi
exit $fail
