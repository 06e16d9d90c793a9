"""Store.extract: the extraction library's result as an xarray.Dataset, laid out as
``gridstore extract --format nc`` writes its files (importers/netcdf/netcdf_extraction_writer.cc):

- points: a CF discrete sampling geometry (featureType timeSeries, or timeSeriesProfile with
  several levels) over (station, time[, level]) with lon/lat of the points asked and
  grid_lon/grid_lat of the cells used;
- a trajectory: featureType trajectory, one observation per sample, time and level;
- an area: the enclosing index box with the dataset's own dims and coordinates cut to it, cells
  outside the feature NaN.
Times and levels keep their CF attributes and are decoded by xarray as in any netCDF file.
"""

from __future__ import annotations

import datetime
from typing import Any, Dict, List, Optional

import numpy as np
import xarray as xr

from . import _cf
from ._errors import InvalidArgumentError

_REQUEST_KEYS = {"points", "bbox", "polygon", "radius", "trajectory", "corridor_width_km", "time",
                 "level", "method", "tolerance_km", "allow_incomplete"}
# Attributes of a coordinate or variable that still apply to extracted (unpacked) values.
_KEPT_ATTRIBUTES = ("units", "calendar", "standard_name", "long_name", "positive", "axis")
# Attributes that no longer apply to unpacked values (as `extract --format nc` drops them).
_PACKING_ATTRIBUTES = ("_FillValue", "scale_factor", "add_offset", "missing_value", "_Unsigned")


def _value_text(value: Any, what: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (np.datetime64, datetime.datetime, datetime.date)) or \
            type(value).__name__ == "Timestamp":
        return str(np.datetime_as_string(np.datetime64(value, "s")))
    if hasattr(value, "isoformat"):  # cftime dates
        return value.isoformat()
    if isinstance(value, (bool, np.bool_)):
        raise InvalidArgumentError(f"{what}: {value!r} is not a time or level")
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    raise InvalidArgumentError(f"{what}: {value!r} is not a time or level")


def _selection(value: Any, what: str) -> str:
    """A time or level selection as the library's text: "V", "V1/V2" (".." open) or "V1,V2"."""
    if value is None:
        return ""
    if isinstance(value, slice):
        if value.step is not None:
            raise InvalidArgumentError(f"{what}: a slice of values cannot have a step")
        start = ".." if value.start is None else _value_text(value.start, what)
        stop = ".." if value.stop is None else _value_text(value.stop, what)
        return f"{start}/{stop}"
    if isinstance(value, (list, tuple, np.ndarray)):
        items = [_value_text(v, what) for v in np.asarray(value, dtype=object).ravel()]
        if not items:
            raise InvalidArgumentError(f"{what}: an empty list selects nothing")
        return ",".join(items)
    return _value_text(value, what)


def _request(variables: List[str], request: Dict[str, Any]) -> Dict[str, Any]:
    unknown = set(request) - _REQUEST_KEYS
    if unknown:
        raise TypeError(f"extract() got unexpected arguments: {', '.join(sorted(unknown))} "
                        f"(it takes {', '.join(sorted(_REQUEST_KEYS))})")
    points = request.get("points")
    if points is not None:
        points = np.asarray(points, dtype=float)
        if points.ndim == 1 and points.size == 2:
            points = points[np.newaxis, :]
        if points.ndim != 2 or points.shape[1] != 2 or len(points) == 0:
            raise InvalidArgumentError(
                f"points must be (lon, lat) or a list of (lon, lat), not shape {points.shape}")
        points = [(float(lon), float(lat)) for lon, lat in points]
    bbox = request.get("bbox")
    if bbox is not None:
        bbox = [float(v) for v in bbox]
        if len(bbox) != 4:
            raise InvalidArgumentError(f"bbox must be (west, south, east, north), not {bbox}")
    radius = request.get("radius")
    if radius is not None:
        radius = tuple(float(v) for v in radius)
        if len(radius) != 3:
            raise InvalidArgumentError(f"radius must be (lon, lat, km), not {radius}")
    return {
        "variables": variables, "points": points, "bbox": bbox,
        "polygon": request.get("polygon"), "radius": radius,
        "trajectory": request.get("trajectory"),
        "corridor_width_km": float(request.get("corridor_width_km", 0)),
        "time": _selection(request.get("time"), "time"),
        "level": _selection(request.get("level"), "level"),
        "method": str(request.get("method", "nearest")),
        "tolerance_km": float(request.get("tolerance_km", 0)),
        "unpack": True,  # values in physical units, NaN where missing: raw values are fetch's
        "allow_incomplete": bool(request.get("allow_incomplete", False)),
    }


def _kept(attributes: Dict[str, Any]) -> Dict[str, Any]:
    return {k: attributes[k] for k in _KEPT_ATTRIBUTES if k in attributes}


def _coordinate(info: Dict[str, Any], name: str) -> Optional[Dict[str, Any]]:
    return next((c for c in info["coordinates"] if c["name"] == name and name), None)


def _points_dataset(info: Dict[str, Any], r: Dict[str, Any]) -> xr.Dataset:
    p = r["points"]
    n = len(p["lon"])
    trajectory = r["kind"] == "trajectory"
    nt = 1 if r["time_per_point"] else len(r["times"])
    nz = 1 if r["level_per_point"] else len(r["levels"])
    time, level = _coordinate(info, r["time_axis"]), _coordinate(info, r["level_axis"])
    time_name = time["name"] if time else "time"
    level_name = level["name"] if level else "level"
    # The time / level index of (point, i-th time / level), as ExtractPlan::TimeOf / LevelOf.
    t_index = (np.repeat(p["time"][:, None], nt, axis=1) if r["time_per_point"]
               else np.broadcast_to(r["times"], (n, nt)))
    z_index = (np.repeat(p["level"][:, None], nz, axis=1) if r["level_per_point"]
               else np.broadcast_to(r["levels"], (n, nz)))
    coords: Dict[str, Any] = {}
    if trajectory:
        station, reps = "obs", nt * nz
        value_dims, shape = ("obs",), (n * nt * nz,)
        if time:
            coords[time_name] = (station, np.asarray(time["values"]).ravel()[
                np.repeat(t_index, nz, axis=1).ravel()].astype("float64"), _kept(time["attributes"]))
        if level:
            coords[level_name] = (station, np.asarray(level["values"]).ravel()[
                np.tile(z_index, (1, nt)).ravel()].astype("float64"), _kept(level["attributes"]))
    else:
        station, reps = "station", 1
        value_dims, shape = ["station"], [n]
        if time or nt > 1:
            value_dims.append(time_name)
            shape.append(nt)
        if level or nz > 1:
            value_dims.append(level_name)
            shape.append(nz)
        value_dims, shape = tuple(value_dims), tuple(shape)
        if time:
            coords[time_name] = (time_name, np.asarray(time["values"]).ravel()[
                t_index[0]].astype("float64"), _kept(time["attributes"]))
        if level:
            coords[level_name] = (level_name, np.asarray(level["values"]).ravel()[
                z_index[0]].astype("float64"), _kept(level["attributes"]))
    for name, units, long_name in (("lon", "degrees_east", None), ("lat", "degrees_north", None),
                                   ("grid_lon", "degrees_east", "longitude of the grid cell used"),
                                   ("grid_lat", "degrees_north", "latitude of the grid cell used")):
        attrs = ({"long_name": long_name} if long_name else
                 {"standard_name": "longitude" if name == "lon" else "latitude"})
        attrs["units"] = units
        coords[name] = (station, np.repeat(p[name], reps), attrs)
    variables = {}
    by_name = {v["name"]: v for v in info["variables"]}
    for name, values in r["variables"].items():
        variables[name] = (value_dims, values.reshape(shape), _kept(by_name[name]["attributes"]))
    feature = "trajectory" if trajectory else ("timeSeriesProfile" if nz > 1 else "timeSeries")
    attrs = {"featureType": feature, "Conventions": "CF-1.8",
             "source": f"GridStore dataset {info['id']}"}
    return xr.Dataset(variables, coords, attrs)


def _unpacked_dtype(var: Dict[str, Any]) -> np.dtype:
    if var["packing"]:
        return np.dtype(var["packing"]["dtype"])
    dtype = np.dtype(var["dtype"])
    return dtype if dtype.kind == "f" else np.dtype("float64")


def _area_dataset(info: Dict[str, Any], r: Dict[str, Any]) -> xr.Dataset:
    x0, y0, nx, ny = r["area"]
    times, levels = r["times"], r["levels"]
    xs, ys = slice(x0, x0 + nx), slice(y0, y0 + ny)
    wrap = r.get("wrap")  # an area round a global grid's edge: the wrapped axis's grid indices
    if wrap is not None:
        if wrap[0] == 2:
            xs = wrap[1]
        else:
            ys = wrap[1]
    by_name = {v["name"]: v for v in info["variables"]}
    coordinate_names = {c["name"] for c in info["coordinates"]}
    variables, cut = {}, {}
    box = (len(times), len(levels), nx, ny)
    for name, values in r["variables"].items():
        var = by_name[name]
        axes = _cf.variable_axes(var)
        dims = _cf.variable_dims(var)
        for a, dim in zip(axes, dims):
            cut[dim] = (times, levels, xs, ys)[a]
        attrs = {k: v for k, v in var["attributes"].items()
                 if k not in _PACKING_ATTRIBUTES and k not in ("bounds", "climatology")}
        if var["packing"] or np.dtype(var["dtype"]).kind != "f":
            for k in ("valid_range", "valid_min", "valid_max"):
                attrs.pop(k, None)
        if attrs.get("grid_mapping") not in coordinate_names:
            attrs.pop("grid_mapping", None)
        data = values.reshape(box).reshape([box[a] for a in axes]).astype(_unpacked_dtype(var))
        variables[name] = (dims, data, attrs)
    used_dims = {d for dims, _, _ in variables.values() for d in dims}
    coords = {name: (dims, values, attrs)
              for name, (dims, values, attrs) in _cf.coordinate_variables(info, cut).items()
              if set(dims) <= used_dims}
    if wrap is not None:
        _longitudes_as_asked(coords, by_name[next(iter(r["variables"]))], wrap[0], r["lon_from"])
    return xr.Dataset(variables, coords, _cf.dataset_attributes(info))


def _longitudes_as_asked(coords: Dict[str, Any], var: Dict[str, Any], axis: int,
                         lon_from: float) -> None:
    """The wrapped axis's longitudes (and their bounds) in the request's convention, so that the
    area reads east from its west edge without a jump (-25..45, not 335..357 then 0..45)."""
    dim = var["dimensions"][axis]
    if dim not in coords:
        return
    dims, lon, attrs = coords[dim]
    lon = np.asarray(lon, dtype="float64")
    shift = (lon_from + np.mod(lon - lon_from, 360.0)) - lon
    coords[dim] = (dims, lon + shift, attrs)
    bounds = attrs.get("bounds")
    if bounds in coords:
        bdims, b, battrs = coords[bounds]
        coords[bounds] = (bdims, np.asarray(b, dtype="float64") + shift[:, None], battrs)


def _group_dataset(store: Any, id: str, info: Dict[str, Any], r: Dict[str, Any]) -> xr.Dataset:
    if r["incarnation"] != info["incarnation"]:  # replaced in between: label with its meta
        info = store.info(id)
    ds = _area_dataset(info, r) if r["kind"] == "area" else _points_dataset(info, r)
    ds = xr.decode_cf(ds)
    ds.encoding["gridstore"] = {"dataset": id, "grid": r["grid"], "stats": r["stats"],
                                "distance_km": r["points"]["distance_km"]}
    return ds


def merge_groups(parts, what: str):
    """One Dataset of the groups of variables an extraction answered (each on its own axes):
    merged where their axes agree; InvalidArgumentError naming them where they cannot be."""
    if len(parts) == 1:
        return parts[0]
    try:
        return xr.merge(parts, join="outer", compat="no_conflicts",
                        combine_attrs="drop_conflicts")
    except (ValueError, xr.MergeError) as e:
        names = ["/".join(p.data_vars) for p in parts]
        raise InvalidArgumentError(
            f"{what}: its variables lie on {len(parts)} different grids or axes "
            f"({'; '.join(names)}) that one Dataset cannot hold ({e}); ask for the "
            f"variables of one group at a time") from None


def extract(store: Any, id: str, variables: Optional[List[str]], request: Dict[str, Any]):
    info = store.info(id)
    # No variables: every variable, in groups that share a grid, time and level axes, each
    # group with its own level dimension, merged into one Dataset.
    result = store._core.extract(id, _request(variables or [], request))
    parts = [_group_dataset(store, id, info, r) for r in result["groups"]]
    ds = merge_groups(parts, f"dataset {id!r}")
    if len(parts) > 1:
        ds.encoding["gridstore"] = {
            "dataset": id, "grid": parts[0].encoding["gridstore"]["grid"],
            "stats": [p.encoding["gridstore"]["stats"] for p in parts],
            "distance_km": parts[0].encoding["gridstore"]["distance_km"]}
    ds.encoding["gridstore"]["left_out"] = list(result["left_out"])
    return ds
