"""Store.create_dataset and DatasetWriter: datasets written from numpy (any source: GRIB through
cfgrib, Zarr, a model's own arrays), block-compressed on the store's threads without the GIL."""

from __future__ import annotations

from typing import Any, Dict, Mapping, Optional, Sequence

import numpy as np

from . import _core
from ._errors import InvalidArgumentError

# Names that make the leading dim of a 3-D variable its level (z) rather than its time (t).
_LEVEL_NAMES = {"level", "lev", "plev", "z", "height", "depth", "isobaric", "pressure",
                "model_level_number", "altitude"}


def _axes_of(name: str, dims: Sequence[str], spec: Mapping[str, Any]) -> str:
    """Which of t, z, x, y each dim is: "xy", "txy" / "zxy", or "tzxy"."""
    axes = spec.get("axes")
    if axes is None:
        axes = {2: "xy", 3: "zxy" if str(dims[0]).lower() in _LEVEL_NAMES else "txy",
                4: "tzxy"}.get(len(dims))
    if axes is None or len(axes) != len(dims) or not axes.endswith("xy") or \
            sorted(axes) != sorted(set(axes)) or not set(axes) <= set("tzxy"):
        raise InvalidArgumentError(
            f"variable {name!r}: {len(dims)} dims {tuple(dims)}; GridStore stores 2 to 4 dims, "
            "the last two the plane (x, y), before them t and/or z (say which with axes='zxy')")
    return axes


def _variable(name: str, spec: Mapping[str, Any]) -> Dict[str, Any]:
    if "dims" not in spec or "shape" not in spec or "dtype" not in spec:
        raise InvalidArgumentError(f"variable {name!r} needs 'dims', 'shape' and 'dtype'")
    dims, shape = tuple(spec["dims"]), tuple(int(n) for n in spec["shape"])
    if len(dims) != len(shape):
        raise InvalidArgumentError(f"variable {name!r}: {len(dims)} dims but shape {shape}")
    axes = _axes_of(name, dims, spec)
    dimensions, shape4 = ["", "", "", ""], [1, 1, 1, 1]
    for axis, dim, n in zip(axes, dims, shape):
        dimensions["tzxy".index(axis)] = str(dim)
        shape4["tzxy".index(axis)] = n
    attributes = dict(spec.get("attributes") or {})
    dtype = np.dtype(spec["dtype"])
    fill = spec.get("fill_value")
    if fill is not None:
        if dtype.kind == "f":
            attributes.setdefault("_FillValue", dtype.type(fill))
        else:
            info = np.iinfo(dtype)
            if not float(fill).is_integer() or not info.min <= int(fill) <= info.max:
                raise InvalidArgumentError(
                    f"variable {name!r}: fill_value {fill!r} is not a {dtype} value")
            attributes.setdefault("_FillValue", dtype.type(int(fill)))
    packing = None
    if "scale_factor" in spec or "add_offset" in spec:
        scale = spec.get("scale_factor", 1.0)
        offset = spec.get("add_offset", 0.0)
        unpacked = np.result_type(np.asarray(scale), np.asarray(offset))
        unpacked = unpacked if unpacked.kind == "f" else np.dtype("float64")
        packing = {"scale_factor": float(scale), "add_offset": float(offset),
                   "dtype": str(unpacked)}
        attributes.setdefault("scale_factor", unpacked.type(scale))
        attributes.setdefault("add_offset", unpacked.type(offset))
    return {"name": name, "dtype": str(dtype), "shape": shape4, "dimensions": dimensions,
            "fill_value": fill, "packing": packing,
            "missing_values": [float(v) for v in np.atleast_1d(spec.get("missing_value", []))],
            "attributes": attributes, "_axes": axes}


def _coordinate(name: str, spec: Any) -> Dict[str, Any]:
    if not isinstance(spec, Mapping):
        spec = {"values": spec}
    values = np.asarray(spec["values"])
    if values.dtype.kind not in "iuf":
        raise InvalidArgumentError(
            f"coordinate {name!r}: values must be numbers (times as numbers with CF 'units', "
            f"e.g. 'hours since 2026-11-25'), not {values.dtype}")
    dims = tuple(spec.get("dims", (name,) if values.ndim == 1 else ()))
    if len(dims) != values.ndim:
        raise InvalidArgumentError(f"coordinate {name!r}: {len(dims)} dims for a "
                                   f"{values.ndim}-D array")
    return {"name": name, "dimensions": list(dims), "values": values,
            "dtype": str(values.dtype), "attributes": dict(spec.get("attributes") or {})}


def _check_coordinate_lengths(id: str, specs: Mapping[str, Dict[str, Any]],
                              coordinates: Mapping[str, Any]) -> None:
    """Refuses a coordinate whose length along a dimension differs from that dimension's length
    in the variables (it would label the wrong cells, or read past its values)."""
    lengths: Dict[str, int] = {}
    for spec in specs.values():
        for axis, dim in zip("tzxy", spec["dimensions"]):
            if dim:
                lengths.setdefault(dim, spec["shape"]["tzxy".index(axis)])
    for name, c in coordinates.items():
        c = _coordinate(name, c)
        for dim, n in zip(c["dimensions"], np.shape(c["values"])):
            if dim in lengths and lengths[dim] != n:
                raise InvalidArgumentError(
                    f"dataset {id!r}: coordinate {name!r} has {n} values along {dim!r}, but the "
                    f"variables' dimension {dim!r} has {lengths[dim]}")


class DatasetWriter:
    """Writes the variables of a new dataset, then makes it complete with finish().

    ``write(name, values)`` takes the whole variable (its dims' shape), or, with ``t=`` and/or
    ``z=``, the part starting there: one plane (x, y), some steps (k, x, y)... Values must have
    the variable's dtype or one that converts to it exactly (an int16 array into an int32
    variable, not float64 into int16). Use it as a context manager: finish() on success; on an
    exception, abort() removes what was written (with overwrite=True, the old dataset stays).
    Use one writer from one thread at a time (its planes are compressed in parallel anyway).
    """

    def __init__(self, core: "_core.Writer", variables: Dict[str, Dict[str, Any]]):
        self._core = core
        self._variables = variables

    @property
    def id(self) -> str:
        return self._core.meta["id"]

    @property
    def stats(self) -> Dict[str, int]:
        """Planes, blocks, raw and stored bytes written so far."""
        return self._core.stats

    def write(self, variable: str, values: Any, *, t: int = 0, z: int = 0) -> None:
        """Writes `values` into `variable` starting at step `t` and level `z`; returns when they
        are stored. Planes are compressed in parallel without the GIL."""
        spec = self._variables.get(variable)
        if spec is None:
            raise InvalidArgumentError(f"dataset {self.id!r} has no variable {variable!r} "
                                       f"(it has: {', '.join(self._variables)})")
        dtype = np.dtype(spec["dtype"])
        array = np.asarray(values)
        if array.dtype != dtype:
            if not np.can_cast(array.dtype, dtype, casting="safe"):
                raise TypeError(f"variable {variable!r} is {dtype}: {array.dtype} values do not "
                                "convert to it exactly (convert them first, e.g. with astype)")
            array = array.astype(dtype)
        axes = spec["_axes"]
        full = [spec["shape"]["tzxy".index(a)] for a in axes]
        lead = len(axes) - array.ndim  # leading dims (t and/or z) given by t= / z= instead
        if lead < 0 or array.ndim < 2 or list(array.shape[-2:]) != full[-2:]:
            raise InvalidArgumentError(
                f"variable {variable!r}: values of shape {array.shape} do not fit its dims "
                f"{tuple(d for d in spec['dimensions'] if d)} of shape {tuple(full)} (give the "
                "whole variable, or planes (x, y) with t= / z=)")
        shape4 = [1, 1, 1, 1]
        for a, n in zip(axes[lead:], array.shape):
            shape4["tzxy".index(a)] = n
        self._core.write(variable, np.ascontiguousarray(array).reshape(shape4), int(t), int(z))

    def finish(self, attributes: Optional[Mapping[str, Any]] = None, *,
               allow_missing: bool = False) -> None:
        """Marks the dataset DONE (with create_time and any further `attributes`) and makes it
        durable; with overwrite, switches readers to it in one step.

        Raises FailedPreconditionError naming the variables and steps never written unless
        every plane was written, or `allow_missing=True`: the missing planes then read as the
        variable's fill value (netCDF's default fill of its dtype if it has none)."""
        self._core.finish(dict(attributes or {}), bool(allow_missing))

    def abort(self) -> None:
        """Removes what was written (the new dataset, or the unfinished replacement)."""
        self._core.abort()

    def __enter__(self) -> "DatasetWriter":
        return self

    def __exit__(self, exc_type: Any, *exc: Any) -> None:
        if self._core.done:
            return
        if exc_type is None:
            try:
                self.finish()
            except Exception:
                self.abort()  # not complete: nothing of it stays (the old one, if replacing)
                raise
        else:
            self.abort()


def create_dataset(store: Any, id: str, variables: Mapping[str, Mapping[str, Any]],
                   coordinates: Optional[Mapping[str, Any]], attributes: Optional[Mapping],
                   block: Optional[Sequence[int]], codec: str, frame_rows: int,
                   overwrite: bool) -> DatasetWriter:
    if not variables:
        raise InvalidArgumentError(f"dataset {id!r}: give at least one variable")
    specs = {name: _variable(name, spec) for name, spec in variables.items()}
    # None: the store's default, as imports have it (64x128; 256x256 on rados://).
    block = [int(v) for v in (_core.default_block(store.uri) if block is None else block)]
    if len(block) != 2:
        raise InvalidArgumentError(f"block must be (x, y), not {block}")
    _check_coordinate_lengths(id, specs, coordinates or {})
    meta = {
        "id": id,
        "attributes": dict(attributes or {}),
        "variables": [{k: v for k, v in s.items() if k != "_axes"} for s in specs.values()],
        "coordinates": [_coordinate(n, c) for n, c in (coordinates or {}).items()],
        "layout": {"block": block, "codec": codec, "frame_rows": int(frame_rows)},
    }
    return DatasetWriter(_core.create_dataset(store._core, meta, bool(overwrite)), specs)
