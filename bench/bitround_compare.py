#!/usr/bin/python3
# Copyright 2026 The GridStore Authors.
#
# The lossy-precision benchmark (bench/bitround_bench.sh runs it): for each float field and each
# setting (lossless; --keep-bits N; --keep-digits N), imports the field with `gridstore import`
# into a fresh store and fetches it back, and writes the same field with netCDF-C's own
# quantization (netCDF4-python's quantize_mode over nc_def_var_quantize) and deflate level 1 +
# shuffle in one-plane chunks, as `nccopy -d1 -s` would (Debian's nccopy 4.9.0 has no quantize
# option). Prints the compression ratio (raw bytes / stored bytes) and the maximum and mean
# absolute error over the valid values (not the fill value, not NaN) of both, one markdown row
# each, and whether both hold the same values bit for bit.
#
# Usage: bitround_compare.py GRIDSTORE WORK_DIR FILE:VARIABLE...
import os
import shutil
import subprocess
import sys

import netCDF4
import numpy as np

SETTINGS = [("lossless", None), ("bits", 4), ("bits", 7), ("bits", 10), ("bits", 16),
            ("bits", 23), ("digits", 2), ("digits", 3), ("digits", 4)]


def run(*args):
    result = subprocess.run(args, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{' '.join(args)} failed: {result.stderr}")
    return result.stdout


def read_original(path, var):
    with netCDF4.Dataset(path) as f:
        v = f[var]
        v.set_auto_maskandscale(False)
        data = np.asarray(v[:])
        fill = v.getncattr("_FillValue") if "_FillValue" in v.ncattrs() else \
            netCDF4.default_fillvals["f4" if data.dtype == np.float32 else "f8"]
        dims = [(d, len(f.dimensions[d])) for d in v.dimensions]
    return data, data.dtype.type(fill), dims


def errors(original, got, valid):
    diff = np.abs(original[valid].astype(np.float64) - got[valid].astype(np.float64))
    return float(diff.max()), float(diff.mean())


def gridstore_run(gs, store, path, var, mode, n, ident):
    args = [gs, "--store", store, "import", path, "--dataset", ident, "--variables", var]
    if mode != "lossless":
        args += [f"--keep-{mode}", f"{var}={n}"]
    out = run(*args)
    ratio = float(out.split("compression ratio ")[1].split(",")[0])
    npy = os.path.join(os.path.dirname(store), ident + ".npy")
    run(gs, "--store", store, "fetch", ident, "--variables", var, "-o", npy)
    got = np.load(npy).reshape(-1)
    os.remove(npy)
    return ratio, got


def netcdf_run(work, original, fill, dims, var, mode, n):
    path = os.path.join(work, f"netcdf_{mode}_{n}.nc")
    chunks = [1] * (len(dims) - 2) + [min(256, dims[-2][1]), min(256, dims[-1][1])]
    with netCDF4.Dataset(path, "w") as f:
        for name, size in dims:
            f.createDimension(name, size)
        extra = {}
        if mode != "lossless":
            extra = {"significant_digits": n,
                     "quantize_mode": "BitRound" if mode == "bits" else "GranularBitRound"}
        v = f.createVariable(var, original.dtype, [d for d, _ in dims], zlib=True, complevel=1,
                             shuffle=True, chunksizes=chunks, fill_value=fill, **extra)
        v.set_auto_maskandscale(False)
        v[:] = original
    size = os.path.getsize(path)
    with netCDF4.Dataset(path) as f:
        f[var].set_auto_maskandscale(False)
        got = np.asarray(f[var][:]).reshape(-1)
    os.remove(path)
    return original.nbytes / size, got


def main():
    gs, work, fields = sys.argv[1], sys.argv[2], sys.argv[3:]
    print("| field | setting | GridStore ratio | max abs err | mean abs err | netCDF-C ratio "
          "| max abs err | mean abs err | same values |")
    print("|---|---|--:|--:|--:|--:|--:|--:|:-:|")
    for field in fields:
        path, var = field.rsplit(":", 1)
        original, fill, dims = read_original(path, var)
        flat = original.reshape(-1)
        valid = np.isfinite(flat) & (flat != fill)
        store = os.path.join(work, "store")
        shutil.rmtree(store, ignore_errors=True)
        label = f"{os.path.basename(path)}:{var} ({'x'.join(str(s) for _, s in dims)}, " \
                f"{original.dtype}, {100 * (1 - valid.mean()):.0f}% fill)"
        for mode, n in SETTINGS:
            ident = mode if n is None else f"{mode}{n}"
            gs_ratio, gs_got = gridstore_run(gs, store, path, var, mode, n, ident)
            nc_ratio, nc_got = netcdf_run(work, original, fill, dims, var, mode, n)
            gmax, gmean = errors(flat, gs_got, valid)
            nmax, nmean = errors(flat, nc_got, valid)
            same = np.array_equal(gs_got.view(np.uint8), nc_got.view(np.uint8))
            setting = "lossless" if n is None else f"--keep-{mode} {n}"
            print(f"| {label} | {setting} | {gs_ratio:.2f} | {gmax:.3g} | {gmean:.3g} | "
                  f"{nc_ratio:.2f} | {nmax:.3g} | {nmean:.3g} | {'yes' if same else 'NO'} |",
                  flush=True)
            label = ""
        shutil.rmtree(store, ignore_errors=True)


if __name__ == "__main__":
    main()
