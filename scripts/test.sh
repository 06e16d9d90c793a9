#!/usr/bin/env bash
# The project's test command (README, and .ci/run calls exactly this): installs the dependencies,
# then builds and runs the whole test suite three times:
#   1. the normal build (RelWithDebInfo): every test (the Python package's with pytest), the
#      samples, the installed-package checks, and the benchmark programs compiled; the Python
#      package is installed for Debian's python3;
#   2. AddressSanitizer + UndefinedBehaviorSanitizer: every test;
#   3. ThreadSanitizer: the library suites (util, storage, grid, importers) and the HTTP
#      service's (server), whose concurrency tests run many fetchers, writers, pipelines and
#      requests at once;
#   4. Clang with -Wthread-safety -Werror: the library and the command compile with every lock
#      annotation (GUARDED_BY, REQUIRES...) checked; and the tree follows .clang-format;
#   5. libFuzzer: the request parsing of `gridstore serve`, fuzzed for 60 s (scripts/fuzz.sh).
# Exits non-zero as soon as anything fails.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

bash scripts/install-deps.sh
export GRIDSTORE_TEST_DATA=${GRIDSTORE_TEST_DATA:-$root/../shared/data}
jobs=$(nproc)

echo "== 0/5 formatting"
bash scripts/check-format.sh

echo "== 1/5 normal build"
# The benchmark programs are built too (not run: docs/BENCHMARKS.md has their commands), so that
# they cannot rot unnoticed.
bash scripts/build.sh build -DGRIDSTORE_TEST_DATA="$GRIDSTORE_TEST_DATA" -DGRIDSTORE_BUILD_BENCHMARKS=ON
# The Python package, installed for Debian's python3 (/usr/local/lib/python3.11/dist-packages),
# so that `python3 -c "import gridstore"` and xr.open_dataset(..., engine="gridstore") work after
# this command; the tests themselves use the build tree's copy (python.install checks the install).
cmake --install build --component python
/usr/bin/python3 -c "import gridstore, xarray; assert 'gridstore' in xarray.backends.list_engines()"
ctest --test-dir build --output-on-failure -j "$jobs" --timeout 600

# Sanitizer builds keep line tables only (-g1, enough for their stack traces): a quarter less
# compile time than -g (measured: 56 s -> 41 s for one large test file under ASan). Not -O1 (27 s):
# GCC's warnings differ by optimization level, and -Werror builds must warn as the normal one.
sanitizer_flags=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG")

echo "== 2/5 AddressSanitizer + UndefinedBehaviorSanitizer"
bash scripts/build.sh build-asan -DGRIDSTORE_SANITIZE=address "${sanitizer_flags[@]}" \
  -DGRIDSTORE_TEST_DATA="$GRIDSTORE_TEST_DATA"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" --timeout 900

echo "== 3/5 ThreadSanitizer"
# Against the shared RocksDB: tests/tsan.supp names Debian's uninstrumented library.
cmake -S . -B build-tsan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DGRIDSTORE_SANITIZE=thread \
  "${sanitizer_flags[@]}" -DGRIDSTORE_ROCKSDB_SHARED=ON \
  -DGRIDSTORE_WERROR=ON -DGRIDSTORE_BUILD_SAMPLES=OFF -DGRIDSTORE_BUILD_TOOLS=OFF \
  -DGRIDSTORE_BUILD_SERVER=ON -DGRIDSTORE_TEST_DATA="$GRIDSTORE_TEST_DATA"
cmake --build build-tsan -j "$jobs" --target util_test storage_test rados_plugin_test grid_test importers_test \
  server_test
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 suppressions=$root/tests/tsan.supp" \
  ctest --test-dir build-tsan --output-on-failure -j "$jobs" --timeout 900 -E 'install|layering'

echo "== 4/5 Clang: thread-safety analysis, and the fuzzer's build"
# One clang build serves both: -Wthread-safety -Werror checks every lock annotation (GUARDED_BY,
# REQUIRES...) at compile time, and the same objects carry libFuzzer's coverage with ASan + UBSan
# (GRIDSTORE_SANITIZE=fuzzer) for step 5. Not the RADOS backend: Ceph's buffer.h does not compile
# with Clang in C++20 (an ambiguous operator== under the rewritten-comparison rules).
CXX=clang++ cmake -S . -B build-clang -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS="-Wthread-safety" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1" \
  -DGRIDSTORE_SANITIZE=fuzzer -DGRIDSTORE_WERROR=ON \
  -DGRIDSTORE_BUILD_TESTS=OFF -DGRIDSTORE_BUILD_SAMPLES=OFF -DGRIDSTORE_TEST_DATA="$GRIDSTORE_TEST_DATA"
cmake --build build-clang -j "$jobs" --target gridstore_util gridstore_storage \
  gridstore_storage_memory gridstore_storage_rocksdb gridstore_storage_factory gridstore_grid \
  gridstore_importers gridstore_tools_lib gridstore_cli_lib gridstore_server request_fuzzer

echo "== 5/5 libFuzzer: the service's request parsing, 60 s"
bash scripts/fuzz.sh 60 build-clang
echo "== all test builds passed"
