"""Store.extract against `gridstore extract --format nc` on the same store: the same Dataset
(variables, coordinates, attributes, values) for points, profiles, bilinear points on a rotated
grid, areas and trajectories; and its errors."""

import datetime

import numpy as np
import pytest
import xarray as xr

import gridstore
from conftest import DATA, run_cli

CASES = {
    "points-time-range": ("tos_O1_2001-2002.nc", ["--point", "-30,0", "--point", "10,-20",
                                                  "--time", "2001-01-16/2001-03-16"],
                          dict(points=[(-30, 0), (10, -20)],
                               time=slice("2001-01-16", "2001-03-16"))),
    "profile": ("nc4uvt.nc", ["--point", "120.5,30.2"], dict(points=(120.5, 30.2))),
    "rotated-bilinear": ("small_theta_colpex.nc",
                         ["--point", "-3.2,52.4", "--level", "3", "--method", "bilinear"],
                         dict(points=(-3.2, 52.4), level=3, method="bilinear")),
    "levels-list": ("nc4uvt.nc", ["--point", "0,0", "--level", "850,500"],
                    dict(points=[0, 0], level=[850, 500])),
    "polygon": ("tos_O1_2001-2002.nc", ["--polygon", "POLYGON((-40 -5,-20 -5,-30 10,-40 -5))",
                                        "--time", "2001-01-16"],
                dict(polygon="POLYGON((-40 -5,-20 -5,-30 10,-40 -5))",
                     time=datetime.datetime(2001, 1, 16))),
    "bbox-packed": ("SMALL_total_column_co2.nc", ["--bbox", "10,40,30,50", "--time",
                                                  "2006-01-02/2006-01-03"],
                    dict(bbox=(10, 40, 30, 50), time=slice("2006-01-02", "2006-01-03"))),
    "radius": ("era5_1995-07-14T12.nc", ["--radius", "-100,40,150"],
               dict(radius=(-100, 40, 150))),
    "trajectory": ("tos_O1_2001-2002.nc", ["--trajectory", "LINESTRING(-60 10, -20 40)",
                                           "--time", "2001-07-16"],
                   dict(trajectory="LINESTRING(-60 10, -20 40)", time="2001-07-16")),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_extract_equals_command(store, store_path, binary, tmp_path, case):
    name, args, kwargs = CASES[case]
    variables = [v["name"] for v in store.info(name)["variables"]][:2]
    if name == "era5_1995-07-14T12.nc":
        variables = ["t2m", "t2m_C"]
    out = tmp_path / "out.nc"
    run_cli(binary, store_path, "extract", name, "--variables", ",".join(variables), *args,
            "--format", "nc", "-o", str(out))
    expected = xr.open_dataset(out)
    got = store.extract(name, variables, **kwargs)
    if got.attrs.get("featureType"):
        xr.testing.assert_identical(got, expected)
    else:  # areas: the command's file also carries bounds and the store's own attributes
        assert got.attrs.items() <= expected.attrs.items()
        for var in variables:
            xr.testing.assert_identical(got[var], expected[var])
            assert got[var].dtype == expected[var].dtype


def test_extract_defaults_and_provenance(store):
    ds = store.extract("sub.nc", points=(5.3, 50.1), level=slice(None, None))
    assert set(ds.data_vars) == {"u", "v"} and ds.u.dims == ("station", "time", "level")
    assert ds.encoding["gridstore"]["distance_km"][0] < 30
    assert ds.grid_lon.values[0] != ds.lon.values[0]


def test_extract_errors(store):
    with pytest.raises(ValueError, match="feature"):
        store.extract("sub.nc", "u")
    with pytest.raises(IndexError):
        store.extract("sub.nc", "u", points=(150, -60))
    with pytest.raises(ValueError, match="time"):
        store.extract("sub.nc", "u", points=(5, 50), time="yesterday")
    with pytest.raises(ValueError, match="slice of values cannot have a step"):
        store.extract("sub.nc", "u", points=(5, 50), time=slice("2000", "2001", 2))
    with pytest.raises(ValueError, match="points"):
        store.extract("sub.nc", "u", points=[(1, 2, 3)])
    with pytest.raises(TypeError, match="unexpected arguments: point"):
        store.extract("sub.nc", "u", point=(5, 50))
    with pytest.raises(gridstore.InvalidArgumentError, match="'w'"):
        store.extract("sub.nc", "w", points=(5, 50))
    with pytest.raises(KeyError):
        store.extract("nope", "u", points=(5, 50))
    assert isinstance(store.extract("sub.nc", "u", points=np.array([5.0, 50.0])), xr.Dataset)


def test_every_variable_of_a_grib_run_on_mixed_level_axes(writable):
    """Issue 29, 3.6: without variables, a GRIB run whose variables lie on different level types
    (`2t` at 2 m, `q` on hybrid levels, fluxes at the surface) answers every variable, each with
    its own level dimension, with the values each gives alone."""
    corpus = DATA.parent / "corpus"
    writable.import_grib(corpus / "flxf2006040100.grib1", "gfs")
    names = {v["name"] for v in writable.info("gfs")["variables"]}
    ds = writable.extract("gfs", points=(10.3, 50.1))
    assert set(ds.data_vars) == names
    assert ds.encoding["gridstore"]["left_out"] == []
    assert ds["2t"].dims == ("station", "time", "heightAboveGround_2")
    assert float(ds["heightAboveGround_2"][0]) == 2.0
    assert "hybrid" in ds["q_hybrid"].dims
    for name in ("2t", "q_hybrid", "lhf_avg", "var145"):
        alone = writable.extract("gfs", name, points=(10.3, 50.1))
        np.testing.assert_array_equal(ds[name].values.ravel(), alone[name].values.ravel())
    # A level only one group has: the others are left out, each named with its reason.
    some = writable.extract("gfs", points=(10.3, 50.1), level=2)
    assert "2t" in some.data_vars and "q_hybrid" not in some.data_vars
    left_out = some.encoding["gridstore"]["left_out"]
    assert any("'q_hybrid'" in item and "no value" in item for item in left_out), left_out
