#!/usr/bin/env bash
# Installs the built project into a temporary prefix, then configures, builds and runs a consumer
# project that uses only find_package(GridStore) and GridStore::gridstore: a small program, the
# README's library snippet (cut from README.md, so the README cannot rot) and three samples.
# Fails if anything, the installed command included, links a Ceph, netCDF, HDF5, PROJ or GEOS
# library (RADOS is a plugin loaded only for rados:// stores; netCDF-C is loaded on the first
# netCDF import or export, which the consumer and the command below both do; PROJ and GEOS on the
# first grid mapping or polygon, which the command below uses).
#   check_install.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$1
build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"

project=$work/project
mkdir -p "$project/samples"
cp "$src/tests/install/CMakeLists.txt" "$src/tests/install/consumer.cc" "$project/"
cp "$src"/samples/*.cc "$src"/samples/*.h "$project/samples/"
{
  # The first C++ block after "## Using the library", plus a main that runs it.
  awk '/^## Using the library/ {in_section = 1}
       in_section && /^```cpp/ {in_code = 1; next}
       in_code && /^```/ {exit}
       in_code {print}' "$src/README.md"
  cat <<'MAIN'
#include <cstdio>
int main(int argc, char** argv) {
  if (argc != 2) return 2;
  gridstore::Status s = Example(argv[1]);
  std::printf("README snippet: %s\n", s.ToString().c_str());
  return s.ok() ? 0 : 1;
}
MAIN
} > "$project/readme_snippet.cc"
grep -q "GridStore::Open" "$project/readme_snippet.cc" || { echo "no snippet found in README.md"; exit 1; }

cmake -S "$project" -B "$work/consumer" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$work/configure.log"
if ! cmake --build "$work/consumer" > "$work/build.log" 2>&1; then
  cat "$work/build.log"
  exit 1
fi
for exe in consumer/consumer consumer/readme_snippet consumer/create_and_write \
  consumer/fetch_time_series consumer/fetch_box prefix/bin/gridstore; do
  if ldd "$work/$exe" | grep -E 'librados|libceph|libradosstriper|libnetcdf|libhdf5|libproj|libgeos'; then
    echo "$exe links a Ceph, netCDF, HDF5, PROJ or GEOS library (they are loaded only when needed)"
    exit 1
  fi
done
"$work/consumer/consumer" "$work"
"$work/consumer/readme_snippet" "$work/readme-store"
"$work/consumer/create_and_write" "$work/sample-store"
"$work/consumer/fetch_time_series" "$work/sample-store"
"$work/consumer/fetch_box" "$work/sample-store"
# The installed command exports netCDF (loading netCDF-C) and reads its own output back.
"$work/prefix/bin/gridstore" --store "$work/sample-store" fetch sample/gfs-2026-11-21T00Z --format nc \
  -o "$work/sample.nc" > /dev/null
"$work/prefix/bin/gridstore" --store "$work/cli-store" import "$work/sample.nc" --dataset again \
  > /dev/null
"$work/prefix/bin/gridstore" --store "$work/cli-store" info again > /dev/null
# ... and extracts a polygon (loading GEOS; a build without it says so, features.h).
if grep -q "define GRIDSTORE_HAVE_GEO 1" "$work/prefix/include/gridstore/features.h"; then
  "$work/prefix/bin/gridstore" --store "$work/sample-store" extract sample/gfs-2026-11-21T00Z \
    --variables humidity --polygon 'POLYGON((100 20, 130 20, 120 40, 100 20))' --level 850 \
    --time 2026-11-21T00:00:00Z --format csv > "$work/polygon.csv"
  [ "$(wc -l < "$work/polygon.csv")" -gt 10 ] || { echo "install: the polygon extract is empty"; exit 1; }
elif "$work/prefix/bin/gridstore" --store "$work/sample-store" extract sample/gfs-2026-11-21T00Z \
  --variables humidity --polygon 'POLYGON((100 20, 130 20, 120 40, 100 20))' --level 850 \
  2> "$work/polygon.err"; then
  echo "install: a polygon extract succeeded in a build without GEOS"; exit 1
else
  grep -q "GRIDSTORE_WITH_GEO=ON" "$work/polygon.err" || { cat "$work/polygon.err"; exit 1; }
fi
echo "install: the installed package builds and runs the README snippet and samples, without Ceph; netCDF, PROJ and GEOS load when used"
