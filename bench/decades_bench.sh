#!/usr/bin/env bash
# Decades of hourly data at a point (issue 33, part 2): bench/decades_bench (in-process figures and
# netCDF-C on the same series, building the dataset into WORK_DIR on the first run), then, on the
# same store, a point's whole 40-year series over HTTP from `gridstore serve` on a loopback port
# (EDR position, datetime covering the 40 years; curl with one kept-alive connection per pass,
# f=NetCDF and CoverageJSON) and `gridstore info` as a whole process.
#   bench/decades_bench.sh BUILD_DIR WORK_DIR [POINTS=30] [PASSES=3] [GRIB=../shared/grib/era5-2mt-2019-03-uk.grib]
set -euo pipefail
build=$1 work=$2 points=${3:-30} passes=${4:-3}
grib=${5:-$(cd "$(dirname "$0")/.." && pwd)/../shared/grib/era5-2mt-2019-03-uk.grib}
"$build/bench/decades_bench" "$work" --grib "$grib" --points "$points"
store=$work/store
log=$(mktemp)
trap 'kill "$server" 2> /dev/null || true; rm -f "$log"' EXIT
"$build/tools/gridstore" --store "$store" serve --listen 127.0.0.1:0 --refresh-seconds 0 2> "$log" &
server=$!
for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*' "$log" | head -1)
[ -n "$url" ] || { cat "$log"; exit 1; }
# The same random points as bench/decades_bench's are not needed: any points, fixed seed, as
# longitude/latitude of the 64 x 64 grid (58N..42.25N, 10W..5.75E, 0.25 degrees).
mapfile -t urls < <(/usr/bin/python3 -c '
import random, sys
random.seed(33)
for _ in range(int(sys.argv[2])):
    x, y = random.randrange(64), random.randrange(64)
    print(f"{sys.argv[1]}/collections/decades/position?coords=POINT({-10 + 0.25 * y}%20{58 - 0.25 * x})"
          "&datetime=1985-01-01T00:00:00Z/2024-12-31T23:00:00Z")' "$url" "$points")
for f in NetCDF CoverageJSON; do
  args=()
  for u in "${urls[@]}"; do args+=(-o /dev/null "$u&f=$f"); done
  curl -sf "${args[@]}" > /dev/null  # warm-up pass
  for _ in $(seq "$passes"); do
    curl -sf -w '%{time_total} %{size_download}\n' "${args[@]}"
  done | /usr/bin/python3 -c '
import sys
rows = [l.split() for l in sys.stdin if l.strip()]
t = sorted(float(r[0]) * 1e3 for r in rows)
size = float(rows[0][1]) / 1e6
print(f"| HTTP, f={sys.argv[1]} ({size:.1f} MB): p50 / p90 | {t[len(t) // 2]:.1f} / {t[len(t) * 9 // 10]:.1f} ms |")' "$f"
done
kill "$server"
wait "$server" 2> /dev/null || true
/usr/bin/python3 - "$build/tools/gridstore" "$store" <<'PY'
import subprocess, sys, time
t = []
for _ in range(21):
    start = time.perf_counter()
    subprocess.run([sys.argv[1], "--store", sys.argv[2], "info", "decades"], check=True,
                   stdout=subprocess.DEVNULL)
    t.append((time.perf_counter() - start) * 1e3)
t = sorted(t[1:])
print(f"| `gridstore info decades`, whole process: p50 / p90 | {t[len(t) // 2]:.1f} / {t[len(t) * 9 // 10]:.1f} ms |")
PY
