"""The xarray backend: ``xr.open_dataset(uri, engine="gridstore", dataset=ID)``.

Variables are lazy: indexing one turns xarray's indexer into one box fetch of the blocks it
touches. Variables, coordinates and attributes are handed to xarray as the source file had them
(raw values, _FillValue, scale_factor/add_offset, units/calendar), and xarray's own CF decoding
runs on them exactly as for the netCDF4 engine. ``encoding["preferred_chunks"]`` is one block,
so ``chunks={}`` gives block-aligned dask chunks.

``collection=NAME`` instead of ``dataset=`` opens a forecast collection: its runs and members
side by side over (run, member, step, ...), each (run, member) dataset read lazily the same way.
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, Dict, Iterable, List, Optional, Tuple, Union

import numpy as np
from xarray.backends import BackendArray, BackendEntrypoint
from xarray.backends.common import AbstractDataStore
from xarray.backends.store import StoreBackendEntrypoint
from xarray.core import indexing
from xarray.core.utils import Frozen, FrozenDict, close_on_error
from xarray.core.variable import Variable

from . import _cf
from ._errors import InvalidArgumentError, NotFoundError
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


# ---- forecast collections: xr.open_dataset(uri, engine="gridstore", collection=NAME) ----

def _outer_index(k: Any, n: int) -> Tuple[np.ndarray, bool]:
    """One dim of an OUTER indexer as (indices, drop the dim)."""
    if isinstance(k, (int, np.integer)):
        i = int(k) + n if k < 0 else int(k)
        return np.array([i], dtype=np.int64), True
    if isinstance(k, slice):
        return np.arange(*k.indices(n), dtype=np.int64), False
    indices = np.asarray(k, dtype=np.int64)
    return np.where(indices < 0, indices + n, indices), False


class CollectionBackendArray(BackendArray):
    """One variable of a forecast collection over (run, [member], step, the dataset's own level
    and horizontal dims): each (run, member) is a dataset, read box by box as
    GridStoreBackendArray reads one, NaN where a run lacks a member, a step or a level."""

    def __init__(self, store: Store, name: str, reads: List[List[Optional[Tuple]]],
                 t_maps: List[np.ndarray], z_maps: List[Optional[np.ndarray]],
                 axes: List[int], extents: List[int], has_members: bool, dtype: np.dtype,
                 cache_max_values: int):
        self._store = store
        self._name = name
        # reads[run][member]: (dataset id, incarnation, allow_incomplete, time extent) or None.
        self._reads = reads
        self._t_maps = t_maps  # per run: step -> the dataset's t index (-1: none)
        self._z_maps = z_maps  # per run: level -> the dataset's z index (-1: none), or None
        self._axes = axes      # the GridStore axes after run/member: 0 (step), then z, x, y
        self._has_members = has_members
        self._cache_max_values = cache_max_values
        n_members = len(reads[0]) if reads else 0
        self.shape = (len(reads),) + ((n_members,) if has_members else ()) + tuple(extents)
        self.dtype = np.dtype(dtype)

    def __getitem__(self, key: indexing.ExplicitIndexer) -> np.ndarray:
        return indexing.explicit_indexing_adapter(key, self.shape, indexing.IndexingSupport.OUTER,
                                                  self._read)

    def _read(self, key: Tuple) -> np.ndarray:
        parts = [_outer_index(k, n) for k, n in zip(key, self.shape)]
        runs = parts[0][0]
        members = parts[1][0] if self._has_members else np.zeros(1, dtype=np.int64)
        own = parts[2:] if self._has_members else parts[1:]
        # Every GridStore axis t, z, x, y: the indices asked (one index 0 where absent).
        sel = [np.zeros(1, dtype=np.int64)] * 4
        for axis, (indices, _) in zip(self._axes, own):
            sel[axis] = indices
        out = np.full((len(runs), len(members)) + tuple(len(s) for s in sel), np.nan,
                      dtype=self.dtype)
        tasks = []
        for i, r in enumerate(runs):
            t_of = self._t_maps[r][sel[0]] if sel[0].size else sel[0]
            z_of = sel[1] if self._z_maps[r] is None or 1 not in self._axes \
                else self._z_maps[r][sel[1]]
            for j, m in enumerate(members):
                read = self._reads[r][m]
                if read is None:
                    continue
                t_valid = np.nonzero((t_of >= 0) & (t_of < read[3]))[0]
                z_valid = np.nonzero(z_of >= 0)[0]
                if t_valid.size == 0 or z_valid.size == 0 or sel[2].size == 0 or \
                        sel[3].size == 0:
                    continue
                index = [t_of[t_valid], z_of[z_valid], sel[2], sel[3]]
                tasks.append((i, j, read, t_valid, z_valid, index))
        if len(tasks) > 1:
            from concurrent.futures import ThreadPoolExecutor

            # Fetches release the GIL: the datasets are read in parallel.
            with ThreadPoolExecutor(max_workers=min(8, len(tasks))) as pool:
                boxes = list(pool.map(self._fetch, tasks))
        else:
            boxes = [self._fetch(t) for t in tasks]
        for (i, j, _, t_valid, z_valid, _), box in zip(tasks, boxes):
            out[i, j][np.ix_(t_valid, z_valid, np.arange(sel[2].size),
                             np.arange(sel[3].size))] = box
        # (run, member, t, z, x, y) -> the array's dims, then integers drop theirs.
        shape = [len(runs)] + ([len(members)] if self._has_members else []) + \
            [len(sel[a]) for a in self._axes]
        out = out.reshape(shape)
        drop = tuple(0 if dropped else slice(None) for _, dropped in parts)
        return out[drop]

    def _fetch(self, task: Tuple) -> np.ndarray:
        _, _, (dataset, incarnation, allow_incomplete, _), _, _, index = task
        origin = [int(ix.min()) for ix in index]
        shape = [int(ix.max()) - o + 1 for ix, o in zip(index, origin)]
        values = shape[0] * shape[1] * shape[2] * shape[3]
        try:
            fetched = self._store._core.fetch(dataset, [self._name], origin, shape, True,
                                              allow_incomplete, incarnation,
                                              values <= self._cache_max_values)
        except NotFoundError as e:
            raise NotFoundError(
                f"dataset {dataset!r} was deleted after it was opened ({e})") from None
        box = fetched[self._name].reshape(shape)
        return box[np.ix_(*[ix - o for ix, o in zip(index, origin)])]


def _union(values: List[np.ndarray]) -> np.ndarray:
    """The values of every run's level axis, in the newest run's order (ascending or
    descending)."""
    newest = values[-1]
    if all(v.shape == newest.shape and np.array_equal(v, newest) for v in values):
        return newest
    union = np.unique(np.concatenate(values))
    return union[::-1] if newest.size > 1 and newest[0] > newest[-1] else union


def _position(of: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Where each of `of` is in `values` (-1 if absent)."""
    out = np.full(len(of), -1, dtype=np.int64)
    for i, v in enumerate(of):
        hit = np.nonzero(values == v)[0]
        if hit.size:
            out[i] = hit[0]
    return out


class CollectionDataStore(AbstractDataStore):
    """A forecast collection as one Dataset: every (run, member) dataset side by side, over
    (run, [member], step, the datasets' own level and horizontal dims)."""

    def __init__(self, store: Store, name: str, own_store: bool, runs: Any, members: Any):
        from ._collection import member_spec, ms_to_datetime64, run_spec

        self._store = store
        self._own_store = own_store
        spec = run_spec(runs) or "all"
        c = store._fresh(lambda: store._core.collection(name, spec, True))
        self._collection = c
        runs_info = c["runs"]
        run_ms = np.array([r["run_time_ms"] for r in runs_info], dtype=np.int64)
        has_members = bool(c["has_members"])
        every = sorted({m["member"] for r in runs_info for m in r["members"]
                        if m["member"] is not None})
        wanted = member_spec(members)
        if wanted in ("", "all"):
            chosen = every
        elif not has_members:
            raise InvalidArgumentError(f"collection {name!r} is deterministic: it has no "
                                       "members to choose")
        else:
            chosen = []
            for item in wanted.split(","):
                try:
                    m = int(item.strip())
                except ValueError:
                    raise InvalidArgumentError(
                        f"member {item.strip()!r} is not a number (members='all', or a list "
                        "such as [0, 1, 5])") from None
                if m not in every:
                    raise NotFoundError(
                        f"collection {name!r} has no member {m} in the runs chosen (it has "
                        f"{','.join(str(x) for x in every)})")
                chosen.append(m)
        entries: List[Optional[int]] = chosen if has_members else [None]
        newest = runs_info[-1]["meta"]
        self._info = newest
        names = [v for v in c["variables"]
                 if any(v in {x["name"] for x in r["meta"]["variables"]} for r in runs_info)]
        by_run = [{v["name"]: v for v in r["meta"]["variables"]} for r in runs_info]
        t_dims = {v["dimensions"][0] for r in runs_info for v in r["meta"]["variables"]
                  if v["dimensions"][0]}
        # The lead times of each variable in each run; steps are their union.
        leads: Dict[str, List[Optional[np.ndarray]]] = {}
        self._notes: List[str] = []
        for v in names:
            leads[v] = []
            for r, info in zip(runs_info, by_run):
                times = r["valid_times_ms"].get(v) if v in info else None
                if isinstance(times, str):
                    self._notes.append(f"{v!r} of run {r['meta']['id']!r}: {times}")
                    times = None
                leads[v].append(None if times is None
                                else np.asarray(times, dtype=np.int64) - r["run_time_ms"])
        names = [v for v in names if any(x is not None for x in leads[v])]
        all_leads = [x for v in names for x in leads[v] if x is not None]
        steps = np.unique(np.concatenate(all_leads)) if all_leads else np.zeros(0, np.int64)
        # Level axes: the union of every run's levels (by value) per level dimension.
        level_values: Dict[str, List[Tuple[int, np.ndarray]]] = {}
        for v in names:
            for r, info in zip(runs_info, by_run):
                var = info.get(v)
                if var is None or 1 not in _cf.variable_axes(var):
                    continue
                dim = _cf.variable_dims(var)[_cf.variable_axes(var).index(1)]
                coord = next((x for x in r["meta"]["coordinates"]
                              if x["name"] == dim and tuple(x["dimensions"]) == (dim,)), None)
                values = (np.asarray(coord["values"]).ravel() if coord is not None
                          else np.arange(int(var["shape"][1])))
                level_values.setdefault(dim, []).append((r["run_time_ms"], values))
        levels: Dict[str, np.ndarray] = {}
        level_of_run: Dict[str, Dict[int, np.ndarray]] = {}
        for dim, pairs in level_values.items():
            per_run: Dict[int, np.ndarray] = {}
            for ms, values in pairs:
                per_run.setdefault(ms, values)
            levels[dim] = _union(list(per_run.values()))
            level_of_run[dim] = per_run
        self._level_changed = {dim for dim, per_run in level_of_run.items()
                               if any(not np.array_equal(x, levels[dim])
                                      for x in per_run.values())}

        block_x, block_y = newest["layout"]["block"]
        cache_max_values = 4 * int(block_x) * int(block_y)
        self._variables: Dict[str, Variable] = {}
        run_dims = ("run", "member") if has_members else ("run",)
        for v in names:
            ref = next(info[v] for info in reversed(by_run) if v in info)
            axes = [a for a in _cf.variable_axes(ref) if a != 0]
            own_dims = [d for a, d in zip(_cf.variable_axes(ref), _cf.variable_dims(ref))
                        if a != 0]
            zdim = own_dims[axes.index(1)] if 1 in axes else None
            extents = [len(steps)] + [len(levels[zdim]) if a == 1 else int(ref["shape"][a])
                                      for a in axes]
            reads, t_maps, z_maps = [], [], []
            for k, (r, info) in enumerate(zip(runs_info, by_run)):
                var = info.get(v)
                run_leads = leads[v][k]
                if var is not None and (int(var["shape"][2]), int(var["shape"][3])) != \
                        (int(ref["shape"][2]), int(ref["shape"][3])):
                    raise InvalidArgumentError(
                        f"collection {name!r}: variable {v!r} of run {r['meta']['id']!r} is on "
                        f"a grid of {var['shape'][2]}x{var['shape'][3]} cells, the newest "
                        f"run's on {ref['shape'][2]}x{ref['shape'][3]}: open the runs apart")
                by_member = {m["member"]: m for m in r["members"]}
                row: List[Optional[Tuple]] = []
                for e in entries:
                    m = by_member.get(e)
                    if var is None or run_leads is None or m is None:
                        row.append(None)
                    else:
                        row.append((m["id"], m["incarnation"], m["status"] != "DONE",
                                    int(m["t_extent"].get(v, 0))))
                reads.append(row)
                t_maps.append(_position(steps, run_leads) if run_leads is not None
                              else np.full(len(steps), -1, dtype=np.int64))
                z_maps.append(_position(levels[zdim], level_of_run[zdim][r["run_time_ms"]])
                              if zdim is not None and r["run_time_ms"] in level_of_run[zdim]
                              else None)
            dtype = np.dtype(ref["dtype"])
            if ref["packing"]:
                dtype = np.dtype(ref["packing"]["dtype"])
            elif dtype.kind != "f":
                dtype = np.dtype("float64")
            array = CollectionBackendArray(store, v, reads, t_maps, z_maps, [0] + axes,
                                           extents, has_members, dtype, cache_max_values)
            attrs = {k: x for k, x in ref["attributes"].items() if k not in _UNPACKED_DROP}
            if ref["packing"] or np.dtype(ref["dtype"]).kind != "f":
                for k in ("valid_range", "valid_min", "valid_max"):
                    attrs.pop(k, None)
            dims = run_dims + ("step",) + tuple(own_dims)
            chunks = {"run": 1, "step": 1}
            if has_members:
                chunks["member"] = 1
            per_axis = {1: 1, 2: int(block_x), 3: int(block_y)}
            for a, d, n in zip(axes, own_dims, extents[1:]):
                chunks[d] = min(per_axis[a], n)
            encoding = {"preferred_chunks": chunks,
                        "chunksizes": tuple(chunks[d] for d in dims),
                        "dtype": dtype, "source": store.uri, "original_shape": array.shape}
            self._variables[v] = Variable(dims, indexing.LazilyIndexedArray(array), attrs,
                                          encoding)

        # Coordinates: the newest run's, less its times (they become run, step, valid_time).
        coords: Dict[str, Variable] = {}
        for cname, (cdims, values, cattrs) in _cf.coordinate_variables(newest).items():
            timelike = " since " in str(cattrs.get("units", "")) or cname in t_dims
            if set(cdims) & t_dims or (not cdims and timelike) or \
                    cname in ("run", "member", "step", "valid_time") or \
                    (set(cdims) & self._level_changed and cname not in self._level_changed):
                continue
            if cname in self._level_changed:
                values = levels[cname]
            coords[cname] = Variable(cdims, values, cattrs)
        run_times = ms_to_datetime64(run_ms).astype("datetime64[ns]")
        coords["run"] = Variable(("run",), run_times,
                                 {"standard_name": "forecast_reference_time",
                                  "long_name": "forecast reference time (run)"})
        if has_members:
            coords["member"] = Variable(("member",), np.asarray(chosen, dtype=np.int64),
                                        {"standard_name": "realization",
                                         "long_name": "ensemble member number"})
        step = steps.astype("timedelta64[ms]").astype("timedelta64[ns]")
        coords["step"] = Variable(("step",), step, {"standard_name": "forecast_period",
                                                    "long_name": "lead time (valid time - run)"})
        coords["valid_time"] = Variable(("run", "step"), run_times[:, None] + step[None, :],
                                        {"standard_name": "time", "long_name": "valid time"})
        # valid_time(run, step) is a coordinate of every variable (xarray reads the CF
        # `coordinates` attribute); names of coordinates left out (times) are dropped from it.
        for var in self._variables.values():
            listed = [n for n in str(var.attrs.get("coordinates", "")).split() if n in coords]
            var.attrs["coordinates"] = " ".join(listed + ["valid_time"])
        self._coords = coords
        self._datasets = {str(np.datetime_as_string(ms_to_datetime64(r["run_time_ms"]), "s")):
                          {m["member"]: m["id"] for m in r["members"]} for r in runs_info}

    def get_variables(self) -> Frozen:
        return FrozenDict({**self._coords, **self._variables})

    def get_attrs(self) -> Frozen:
        attrs = {k: v for k, v in _cf.dataset_attributes(self._info).items()
                 if k not in ("run_time", "member")}
        return FrozenDict(attrs)

    def get_dimensions(self) -> Frozen:
        sizes: Dict[str, int] = {}
        for v in self.get_variables().values():
            sizes.update(dict(zip(v.dims, v.shape)))
        return FrozenDict(sizes)

    def get_encoding(self) -> Dict[str, Any]:
        return {"gridstore": {"uri": self._store.uri, "collection": self._collection["name"],
                              "datasets": self._datasets, "notes": list(self._notes)}}

    def close(self) -> None:
        if self._own_store:
            self._store.close()


# Attributes that no longer apply to values read unpacked (NaN where missing).
_UNPACKED_DROP = ("_FillValue", "missing_value", "scale_factor", "add_offset", "_Unsigned")


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
    imported) and ``store_options`` (``threads``, ``cache_bytes``).

    ``collection="ecmf/ens"`` instead of a dataset opens a forecast collection: every run and
    member side by side, over (run, [member], step, the datasets' level and horizontal dims),
    with coordinates run, member, step and valid_time(run, step); ``runs=`` "all" (default),
    "latest", "latest-N", an ISO time or "ISO/ISO" (a slice of times too), ``members=`` "all"
    (default) or a list. Values are read unpacked (NaN where missing or where a run lacks a
    member, step or level)."""

    description = "Datasets of a GridStore store (gridded forecast runs, block-compressed)"
    url = "https://github.com/gridstore/gridstore/blob/main/docs/python.md"
    open_dataset_parameters = ("filename_or_obj", "dataset", "mask_and_scale", "decode_times",
                               "concat_characters", "decode_coords", "drop_variables",
                               "use_cftime", "decode_timedelta", "allow_incomplete",
                               "store_options", "collection", "runs", "members")

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
        collection: Optional[str] = None,
        runs: Any = "all",
        members: Any = "all",
    ):
        store, own = _as_store(filename_or_obj, store_options)
        if collection is not None:
            if dataset is not None:
                if own:
                    store.close()
                raise ValueError("engine='gridstore' takes dataset=ID or collection=NAME, "
                                 "not both")
            with (close_on_error(store) if own else contextlib.nullcontext()):
                data_store: AbstractDataStore = CollectionDataStore(store, collection, own, runs,
                                                                    members)
                return StoreBackendEntrypoint().open_dataset(
                    data_store, mask_and_scale=mask_and_scale, decode_times=decode_times,
                    concat_characters=concat_characters, decode_coords=decode_coords,
                    drop_variables=drop_variables, use_cftime=use_cftime,
                    decode_timedelta=decode_timedelta)
        if dataset is None:
            ids = store.datasets(limit=11)
            if own:
                store.close()
            listed = ", ".join(map(repr, ids[:10])) + (", ..." if len(ids) > 10 else "")
            raise ValueError(f"engine='gridstore' needs dataset=ID (or collection=NAME): store "
                             f"{store.uri!r} holds "
                             f"{listed or 'no dataset'} (gridstore.open(uri).datasets(where=...) "
                             "finds them)")
        # A Store the caller passed stays open whatever happens (it may serve other datasets).
        with (close_on_error(store) if own else contextlib.nullcontext()):
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
