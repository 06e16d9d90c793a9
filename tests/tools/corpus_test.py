#!/usr/bin/python3
# Copyright 2026 The GridStore Authors.
#
# Issue 29's corpus test: every real file of ../shared/data, ../shared/grib and ../shared/corpus
# (files written by others, as models and centres write them) through the whole product. Each
# file imports with the grid kind EXPECTED gives, or is refused with one line naming it; `info`
# shows the grid; `extract --point` at a cell's own centre returns that cell (0 km away) with the
# value `fetch` reads there and, for netCDF, the value netCDF-C (netCDF4-python) reads; for GRIB,
# every variable's values at that cell, at every time and level, equal ecCodes' (each matched to
# its own message by parameter, step type, level type, level, member and valid time); a bbox and
# "all variables" answer; every EDR endpoint and format of `serve` answers without a 5xx and the
# process stays up; the xarray engine opens and loads it. No command may die by a signal.
# The table docs/files.md shows users is the same as EXPECTED.
# Usage: corpus_test.py GRIDSTORE DATA_DIR WORK_DIR
import csv
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
import unittest
import urllib.error
import urllib.parse
import urllib.request

import eccodes
import netCDF4
import numpy as np

GRIDSTORE, DATA, WORK = sys.argv[1:4]
del sys.argv[1:4]
SHARED = os.path.dirname(os.path.abspath(DATA))
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
STORE = os.path.join(WORK, "store")

# file -> "rectilinear" | "curvilinear" | "unstructured" (a cell axis) | "none" (imports, no grid)
# | "refused: <words the error must hold>"
EXPECTED = {
    "data/SMALL_total_column_co2.nc": "rectilinear",
    "data/contour.cdf": "rectilinear",
    "data/era5_1995-07-14T12.nc": "rectilinear",
    "data/nc4uvt.nc": "rectilinear",
    "data/reduced.nc": "rectilinear",
    "data/small_theta_colpex.nc": "curvilinear",
    "data/sub.nc": "rectilinear",
    "data/tos_O1_2001-2002.nc": "rectilinear",
    "grib/3_layer.grib2": "refused: on another grid",
    "grib/CMC_glb_TMP_ISBL_1015_ps30km_2013052000_P006.grib2": "curvilinear",
    "grib/era5-2mt-2019-03-uk.grib": "rectilinear",
    "grib/era5-levels-members.grib": "rectilinear",
    "grib/lambert.grib2": "curvilinear",
    "grib/missing_values.grib2": "rectilinear",
    "grib/reduced_gg.grib2": "unstructured",
    "grib/regular_gg.grib2": "rectilinear",
    "grib/wafsgfs_L_t06z_intdsk60.grib2": "unstructured",
    "corpus/HSURF_regional_model_0.44deg.nc": "curvilinear",
    "corpus/ST4.2013052210.01h.grib1": "curvilinear",
    "corpus/archv.0021_016_00_3zu.nc": "rectilinear",
    "corpus/camse_unstructured_grid.nc": "unstructured",
    "corpus/euro_air_temp_laea.nc": "curvilinear",
    "corpus/flxf2006040100.grib1": "rectilinear",
    "corpus/geo_em_d01_polarstereo.nc": "curvilinear",
    "corpus/ineg_jneg.grib2": "rectilinear",
    "corpus/ineg_jpos.grib2": "rectilinear",
    "corpus/ipos_jpos.grib2": "rectilinear",
    "corpus/met_em.d01.2005-08-28_12.nc": "curvilinear",
    "corpus/mm5_d3.nc": "curvilinear",
    "corpus/pre.8912.mon.nc": "curvilinear",
    "corpus/reduced_ll.grib1": "unstructured",
    "corpus/rotPole_landAreaFraction.nc": "curvilinear",
    "corpus/test_lcc.nc": "curvilinear",
    "corpus/time_bound.grib2": "rectilinear",
    "corpus/tmean_1910_1910.nc": "curvilinear",
    "corpus/toa_brightness_temperature_mercator.nc": "curvilinear",
    "corpus/ugrid_21_triangle_example.nc": "unstructured",
    "corpus/ugrid_data_C4.nc": "unstructured",
    # Made by the test from HSURF (issue 29, 2.1): only rlat/rlon and a `char rotated_pole`.
    "made/cordex_rlat_rlon_only.nc": "curvilinear",
    # Made from met_em (issue 29, 2.3), as wrfout holds times: two times (18:00 with TT + 1 K),
    # and a moving nest (XLAT/CLAT moved 0.5 degrees at the second time).
    "made/wrf_two_times.nc": "curvilinear",
    "made/wrf_moving_nest.nc": "refused: a moving nest",
}


def run(*args, check=False):
    p = subprocess.run([GRIDSTORE, "--store", STORE, *args], capture_output=True, text=True,
                       timeout=600)
    if p.returncode < 0:
        raise AssertionError(f"gridstore {' '.join(args)} died by signal {-p.returncode}: "
                             f"{p.stderr[-2000:]}")
    if check and p.returncode != 0:
        raise AssertionError(f"gridstore {' '.join(args)} failed: {p.stderr}")
    return p


# name -> the dataset its import made when that is not "corpus/NAME": an ensemble is one dataset
# per member ("corpus/NAME/m00"...), and the test looks at the first.
MADE = {}


def dataset_id(name):
    return MADE.get(name, "corpus/" + name.replace("/", "_"))


def is_grib(name):
    return name.endswith((".grib", ".grib1", ".grib2"))


def collection_of(name):
    """Each GRIB file goes into a forecast collection of its own, named as its dataset: the
    collection its keys give (centre/kind, such as kwbc/fc) is shared by files on different grids,
    which one collection refuses. The service lists the collection, not its datasets."""
    return "corpus/" + name.replace("/", "_")


def get(url):
    try:
        with urllib.request.urlopen(url, timeout=120) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


class CorpusTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        shutil.rmtree(WORK, ignore_errors=True)
        os.makedirs(os.path.join(WORK, "made"))
        cls.paths = {}
        for name in EXPECTED:
            folder, file = name.split("/", 1)
            if folder == "made":
                continue
            cls.paths[name] = os.path.join(SHARED, folder, file)
        cordex = os.path.join(WORK, "made", "cordex_rlat_rlon_only.nc")
        subprocess.run(["ncks", "-O", "-x", "-v", "lat,lon",
                        cls.paths["corpus/HSURF_regional_model_0.44deg.nc"], cordex], check=True)
        cls.paths["made/cordex_rlat_rlon_only.nc"] = cordex
        met_em = cls.paths["corpus/met_em.d01.2005-08-28_12.nc"]
        for name, moved in (("wrf_two_times.nc", False), ("wrf_moving_nest.nc", True)):
            path = os.path.join(WORK, "made", name)
            subprocess.run(["ncrcat", "-O", met_em, met_em, path], check=True)
            with netCDF4.Dataset(path, "a") as nc:
                nc["Times"][1] = netCDF4.stringtochar(np.array(["2005-08-28_18:00:00"], "S19"))[0]
                nc["TT"][1] = nc["TT"][1] + 1.0
                for v in ("XLAT_M", "XLAT_U", "XLAT_V", "CLAT") if moved else ():
                    nc[v][1] = nc[v][1] + 0.5
            cls.paths["made/" + name] = path
        cls.imported = {}  # name -> info --json
        cls.refusals = {}
        for name, path in cls.paths.items():
            own = ["--collection", collection_of(name)] if is_grib(name) else []
            p = run("import", path, "--dataset", dataset_id(name), *own)
            if p.returncode == 0:
                members = re.findall(r"^dataset '([^']*)'$", p.stdout, re.M)
                if members:
                    MADE[name] = members[0]
                cls.imported[name] = json.loads(run("info", dataset_id(name), "--json",
                                                    check=True).stdout)
            else:
                cls.refusals[name] = p.stderr.strip()

    def test_every_shared_file_is_in_the_table(self):
        for folder in ("data", "grib", "corpus"):
            for f in sorted(os.listdir(os.path.join(SHARED, folder))):
                if f in ("README.md", "SHA256SUMS"):
                    continue
                self.assertIn(f"{folder}/{f}", EXPECTED, "a new file: add it to EXPECTED")

    def test_the_users_table_says_the_same(self):
        """docs/files.md's table: every file of ../shared with the outcome and grid kind EXPECTED
        gives (the files the test makes are not in it)."""
        table = {}
        with open(os.path.join(SOURCE, "docs", "files.md"), encoding="utf-8") as f:
            for line in f:
                cells = [c.strip() for c in line.strip().strip("|").split("|")]
                if len(cells) == 3 and cells[0].startswith(("data/", "grib/", "corpus/")):
                    table[cells[0]] = (cells[1], cells[2])
        shared = {k: v for k, v in EXPECTED.items() if not k.startswith("made/")}
        self.assertEqual(set(table), set(shared))
        for name, expected in shared.items():
            outcome, grid = table[name]
            if expected.startswith("refused"):
                self.assertEqual(outcome, "refused", name)
            else:
                self.assertEqual(outcome, "imports", name)
                self.assertTrue(grid.startswith(expected), (name, grid, expected))

    def test_imports_or_refusals_as_expected(self):
        for name, expected in EXPECTED.items():
            with self.subTest(name):
                if expected.startswith("refused"):
                    self.assertIn(name, self.refusals, "imported, but expected refused")
                    error = self.refusals[name]
                    self.assertEqual(len(error.splitlines()), 1, error)
                    self.assertIn(os.path.basename(self.paths[name]), error)
                    self.assertIn(expected.split(": ", 1)[1], error)
                    continue
                self.assertIn(name, self.imported, self.refusals.get(name))
                grids = [v.get("grid", "") for v in self.imported[name]["variables"]]
                kinds = {g.split(" ")[0] for g in grids}
                if expected == "none":
                    self.assertEqual(kinds, {"none"}, grids)
                else:
                    self.assertIn(expected, kinds, grids)

    def gridded(self, name):
        info = self.imported[name]
        return [v for v in info["variables"] if not v.get("grid", "none").startswith("none")]

    def first_cell(self, name, var):
        """A cell's own centre: the nearest cell to the middle of the collection's box."""
        p = run("extract", dataset_id(name), "--variables", var["name"], "--point", "0,0",
                "--tolerance-km", "100000", "--format", "json")
        self.assertEqual(p.returncode, 0, p.stderr)
        return json.loads(p.stdout)["points"][0]

    def test_point_at_a_cell_centre_is_that_cell_and_its_value(self):
        for name in self.imported:
            for var in self.gridded(name)[:3]:
                with self.subTest(f"{name} {var['name']}"):
                    cell = self.first_cell(name, var)
                    lon, lat = cell["grid_lon"], cell["grid_lat"]
                    p = run("extract", dataset_id(name), "--variables", var["name"], "--point",
                            f"{lon!r},{lat!r}", "--format", "json")
                    self.assertEqual(p.returncode, 0, p.stderr)
                    doc = json.loads(p.stdout)
                    at = doc["points"][0]
                    self.assertEqual((at["x"], at["y"]), (cell["x"], cell["y"]))
                    self.assertLess(at["distance_km"], 1e-3)
                    got = doc["values"][var["name"]][0]
                    f = run("fetch", dataset_id(name), "--variables", var["name"], "--origin",
                            f"0,0,{at['x']},{at['y']}", "--shape", "1,1,1,1", "--unpack",
                            "--format", "json", check=True)
                    fetched = json.loads(f.stdout)["rows"][0][var["name"]]
                    self.assertTrue(same(got, fetched), (got, fetched))
                    if self.paths[name].endswith((".nc", ".cdf")):
                        self.assertTrue(same(got, self.netcdf_value(name, var, at)),
                                        (got, self.netcdf_value(name, var, at)))

    def netcdf_value(self, name, var, at):
        with netCDF4.Dataset(self.paths[name]) as nc:
            v = nc[var["name"]]
            index = {d: 0 for d in v.dimensions}
            index[var["dimensions"][2]] = at["x"]
            index[var["dimensions"][3]] = at["y"]
            value = v[tuple(index[d] for d in v.dimensions)]
            return None if np.ma.is_masked(value) else float(value)

    def test_wrf_times_select_by_iso(self):
        """WRF's `Times` is the time axis: --time 2005-08-28T18:00 is the second time."""
        ident = dataset_id("made/wrf_two_times.nc")
        rows = {}
        for when in ("2005-08-28T12:00", "2005-08-28T18:00"):
            p = run("extract", ident, "--variables", "TT", "--point", "-107.29,39.705",
                    "--time", when, "--level", "0", "--format", "csv", check=True)
            row = next(csv.DictReader(io.StringIO(p.stdout)))
            self.assertEqual(row["time"], when + ":00Z")
            rows[when] = float(row["TT"])
        self.assertAlmostEqual(rows["2005-08-28T18:00"] - rows["2005-08-28T12:00"], 1.0, 4)

    def test_grib_values_at_a_cell_centre_equal_eccodes(self):
        for name in self.imported:
            if self.paths[name].endswith((".nc", ".cdf")):
                continue
            messages = GribMessages(self.paths[name])
            try:
                for var in self.gridded(name):
                    with self.subTest(f"{name} {var['name']}"):
                        self.check_against_eccodes(name, var, messages)
            finally:
                messages.release()

    def check_against_eccodes(self, name, var, messages):
        a = var["attributes"]
        cell = self.first_cell(name, var)
        p = run("extract", dataset_id(name), "--variables", var["name"], "--point",
                f"{cell['grid_lon']!r},{cell['grid_lat']!r}", "--format", "csv")
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = list(csv.DictReader(io.StringIO(p.stdout)))
        self.assertEqual(len(rows), var["shape"][0] * var["shape"][1])
        for row in rows:
            wanted = {"name": a["GRIB_shortName"], "typeOfLevel": a["GRIB_typeOfLevel"],
                      "stepType": a.get("GRIB_stepType"),
                      "perturbationNumber": a.get("GRIB_perturbationNumber"),
                      "time": row["time"], "level": row["level"]}
            found = messages.find(wanted)
            self.assertEqual(len(found), 1, (wanted, len(found)))
            want = messages.value_at(found[0], float(row["cell_lat"]), float(row["cell_lon"]))
            got = None if row[var["name"]] == "" else float(row[var["name"]])
            self.assertTrue(same(got, want), (wanted, got, want))

    def test_bbox_and_all_variables_answer(self):
        for name in self.imported:
            vars_ = self.gridded(name)
            if not vars_:
                continue
            with self.subTest(name):
                cell = self.first_cell(name, vars_[0])
                lon, lat = cell["grid_lon"], cell["grid_lat"]
                bbox = f"{lon - 2},{max(lat - 2, -90)},{lon + 2},{min(lat + 2, 90)}"
                p = run("extract", dataset_id(name), "--variables", vars_[0]["name"], "--bbox",
                        bbox, "--format", "csv")
                self.assertIn(p.returncode, (0, 1), p.stderr)
                if p.returncode == 1:
                    self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
                names = ",".join(v["name"] for v in vars_)
                p = run("extract", dataset_id(name), "--variables", names, "--point",
                        f"{lon!r},{lat!r}", "--format", "csv")
                self.assertIn(p.returncode, (0, 1), p.stderr)
                if p.returncode == 1:
                    self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)

    def test_serve_every_endpoint_and_format_no_5xx_and_alive(self):
        proc = subprocess.Popen([GRIDSTORE, "--store", STORE, "serve", "--listen", "127.0.0.1:0"],
                                stderr=subprocess.PIPE, text=True)
        try:
            line = proc.stderr.readline()
            m = re.search(r"listening on (http://[^ ]+)", line)
            self.assertIsNotNone(m, line)
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            url = m.group(1)
            for path in ("/", "/conformance", "/api", "/collections", "/collections?limit=1000"):
                code, body = get(url + path)
                self.assertEqual(code, 200, (path, body[:300]))
            catalog = json.loads(get(url + "/collections?limit=1000")[1])
            listed = {c["id"] for c in catalog["collections"]}
            not_listed = {c["id"]: c["reason"] for c in
                          catalog.get("gridstore", {}).get("not_collections", [])}
            for name in self.imported:
                ident = collection_of(name) if is_grib(name) else dataset_id(name)
                gridded = self.gridded(name)
                with self.subTest(name):
                    c = "/collections/" + urllib.parse.quote(ident, safe="")
                    code, body = get(url + c)
                    self.assertLess(code, 500, body[:300])
                    if not gridded:
                        self.assertNotIn(ident, listed)
                        self.assertIn(ident, not_listed)  # named, with the reason
                        continue
                    self.assertIn(ident, listed)
                    self.assertEqual(code, 200, body[:300])
                    doc = json.loads(body)
                    for key in ("temporal", "vertical"):
                        if key in doc["extent"]:
                            interval = doc["extent"][key]["interval"]
                            self.assertIsInstance(interval, list)
                            self.assertEqual(len(interval[0]), 2)
                    cell = self.first_cell(name, gridded[0])
                    lon, lat = cell["grid_lon"], cell["grid_lat"]
                    pt = f"POINT({lon!r} {lat!r})"
                    box = (f"POLYGON(({lon - 1} {lat - 1},{lon + 1} {lat - 1},{lon + 1} "
                           f"{lat + 1},{lon - 1} {lat + 1},{lon - 1} {lat - 1}))")
                    line_ = f"LINESTRING({lon - 1} {lat},{lon + 1} {lat})"
                    queries = [
                        ("position", {"coords": pt}),
                        ("area", {"coords": box}),
                        ("cube", {"bbox": f"{lon - 1},{lat - 1},{lon + 1},{lat + 1}"}),
                        ("radius", {"coords": pt, "within": "50", "within-units": "km"}),
                        ("trajectory", {"coords": line_}),
                        ("corridor", {"coords": line_, "corridor-width": "20",
                                      "width-units": "km"}),
                    ]
                    for query, params in queries:
                        for fmt in ("CoverageJSON", "NetCDF", "CSV"):
                            q = urllib.parse.urlencode({**params, "f": fmt})
                            code, body = get(f"{url}{c}/{query}?{q}")
                            self.assertLess(code, 500, (query, fmt, body[:300]))
                            if query == "position":
                                self.assertEqual(code, 200, (fmt, body[:300]))
                    code, body = get(f"{url}{c}/map.png?width=256")
                    self.assertLess(code, 500, body[:300])
                    # The map resources (issue 32): the legend and the whole world's tile
                    # answer; the tile holding the cell, the tile set and a map around it too.
                    for path in ("/map/legend", "/map/tiles/WebMercatorQuad/0/0/0",
                                 "/map/tiles/WebMercatorQuad"):
                        code, body = get(f"{url}{c}{path}")
                        self.assertEqual(code, 200, (path, body[:300]))
                    z = 4
                    lon180 = (lon + 180) % 360 - 180
                    x = min(2**z - 1, int((lon180 + 180) / 360 * 2**z))
                    merc = math.log(math.tan(math.pi / 4 + math.radians(max(-85, min(85, lat))) / 2))
                    y = min(2**z - 1, max(0, int((1 - merc / math.pi) / 2 * 2**z)))
                    for path in (f"/map/tiles/WebMercatorQuad/{z}/{y}/{x}",
                                 f"/map?bbox={lon180 - 2},{lat - 2},{lon180 + 2},{lat + 2}"
                                 "&width=64&height=64"):
                        code, body = get(f"{url}{c}{path}")
                        self.assertLess(code, 500, (path, body[:300]))
                    self.assertIsNone(proc.poll(), "serve died")
        finally:
            alive = proc.poll() is None
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=60)
        self.assertTrue(alive, "serve died")

    def xarray_engine_opens_and_loads_every_dataset(self):
        # One interpreter for all datasets (importing xarray takes a second or two): it names
        # each dataset before opening it, so a crash still says which one, and an exception is
        # reported per dataset.
        script = ("import sys, traceback, xarray as xr\n"
                  "for dataset in sys.argv[2:]:\n"
                  "    print('START', dataset, flush=True)\n"
                  "    try:\n"
                  "        ds = xr.open_dataset(sys.argv[1], engine='gridstore', dataset=dataset)\n"
                  "        for v in ds.data_vars:\n"
                  "            a = ds[v]\n"
                  "            a.isel({d: 0 for d in a.dims[:-2]}).load()\n"
                  "        print('OK', dataset, flush=True)\n"
                  "    except Exception:\n"
                  "        print('FAILED', dataset, traceback.format_exc().replace('\\n', ' | '),\n"
                  "              flush=True)\n")
        env = dict(os.environ, PYTHONPATH=PYTHONPATH)
        ids = {dataset_id(name): name for name in self.imported}
        p = subprocess.run([sys.executable, "-c", script, STORE, *ids], capture_output=True,
                           text=True, env=env, timeout=900)
        started = [line.split(" ", 1)[1] for line in p.stdout.splitlines()
                   if line.startswith("START ")]
        self.assertEqual(p.returncode, 0,
                         f"died while loading {started[-1] if started else '(none)'}: "
                         f"{p.stderr[-2000:]}")
        outcome = {}
        for line in p.stdout.splitlines():
            word, _, rest = line.partition(" ")
            if word in ("OK", "FAILED"):
                dataset, _, why = rest.partition(" ")
                outcome[dataset] = why if word == "FAILED" else None
        for dataset, name in ids.items():
            with self.subTest(name):
                self.assertIn(dataset, outcome, p.stdout[-2000:])
                self.assertIsNone(outcome[dataset])


class GribMessages:
    """Every message of a GRIB file read by ecCodes, with the keys GridStore names variables by
    (importers/grib/internal/grib_file.cc: unknown parameters as var<N>[_t<table>] or
    param<d>.<c>.<n>, unknown level types as level<code>)."""

    def __init__(self, path):
        self.messages = []
        with open(path, "rb") as f:
            while (gid := eccodes.codes_grib_new_from_file(f)) is not None:
                self.messages.append((self.keys(gid), gid))

    @staticmethod
    def keys(gid):
        def get(key, default=None):
            try:
                return eccodes.codes_get(gid, key)
            except eccodes.CodesInternalError:
                return default
        edition = get("edition")
        name = get("shortName", "unknown")
        if name in ("unknown", ""):
            if edition == 1:
                table = get("table2Version", 2)
                name = f"var{get('indicatorOfParameter')}" + ("" if table == 2 else f"_t{table}")
            else:
                name = (f"param{get('discipline')}.{get('parameterCategory')}."
                        f"{get('parameterNumber')}")
        level_type = get("typeOfLevel", "unknown")
        if level_type in ("unknown", ""):
            code = get("indicatorOfTypeOfLevel" if edition == 1 else "typeOfFirstFixedSurface")
            level_type = f"level{code}"
        d, t = get("validityDate"), get("validityTime")
        return {"name": name, "typeOfLevel": level_type, "stepType": get("stepType"),
                "perturbationNumber": get("perturbationNumber"), "level": get("level", 0),
                "time": f"{d // 10000:04d}-{d // 100 % 100:02d}-{d % 100:02d}T"
                        f"{t // 100:02d}:{t % 100:02d}:00Z"}

    def find(self, wanted):
        def matches(k):
            return (k["name"] == wanted["name"] and k["typeOfLevel"] == wanted["typeOfLevel"]
                    and wanted["stepType"] in (None, k["stepType"])
                    and wanted["perturbationNumber"] in (None, k["perturbationNumber"])
                    and k["time"] == wanted["time"]
                    and (wanted["level"] == "" or float(wanted["level"]) == k["level"]))
        return [gid for k, gid in self.messages if matches(k)]

    @staticmethod
    def value_at(gid, lat, lon):
        """The message's value at the grid point at exactly (lat, lon); None where missing."""
        lats = eccodes.codes_get_double_array(gid, "latitudes")
        lons = eccodes.codes_get_double_array(gid, "longitudes")
        turns = np.abs((lons - lon + 180.0) % 360.0 - 180.0)
        i = int(np.argmin(np.abs(lats - lat) + turns))
        assert abs(lats[i] - lat) < 1e-6 and turns[i] < 1e-6, (lat, lon, lats[i], lons[i])
        value = eccodes.codes_get_double_array(gid, "values")[i]
        if eccodes.codes_get(gid, "bitmapPresent") and value == eccodes.codes_get(
                gid, "missingValue"):
            return None
        return float(value)

    def release(self):
        for _, gid in self.messages:
            eccodes.codes_release(gid)


# The build's Python package (ctest sets it where the package is built): the xarray engine is
# tested there; sanitizer builds, which build no Python package, run the rest.
PYTHONPATH = os.environ.get("GRIDSTORE_PYTHONPATH")
if PYTHONPATH:
    CorpusTest.test_xarray_engine_opens_and_loads_every_dataset = \
        CorpusTest.xarray_engine_opens_and_loads_every_dataset


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, float) and math.isnan(a):
        return isinstance(b, float) and math.isnan(b)
    return math.isclose(float(a), float(b), rel_tol=1e-6, abs_tol=1e-9)


if __name__ == "__main__":
    unittest.main()
