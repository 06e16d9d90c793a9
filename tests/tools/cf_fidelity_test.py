#!/usr/bin/python3
# Copyright 2026 The GridStore Authors.
#
# CF fidelity of `fetch -o out.nc`, judged by xarray as its users do: for boxes of the real files,
# xr.open_dataset(out.nc) must equal xr.open_dataset(orig).isel(box) in data, coordinates, bounds
# and grid mapping (values and the attributes that link them).
# Usage: cf_fidelity_test.py GRIDSTORE DATA_DIR WORK_DIR
import os
import subprocess
import sys

import numpy as np
import xarray as xr

# file, variable, box over GridStore's (t, z, x, y) as (start, count): a 3-D (time, lat, lon)
# variable has t, x, y; a 2-D one x and y (DESIGN.md's mapping).
CASES = [
    ("tos_O1_2001-2002.nc", "tos", [(3, 4), (0, 1), (20, 30), (100, 50)]),
    ("small_theta_colpex.nc", "air_potential_temperature", [(1, 2), (2, 5), (10, 20), (30, 25)]),
    ("SMALL_total_column_co2.nc", "tcco2", [(0, 3), (0, 1), (40, 60), (300, 20)]),
    ("sub.nc", "u", [(2, 5), (0, 2), (1, 7), (3, 6)]),
    ("era5_1995-07-14T12.nc", "t2m", [(0, 1), (0, 1), (10, 50), (20, 100)]),
]


def run(*args):
    p = subprocess.run(list(args), capture_output=True, text=True)
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {p.stderr}")


def linked(ds, var):
    """The variables CF links to `var`: its coordinates, their bounds, its grid mapping."""
    names = set(ds[var].coords)
    for name in list(names) + [var]:
        for attr in ("bounds", "climatology"):
            b = ds[name].attrs.get(attr) or ds[name].encoding.get(attr)
            if b and b in ds.variables:
                names.add(b)
    mapping = ds[var].attrs.get("grid_mapping") or ds[var].encoding.get("grid_mapping")
    if mapping:
        names.add(mapping.split(":")[0].split()[0])
    return names


def main():
    gridstore, data, work = sys.argv[1:4]
    store = os.path.join(work, "store")
    failures = []
    for file, var, box in CASES:
        path = os.path.join(data, file)
        out = os.path.join(work, file + ".out.nc")
        run(gridstore, "import", path, "--dataset", file, "--variables", var, "--store", store)
        orig = xr.open_dataset(path)
        dims = orig[var].dims
        origin = [s for s, _ in box]
        shape = [n for _, n in box]
        # The variable's own dimensions are its last len(dims) axes, but for a 3-D variable
        # without a vertical one: (t, x, y).
        axes = {4: [0, 1, 2, 3], 3: [0, 2, 3], 2: [2, 3]}[len(dims)]
        run(gridstore, "fetch", file, "--variables", var, "--origin", ",".join(map(str, origin)),
            "--shape", ",".join(map(str, shape)), "-o", out, "--store", store)
        expected = orig.isel({d: slice(box[a][0], box[a][0] + box[a][1]) for d, a in zip(dims, axes)})
        got = xr.open_dataset(out)
        for name in sorted(linked(expected, var) | {var}):
            if name not in got.variables:
                failures.append(f"{file}: {name} is missing from the output")
                continue
            try:
                xr.testing.assert_equal(got[name], expected[name])
            except AssertionError as e:
                failures.append(f"{file}: {name} differs: {str(e)[:400]}")
        for attr in ("grid_mapping",):
            want = expected[var].attrs.get(attr) or expected[var].encoding.get(attr)
            have = got[var].attrs.get(attr) or got[var].encoding.get(attr)
            if want != have:
                failures.append(f"{file}: {var}'s {attr} is {have!r}, expected {want!r}")
        for name in expected[var].coords:
            want = expected[name].attrs.get("bounds") or expected[name].encoding.get("bounds")
            have = got[name].attrs.get("bounds") or got[name].encoding.get("bounds")
            if want != have:
                failures.append(f"{file}: {name}'s bounds is {have!r}, expected {want!r}")
        mapping = expected[var].attrs.get("grid_mapping") or expected[var].encoding.get("grid_mapping")
        if mapping and mapping in got.variables and got[mapping].attrs != expected[mapping].attrs:
            failures.append(f"{file}: grid mapping attributes differ: {got[mapping].attrs} vs "
                            f"{expected[mapping].attrs}")
        print(f"{file}: {var} and {len(linked(expected, var))} linked variables compared")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
