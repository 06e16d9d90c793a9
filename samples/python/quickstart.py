"""GridStore from Python, start to end: import a real NetCDF file, find it, read boxes as numpy,
extract a point series in lon/lat and dates, open it lazily in xarray, and write a dataset of
your own from numpy. Usage: python3 quickstart.py STORE_DIR DATA_DIR (../shared/data)."""

import pathlib
import sys

import numpy as np
import xarray as xr

import gridstore

store_dir, data_dir = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])

with gridstore.open(store_dir, read_only=False, create=True) as store:
    # 1. Import a file (24 months of sea surface temperature, 360_day calendar).
    if "ipsl/tos" in store.datasets():
        store.delete("ipsl/tos")
    summary = store.import_netcdf(data_dir / "tos_O1_2001-2002.nc", "ipsl/tos",
                                  attributes={"source": "IPSL", "model": "CM4"})
    print(f"imported {summary['planes']} planes in {summary['seconds']:.2f} s")

    # 2. Find datasets by their attributes.
    print("IPSL runs:", store.datasets(where="source = 'IPSL' and status = 'DONE'"))

    # 3. A box by index, as numpy over (t, z, x, y): no copy of the fetched buffer.
    box = store.fetch("ipsl/tos", "tos", origin=(0, 0, 80, 100), shape=(12, 1, 10, 20),
                      unpack=True)["tos"]
    print("box", box.shape, box.dtype, f"mean {np.nanmean(box):.2f} K")

    # 4. In the forecaster's terms: a point series by lon/lat and dates.
    series = store.extract("ipsl/tos", "tos", points=(-30, 0),
                           time=slice("2001-01-16", "2001-06-16"))
    for when, value in zip(series.time.values, series.tos.values[0]):
        print(f"  {when}  {value:.2f} K")

    # 5. Lazily through xarray: CF-decoded exactly as the netCDF4 engine does.
    ds = xr.open_dataset(store_dir, engine="gridstore", dataset="ipsl/tos")
    print(ds.tos.sel(lat=0, lon=330, method="nearest").resample(time="QS").mean().values)
    ds.close()

    # 6. Write a dataset from numpy (from GRIB via cfgrib, Zarr, a model...): step by step.
    temp = np.random.default_rng(0).normal(280, 5, (6, 90, 180)).astype("float32")
    if "demo/analysis" in store.datasets():
        store.delete("demo/analysis")
    with store.create_dataset(
            "demo/analysis",
            {"t2m": {"dims": ("time", "lat", "lon"), "shape": temp.shape, "dtype": "float32",
                     "attributes": {"units": "K", "standard_name": "air_temperature"}}},
            coordinates={"time": {"values": np.arange(6) * 6.0,
                                  "attributes": {"units": "hours since 2026-11-25 00:00"}},
                         "lat": np.linspace(-89, 89, 90), "lon": np.linspace(0, 358, 180)},
            attributes={"source": "demo"}) as writer:
        for step in range(6):
            writer.write("t2m", temp[step], t=step)  # one step as it arrives
    print(store.open_dataset("demo/analysis").t2m.sel(time="2026-11-25T12").mean().item())
