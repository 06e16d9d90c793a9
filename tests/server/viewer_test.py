#!/usr/bin/python3
# Copyright 2026 The GridStore Authors.
#
# The viewer in a real browser: Debian's chromium, headless, loads /viewer?selftest=1 from a real
# `gridstore serve`; the page lists the datasets, draws the map and "clicks" a lon/lat, then writes
# what it saw into #selftest, which --dump-dom prints. Checked: the list, that the image is not
# blank, and that the clicked point's series equals netCDF-C's reading of the original file.
# Usage: viewer_test.py GRIDSTORE DATA_DIR WORK_DIR [SCREENSHOT.png]
import html
import json
import os
import re
import shutil
import signal
import subprocess
import sys

import netCDF4
import numpy as np

GRIDSTORE, DATA, WORK = sys.argv[1:4]
SCREENSHOT = sys.argv[4] if len(sys.argv) > 4 else None
STORE = os.path.join(WORK, "store")
TOS = os.path.join(DATA, "tos_O1_2001-2002.nc")
LON, LAT = 205.0, -20.0


def chromium(*args):
    home = os.path.join(WORK, "chromium-home")  # never the user's profile
    cmd = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
           "--disable-dev-shm-usage", f"--user-data-dir={home}", "--virtual-time-budget=20000",
           *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180,
                          env={**os.environ, "HOME": home})


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    for ds in ("ocean/tos", "ocean/tos-copy"):
        subprocess.run([GRIDSTORE, "--store", STORE, "import", TOS, "--dataset", ds],
                       check=True, capture_output=True)
    server = subprocess.Popen([GRIDSTORE, "--store", STORE, "serve", "--listen", "127.0.0.1:0"],
                              stderr=subprocess.PIPE, text=True)
    try:
        url = re.search(r"(http://\S+)", server.stderr.readline()).group(1)
        page = f"{url}/viewer/?selftest=1&dataset=ocean%2Ftos&lon={LON}&lat={LAT}"
        dom = chromium("--dump-dom", page)
        m = re.search(r'<pre id="selftest"[^>]*>(.*?)</pre>', dom.stdout, re.S)
        if not m or not m.group(1).strip():
            raise SystemExit("the page wrote no self-test result:\n" + dom.stdout[-2000:] +
                             dom.stderr[-2000:])
        result = json.loads(html.unescape(m.group(1)))
        if "error" in result:
            raise SystemExit("the page failed: " + result["error"])
        assert sorted(result["datasets"]) == ["ocean/tos", "ocean/tos-copy"], result["datasets"]
        image = result["image"]
        assert image["width"] == 720 and image["opaque"] > 0.3 * image["width"] * (
            image["height"] - 36), image
        assert image["colours"] > 20, image  # a field, not one colour
        click = result["click"]
        nc = netCDF4.Dataset(TOS)
        lons, lats = nc["lon"][:], nc["lat"][:]
        i = int(np.argmin(abs(((lons - click["lon"]) + 180) % 360 - 180)))
        j = int(np.argmin(abs(lats - click["lat"])))
        want = nc["tos"][:, j, i]
        assert abs(click["lon"] - LON) < 1 and abs(click["lat"] - LAT) < 1, click
        assert len(click["series"]) == len(want), click
        for got, w in zip(click["series"], want):
            assert abs(got - float(w)) < 1e-3, (got, float(w))
        # Hovering shows lat, lon and the value at the time shown (the first).
        hover = result["hover"]
        m = re.match(r"lat (-?[\d.]+), lon (-?[\d.]+): (-?[\d.]+) K", hover)
        assert m, hover
        assert abs(float(m.group(3)) - float(want[0])) < 1e-3, (hover, float(want[0]))
        # A box drawn with Shift held downloads that area as NetCDF (a cube query).
        box = result["box"]
        assert box["status"] == 200 and box["type"] == "application/x-netcdf", box
        assert box["magic"] in ("CDF", "HDF"), box
        assert "/cube?" in box["href"] and "f=NetCDF" in box["href"], box
        print(f"viewer: {len(result['datasets'])} datasets listed, map {image['width']}x"
              f"{image['height']} with {image['colours']} colours, click at "
              f"({click['lon']:.2f}, {click['lat']:.2f}): {len(want)} values equal netCDF-C's")
        if SCREENSHOT:
            shot = chromium(f"--screenshot={SCREENSHOT}", "--window-size=1280,900",
                            f"{url}/viewer/?dataset=ocean%2Ftos&click={LON},{LAT}")
            assert os.path.exists(SCREENSHOT), shot.stderr[-2000:]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
