#!/usr/bin/env bash
# The main job on the embedded default (RocksDB): installs the dependencies, builds, then imports
# real NetCDF files from ../shared/data into out/demo-store and fetches slices through the
# `gridstore` command: a whole plane, one point's time series, a vertical profile and a 4-D box.
# Finally it runs the C++ samples (create a dataset, fetch through the library API).
set -euo pipefail
cd "$(dirname "$0")/.."
data=${GRIDSTORE_TEST_DATA:-../shared/data}
if [ ! -d "$data" ]; then
  echo "demo: the real NetCDF files are expected in $data (set GRIDSTORE_TEST_DATA)" >&2
  exit 1
fi
bash scripts/install-deps.sh
bash scripts/build.sh build

gs() { echo "+ gridstore $*" >&2; build/tools/gridstore --store out/demo-store "$@"; }
rm -rf out/demo-store
mkdir -p out

echo "== import: sea surface temperature, 24 months (classic netCDF) and a 4-D T/U/V run (netCDF-4)"
gs import "$data/tos_O1_2001-2002.nc" --dataset ipsl/tos-2001 --attr source=IPSL --attr model=CM4
gs import "$data/nc4uvt.nc" --dataset ncar/uvt --attr source=NCAR --block 32x64
gs info ipsl/tos-2001
gs query

echo "== a whole plane: tos at the first time, as NetCDF (opens in xarray or ncview)"
gs fetch ipsl/tos-2001 --variables tos --origin 0,0,0,0 --shape 1,1,170,180 -o out/tos-plane.nc
ncdump -h out/tos-plane.nc | sed -n 1,20p  # (head would end ncdump with SIGPIPE)

echo "== one point's time series: tos at (lat index 85, lon index 100), all 24 months, unpacked"
gs fetch ipsl/tos-2001 --variables tos --origin 0,0,85,100 --shape 24,1,1,1 --unpack

echo "== a vertical profile: T at one point, every level"
gs fetch ncar/uvt --variables T --origin 0,0,32,64 --shape 1,14,1,1

echo "== a 4-D box of T and U: the plan, then the values as JSON and T as .npy"
gs fetch ncar/uvt --variables T,U --origin 0,2,10,20 --shape 1,5,8,8 --explain
gs fetch ncar/uvt --variables T,U --origin 0,2,10,20 --shape 1,2,2,2 --format json
gs fetch ncar/uvt --variables T --origin 0,2,10,20 --shape 1,5,8,8 -o out/t-box.npy
ls -l out/t-box.npy

echo "== verify every block's checksum"
gs verify

echo "== the C++ samples (library API)"
rm -rf out/sample-store
for sample in create_and_write fetch_plane fetch_profile fetch_box fetch_time_series \
    fetch_point_all_variables; do
  echo "-- sample $sample"
  "build/samples/sample_$sample" out/sample-store
done
echo "demo finished"
