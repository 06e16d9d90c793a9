#!/usr/bin/env bash
# Checks the module boundaries of STYLE.md: who may include whom. Prints every violation.
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
check "$g/util/*.h $g/util/*.cc $g/util/internal/*" '#include "gridstore/(storage|grid|importers)/|#include "tools/' "util/ includes a higher module"
check "$g/storage/*.h $g/storage/*.cc $g/storage/memory/* $g/storage/rados/* $g/storage/rocksdb/*" '#include "gridstore/(grid|importers)/|#include "tools/' "storage/ includes a higher module"
check "$g/storage/*.h $g/storage/*.cc $g/storage/memory/* $g/storage/rocksdb/!(rocksdb_internal).h" '#include <rocksdb/' "RocksDB outside storage/rocksdb/ (its .cc files and rocksdb_internal.h)"
check "$g/util/*/* $g/util/*.* $g/storage/*.h $g/storage/*.cc $g/storage/memory/* $g/storage/rocksdb/* $g/storage/rados/!(rados_kv_store_impl).h $g/grid/*.h $g/grid/*.cc $g/grid/internal/* $g/importers/*/* $g/importers/*.* tools/* samples/* tests/*/* bench/*" '#include <rados/' "librados outside storage/rados/ (its .cc files and rados_kv_store_impl.h)"
check "$g/grid/*.h $g/grid/*.cc $g/grid/internal/*" '#include "gridstore/(storage/rocksdb|storage/memory|storage/rados|importers)/|#include "tools/' "grid/ includes a backend or a higher module"
check "$g/grid/*.h $g/grid/*.cc $g/grid/internal/*" '#include <(rocksdb|rados|netcdf|hdf5)' "grid/ includes an engine or file-format header"
check "$g/util/*/* $g/util/*.* $g/storage/*/* $g/storage/*.* $g/grid/*.h $g/grid/*.cc $g/grid/internal/!(geo_libraries).* $g/importers/*/* $g/importers/*.* $g/formats/* tools/* samples/* bench/*" '#include <proj' "PROJ outside grid/internal/geo_libraries.{h,cc} (loaded at run time)"
check "$g/util/*/* $g/util/*.* $g/storage/*/* $g/storage/*.* $g/grid/*.h $g/grid/*.cc $g/grid/internal/!(geo_libraries).* $g/importers/*/* $g/importers/*.* $g/formats/* tools/* samples/* bench/*" '#include <geos' "GEOS outside grid/internal/geo_libraries.{h,cc} (loaded at run time)"
check "$g/grid/*.h" '#include <(zstd|xxhash)' "a public grid header exposes zstd/xxHash"
# Installed (public) headers include only other public headers: no internal/, no storage/.
check "$g/util/*.h $g/grid/*.h $g/importers/*.h $g/formats/*.h" '#include "gridstore/[a-z_]+/internal/|#include "gridstore/storage/' "a public header includes a private one"
# formats/ writes results from the grid module's public API: no storage, no grid internals, no
# file-format library, nothing above it.
check "$g/formats/*" '#include "gridstore/(storage|importers|grid/internal)/|#include "tools/|#include <(netcdf|rocksdb|rados|proj|geos)' "formats/ includes a lower layer's internals or a higher module"
check "samples/*" '#include "gridstore/[a-z_]+/internal/|#include "gridstore/storage/|#include <(rocksdb|zstd|netcdf)' "samples/ includes a private or third-party header"
# tools/ sees public headers, plus util/internal/ (text and thread helpers shared with the library).
[ -d tools ] && check "tools/* tools/commands/*" '#include "gridstore/(grid|importers|storage)/internal/' "tools/ includes a private header"
check "$g/importers/*.* $g/importers/internal/*" '#include "gridstore/(storage/rocksdb|storage/memory|storage/rados|grid/internal)/' "importers/ includes a backend or grid internals"
# server/ (the HTTP service) sits beside tools/: it sees public headers, util/internal/ and
# formats/internal/; nothing below it knows it; only http_server.cc includes the HTTP library.
check "$g/server/*.* $g/server/internal/*" '#include "tools/|#include "gridstore/(storage|grid/internal|importers/internal)/' "server/ includes a private header or the command"
check "$g/util/*/* $g/util/*.* $g/storage/*/* $g/storage/*.* $g/grid/*.* $g/grid/internal/* $g/importers/*/* $g/importers/*.* $g/formats/*.* $g/formats/internal/*" '#include "gridstore/server/' "a lower module includes server/"
beast=$(grep -rn --include='*.cc' --include='*.h' '#include <boost/' $g tools tests samples 2>/dev/null |
  grep -v -e '^gridstore/server/http_server.cc:' -e '^tests/server/http_server_test.cc:' || true)
[ -n "$beast" ] && violation "Boost.Beast/Asio outside server/http_server.cc (and its test):"$'\n'"$beast"
if [ $fail -eq 0 ]; then echo "layering: all module boundaries hold"; fi
exit $fail
