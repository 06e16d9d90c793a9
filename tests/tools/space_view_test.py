#!/usr/bin/python3
# Copyright 2026 The GridStore Authors.
#
# A satellite's view (GRIB2 grid template 3.90, gridType space_view; issue 29, 2.5), as a
# Meteosat full disk writes it: 60x60 pixels seen from the geostationary orbit over (0, 0), the
# pixels off the Earth's disk missing. ecCodes (2.28) gives those pixels latitude 0, longitude
# 0, where the sub-satellite pixel also lies: they must get no place, or a point asked in the
# Gulf of Guinea lands on a pixel in space. Made with ecCodes from its GRIB2 sample; imported by
# the command; every answer compared with ecCodes' own points and values.
# Usage: space_view_test.py GRIDSTORE WORK_DIR
import csv
import io
import os
import shutil
import subprocess
import sys

import eccodes
import numpy as np

GRIDSTORE, WORK = sys.argv[1:3]
N = 60
MISSING = 9999.0


def make(path):
    """The view; returns ecCodes' latitudes, longitudes and values of its pixels."""
    with open("/usr/share/eccodes/samples/GRIB2.tmpl", "rb") as f:
        gid = eccodes.codes_grib_new_from_file(f)
    eccodes.codes_set(gid, "gridDefinitionTemplateNumber", 90)
    for key, value in [("Nx", N), ("Ny", N), ("latitudeOfSubSatellitePoint", 0),
                       ("longitudeOfSubSatellitePoint", 0), ("dx", 54), ("dy", 54),
                       ("Xp", 30000), ("Yp", 30000), ("Nr", 6610700),
                       ("orientationOfTheGrid", 0), ("shapeOfTheEarth", 6)]:
        eccodes.codes_set(gid, key, value)
    eccodes.codes_set_values(gid, np.ones(N * N))
    lats = eccodes.codes_get_double_array(gid, "latitudes")
    lons = eccodes.codes_get_double_array(gid, "longitudes")
    off = (lats == 0) & (lons == 0)
    off[N * N // 2 + N // 2] = False  # the sub-satellite pixel (row 30, column 30)
    values = np.where(off, MISSING, 250 + lats / 2 + np.cos(np.radians(lons)) * 10)
    eccodes.codes_set(gid, "bitmapPresent", 1)
    eccodes.codes_set(gid, "missingValue", MISSING)
    eccodes.codes_set_values(gid, values)
    with open(path, "wb") as f:
        eccodes.codes_write(gid, f)
    eccodes.codes_release(gid)
    return lats, lons, values, off


def gs(*args, check=True):
    p = subprocess.run([GRIDSTORE, "--store", os.path.join(WORK, "store"), *args],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode >= 0, f"died by signal {-p.returncode}: {p.stderr}"
    if check:
        assert p.returncode == 0, f"{args}: {p.stderr}"
    return p


def point(lon, lat):
    rows = list(csv.DictReader(io.StringIO(gs("extract", "sv", "--point", f"{lon},{lat}",
                                              "--format", "csv").stdout)))
    assert len(rows) == 1, rows
    return rows[0]


def main():
    shutil.rmtree(WORK, ignore_errors=True)
    os.makedirs(WORK)
    path = os.path.join(WORK, "space_view.grib2")
    lats, lons, values, off = make(path)
    assert off.sum() > 1000  # the corners of the square around the disk
    imported = gs("import", path, "--dataset", "sv")
    assert f"{off.sum()} of the satellite view's {N * N} points lie off the Earth's disk" in \
        imported.stderr, imported.stderr
    info = gs("info", "sv").stdout
    assert f"unstructured ({N * N} cells along values" in info, info
    # The sub-satellite point answers from its own pixel, not from one in space.
    at = point(0, 0)
    assert float(at["distance_km"]) == 0 and float(at["t"]) == values[N * N // 2 + N // 2], at
    # Every 7th pixel on the disk, asked at its own lon/lat: that pixel and ecCodes' value.
    checked = 0
    for i in np.where(~off)[0][::7]:
        lon = (lons[i] + 180) % 360 - 180
        at = point(repr(lon), repr(lats[i]))
        assert float(at["distance_km"]) < 1e-3, (i, at)
        assert abs(float(at["t"]) - values[i]) < 1e-3, (i, at, values[i])
        checked += 1
    # Off the disk's edge (lon 100): refused, never answered from a pixel in space.
    far = gs("extract", "sv", "--point", "100,20", check=False)
    assert far.returncode == 1 and "outside the grid" in far.stderr, far.stderr
    # A box around (0, 0): the on-disk pixels inside it, as ecCodes places them.
    rows = list(csv.DictReader(io.StringIO(gs("extract", "sv", "--bbox", "-6,-6,6,6",
                                              "--format", "csv").stdout)))
    got = sum(1 for r in rows if r["t"] != "")
    lon180 = (lons + 180) % 360 - 180
    want = int((~off & (np.abs(lon180) <= 6) & (np.abs(lats) <= 6)).sum())
    assert got == want, (got, want)
    print(f"space_view: {off.sum()} off-disk pixels unplaced; the sub-satellite pixel and "
          f"{checked} others answer their own values; a box holds the {want} on-disk pixels")


if __name__ == "__main__":
    main()
