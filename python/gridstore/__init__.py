"""GridStore from Python: gridded forecast data stored in compressed blocks, read fast.

    import gridstore
    store = gridstore.open("/data/gridstore")               # read-only by default
    store.datasets(where="status = 'DONE'", sort="create_time:desc", limit=5)
    t2m = store.fetch("era5/1995-07-14T12", "t2m", unpack=True)["t2m"]     # numpy, (t, z, x, y)
    series = store.extract("era5/1995-07-14T12", "t2m", points=(-100.5, 40.25))  # xarray

    import xarray as xr
    ds = xr.open_dataset("/data/gridstore", engine="gridstore", dataset="era5/1995-07-14T12")

    ens = store.open_collection("ecmf/ens")                  # a forecast collection
    ens.extract("2t", points=(116.4, 39.9), stat="p10,p50,p90")  # the latest run's percentiles
    xr.open_dataset("/data/gridstore", engine="gridstore", collection="ecmf/ens")  # lazy, all runs

docs/python.md has a walkthrough; help(gridstore.Store) lists every method.
"""

from ._core import __version__
from ._errors import (AbortedError, AlreadyExistsError, DataLossError, FailedPreconditionError,
                      GridStoreError, InternalError, InvalidArgumentError, NotFoundError,
                      OutOfRangeError, ResourceExhaustedError, UnavailableError,
                      UnimplementedError)
from ._collection import Collection
from ._store import Store, open
from ._writer import DatasetWriter


def open_dataset(store, dataset: str, **kwargs):
    """``xr.open_dataset(store, engine="gridstore", dataset=dataset, **kwargs)``: one dataset,
    lazily, CF-decoded as the netCDF4 engine decodes files. `store` is a URI or a Store."""
    from .xarray_backend import open_dataset as _open

    return _open(store, dataset, **kwargs)


def open_datasets(store, where=None, **kwargs):
    """Every dataset matching `where` opened lazily, sharing one store: ``{id: xr.Dataset}``."""
    from .xarray_backend import open_datasets as _open

    return _open(store, where, **kwargs)


__all__ = ["open", "open_dataset", "open_datasets", "Store", "DatasetWriter", "Collection",
           "GridStoreError", "InvalidArgumentError", "NotFoundError", "AlreadyExistsError",
           "FailedPreconditionError", "AbortedError", "OutOfRangeError", "UnimplementedError",
           "InternalError", "UnavailableError", "DataLossError", "ResourceExhaustedError",
           "__version__"]
