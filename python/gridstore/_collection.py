"""Forecast collections (gridstore/forecast/, docs/python.md "Forecast collections"): a model or
product ("ecmf/ens") whose runs (reference times) and ensemble members are each one dataset,
grouped by their `collection`, `run_time` and `member` attributes.

Store.collections lists them; Store.open_collection gives a Collection, whose extract asks the
library's collection query (forecast::ExtractCollection, as ``gridstore extract COLLECTION``
does) and whose to_xarray opens the whole collection lazily through the xarray backend.
"""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING, Any, Dict, Iterable, List, Optional, Tuple, Union

import numpy as np

from ._errors import InvalidArgumentError

if TYPE_CHECKING:  # pragma: no cover
    import xarray

    from ._store import Store


def ms_to_datetime64(ms: Any) -> np.ndarray:
    """Milliseconds since 1970 (int64) as datetime64[ms]."""
    return np.asarray(ms, dtype="int64").astype("datetime64[ms]")


def ms_to_timedelta64(ms: Any) -> np.ndarray:
    return np.asarray(ms, dtype="int64").astype("timedelta64[ms]")


def summary(c: Dict[str, Any]) -> Dict[str, Any]:
    """_core's collection as Store.collections describes one (the command's ``collections
    --json`` fields, typed for numpy and xarray)."""
    runs = [r["run_time_ms"] for r in c["runs"]]
    return {
        "name": c["name"],
        "runs": ms_to_datetime64(runs),
        "latest": None if c["latest_ms"] is None else ms_to_datetime64(c["latest_ms"])[()],
        "incomplete_runs": ms_to_datetime64([r["run_time_ms"] for r in c["runs"]
                                             if not r["complete"]]),
        "members": np.asarray(c["members"], dtype="int64"),
        "variables": list(c["variables"]),
        "steps": ms_to_timedelta64(c["leads_ms"]),
        "datasets": int(c["datasets"]),
    }


# ---- the library's spellings of runs, members, times and leads ----

def _time_text(value: Any, what: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (np.datetime64, datetime.datetime, datetime.date)) or \
            type(value).__name__ == "Timestamp":
        return str(np.datetime_as_string(np.datetime64(value, "ms"))) + "Z"
    raise InvalidArgumentError(f"{what}: {value!r} is not a time (an ISO 8601 string, a "
                               "datetime or a numpy.datetime64)")


def run_spec(value: Any) -> str:
    """A run selection as the library's text: "latest", "latest-N", "all", an ISO time, or a
    range "ISO/ISO" (a slice of times; None or ".." for an open end)."""
    if value is None:
        return ""
    if isinstance(value, slice):
        if value.step is not None:
            raise InvalidArgumentError("run: a slice of run times cannot have a step")
        start = ".." if value.start is None else _time_text(value.start, "run")
        stop = ".." if value.stop is None else _time_text(value.stop, "run")
        return f"{start}/{stop}"
    return _time_text(value, "run")


def member_spec(value: Any) -> str:
    """"all", a member number, or several ("0,3,5" or a list)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        raise InvalidArgumentError(f"member: {value!r} is not a member number")
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    items = list(np.asarray(value).ravel())
    if not items:
        raise InvalidArgumentError("member: an empty list selects no member")
    for v in items:
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise InvalidArgumentError(f"member: {v!r} is not a member number")
    return ",".join(str(int(v)) for v in items)


def lead_spec(value: Any) -> str:
    """A lead time: a duration string ("24h", "1d12h"), a timedelta or numpy.timedelta64."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, (np.timedelta64, datetime.timedelta)) or \
            type(value).__name__ == "Timedelta":
        return f"{int(np.timedelta64(value, 'ms').astype('int64'))}ms"
    raise InvalidArgumentError(f"lead: {value!r} is not a duration ('24h', a timedelta)")


def _list_text(value: Union[None, str, Iterable[str]], what: str) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        if not value:
            raise InvalidArgumentError(f"{what} is empty: name one or more, or pass None")
        return value
    items = [str(v) for v in value]
    if not items:
        raise InvalidArgumentError(f"{what} is empty: name one or more, or pass None")
    return ",".join(items)


class Collection:
    """A forecast collection of a store: its runs (reference times), members and variables, as
    the store held them when it was opened (``refresh()`` reads them again).

    - ``extract(...)``: the library's collection query (the same as ``gridstore extract
      COLLECTION``): points or areas from the latest run, several runs, a valid time across runs,
      a lead across runs or the best series, per member or as ensemble statistics;
    - ``to_xarray(runs=, members=)``: the whole collection as one lazy xarray.Dataset over
      (run, member, step, level, y, x), reading only the blocks a selection needs;
    - ``dataset(run, member)``: the one dataset of a run and member, lazily.
    """

    def __init__(self, store: "Store", name: str):
        self._store = store
        self._name = name
        self.refresh()

    def refresh(self) -> None:
        """Reads the collection's runs and members again (after the store's refresh())."""
        core = self._store._fresh(lambda: self._store._core.collection(self._name, "all", False))
        self._core = core
        self._summary = summary(core)

    @property
    def name(self) -> str:
        return self._name

    @property
    def runs(self) -> np.ndarray:
        """Every run's reference time, oldest first (datetime64[ms])."""
        return self._summary["runs"]

    @property
    def latest(self) -> Optional[np.datetime64]:
        """The newest complete run (every member's dataset DONE), or None."""
        return self._summary["latest"]

    @property
    def incomplete_runs(self) -> np.ndarray:
        """The runs still arriving."""
        return self._summary["incomplete_runs"]

    @property
    def members(self) -> np.ndarray:
        """Every member number of any run, ascending (empty for a deterministic model)."""
        return self._summary["members"]

    @property
    def variables(self) -> List[str]:
        return self._summary["variables"]

    @property
    def steps(self) -> np.ndarray:
        """Every lead time (valid - run time) of any run (timedelta64[ms])."""
        return self._summary["steps"]

    @property
    def deterministic(self) -> bool:
        return not self._core["has_members"]

    def _run(self, run: Any) -> Dict[str, Any]:
        c = self._store._fresh(lambda: self._store._core.collection(self._name, run_spec(run),
                                                                    False))
        if len(c["runs"]) != 1:
            raise InvalidArgumentError(f"run {run!r} selects {len(c['runs'])} runs of "
                                       f"collection {self._name!r}: name one")
        return c["runs"][0]

    def datasets(self, run: Any = "latest") -> Dict[Optional[int], str]:
        """``{member: dataset id}`` of one run ("latest", "latest-N", an ISO time or datetime;
        the member is None in a deterministic run)."""
        return {m["member"]: m["id"] for m in self._run(run)["members"]}

    def dataset(self, run: Any = "latest", member: Optional[int] = None,
                **kwargs: Any) -> "xarray.Dataset":
        """The dataset of run `run` and member `member` (None: the only one of a deterministic
        run), opened lazily as ``xr.open_dataset(store, engine="gridstore", dataset=ID)``."""
        from ._errors import NotFoundError

        r = self._run(run)
        ids = {m["member"]: m["id"] for m in r["members"]}
        have = ",".join(str(m) for m in ids)
        if member is None and len(ids) > 1:
            raise InvalidArgumentError(
                f"collection {self._name!r} has members: name one (it has {have})")
        key = member if member is not None else next(iter(ids))
        if key not in ids:
            iso = str(ms_to_datetime64(r["run_time_ms"]).astype("datetime64[s]")) + "Z"
            raise NotFoundError(f"run {iso} of collection {self._name!r} has no member {key} "
                                f"(it has {have})")
        return self._store.open_dataset(ids[key], **kwargs)

    def to_xarray(self, runs: Any = "all", members: Any = "all",
                  **kwargs: Any) -> "xarray.Dataset":
        """``xr.open_dataset(store, engine="gridstore", collection=NAME, runs=runs,
        members=members, **kwargs)``: the collection as one lazy Dataset."""
        import xarray as xr

        return xr.open_dataset(self._store, engine="gridstore", collection=self._name,
                               runs=runs, members=members, **kwargs)

    def extract(self, variables: Union[None, str, Iterable[str]] = None, *,
                run: Any = None, member: Any = "all", stat: Union[None, str, Iterable[str]] = None,
                valid_time: Any = None, lead: Any = None, best: bool = False,
                units: Union[None, str, Iterable[str]] = None, format: Optional[str] = None,
                **request: Any) -> Union["xarray.Dataset", bytes]:
        """Values of the collection at points, in areas or along routes (everything
        Store.extract takes: ``points=``/``point=``, ``bbox=``, ``polygon=``, ``radius=``,
        ``trajectory=``, ``time=``, ``level=``, ``method=``...), through the library's
        collection query, the one ``gridstore extract COLLECTION`` and the service call.

        run: "latest" (the newest complete run), "latest-N", an ISO time or datetime, a range
            (``"ISO/ISO"`` or ``slice(start, stop)``) or "all". None (default): "latest", or
            "all" with a cross-run view.
        member: "all" (default), a member number or a list of them.
        stat: ensemble statistics instead of the members: ``"mean,spread,p10,p50,p90,prob>273.15"``
            or a list (mean, spread = population standard deviation, min, max, median, pNN with
            numpy's linear interpolation, prob>X / prob<X the fraction of members beyond X, in
            the output units).
        valid_time: one valid time from every run (constant forecast time); lead: one lead time
            from every run ("24h" or a timedelta: constant offset); best: for each valid time
            the newest run that covers it. At most one of the three.
        units: output units, converted per value with udunits2 ("degC", "hPa,km/h" or a list).
        format: "covjson", "csv", "json" or "nc" for the bytes ``gridstore extract COLLECTION
            --format`` writes (the same writer); None (default) for an ``xarray.Dataset``.

        The Dataset is laid out as the command's netCDF answer: each variable over (run,
        member or stat, station, time[, level]) for points and (run, member or stat, time[,
        level], <the dataset's horizontal dims>) for areas; coordinates run (datetime64), member
        (int) or stat (str), and valid_time(run, time) / lead_time(run, time), since runs have
        their own valid times (NaT and NaN where a run has fewer). A deterministic collection
        has no member dimension. ``ds.encoding["gridstore"]`` has the view, the notes (runs
        left out of a view, variable groups the request does not fit) and the datasets read.

        Raises NotFoundError (KeyError) for an unknown collection (the known ones named), a run
        that does not exist (the nearest named) or a member that does not exist;
        InvalidArgumentError (ValueError) for a bad run, member, statistic or unit;
        OutOfRangeError (IndexError) for a valid time or lead no run covers.
        """
        from ._extract import _request
        from ._store import _names

        if "point" in request:
            if "points" in request:
                raise TypeError("extract() takes point= or points=, not both")
            request["points"] = request.pop("point")
        if stat is not None and not isinstance(stat, str) and not list(stat):
            raise InvalidArgumentError("stat names no statistic (e.g. 'mean,spread,p10,p90')")
        if isinstance(stat, str) and not stat:
            raise InvalidArgumentError("stat names no statistic (e.g. 'mean,spread,p10,p90')")
        query = {
            "collection": self._name,
            "runs": run_spec(run),
            "members": member_spec(member),
            "statistics": _list_text(stat, "stat"),
            "valid_time": "" if valid_time is None else _time_text(valid_time, "valid_time"),
            "lead": lead_spec(lead),
            "best": bool(best),
            "units": _list_text(units, "units"),
            "extract": _request(_names(variables) or [], request),
        }
        if format is not None:
            import warnings

            result = self._store._fresh(
                lambda: self._store._core.extract_collection_bytes(query, str(format)))
            if result["notes"]:
                warnings.warn("; ".join(result["notes"]), stacklevel=2)
            return result["bytes"]
        result = self._store._fresh(lambda: self._store._core.extract_collection(query))
        return collection_dataset(result)

    def __repr__(self) -> str:
        s = self._summary
        runs = s["runs"].astype("datetime64[s]")
        span = (f"{len(runs)} run(s) {runs[0]}Z .. {runs[-1]}Z" if len(runs) else "no run")
        members = (f"{len(s['members'])} member(s)" if len(s["members"]) else "deterministic")
        return (f"<gridstore.Collection {self._name!r}: {span}, {members}, "
                f"variables {', '.join(s['variables'])}>")


# ---- the query's answer as an xarray.Dataset ----

def _group_run_dataset(meta: Dict[str, Any], slices: List[Dict[str, Any]], g: int,
                       entry: Optional[str]) -> Tuple["xarray.Dataset", np.ndarray]:
    """One group of one run's slices (its members or statistics) as a Dataset laid out as
    Store.extract lays out one dataset's answer, with the entries stacked in front and the time
    dimension named `time` without its coordinate; and the valid times (datetime64[ns], NaT
    where unknown), which become valid_time(run, time)."""
    import xarray as xr

    from ._extract import _area_dataset, _kept, _points_dataset

    first = slices[0]["groups"][g]
    info = dict(meta)
    info["variables"] = first["variable_metas"]
    info["id"] = slices[0]["dataset"] or meta["id"]
    if first["kind"] == "area":
        template = _area_dataset(info, first)
    else:
        template = _points_dataset(info, first)
    template = xr.decode_cf(template)
    # The time dimension: the dataset's own time coordinate's (Store.extract's layout), renamed
    # `time`, its values moved to valid_time; none for a variable without a time axis.
    time_dim = None
    time_name = first["time_axis"]
    if first["kind"] == "trajectory":
        time_dim = None
    elif time_name and time_name in template.dims:
        time_dim = time_name
    elif "time" in template.dims:  # several times without a time coordinate
        time_dim = "time"
    else:
        for var in info["variables"]:
            if var["dimensions"][0] and var["dimensions"][0] in template.dims:
                time_dim = var["dimensions"][0]
                break
    valid = None
    if time_dim is not None and time_dim in template.coords and \
            np.issubdtype(template[time_dim].dtype, np.datetime64):
        valid = template[time_dim].values
    variables = {}
    for name in template.data_vars:
        v = template[name]
        # The library's doubles as they are (statistics are computed in double precision).
        stacked = np.stack([np.asarray(s["groups"][g]["variables"][name], dtype="float64")
                            .reshape(v.shape) for s in slices])
        dims = v.dims
        if first["kind"] != "trajectory" and time_dim is None:
            stacked = stacked[:, np.newaxis]
            dims = ("time",) + dims
        if entry is None:
            stacked = stacked[0]
        else:
            dims = (entry,) + dims
        # As the command's netCDF answer labels them: units, names, axis attributes.
        variables[name] = (dims, stacked, _kept(v.attrs))
    ds = xr.Dataset(variables)
    for name, c in template.coords.items():
        if (time_dim is not None and time_dim in c.dims) or not c.dims:
            continue  # the valid times: valid_time(run, time); scalars (crs) are not kept
        ds.coords[name] = c.variable
    if time_dim is not None and time_dim != "time":
        ds = ds.rename({time_dim: "time"})
    n = ds.sizes.get("time", 0)
    if valid is None:
        valid = np.full(n, np.datetime64("NaT", "ns"))
    return ds, np.asarray(valid, dtype="datetime64[ns]")


def _assemble_group(result: Dict[str, Any], runs: List[int], by_run: Dict[int, List],
                    g: int, entry: Optional[str]) -> "xarray.Dataset":
    """Group `g` of every run, over (run, entry, ...): each run's valid times padded to the
    most any run has (NaN values, NaT times), runs' entries aligned by label."""
    import pandas as pd
    import xarray as xr

    key = "statistic" if entry == "stat" else "member"
    parts, valids = [], []
    for r in runs:
        part, valid = _group_run_dataset(result["metas"][r], by_run[r], g, entry)
        if entry is not None:
            labels = [s[key] for s in by_run[r]]
            part = part.assign_coords(
                {entry: np.asarray(labels) if entry == "stat" else np.asarray(labels, "int64")})
        parts.append(part)
        valids.append(valid)
    nt = max(len(v) for v in valids)
    valid_times = np.full((len(parts), nt), np.datetime64("NaT", "ns"), dtype="datetime64[ns]")
    for i, (part, valid) in enumerate(zip(parts, valids)):
        valid_times[i, :len(valid)] = valid
        if "time" in part.dims and part.sizes["time"] < nt:
            parts[i] = part.pad(time=(0, nt - part.sizes["time"]))
    run_index = pd.Index(ms_to_datetime64(runs).astype("datetime64[ns]"), name="run")
    if len(parts) == 1:
        ds = parts[0].expand_dims(run=run_index)
    else:
        ds = xr.concat(parts, dim=run_index, coords="different", compat="equals",
                       join="outer", combine_attrs="override")
    if "time" in ds.dims:
        ds.coords["valid_time"] = (("run", "time"), valid_times,
                                   {"standard_name": "time", "long_name": "valid time"})
        ds.coords["lead_time"] = (("run", "time"), valid_times - run_index.values[:, np.newaxis],
                                  {"standard_name": "forecast_period",
                                   "long_name": "lead time (valid time - run)"})
    ds.coords["run"].attrs.update({"standard_name": "forecast_reference_time",
                                   "long_name": "forecast reference time (run)"})
    return ds


def collection_dataset(result: Dict[str, Any]) -> "xarray.Dataset":
    """_core.Store.extract_collection's answer as one Dataset (Collection.extract)."""
    slices = result["slices"]
    if not slices:
        raise InvalidArgumentError(f"collection {result['collection']!r}: the answer is empty")
    entry = "stat" if result["has_statistics"] else "member" if result["has_members"] else None
    runs: List[int] = []
    by_run: Dict[int, List] = {}
    for s in slices:
        if s["run_time_ms"] not in by_run:
            runs.append(s["run_time_ms"])
            by_run[s["run_time_ms"]] = []
        by_run[s["run_time_ms"]].append(s)
    parts = [_assemble_group(result, runs, by_run, g, entry)
             for g in range(len(slices[0]["groups"]))]
    from ._extract import merge_groups

    ds = merge_groups(parts, f"collection {result['collection']!r}")
    if entry == "member":
        ds.coords["member"].attrs.update({"standard_name": "realization",
                                          "long_name": "ensemble member number"})
    elif entry == "stat":
        ds.coords["stat"].attrs.update({
            "long_name": "ensemble statistic",
            "comment": "mean; spread (population standard deviation); min; max; pN, the N-th "
                       "percentile (linear between members); prob>X / prob<X, the fraction of "
                       "members beyond X (values 0..1)"})
    ds.attrs = {"Conventions": "CF-1.8",
                "source": f"GridStore forecast collection {result['collection']}",
                "collection": result["collection"], "collection_view": result["view"]}
    ds.encoding["gridstore"] = {
        "collection": result["collection"], "view": result["view"],
        "notes": list(result["notes"]),
        "datasets": [s["dataset"] for s in slices if s["dataset"]],
        "stats": {k: sum(gr["stats"][k] for s in slices for gr in s["groups"])
                  for k in ("blocks", "blocks_read", "cache_hits", "bytes_read")},
    }
    return ds
