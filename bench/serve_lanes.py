#!/usr/bin/python3
# Copyright 2026 The GridStore Authors.
#
# Cheap queries while expensive ones run (issue 29, 4.6): `gridstore serve` on a store with a
# Lambert grid (GRIB, 1799x1059 cells) and tos; EXPENSIVE client threads ask without pause for
# map.png of the Lambert grid at width 1024, 100x100-degree areas of tos and (issue 33, part 6)
# long corridors of tos (200 degrees of path, 500 km wide, every time), while one client
# asks point series of tos one after another. Run twice, side by side: with serve's own lane for
# expensive requests (the default) and with one lane shared by all (--expensive-threads 0).
# Prints, for each, the point queries' p50/p99 (and the same with no expensive load) and how
# many expensive requests were answered (200) or refused (413), then the ratio of the p99s. Exits 1 if any request got a 5xx or failed; times are printed, never
# asserted (ctest server.lanes runs it for 5 s; docs/benchmarks.md has the 30 s figures).
#   bench/serve_lanes.py GRIDSTORE SHARED_DIR WORK_DIR [SECONDS=30] [EXPENSIVE=16]
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

gridstore, shared, work = sys.argv[1:4]
seconds = float(sys.argv[4]) if len(sys.argv) > 4 else 30
expensive = int(sys.argv[5]) if len(sys.argv) > 5 else 16
store = os.path.join(work, "store")
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
for path, ident in ((os.path.join(shared, "grib", "lambert.grib2"), "lambert"),
                    (os.path.join(shared, "data", "tos_O1_2001-2002.nc"), "tos")):
    subprocess.run([gridstore, "--store", store, "import", path, "--dataset", ident],
                   check=True, capture_output=True)

failures = []
lock = threading.Lock()
url = None


def get(path):
    try:
        with urllib.request.urlopen(url + path, timeout=120) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except Exception as e:  # a refused or dropped connection is a failure too
        return str(e)


def expensive_client(seed, stop, counts):
    rng = random.Random(seed)
    while not stop.is_set():
        pick = rng.random()
        if pick < 1 / 3:
            path = "/collections/lambert/map.png?width=1024"
        elif pick < 2 / 3:
            lat = rng.uniform(-50, 50)
            path = "/collections/tos/corridor?" + urllib.parse.urlencode(
                {"coords": f"LINESTRING(0 {lat},100 {lat + 10},200 {lat})",
                 "corridor-width": "500", "width-units": "km", "f": "CSV"})
        else:
            w, s = rng.uniform(0, 250), rng.uniform(-80, -20)
            path = "/collections/tos/area?" + urllib.parse.urlencode(
                {"coords": f"POLYGON(({w} {s},{w + 100} {s},{w + 100} {s + 100},{w} {s + 100},"
                           f"{w} {s}))", "f": "CSV"})
        status = get(path)
        with lock:
            if status in (200, 413):
                counts[str(status)] += 1
            else:
                failures.append((path, status))


def point_latencies(duration):
    rng = random.Random(1)
    out = []
    end = time.monotonic() + duration
    while time.monotonic() < end:
        lon, lat = rng.uniform(0, 360), rng.uniform(-60, 60)
        path = "/collections/tos/position?" + urllib.parse.urlencode(
            {"coords": f"POINT({lon} {lat})"})
        start = time.monotonic()
        status = get(path)
        out.append(time.monotonic() - start)
        if status not in (200, 400):  # 400: a point on land has no cell nearby? never 5xx
            failures.append((path, status))
    return sorted(out)


def percentile(values, p):
    return values[min(len(values) - 1, int(p / 100 * len(values)))] * 1000


def measure(serve_options):
    """Point latencies alone and under the expensive load, for a server started with
    `serve_options`; and the expensive requests' outcomes."""
    global url
    server = subprocess.Popen([gridstore, "--store", store, "serve", "--listen", "127.0.0.1:0",
                               "--refresh-seconds", "0", "--max-inflight", "256",
                               *serve_options], stderr=subprocess.PIPE, text=True)
    url = re.search(r"listening on (http://\S+)", server.stderr.readline()).group(1)
    threading.Thread(target=server.stderr.read, daemon=True).start()
    counts = {"200": 0, "413": 0}
    stop = threading.Event()
    try:
        quiet = point_latencies(min(5.0, seconds / 3))
        threads = [threading.Thread(target=expensive_client, args=(i, stop, counts))
                   for i in range(expensive)]
        for t in threads:
            t.start()
        time.sleep(1)  # let the expensive queue fill
        loaded = point_latencies(seconds)
        stop.set()
        for t in threads:
            t.join()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=120)
    return quiet, loaded, counts


# The expensive lane (serve's default) against one lane shared by every request, in one run.
results = {"own lane (default)": measure([]),
           "one shared lane": measure(["--expensive-threads", "0"])}
for name, (quiet, loaded, counts) in results.items():
    print(f"{name}:")
    print(f"  point series alone:            p50 {percentile(quiet, 50):.1f} ms  "
          f"p99 {percentile(quiet, 99):.1f} ms  ({len(quiet)} requests)")
    print(f"  point series with {expensive} expensive: p50 {percentile(loaded, 50):.1f} ms  "
          f"p99 {percentile(loaded, 99):.1f} ms  ({len(loaded)} requests)")
    print(f"  expensive requests: {counts['200']} answered, {counts['413']} refused (413)")
own, shared_lane = (results[k][1] for k in results)
print(f"point p99 under load, one shared lane / own lane: "
      f"{percentile(shared_lane, 99) / percentile(own, 99):.1f}x")
if failures:
    print(f"{len(failures)} failed requests, e.g. {failures[:3]}")
    sys.exit(1)
