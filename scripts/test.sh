#!/usr/bin/env bash
# The project's test command (README, and .ci/run calls exactly this): installs the dependencies,
# then builds and runs the whole test suite:
#   1. the normal build (RelWithDebInfo): every test (the Python package's with pytest), the
#      samples, the installed-package checks, the wheel and the .deb (made from this build and
#      checked in a throwaway venv and root: tests/packaging, never installed), and the
#      benchmark programs compiled; the Python package is installed for Debian's python3;
#   2. every build feature OFF (cmake/GridStoreFeatures.cmake: no librados, ecCodes, PROJ, GEOS,
#      Boost or libpng): the suites that need none of them, and each stub's sentence;
#   3. AddressSanitizer + UndefinedBehaviorSanitizer: every test;
#   4. ThreadSanitizer: the library suites (util, storage, the grid API, importers, formats)
#      and the HTTP service's (server), whose concurrency tests run many fetchers, writers,
#      pipelines and requests at once;
#   5. Clang with -Wthread-safety -Werror: every source of the library, the command and the
#      service compiled on its own (scripts/check-sources.sh: lock annotations checked, and no
#      source relying on includes of another); and the tree follows .clang-format;
#   6. libFuzzer: the request parsing of `gridstore serve` for 60 s, then the file-header checks
#      and the coordinate/time/level parsers for 20 s each (scripts/fuzz.sh).
# Builds 1-4 and 6 are unity builds (CMAKE_UNITY_BUILD, see scripts/build.sh): with them, -O1
# in the sanitizer builds, and step 5 compiling without code generation, the whole run went
# from 59 min to 23 on 2 cores (the all-off build, the packaging checks and many suites have
# since added to it: 75 min in the official CI before the ASan executables stopped being PIE,
# which cut that step's tests from 1,305 to 1,013 s; 73 min in a fresh clone on 2026-11-28 after
# the long tests were made to start first (ctest COST), step 1's tests 663 -> 464 s).
# Exits non-zero as soon as anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

bash scripts/install-deps.sh
export GRIDSTORE_TEST_DATA=${GRIDSTORE_TEST_DATA:-$root/../shared/data}
jobs=$(nproc)
# Each step's heading says when it started, so that a CI log shows where the time goes.
step() { echo "== $* ($(date +%T), $((SECONDS / 60)) min in)"; }

step "0/6 formatting"
bash scripts/check-format.sh

step "1/6 normal build"
# The benchmark programs are built too (not run: docs/benchmarks.md has their commands), so that
# they cannot rot unnoticed.
bash scripts/build.sh build -DGRIDSTORE_TEST_DATA="$GRIDSTORE_TEST_DATA" -DGRIDSTORE_BUILD_BENCHMARKS=ON
# Installed into /usr/local: `gridstore` on PATH with its man page and bash completion, the
# library, and the Python package for Debian's python3 (/usr/local/lib/python3.11/dist-packages),
# so that `gridstore --version`, `man gridstore`, `python3 -c "import gridstore"` and
# xr.open_dataset(..., engine="gridstore") work after this command; the tests themselves use the
# build tree's copies (python.install and install.* check the installs).
cmake --install build > /dev/null
command -v gridstore > /dev/null || { echo "gridstore is not on PATH after install" >&2; exit 1; }
test -f /usr/local/share/man/man1/gridstore.1 || { echo "the man page was not installed" >&2; exit 1; }
/usr/bin/python3 -c "import gridstore, xarray; assert 'gridstore' in xarray.backends.list_engines()"
ctest --test-dir build --output-on-failure -j "$jobs" --timeout 600

# Sanitizer builds: line tables only (-g1, enough for their stack traces) and -O1, the
# sanitizers' advice; both a third less compile time. Not -Werror: warnings are the normal build's
# job (GCC's warnings differ by optimization level).
sanitizer_flags=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_UNITY_BUILD=ON
  -DGRIDSTORE_WERROR=OFF)

step "2/6 every build feature OFF: a RocksDB-only build"
# -O1 without debug information: this build is about what compiles and runs without the optional
# libraries, not about speed (a third of the normal build's compile time).
bash scripts/build.sh build-lite -DGRIDSTORE_WITH_RADOS=OFF -DGRIDSTORE_WITH_GRIB=OFF \
  -DGRIDSTORE_WITH_GEO=OFF -DGRIDSTORE_WITH_SERVER=OFF -DGRIDSTORE_BUILD_PYTHON=OFF \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g0 -DNDEBUG" -DGRIDSTORE_TEST_DATA="$GRIDSTORE_TEST_DATA"
# Not the reliability harnesses: they kill and damage RocksDB stores through the same code as
# step 1's run of them, and were a minute of this step's two.
ctest --test-dir build-lite --output-on-failure -j "$jobs" --timeout 600 -E '^reliability\.'

step "3/6 AddressSanitizer + UndefinedBehaviorSanitizer"
bash scripts/build.sh build-asan -DGRIDSTORE_SANITIZE=address "${sanitizer_flags[@]}" \
  -DGRIDSTORE_TEST_DATA="$GRIDSTORE_TEST_DATA"
# Not the viewer's tests: they drive the page in Chromium, and the service code they reach is
# sanitized by server.http, server.conformance and server.lanes (under ASan: 50 s of Chromium).
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" --timeout 900 -E '^server\.viewer'

step "4/6 ThreadSanitizer"
# Against the shared RocksDB: tests/tsan.supp names Debian's uninstrumented library.
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRIDSTORE_SANITIZE=thread \
  "${sanitizer_flags[@]}" -DGRIDSTORE_ROCKSDB_SHARED=ON \
  -DGRIDSTORE_BUILD_SAMPLES=OFF -DGRIDSTORE_BUILD_TOOLS=OFF \
  -DGRIDSTORE_BUILD_SERVER=ON -DGRIDSTORE_TEST_DATA="$GRIDSTORE_TEST_DATA"
cmake --build build-tsan -j "$jobs" --target util_test storage_test rados_plugin_test model_test blocks_test catalog_test grid_test \
  geo_test forecast_test importers_test formats_test \
  server_test
# Not two single-threaded property tests (an in-memory catalog's random queries; every real file
# written as classic netCDF), where ThreadSanitizer has no threads to watch: 140 s of this step.
# The same code's threaded paths run in the catalog's and importers' concurrency tests.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$root/tests/tsan.supp" \
  ctest --test-dir build-tsan --output-on-failure -j "$jobs" --timeout 900 \
  -E 'install|layering|^MetaQueryTest\.RandomQueriesMatchBruteForceInMemory$|\.NetCdfClassicTest\.EveryRealFileReadsBackAsItsNetCdf4File$'

step "5/6 Clang: thread-safety analysis, every source compiled alone"
bash scripts/check-sources.sh build-clang

step "6/6 libFuzzer: the service's request parsing (60 s), file headers and parsers (20 s each)"
bash scripts/fuzz.sh 60 build-fuzz
step "all test builds passed"
