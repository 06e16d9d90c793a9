#!/usr/bin/python3
# Copyright 2026 The GridStore Authors.
#
# The forecaster's page (issue 32) in headless Chromium driven through the DevTools protocol
# (tests/server/viewer_cdp.py, Debian's python3-websocket; no Selenium), against a real
# `gridstore serve` on loopback over a store of real imported data: an ensemble collection of
# several runs made from ERA5's members (tests/data/make_forecast_runs.py), a deterministic
# collection of another centre, ERA5's ensemble file itself, a NetCDF dataset, and a dataset
# without a locatable grid. As a user would: load; pick a collection and a run; animate three
# frames; zoom (wheel and keys) and pan (drag and arrows); click a point and read the meteogram's
# values, checked against `gridstore extract` for the same query, and the profile's axis; open
# compare and the A - B difference map; take the URL, load it again and check the same view.
# Chromium's console must stay free of errors and warnings throughout. A screenshot of each state
# goes to SHOTS (docs/images/viewer-*.png when run by hand for the docs).
# Usage: viewer_cdp_test.py GRIDSTORE DATA_DIR WORK_DIR [SHOTS_DIR]
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from viewer_cdp import Chromium  # noqa: E402

GRIDSTORE, DATA, WORK = sys.argv[1:4]
SHOTS = sys.argv[4] if len(sys.argv) > 4 else os.path.join(WORK, "shots")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GRIB = os.path.normpath(os.path.join(DATA, "..", "grib"))
STORE = os.path.join(WORK, "store")
LON, LAT = 10.0, 50.0  # the point clicked: central Europe
RUNS, STEPS = 4, 8


def gs(*args):
    r = subprocess.run([GRIDSTORE, "--store", STORE, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"gridstore {' '.join(args)}: {r.stderr[-2000:]}")
    return r.stdout


def make_store():
    runs = os.path.join(WORK, "runs")
    det = os.path.join(WORK, "det")
    source = os.path.join(GRIB, "era5-levels-members.grib")
    make = os.path.join(REPO, "tests", "data", "make_forecast_runs.py")
    subprocess.run(["/usr/bin/python3", make, "--runs", str(RUNS), "--members", "10", "--steps",
                    str(STEPS), "--out", runs, "--source", source], check=True,
                   capture_output=True)
    subprocess.run(["/usr/bin/python3", make, "--runs", "2", "--members", "1", "--steps",
                    str(STEPS), "--centre", "kwbc", "--out", det, "--source", source],
                   check=True, capture_output=True)
    for folder, prefix in ((runs, "ens"), (det, "det")):
        for name in sorted(os.listdir(folder)):
            gs("import", os.path.join(folder, name), "--dataset",
               f"{prefix}/{name.split('.')[0]}")
    gs("import", source, "--dataset", "era5")  # collection ecmf/an: 10 members, 4 times
    gs("import", os.path.join(DATA, "tos_O1_2001-2002.nc"), "--dataset", "ocean/tos")
    # A grid without longitude or latitude: listed by the page as one it cannot show.
    import netCDF4
    import numpy as np
    path = os.path.join(WORK, "nogrid.nc")
    with netCDF4.Dataset(path, "w") as nc:
        nc.createDimension("y", 4)
        nc.createDimension("x", 5)
        v = nc.createVariable("field", "f4", ("y", "x"))
        v[:] = np.arange(20, dtype=np.float32).reshape(4, 5)
        v.units = "1"
    gs("import", path, "--dataset", "lab/nogrid")


class Page:
    def __init__(self, chrome, shots):
        self.c = chrome
        self.shots = shots
        self.taken = []

    def js(self, expr):
        return self.c.eval(expr)

    def ready(self):
        self.js("new Promise((ok) => { const w = () => document.body.dataset.ready === '1' ? ok(1)"
                " : setTimeout(w, 30); w(); })")
        self.idle()

    def idle(self):
        assert self.js("viewer.ready.then(() => viewer.idle(60000))"), "the page did not settle"
        assert not self.js("viewer.errors.length"), self.js("viewer.errors")

    def select(self, element, value):
        """A pick in a <select>, as the keyboard or mouse makes it: value set, change fired."""
        ok = self.js(f"(() => {{ const s = document.getElementById({json.dumps(element)}); "
                     f"if (![...s.options].some((o) => o.value === {json.dumps(value)})) return false; "
                     f"s.value = {json.dumps(value)}; s.dispatchEvent(new Event('change')); "
                     f"return true; }})()")
        assert ok, (element, value, self.js(f"[...document.getElementById('{element}').options]"
                                            ".map((o) => o.value)"))
        self.idle()

    def centre_of(self, selector):
        return self.js(f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
                       ".getBoundingClientRect(); return [r.left + r.width / 2, "
                       "r.top + r.height / 2]; })()")

    def press(self, selector):
        x, y = self.centre_of(selector)
        self.c.click(x, y)

    def screen_of(self, lon, lat, pane="a"):
        return self.js(f"(() => {{ const m = viewer.panes.{pane}.map; "
                       "const r = m.container.getBoundingClientRect(); "
                       f"const [x, y] = m.toScreen(GS.mercX({lon}), GS.mercY({lat})); "
                       "return [r.left + x, r.top + y, r.left, r.top, r.width, r.height]; })()")

    def view(self):
        return self.js("({zoom: viewer.linked.zoom, lat: viewer.linked.lat, lon: viewer.linked.lon})")

    def shot(self, name):
        os.makedirs(self.shots, exist_ok=True)
        path = os.path.join(self.shots, f"viewer-{name}.png")
        self.c.screenshot(path)
        self.taken.append((path, os.path.getsize(path)))


def state(page):
    """What the page shows, for the reload to reproduce."""
    return page.js("""(() => ({
      a: viewer.a, b: viewer.b, compare: viewer.compare, diff: viewer.diff, time: viewer.time,
      point: viewer.point, cmap: viewer.cmap, range: viewer.range,
      zoom: +viewer.linked.zoom.toFixed(2), lat: +viewer.linked.lat.toFixed(2),
      lon: +viewer.linked.lon.toFixed(2),
      titles: [...document.querySelectorAll('.pane:not([hidden]) .pane-title')].map((e) => e.textContent),
      label: document.getElementById('time-label').textContent,
      table: [...document.querySelectorAll('#point-values td[data-variable]')].map((td) =>
        [td.parentElement.dataset.time, td.dataset.variable, td.dataset.stat, td.dataset.value]),
    }))()""")


def check_meteogram(page, run_iso):
    """The meteogram's values (its table) against `gridstore extract` of the same query."""
    point = page.js("[viewer.pointData.lon, viewer.pointData.lat]")
    lon, lat = (round(v, 4) for v in point)
    out = gs("extract", "ecmf/ens", "--run", run_iso, "--point", f"{lon},{lat}",
             "--variables", "t,z", "--level", "850", "--stat", "p10,p50,p90", "--format", "json")
    want = {}
    for row in json.loads(out)["rows"]:
        for v in ("t", "z"):
            want[(row["time"], v, row["stat"])] = row[v]
    cells = page.js("[...document.querySelectorAll('#point-values td[data-variable]')].map((td) =>"
                    " [td.parentElement.dataset.time, td.dataset.variable, td.dataset.stat,"
                    " td.dataset.value, td.textContent])")
    assert len(cells) == STEPS * 2 * 3, len(cells)
    for t, v, stat, value, text in cells:
        w = want[(t, v, stat)]
        assert abs(float(value) - w) <= 1e-6 * max(1, abs(w)), (t, v, stat, value, w)
        assert abs(float(text) - w) <= 1e-4 * max(1, abs(w)), (t, v, stat, text, w)  # as shown
    # Members: each panel draws every member faint, the band and the median; earlier runs behind.
    panels = page.js("[...document.querySelectorAll('#meteogram g.panel')].map((g) => ["
                     "g.dataset.variable, g.querySelectorAll('path.member').length,"
                     "g.querySelectorAll('path.band').length, g.querySelectorAll('path.median').length,"
                     "g.querySelectorAll('path.previous').length, g.querySelector('text.title').textContent])")
    return cells, panels, (lon, lat)


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    make_store()
    runs = json.loads(gs("collections", "--json"))
    ens = next(c for c in runs if c["name"] == "ecmf/ens")
    run_times = sorted(ens["runs"])
    assert len(run_times) == RUNS, run_times
    server = subprocess.Popen([GRIDSTORE, "--store", STORE, "serve", "--listen", "127.0.0.1:0"],
                              stderr=subprocess.PIPE, text=True)
    chrome = None
    try:
        url = re.search(r"(http://\S+)", server.stderr.readline()).group(1)
        chrome = Chromium(WORK, 1000, 700)
        page = Page(chrome, SHOTS)

        # 1. Load: the catalog, the first forecast collection drawn, the unshowable listed.
        t0 = time.monotonic()
        chrome.navigate(url + "/viewer/")
        page.ready()
        load_s = time.monotonic() - t0
        options = page.js("[...document.getElementById('collection').options].map((o) => o.value)")
        for want in ("ecmf/an", "ecmf/ens", "kwbc/fc", "ocean/tos"):
            assert want in options, (want, options)
        assert "lab/nogrid" not in options, options
        unshown = page.js("[...document.querySelectorAll('#unshown-list li')].map((li) => "
                          "[li.dataset.id, li.textContent])")
        late = []  # failures reported at the end, so that the rest is still checked
        if [u[0] for u in unshown] != ["lab/nogrid"]:
            late.append(f"the dataset without a grid is not listed as one that cannot be shown: "
                        f"{unshown}")
        elif len(unshown[0][1]) <= len("lab/nogrid: ") + 5:
            late.append(f"no reason given for lab/nogrid: {unshown}")
        page.js("document.getElementById('unshown').open = true")
        page.shot("load")
        page.js("document.getElementById('unshown').open = false")

        # 2. Pick the ensemble collection and the run before the latest, 850 hPa.
        page.select("collection", "ecmf/ens")
        labels = page.js("[...document.getElementById('run').options].map((o) => [o.value, o.text])")
        assert labels[0][0] == "latest" and labels[0][1].startswith("latest: "), labels
        assert labels[1][1].startswith("1 run ago"), labels
        assert labels[2][1].startswith("2 runs ago"), labels
        run_iso = labels[1][0]
        assert run_iso == run_times[-2], (run_iso, run_times)
        page.select("run", run_iso)
        page.select("level", "850")
        page.select("variable", "t")
        colorbar = page.js("Object.assign({}, document.querySelector('#pane-a .colorbar').dataset)")
        assert colorbar["units"] == "K" and int(colorbar["ticks"]) >= 3, colorbar
        assert float(colorbar["min"]) < float(colorbar["max"]), colorbar
        # The valid time shown is kept across the change of run: the latest run's first step,
        # +12 h in the run before.
        label = page.js("document.getElementById('time-label').textContent")
        start = page.js("viewer.steps.indexOf(viewer.time)")
        assert re.fullmatch(r"(Sun|Mon|Tue|Wed|Thu|Fri|Sat) \d\d UTC, \+12 h", label), label
        assert start == 2, start
        tiles = page.js("GS.tiles.loaded")
        assert tiles > 0 and page.js("GS.tiles.failed") == 0, tiles
        page.shot("run")

        # 3. Animate three frames: play, wait for three, pause. The range stays the same.
        steps = page.js("viewer.steps")
        assert len(steps) == STEPS, steps
        page.press("#play")
        chrome.eval("new Promise((ok) => { const w = () => viewer.stats.frames >= 3 ? ok(1) : "
                    "setTimeout(w, 5); w(); })")
        page.press("#play")
        page.idle()
        frames = page.js("viewer.stats.frames")
        shown = page.js("viewer.steps.indexOf(viewer.time)")
        assert frames >= 3 and shown == (start + frames) % STEPS, (start, frames, shown)
        times = page.js("viewer.stats.frameTimes")
        fps = (len(times) - 1) / ((times[-1] - times[0]) / 1000) if len(times) > 1 else 0
        label = page.js("document.getElementById('time-label').textContent")
        assert label.endswith(f"+{6 * shown} h"), (label, shown)
        colorbar2 = page.js("Object.assign({}, document.querySelector('#pane-a .colorbar').dataset)")
        assert colorbar2 == colorbar, (colorbar, colorbar2)  # the range is fixed across steps
        page.shot("animate")

        # 4. Zoom: the wheel twice over the point (which stays under the cursor), a key out and in.
        v0 = page.view()
        x, y, *_ = page.screen_of(LON, LAT)
        x, y = round(x), round(y)  # (mouse events carry whole pixels)
        chrome.wheel(x, y, -300)
        chrome.wheel(x, y, -300)
        page.idle()
        v1 = page.view()
        assert abs(v1["zoom"] - v0["zoom"] - 2) < 1e-6, (v0, v1)
        x2, y2, *_ = page.screen_of(LON, LAT)
        assert abs(x2 - x) < 2 and abs(y2 - y) < 2, ((x, y), (x2, y2))
        level = round(v1["zoom"])
        assert page.js(f"[...GS.tiles.cache.keys()].some((u) => u.includes('/WebMercatorQuad/{level}/'))")
        page.js("document.querySelector('#pane-a .map').focus()")
        chrome.key("-", "Minus", "-", 189)
        chrome.key("+", "Equal", "+", 187)
        page.idle()
        assert abs(page.view()["zoom"] - v1["zoom"]) < 1e-6, (v1, page.view())
        # 5. Pan: drag 120 px right and 60 down; then the arrow keys undo the horizontal part.
        x, y, left, top, w, h = page.screen_of(LON, LAT)
        chrome.drag(left + w / 2, top + h / 2, left + w / 2 + 120, top + h / 2 + 60)
        page.idle()
        v2 = page.view()
        world = 256 * 2 ** v2["zoom"]
        assert abs(((v1["lon"] - v2["lon"] + 540) % 360 - 180) - 120 / world * 360) < 0.05, (v1, v2)
        assert v2["lat"] > v1["lat"], (v1, v2)
        x3, y3, *_ = page.screen_of(LON, LAT)
        assert abs(x3 - x - 120) < 1.5 and abs(y3 - y - 60) < 1.5, ((x, y), (x3, y3))
        page.js("document.querySelector('#pane-a .map').focus()")
        chrome.key("ArrowRight", "ArrowRight", None, 39)
        page.idle()
        assert page.view()["lon"] != v2["lon"]
        chrome.key("ArrowLeft", "ArrowLeft", None, 37)
        page.idle()
        assert abs(page.view()["lon"] - v2["lon"]) < 1e-6
        # Touch: one finger pans, two pinch (zoom about their middle); each undone.
        chrome.send("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=2)
        cx, cy = round(left + w / 2), round(top + h / 2)
        v3 = page.view()
        chrome.touch([(cx, cy)], [(cx + 100, cy)])
        page.idle()
        v4 = page.view()
        world = 256 * 2 ** v4["zoom"]
        assert abs(((v3["lon"] - v4["lon"] + 540) % 360 - 180) - 100 / world * 360) < 0.05, (v3, v4)
        chrome.touch([(cx + 100, cy)], [(cx, cy)])
        chrome.touch([(cx - 20, cy), (cx + 20, cy)], [(cx - 80, cy), (cx + 80, cy)])
        page.idle()
        v5 = page.view()
        assert abs(v5["zoom"] - v3["zoom"] - 2) < 0.05, (v3, v5)  # fingers 4 times further apart
        chrome.touch([(cx - 80, cy), (cx + 80, cy)], [(cx - 20, cy), (cx + 20, cy)])
        page.idle()
        v6 = page.view()
        assert abs(v6["zoom"] - v3["zoom"]) < 0.05 and abs(v6["lon"] - v3["lon"]) < 0.05, (v3, v6)
        chrome.send("Emulation.setTouchEmulationEnabled", enabled=False)
        page.shot("zoom-pan")

        # 6. Click the point: the marker, the meteogram (members, band, median, earlier runs) and
        # the profile with pressure on the vertical axis (log), values as `gridstore extract`.
        x, y, left, top, w, h = page.screen_of(LON, LAT)
        assert left < x < left + w and top < y < top + h, (x, y, left, top, w, h)
        chrome.click(x, y)
        page.idle()
        marker = page.js("viewer.panes.a.map.marker")
        assert abs(marker[0] - LON) < 0.1 and abs(marker[1] - LAT) < 0.1, marker
        cells, panels, where = check_meteogram(page, run_iso)
        earlier = sum(1 for r in run_times if r < run_iso)
        assert [p[0] for p in panels] == ["t", "z"], panels
        for name, members, band, median, previous, title in panels:
            assert members == 10 and band == 1 and median == 1, panels
            assert previous == min(3, earlier), (panels, earlier)
        assert "(K)" in panels[0][5] and "(m**2 s**-2)" in panels[1][5], panels
        profile = page.js("""(() => {
          const svg = document.getElementById('profile');
          const ticks = [...svg.querySelectorAll('text.tick')].filter((t) => t.getAttribute('text-anchor') === 'end');
          return { title: [...svg.querySelectorAll('text.title')].map((t) => t.textContent),
                   levels: ticks.map((t) => [t.textContent, +t.getAttribute('y')]),
                   dots: svg.querySelectorAll('circle.dot').length,
                   values: viewer.pointData.profile };
        })()""")
        assert profile["title"][0] == "isobaricInhPa (hPa), log scale", profile["title"]
        y_of = dict(profile["levels"])
        assert y_of["500"] < y_of["850"], y_of  # 500 hPa above 850 hPa
        assert profile["dots"] == 2, profile
        # The profile's median at 850 hPa is the meteogram's at the time shown.
        shown_time = page.js("viewer.time")
        p50 = dict(((t, v, s), float(val)) for t, v, s, val, _ in cells)[(shown_time, "t", "p50")]
        i850 = profile["values"]["levels"].index(850)
        assert abs(profile["values"]["p50"][i850] - p50) < 1e-6, (profile["values"], p50)
        # The hover readout there: the map's own field (the ensemble mean at the time and level
        # shown) as the command reads it.
        readout = page.js("document.getElementById('readout').textContent")
        m = re.fullmatch(r"lat (-?[\d.]+), lon (-?[\d.]+): t = (-?[\d.]+) K", readout)
        assert m, readout
        out = gs("extract", "ecmf/ens", "--run", run_iso, "--point", f"{m.group(2)},{m.group(1)}",
                 "--variables", "t", "--level", "850", "--time", shown_time, "--stat", "mean",
                 "--format", "json")
        mean = json.loads(out)["rows"][0]["t"]
        assert abs(float(m.group(3)) - mean) < 1e-5 * abs(mean), (readout, mean)
        page.js("document.getElementById('values').open = true")
        page.js("document.getElementById('point').scrollIntoView()")
        page.shot("point")
        page.js("document.getElementById('values').open = false")
        page.js("window.scrollTo(0, 0)")

        # 7. Compare: B is the other centre's deterministic run, then the A - B difference map.
        page.press("#compare")
        page.idle()
        page.select("collection2", "kwbc/fc")
        page.press("#diff")
        page.idle()
        titles = page.js("[...document.querySelectorAll('.pane:not([hidden]) .pane-title')]"
                         ".map((e) => e.textContent)")
        assert len(titles) == 3 and "kwbc/fc" in titles[1] and titles[2].startswith("A − B"), titles
        method = page.js("document.getElementById('pane-d').dataset.method")
        assert method, "the difference map names no method"
        assert page.js("GS.tiles.failed") == 0
        assert page.js("viewer.panes.d.map.complete && viewer.panes.b.map.complete")
        # Linked: the three panes show the same place.
        xa = page.screen_of(LON, LAT, "a")
        for pane in ("b", "d"):
            xb = page.screen_of(LON, LAT, pane)
            assert abs((xb[0] - xb[2]) - (xa[0] - xa[2])) < 1 and abs((xb[1] - xb[3]) - (xa[1] - xa[3])) < 1
        # The meteogram gains B's series at the point (two centres at one place), as the command
        # reads it from B's run at A's valid times.
        run_b = page.js("viewer.docs.get('kwbc/fc').gridstore.forecast.latest")
        out = gs("extract", "kwbc/fc", "--run", run_b, "--point", f"{where[0]},{where[1]}",
                 "--variables", "t,z", "--level", "850", "--format", "json")
        want_b = {(r["time"], v): r[v] for r in json.loads(out)["rows"] for v in ("t", "z")}
        cells_b = page.js("[...document.querySelectorAll('#point-values td[data-stat=\"B\"]')]"
                          ".map((td) => [td.parentElement.dataset.time, td.dataset.variable,"
                          " td.dataset.value])")
        assert len(cells_b) == STEPS * 2, cells_b
        shared = 0
        for t, v, value in cells_b:
            if (t, v) in want_b:
                assert abs(float(value) - want_b[(t, v)]) <= 1e-6 * abs(want_b[(t, v)]), (t, v, value)
                shared += 1
            else:
                assert value == "", (t, v, value)  # B's run does not reach that valid time
        assert shared >= 2, (shared, cells_b)
        others = page.js("[...document.querySelectorAll('#meteogram g.panel')].map((g) => "
                         "g.querySelectorAll('path.other').length)")
        assert others == [1, 1], others
        page.shot("compare")

        # 8. The URL reproduces the view: load it afresh.
        time.sleep(0.3)  # the URL is written 150 ms after the last change
        before = state(page)
        href = page.js("location.href")
        assert page.js("document.getElementById('link').href") == href
        for key in ("c=ecmf/ens", "run=", "stat=mean", "v=t", "z=850", "t=", "map=", "cmp=1",
                    "c2=kwbc/fc", "diff=1", "pt="):
            assert key in href, (key, href)
        chrome.navigate("about:blank")
        chrome.navigate(href)
        page.ready()
        after = state(page)
        for k in before:
            assert before[k] == after[k], (k, before[k], after[k])
        page.shot("reload")

        problems = chrome.console_problems()
        assert not problems, "\n".join(problems)
        assert not late, "\n".join(late)
        print(f"viewer (CDP): loaded in {load_s:.2f} s; run '{labels[1][1]}' picked; "
              f"{frames} frames animated ({fps:.1f} frames/s); zoom {v0['zoom']:.2f} -> "
              f"{v1['zoom']:.2f}, panned; point {where}: {len(cells)} meteogram values equal "
              f"`gridstore extract`; compare with kwbc/fc and A − B ({method}); the URL reloads "
              f"the same view; console clean; screenshots: "
              + ", ".join(f"{os.path.basename(p)} ({s // 1024} KiB)" for p, s in page.taken))
    finally:
        if chrome is not None:
            chrome.close()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
