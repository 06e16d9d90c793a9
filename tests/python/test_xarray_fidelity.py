"""Every real file, imported and opened through engine="gridstore", is identical to the file
opened by the netCDF4 engine: decoded and not decoded, and in random boxes.

No differences need listing: the importer keeps every variable these files have (bounds as
coordinates, the root group only: nc4uvt.nc's groups are not imported, and xarray does not open
them either), and the attributes GridStore adds itself (status, create_time) and the test's own
(file, size) are not in the Dataset's attrs but in ds.encoding["gridstore"] / are removed here.
"""

import numpy as np
import pytest
import xarray as xr

from conftest import DATA, FILES

# Attributes the test added at import (conftest.store_path): the file's own attrs are compared.
ADDED = ("file", "size")


def open_both(store_path, name, **kwargs):
    expected = xr.open_dataset(DATA / name, engine="netcdf4", **kwargs)
    got = xr.open_dataset(store_path, engine="gridstore", dataset=name, **kwargs)
    got.attrs = {k: v for k, v in got.attrs.items() if k not in ADDED}
    return expected, got


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize("decode", [True, False], ids=["decoded", "raw"])
def test_identical_to_netcdf4_engine(store_path, name, decode):
    expected, got = open_both(store_path, name, decode_cf=decode)
    xr.testing.assert_identical(expected, got)
    for var in got.data_vars:
        assert got[var].dtype == expected[var].dtype, var
    assert got.encoding["gridstore"]["status"] == "DONE"


@pytest.mark.parametrize("name", FILES)
def test_random_boxes_equal(store_path, name):
    expected, got = open_both(store_path, name, mask_and_scale=True)
    rng = np.random.default_rng(abs(hash(name)) % (1 << 32))
    for var in expected.data_vars:
        dims = expected[var].dims
        for _ in range(5):
            box = {}
            for d in dims:
                n = expected.sizes[d]
                a = int(rng.integers(0, n))
                b = int(rng.integers(a + 1, n + 1))
                box[d] = int(a) if rng.random() < 0.25 else slice(a, b, int(rng.integers(1, 3)))
            np.testing.assert_array_equal(got[var].isel(box).values,
                                          expected[var].isel(box).values, err_msg=f"{var} {box}")
        # Outer indexing by integer arrays, unsorted and repeated.
        picks = {d: rng.integers(0, expected.sizes[d], size=3) for d in dims}
        np.testing.assert_array_equal(got[var].isel(picks).values,
                                      expected[var].isel(picks).values)
        # Negative positions, a reversed slice, an empty slice. (Not steps below -1: xarray
        # 2023.01 turns slice(None, None, -3) over 9 values into positions 1, 4, 7 reversed
        # instead of 8, 5, 2 before any backend sees it: every lazy engine, the netCDF4 one too,
        # returns those wrong values.)
        if not dims or expected[var].dtype.kind not in "iuf":  # scalars; dates (xarray cannot
            continue                                           # decode an empty selection)
        for box in ({d: -1 for d in dims}, {dims[-1]: slice(None, None, -1)},
                    {dims[0]: slice(3, 3)}, {dims[-1]: [-1, 0, -2]}):
            np.testing.assert_array_equal(got[var].isel(box).values,
                                          expected[var].isel(box).values, err_msg=f"{var} {box}")


def test_lazy_until_indexed(store_path):
    ds = xr.open_dataset(store_path, engine="gridstore", dataset="tos_O1_2001-2002.nc")
    assert not ds.tos.variable._in_memory
    # One block: the import default, 64x128 (the 170x180 plane is cut into 3x2 blocks).
    assert ds.tos.encoding["preferred_chunks"] == {"time": 1, "lat": 64, "lon": 128}


def test_sel_nearest_isel_resample(store_path):
    expected, got = open_both(store_path, "tos_O1_2001-2002.nc")
    point = dict(lat=10.3, lon=-29.7 % 360, method="nearest")
    xr.testing.assert_identical(got.tos.sel(**point), expected.tos.sel(**point))
    xr.testing.assert_identical(got.tos.isel(time=[0, 5], lat=slice(10, 20)),
                                expected.tos.isel(time=[0, 5], lat=slice(10, 20)))
    # 360_day calendar: cftime dates; resample quarterly means.
    q_got = got.tos.isel(lat=slice(80, 90), lon=slice(0, 10)).resample(time="QS").mean()
    q_exp = expected.tos.isel(lat=slice(80, 90), lon=slice(0, 10)).resample(time="QS").mean()
    xr.testing.assert_identical(q_got, q_exp)


def test_standard_calendar_resample(store_path):
    expected, got = open_both(store_path, "SMALL_total_column_co2.nc")
    xr.testing.assert_identical(got.tcco2.resample(time="7D").max(),
                                expected.tcco2.resample(time="7D").max())


def test_to_netcdf_round_trip(store_path, tmp_path):
    for name in ("SMALL_total_column_co2.nc", "small_theta_colpex.nc"):
        _, got = open_both(store_path, name)
        out = tmp_path / ("copy-" + name)
        got.to_netcdf(out)
        xr.testing.assert_identical(xr.open_dataset(out), got.load())


def test_dask_chunks_follow_blocks(tmp_path, data_dir):
    import gridstore

    path = tmp_path / "blocks"
    with gridstore.open(path, read_only=False, create=True) as s:
        s.import_netcdf(data_dir / "SMALL_total_column_co2.nc", "co2", block=(64, 128))
    expected = xr.open_dataset(data_dir / "SMALL_total_column_co2.nc")
    got = xr.open_dataset(path, engine="gridstore", dataset="co2", chunks={})
    assert got.tcco2.chunks == ((1,) * 31, (64, 64, 33), (128, 128, 64))
    xr.testing.assert_identical(got.tcco2.compute(), expected.tcco2)
    # float32 sums in another order (per chunk): equal to rounding.
    xr.testing.assert_allclose(got.tcco2.mean("time").compute(), expected.tcco2.mean("time"),
                               rtol=1e-6)


def test_open_dataset_helpers(store_path, store):
    import gridstore

    ds = gridstore.open_dataset(store_path, "sub.nc")
    xr.testing.assert_identical(ds, store.open_dataset("sub.nc"))
    all_ds = gridstore.open_datasets(store, where="file prefix 'small'")
    assert list(all_ds) == ["small_theta_colpex.nc"]
    assert xr.backends.list_engines()["gridstore"].guess_can_open(store_path)
    assert not xr.backends.list_engines()["gridstore"].guess_can_open(str(DATA / "sub.nc"))
