// Copyright 2026 The GridStore Authors.
#include "python/_core/errors.h"

#include <pybind11/pybind11.h>

#include <string>

namespace py = pybind11;

namespace gridstore::python {
namespace {

// The class of gridstore._errors that a code raises: "<CodeName>Error" (NotFoundError...).
py::object ErrorClass(StatusCode code) {
  py::module_ errors = py::module_::import("gridstore._errors");
  const std::string name = std::string(StatusCodeName(code)) + "Error";
  if (py::hasattr(errors, name.c_str())) return errors.attr(name.c_str());
  return errors.attr("GridStoreError");
}

}  // namespace

void RegisterErrors() {
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const StatusError& e) {
      py::object cls = ErrorClass(e.status.code());
      py::object error = cls(py::str(std::string(e.status.message())));
      PyErr_SetObject(cls.ptr(), error.ptr());
    }
  });
}

}  // namespace gridstore::python
