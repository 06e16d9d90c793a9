#!/usr/bin/python3
# Copyright 2026 The GridStore Authors.
#
# The map interfaces read by a real client (issue 32): Debian's GDAL 3.6 OGCAPI driver, as
# `gdal_translate "OGCAPI:http://127.0.0.1:PORT/collections/ID"`, against `gridstore serve` over a
# store holding a real ERA5 file (era5_1995-07-14T12.nc: 0.25 degree, lon -125..-66, lat 24..50).
# - API=TILES: one WebMercatorQuad tile's extent at tile matrix 5; the GeoTIFF's georeferencing
#   must be that tile's Web Mercator corners, and every pixel's colour must map back (through the
#   legend's stops) to the value of the grid cell under it, within one colour step.
# - API=MAP: the grid's extent at its own resolution; the GeoTIFF's corners are the bbox and the
#   pixels' colours map back to the cells under them (at least 98% of them: GDAL reads the map
#   through its overviews and resamples, so a pixel may come from a neighbour).
# GDAL 3.6 takes the collection's CRS84 bbox as coordinates of the tile matrix set's CRS (it does
# not reproject it), so API=TILES is given the window in EPSG:3857 metres (-oo MINX...), as
# docs/serve.md says.
#
# Usage: gdal_tiles_test.py GRIDSTORE DATA_DIR WORK_DIR
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import unittest
import urllib.request

import netCDF4
import numpy as np

GRIDSTORE, DATA, WORK = sys.argv[1:4]
ERA5 = os.path.join(DATA, "era5_1995-07-14T12.nc")
HALF = 20037508.342789244
R = 6378137.0


def mercator(lon, lat):
    return (R * math.radians(lon), R * math.log(math.tan(math.pi / 4 + math.radians(lat) / 2)))


def lonlat(x, y):
    return (math.degrees(x / R), math.degrees(2 * math.atan(math.exp(y / R)) - math.pi / 2))


def tile_bounds(z, row, col):
    size = 2 * HALF / 2 ** z
    west, north = -HALF + col * size, HALF - row * size
    return west, north - size, west + size, north


def colour_table(stops, per_stop=16):
    """(value, rgb) pairs: the legend's stops with `per_stop` steps linearly between each two."""
    table = []
    for (v0, h0), (v1, h1) in zip(stops, stops[1:]):
        c0 = np.array([int(h0[k:k + 2], 16) for k in (1, 3, 5)], dtype=float)
        c1 = np.array([int(h1[k:k + 2], 16) for k in (1, 3, 5)], dtype=float)
        for f in np.arange(per_stop) / per_stop:
            table.append((v0 + f * (v1 - v0), c0 + f * (c1 - c0)))
    v, h = stops[-1]
    table.append((v, np.array([int(h[k:k + 2], 16) for k in (1, 3, 5)], dtype=float)))
    return np.array([t[0] for t in table]), np.array([t[1] for t in table])


def value_of(table, rgba):
    """The value whose colour is nearest the pixel's; None if transparent."""
    if rgba[3] == 0:
        return None
    values, colours = table
    d = ((colours - np.array(rgba[:3], dtype=float)) ** 2).sum(axis=1)
    return values[int(np.argmin(d))]


class GdalClientTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        shutil.rmtree(WORK, ignore_errors=True)
        os.makedirs(WORK)
        cls.store = os.path.join(WORK, "store")
        subprocess.run([GRIDSTORE, "--store", cls.store, "import", ERA5, "--dataset", "era5/us"],
                       check=True, capture_output=True)
        cls.server = subprocess.Popen(
            [GRIDSTORE, "--store", cls.store, "serve", "--listen", "127.0.0.1:0"],
            stderr=subprocess.PIPE, text=True)
        cls.url = re.search(r"(http://\S+)", cls.server.stderr.readline()).group(1)
        cls.collection = cls.url + "/collections/era5%2Fus"
        with netCDF4.Dataset(ERA5) as nc:
            cls.lats = np.array(nc["latitude"][:], dtype=float)
            cls.lons = np.array(nc["longitude"][:], dtype=float)
        with urllib.request.urlopen(cls.collection + "/map/legend") as r:
            cls.legend = json.load(r)
        with netCDF4.Dataset(ERA5) as nc:
            cls.values = np.array(nc[cls.legend["parameter"]][:], dtype=float)
        cls.table = colour_table(cls.legend["stops"])
        lo, hi = cls.legend["range"]
        cls.step = (hi - lo) / (len(cls.legend["stops"]) - 1)

    @classmethod
    def tearDownClass(cls):
        cls.server.send_signal(signal.SIGTERM)
        cls.server.wait(timeout=30)

    def cell_value(self, lon, lat):
        """The value of the grid cell whose centre is nearest (the grid is regular)."""
        i = int(round((self.lats[0] - lat) / 0.25))
        j = int(round((lon - self.lons[0]) / 0.25))
        if not (0 <= i < len(self.lats) and 0 <= j < len(self.lons)):
            return None
        return self.values[i, j]

    def translate(self, name, *options):
        out = os.path.join(WORK, name)
        subprocess.run(["gdal_translate", "-q", "-oo", "CACHE=NO", *options,
                        "OGCAPI:" + self.collection, out], check=True, timeout=120,
                       capture_output=True)
        info = json.loads(subprocess.run(["gdalinfo", "-json", out], check=True,
                                         capture_output=True, text=True).stdout)
        # The pixels as raw bytes (ENVI: band after band), read without GDAL's Python binding.
        raw = out + ".raw"
        subprocess.run(["gdal_translate", "-q", "-of", "ENVI", "-co", "INTERLEAVE=BSQ", out, raw],
                       check=True, capture_output=True)
        w, h = info["size"]
        rgba = np.fromfile(raw, dtype=np.uint8).reshape(4, h, w).transpose(1, 2, 0)
        return info, rgba

    def test_legend_is_the_default_parameters(self):
        self.assertEqual(self.legend["parameter"], "u10")
        self.assertEqual(self.legend["colormap"], "wind")
        self.assertEqual(len(self.legend["stops"]), 32)
        self.assertTrue(5 <= len(self.legend["ticks"]) <= 8)

    def test_tiles_api_reads_a_tile_with_its_corners_and_values(self):
        z, row, col = 5, 11, 8  # lon -90 .. -78.75, lat 40.98 .. 48.92: inside the data
        west, south, east, north = tile_bounds(z, row, col)
        info, rgba = self.translate(
            "tile.tif", "-oo", "API=TILES", "-oo", "TILEMATRIX=%d" % z,
            "-oo", "MINX=%.6f" % west, "-oo", "MINY=%.6f" % south,
            "-oo", "MAXX=%.6f" % east, "-oo", "MAXY=%.6f" % north)
        self.assertEqual(info["size"], [256, 256])
        self.assertIn("Pseudo-Mercator", info["coordinateSystem"]["wkt"])
        gt = info["geoTransform"]
        size = (east - west) / 256
        for got, want in zip(gt, [west, size, 0, north, 0, -size]):
            self.assertAlmostEqual(got, want, delta=1e-3)
        corners = info["cornerCoordinates"]
        self.assertAlmostEqual(corners["upperLeft"][0], west, delta=1e-3)
        self.assertAlmostEqual(corners["lowerRight"][1], south, delta=1e-3)
        checked = 0
        for j in range(0, 256, 5):
            for i in range(0, 256, 5):
                lon, lat = lonlat(west + (i + 0.5) * size, north - (j + 0.5) * size)
                want = self.cell_value(lon, lat)
                got = value_of(self.table, rgba[j, i])
                self.assertIsNotNone(got, (i, j))
                self.assertLessEqual(abs(got - want), self.step, (i, j, lon, lat))
                checked += 1
        self.assertGreater(checked, 2500)

    def test_map_api_reads_the_bbox_with_its_corners_and_values(self):
        # The grid's cells as pixels: the bbox of the cell edges (MINX... replace the collection's
        # bbox of the cell centres, whose pixel centres would fall on cell edges).
        bbox = [-125.125, 23.875, -65.875, 50.125]
        width, height = 237, 105
        info, rgba = self.translate(
            "map.tif", "-oo", "API=MAP", "-oo", "MINX=%g" % bbox[0], "-oo", "MINY=%g" % bbox[1],
            "-oo", "MAXX=%g" % bbox[2], "-oo", "MAXY=%g" % bbox[3], "-outsize", str(width),
            str(height))
        self.assertEqual(info["size"], [width, height])
        gt = info["geoTransform"]
        for got, want in zip(gt, [bbox[0], 0.25, 0, bbox[3], 0, -0.25]):
            self.assertAlmostEqual(got, want, delta=1e-9)
        self.assertIn("4326", json.dumps(info["coordinateSystem"]))
        good = total = 0
        for j in range(height):
            for i in range(width):
                lon, lat = bbox[0] + (i + 0.5) * 0.25, bbox[3] - (j + 0.5) * 0.25
                want = self.cell_value(lon, lat)
                got = value_of(self.table, rgba[j, i])
                if got is None or want is None:
                    continue
                total += 1
                good += abs(got - want) <= self.step
        self.assertGreater(total, width * height * 0.9)
        self.assertGreaterEqual(good / total, 0.98, (good, total))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1], verbosity=2)
