#!/usr/bin/python3
# Copyright 2026 The GridStore Authors.
"""The viewer's figures in headless Chromium on loopback (issue 32): time to first paint of
/viewer (Paint Timing: first-paint and first-contentful-paint, and the first map complete), and
the animation's frames per second (a frame counts when every tile of it is drawn), with the
tiles of the next frames prefetched; one pane and the three panes of compare (A, B, A - B).

    bench/viewer_bench.py GRIDSTORE WORK [--runs 4] [--members 10] [--steps 20] [--loads 5]
                          [--seconds 6] [--width 1000] [--height 700]

Builds a store in WORK from ERA5's ensemble members (tests/data/make_forecast_runs.py: the
collection ecmf/ens, t and z at 500 and 850 hPa on a 120x61 grid), starts `gridstore serve` on
127.0.0.1 and drives chromium through the DevTools protocol (tests/server/viewer_cdp.py).
"""
import argparse
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tests", "server"))
from viewer_cdp import Chromium  # noqa: E402


def make_store(gridstore, work, runs, members, steps):
    store = os.path.join(work, "store")
    folder = os.path.join(work, "runs")
    subprocess.run(["/usr/bin/python3", os.path.join(REPO, "tests", "data", "make_forecast_runs.py"),
                    "--runs", str(runs), "--members", str(members), "--steps", str(steps),
                    "--out", folder], check=True, capture_output=True)
    for name in sorted(os.listdir(folder)):
        subprocess.run([gridstore, "--store", store, "import", os.path.join(folder, name),
                        "--dataset", "ens/" + name.split(".")[0]], check=True, capture_output=True)
    return store


def settle(c):
    c.eval("new Promise((ok) => { const w = () => document.body.dataset.ready === '1' ? ok(1) :"
           " setTimeout(w, 10); w(); })")
    assert c.eval("viewer.idle(60000)"), "the page did not settle"


def first_paint(url, work, loads, width, height):
    """Median over fresh browsers (cold cache) of first-paint, first-contentful-paint and the
    first map complete, in ms since the navigation started."""
    fp, fcp, fmap = [], [], []
    for i in range(loads):
        c = Chromium(os.path.join(work, f"paint{i}"), width, height)
        try:
            c.navigate(url)
            settle(c)
            done = c.eval("performance.now()")
            paints = {p["name"]: p["startTime"] for p in c.eval(
                "performance.getEntriesByType('paint').map((p) => ({name: p.name, "
                "startTime: p.startTime}))")}
            fp.append(paints["first-paint"])
            fcp.append(paints["first-contentful-paint"])
            fmap.append(done)
        finally:
            c.close()
    return statistics.median(fp), statistics.median(fcp), statistics.median(fmap)


def animate(c, speed, seconds, cold, steps):
    """Frames per second of the animation at `speed` (frames asked per second). Cold: the tile
    cache emptied first and the rate taken over the first pass through the run's steps (each
    frame's tiles fetched then, or prefetched while the frames before showed); warm: over every
    frame of `seconds`."""
    c.eval("viewer.playing = false")
    settle(c)
    if cold:
        c.eval("GS.tiles.cache.clear()")
    c.eval(f"(() => {{ const s = document.getElementById('speed'); "
           f"if (![...s.options].some((o) => o.value === '{speed}')) s.add(new Option('{speed}', '{speed}')); "
           f"s.value = '{speed}'; }})()")
    c.eval("viewer.stats.frames = 0; viewer.stats.frameTimes = [performance.now()]; play(); 0")
    time.sleep(seconds)
    c.eval("viewer.playing = false")
    times = c.eval("viewer.stats.frameTimes")
    if cold:
        times = times[:steps + 1]
    frames = len(times) - 1
    if frames < 1:
        return 0.0, 0
    return frames / ((times[-1] - times[0]) / 1000), frames


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("gridstore")
    ap.add_argument("work")
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--members", type=int, default=10)
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--loads", type=int, default=5)
    ap.add_argument("--seconds", type=float, default=6)
    ap.add_argument("--width", type=int, default=1000)
    ap.add_argument("--height", type=int, default=700)
    a = ap.parse_args()
    shutil.rmtree(a.work, ignore_errors=True)
    os.makedirs(a.work)
    store = make_store(a.gridstore, a.work, a.runs, a.members, a.steps)
    server = subprocess.Popen([a.gridstore, "--store", store, "serve", "--listen", "127.0.0.1:0"],
                              stderr=subprocess.PIPE, text=True)
    try:
        base = re.search(r"(http://\S+)", server.stderr.readline()).group(1)
        # The server's log is drained so that it never blocks on a full pipe.
        subprocess.Popen(["cat"], stdin=server.stderr, stdout=subprocess.DEVNULL)
        view = base + "/viewer/?c=ecmf/ens&stat=mean&v=t&z=850"
        fp, fcp, fmap = first_paint(view, a.work, a.loads, a.width, a.height)
        print(f"viewer first paint: first-paint {fp:.0f} ms, first-contentful-paint {fcp:.0f} ms, "
              f"first map complete {fmap:.0f} ms (median of {a.loads} fresh browsers, "
              f"{a.width}x{a.height})")
        c = Chromium(os.path.join(a.work, "anim"), a.width, a.height)
        try:
            for label, url in (("one pane, the world", view),
                               ("one pane, Europe at zoom 4", view + "&map=4/50/10"),
                               ("compare, 3 panes", view + "&cmp=1&c2=ecmf/ens&run2=latest-1"
                                "&stat2=mean&v2=t&diff=1")):
                if "latest-1" in url:  # the run before the latest, by its time
                    runs = c.eval("viewer.instances.get('ecmf/ens').map((i) => i.id).sort()")
                    url = url.replace("latest-1", runs[-2])
                c.navigate(url)
                settle(c)
                tiles = c.eval("viewer.panes.a.map.visibleTiles().length")
                for speed, cold in (("6", True), ("1000", True), ("1000", False)):
                    fps, frames = animate(c, speed, a.seconds, cold, a.steps)
                    print(f"animation, {label} ({tiles} tiles a pane), asked "
                          f"{'as fast as tiles come' if speed == '1000' else speed + '/s'}, "
                          f"{'cold tile cache, first pass' if cold else 'warm'}: {fps:.1f} "
                          f"frames/s ({frames} frames)")
            problems = c.console_problems()
            if problems:
                print("console:", *problems, sep="\n  ")
        finally:
            c.close()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
