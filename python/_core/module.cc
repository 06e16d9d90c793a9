// Copyright 2026 The GridStore Authors.
//
// gridstore._core: the C++ library as a Python extension module. Deliberately low-level (dicts,
// numpy arrays, positional arguments): python/gridstore/ builds the public API over it, with its
// defaults, argument checks, docstrings and xarray objects.
#include <pybind11/pybind11.h>

#include "gridstore/version.h"
#include "python/_core/errors.h"
#include "python/_core/py_store.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "GridStore's C++ library (internal: use the gridstore package)";
  m.attr("__version__") = gridstore::kVersion;
  gridstore::python::RegisterErrors();
  gridstore::python::BindStore(m);
  gridstore::python::BindWriter(m);
}
