#!/usr/bin/python3
# Copyright 2026 The GridStore Authors.
#
# `gridstore serve` as its users meet it: a real server process on a free loopback port, a real
# HTTP client (urllib), real files imported by the real command, and every number checked against
# netCDF-C's reading of the original file (netCDF4-python). Covers the OGC API-EDR documents and
# queries, the catalog search, map.png, errors, limits, tokens, other processes' imports and
# deletes, and graceful shutdown on SIGTERM.
# Usage: serve_test.py GRIDSTORE DATA_DIR WORK_DIR
import io
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request

import netCDF4
import numpy as np
from PIL import Image

GRIDSTORE, DATA, WORK = sys.argv[1:4]
del sys.argv[1:4]
STORE = os.path.join(WORK, "store")
TOS = os.path.join(DATA, "tos_O1_2001-2002.nc")
COLPEX = os.path.join(DATA, "small_theta_colpex.nc")


def gridstore(*args, check=True):
    p = subprocess.run([GRIDSTORE, "--store", STORE, *args], capture_output=True, text=True)
    if check and p.returncode != 0:
        raise AssertionError(f"gridstore {' '.join(args)} failed: {p.stderr}")
    return p


class Server:
    """A `gridstore serve` process; its port is read from its first line on stderr."""

    def __init__(self, *args):
        self.proc = subprocess.Popen(
            [GRIDSTORE, "--store", STORE, "serve", "--listen", "127.0.0.1:0", *args],
            stderr=subprocess.PIPE, text=True)
        line = self.proc.stderr.readline()
        m = re.search(r"listening on (http://[^ ]+)", line)
        if not m:
            raise AssertionError("serve did not start: " + line + self.proc.stderr.read())
        self.url = m.group(1)
        self.log = []
        self.reader = threading.Thread(target=self._read_log, daemon=True)
        self.reader.start()

    def _read_log(self):
        for line in self.proc.stderr:
            self.log.append(line)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=30)


def get(url, headers=None):
    """(status, headers, body bytes), for errors too."""
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def q(**params):
    return urllib.parse.urlencode({k.replace("_", "-"): v for k, v in params.items()})


class ServeTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        shutil.rmtree(WORK, ignore_errors=True)
        os.makedirs(WORK)
        gridstore("import", TOS, "--dataset", "ocean/tos", "--attr", "source=NMC",
                  "--attr", "accuracy=1km", "--attr", "title=Sea surface temperature")
        gridstore("import", COLPEX, "--dataset", "ukmo/colpex", "--variables",
                  "air_potential_temperature", "--attr", "source=UKMO")
        cls.server = Server("--refresh-seconds", "0.5")
        cls.url = cls.server.url
        cls.nc = netCDF4.Dataset(TOS)
        cls.nc.set_auto_mask(True)

    @classmethod
    def tearDownClass(cls):
        code = cls.server.stop()
        assert code == 0, f"serve exited {code}"

    def json(self, path, status=200):
        code, headers, body = get(self.url + path)
        self.assertEqual(code, status, body[:500])
        self.assertIn("json", headers["Content-Type"])
        return json.loads(body)

    # ---- documents ----

    def test_landing_and_conformance(self):
        doc = self.json("/")
        rels = {link["rel"]: link["href"] for link in doc["links"]}
        for rel in ("self", "service-desc", "conformance", "data"):
            self.assertIn(rel, rels)
        self.assertEqual(rels["data"], self.url + "/collections")
        classes = self.json("/conformance")["conformsTo"]
        for c in ("ogcapi-common-1/1.0/conf/core", "ogcapi-edr-1/1.1/conf/core",
                  "ogcapi-edr-1/1.1/conf/collections", "ogcapi-edr-1/1.1/conf/covjson"):
            self.assertTrue(any(x.endswith(c) for x in classes), c)
        api = self.json("/api")
        self.assertTrue(api["openapi"].startswith("3."))
        for query in ("position", "area", "cube", "radius", "trajectory", "corridor"):
            path = api["paths"]["/collections/{collectionId}/" + query]["get"]
            names = {p["name"] for p in path["parameters"]}
            self.assertTrue({"datetime", "parameter-name", "crs", "f", "z"} <= names, query)

    def test_collection_extents_match_the_file(self):
        doc = self.json("/collections/" + urllib.parse.quote("ocean/tos", safe=""))
        self.assertEqual(doc["id"], "ocean/tos")
        self.assertEqual(doc["title"], "Sea surface temperature")
        self.assertIn("/collections/ocean%2Ftos", doc["links"][0]["href"])
        lon, lat = self.nc["lon"][:], self.nc["lat"][:]
        w, s, e, n = doc["extent"]["spatial"]["bbox"][0]
        self.assertAlmostEqual(w, float(lon.min()), places=4)
        self.assertAlmostEqual(e, float(lon.max()), places=4)
        self.assertAlmostEqual(s, float(lat.min()), places=4)
        self.assertAlmostEqual(n, float(lat.max()), places=4)
        times = netCDF4.num2date(self.nc["time"][:], self.nc["time"].units,
                                 getattr(self.nc["time"], "calendar", "standard"))
        values = doc["extent"]["temporal"]["values"]
        self.assertEqual(len(values), len(times))
        self.assertTrue(values[0].startswith(times[0].strftime("%Y-%m-%dT%H:%M")))
        p = doc["parameter_names"]["tos"]
        self.assertEqual(p["unit"]["symbol"], "K")
        self.assertEqual(set(doc["data_queries"]), {"position", "area", "cube", "radius",
                                                    "trajectory", "corridor"})
        for query, d in doc["data_queries"].items():
            self.assertEqual(d["link"]["variables"]["query_type"], query)
            self.assertIn("CoverageJSON", d["link"]["variables"]["output_formats"])
        # OGC API-EDR 1.1 extent.yaml: an interval is an array of [start, end] arrays.
        self.assertEqual(doc["extent"]["temporal"]["interval"],
                         [[values[0], values[-1]]])
        colpex = self.json("/collections/ukmo%2Fcolpex")
        self.assertIn("vertical", colpex["extent"])
        self.assertEqual(len(colpex["extent"]["vertical"]["interval"][0]), 2)
        self.assertIn("curvilinear", colpex["gridstore"]["grid"])

    def test_catalog_search(self):
        ids = [c["id"] for c in self.json("/collections")["collections"]]
        self.assertEqual(sorted(ids), ["ocean/tos", "ukmo/colpex"])
        # The reference's example: DONE, created in the last day, source ECMWF or NMC, accuracy
        # 1km, newest first.
        where = ("status = 'DONE' and create_time > now - 1 day and (source = 'ECMWF' or "
                 "source = 'NMC') and accuracy = '1km'")
        doc = self.json("/collections?" + q(where=where, sort="create_time:desc"))
        self.assertEqual([c["id"] for c in doc["collections"]], ["ocean/tos"])
        self.assertEqual(doc["numberMatched"], 1)
        page = self.json("/collections?" + q(sort="id:desc", limit=1))
        self.assertEqual([c["id"] for c in page["collections"]], ["ukmo/colpex"])
        nxt = [link["href"] for link in page["links"] if link["rel"] == "next"]
        self.assertEqual(len(nxt), 1)
        code, _, body = get(nxt[0])
        self.assertEqual([c["id"] for c in json.loads(body)["collections"]], ["ocean/tos"])
        err = self.json("/collections?" + q(where="source = "), 400)
        self.assertEqual(err["code"], "InvalidParameterValue")
        self.assertIn("where", err["description"])
        self.json("/collections?" + q(limit=5000), 400)

    # ---- queries, value by value against netCDF-C ----

    def nearest(self, lon, lat):
        lons, lats = self.nc["lon"][:], self.nc["lat"][:]
        return int(np.argmin(abs(lats - lat))), int(np.argmin(abs(((lons - lon) + 180) % 360 - 180)))

    def test_position_series_equals_the_file(self):
        lon, lat = 200.5, -10.3
        cov = self.json("/collections/ocean%2Ftos/position?" + q(coords=f"POINT({lon} {lat})"))
        self.assertEqual(cov["type"], "Coverage")
        self.assertEqual(cov["domain"]["domainType"], "PointSeries")
        got = cov["ranges"]["tos"]["values"]
        j, i = self.nearest(lon, lat)
        want = self.nc["tos"][:, j, i]
        self.assertEqual(len(got), len(want))
        for g, w in zip(got, want):
            self.assertAlmostEqual(g, float(w), places=3)
        # CSV and NetCDF carry the same numbers.
        code, headers, body = get(self.url + "/collections/ocean%2Ftos/position?" +
                                  q(coords=f"POINT({lon} {lat})", f="CSV"))
        self.assertEqual(code, 200)
        rows = body.decode().strip().split("\n")
        self.assertEqual(len(rows), 1 + len(want))
        self.assertAlmostEqual(float(rows[1].split(",")[-1]), float(want[0]), places=3)
        code, headers, body = get(self.url + "/collections/ocean%2Ftos/position?" +
                                  q(coords=f"POINT({lon} {lat})", f="NetCDF"))
        self.assertEqual(code, 200, body[:300])
        self.assertEqual(headers["Content-Type"], "application/x-netcdf")
        out = netCDF4.Dataset("in-memory.nc", memory=body)
        np.testing.assert_allclose(np.ravel(out["tos"][:]), np.ravel(want), rtol=1e-6)

    def test_multipoint_and_one_time(self):
        t = self.json("/collections/ocean%2Ftos")["extent"]["temporal"]["values"][5]
        cov = self.json("/collections/ocean%2Ftos/position?" +
                        q(coords="MULTIPOINT((180.3 0.2),(300.5 -40.2))", datetime=t))
        self.assertEqual(cov["type"], "CoverageCollection")
        for c, (lon, lat) in zip(cov["coverages"], [(180.3, 0.2), (300.5, -40.2)]):
            j, i = self.nearest(lon, lat)
            self.assertAlmostEqual(c["ranges"]["tos"]["values"][0], float(self.nc["tos"][5, j, i]),
                                   places=3)

    def test_cube_equals_the_file_slice(self):
        t = self.json("/collections/ocean%2Ftos")["extent"]["temporal"]["values"][2]
        cov = self.json("/collections/ocean%2Ftos/cube?" + q(bbox="150,-20,170,-5", datetime=t))
        self.assertEqual(cov["domain"]["domainType"], "Grid")
        xs = cov["domain"]["axes"]["x"]["values"]
        ys = cov["domain"]["axes"]["y"]["values"]
        got = np.array([np.nan if v is None else v for v in cov["ranges"]["tos"]["values"]])
        lons, lats = self.nc["lon"][:], self.nc["lat"][:]
        ii = [int(np.argmin(abs(lons - x))) for x in xs]
        jj = [int(np.argmin(abs(lats - y))) for y in ys]
        want = self.nc["tos"][2][np.ix_(jj, ii)].filled(np.nan)
        self.assertEqual(cov["ranges"]["tos"]["axisNames"][-2:], ["y", "x"])
        np.testing.assert_allclose(got.reshape(want.shape), want, rtol=1e-6)
        self.assertTrue(all(150 <= x <= 170 for x in xs) and all(-20 <= y <= -5 for y in ys))

    def test_area_radius_trajectory_corridor(self):
        t = self.json("/collections/ocean%2Ftos")["extent"]["temporal"]["values"][0]
        base = "/collections/ocean%2Ftos/"
        area = self.json(base + "area?" + q(coords="POLYGON((150 -20,170 -20,170 -5,150 -20))",
                                            datetime=t))
        cube = self.json(base + "cube?" + q(bbox="150,-20,170,-5", datetime=t))
        n_area = sum(v is not None for v in area["ranges"]["tos"]["values"])
        n_cube = sum(v is not None for v in cube["ranges"]["tos"]["values"])
        self.assertTrue(0 < n_area < n_cube, (n_area, n_cube))  # a triangle inside the box
        radius = self.json(base + "radius?" + q(coords="POINT(160 -10)", within=300,
                                                within_units="km", datetime=t))
        self.assertGreater(sum(v is not None for v in radius["ranges"]["tos"]["values"]), 0)
        miles = self.json(base + "radius?" + q(coords="POINT(160 -10)", within=300 / 1.609344,
                                               within_units="mi", datetime=t))
        self.assertEqual(miles["ranges"]["tos"]["values"], radius["ranges"]["tos"]["values"])
        traj = self.json(base + "trajectory?" + q(coords="LINESTRING(150 -10,170 -10)",
                                                  datetime=t))
        self.assertIn(traj["type"], ("Coverage", "CoverageCollection"))
        corridor = self.json(base + "corridor?" + q(coords="LINESTRING(150 -10,170 -10)",
                                                    corridor_width=200, width_units="km",
                                                    datetime=t))
        self.assertGreater(sum(v is not None for v in corridor["ranges"]["tos"]["values"]), 0)

    def test_rotated_pole_point_equals_the_command(self):
        w, s, e, n = self.json("/collections/ukmo%2Fcolpex")["extent"]["spatial"]["bbox"][0]
        lon, lat = (w + e) / 2, (s + n) / 2
        cov = self.json("/collections/ukmo%2Fcolpex/position?" + q(coords=f"POINT({lon} {lat})"))
        p = gridstore("extract", "ukmo/colpex", "--variables", "air_potential_temperature",
                      "--point", f"{lon},{lat}", "--format", "json", "--unpack")
        want = json.loads(p.stdout)["values"]["air_potential_temperature"]
        got = []
        for c in cov.get("coverages", [cov]):
            got += c["ranges"]["air_potential_temperature"]["values"]
        self.assertEqual(len(got), len(want))
        for g, w in zip(sorted(got), sorted(want)):
            self.assertAlmostEqual(g, w, places=3)

    # ---- errors ----

    def test_errors_are_specific(self):
        base = "/collections/ocean%2Ftos/"
        cases = [
            (base + "position?" + q(coords="POINT(200)"), 400, "POINT"),
            (base + "position?" + q(coords="POINT(200 -10)", bogus=1), 400, "bogus"),
            (base + "position?" + q(coords="POINT(200 -10)", datetime="2001-13-45"), 400, ""),
            (base + "position?" + q(coords="POINT(200 -10)", crs="EPSG:3857"), 400, "crs"),
            (base + "position?" + q(coords="POINT(200 -10)", f="xml"), 400, "xml"),
            (base + "position?" + q(coords="POINT(20 -89.9)"), 400, "outside"),
            (base + "position", 400, "coords"),
            (base + "radius?" + q(coords="POINT(160 -10)", within=3, within_units="parsec"),
             400, "parsec"),
            (base + "position?" + q(coords="POINT(200 -10)", parameter_name="nope"), 400, "nope"),
            (base + "area?" + q(coords="LINESTRING(0 0,1 1)"), 400, "POLYGON"),
            (base + "heatmap", 404, "heatmap"),
            ("/collections/nope/position?" + q(coords="POINT(0 0)"), 404, "nope"),
            ("/collections/ocean%2Ftos/position?coords=%zz", 400, "percent"),
            ("/nothing", 404, ""),
        ]
        for path, status, word in cases:
            code, headers, body = get(self.url + path)
            self.assertEqual(code, status, path + " -> " + body.decode(errors="replace"))
            doc = json.loads(body)
            self.assertEqual(set(doc), {"code", "description"}, path)
            self.assertIn(word, doc["description"], path)
        req = urllib.request.Request(self.url + "/collections", data=b"x", method="POST")
        with self.assertRaises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req)
        self.assertEqual(e.exception.code, 405)

    def test_too_large_is_413_with_advice(self):
        small = Server("--max-response-mb", "0.05", "--refresh-seconds", "0")
        try:
            code, _, body = get(small.url + "/collections/ocean%2Ftos/cube?" +
                                q(bbox="0,-80,359,80"))
            self.assertEqual(code, 413)
            self.assertIn("narrow", json.loads(body)["description"])
            code, _, _ = get(small.url + "/collections/ocean%2Ftos/position?" +
                             q(coords="POINT(200 -10)"))
            self.assertEqual(code, 200)
        finally:
            self.assertEqual(small.stop(), 0)

    def test_issue29_work_budgets_are_413_naming_what_to_narrow(self):
        # (The corridor's budget is tested in the library, tests/geo/extract_test.cc: a path long
        # enough to pass it does not fit in a request target of 8 KiB.)
        # A 4096-pixel-wide map of a curvilinear grid: a nearest-cell search per pixel.
        code, _, body = get(self.url + "/collections/ukmo%2Fcolpex/map.png?width=4096")
        self.assertEqual(code, 413, body[:300])
        self.assertIn("ask for width=", json.loads(body)["description"])
        # Cheap queries still answer meanwhile.
        code, _, _ = get(self.url + "/collections/ocean%2Ftos/position?" +
                         q(coords="POINT(200 -10)"))
        self.assertEqual(code, 200)

    def test_issue29_every_parameter_at_a_point_in_one_request(self):
        # contour.cdf's variables lie on two level axes: without parameter-name all of them come,
        # each group a coverage with its own domain; NetCDF holds one group and names the rest.
        gridstore("import", os.path.join(DATA, "contour.cdf"), "--dataset", "ncar/contour")
        try:
            for _ in range(50):
                if get(self.url + "/collections/ncar%2Fcontour")[0] == 200:
                    break
                time.sleep(0.2)
            code, _, body = get(self.url + "/collections/ncar%2Fcontour/position?" +
                                q(coords="POINT(-100 40)"))
            self.assertEqual(code, 200, body[:300])
            doc = json.loads(body)
            self.assertEqual(doc["type"], "CoverageCollection")
            names = set()
            for c in doc["coverages"]:
                names |= set(c["ranges"])
            self.assertEqual(names, set(doc["parameters"]))
            self.assertGreaterEqual(len(names), 3)
            code, headers, body = get(self.url + "/collections/ncar%2Fcontour/position?" +
                                      q(coords="POINT(-100 40)", f="NetCDF"))
            self.assertEqual(code, 200)
            self.assertIn("which one netCDF answer cannot hold", headers["X-GridStore-Left-Out"])
        finally:
            gridstore("delete", "ncar/contour")

    def test_tokens(self):
        token_file = os.path.join(WORK, "tokens")
        with open(token_file, "w") as f:
            f.write("# readers\ns3cret-one\n\ns3cret-two\n")
        guarded = Server("--token-file", token_file, "--refresh-seconds", "0")
        try:
            self.assertEqual(get(guarded.url + "/collections")[0], 401)
            self.assertEqual(get(guarded.url + "/collections",
                                 {"Authorization": "Bearer s3cret-on"})[0], 401)
            self.assertEqual(get(guarded.url + "/collections",
                                 {"Authorization": "Bearer s3cret-two"})[0], 200)
            # Issue 29, 4.4: the viewer's page loads without a token (it asks for one); the
            # data behind it does not.
            code, headers, body = get(guarded.url + "/viewer")
            self.assertEqual(code, 200)
            self.assertIn(b"GridStore viewer", body)
            self.assertEqual(get(guarded.url + "/viewer/viewer.js")[0], 200)
            self.assertEqual(get(guarded.url + "/collections/ocean%2Ftos/map.png")[0], 401)
        finally:
            self.assertEqual(guarded.stop(), 0)

    def test_issue29_cors_preflight_is_answered_without_a_token(self):
        token_file = os.path.join(WORK, "tokens-cors")
        with open(token_file, "w") as f:
            f.write("tok\n")
        guarded = Server("--token-file", token_file, "--cors", "*", "--refresh-seconds", "0")
        try:
            req = urllib.request.Request(
                guarded.url + "/collections", method="OPTIONS",
                headers={"Origin": "https://maps.example", "Access-Control-Request-Method": "GET",
                         "Access-Control-Request-Headers": "authorization"})
            with urllib.request.urlopen(req, timeout=30) as r:
                self.assertEqual(r.status, 204)
                self.assertEqual(r.headers["Access-Control-Allow-Origin"], "*")
                self.assertIn("Authorization", r.headers["Access-Control-Allow-Headers"])
                self.assertIn("GET", r.headers["Access-Control-Allow-Methods"])
        finally:
            self.assertEqual(guarded.stop(), 0)

    def test_issue29_trusted_proxy_must_be_an_address(self):
        for bad in ("", "proxy.example", "127.0.0.1/8"):
            p = gridstore("serve", "--listen", "127.0.0.1:0", "--trusted-proxy", bad, check=False)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn("is not an IP address", p.stderr)

    def test_issue29_parameters_with_one_grammar(self):
        # limit=0 used to be taken, with a `next` link equal to `self`: a client never stopped.
        code, _, body = get(self.url + "/collections?limit=0")
        self.assertEqual(code, 400, body)
        self.assertIn(b"from 1 to 1000", body)
        doc = self.json("/collections?limit=1")
        links = {l["rel"]: l["href"] for l in doc["links"]}
        self.assertNotEqual(links["self"], links["next"])
        # An empty sort is refused as the command refuses it.
        self.assertEqual(get(self.url + "/collections?sort=")[0], 400)
        # Hexadecimal is not a coordinate (POINT(0x10 0) was longitude 16).
        code, _, body = get(self.url + "/collections/ocean%2Ftos/position?" +
                            q(coords="POINT(0x10 0)"))
        self.assertEqual(code, 400, body)
        # A reversed time interval is an error, not the same interval forwards.
        code, _, body = get(self.url + "/collections/ocean%2Ftos/position?" +
                            q(coords="POINT(-30 0)", datetime="2002-01-16/2001-01-16"))
        self.assertEqual(code, 400, body)
        self.assertIn(b"reversed", body)
        # The same time twice is one.
        t = self.json("/collections/ocean%2Ftos")["extent"]["temporal"]["values"][0]
        code, _, body = get(self.url + "/collections/ocean%2Ftos/position?" +
                            q(coords="POINT(-30 0)", datetime=f"{t},{t}"))
        self.assertEqual(code, 200, body)
        self.assertEqual(len(json.loads(body)["ranges"]["tos"]["values"]), 1)

    # ---- map.png ----

    def test_map_png(self):
        t = self.json("/collections/ocean%2Ftos")["extent"]["temporal"]["values"][3]
        code, headers, body = get(self.url + "/collections/ocean%2Ftos/map.png?" +
                                  q(datetime=t, width=360))
        self.assertEqual(code, 200, body[:300])
        self.assertEqual(headers["Content-Type"], "image/png")
        image = Image.open(io.BytesIO(body)).convert("RGBA")
        legend = int(headers["X-GridStore-Legend-Height"])
        self.assertEqual(image.width, 360)
        lo, hi = map(float, headers["X-GridStore-Range"].split(","))
        data = self.nc["tos"][3]
        self.assertAlmostEqual(lo, float(data.min()), places=3)
        self.assertAlmostEqual(hi, float(data.max()), places=3)
        alpha = np.array(image)[: image.height - legend, :, 3]
        self.assertTrue((alpha == 0).any())  # land (fill values) is transparent
        self.assertTrue((alpha == 255).mean() > 0.3)  # ocean is drawn
        code, _, body = get(self.url + "/collections/ocean%2Ftos/map.png?" +
                            q(colormap="rainbow"))
        self.assertEqual(code, 400)
        self.assertIn("rainbow", json.loads(body)["description"])

    # ---- other processes, the access log ----

    def test_imports_and_deletes_appear_within_5_s(self):
        gridstore("import", TOS, "--dataset", "late/tos")
        deadline = time.time() + 5
        ids = []
        while time.time() < deadline:
            ids = [c["id"] for c in self.json("/collections")["collections"]]
            if "late/tos" in ids:
                break
            time.sleep(0.1)
        self.assertIn("late/tos", ids)
        gridstore("delete", "late/tos")
        deadline = time.time() + 5
        while time.time() < deadline and "late/tos" in ids:
            ids = [c["id"] for c in self.json("/collections")["collections"]]
            time.sleep(0.1)
        self.assertNotIn("late/tos", ids)

    def test_access_log(self):
        get(self.url + "/conformance?f=json")
        time.sleep(0.2)
        lines = [l for l in self.server.log if '"GET /conformance?f=json HTTP/1.1" 200' in l]
        self.assertTrue(lines, self.server.log[-5:])
        self.assertRegex(lines[-1], r'^127\.0\.0\.1 - - \[\d\d/\w\w\w/\d{4}:\d\d:\d\d:\d\d ')

    def test_sigterm_lets_in_flight_requests_finish(self):
        other = Server("--refresh-seconds", "0")
        results = []

        def slow():  # a whole-field cube: long enough to be in flight at SIGTERM
            try:
                results.append(get(other.url + "/collections/ocean%2Ftos/cube?" +
                                   q(bbox="0,-80,359,80")))
            except urllib.error.URLError:  # connected after the listener closed: refused
                results.append((None, None, b""))

        threads = [threading.Thread(target=slow) for _ in range(3)]
        for th in threads:
            th.start()
        time.sleep(0.05)
        self.assertEqual(other.stop(), 0)
        for th in threads:
            th.join()
        answered = [body for code, _, body in results if code == 200]
        self.assertTrue(answered)  # in flight at SIGTERM, yet answered whole:
        for body in answered:
            self.assertEqual(json.loads(body)["domain"]["domainType"], "Grid")


if __name__ == "__main__":
    unittest.main(verbosity=2)
