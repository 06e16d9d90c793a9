// Copyright 2026 The GridStore Authors.
//
// Extraction requests and results between Python and the library (extract_bindings.cc), shared
// by Store.extract and a collection's extract (collection_bindings.cc). Need the GIL.
#ifndef GRIDSTORE_PYTHON_CORE_EXTRACTION_H_
#define GRIDSTORE_PYTHON_CORE_EXTRACTION_H_

#include <pybind11/pybind11.h>

#include "gridstore/geo/extract.h"

namespace gridstore::python {

// The dict python/gridstore/_extract.py `_request` makes, as an ExtractRequest; InvalidArgument
// (ValueError) for an unknown method.
grid::ExtractRequest RequestFromPython(const pybind11::dict& request);

// One extraction as {"kind", "grid", "incarnation", "points", "times", "levels", "variables",
// "stats", ...} (python/gridstore/_core.pyi); the values move into numpy arrays, uncopied.
pybind11::dict ExtractionToPython(grid::Extraction extraction);

}  // namespace gridstore::python

#endif  // GRIDSTORE_PYTHON_CORE_EXTRACTION_H_
