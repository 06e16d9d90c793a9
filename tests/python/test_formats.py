"""Store.fetch(format=...) and Store.extract(format=...): the bytes the command writes, from the
same writers (formats/output_format.h): identical for CoverageJSON, CSV, JSON and npy; the same
Dataset for NetCDF (made in memory here, by the command as well for extract)."""

import io
import json
import warnings

import numpy as np
import pytest
import xarray as xr

import gridstore
from conftest import run_cli

POINTS = ("tos_O1_2001-2002.nc", "tos", ["--point", "-30,0", "--point", "10,-20", "--time",
                                        "2001-01-16/2001-03-16"],
          dict(points=[(-30, 0), (10, -20)], time=slice("2001-01-16", "2001-03-16")))
AREA = ("SMALL_total_column_co2.nc", None, ["--bbox", "10,40,30,50", "--time",
                                            "2006-01-02/2006-01-03"],
        dict(bbox=(10, 40, 30, 50), time=slice("2006-01-02", "2006-01-03")))


def _variables(store, name, variable):
    if variable:
        return [variable]
    return [v["name"] for v in store.info(name)["variables"]][:1]


@pytest.mark.parametrize("case", [POINTS, AREA], ids=["points", "area"])
@pytest.mark.parametrize("fmt", ["covjson", "csv", "json"])
def test_extract_text_formats_equal_the_command(store, store_path, binary, tmp_path, case, fmt):
    name, variable, args, kwargs = case
    variables = _variables(store, name, variable)
    out = tmp_path / f"out.{fmt}"
    run_cli(binary, store_path, "extract", name, "--variables", ",".join(variables), *args,
            "--format", fmt, "-o", str(out))
    got = store.extract(name, variables, format=fmt, **kwargs)
    assert isinstance(got, bytes)
    assert got == out.read_bytes()


@pytest.mark.parametrize("case", [POINTS, AREA], ids=["points", "area"])
def test_extract_netcdf_equals_the_command(store, store_path, binary, tmp_path, case):
    name, variable, args, kwargs = case
    variables = _variables(store, name, variable)
    out = tmp_path / "cli.nc"
    run_cli(binary, store_path, "extract", name, "--variables", ",".join(variables), *args,
            "--format", "nc", "-o", str(out))
    mine = tmp_path / "python.nc"
    mine.write_bytes(store.extract(name, variables, format="nc", **kwargs))
    with xr.open_dataset(out) as expected, xr.open_dataset(mine) as got:
        xr.testing.assert_identical(got, expected)
        # The same Dataset as format=None gives.
        as_dataset = store.extract(name, variables, **kwargs)
        for var in variables:
            np.testing.assert_array_equal(got[var].values, as_dataset[var].values)


def test_fetch_formats_equal_the_command(store, store_path, binary, tmp_path):
    name, box = "tos_O1_2001-2002.nc", dict(origin=(0, 0, 10, 20), shape=(2, 1, 3, 4))
    arrays = store.fetch(name, "tos", **box)
    npy = store.fetch(name, "tos", format="npy", **box)
    np.testing.assert_array_equal(np.load(io.BytesIO(npy)), arrays["tos"])
    for fmt in ("npy", "csv", "json"):
        out = tmp_path / f"out.{fmt}"
        run_cli(binary, store_path, "fetch", name, "--variables", "tos", "--origin", "0,0,10,20",
                "--shape", "2,1,3,4", "--format", fmt, "-o", str(out))
        assert store.fetch(name, "tos", format=fmt, **box) == out.read_bytes(), fmt
    json.loads(store.fetch(name, "tos", format="json", **box))
    out = tmp_path / "cli.nc"
    run_cli(binary, store_path, "fetch", name, "--variables", "tos", "--origin", "0,0,10,20",
            "--shape", "2,1,3,4", "--unpack", "--format", "nc", "-o", str(out))
    mine = tmp_path / "python.nc"
    mine.write_bytes(store.fetch(name, "tos", unpack=True, format="nc", **box))
    with xr.open_dataset(out) as expected, xr.open_dataset(mine) as got:
        xr.testing.assert_identical(got, expected)


def test_formats_a_result_cannot_take_are_refused(store):
    with pytest.raises(gridstore.InvalidArgumentError, match="npy"):
        store.extract("sub.nc", "u", points=(5, 50), format="npy")
    with pytest.raises(gridstore.InvalidArgumentError, match="covjson"):
        store.fetch("sub.nc", "u", format="covjson")
    with pytest.raises(gridstore.InvalidArgumentError, match="one variable"):
        store.fetch("sub.nc", format="npy")
    with pytest.raises(ValueError, match="xlsx"):
        store.extract("sub.nc", "u", points=(5, 50), format="xlsx")


def test_netcdf_of_groups_on_other_axes_names_what_it_left_out(writable, data_dir):
    writable.import_grib(data_dir.parent / "corpus" / "flxf2006040100.grib1", "gfs")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nc = writable.extract("gfs", points=(10.3, 50.1), format="nc")
    assert nc[:4] == b"\x89HDF"
    assert any("other axes" in str(w.message) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # CSV holds every group: nothing left out, no warning
        text = writable.extract("gfs", points=(10.3, 50.1), format="csv").decode()
    assert text.startswith("time,level,lat,lon,cell_lat,cell_lon,distance_km,")
