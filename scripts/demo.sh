#!/usr/bin/env bash
# The main job on the embedded default (RocksDB): installs the dependencies, builds, then creates a
# store in ./out/demo-store, writes a dataset and fetches a plane, a vertical profile, a 4-D box,
# a point time series and every variable at a point.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/build.sh build
store=out/demo-store
rm -rf "$store"
mkdir -p out
for sample in create_and_write fetch_plane fetch_profile fetch_box fetch_time_series \
    fetch_point_all_variables; do
  echo "== $sample"
  "build/samples/sample_$sample" "$store"
done
