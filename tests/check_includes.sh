#!/usr/bin/env bash
# Checks the module boundaries of STYLE.md: who may include whom. Prints every violation.
set -uo pipefail
cd "$1"
fail=0
violation() { echo "layering: $1"; fail=1; }
check() {  # check FOLDER_GLOB PATTERN WHY
  local hits
  hits=$(grep -nE "$2" $1 2>/dev/null | grep -v '^\s*//' || true)
  [ -n "$hits" ] && violation "$3:"$'\n'"$hits"
}
check "util/*.h util/*.cc" '#include "(storage|grid|importers|tools)/' "util/ includes a higher module"
check "storage/*.h storage/*.cc storage/memory/* storage/rados/*" '#include "(grid|importers|tools)/' "storage/ includes a higher module"
check "storage/*.h storage/*.cc storage/memory/* storage/rocksdb/*.h" '#include <rocksdb/' "RocksDB outside storage/rocksdb/*.cc"
check "util/* storage/*.h storage/*.cc storage/memory/* storage/rocksdb/* storage/rados/*.h grid/*.h grid/*.cc grid/internal/* importers/* tools/* samples/* tests/*/* bench/*" '#include <rados/' "librados outside storage/rados/*.cc"
check "grid/*.h grid/*.cc grid/internal/*" '#include "(storage/rocksdb|storage/memory|storage/rados|importers|tools)/' "grid/ includes a backend or a higher module"
check "grid/*.h grid/*.cc grid/internal/*" '#include <(rocksdb|rados|netcdf|hdf5)' "grid/ includes an engine or file-format header"
check "grid/*.h" '#include <(zstd|xxhash)' "a public grid header exposes zstd/xxHash"
check "samples/*" '#include "[a-z_]+/internal/|#include <(rocksdb|zstd|netcdf)' "samples/ includes a private or third-party header"
[ -d tools ] && check "tools/*" '#include "[a-z_]+/internal/' "tools/ includes a private header"
[ -d importers ] && check "importers/*" '#include "(storage/rocksdb|storage/memory|storage/rados|grid/internal)/' "importers/ includes a backend or grid internals"
if [ $fail -eq 0 ]; then echo "layering: all module boundaries hold"; fi
exit $fail
