"""The library's errors as Python exceptions.

Each error code of the C++ library (gridstore/util/status.h) raises its own class, derived from
GridStoreError and from the built-in exception a Python user would catch for it:

    NotFoundError            KeyError     no such dataset (or store)
    InvalidArgumentError     ValueError   a bad argument: unknown variable, bad box, bad query
    OutOfRangeError          IndexError   a box or coordinate outside the data
    AlreadyExistsError       -            the dataset exists (pass overwrite=True)
    FailedPreconditionError  RuntimeError the dataset is not complete, the store is read-only...
    AbortedError             RuntimeError the dataset was replaced or deleted while being read
    DataLossError            -            a damaged block, meta or store file
    UnavailableError         -            storage that cannot be reached (a Ceph cluster down...)
    UnimplementedError       NotImplementedError
    InternalError            RuntimeError

The message is the library's, unchanged: it names the dataset, variable, axis and bound at fault.
"""


class GridStoreError(Exception):
    """Base class of every error the library reports. `code` is its StatusCode name."""

    code = "Unknown"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:  # KeyError would quote the message
        return self.message


class InvalidArgumentError(GridStoreError, ValueError):
    code = "InvalidArgument"


class NotFoundError(GridStoreError, KeyError):
    code = "NotFound"


class AlreadyExistsError(GridStoreError):
    code = "AlreadyExists"


class ResourceExhaustedError(GridStoreError, RuntimeError):
    code = "ResourceExhausted"


class FailedPreconditionError(GridStoreError, RuntimeError):
    code = "FailedPrecondition"


class AbortedError(GridStoreError, RuntimeError):
    code = "Aborted"


class OutOfRangeError(GridStoreError, IndexError):
    code = "OutOfRange"


class UnimplementedError(GridStoreError, NotImplementedError):
    code = "Unimplemented"


class InternalError(GridStoreError, RuntimeError):
    code = "Internal"


class UnavailableError(GridStoreError):
    code = "Unavailable"


class DataLossError(GridStoreError):
    code = "DataLoss"
