"""A dataset's meta (Store.info) as the variables, dimensions and attributes the source file had,
for the xarray backend and for extract's areas. Nothing here decodes: CF decoding is xarray's.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple


AXIS_NAMES = ("t", "z", "x", "y")
# Dataset attributes GridStore sets itself (status of the import, when it finished): kept out of
# a Dataset's attrs, so that they are the file's; they are in ds.encoding["gridstore"].
STORE_ATTRIBUTES = ("status", "create_time")


def variable_axes(var: Dict[str, Any]) -> List[int]:
    """The axes (0..3 = t, z, x, y) a variable has as dimensions: those the source named, and
    any other of extent > 1 (a dataset written without names)."""
    return [a for a in range(4) if var["dimensions"][a] or var["shape"][a] > 1]


def variable_dims(var: Dict[str, Any]) -> Tuple[str, ...]:
    return tuple(var["dimensions"][a] or AXIS_NAMES[a] for a in variable_axes(var))


def dataset_attributes(info: Dict[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in info["attributes"].items() if k not in STORE_ATTRIBUTES}


def store_encoding(info: Dict[str, Any], uri: str) -> Dict[str, Any]:
    """What ds.encoding["gridstore"] holds: where the data came from."""
    attrs = info["attributes"]
    return {
        "uri": uri,
        "dataset": info["id"],
        "status": info["status"],
        "create_time": attrs.get("create_time"),
        "incarnation": info["incarnation"],
        "layout": info["layout"],
    }


def dimension_sizes(info: Dict[str, Any]) -> Dict[str, int]:
    sizes: Dict[str, int] = {}
    for var in info["variables"]:
        for a, dim in zip(variable_axes(var), variable_dims(var)):
            sizes.setdefault(dim, int(var["shape"][a]))
    for coord in info["coordinates"]:
        for dim, n in zip(coord["dimensions"], coord["shape"]):
            sizes.setdefault(dim, int(n))
    return sizes


def coordinate_variables(info: Dict[str, Any],
                         cut: Optional[Dict[str, Any]] = None) -> Dict[str, Tuple]:
    """{name: (dims, values, attrs)} of every coordinate; `cut` maps dimension names to an index
    (a slice or an integer array) to keep only part of each coordinate along them."""
    out = {}
    for coord in info["coordinates"]:
        values = coord["values"]
        dims = tuple(coord["dimensions"])
        if cut:
            key = tuple(cut.get(d, slice(None)) for d in dims)
            values = values[key] if key else values
        out[coord["name"]] = (dims, values, dict(coord["attributes"]))
    return out


def preferred_chunks(info: Dict[str, Any], var: Dict[str, Any]) -> Dict[str, int]:
    """One block per chunk: planes are cut into block_x x block_y blocks, one per (t, z)."""
    block_x, block_y = info["layout"]["block"]
    per_axis = (1, 1, int(block_x), int(block_y))
    return {d: min(per_axis[a], int(var["shape"][a]))
            for a, d in zip(variable_axes(var), variable_dims(var))}
