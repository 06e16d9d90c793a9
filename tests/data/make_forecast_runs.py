#!/usr/bin/python3
# Copyright 2026 The GridStore Authors.
"""Writes an ensemble forecast collection for tests and benchmarks, made from real ERA5 fields.

    make_forecast_runs.py --runs 8 --members 10 --steps 20 --out DIR [--source FILE]
    make_forecast_runs.py --runs 4 --members 1 --steps 20 --centre kwbc --out DIR

One GRIB file per run, DIR/ens_YYYYMMDDTHH.grib, holding every member and step of it: runs 12 h
apart from 2017-01-01T00 (dataDate/dataTime), steps 6 h apart from 0, members numbered from 0
(dataType cf for member 0, the control forecast, and pf for the others; number = the member), the
variables t and z at 500 and 850 hPa on ERA5's 120x61 grid. Values are the real member field of
era5-levels-members.grib at its first time (member m takes source member m % 10) plus a small
deterministic perturbation that depends on the run, the step and the member beyond 10 (at most
about 1.5 K for t and 150 m2 s-2 for z at 20 steps), so that values differ across runs and steps but
stay realistic. The fields keep the source's GRIB1 packing; decode them with ecCodes to compare.

Needs Debian's python3-eccodes (and numpy, which it brings). 8 x 10 x 20 writes 6400 fields
(94 MB) in a few seconds.
"""
import argparse
import datetime
import math
import os
import sys

import eccodes
import numpy as np

# The source's fields used, in the order each step writes them (as in the source file).
FIELDS = (("z", 500), ("t", 500), ("z", 850), ("t", 850))
# Perturbation amplitude at step 0 and its growth per step, by variable.
AMPLITUDE = {"t": (0.5, 0.05), "z": (50.0, 5.0)}
SOURCE_MEMBERS = 10


def default_source():
    """era5-levels-members.grib in ../shared/grib ($GRIDSTORE_TEST_GRIB, or beside
    $GRIDSTORE_TEST_DATA, or beside the repository)."""
    if os.environ.get("GRIDSTORE_TEST_GRIB"):
        folder = os.environ["GRIDSTORE_TEST_GRIB"]
    elif os.environ.get("GRIDSTORE_TEST_DATA"):
        folder = os.path.join(os.environ["GRIDSTORE_TEST_DATA"], "..", "grib")
    else:
        repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        folder = os.path.join(repo, "..", "shared", "grib")
    return os.path.normpath(os.path.join(folder, "era5-levels-members.grib"))


def read_source(path):
    """{(shortName, level, member): handle} of the source's first time."""
    fields = {}
    first = None
    with open(path, "rb") as f:
        while True:
            h = eccodes.codes_grib_new_from_file(f)
            if h is None:
                break
            when = (eccodes.codes_get(h, "dataDate"), eccodes.codes_get(h, "dataTime"))
            first = first or when
            key = (eccodes.codes_get(h, "shortName"), eccodes.codes_get(h, "level"),
                   eccodes.codes_get(h, "number"))
            if when == first and key[:2] in FIELDS:
                fields[key] = h
            else:
                eccodes.codes_release(h)
    missing = [(n, l, m) for n, l in FIELDS for m in range(SOURCE_MEMBERS)
               if (n, l, m) not in fields]
    if missing:
        sys.exit(f"{path}: no field {missing[0]} at its first time")
    return fields


def perturbation(name, size, run, step, member):
    """A smooth wave over the grid whose phase and amplitude depend on run, step and member."""
    base, growth = AMPLITUDE[name]
    waves = 1 + (run + step) % 4
    phase = 0.7 * run + 0.3 * step + 0.11 * (member // SOURCE_MEMBERS)
    i = np.arange(size, dtype=np.float64)
    return (base + growth * step) * np.sin(2 * math.pi * waves * i / size + phase)


def write_run(out, fields, run, start, members, steps, centre=None):
    """With `centre` (e.g. kwbc): a deterministic forecast (dataType fc, no member) of that
    centre, made from source member 0, offset by 0.5 K / 20 m2 s-2 as another model would be."""
    when = start + datetime.timedelta(hours=12 * run)
    path = os.path.join(out, f"{'ens' if centre is None else 'det'}_{when:%Y%m%dT%H}.grib")
    with open(path, "wb") as f:
        for step in range(steps):
            for name, level in FIELDS:
                for member in range(members):
                    source = fields[(name, level, member % SOURCE_MEMBERS)]
                    h = eccodes.codes_clone(source)
                    if centre is None:
                        eccodes.codes_set(h, "dataType", "cf" if member == 0 else "pf")
                        eccodes.codes_set(h, "number", member)
                    else:
                        # (ECMWF's local section holds dataType: set it before the centre.)
                        eccodes.codes_set(h, "dataType", "fc")
                        eccodes.codes_set(h, "centre", centre)
                    eccodes.codes_set(h, "dataDate", int(f"{when:%Y%m%d}"))
                    eccodes.codes_set(h, "dataTime", int(f"{when:%H}") * 100)
                    eccodes.codes_set(h, "step", 6 * step)
                    values = eccodes.codes_get_values(source)
                    values = values + perturbation(name, values.size, run, step, member)
                    if centre is not None:
                        values = values + (0.5 if name == "t" else 20.0)
                    eccodes.codes_set_values(h, values)
                    eccodes.codes_write(h, f)
                    eccodes.codes_release(h)
    return path


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--members", type=int, default=10)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--out", required=True, help="folder to write the runs' files into")
    parser.add_argument("--centre", default=None,
                        help="a deterministic forecast of this centre (e.g. kwbc) instead of an "
                             "ensemble: dataType fc, no member numbers (--members must be 1)")
    parser.add_argument("--source", default=default_source(),
                        help="era5-levels-members.grib (default: ../shared/grib's)")
    args = parser.parse_args()
    if min(args.runs, args.members, args.steps) < 1:
        sys.exit("--runs, --members and --steps must be at least 1")
    if args.members > 1000:
        sys.exit("--members: at most 1000")
    if args.centre is not None and args.members != 1:
        sys.exit("--centre makes a deterministic forecast: give --members 1")
    os.makedirs(args.out, exist_ok=True)
    fields = read_source(args.source)
    start = datetime.datetime(2017, 1, 1, 0)
    for run in range(args.runs):
        write_run(args.out, fields, run, start, args.members, args.steps, args.centre)
    for h in fields.values():
        eccodes.codes_release(h)
    print(f"wrote {args.runs} run(s) x {args.members} member(s) x {args.steps} step(s) x "
          f"{len(FIELDS)} fields to {args.out}")


if __name__ == "__main__":
    main()
