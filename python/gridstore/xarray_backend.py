"""The xarray backend: ``xr.open_dataset(uri, engine="gridstore", dataset=ID)``.

Variables are lazy: indexing one turns xarray's indexer into one box fetch of the blocks it
touches. Variables, coordinates and attributes are handed to xarray as the source file had them
(raw values, _FillValue, scale_factor/add_offset, units/calendar), and xarray's own CF decoding
runs on them exactly as for the netCDF4 engine. ``encoding["preferred_chunks"]`` is one block,
so ``chunks={}`` gives block-aligned dask chunks.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, Optional, Tuple, Union

import numpy as np
from xarray.backends import BackendArray, BackendEntrypoint
from xarray.backends.common import AbstractDataStore
from xarray.backends.store import StoreBackendEntrypoint
from xarray.core import indexing
from xarray.core.utils import Frozen, FrozenDict, close_on_error
from xarray.core.variable import Variable

from . import _cf
from ._errors import NotFoundError
from ._store import Store, open as open_store


class GridStoreBackendArray(BackendArray):
    """One variable of one dataset incarnation, read box by box."""

    def __init__(self, store: Store, info: Dict[str, Any], var: Dict[str, Any],
                 allow_incomplete: bool, masked: bool = False):
        self._store = store
        self._dataset = info["id"]
        self._incarnation = info["incarnation"]
        self._var = var
        self._axes = _cf.variable_axes(var)
        self._allow_incomplete = allow_incomplete
        self._masked = masked  # fetch with NaN where missing (see _masks_in_fetch)
        # Reads of more than a few blocks' values neither fill nor use the block cache: they are
        # streaming reads (a plane, a cube), which caching slows by a copy of every frame and
        # which would evict the blocks of the small reads (points, profiles) that the cache is for.
        block_x, block_y = info["layout"]["block"]
        self._cache_max_values = 4 * int(block_x) * int(block_y)
        self.shape = tuple(int(var["shape"][a]) for a in self._axes)
        self.dtype = np.dtype(var["dtype"])

    def __getitem__(self, key: indexing.ExplicitIndexer) -> np.ndarray:
        return indexing.explicit_indexing_adapter(key, self.shape, indexing.IndexingSupport.OUTER,
                                                  self._read)

    def _read(self, key: Tuple) -> np.ndarray:
        origin, shape = [0, 0, 0, 0], [1, 1, 1, 1]
        post = []  # what to take from the fetched box, per dim
        for k, axis, n in zip(key, self._axes, self.shape):
            if isinstance(k, (int, np.integer)):
                i = int(k) + n if k < 0 else int(k)
                start, stop, take = i, i + 1, 0
            elif isinstance(k, slice):
                start, stop, step = k.indices(n)
                if step < 0:  # xarray gives positive steps; keep correct anyway
                    indices = np.arange(start, stop, step)
                    start = int(indices.min()) if indices.size else 0
                    stop = int(indices.max()) + 1 if indices.size else 0
                    take = indices - start
                else:
                    take = slice(None, None, step) if step != 1 else slice(None)
                    stop = max(stop, start)
            else:  # an integer array (outer indexing)
                indices = np.asarray(k, dtype=np.int64)
                indices = np.where(indices < 0, indices + n, indices)
                if indices.size == 0:
                    start, stop, take = 0, 0, indices
                else:
                    start, stop = int(indices.min()), int(indices.max()) + 1
                    take = indices - start
            origin[axis], shape[axis] = start, stop - start
            post.append(take)
        if any(s == 0 for s in shape):  # an empty selection: nothing to read
            box = np.empty([shape[a] for a in self._axes], dtype=self.dtype)
        else:
            try:
                values = shape[0] * shape[1] * shape[2] * shape[3]
                fetched = self._store._core.fetch(self._dataset, [self._var["name"]], origin,
                                                  shape, self._masked, self._allow_incomplete,
                                                  self._incarnation,
                                                  values <= self._cache_max_values)
            except NotFoundError as e:
                raise NotFoundError(
                    f"dataset {self._dataset!r} was deleted after it was opened ({e})") from None
            box = fetched[self._var["name"]].reshape([shape[a] for a in self._axes])
        # Steps, integer arrays (one axis at a time: outer indexing), then integers (drop dims).
        for dim in range(len(post) - 1, -1, -1):
            take = post[dim]
            if isinstance(take, slice):
                if take != slice(None):
                    box = box[(slice(None),) * dim + (take,)]
            elif isinstance(take, np.ndarray):
                box = np.take(box, take, axis=dim)
            else:
                box = box[(slice(None),) * dim + (0,)]
        return box


def _masks_in_fetch(var: Dict[str, Any], attrs: Dict[str, Any]) -> bool:
    """True if the library can mask this variable as xarray's CF decoding would: a float variable
    without packing, whose stored fill value is its _FillValue attribute (none if it has none:
    xarray does not mask netCDF's default fill). The library then writes NaN into the fetched
    buffer itself (no second pass, no mask array, no copy) instead of xarray."""
    if np.dtype(var["dtype"]).kind != "f" or var["packing"] or \
            "scale_factor" in attrs or "add_offset" in attrs:
        return False
    fill, attr = var["fill_value"], attrs.get("_FillValue")
    if attr is None:
        return fill is None or np.isnan(fill)
    if fill is None or np.ndim(attr) != 0:
        return False
    fill_value = np.dtype(var["dtype"]).type(fill)
    attr_value = np.dtype(var["dtype"]).type(attr)
    return bool(fill_value == attr_value or (np.isnan(fill_value) and np.isnan(attr_value)))


class GridStoreDataStore(AbstractDataStore):
    """One dataset of a store, as xarray's decoding machinery reads a file."""

    def __init__(self, store: Store, dataset: str, own_store: bool, allow_incomplete: bool,
                 mask_and_scale: bool):
        self._store = store
        self._own_store = own_store
        self._info = store.info(dataset)
        self._allow_incomplete = allow_incomplete
        self._mask_and_scale = mask_and_scale

    def get_variables(self) -> Frozen:
        info = self._info
        variables: Dict[str, Variable] = {}
        for name, (dims, values, attrs) in _cf.coordinate_variables(info).items():
            variables[name] = Variable(dims, values, attrs)
        for var in info["variables"]:
            attrs = dict(var["attributes"])
            masked = self._mask_and_scale and _masks_in_fetch(var, attrs)
            array = GridStoreBackendArray(self._store, info, var, self._allow_incomplete, masked)
            encoding = {
                "preferred_chunks": _cf.preferred_chunks(info, var),
                "chunksizes": tuple(_cf.preferred_chunks(info, var).values()),
                "dtype": np.dtype(var["dtype"]),
                "source": self._store.uri,
                "original_shape": array.shape,
            }
            if masked:  # where xarray's decoding puts them: it has nothing left to mask
                for key in ("_FillValue", "missing_value"):
                    if key in attrs:
                        encoding[key] = attrs.pop(key)
            variables[var["name"]] = Variable(_cf.variable_dims(var),
                                              indexing.LazilyIndexedArray(array), attrs, encoding)
        return FrozenDict(variables)

    def get_attrs(self) -> Frozen:
        return FrozenDict(_cf.dataset_attributes(self._info))

    def get_dimensions(self) -> Frozen:
        return FrozenDict(_cf.dimension_sizes(self._info))

    def get_encoding(self) -> Dict[str, Any]:
        return {"gridstore": _cf.store_encoding(self._info, self._store.uri)}

    def close(self) -> None:
        if self._own_store:
            self._store.close()


def _as_store(filename_or_obj: Any, store_options: Optional[Dict[str, Any]]) -> Tuple[Store, bool]:
    if isinstance(filename_or_obj, Store):
        return filename_or_obj, False
    if isinstance(filename_or_obj, (str, os.PathLike)):
        return open_store(filename_or_obj, read_only=True, **(store_options or {})), True
    raise TypeError("engine='gridstore' opens a store URI (a path or rados://...) or a "
                    f"gridstore.Store, not {type(filename_or_obj).__name__}")


class GridStoreBackendEntrypoint(BackendEntrypoint):
    """``xr.open_dataset(uri, engine="gridstore", dataset="ID")``: one dataset of a GridStore
    store (a RocksDB folder, rados://... or an open gridstore.Store), lazily, with CF decoding
    as for netCDF files. Extra options: ``allow_incomplete`` (read a dataset still being
    imported) and ``store_options`` (``threads``, ``cache_bytes``)."""

    description = "Datasets of a GridStore store (gridded forecast runs, block-compressed)"
    url = "https://github.com/gridstore/gridstore/blob/main/docs/python.md"
    open_dataset_parameters = ("filename_or_obj", "dataset", "mask_and_scale", "decode_times",
                               "concat_characters", "decode_coords", "drop_variables",
                               "use_cftime", "decode_timedelta", "allow_incomplete",
                               "store_options")

    def open_dataset(  # type: ignore[override]
        self,
        filename_or_obj: Union[str, os.PathLike, Store],
        *,
        dataset: Optional[str] = None,
        mask_and_scale: bool = True,
        decode_times: bool = True,
        concat_characters: bool = True,
        decode_coords: Union[bool, str] = True,
        drop_variables: Union[str, Iterable[str], None] = None,
        use_cftime: Optional[bool] = None,
        decode_timedelta: Optional[bool] = None,
        allow_incomplete: bool = False,
        store_options: Optional[Dict[str, Any]] = None,
    ):
        store, own = _as_store(filename_or_obj, store_options)
        if dataset is None:
            ids = store.datasets(limit=11)
            if own:
                store.close()
            listed = ", ".join(map(repr, ids[:10])) + (", ..." if len(ids) > 10 else "")
            raise ValueError(f"engine='gridstore' needs dataset=ID: store {store.uri!r} holds "
                             f"{listed or 'no dataset'} (gridstore.open(uri).datasets(where=...) "
                             "finds them)")
        with close_on_error(store):
            data_store = GridStoreDataStore(store, dataset, own, allow_incomplete,
                                            bool(mask_and_scale))
            return StoreBackendEntrypoint().open_dataset(
                data_store, mask_and_scale=mask_and_scale, decode_times=decode_times,
                concat_characters=concat_characters, decode_coords=decode_coords,
                drop_variables=drop_variables, use_cftime=use_cftime,
                decode_timedelta=decode_timedelta)

    def guess_can_open(self, filename_or_obj: Any) -> bool:
        if isinstance(filename_or_obj, Store):
            return True
        if not isinstance(filename_or_obj, (str, os.PathLike)):
            return False
        path = os.fspath(filename_or_obj)
        if path.startswith("rados://"):
            return True
        # A RocksDB folder that GridStore made: its tables are the column families meta and data.
        try:
            options = sorted((n for n in os.listdir(path) if n.startswith("OPTIONS-")),
                             key=lambda n: int(n[len("OPTIONS-"):] or 0))
            if not options:
                return False
            with open(os.path.join(path, options[-1]), errors="replace") as f:
                text = f.read(1 << 20)
            return '[CFOptions "meta"]' in text and '[CFOptions "data"]' in text
        except (OSError, ValueError):
            return False


def open_dataset(store: Union[str, os.PathLike, Store], dataset: str, **kwargs: Any):
    """``xr.open_dataset(store, engine="gridstore", dataset=dataset, **kwargs)``."""
    import xarray as xr

    return xr.open_dataset(store, engine="gridstore", dataset=dataset, **kwargs)


def open_datasets(store: Union[str, os.PathLike, Store], where: Optional[str] = None,
                  **kwargs: Any) -> Dict[str, Any]:
    """Every dataset matching `where` (Store.datasets), opened lazily: ``{id: xr.Dataset}``.
    The datasets share one open store."""
    own = not isinstance(store, Store)
    s = open_store(store) if own else store
    return {i: open_dataset(s, i, **kwargs) for i in s.datasets(where)}
