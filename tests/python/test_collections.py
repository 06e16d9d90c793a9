"""Forecast collections from Python (issue 31): Store.collections and open_collection, the
collection query (Collection.extract, the library's ExtractCollection) and the lazy xarray view
(engine="gridstore", collection=...).

- ../shared/grib/era5-levels-members.grib imported by the command (an ensemble GRIB file: one
  dataset per member, collection "ecmf/an") against cfgrib on the same file, value by value;
- ensemble statistics against numpy on the members' values;
- a lazy point selection with a quantile over member, counting the boxes fetched;
- a collection of several runs written from the same real fields with the Python writer (runs
  with other steps, levels and members: the union, NaN where a run lacks one) for run and member
  selection and the cross-run views;
- Collection.extract(format=...) byte for byte against `gridstore extract COLLECTION`;
- errors: unknown collection, run (the nearest named), member, statistic over one member.
"""

import json
import os
import pathlib
import subprocess

import numpy as np
import pytest
import xarray as xr

import gridstore
from conftest import DATA, run_cli

GRIB = pathlib.Path(os.environ.get("GRIDSTORE_TEST_DATA", "../shared/data")) / ".." / "grib"
MEMBERS_FILE = GRIB / "era5-levels-members.grib"
HOUR_MS = 3_600_000
T0_MS = 1483228800000  # 2017-01-01T00:00Z, the file's first analysis time


@pytest.fixture(scope="module")
def cfgrib_ds():
    import cfgrib  # noqa: F401  (Debian python3-cfgrib, from scripts/install-deps.sh: never skipped)
    ds = xr.open_dataset(MEMBERS_FILE, engine="cfgrib", backend_kwargs={"indexpath": ""})
    return ds.load()


@pytest.fixture(scope="module")
def an_path(tmp_path_factory, binary):
    """The members file imported by the command, in 16x16 blocks (so that a point is one block
    of a plane of 4x8)."""
    path = str(tmp_path_factory.mktemp("collections") / "gs")
    subprocess.run([binary, "--store", path, "import", str(MEMBERS_FILE), "--dataset", "era5",
                    "--block", "16x16"], check=True, capture_output=True)
    return path


@pytest.fixture
def an_store(an_path):
    s = gridstore.open(an_path)
    yield s
    s.close()


# ---- listing ----

def test_collections_list_as_the_command(an_store, an_path, binary):
    listed = json.loads(run_cli(binary, an_path, "collections", "--json"))
    got = an_store.collections()
    assert [c["name"] for c in got] == [c["name"] for c in listed] == ["ecmf/an"]
    c, expected = got[0], listed[0]
    assert c["runs"].dtype == np.dtype("datetime64[ms]")
    assert [str(r) + "Z" for r in c["runs"].astype("datetime64[s]")] == expected["runs"]
    assert str(c["latest"].astype("datetime64[s]")) + "Z" == expected["latest"]
    assert list(c["members"]) == expected["members"] == list(range(10))
    assert c["variables"] == expected["variables"] == ["t", "z"]
    assert c["steps"].dtype == np.dtype("timedelta64[ms]")
    assert list(c["steps"] / np.timedelta64(1, "h")) == expected["steps"] == [0, 12, 24, 36]
    assert c["datasets"] == expected["datasets"] == 10
    assert len(c["incomplete_runs"]) == 0
    coll = an_store.open_collection("ecmf/an")
    assert coll.name == "ecmf/an" and not coll.deterministic
    assert np.array_equal(coll.runs, c["runs"]) and coll.latest == c["latest"]
    assert coll.datasets() == {m: f"era5/m{m:02d}" for m in range(10)}


# ---- the lazy view against cfgrib ----

def test_lazy_collection_equals_cfgrib(an_path, cfgrib_ds):
    """cfgrib reads the file as (number, time, isobaricInhPa, latitude, longitude): its `time`
    is each field's reference time, 4 analyses 12 h apart, all at step 0. The import makes them
    one run (reference time the earliest analysis, as docs/usage-import.md says for analyses of
    several times) with 4 steps: so cfgrib's number is member, its time is valid_time[0, :]
    (run 0, steps 0, 12, 24 and 36 h), and the rest is the same by name."""
    ds = xr.open_dataset(an_path, engine="gridstore", collection="ecmf/an")
    cf = cfgrib_ds
    assert dict(ds.sizes) == {"run": 1, "member": 10, "step": 4, "isobaricInhPa": 2,
                              "latitude": 61, "longitude": 120}
    assert ds.t.dims == ("run", "member", "step", "isobaricInhPa", "latitude", "longitude")
    assert ds.valid_time.dims == ("run", "step")
    np.testing.assert_array_equal(ds.member.values, cf.number.values)
    np.testing.assert_array_equal(ds.run.values, cf.time.values[:1])
    np.testing.assert_array_equal(ds.valid_time.values[0], cf.time.values)
    np.testing.assert_array_equal(ds.step.values, cf.time.values - cf.time.values[0])
    np.testing.assert_array_equal(ds.latitude.values, cf.latitude.values)
    np.testing.assert_array_equal(ds.longitude.values, cf.longitude.values)
    assert sorted(ds.isobaricInhPa.values) == sorted(cf.isobaricInhPa.values)
    for name in ("t", "z"):
        ours = ds[name].isel(run=0).rename(step="time").assign_coords(time=cf.time.values)
        theirs = cf[name].rename(number="member")
        assert ours.dtype == theirs.dtype == np.float32
        ours = ours.transpose(*theirs.dims).sel(isobaricInhPa=theirs.isobaricInhPa)
        np.testing.assert_array_equal(ours.values, theirs.values)  # every value
        assert ds[name].attrs["units"] == theirs.attrs["units"]
    # The same through the Collection object and gridstore.open's Store.
    with gridstore.open(an_path) as store:
        again = store.open_collection("ecmf/an").to_xarray()
        np.testing.assert_array_equal(again.t.values, ds.t.values)


class CountingCore:
    """Store._core with every fetch recorded (dataset, origin, shape)."""

    def __init__(self, core):
        self._core = core
        self.fetches = []

    def fetch(self, *args):
        self.fetches.append((args[0], tuple(args[2]), tuple(args[3])))
        return self._core.fetch(*args)

    def __getattr__(self, name):
        return getattr(self._core, name)


def test_lazy_point_quantile_reads_only_the_blocks_needed(an_store, cfgrib_ds):
    counting = CountingCore(an_store._core)
    an_store._core = counting
    try:
        ds = xr.open_dataset(an_store, engine="gridstore", collection="ecmf/an")
        assert counting.fetches == []  # opening reads no values
        point = ds.t.sel(latitude=50.2, longitude=10.4, method="nearest")
        q = point.quantile([0.1, 0.5, 0.9], dim="member")
    finally:
        an_store._core = counting._core
    # One box per member (one dataset each), of one cell: at 16x16 blocks, one block of each
    # of the 8 planes (4 steps x 2 levels) out of 32 blocks per plane.
    assert len(counting.fetches) == 10
    assert sorted(f[0] for f in counting.fetches) == [f"era5/m{m:02d}" for m in range(10)]
    cell = (int(np.argmin(abs(ds.latitude.values - 50.2))),
            int(np.argmin(abs(ds.longitude.values - 10.4))))
    for _, origin, shape in counting.fetches:
        assert origin == (0, 0) + cell and shape == (4, 2, 1, 1)
    expected = np.quantile(
        cfgrib_ds.t.sel(latitude=51, longitude=9, isobaricInhPa=ds.isobaricInhPa).values,
        [0.1, 0.5, 0.9], axis=0)  # (number, time, level) -> (quantile, time, level)
    assert q.dims == ("quantile", "run", "step", "isobaricInhPa")
    np.testing.assert_array_equal(q.values[:, 0], expected)


def test_lazy_chunks_are_one_block_of_one_dataset(an_store):
    ds = xr.open_dataset(an_store, engine="gridstore", collection="ecmf/an", chunks={})
    assert ds.t.data.chunksize == (1, 1, 1, 1, 16, 16)
    eager = xr.open_dataset(an_store, engine="gridstore", collection="ecmf/an")
    xr.testing.assert_identical(ds.t.isel(step=slice(1, 3)).compute(),
                                eager.t.isel(step=slice(1, 3)))


# ---- the collection query ----

STATS = "mean,spread,p10,p50,p90,prob>273.15"


def _numpy_stats(members):
    """The statistics of STATS over axis 0, as numpy computes them."""
    return np.stack([np.mean(members, axis=0), np.std(members, axis=0),
                     np.percentile(members, 10, axis=0), np.percentile(members, 50, axis=0),
                     np.percentile(members, 90, axis=0), (members > 273.15).mean(axis=0)])


@pytest.mark.parametrize("feature", [dict(points=[(10, 50), (-75.3, 40.1), (116.4, 39.9)]),
                                     dict(bbox=(-20, 30, 40, 70), level=850)])
def test_statistics_equal_numpy(an_store, cfgrib_ds, feature):
    coll = an_store.open_collection("ecmf/an")
    stats = coll.extract("t", stat=STATS, **feature)
    members = coll.extract("t", **feature)
    assert stats.t.dims[:2] == ("run", "stat") and members.t.dims[:2] == ("run", "member")
    assert list(stats.stat.values) == STATS.split(",")
    assert list(members.member.values) == list(range(10))
    expected = _numpy_stats(members.t.values[0])
    np.testing.assert_allclose(stats.t.values[0], expected, rtol=1e-13, atol=0)
    np.testing.assert_array_equal(stats.t.values[0, 2:], expected[2:])  # order statistics exactly
    # ...and the members are the file's values, as cfgrib reads them (as doubles).
    if "points" in feature:
        for k in range(members.sizes["station"]):
            cell = cfgrib_ds.t.sel(latitude=float(members.grid_lat[k]),
                                   longitude=float(members.grid_lon[k]) % 360,
                                   isobaricInhPa=members.isobaricInhPa)
            np.testing.assert_array_equal(members.t.values[0, :, k], cell.values)
    else:
        box = cfgrib_ds.t.sel(latitude=members.latitude, longitude=members.longitude % 360,
                              isobaricInhPa=members.isobaricInhPa)
        np.testing.assert_array_equal(members.t.values[0], box.values)
    assert stats.encoding["gridstore"]["view"] == "runs"


def test_extract_dataset_is_the_commands_netcdf(an_store, an_path, binary, tmp_path):
    """Collection.extract's Dataset is laid out as `gridstore extract COLLECTION --format nc`
    writes its file: the same variables, coordinates, attributes and values."""
    coll = an_store.open_collection("ecmf/an")
    cases = [(["--point", "10,50", "--point", "20,40"], dict(points=[(10, 50), (20, 40)])),
             (["--bbox", "0,40,10,50", "--level", "850", "--units", "degC"],
              dict(bbox=(0, 40, 10, 50), level=850, units="degC")),
             (["--point", "10,50", "--stat", "mean,p10,prob>273.15"],
              dict(points=(10, 50), stat=["mean", "p10", "prob>273.15"])),
             (["--point", "10,50", "--member", "3,1", "--time", "2017-01-01T12:00Z"],
              dict(points=(10, 50), member=[3, 1], time="2017-01-01T12:00Z"))]
    for k, (args, kwargs) in enumerate(cases):
        out = tmp_path / f"out{k}.nc"
        run_cli(binary, an_path, "extract", "ecmf/an", "--variables", "t,z", *args,
                "--format", "nc", "-o", str(out))
        expected = xr.open_dataset(out).load()
        got = coll.extract(["t", "z"], **kwargs)
        if "member" in expected.coords:  # netCDF int, numpy's int64
            expected["member"] = expected.member.astype("int64")
        if "stat" in expected.coords:  # netCDF strings read as objects
            expected["stat"] = expected.stat.astype(str)
        xr.testing.assert_identical(got, expected)


@pytest.mark.parametrize("fmt", ["csv", "json", "covjson", "nc"])
def test_extract_bytes_are_the_commands(an_store, an_path, binary, tmp_path, fmt):
    coll = an_store.open_collection("ecmf/an")
    out = tmp_path / f"out.{fmt}"
    run_cli(binary, an_path, "extract", "ecmf/an", "--variables", "t", "--point", "10,50",
            "--stat", STATS, "--units", "degC", "--format", fmt, "-o", str(out))
    got = coll.extract("t", points=(10, 50), stat=STATS, units="degC", format=fmt)
    assert isinstance(got, bytes) and got == out.read_bytes()


# ---- several runs: written from the same real fields with the Python writer ----

# Run k starts 12 h after run k-1, and holds the file's analyses from k on as its steps
# (plus k kelvin, so that runs differ): run 0 steps 0..36 h, run 1 0..24 h, run 2 0..12 h.
# Run 2 lacks member 4 and level 850; members 0..4 otherwise.
RUNS = [dict(steps=4, members=[0, 1, 2, 3, 4], levels=[500, 850]),
        dict(steps=3, members=[0, 1, 2, 3, 4], levels=[500, 850]),
        dict(steps=2, members=[0, 1, 2, 3], levels=[500])]


def _run_values(cf, k, member, levels):
    t = cf.t.sel(number=member, isobaricInhPa=levels).values[k:k + RUNS[k]["steps"]]
    return (t + np.float32(k)).astype("float32")


def _write(store, id, cf, k, member, collection, block=(16, 16)):
    spec = RUNS[k]
    values = _run_values(cf, k, 0 if member is None else member, spec["levels"])
    run_ms = T0_MS + 12 * HOUR_MS * k
    run_iso = str(np.datetime64(run_ms, "ms").astype("datetime64[s]"))
    attrs = {"collection": collection, "run_time": run_ms}
    if member is not None:
        attrs["member"] = member
    with store.create_dataset(
            id, {"t": {"dims": ("time", "isobaricInhPa", "latitude", "longitude"),
                       "shape": values.shape, "dtype": "float32", "fill_value": np.nan,
                       "attributes": {"units": "K", "standard_name": "air_temperature"}}},
            coordinates={"time": {"values": 12.0 * np.arange(spec["steps"]),
                                  "attributes": {"units": f"hours since {run_iso}",
                                                 "calendar": "standard"}},
                         "isobaricInhPa": {"values": np.asarray(spec["levels"], float),
                                           "attributes": {"units": "hPa"}},
                         "latitude": {"values": cf.latitude.values,
                                      "attributes": {"units": "degrees_north"}},
                         "longitude": {"values": cf.longitude.values,
                                       "attributes": {"units": "degrees_east"}}},
            attributes=attrs, block=block) as w:
        w.write("t", values)


@pytest.fixture(scope="module")
def runs_path(tmp_path_factory, cfgrib_ds):
    path = tmp_path_factory.mktemp("runs") / "gs"
    with gridstore.open(path, read_only=False, create=True) as store:
        for k, spec in enumerate(RUNS):
            for m in spec["members"]:
                _write(store, f"test/ens/r{k}/m{m}", cfgrib_ds, k, m, "test/ens")
            if k < 2:
                _write(store, f"test/det/r{k}", cfgrib_ds, k, None, "test/det")
    return str(path)


@pytest.fixture
def runs_store(runs_path):
    s = gridstore.open(runs_path)
    yield s
    s.close()


def _expected(cf):
    """(run, member, step, level, lat, lon) as the lazy view must give it: NaN where a run
    lacks the step, member or level."""
    out = np.full((3, 5, 4, 2, 61, 120), np.nan, dtype="float32")
    for k, spec in enumerate(RUNS):
        for m in spec["members"]:
            values = _run_values(cf, k, m, spec["levels"])
            for j, level in enumerate(spec["levels"]):
                out[k, m, :spec["steps"], [500, 850].index(level)] = values[:, j]
    return out


def test_runs_with_other_steps_levels_and_members(runs_store, cfgrib_ds):
    assert [c["name"] for c in runs_store.collections()] == ["test/det", "test/ens"]
    ds = xr.open_dataset(runs_store, engine="gridstore", collection="test/ens")
    assert ds.t.dims == ("run", "member", "step", "isobaricInhPa", "latitude", "longitude")
    np.testing.assert_array_equal(ds.run.values, (T0_MS + 12 * HOUR_MS * np.arange(3))
                                  .astype("datetime64[ms]").astype("datetime64[ns]"))
    np.testing.assert_array_equal(ds.step.values / np.timedelta64(1, "h"), [0, 12, 24, 36])
    np.testing.assert_array_equal(ds.valid_time.values,
                                  ds.run.values[:, None] + ds.step.values[None, :])
    np.testing.assert_array_equal(ds.isobaricInhPa.values, [500, 850])
    expected = _expected(cfgrib_ds)
    np.testing.assert_array_equal(ds.t.values, expected)
    # Selections read through the same boxes: a point, one step, a run.
    np.testing.assert_array_equal(
        ds.t.sel(latitude=51, longitude=9).isel(step=[1, 3]).values,
        expected[:, :, [1, 3]][..., 13, 3])
    np.testing.assert_array_equal(ds.t.isel(run=2, member=4).values, expected[2, 4])
    np.testing.assert_array_equal(ds.t.isel(run=-1, step=0, isobaricInhPa=0).values,
                                  expected[2, :, 0, 0])
    # The same valid time from every run, by valid_time (dprog/dt).
    at = np.datetime64("2017-01-02T00:00", "ns")
    dprog = ds.t.where(ds.valid_time == at).sel(latitude=51, longitude=9).max("step")
    np.testing.assert_array_equal(dprog.values,
                                  np.stack([expected[k, :, 2 - k, :, 13, 3] for k in range(3)]))


def test_run_and_member_options(runs_store, cfgrib_ds):
    expected = _expected(cfgrib_ds)
    latest = xr.open_dataset(runs_store, engine="gridstore", collection="test/ens",
                             runs="latest", members=[3, 1])
    assert latest.sizes["run"] == 1 and list(latest.member.values) == [3, 1]
    # The union of the runs chosen: run 2 alone has 2 steps and one level.
    assert latest.sizes["step"] == 2 and list(latest.isobaricInhPa.values) == [500]
    np.testing.assert_array_equal(latest.t.values[0], expected[2, [3, 1], :2, :1])
    one = xr.open_dataset(runs_store, engine="gridstore", collection="test/ens",
                          runs=np.datetime64("2017-01-01T12:00"))
    np.testing.assert_array_equal(one.t.values[0], expected[1, :, :3])
    span = xr.open_dataset(runs_store, engine="gridstore", collection="test/ens",
                           runs=slice("2017-01-01T06:00Z", None))
    assert span.sizes["run"] == 2
    np.testing.assert_array_equal(span.t.values, expected[1:, :, :3])
    det = xr.open_dataset(runs_store, engine="gridstore", collection="test/det")
    assert det.t.dims == ("run", "step", "isobaricInhPa", "latitude", "longitude")
    assert "member" not in det.coords
    np.testing.assert_array_equal(det.t.values, expected[:2, 0, :4])
    with pytest.raises(gridstore.InvalidArgumentError, match="is deterministic"):
        xr.open_dataset(runs_store, engine="gridstore", collection="test/det", members=[0])


def test_cross_run_views_against_brute_force(runs_store, cfgrib_ds):
    expected = _expected(cfgrib_ds)
    coll = runs_store.open_collection("test/ens")
    assert len(coll.runs) == 3 and list(coll.members) == [0, 1, 2, 3, 4]
    assert list(coll.steps / np.timedelta64(1, "h")) == [0, 12, 24, 36]
    point = dict(points=(9, 51), level=500)  # the cell (13, 3)
    # The latest run by default; every run with run="all" (valid times per run).
    latest = coll.extract("t", **point)
    assert latest.sizes["run"] == 1 and latest.sizes["member"] == 4
    np.testing.assert_array_equal(latest.t.values[0, :, 0, :, 0], expected[2, :4, :2, 0, 13, 3])
    every = coll.extract("t", run="all", **point)
    assert every.sizes["time"] == 4  # the most steps of any run; NaN and NaT past a run's own
    np.testing.assert_array_equal(every.t.values[:, :, 0, :, 0], expected[:, :, :, 0, 13, 3])
    assert np.isnat(every.valid_time.values[2, 2:]).all()
    np.testing.assert_array_equal(every.lead_time.values[0] / np.timedelta64(1, "h"),
                                  [0, 12, 24, 36])
    # Constant forecast time: 2017-01-02T00 is step 2 of run 0, 1 of run 1, 0 of run 2.
    dprog = coll.extract("t", valid_time="2017-01-02T00:00Z", **point)
    assert dprog.sizes["time"] == 1 and dprog.encoding["gridstore"]["view"] == \
        "constant forecast time"
    np.testing.assert_array_equal(dprog.t.values[:, :, 0, 0, 0],
                                  [expected[k, :, 2 - k, 0, 13, 3] for k in range(3)])
    # Constant offset: the 12 h forecast of every run.
    lead = coll.extract("t", lead=np.timedelta64(12, "h"), **point)
    np.testing.assert_array_equal(lead.t.values[:, :, 0, 0, 0], expected[:, :, 1, 0, 13, 3])
    np.testing.assert_array_equal(lead.lead_time.values[:, 0] / np.timedelta64(1, "h"), [12] * 3)
    # Best: each valid time from the newest run that has it (run 0 T0, run 1 T0+12, run 2 the
    # rest); member 4 is not in run 2, so ask 0..3.
    best = coll.extract("t", best=True, member=[0, 1, 2, 3], **point)
    got = {(str(v), m): best.t.values[k, m, 0, j, 0]
           for k in range(best.sizes["run"]) for j, v in enumerate(best.valid_time.values[k])
           if not np.isnat(v) for m in range(4)}
    want = {}
    for vt in range(4):
        k = min(vt, 2)
        for m in range(4):
            want[(str(np.datetime64(T0_MS + 12 * HOUR_MS * vt, "ms").astype("datetime64[ns]")),
                  m)] = expected[k, m, vt - k, 0, 13, 3]
    assert got == want
    det = runs_store.open_collection("test/det").extract("t", run="all", **point)
    assert det.t.dims == ("run", "station", "time", "isobaricInhPa")  # no member dimension
    np.testing.assert_array_equal(det.t.values[:, 0, :, 0], expected[:2, 0, :, 0, 13, 3])


# ---- imports into a collection from Python ----

def test_python_imports_fill_the_collection(writable):
    summary = writable.import_grib(MEMBERS_FILE, "ens")
    assert summary["datasets"] == [f"ens/m{m:02d}" for m in range(10)]
    assert writable.info("ens/m03")["attributes"]["member"] == 3
    nc = DATA / "era5_1995-07-14T12.nc"
    writable.import_netcdf(nc, "e12", collection="era5/nc", run="1995-07-14T12:00Z")
    writable.import_netcdf(nc, "e06", collection="era5/nc", run=np.datetime64("1995-07-14T06"))
    assert [c["name"] for c in writable.collections()] == ["ecmf/an", "era5/nc"]
    coll = writable.open_collection("era5/nc")
    assert coll.deterministic and list(coll.members) == []
    assert list(coll.steps / np.timedelta64(1, "h")) == [0, 6]
    assert coll.datasets("1995-07-14T06:00Z") == {None: "e06"}
    xr.testing.assert_identical(coll.dataset("latest"), writable.open_dataset("e12"))
    # The lazy view: both runs valid at 12 UTC (steps 6 h and 0), unpacked as CF says (in the
    # type of scale_factor, here double: xarray would pick float32).
    ds = coll.to_xarray()
    assert ds.t2m.dims == ("run", "step", "latitude", "longitude")
    original = xr.open_dataset(nc)
    raw = xr.open_dataset(nc, decode_cf=False).t2m
    unpacked = raw.values.astype("float64") * raw.scale_factor + raw.add_offset
    assert ds.t2m.dtype == np.float64 and "scale_factor" not in ds.t2m.attrs
    np.testing.assert_array_equal(ds.t2m.values[0, 1], unpacked)
    np.testing.assert_array_equal(ds.t2m.values[1, 0], unpacked)
    assert np.isnan(ds.t2m.values[0, 0]).all() and np.isnan(ds.t2m.values[1, 1]).all()
    assert (ds.valid_time.values[[0, 1], [1, 0]] ==
            np.datetime64("1995-07-14T12:00", "ns")).all()
    # point= is points=, as the command's --point.
    one = coll.extract("t2m", point=(-100.5, 40.25), run="all", units="degC")
    cell = (int(np.nonzero(original.latitude.values == 40.25)[0][0]),
            int(np.nonzero(original.longitude.values == -100.5)[0][0]))
    np.testing.assert_allclose(one.t2m.values[:, 0, 0], unpacked[cell] - 273.15, rtol=1e-12)
    np.testing.assert_array_equal(one.lead_time.values[:, 0] / np.timedelta64(1, "h"), [6, 0])


# ---- errors ----

def test_errors_name_what_is_wrong(an_store, runs_store):
    with pytest.raises(gridstore.NotFoundError,
                       match=r"no collection 'ecmf/ens' in the store \(it has 'ecmf/an'\)"):
        an_store.open_collection("ecmf/ens")
    with pytest.raises(gridstore.NotFoundError, match="no collection 'nope'"):
        xr.open_dataset(an_store, engine="gridstore", collection="nope")
    coll = runs_store.open_collection("test/ens")
    nearest = (r"collection 'test/ens' has no run at 2017-01-01T06:00:00Z \(the nearest are "
               r"2017-01-01T00:00:00Z and 2017-01-01T12:00:00Z\)")
    with pytest.raises(gridstore.NotFoundError, match=nearest):
        coll.extract("t", points=(9, 51), run="2017-01-01T06:00Z")
    with pytest.raises(gridstore.NotFoundError, match=nearest):
        xr.open_dataset(runs_store, engine="gridstore", collection="test/ens",
                        runs="2017-01-01T06:00Z")
    with pytest.raises(KeyError):  # NotFoundError is a KeyError
        coll.extract("t", points=(9, 51), run="2016-12-31T00:00Z")
    with pytest.raises(gridstore.NotFoundError,
                       match=r"run 2017-01-02T00:00:00Z of collection 'test/ens' has no member "
                             r"4 \(it has 0,1,2,3\)"):
        coll.extract("t", points=(9, 51), member=[1, 4])
    with pytest.raises(gridstore.NotFoundError, match=r"has no member 7 in the runs chosen"):
        coll.to_xarray(members=[7])
    with pytest.raises(gridstore.InvalidArgumentError,
                       match="a statistic over 1 member of run .*: choose at least two members"):
        coll.extract("t", points=(9, 51), member=2, stat="mean")
    with pytest.raises(gridstore.InvalidArgumentError, match="prob>"):
        coll.extract("t", points=(9, 51), stat="prob>")
    with pytest.raises(gridstore.InvalidArgumentError, match="stat names no statistic"):
        coll.extract("t", points=(9, 51), stat="")
    with pytest.raises(gridstore.OutOfRangeError, match="beyond every run"):
        coll.extract("t", points=(9, 51), lead="240h")
    with pytest.raises(gridstore.InvalidArgumentError, match="is deterministic"):
        runs_store.open_collection("test/det").extract("t", points=(9, 51), stat="mean")
    with pytest.raises(ValueError, match="dataset=ID or collection=NAME"):
        xr.open_dataset(runs_store, engine="gridstore", collection="test/ens", dataset="x")
