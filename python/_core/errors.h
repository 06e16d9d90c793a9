// Copyright 2026 The GridStore Authors.
//
// The library's Status as Python exceptions: each StatusCode raises its own class from
// gridstore._errors (NotFoundError is a KeyError, InvalidArgumentError a ValueError,
// OutOfRangeError an IndexError...), carrying the library's message unchanged.
#ifndef GRIDSTORE_PYTHON_CORE_ERRORS_H_
#define GRIDSTORE_PYTHON_CORE_ERRORS_H_

#include <utility>

#include "gridstore/util/result.h"
#include "gridstore/util/status.h"

namespace gridstore::python {

// Thrown by ThrowIfError; translated into the Python class of its code (RegisterErrors).
struct StatusError {
  Status status;
};

// Throws StatusError for a failed status. Safe without the GIL (it only throws).
inline void ThrowIfError(Status status) {
  if (!status.ok()) throw StatusError{std::move(status)};
}

template <typename T>
T ValueOrThrow(Result<T> result) {
  if (!result.ok()) throw StatusError{result.status()};
  return std::move(result).value();
}

// Installs the translator of StatusError. Call once from the module's init.
void RegisterErrors();

}  // namespace gridstore::python

#endif  // GRIDSTORE_PYTHON_CORE_ERRORS_H_
