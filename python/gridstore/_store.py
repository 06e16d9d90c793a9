"""gridstore.open and Store: a GridStore store from Python."""

from __future__ import annotations

import os
import warnings
from typing import (TYPE_CHECKING, Any, Dict, Iterable, List, Mapping, Optional, Sequence,
                    Tuple, Union)

import numpy as np

from . import _core
from ._errors import (FailedPreconditionError, InvalidArgumentError, NotFoundError,
                      OutOfRangeError)

if TYPE_CHECKING:  # pragma: no cover
    import xarray

    from ._collection import Collection
    from ._writer import DatasetWriter

_DEFAULT_CACHE_BYTES = 256 << 20


def open(  # noqa: A001 (the package's documented name)
    uri: Union[str, os.PathLike],
    read_only: bool = True,
    *,
    create: bool = False,
    threads: int = 0,
    cache_bytes: int = _DEFAULT_CACHE_BYTES,
) -> "Store":
    """Opens the store at `uri`.

    uri: a directory (RocksDB, the embedded default), ``file://PATH``, ``memory://``, or
        ``rados://POOL?conf=/etc/ceph/ceph.conf[&id=CLIENT][&namespace=NS]`` (Ceph RADOS).
    read_only: open for reading only (the default). Several processes may read a RocksDB store
        while one writes it; writing needs ``read_only=False``.
    create: create the store if it does not exist (needs ``read_only=False``).
    threads: worker threads for decompression and compression; 0 means one per core.
    cache_bytes: the budget of the cache of decompressed blocks; 0 disables it.

    Raises NotFoundError (a KeyError) if there is no store and not `create`,
    FailedPreconditionError if the folder is not a GridStore store or another process writes it,
    InvalidArgumentError for a bad URI. Use it as a context manager to close it::

        with gridstore.open("/data/gridstore") as store:
            t2m = store.fetch("era5/1995-07-14T12", "t2m", unpack=True)["t2m"]
    """
    if create and read_only:
        raise ValueError("gridstore.open: create=True needs read_only=False")
    return Store(_core.open(os.fspath(uri), read_only, create, threads, cache_bytes))


def _box(value: Optional[Sequence[int]], name: str) -> Optional[List[int]]:
    if value is None:
        return None
    items = list(value)
    if len(items) != 4 or not all(isinstance(v, (int, np.integer)) for v in items):
        raise InvalidArgumentError(
            f"{name} must be 4 integers over (t, z, x, y), not {value!r}")
    return [int(v) for v in items]


def _block(value: Optional[Sequence[int]]) -> Optional[Tuple[int, int]]:
    if value is None:
        return None
    items = list(value)
    if len(items) != 2:
        raise InvalidArgumentError(f"block must be (x, y), not {value!r}")
    return int(items[0]), int(items[1])


def _paths(value: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]]) -> List[str]:
    if isinstance(value, (str, os.PathLike)):
        return [os.fspath(value)]
    paths = [os.fspath(p) for p in value]
    if not paths:
        raise InvalidArgumentError("no file given to import")
    return paths


def _names(value: Union[None, str, Iterable[str]]) -> Optional[List[str]]:
    """None (every variable), a name, or names; an empty list is refused as the command refuses
    `--variables ''` (issue 29, 5: one rule), since it is a mistake, not "all"."""
    if value is None:
        return None
    if isinstance(value, str):
        if not value:
            raise InvalidArgumentError("variables is empty: name one or more, or pass None for "
                                       "every variable")
        return [value]
    names = [str(v) for v in value]
    if not names:
        raise InvalidArgumentError("variables is empty: name one or more, or pass None for "
                                   "every variable")
    return names


def _keep(value: Optional[Mapping[str, int]], what: str) -> Dict[str, int]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidArgumentError(f"{what} must map variable names to N, not {value!r}")
    out = {}
    for name, n in value.items():
        if isinstance(n, bool) or not isinstance(n, int):
            raise InvalidArgumentError(f"{what}[{name!r}] must be an int, not {n!r}")
        out[str(name)] = n
    return out


class Store:
    """An open store. Safe to use from many threads at once: every read and write releases the
    GIL while the library works, and fetches run in parallel. Close it (or use ``with``) to
    release the store; arrays already fetched stay valid."""

    def __init__(self, core: "_core.Store"):
        self._core = core

    # ---- life cycle ----

    @property
    def uri(self) -> str:
        """The URI the store was opened with."""
        return self._core.uri

    @property
    def closed(self) -> bool:
        return self._core.closed

    @property
    def read_only(self) -> bool:
        return self._core.read_only

    def close(self) -> None:
        """Releases the store. Fetches running in other threads finish first."""
        self._core.close()

    def refresh(self) -> None:
        """Shows what other processes wrote since the store was opened (new datasets, steps of a
        run completed meanwhile). A read-only store sees the store as it was when opened, until
        this call; a writable one always sees everything, and this does nothing. info, fetch and
        extract call it themselves, once, before they raise NotFoundError, OutOfRangeError or
        FailedPreconditionError (a dataset or step another process may have written since).
        Datasets opened with xarray before keep the meta they were opened with."""
        self._core.refresh()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "closed" if self.closed else ("read-only" if self.read_only else "read-write")
        return f"<gridstore.Store {self.uri!r} ({state})>"

    # ---- finding datasets ----

    def datasets(
        self,
        where: Optional[str] = None,
        sort: Union[None, str, Sequence[str]] = None,
        limit: Optional[int] = None,
        offset: int = 0,
    ) -> List[str]:
        """The ids of the datasets that match `where`, in `sort` order.

        where: a condition on dataset attributes in the language of ``gridstore query --where``
            (docs/meta-queries.md), e.g. ``"status = 'DONE' and create_time > now - 1 day and
            source in ('ECMWF', 'NMC')"``; None matches every dataset.
        sort: ``"FIELD[:asc|:desc]"`` or a list of them (``"create_time:desc"``); ties and the
            default order by id.
        limit: at most this many ids (None: all); offset: skip this many first.

        Raises InvalidArgumentError (a ValueError) for a syntax error, with a caret under it.
        """
        if isinstance(sort, (list, tuple)):
            sort = ",".join(sort)
        if limit is not None and limit < 0:
            raise InvalidArgumentError(f"limit must be >= 0 or None, not {limit}")
        return self._core.datasets(where, sort, -1 if limit is None else int(limit), int(offset))

    def info(self, id: str) -> Dict[str, Any]:
        """What dataset `id` holds: ``{"id", "status", "attributes", "variables",
        "coordinates", "layout", "incarnation", "generation"}``, and ``"series_layout"``
        (steps, tile, levels, frame_points, ready, held_steps: the leading steps a growing
        run's series blocks hold, None when they hold every step) if it has one. Each variable is a dict with
        ``name``, ``dtype``, ``shape`` (t, z, x, y), ``dimensions`` (the source's name of each of
        the four axes, "" where it had none), ``fill_value``, ``packing`` (scale_factor,
        add_offset, dtype) or None, ``missing_values`` and ``attributes``; each coordinate has
        ``name``, ``dimensions``, ``shape``, ``dtype``, ``values`` (a numpy array) and
        ``attributes``. Attribute values are str, bool, or numpy scalars/arrays of their type.

        Raises NotFoundError (a KeyError) if there is no such dataset.
        """
        return self._fresh(lambda: self._core.info(id))

    def _fresh(self, call: Any) -> Any:
        """`call()`; on a read-only store, once more after refresh() if it failed in a way another
        process's writes since the open may cure (a dataset or step not there yet), so that a
        polling reader sees a run's new steps without knowing about refresh()."""
        try:
            return call()
        except (NotFoundError, OutOfRangeError, FailedPreconditionError):
            if self._core.closed or not self._core.read_only:
                raise
            self.refresh()
            return call()

    # ---- reading ----

    def fetch(
        self,
        id: str,
        variables: Union[None, str, Iterable[str]] = None,
        origin: Optional[Sequence[int]] = None,
        shape: Optional[Sequence[int]] = None,
        unpack: bool = False,
        *,
        allow_incomplete: bool = False,
        cache: bool = True,
        format: Optional[str] = None,
    ) -> Union[Dict[str, np.ndarray], bytes]:
        """Reads a 4-D box of variables of dataset `id`, by index.

        variables: a name or names (None: every variable).
        origin, shape: the box over (t, z, x, y); without them each variable is read whole;
            with `origin` only, the box runs to the end of every axis.
        unpack: return floating-point values (stored * scale_factor + add_offset, NaN where the
            value is the fill or a missing value); else values exactly as stored.
        allow_incomplete: read a dataset whose import has not finished (blocks not written yet
            read as the fill value); else that is FailedPreconditionError.
        cache: serve blocks from the store's cache of decompressed blocks and keep the ones
            decoded; False for a large read done once (it then evicts nothing).

        format: "npy", "csv", "json" or "nc" to get the box as the bytes of that file, written
            as ``gridstore fetch --format`` writes it (npy holds one variable); None (default)
            for arrays.

        Returns ``{name: array}``, each array of shape `shape` over (t, z, x, y). The arrays own
        the buffers the library filled (no copy is made). Only the blocks the box touches are
        read, in parallel, without the GIL.

        Raises NotFoundError (KeyError) for an unknown dataset; InvalidArgumentError
        (ValueError) for an unknown variable or a negative origin or empty shape;
        OutOfRangeError (IndexError) for a box outside a variable, naming the variable, axis and
        bound; DataLossError for a damaged block.
        """
        if format is not None:
            return self._fresh(lambda: self._core.fetch_bytes(
                id, _names(variables), _box(origin, "origin"), _box(shape, "shape"),
                bool(unpack), bool(allow_incomplete), bool(cache), str(format)))
        return self._fresh(lambda: self._core.fetch(
            id, _names(variables), _box(origin, "origin"), _box(shape, "shape"), bool(unpack),
            bool(allow_incomplete), 0, bool(cache)))

    def extract(self, id: str, variables: Union[None, str, Iterable[str]] = None, *,
                format: Optional[str] = None,
                **request: Any) -> Union["xarray.Dataset", bytes]:
        """Values at points, in areas or along routes given in longitude/latitude, at times and
        levels given by value, as an ``xarray.Dataset`` laid out as ``gridstore extract --format
        nc`` writes its files (docs/python.md has examples).

        Exactly one feature:
            points=(lon, lat) or [(lon, lat), ...]: the nearest cells (or ``method="bilinear"``);
            bbox=(west, south, east, north): the cells inside (east < west crosses 180);
            polygon="POLYGON((...))": a WKT polygon or multipolygon in lon/lat;
            radius=(lon, lat, km): the cells within km of the centre;
            trajectory="LINESTRING(...)": samples along a route (``LINESTRING Z/M/ZM`` carry each
                vertex's level and time), with ``corridor_width_km=W`` the cells within W/2.
        time: an ISO 8601 time or datetime, a slice(start, stop) (None for an open end), or a list.
        level: a value in the level coordinate's units, a string with its own units ("850hPa"),
            a slice or a list.
        method: "nearest" (default) or "bilinear"; tolerance_km: how far from a curvilinear
            grid's cells a point may lie (0: the local spacing).
        allow_incomplete: as for fetch.
        format: "covjson", "csv", "json" or "nc" to get the bytes ``gridstore extract --format``
            writes (the same writers; nc holds one group of variables, the others named in a
            warning); None (default) for an ``xarray.Dataset``.
        Values are unpacked (scale_factor / add_offset applied, NaN where missing), as in
        every extract output; fetch returns values as stored.

        Raises InvalidArgumentError (ValueError) for a bad request, OutOfRangeError
        (IndexError) for a point, time or level outside the data.
        """
        if format is not None:
            return self._fresh(lambda: self._extract_bytes(id, _names(variables), request,
                                                           str(format)))
        from ._extract import extract

        return self._fresh(lambda: extract(self, id, _names(variables), request))

    def _extract_bytes(self, id: str, variables: Optional[List[str]], request: Dict[str, Any],
                       format: str) -> bytes:
        from ._extract import _request  # the request checked as for a Dataset

        result = self._core.extract_bytes(id, _request(variables or [], request), format)
        if result["left_out"]:
            warnings.warn("left out " + "; ".join(result["left_out"]), stacklevel=4)
        return result["bytes"]

    # ---- forecast collections ----

    def collections(self) -> List[Dict[str, Any]]:
        """The forecast collections in the store (datasets grouped by their ``collection``,
        ``run_time`` and ``member`` attributes, which imports fill: docs/python.md, "Forecast
        collections"), by name, each as ``{"name", "runs", "latest", "incomplete_runs",
        "members", "variables", "steps", "datasets"}``: the runs' reference times
        (datetime64[ms], oldest first), the newest complete run (or None), the runs still
        arriving, the member numbers (int64; empty for a deterministic model), the variables,
        every lead time of any run (timedelta64[ms]) and the number of datasets. The fields of
        ``gridstore collections --json``, typed for numpy and xarray.

        A dataset whose run_time or member attribute is not an integer is left out, said in a
        UserWarning."""
        from ._collection import summary

        result = self._fresh(lambda: self._core.collections())
        if result["left_out"]:
            warnings.warn("left out " + "; ".join(result["left_out"]), stacklevel=2)
        return [summary(c) for c in result["collections"]]

    def open_collection(self, name: str) -> "Collection":
        """The forecast collection `name` ("ecmf/ens"): its runs, members and variables, its
        ``extract`` (the library's collection query) and ``to_xarray`` (the whole collection as
        one lazy Dataset). NotFoundError (a KeyError) naming the collections there are if there
        is no such collection."""
        from ._collection import Collection

        return Collection(self, name)

    # ---- writing ----

    def import_netcdf(
        self,
        path: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]],
        dataset: str,
        variables: Union[None, str, Iterable[str]] = None,
        *,
        attributes: Optional[Mapping[str, Any]] = None,
        overwrite: bool = False,
        block: Optional[Sequence[int]] = None,
        codec: Optional[str] = None,
        frame_rows: Optional[int] = None,
        keep_bits: Optional[Mapping[str, int]] = None,
        keep_digits: Optional[Mapping[str, int]] = None,
        collection: Optional[str] = None,
        run: Any = None,
    ) -> Dict[str, Any]:
        """Imports a NetCDF file as dataset `dataset`, as ``gridstore import`` does; a list of
        files split along time (one per month, year or step) makes one dataset, in time order.

        variables: the variables to import (None: every gridded one); attributes: extra dataset
        attributes (they win over the file's); overwrite: replace an existing dataset (it stays
        readable until the new one is whole); block: (x, y) block shape (default 64x128; 256x256 on
        a rados:// store); codec: "shuffle-zstd:3" (default), "zstd:LEVEL" or "none"; frame_rows:
        rows per independently compressed frame (default 16); keep_bits / keep_digits: lossy
        precision, {variable: N}, rounding float values to N mantissa bits (netCDF-C's BitRound) or
        N significant digits (netCDF-C's Granular BitRound) before compression, as ``gridstore
        import --keep-bits/--keep-digits`` (integer and packed variables are refused); collection,
        run: the forecast collection the dataset is a run of ("ncep/gfs") and the run's reference
        time (ISO or datetime; default the file's forecast_reference_time), as ``gridstore import
        --collection/--run`` (docs/python.md, "Forecast collections").

        Returns a summary: ``{"dataset", "datasets", "variables", "planes", "raw_bytes",
        "stored_bytes", "seconds", "notes"}``; `notes` says what was skipped and why. On failure
        nothing of the import remains. Raises AlreadyExistsError if the dataset exists and not
        `overwrite`.
        """
        from ._collection import run_spec

        paths = _paths(path)
        return self._core.import_file(paths[0], dataset, "netcdf", _names(variables) or [],
                                      dict(attributes or {}), bool(overwrite), _block(block),
                                      codec, frame_rows, False, paths[1:],
                                      keep_bits=_keep(keep_bits, "keep_bits"),
                                      keep_digits=_keep(keep_digits, "keep_digits"),
                                      collection=collection or "", run_time=run_spec(run))

    def import_grib(
        self,
        path: Union[str, os.PathLike, Sequence[Union[str, os.PathLike]]],
        dataset: str,
        *,
        attributes: Optional[Mapping[str, Any]] = None,
        overwrite: bool = False,
        type: str = "float32",
        block: Optional[Sequence[int]] = None,
        codec: Optional[str] = None,
        frame_rows: Optional[int] = None,
        append: bool = False,
        finish: bool = False,
        expected_steps: int = 0,
        collection: Optional[str] = None,
        run: Any = None,
    ) -> Dict[str, Any]:
        """Imports GRIB files (edition 1 or 2, read with ecCodes) as dataset `dataset`, as
        ``gridstore import`` does (docs/usage-import.md, "GRIB", has the mapping: variables by
        shortName and level type, validity times, levels, latitude/longitude, the grid
        mapping). An ensemble makes one dataset per member, ``<dataset>/m00``, ``/m01``...
        (the summary's "datasets"); every dataset joins its forecast collection ("ecmf/ens",
        from the centre and the kind of data; `collection` and `run` name others).

        path: a file, or a list of files that make one dataset (a run, one file per step).
        type: "float32" (default) or "float64" (ecCodes' doubles as they are).
        append: add the files' steps to the run `dataset` (created if absent); its complete
        steps are readable while it grows (status "INGESTING"). finish: then mark it "DONE";
        expected_steps: mark it "DONE" once that many steps are complete for every variable.
        The other arguments are as for import_netcdf; the summary adds "status", "steps" and
        "complete_steps". Raises InvalidArgumentError for a grid without fixed rows (reduced
        Gaussian...), fields on different grids or duplicate fields, FailedPreconditionError for
        an append that does not fit the run (another run, grid or levels; a step before the last
        one; a step already complete), DataLossError for a truncated file.
        """
        from ._collection import run_spec

        if type not in ("float32", "float64"):
            raise InvalidArgumentError(f"type must be 'float32' or 'float64', not {type!r}")
        paths = _paths(path)
        return self._core.import_file(paths[0], dataset, "grib", [],
                                      dict(attributes or {}), bool(overwrite), _block(block),
                                      codec, frame_rows, type == "float64", paths[1:],
                                      bool(append), bool(finish), int(expected_steps),
                                      collection=collection or "", run_time=run_spec(run))

    def create_dataset(
        self,
        id: str,
        variables: Mapping[str, Mapping[str, Any]],
        *,
        coordinates: Optional[Mapping[str, Any]] = None,
        attributes: Optional[Mapping[str, Any]] = None,
        block: Optional[Sequence[int]] = None,
        codec: str = "shuffle-zstd:3",
        frame_rows: int = 16,
        overwrite: bool = False,
    ) -> "DatasetWriter":
        """Creates dataset `id` from a description and returns its writer; see DatasetWriter.

        variables: ``{name: {"dims": ("time", "lat", "lon"), "shape": (24, 180, 360),
            "dtype": "float32", "fill_value": nan, "attributes": {"units": "K"}}}`` with 2 to 4
            dims, the last two the plane (x, y); with 3, a leading dim named like a level
            ("level", "lev", "plev", "z", "height", "depth") or given ``"axes": "zxy"`` is z,
            else t. Packed variables add ``"scale_factor"`` / ``"add_offset"``.
        coordinates: ``{name: values}`` or ``{name: {"dims": (...), "values": array,
            "attributes": {...}}}``; a 1-D coordinate's dim defaults to its own name.
        attributes: dataset attributes (searchable by `datasets(where=...)`).
        block: (x, y) block shape; None: the store's default, as imports have it (64x128;
            256x256 on a rados:// store).
        overwrite: replace an existing dataset when the writer finishes (until then readers
            see the old one); else an existing id is AlreadyExistsError.

        The dataset is INIT (read only with allow_incomplete) until the writer finishes::

            with store.create_dataset("model/2026-11-25T00", {"t2m": {...}}) as w:
                w.write("t2m", values)        # the whole array, or planes / steps of it
        """
        from ._writer import create_dataset

        return create_dataset(self, id, variables, coordinates, attributes, block, codec,
                              frame_rows, overwrite)

    def delete(self, id: str) -> None:
        """Removes dataset `id` and every block of it. NotFoundError if there is none."""
        self._core.delete(id)

    def verify(self, id: str = "") -> Dict[str, Any]:
        """Reads and checks every block of dataset `id` (all datasets if empty): ``{"ok",
        "datasets", "blocks", "bytes_read", "problems": [(dataset, message)], ...}``."""
        return self._core.verify(id)

    def relayout(self, id: str, add: Optional[str] = None, drop: Optional[str] = None,
                 steps: Union[int, str, None] = None, tile: Optional[Tuple[int, int]] = None,
                 levels: int = 1, frame_points: Optional[int] = None) -> Dict[str, Any]:
        """Adds (``add="series"``) or drops (``drop="series"``) dataset `id`'s series layout: a
        second, time-major copy in blocks of `steps` steps over `tile` points and `levels`
        levels, which fetches pick for point and small-area time series and, with `levels`
        above 1, for time-height sections (``gridstore relayout``). A side left None is chosen
        for the dataset (256 steps x 16x16 points, frames of 16, up to 256 steps; all the steps
        over fewer points for longer series); ``steps="all"`` puts the whole series in one block.
        Adding is resumable and returns ``{"blocks_written", "blocks_resumed", "raw_bytes",
        "stored_bytes", "already_ready", "layout"}``, `layout` the sides used: ``{"steps",
        "tile", "levels", "frame_points"}``."""
        if (add is None) == (drop is None) or (add or drop) != "series":
            raise ValueError('give exactly one of add="series" and drop="series"')
        if isinstance(steps, str) and steps != "all":
            raise InvalidArgumentError(f'steps must be a count, "all" or None, not {steps!r}')
        steps_value = -1 if steps == "all" else (steps or 0)  # -1: the whole series, 0: chosen
        return self._core.relayout(id, drop is not None, steps_value, tuple(tile or (0, 0)),
                                   levels, frame_points or 0)

    def flush(self) -> None:
        """Makes every write durable and settles the store (the commands do this on exit)."""
        self._core.flush()

    # ---- xarray ----

    def open_dataset(self, id: str, **kwargs: Any) -> "xarray.Dataset":
        """``xr.open_dataset(store, engine="gridstore", dataset=id, **kwargs)`` on this store:
        lazy variables, CF decoding as the netCDF4 engine does it."""
        import xarray as xr

        return xr.open_dataset(self, engine="gridstore", dataset=id, **kwargs)
