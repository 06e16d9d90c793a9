#!/usr/bin/python3
# Copyright 2026 The GridStore Authors.
#
# The viewer's basemap (issue 32): the asset make_basemap wrote at build time from GSHHG decodes
# (by a decoder written here from the format in docs/viewer.md), holds the coasts, lakes and
# borders where the world has them (within the simplification's tolerance), and a real
# `gridstore serve` serves exactly those bytes at /viewer/basemap.bin, cacheable, without a
# token; and basemap.js's own decoder, run by headless Chromium, reads the same lines.
# Usage: basemap_test.py GRIDSTORE DATA_DIR BASEMAP_BIN SOURCE_DIR WORK_DIR
import base64
import html
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import unittest
import urllib.error
import urllib.request

GRIDSTORE, DATA, ASSET, SOURCE, WORK = sys.argv[1:6]
del sys.argv[1:6]
STORE = os.path.join(WORK, "store")
BASEMAP_JS = os.path.join(SOURCE, "gridstore", "server", "viewer", "basemap.js")
TOLERANCE = 0.1  # degrees: the build's 0.05 simplification, GSHHG 'l' (5 km) and a margin


def decode(b):
    """{layer: [[(lon, lat), ...], ...]} from basemap.bin."""
    if b[:4] != b"GSBM" or b[4] != 1:
        raise ValueError("not a version-1 basemap")
    pos = 5

    def varint():
        nonlocal pos
        value, shift = 0, 0
        while True:
            byte = b[pos]
            pos += 1
            value |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return value

    def zigzag():
        v = varint()
        return -(v + 1) // 2 if v & 1 else v // 2

    units = varint()
    layers = {}
    for _ in range(varint()):
        n = varint()
        name = b[pos:pos + n].decode()
        pos += n
        lines = []
        for _ in range(varint()):
            x = y = 0
            line = []
            for _ in range(varint()):
                x += zigzag()
                y += zigzag()
                line.append((x / units, y / units))
            lines.append(line)
        layers[name] = lines
    if pos != len(b):
        raise ValueError(f"{len(b) - pos} bytes after the last layer")
    return layers


def distance(lon, lat, lines):
    """The smallest distance in degrees (lon scaled by cos(lat)) from a point to the lines."""
    c = math.cos(math.radians(lat))
    best = math.inf
    for line in lines:
        for (x0, y0), (x1, y1) in zip(line, line[1:]):
            if min(x0, x1) - 1 > lon or max(x0, x1) + 1 < lon:
                continue
            if min(y0, y1) - 1 > lat or max(y0, y1) + 1 < lat:
                continue
            ax, ay = (x0 - lon) * c, y0 - lat
            bx, by = (x1 - lon) * c, y1 - lat
            dx, dy = bx - ax, by - ay
            t = 0.0 if dx == dy == 0 else max(0.0, min(1.0, -(ax * dx + ay * dy) / (dx * dx + dy * dy)))
            best = min(best, math.hypot(ax + t * dx, ay + t * dy))
    return best


def get(url, headers=None):
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


class BasemapAssetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with open(ASSET, "rb") as f:
            cls.bytes = f.read()
        cls.layers = decode(cls.bytes)
        cls.coast = cls.layers["coastlines"]
        cls.lakes = cls.layers["lakes"]
        cls.borders = cls.layers["borders"]

    def test_size_and_layers(self):
        self.assertEqual(list(self.layers), ["coastlines", "lakes", "borders"])
        self.assertLess(len(self.bytes), 400_000)
        points = {k: sum(map(len, v)) for k, v in self.layers.items()}
        print(f"basemap.bin: {len(self.bytes)} bytes, points {points}, "
              f"lines { {k: len(v) for k, v in self.layers.items()} }")
        self.assertGreater(points["coastlines"], 20_000)
        self.assertGreater(points["borders"], 3_000)
        self.assertGreater(points["lakes"], 1_000)

    def test_coordinates_in_range_and_no_line_crosses_the_antimeridian(self):
        for name, lines in self.layers.items():
            for line in lines:
                self.assertGreaterEqual(len(line), 2, name)
                for (x0, y0), (x1, y1) in zip(line, line[1:]):
                    self.assertTrue(-180 <= x0 <= 180 and -90 <= y0 <= 90, (name, x0, y0))
                    self.assertLess(abs(x1 - x0), 90, (name, x0, y0, x1, y1))
        # Both sides of the antimeridian are reached (Chukotka, Fiji, Antarctica).
        lons = [x for line in self.coast for x, _ in line]
        self.assertEqual(min(lons), -180)
        self.assertEqual(max(lons), 180)

    def test_known_coasts(self):
        places = {
            "Land's End": (-5.714, 50.066), "Dover": (1.33, 51.12), "Duncansby Head": (-3.03, 58.64),
            "Sydney Heads": (151.29, -33.83), "Cape York": (142.53, -10.69),
            "Perth, Cottesloe": (115.75, -31.99), "Tarifa (Gibraltar, north)": (-5.61, 36.01),
            "Punta Cires (Gibraltar, south)": (-5.48, 35.91), "Cape Horn": (-67.27, -55.98),
            "Antarctica, Ross Ice Shelf front": (180.0, -77.85), "Cape of Good Hope": (18.47, -34.36),
        }
        for place, (lon, lat) in places.items():
            self.assertLess(distance(lon, lat, self.coast), TOLERANCE, place)
        # Open water stays open: the middle of the Strait of Gibraltar, the open Atlantic.
        self.assertGreater(distance(-5.55, 35.96, self.coast), 0.02)
        self.assertGreater(distance(-40.0, 30.0, self.coast), 5)
        self.assertGreater(distance(-140.0, 0.0, self.coast), 5)

    def test_known_lakes(self):
        places = {"Lake Geneva, Ouchy": (6.627, 46.505), "Lake Michigan, Chicago": (-87.61, 41.88),
                  "Caspian Sea, Baku": (49.87, 40.36), "Lake Victoria, Entebbe": (32.47, 0.06)}
        for place, (lon, lat) in places.items():
            self.assertLess(distance(lon, lat, self.lakes), TOLERANCE, place)
        # Lakes are drawn with the coastlines, not as borders.
        self.assertGreater(distance(6.627, 46.505, self.borders), 0.02)

    def test_known_borders(self):
        places = {"France-Spain, Le Perthus": (2.86, 42.46), "France-Spain, Somport": (-0.525, 42.80),
                  "France-Spain, Hendaye": (-1.77, 43.34), "Germany-Poland, Oder": (14.55, 52.35),
                  "USA-Canada, 49th parallel": (-110.0, 49.0), "Chile-Argentina": (-70.0, -33.0)}
        for place, (lon, lat) in places.items():
            self.assertLess(distance(lon, lat, self.borders), TOLERANCE, place)
        # No border in the middle of France, nor at sea.
        self.assertGreater(distance(2.35, 46.5, self.borders), 1)
        self.assertGreater(distance(-30.0, 40.0, self.borders), 5)

    def test_basemap_js_decodes_the_same_lines(self):
        # basemap.js's own decoder, run by headless Chromium on the same bytes (inlined: a
        # file:// page may not fetch), its answer printed into the DOM.
        with open(BASEMAP_JS) as f:
            code = f.read()
        with open(ASSET, "rb") as f:
            data = base64.b64encode(f.read()).decode()
        page = os.path.join(WORK, "basemap_js.html")
        os.makedirs(WORK, exist_ok=True)
        with open(page, "w") as f:
            f.write("<!doctype html><html><body><pre id=out></pre><script>" + code +
                    "</script><script>"
                    "const raw = atob('" + data + "');"
                    "const bytes = new Uint8Array(raw.length);"
                    "for (let i = 0; i < raw.length; ++i) bytes[i] = raw.charCodeAt(i);"
                    "const layers = decodeBasemap(bytes.buffer);"
                    "const out = {};"
                    "for (const k in layers) out[k] = layers[k].map((l) => Array.from(l));"
                    "out.graticule = graticuleLines(-10, 35, 20, 60, 8)"
                    "  .map((g) => [g.kind, g.value, g.label, g.points.length]);"
                    "document.getElementById('out').textContent = JSON.stringify(out);"
                    "</script></body></html>")
        home = os.path.join(WORK, "chromium-home")
        p = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu",
                            "--no-first-run", "--disable-dev-shm-usage",
                            f"--user-data-dir={home}", "--dump-dom", "file://" + page],
                           capture_output=True, text=True, timeout=180,
                           env={**os.environ, "HOME": home})
        found = re.search(r'<pre id="out">(.*?)</pre>', p.stdout, re.S)
        self.assertIsNotNone(found, "the page printed nothing: " + p.stderr[-2000:])
        js = json.loads(html.unescape(found.group(1)))
        for name, lines in self.layers.items():
            self.assertEqual(len(js[name]), len(lines), name)
            for a, b in zip(js[name], lines):
                self.assertEqual(len(a), 2 * len(b))
                for k, (x, y) in enumerate(b):
                    self.assertAlmostEqual(a[2 * k], x, delta=1e-4)
                    self.assertAlmostEqual(a[2 * k + 1], y, delta=1e-4)
        # A 30 x 25 degree box at about 8 lines: 5-degree steps.
        meridians = [g[1] for g in js["graticule"] if g[0] == "meridian"]
        parallels = [g[1] for g in js["graticule"] if g[0] == "parallel"]
        self.assertEqual(meridians, [-10, -5, 0, 5, 10, 15, 20])
        self.assertEqual(parallels, [35, 40, 45, 50, 55, 60])
        self.assertIn(["meridian", -10, "10°W", 42], js["graticule"])  # 21 points: every 1.25°


class BasemapServedTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        shutil.rmtree(WORK, ignore_errors=True)
        os.makedirs(WORK)
        subprocess.run([GRIDSTORE, "--store", STORE, "import",
                        os.path.join(DATA, "tos_O1_2001-2002.nc"), "--dataset", "ocean/tos"],
                       check=True, capture_output=True)
        token_file = os.path.join(WORK, "tokens")
        with open(token_file, "w") as f:
            f.write("s3cret\n")
        cls.server = subprocess.Popen(
            [GRIDSTORE, "--store", STORE, "serve", "--listen", "127.0.0.1:0", "--token-file",
             token_file], stderr=subprocess.PIPE, text=True)
        line = cls.server.stderr.readline()
        m = re.search(r"listening on (http://[^ ]+)", line)
        if not m:
            cls.server.kill()
            raise AssertionError("serve did not start: " + line)
        cls.url = m.group(1)

    @classmethod
    def tearDownClass(cls):
        cls.server.send_signal(signal.SIGTERM)
        cls.server.wait(timeout=30)

    def test_served_bytes_are_the_built_asset(self):
        with open(ASSET, "rb") as f:
            built = f.read()
        # No token needed: the page fetches it before it has one.
        code, headers, body = get(self.url + "/viewer/basemap.bin?v=1")
        self.assertEqual(code, 200)
        self.assertEqual(body, built)
        self.assertEqual(headers["Content-Type"], "application/octet-stream")
        max_age = re.search(r"max-age=(\d+)", headers["Cache-Control"])
        self.assertTrue(max_age and int(max_age.group(1)) >= 86400, headers["Cache-Control"])
        # The data behind the page does need the token.
        self.assertEqual(get(self.url + "/collections")[0], 401)

    def test_basemap_js_is_served(self):
        code, headers, body = get(self.url + "/viewer/basemap.js")
        self.assertEqual(code, 200)
        self.assertTrue(headers["Content-Type"].startswith("text/javascript"))
        self.assertIn(b"function loadBasemap(fetchFn", body)
        self.assertIn(b"function graticuleLines(west, south, east, north, approxCount)", body)
        self.assertIn(b"'/viewer/basemap.bin?v=1'", body)


if __name__ == "__main__":
    unittest.main(verbosity=2)
