#!/usr/bin/env bash
# The load test of `gridstore serve` (issue 15): wrk on 127.0.0.1 with CONNECTIONS connections for
# SECONDS each of (1) point time series at random places and (2) 200x200-cell boxes at one random
# time, then the same queries in-process (bench/serve_inprocess: EdrService::Handle without HTTP,
# and grid::Extract alone) in the same run. Prints requests/s, p50/p99 latency, errors and the
# server's peak RSS. Fails if any request errs.
#   bench/serve_load.sh BUILD_DIR STORE DATASET [SECONDS=30] [CONNECTIONS=64] [BOX_CELLS=200]
# The store must hold DATASET; docs/benchmarks.md shows how the benchmark's store is made.
set -euo pipefail
build=$1 store=$2 dataset=$3 seconds=${4:-30} connections=${5:-64} box_cells=${6:-200}
here=$(cd "$(dirname "$0")" && pwd)
id=$(/usr/bin/python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$dataset")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
/usr/bin/time -f "peak_rss_kb %M" "$build/tools/gridstore" --store "$store" serve \
  --listen 127.0.0.1:0 --refresh-seconds 0 --max-inflight 256 2> "$log" &
server=$!
for _ in $(seq 100); do grep -q "listening on" "$log" && break; sleep 0.1; done
url=$(grep -o 'http://[^ ]*' "$log" | head -1)
[ -n "$url" ] || { cat "$log"; exit 1; }
# The collection's extent, times and a box of about 200 x 200 cells, from the service itself.
read -r w s e n box times < <(curl -sf "$url/collections/$id" | /usr/bin/python3 -c '
import json, sys
box_cells = int(sys.argv[1])
c = json.load(sys.stdin)
w, s, e, n = c["extent"]["spatial"]["bbox"][0]
cells = c["gridstore"]["cells"]
box = (box_cells - 1) * max(e - w, n - s) / (max(cells["x"], cells["y"]) - 1)
t = c["extent"].get("temporal", {}).get("values", [""])
print(w, s, e, n, box, " ".join(t[:48]))' "$box_cells")
failed=0
for kind in position cube; do
  echo "== $kind: $connections connections, $seconds s ($url)"
  out=$(wrk -t2 -c"$connections" -d"${seconds}s" --latency --timeout 10s -s "$here/serve_load.lua" \
    "$url" -- "$kind" "$id" "$w" "$s" "$e" "$n" "$box" $times)
  echo "$out" | grep -E "Requests/sec|50%|99%|Socket errors|Non-2xx|requests in"
  if echo "$out" | grep -qE "Socket errors|Non-2xx"; then failed=1; fi
done
# Unloaded latency: one connection at a time (what one forecaster's click costs).
echo "== position: 1 connection, $seconds s"
out=$(wrk -t1 -c1 -d"${seconds}s" --latency -s "$here/serve_load.lua" \
  "$url" -- position "$id" "$w" "$s" "$e" "$n" "$box" $times)
echo "$out" | grep -E "Requests/sec|50%|99%|Socket errors|Non-2xx|requests in"
if echo "$out" | grep -qE "Socket errors|Non-2xx"; then failed=1; fi
pkill -TERM -P "$server"  # gridstore, under /usr/bin/time
wait "$server" || true
grep peak_rss_kb "$log" | awk '{printf "server peak RSS: %.0f MiB\n", $2 / 1024}'
if [ -x "$build/bench/serve_inprocess" ]; then
  "$build/bench/serve_inprocess" "$store" "$dataset" --seconds "$seconds" --box "$box"
fi
exit $failed
