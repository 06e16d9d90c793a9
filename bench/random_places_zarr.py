#!/usr/bin/env python3
# Copyright 2026 The GridStore Authors.
#
# The peer of bench/random_places_bench (issue 33, part 0): zarr-python reads the same places,
# each once, from a zarr v2 copy with the same chunks, after one pass over other places (as the
# C++ side does). Prints one JSON object like random_places_bench's.
#
# Usage: random_places_zarr.py ZARR_DIR VARIABLE PLACES_JSON [--repeat]
#        random_places_zarr.py prepare NETCDF VARIABLE ZARR_DIR CHUNK_X CHUNK_Y
#            (a zarr v2 copy, chunks (1, 1, CHUNK_X, CHUNK_Y), Blosc zstd level 3 + byte shuffle,
#            one (t, z) plane at a time)
import json
import os
import random
import sys
import time

import zarr


def read(arr, origin, shape):
    return arr[tuple(slice(o, o + s) for o, s in zip(origin, shape))]


def prepare(nc_path, var, path, cx, cy):
    import netCDF4
    import numcodecs

    with netCDF4.Dataset(nc_path) as nc:
        v = nc.variables[var]
        v.set_auto_maskandscale(False)
        fill = getattr(v, "_FillValue", None)
        arr = zarr.open(path + ".tmp", mode="w", shape=v.shape, dtype=v.dtype,
                        chunks=(1, 1, cx, cy), fill_value=fill,
                        compressor=numcodecs.Blosc(cname="zstd", clevel=3,
                                                   shuffle=numcodecs.Blosc.SHUFFLE))
        for t in range(v.shape[0]):
            for z in range(v.shape[1]):
                arr[t, z] = v[t, z]
    os.rename(path + ".tmp", path)


def main():
    if len(sys.argv) == 7 and sys.argv[1] == "prepare":
        prepare(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
        return
    if len(sys.argv) < 4:
        sys.exit("usage: random_places_zarr.py ZARR_DIR VARIABLE PLACES_JSON [--repeat]")
    path, var, places_path = sys.argv[1:4]
    repeat = "--repeat" in sys.argv[4:]
    # An array of its own (prepare's), or a variable of a consolidated group (xarray's to_zarr).
    if os.path.exists(os.path.join(path, ".zarray")):
        arr = zarr.open(path, mode="r")
    else:
        arr = zarr.open_consolidated(path)[var]
    with open(places_path) as f:
        places = json.load(f)
    rng = random.Random(7919)
    for shape_name, boxes in places.items():  # one pass elsewhere
        shape = boxes[0][1]
        for _ in range(3):
            origin = [rng.randrange(arr.shape[a] - shape[a] + 1) for a in range(4)]
            read(arr, origin, shape)
    report = {"mode": "repeat" if repeat else "random", "engine": "zarr-python",
              "zarr": zarr.__version__, "shapes": {}}
    for shape_name, boxes in places.items():
        ms = []
        for origin, shape in boxes:
            if repeat:
                read(arr, origin, shape)
                read(arr, origin, shape)
            start = time.perf_counter()
            read(arr, origin, shape)
            ms.append((time.perf_counter() - start) * 1e3)
        s = sorted(ms)
        report["shapes"][shape_name] = {"ms": ms, "median_ms": s[len(s) // 2],
                                        "mean_ms": sum(ms) / len(ms)}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
