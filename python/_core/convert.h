// Copyright 2026 The GridStore Authors.
//
// Conversions between the library's values and Python's: data types and numpy dtypes, typed
// attributes and Python values, a dataset's meta and the dict that Store.info returns (and that
// Store.create_dataset reads back), fetched grids and numpy arrays that own their buffers.
// Every function here needs the GIL.
#ifndef GRIDSTORE_PYTHON_CORE_CONVERT_H_
#define GRIDSTORE_PYTHON_CORE_CONVERT_H_

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "gridstore/model/data_type.h"
#include "gridstore/model/grid.h"
#include "gridstore/model/grid_meta.h"

namespace gridstore::python {

namespace py = pybind11;

py::dtype NumpyDtype(grid::DataType type);
// The DataType of a numpy dtype; InvalidArgument (ValueError) naming `what` for any other
// (bool, complex, strings, non-native byte order).
grid::DataType DataTypeOf(const py::dtype& dtype, const std::string& what);

// A string as str, a bool as bool, one number as a numpy scalar of its type, several as a 1-D
// numpy array: what netCDF4-python gives for the same netCDF attribute.
py::object AttributeToPython(const grid::AttributeValue& value);
py::dict AttributesToPython(const grid::Attributes& attributes);
// The inverse: str, bool, int, float, numpy scalars and 1-D numeric arrays or lists. TypeError
// naming `owner` and the attribute for anything else.
grid::Attributes AttributesFromPython(const py::handle& mapping, const std::string& owner);

// {"id", "status", "attributes", "variables": [...], "coordinates": [...], "layout": {...},
//  "incarnation", "generation"} (python/gridstore/_core.pyi documents each field).
py::dict MetaToPython(const grid::DataSetMeta& meta);
// The inverse, for creating a dataset; incarnation and generation are ignored.
grid::DataSetMeta MetaFromPython(const py::dict& meta);

// A numpy array over the grid's own buffer (no copy): the array owns the grid from now on.
py::array GridToArray(grid::Grid4D grid);
// A 1-D float64 array that owns `values` (no copy).
py::array VectorToArray(std::vector<double> values);
template <typename T>
py::array_t<T> CopyToArray(const std::vector<T>& values) {
  return py::array_t<T>(static_cast<py::ssize_t>(values.size()), values.data());
}

}  // namespace gridstore::python

#endif  // GRIDSTORE_PYTHON_CORE_CONVERT_H_
