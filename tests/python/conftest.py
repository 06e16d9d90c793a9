"""Fixtures of the Python package's tests: the real files of ../shared/data, one store with every
one of them imported (shared by the session, opened read-only by the tests that only read), and
the `gridstore` command for parity checks.

Environment (set by ctest, tests/CMakeLists.txt): PYTHONPATH (the build's python folder),
GRIDSTORE_TEST_DATA (the real files), GRIDSTORE_BINARY (the command)."""

import os
import pathlib
import subprocess

import pytest

import gridstore

DATA = pathlib.Path(os.environ.get("GRIDSTORE_TEST_DATA", "../shared/data"))
FILES = ["tos_O1_2001-2002.nc", "nc4uvt.nc", "era5_1995-07-14T12.nc", "small_theta_colpex.nc",
         "SMALL_total_column_co2.nc", "contour.cdf", "reduced.nc", "sub.nc"]


def pytest_configure(config):
    if not DATA.is_dir():
        raise pytest.UsageError(f"the real files are expected in {DATA} (GRIDSTORE_TEST_DATA)")
    missing = [f for f in FILES if not (DATA / f).is_file()]
    if missing:
        raise pytest.UsageError(f"{DATA} lacks {missing}")


@pytest.fixture(scope="session")
def data_dir():
    return DATA


@pytest.fixture(scope="session")
def binary():
    path = os.environ.get("GRIDSTORE_BINARY")
    if not path or not os.access(path, os.X_OK):
        raise pytest.UsageError("GRIDSTORE_BINARY must name the gridstore command")
    return path


@pytest.fixture(scope="session")
def store_path(tmp_path_factory):
    """A store holding every real file, each as the dataset named like the file."""
    path = tmp_path_factory.mktemp("store") / "gs"
    with gridstore.open(path, read_only=False, create=True) as store:
        for f in FILES:
            store.import_netcdf(DATA / f, f, attributes={"file": f, "size": (DATA / f).stat().st_size})
    return str(path)


@pytest.fixture(scope="session")
def store(store_path):
    """The shared store, read-only."""
    s = gridstore.open(store_path)
    yield s
    s.close()


@pytest.fixture
def writable(tmp_path):
    """An empty store of its own, writable."""
    s = gridstore.open(tmp_path / "w", read_only=False, create=True)
    yield s
    s.close()


def run_cli(binary, store_path, *args):
    result = subprocess.run([binary, "--store", store_path, *args], capture_output=True, text=True)
    if result.returncode != 0:
        raise AssertionError(f"gridstore {' '.join(args)} failed: {result.stderr}")
    return result.stdout
