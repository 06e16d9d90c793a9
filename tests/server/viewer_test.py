#!/usr/bin/python3
# Copyright 2026 The GridStore Authors.
#
# The viewer in a real browser, the cheap way: Debian's chromium, headless, loads
# /viewer/?c=ocean/tos&pt=-20,205 (a link to a view: a dataset and a clicked point) from a real
# `gridstore serve` and --dump-dom prints the page once it settled. Checked: both datasets are in
# the collection picker, the colour bar has its range and units, and the clicked point's series
# (the values table under the meteogram) equals netCDF-C's reading of the original file.
# tests/server/viewer_cdp_test.py drives the whole page through the DevTools protocol.
# Usage: viewer_test.py GRIDSTORE DATA_DIR WORK_DIR [SCREENSHOT.png]
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
        page = f"{url}/viewer/?c=ocean/tos&pt={LAT},{LON}"
        dom = chromium("--dump-dom", page).stdout
        options = re.findall(r'<option value="([^"]*)"[^>]*>', dom.split('id="collection"')[1]
                             .split("</select>")[0])
        assert sorted(options) == ["ocean/tos", "ocean/tos-copy"], options
        bar = re.search(r'<div class="colorbar" data-min="([^"]+)" data-max="([^"]+)" '
                        r'data-units="([^"]*)" data-ticks="(\d+)"', dom)
        assert bar, dom[-3000:]
        lo, hi, units, ticks = float(bar.group(1)), float(bar.group(2)), bar.group(3), int(bar.group(4))
        assert lo < hi and units == "K" and ticks >= 3, bar.groups()
        cells = re.findall(r'<tr data-time="([^"]+)"[^>]*>.*?<td data-variable="tos" data-stat="" '
                           r'data-value="([^"]*)">', dom)
        if not cells:
            raise SystemExit("the page shows no values for the point:\n" + dom[-3000:])
        nc = netCDF4.Dataset(TOS)
        lons, lats = nc["lon"][:], nc["lat"][:]
        i = int(np.argmin(abs(((lons - LON) + 180) % 360 - 180)))
        j = int(np.argmin(abs(lats - LAT)))
        want = nc["tos"][:, j, i]
        assert len(cells) == len(want), (len(cells), len(want))
        for (when, got), w in zip(cells, want):
            assert abs(float(got) - float(w)) < 1e-3, (when, got, float(w))
        print(f"viewer: {len(options)} datasets listed, colour bar {lo:.5g} to {hi:.5g} {units} "
              f"with {ticks} ticks, the point ({LON}, {LAT}): {len(want)} values equal netCDF-C's")
        if SCREENSHOT:
            shot = chromium(f"--screenshot={SCREENSHOT}", "--window-size=1000,700", page)
            assert os.path.exists(SCREENSHOT), shot.stderr[-2000:]
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
