"""gridstore.Store: fetch against netCDF-C (netCDF4-python) and the command, queries, every
error type, threads, and writing from numpy."""

import concurrent.futures
import os
import pathlib
import subprocess
import sys
import threading
import time

import netCDF4
import numpy as np
import pytest

import gridstore
from conftest import DATA, FILES, run_cli


def raw(name, var):
    with netCDF4.Dataset(DATA / name) as nc:
        v = nc.variables[var]
        v.set_auto_maskandscale(False)
        return v[...]


def test_fetch_whole_variables_equal_netcdf_c(store):
    for name in FILES:
        info = store.info(name)
        got = store.fetch(name)
        assert sorted(got) == sorted(v["name"] for v in info["variables"])
        for var in info["variables"]:
            expected = np.asarray(raw(name, var["name"]))
            array = got[var["name"]]
            assert array.shape == tuple(var["shape"]) and array.dtype == expected.dtype
            np.testing.assert_array_equal(array.reshape(expected.shape), expected)


def test_fetch_box_owns_its_buffer(store):
    got = store.fetch("sub.nc", ["u"], origin=(2, 1, 3, 4), shape=(5, 1, 4, 3))["u"]
    np.testing.assert_array_equal(got[:, 0], raw("sub.nc", "u")[2:7, 1, 3:7, 4:7])
    assert got.flags.owndata is False and got.base is not None  # the library's buffer, no copy
    origin_only = store.fetch("sub.nc", "u", origin=(9, 1, 8, 8))["u"]
    assert origin_only.shape == (1, 1, 1, 1)


def test_fetch_unpack(store):
    got = store.fetch("SMALL_total_column_co2.nc", "tcco2", unpack=True)["tcco2"]
    with netCDF4.Dataset(DATA / "SMALL_total_column_co2.nc") as nc:
        expected = nc.variables["tcco2"][...]  # masked and scaled by netCDF4-python
    assert got.dtype == expected.dtype
    np.testing.assert_allclose(got[:, 0], expected.filled(np.nan), rtol=0, atol=0)


def test_fetch_equals_command(store, store_path, binary, tmp_path):
    out = tmp_path / "box.npy"
    run_cli(binary, store_path, "fetch", "nc4uvt.nc", "--variables", "T", "--origin", "0,2,10,20",
            "--shape", "1,5,8,8", "-o", str(out))
    np.testing.assert_array_equal(np.load(out).reshape(1, 5, 8, 8),
                                  store.fetch("nc4uvt.nc", "T", (0, 2, 10, 20), (1, 5, 8, 8))["T"])


def test_datasets_where_sort_limit(store):
    assert store.datasets() == sorted(FILES)
    assert store.datasets(where="file prefix 's'") == ["small_theta_colpex.nc", "sub.nc"]
    by_size = store.datasets(sort="size:desc")
    sizes = [(DATA / f).stat().st_size for f in by_size]
    assert sizes == sorted(sizes, reverse=True)
    assert store.datasets(sort=["size:desc"], limit=2, offset=1) == by_size[1:3]
    assert store.datasets(where="status = 'DONE' and size > 3000000") == \
        ["SMALL_total_column_co2.nc"]


def test_info(store):
    info = store.info("era5_1995-07-14T12.nc")
    assert info["status"] == "DONE" and info["attributes"]["file"] == "era5_1995-07-14T12.nc"
    t2m = next(v for v in info["variables"] if v["name"] == "t2m")
    assert t2m["dtype"] == "int16" and t2m["dimensions"] == ("", "", "latitude", "longitude")
    assert t2m["packing"]["dtype"] == "float64" and t2m["attributes"]["units"] == "K"
    lat = next(c for c in info["coordinates"] if c["name"] == "latitude")
    np.testing.assert_array_equal(lat["values"], raw("era5_1995-07-14T12.nc", "latitude"))


# ---- errors: each code raises its class, with the library's message ----

def test_not_found_is_key_error(store, tmp_path):
    with pytest.raises(KeyError, match="'nope' does not exist") as e:
        store.fetch("nope")
    assert isinstance(e.value, gridstore.NotFoundError) and e.value.code == "NotFound"
    with pytest.raises(gridstore.NotFoundError):
        store.info("nope")
    with pytest.raises(gridstore.NotFoundError, match=str(tmp_path / "none")):
        gridstore.open(tmp_path / "none")


def test_bad_boxes(store):
    with pytest.raises(IndexError, match="axis t .* exceeds the extent 10") as e:
        store.fetch("sub.nc", "u", origin=(5, 0, 0, 0), shape=(6, 1, 1, 1))
    assert isinstance(e.value, gridstore.OutOfRangeError)
    with pytest.raises(ValueError, match="negative"):
        store.fetch("sub.nc", "u", origin=(-1, 0, 0, 0), shape=(1, 1, 1, 1))
    with pytest.raises(ValueError, match="4 integers"):
        store.fetch("sub.nc", "u", origin=(0, 0, 0))
    with pytest.raises(ValueError, match="4 integers"):
        store.fetch("sub.nc", "u", origin=(0, 0, 0, 0.5))
    with pytest.raises(gridstore.InvalidArgumentError, match="'w'"):
        store.fetch("sub.nc", "w")
    with pytest.raises(ValueError, match="column"):
        store.datasets(where="size >")


def test_read_only_and_incomplete(store_path, tmp_path, data_dir):
    ro = gridstore.open(store_path)
    with pytest.raises(gridstore.FailedPreconditionError, match="read-only|read only"):
        ro.delete("sub.nc")
    ro.close()
    with pytest.raises(ValueError, match="closed"):
        ro.fetch("sub.nc")
    with gridstore.open(tmp_path / "inc", read_only=False, create=True) as s:
        w = s.create_dataset("run", {"t": {"dims": ("y", "x"), "shape": (3, 4), "dtype": "f4",
                                           "fill_value": -1}})
        with pytest.raises(gridstore.FailedPreconditionError, match="'run'.*INIT"):
            s.fetch("run")
        assert (s.fetch("run", allow_incomplete=True)["t"] == -1).all()
        w.abort()
        assert s.datasets() == []


def test_already_exists(writable, data_dir):
    writable.import_netcdf(data_dir / "sub.nc", "x")
    with pytest.raises(gridstore.AlreadyExistsError):
        writable.import_netcdf(data_dir / "sub.nc", "x")
    writable.import_netcdf(data_dir / "reduced.nc", "x", overwrite=True)
    assert "sst" in writable.fetch("x")


def test_import_errors_name_the_file(writable, tmp_path):
    bad = tmp_path / "not.nc"
    bad.write_text("hello")
    with pytest.raises(gridstore.GridStoreError, match=str(bad)):
        writable.import_netcdf(bad, "bad")
    with pytest.raises(gridstore.NotFoundError, match="missing.nc"):
        writable.import_netcdf(tmp_path / "missing.nc", "bad")
    assert writable.datasets() == []


def test_keep_bits_and_digits_equal_netcdf4_quantize(writable, tmp_path, data_dir):
    # netCDF-C's own quantization, through netCDF4-python, of the real tos field.
    src = netCDF4.Dataset(data_dir / "tos_O1_2001-2002.nc")
    src.set_auto_mask(False)
    tos = src["tos"][:]
    fill = src["tos"]._FillValue
    src.close()
    for mode, n, keep in (("BitRound", 7, "keep_bits"), ("GranularBitRound", 3, "keep_digits")):
        ref = tmp_path / f"{mode}.nc"
        with netCDF4.Dataset(ref, "w") as out:
            for name, size in zip(("time", "lat", "lon"), tos.shape):
                out.createDimension(name, size)
            v = out.createVariable("tos", "f4", ("time", "lat", "lon"), fill_value=fill,
                                   significant_digits=n, quantize_mode=mode)
            v[:] = tos
        with netCDF4.Dataset(ref) as back:
            back.set_auto_mask(False)
            want = back["tos"][:]
        writable.import_netcdf(data_dir / "tos_O1_2001-2002.nc", mode, **{keep: {"tos": n}})
        got = writable.fetch(mode)["tos"].reshape(want.shape)
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
        attribute = writable.info(mode)["variables"][0]["attributes"]
        assert any(k.startswith("_Quantize") for k in attribute), attribute
    with pytest.raises(gridstore.InvalidArgumentError, match="'tcco2' is packed"):
        writable.import_netcdf(data_dir / "SMALL_total_column_co2.nc", "x", keep_bits={"tcco2": 7})
    with pytest.raises(gridstore.InvalidArgumentError, match="keep_bits"):
        writable.import_netcdf(data_dir / "sub.nc", "x", keep_bits={"u": "7"})


def test_data_loss(tmp_path, data_dir):
    path = tmp_path / "damaged"
    with gridstore.open(path, read_only=False, create=True) as s:
        s.import_netcdf(data_dir / "tos_O1_2001-2002.nc", "tos", codec="none")
    # Flip bytes in the middle of the largest table file (the data blocks): checksums catch it,
    # when the store opens or when the blocks are read.
    sst = max(path.glob("*.sst"), key=lambda p: p.stat().st_size)
    data = bytearray(sst.read_bytes())
    for i in range(len(data) // 4, len(data) // 2, 997):
        data[i] ^= 0x5A
    sst.write_bytes(bytes(data))
    with pytest.raises(gridstore.DataLossError, match="damaged|checksum|corrupt"):
        with gridstore.open(path, cache_bytes=0) as s:
            s.fetch("tos")


def test_unavailable_or_invalid_rados(tmp_path):
    conf = tmp_path / "ceph.conf"
    conf.write_text("[global]\nmon_host = 127.0.0.1:1\nclient_mount_timeout = 2\n"
                    "rados_mon_op_timeout = 2\nauth_client_required = none\n")
    # No monitor answers (port 1): Unavailable within the configured 2 s, naming pool and conf.
    with pytest.raises(gridstore.UnavailableError, match=f"'nopool'.*{conf}.*timed out"):
        gridstore.open(f"rados://nopool?conf={conf}")
    with pytest.raises(gridstore.InvalidArgumentError):
        gridstore.open("rados://?conf=")


# ---- threads ----

def test_many_threads_fetch_exact(store):
    expected = raw("tos_O1_2001-2002.nc", "tos")
    rng = np.random.default_rng(7)
    boxes = []
    for _ in range(200):
        t, x, y = int(rng.integers(0, 24)), int(rng.integers(0, 160)), int(rng.integers(0, 170))
        boxes.append(((t, 0, x, y), (1, 1, 10, 10)))

    def work(box):
        origin, shape = box
        got = store.fetch("tos_O1_2001-2002.nc", "tos", origin, shape)["tos"]
        t, _, x, y = origin
        return np.array_equal(got[0, 0], expected[t, x:x + 10, y:y + 10])

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        assert all(pool.map(work, boxes))


def test_gil_released_while_fetching(tmp_path):
    """While one thread is inside a fetch, another runs Python. The main thread stamps the time
    in a loop; if the fetch held the GIL, no stamp could fall inside the call (checked: a
    GIL-holding call such as sorted() of a long list gets none)."""
    path = tmp_path / "big"
    values = np.random.default_rng(3).random((4, 1024, 1024), dtype=np.float32)
    with gridstore.open(path, read_only=False, create=True) as s:
        with s.create_dataset("big", {"v": {"dims": ("time", "x", "y"), "shape": values.shape,
                                            "dtype": "float32"}}) as w:
            w.write("v", values)
    store = gridstore.open(path, cache_bytes=0)
    inside = 0
    for _ in range(3):  # a loaded machine may not schedule the main thread at all; retry
        started, stamps, span, result = threading.Event(), [], {}, {}

        def fetch():
            started.set()
            t0 = time.perf_counter()
            result["v"] = store.fetch("big", "v")["v"]
            span["t"] = (t0, time.perf_counter())

        worker = threading.Thread(target=fetch)
        worker.start()
        started.wait()
        while worker.is_alive():
            stamps.append(time.perf_counter())
        worker.join()
        np.testing.assert_array_equal(result["v"][:, 0], values)
        t0, t1 = span["t"]
        lo, hi = t0 + 0.1 * (t1 - t0), t1 - 0.1 * (t1 - t0)
        inside = sum(lo < stamp < hi for stamp in stamps)
        if inside > 10:
            break
    assert inside > 10, f"{inside} steps of the main thread during a fetch: is the GIL held?"
    store.close()


def test_open_dataset_needs_an_id(store_path):
    import xarray as xr

    with pytest.raises(ValueError, match="needs dataset=ID.*'SMALL_total_column_co2.nc'"):
        xr.open_dataset(store_path, engine="gridstore")


# ---- writing from numpy ----

def test_create_write_finish(writable):
    rng = np.random.default_rng(1)
    temp = rng.normal(280, 10, size=(4, 3, 50, 70)).astype("float32")
    precip = rng.integers(0, 1000, size=(4, 50, 70)).astype("int16")
    coords = {"time": {"values": np.arange(4) * 6.0,
                       "attributes": {"units": "hours since 2026-11-25 00:00", "calendar": "standard"}},
              "level": {"values": np.array([1000, 850, 500]), "attributes": {"units": "hPa"}},
              "lat": np.linspace(30, 40, 50), "lon": np.linspace(100, 120, 70)}
    with writable.create_dataset(
            "model/2026-11-25T00", coordinates=coords, attributes={"source": "test", "run": 0},
            block=(32, 32), variables={
                "t": {"dims": ("time", "level", "lat", "lon"), "shape": temp.shape,
                      "dtype": "float32", "attributes": {"units": "K"}},
                "tp": {"dims": ("time", "lat", "lon"), "shape": precip.shape, "dtype": "int16",
                       "fill_value": -1, "scale_factor": 0.1, "attributes": {"units": "mm"}}}) as w:
        w.write("t", temp[:2])               # steps 0-1
        w.write("t", temp[2:], t=2)          # steps 2-3
        for k in range(4):
            w.write("tp", precip[k], t=k)    # one plane at a time
        with pytest.raises(TypeError, match="float64"):
            w.write("tp", precip[0].astype("float64"), t=0)
        with pytest.raises(ValueError, match="do not fit"):
            w.write("t", temp[0, 0, :10])
    assert writable.info("model/2026-11-25T00")["status"] == "DONE"
    got = writable.fetch("model/2026-11-25T00")
    np.testing.assert_array_equal(got["t"], temp)
    np.testing.assert_array_equal(got["tp"][:, 0], precip)
    ds = writable.open_dataset("model/2026-11-25T00")
    assert str(ds.time.values[1]) == "2026-11-25T06:00:00.000000000"
    np.testing.assert_allclose(ds.tp.values, precip * np.float64(0.1))
    assert ds.t.sel(level=850).shape == (4, 50, 70)
    assert writable.datasets(where="source = 'test'") == ["model/2026-11-25T00"]


def test_writer_aborts_on_error_and_overwrite_keeps_old(writable, data_dir):
    spec = {"v": {"dims": ("x", "y"), "shape": (8, 8), "dtype": "float64"}}
    with pytest.raises(RuntimeError, match="boom"):
        with writable.create_dataset("a", spec) as w:
            w.write("v", np.ones((8, 8)))
            raise RuntimeError("boom")
    assert writable.datasets() == []
    with writable.create_dataset("a", spec) as w:
        w.write("v", np.ones((8, 8)))
    with pytest.raises(gridstore.AlreadyExistsError):
        writable.create_dataset("a", spec)
    w = writable.create_dataset("a", spec, overwrite=True)
    w.write("v", np.full((8, 8), 2.0))
    assert writable.fetch("a")["v"].max() == 1.0  # readers see the old one until finish
    w.finish()
    assert writable.fetch("a")["v"].min() == 2.0
    with pytest.raises(ValueError, match="finished"):
        w.write("v", np.ones((8, 8)))


def test_issue29_finish_refuses_planes_never_written(writable):
    # finish() used to publish planes never written, which read back as 0.0.
    spec = {"v": {"dims": ("time", "x", "y"), "shape": (3, 4, 5), "dtype": "float32"}}
    w = writable.create_dataset("part", spec)
    w.write("v", np.ones((4, 5), "float32"), t=0)
    with pytest.raises(gridstore.FailedPreconditionError, match=r"'v': 2 of 3 step\(s\).*t 1-2"):
        w.finish()
    assert writable.info("part")["status"] == "INIT"
    w.finish(allow_missing=True)
    got = writable.fetch("part", unpack=True)["v"]
    assert (got[0] == 1).all()
    assert np.isnan(got[1:]).all()  # the fill value (netCDF's default, now _FillValue) masked
    # The context manager aborts what it cannot finish: no half-made dataset stays.
    with pytest.raises(gridstore.FailedPreconditionError, match="not complete"):
        with writable.create_dataset("half", spec) as w2:
            w2.write("v", np.ones((4, 5), "float32"), t=1)
    assert "half" not in writable.datasets()


def test_issue29_coordinates_must_match_their_dimension(writable):
    spec = {"v": {"dims": ("lat", "lon"), "shape": (4, 5), "dtype": "float32"}}
    with pytest.raises(gridstore.InvalidArgumentError, match="'lon' has 6 values along 'lon'.*5"):
        writable.create_dataset("c", spec, coordinates={"lat": np.arange(4.0),
                                                        "lon": np.arange(6.0)})
    assert "c" not in writable.datasets()


def test_issue29_an_empty_variable_list_is_an_error(store):
    with pytest.raises(gridstore.InvalidArgumentError, match="variables is empty"):
        store.fetch("sub.nc", [])


def test_create_errors(writable):
    with pytest.raises(gridstore.InvalidArgumentError, match="'v'.*dims"):
        writable.create_dataset("a", {"v": {"dims": ("x",), "shape": (8,), "dtype": "f4"}})
    with pytest.raises(gridstore.InvalidArgumentError, match="bool"):
        writable.create_dataset("a", {"v": {"dims": ("x", "y"), "shape": (8, 8), "dtype": "?"}})
    with pytest.raises(gridstore.InvalidArgumentError, match="fill_value"):
        writable.create_dataset("a", {"v": {"dims": ("x", "y"), "shape": (8, 8),
                                            "dtype": "int8", "fill_value": 300}})
    with pytest.raises(gridstore.InvalidArgumentError):
        writable.create_dataset("", {"v": {"dims": ("x", "y"), "shape": (8, 8), "dtype": "f4"}})
    with pytest.raises(TypeError, match="attribute 'bad'"):
        writable.create_dataset("a", {"v": {"dims": ("x", "y"), "shape": (8, 8), "dtype": "f4",
                                            "attributes": {"bad": object()}}})
    assert writable.datasets() == []


def test_deleted_or_replaced_while_open(writable, data_dir):
    writable.import_netcdf(data_dir / "sub.nc", "d")
    ds = writable.open_dataset("d")
    first = ds.u.isel(time=0).values
    writable.delete("d")
    with pytest.raises(KeyError, match="'d' was deleted after it was opened"):
        ds.u.isel(time=1).values
    # Created again under the same id: the open Dataset must not read the new data.
    writable.import_netcdf(data_dir / "sub.nc", "d")
    with pytest.raises(gridstore.AbortedError, match="replaced after it was opened"):
        ds.u.isel(time=0).values
    np.testing.assert_array_equal(writable.open_dataset("d").u.isel(time=0).values, first)


def test_installed_layout_has_stubs():
    package = pathlib.Path(gridstore.__file__).parent
    assert (package / "_core.pyi").is_file() and (package / "py.typed").is_file()
    assert "Reads a 4-D box" in gridstore.Store.fetch.__doc__


def test_help_is_useful():
    out = subprocess.run([sys.executable, "-c",
                          "import gridstore; help(gridstore.Store.fetch)"],
                         capture_output=True, text=True, env={**os.environ, "PAGER": "cat"})
    assert "OutOfRangeError" in out.stdout and "origin" in out.stdout


def test_import_grib_equals_grib_get_data(writable):
    """GRIB through the package: values as ecCodes' grib_get_data prints them (missing points
    NaN), coordinates, and the format checked against the method."""
    path = pathlib.Path(os.environ.get("GRIDSTORE_TEST_DATA", "../shared/data")) / ".." / "grib"
    grib = path / "missing_values.grib2"
    summary = writable.import_grib(grib, "u")
    assert summary["planes"] == 1
    out = subprocess.run(["grib_get_data", "-m", "nan", str(grib)], capture_output=True,
                         text=True, check=True).stdout.split("\n")[1:]
    rows = np.array([[float(v) for v in line.split()] for line in out if line.strip()])
    got = writable.fetch("u", "u")["u"].ravel()
    np.testing.assert_array_equal(got, rows[:, 2].astype("float32"))
    assert np.isnan(got).sum() > 0
    info = writable.info("u")
    lat = next(c for c in info["coordinates"] if c["name"] == "latitude")["values"]
    np.testing.assert_array_equal(np.repeat(lat, 144), rows[:, 0])
    with pytest.raises(gridstore.InvalidArgumentError, match="is GRIB: use Store.import_grib"):
        writable.import_netcdf(grib, "v")
    with pytest.raises(gridstore.InvalidArgumentError, match="not GRIB"):
        writable.import_grib(DATA / "sub.nc", "v")
    with pytest.raises(gridstore.InvalidArgumentError, match="3_layer.grib2.*another grid"):
        writable.import_grib(path / "3_layer.grib2", "v")
    assert writable.datasets() == ["u"]
    # Issue 29, 2.5: a reduced Gaussian grid is a cell axis, extracted by the nearest cell.
    writable.import_grib(path / "reduced_gg.grib2", "rgg")
    point = writable.extract("rgg", None, points=(10, 50))
    assert point.z.size == 1 and np.isfinite(point.z.values).all()


def _run_step(tmp_path, k):
    """Step 6k of a run made from real ERA5 messages (member 0, z and t at 500 and 850 hPa): the
    fields of analysis time k re-labelled with ecCodes' grib_copy and grib_set."""
    grib = pathlib.Path(os.environ.get("GRIDSTORE_TEST_DATA", "../shared/data")) / ".." / "grib"
    date, hour = [(20170101, 0), (20170101, 1200), (20170102, 0), (20170102, 1200)][k]
    picked, out = tmp_path / f"pick{k}.grib", tmp_path / f"f{6 * k:03d}.grib"
    subprocess.run(["grib_copy", "-w", f"number=0,dataDate={date},dataTime={hour}",
                    str(grib / "era5-levels-members.grib"), str(picked)], check=True)
    subprocess.run(["grib_set", "-s", f"dataDate=20170101,dataTime=0,step={6 * k}", str(picked),
                    str(out)], check=True)
    return out


def _grib_values(path, short_name, level):
    out = subprocess.run(["grib_get_data", "-F", "%.17g", "-w",
                          f"shortName={short_name},level={level}", str(path)],
                         capture_output=True, text=True, check=True).stdout
    rows = [line.split() for line in out.split("\n")[1:] if line.strip()]
    return np.array([float(r[2]) for r in rows], dtype="float32")


def test_run_of_many_files_and_appended_steps(tmp_path, binary):
    """A run from several files, and a run appended step by step by another process: a read-only
    store sees the new steps after refresh(), each step exactly ecCodes' values. The steps are
    member 0 of ERA5's ensemble, so dataset "run" is "run/m00" (one dataset per member)."""
    steps = [_run_step(tmp_path, k) for k in range(3)]
    path = str(tmp_path / "runs")
    with gridstore.open(path, read_only=False, create=True) as w:
        summary = w.import_grib(steps, "whole")
        assert summary["status"] == "DONE" and summary["planes"] == 12
        assert summary["dataset"] == "whole/m00"
        ds = w.open_dataset("whole/m00")
        assert list(ds["step"].values / np.timedelta64(1, "h")) == [0.0, 6.0, 12.0]
        np.testing.assert_array_equal(
            ds["t"].isel(time=2).sel(isobaricInhPa=850).values.ravel(),
            _grib_values(steps[2], "t", 850))
        summary = w.import_grib(steps[0], "run", append=True)
        assert (summary["status"], summary["steps"], summary["complete_steps"]) == ("INGESTING", 1, 1)

    reader = gridstore.open(path)
    assert reader.info("run/m00")["status"] == "INGESTING"
    with pytest.raises(gridstore.OutOfRangeError):
        reader.fetch("run/m00", "t", origin=(1, 0, 0, 0), shape=(1, 2, 61, 120))
    run_cli(binary, path, "import", str(steps[1]), "--dataset", "run", "--append")
    # The read-only store sees the store as it opened it until refresh(); a fetch of a step it
    # does not know yet refreshes by itself.
    assert reader.info("run/m00")["variables"][0]["shape"][0] == 1
    got = reader.fetch("run/m00", "t", origin=(1, 0, 0, 0), shape=(1, 2, 61, 120))["t"]
    assert reader.info("run/m00")["variables"][0]["shape"][0] == 2
    np.testing.assert_array_equal(got[0, 1].ravel(), _grib_values(steps[1], "t", 850))
    run_cli(binary, path, "import", str(steps[2]), "--dataset", "run", "--append", "--finish")
    reader.refresh()
    assert reader.info("run/m00")["status"] == "DONE"
    with pytest.raises(gridstore.FailedPreconditionError, match="already complete"):
        with gridstore.open(path, read_only=False) as w:
            w.import_grib(steps[2], "run", append=True)
    reader.close()


def test_netcdf_files_split_along_time(writable, tmp_path, data_dir):
    """Two years of a real series written as two files, given in reverse order: one dataset equal
    to the whole file, as xarray reads it."""
    import xarray as xr
    whole = xr.open_dataset(data_dir / "tos_O1_2001-2002.nc")
    whole.isel(time=slice(0, 12)).to_netcdf(tmp_path / "2001.nc")
    whole.isel(time=slice(12, 24)).to_netcdf(tmp_path / "2002.nc")
    summary = writable.import_netcdf([tmp_path / "2002.nc", tmp_path / "2001.nc"], "tos")
    assert summary["planes"] == 24
    got = writable.open_dataset("tos")
    np.testing.assert_array_equal(got["tos"].values, whole["tos"].values)
    np.testing.assert_array_equal(got["time"].values, whole["time"].values)
    with pytest.raises(gridstore.InvalidArgumentError, match="another of the files has it too"):
        writable.import_netcdf([tmp_path / "2001.nc", tmp_path / "2001.nc"], "twice")


def test_relayout_series_layout_serves_the_same_values(writable, data_dir):
    writable.import_netcdf(data_dir / "tos_O1_2001-2002.nc", "tos")
    before = writable.fetch("tos", "tos", origin=(0, 0, 100, 100), shape=(24, 1, 2, 3))["tos"]
    report = writable.relayout("tos", add="series", steps=12, tile=(8, 8))
    assert report["blocks_written"] == 2 * 22 * 23 and not report["already_ready"]
    assert report["stored_bytes"] > 0
    assert report["layout"] == {"steps": 12, "tile": (8, 8), "levels": 1, "frame_points": 16}
    assert writable.info("tos")["series_layout"]["ready"] is True
    assert writable.info("tos")["series_layout"]["held_steps"] is None  # every step: not growing
    after = writable.fetch("tos", "tos", origin=(0, 0, 100, 100), shape=(24, 1, 2, 3))["tos"]
    np.testing.assert_array_equal(before, after)
    assert writable.relayout("tos", add="series", steps=12, tile=(8, 8))["already_ready"]
    # Sides not given keep the stored layout's; another side asked for is refused.
    kept = writable.relayout("tos", add="series")
    assert kept["already_ready"] and kept["layout"]["steps"] == 12
    with pytest.raises(gridstore.FailedPreconditionError, match="drop it first"):
        writable.relayout("tos", add="series", steps=24)
    writable.relayout("tos", drop="series")
    assert "series_layout" not in writable.info("tos")
    # Sides not given are chosen for the dataset: 24 steps get the defaults.
    chosen = writable.relayout("tos", add="series")["layout"]
    assert chosen == {"steps": 256, "tile": (16, 16), "levels": 1, "frame_points": 16}
    writable.relayout("tos", drop="series")
    assert writable.relayout("tos", add="series", steps="all")["layout"]["steps"] == 24
    writable.relayout("tos", drop="series")
    with pytest.raises(gridstore.InvalidArgumentError, match="steps must be"):
        writable.relayout("tos", add="series", steps="every")
    with pytest.raises(ValueError, match="exactly one of"):
        writable.relayout("tos", add="planes")
    with pytest.raises(gridstore.NotFoundError):
        writable.relayout("tos", drop="series")


def test_relayout_over_levels_serves_time_height_sections(writable, data_dir):
    """Series blocks over all ten model levels of a real file: a point's every step at every
    level, compared with xarray reading the file."""
    import xarray as xr
    path = data_dir / "small_theta_colpex.nc"
    writable.import_netcdf(path, "theta")
    report = writable.relayout("theta", add="series", steps=6, tile=(8, 8), levels=10)
    assert report["blocks_written"] == 11 * 11
    assert writable.info("theta")["series_layout"]["levels"] == 10
    got = writable.fetch("theta", "air_potential_temperature", origin=(0, 0, 40, 41),
                         shape=(6, 10, 1, 1))["air_potential_temperature"]
    with xr.open_dataset(path) as ds:
        expected = ds["air_potential_temperature"].values[:, :, 40:41, 41:42]
    np.testing.assert_array_equal(got, expected)
    writable.relayout("theta", drop="series")
    with pytest.raises(gridstore.InvalidArgumentError, match="levels per block -2 is invalid"):
        writable.relayout("theta", add="series", levels=-2)


def test_create_dataset_takes_the_stores_default_block_shape(writable):
    # As imports: 64x128 on an embedded store, 256x256 on a distributed one (by the URI alone).
    spec = {"v": {"dims": ("x", "y"), "shape": (200, 300), "dtype": "float32"}}
    with writable.create_dataset("default-block", spec) as w:
        w.write("v", np.zeros((200, 300), dtype=np.float32))
    assert writable.info("default-block")["layout"]["block"] == (64, 128)
    assert gridstore._core.default_block("rados://pool?conf=/nowhere.conf") == (256, 256)
    with writable.create_dataset("chosen-block", spec, block=(32, 32)) as w:
        w.write("v", np.zeros((200, 300), dtype=np.float32))
    assert writable.info("chosen-block")["layout"]["block"] == (32, 32)
