#!/usr/bin/env bash
# The main job on the embedded default (RocksDB): installs the dependencies, builds, then imports
# real NetCDF files from ../shared/data into out/demo-store and fetches slices through the
# `gridstore` command: a whole plane, one point's time series, a vertical profile and a 4-D box,
# and extracts by longitude/latitude, time and level (points, a polygon, a route).
# Finally it reads the store from Python (the gridstore package, xarray) and runs the samples
# (C++: create a dataset, fetch through the library API; Python: samples/python/quickstart.py).
set -euo pipefail
cd "$(dirname "$0")/.."
data=${GRIDSTORE_TEST_DATA:-../shared/data}
if [ ! -d "$data" ]; then
  echo "demo: the real NetCDF files are expected in $data (set GRIDSTORE_TEST_DATA)" >&2
  exit 1
fi
bash scripts/install-deps.sh
bash scripts/build.sh build
# Installed into /usr/local, so that a shell finds what the docs write: `gridstore` on PATH, its
# man page (`man gridstore`) and bash completion, the library and headers for find_package, and
# the Python package for Debian's python3 (/usr/local/lib/python3.11/dist-packages).
cmake --install build > /dev/null
command -v gridstore > /dev/null || { echo "demo: gridstore is not on PATH after install" >&2; exit 1; }

gs() { echo "+ gridstore $*" >&2; gridstore --store out/demo-store "$@"; }
rm -rf out/demo-store
mkdir -p out

grib=${GRIDSTORE_TEST_GRIB:-$data/../grib}
echo "== import: sea surface temperature, 24 months (classic netCDF), a 4-D T/U/V run (netCDF-4),"
echo "   ERA5 surface fields, packed CO2, a rotated-pole model run and NCEP's Lambert GRIB2"
echo "   (scripts/demo-datasets.txt: the store the docs' examples are run against)"
while read -r file id options; do
  case "$file" in ''|'#'*) continue ;; data/*) path=$data/${file#data/} ;; grib/*) path=$grib/${file#grib/} ;; esac
  # shellcheck disable=SC2086  # the options are words
  gs import "$path" --dataset "$id" $options
done < scripts/demo-datasets.txt
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

echo "== in the forecaster's terms: tos at 30W on the equator, Jan-Mar 2001 (360_day calendar), CoverageJSON"
gs extract ipsl/tos-2001 --variables tos --point -30,0 --time 2001-01-16/2001-03-16 --unpack \
  | sed -n 1,12p
echo "== a rotated-pole model (colpex): a point by geographic lon/lat, where it landed and why"
gs extract metoffice/colpex --variables air_potential_temperature --point -3.2,52.4 --level 3 \
  --method bilinear --explain
gs extract metoffice/colpex --variables air_potential_temperature --point -3.2,52.4 --level 3 \
  --method bilinear --format csv
echo "== an area (a polygon west of Africa) and a flight route across the Atlantic"
gs extract ipsl/tos-2001 --variables tos --polygon 'POLYGON((-40 -5,-20 -5,-30 10,-40 -5))' \
  --time 2001-01-16 --unpack --format nc -o out/tos-polygon.nc
ncdump -h out/tos-polygon.nc | sed -n 1,8p
gs extract ipsl/tos-2001 --variables tos --trajectory 'LINESTRING(-60 10, -20 40)' \
  --time 2001-07-16 --unpack --format csv | sed -n 1,6p
echo "== GRIB2: NCEP's 2 m temperature on a Lambert conformal grid, a point in lon/lat"
gs extract ncep/nam-2t --variables 2t --point -100,40 --format csv
echo "== a run arriving step by step: ERA5 fields (member 0) relabelled as steps 0, 6, 12 of one"
echo "   run with ecCodes' grib_copy/grib_set; each appended as it comes, readable meanwhile;"
echo "   member 0 of an ensemble, so the run is the member's dataset era/2017-01-01T00Z/m00"
rm -rf out/run-steps && mkdir -p out/run-steps
for k in 0 1 2; do
  date=$((20170101 + k / 2)); hour=$((k % 2 * 1200))
  grib_copy -w number=0,dataDate=$date,dataTime=$hour "$grib/era5-levels-members.grib" out/run-steps/pick.grib
  grib_set -s dataDate=20170101,dataTime=0,step=$((6 * k)) out/run-steps/pick.grib \
    "out/run-steps/era.t00z.f$(printf %03d $((6 * k)))"
  rm out/run-steps/pick.grib
  gs import "out/run-steps/era.t00z.f$(printf %03d $((6 * k)))" --dataset era/2017-01-01T00Z \
    --append --expected-steps 3
  gs extract era/2017-01-01T00Z/m00 --variables t --point 10,50 --level 850 --format csv | tail -n +2
done
gs info era/2017-01-01T00Z/m00 | sed -n 2,3p
echo "== forecast collections (docs/collections.md): an ensemble of 8 runs x 10 members x 20 steps"
echo "   made from ERA5's real member fields (tests/data/make_forecast_runs.py, ecCodes), and a"
echo "   second centre's deterministic runs made the same way"
rm -rf out/ens && mkdir -p out/ens
/usr/bin/python3 tests/data/make_forecast_runs.py --runs 8 --members 10 --steps 20 --out out/ens/ecmf
/usr/bin/python3 tests/data/make_forecast_runs.py --runs 4 --members 1 --steps 20 --centre kwbc \
  --out out/ens/kwbc
for f in out/ens/ecmf/*.grib; do
  gs import "$f" --dataset "ecmf/$(basename "$f" .grib)" --layouts plane,series | tail -n 1
done
for f in out/ens/kwbc/*.grib; do
  gs import "$f" --dataset "kwbc/$(basename "$f" .grib)" | tail -n 1
done
gs collections
echo "-- the latest run's 10/50/90 % and the chance of frost at 850 hPa in Beijing, in degC"
gs extract ecmf/ens --variables t --level 850 --point 116.4,39.9 --stat p10,p50,p90,'prob<0' \
  --units degC --format csv | head -n 9
echo "-- how the forecast for 2017-01-05T00Z changed over the runs (constant forecast time)"
gs extract ecmf/ens --variables t --level 850 --point 116.4,39.9 --member 0 \
  --valid-time 2017-01-05T00:00Z --format csv
echo "-- two centres side by side at Beijing: the ensemble mean and the other centre's run"
gs extract ecmf/ens --variables t --level 850 --point 116.4,39.9 --stat mean \
  --time 2017-01-05T00:00Z/2017-01-05T12:00Z --format csv
gs extract kwbc/fc --variables t --level 850 --point 116.4,39.9 --run all --best \
  --time 2017-01-05T00:00Z/2017-01-05T12:00Z --format csv
echo "== the HTTP service: OGC API-EDR queries, a quick-look map (docs/serve.md)"
build/tools/gridstore --store out/demo-store serve --listen 127.0.0.1:0 2> out/serve.log &
server=$!
for _ in $(seq 50); do grep -q "listening on" out/serve.log && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*' out/serve.log | head -1)
echo "+ curl $url/collections/ipsl%2Ftos-2001/position?coords=POINT(-30%2010)&f=CSV" >&2
curl -sf "$url/collections/ipsl%2Ftos-2001/position?coords=POINT(-30%2010)&f=CSV" | sed -n 1,4p
curl -sf "$url/collections/ipsl%2Ftos-2001/map.png?width=720" -o out/tos-map.png
echo "out/tos-map.png: $(stat -c %s out/tos-map.png) bytes; the viewer: $url/viewer (while it runs)"
kill -TERM "$server"
wait "$server"
echo "== verify every block's checksum"
gs verify

echo "== the C++ samples (library API)"
rm -rf out/sample-store
for sample in create_and_write fetch_plane fetch_profile fetch_box fetch_time_series \
    fetch_point_all_variables extract_by_coordinates; do
  echo "-- sample $sample"
  "build/samples/sample_$sample" out/sample-store
done
echo "== Python: the same store through the gridstore package and xarray (docs/python.md)"
/usr/bin/python3 - out/demo-store <<'PY'
import sys
import warnings
warnings.simplefilter("ignore")
import xarray as xr
import gridstore
store = gridstore.open(sys.argv[1])
print("datasets:", store.datasets(where="status = 'DONE'"))
print("fetch:", {k: v.shape for k, v in store.fetch("ncar/uvt", "T", (0, 0, 32, 64), (1, 14, 1, 1)).items()})
ds = xr.open_dataset(store, engine="gridstore", dataset="ipsl/tos-2001")
print(ds.tos.sel(lat=0, lon=330, method="nearest").isel(time=slice(0, 4)).values)
print(store.extract("ipsl/tos-2001", "tos", points=(-30, 0), time="2001-07-16").tos.values)
PY
echo "-- sample python/quickstart.py"
/usr/bin/python3 samples/python/quickstart.py out/sample-store "$data"
echo "demo finished"
