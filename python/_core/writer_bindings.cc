// Copyright 2026 The GridStore Authors.
//
// _core.Writer: a dataset written from numpy. Store.create_dataset stores its meta with status
// INIT (or, replacing a dataset, begins a replacement beside it); planes are compressed and
// written on the store's threads without the GIL; finish() marks it DONE (or switches the
// replacement in), abort() removes what was written.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cstring>
#include <memory>
#include <string>

#include "gridstore/grid/grid_store.h"
#include "python/_core/convert.h"
#include "python/_core/errors.h"
#include "python/_core/py_store.h"

namespace gridstore::python {
namespace {

namespace py = pybind11;
using grid::GridStore;

class PyWriter {
 public:
  // Stores the meta (status INIT) and opens a writer; with `overwrite`, an existing dataset of
  // the id stays readable until finish().
  PyWriter(std::shared_ptr<GridStore> store, grid::DataSetMeta meta, bool overwrite)
      : store_(std::move(store)), meta_(std::move(meta)), replacing_(overwrite) {
    meta_.set_status(grid::kStatusInit);
    py::gil_scoped_release release;
    if (replacing_) {
      meta_ = ValueOrThrow(store_->BeginReplacement(meta_));
      writer_ = ValueOrThrow(store_->GetReplacementWriter(meta_));
      return;
    }
    auto existing = store_->GetDataSetMeta(meta_.id);
    if (existing.ok()) {
      ThrowIfError(Status::AlreadyExists("dataset '" + meta_.id +
                                         "' exists: delete it first, or pass overwrite=True"));
    }
    if (!existing.status().IsNotFound()) ThrowIfError(existing.status());
    ThrowIfError(store_->PutDataSetMeta(meta_));
    meta_ = ValueOrThrow(store_->GetDataSetMeta(meta_.id));
    writer_ = ValueOrThrow(store_->GetDataWriter(meta_.id));
  }

  // Writes `values` (t, z, x, y), C-contiguous and of the variable's type (the Python layer
  // converts), as the planes (t0 + i, z0 + j). Returns once every plane is stored.
  void Write(const std::string& variable, const py::array& values, int64_t t0, int64_t z0) {
    CheckOpen();
    if (values.ndim() != 4) throw py::value_error("Writer.write: values must be 4-D (t, z, x, y)");
    const grid::DataType type = DataTypeOf(values.dtype(), "variable '" + variable + "'");
    const int64_t nt = values.shape(0), nz = values.shape(1), nx = values.shape(2),
                  ny = values.shape(3);
    const auto* bytes = static_cast<const char*>(values.data());
    const size_t plane_bytes = size_t(nx * ny) * grid::DataTypeSize(type);
    py::gil_scoped_release release;  // `values` stays referenced by the caller meanwhile
    for (int64_t t = 0; t < nt; ++t) {
      for (int64_t z = 0; z < nz; ++z) {
        grid::Grid2D plane(type, nx, ny);
        std::memcpy(plane.bytes(), bytes + size_t(t * nz + z) * plane_bytes, plane_bytes);
        ThrowIfError(writer_->SubmitGrid2D(variable, t0 + t, z0 + z, std::move(plane)));
      }
    }
    ThrowIfError(writer_->Flush());
  }

  // Publishes the dataset through the library's GridDataWriter::Finish: DONE with create_time,
  // refused (naming the planes never written) unless complete or `allow_missing`.
  void Finish(const py::object& attributes, bool allow_missing) {
    CheckOpen();
    grid::FinishOptions options;
    options.attributes = AttributesFromPython(attributes, "dataset '" + meta_.id + "'");
    options.allow_missing = allow_missing;
    py::gil_scoped_release release;
    ThrowIfError(writer_->Finish(options));
    writer_.reset();
    done_ = true;
  }

  // Removes what was written: the new dataset, or the replacement (the old dataset stays).
  void Abort() {
    if (done_) return;
    done_ = true;
    py::gil_scoped_release release;
    if (writer_) writer_->Flush().IgnoreError();  // its errors no longer matter
    writer_.reset();
    ThrowIfError(replacing_ ? store_->AbandonReplacement(meta_) : store_->DeleteDataSet(meta_.id));
    ThrowIfError(store_->Flush());
  }

  bool done() const { return done_; }
  py::dict Stats() const {
    py::dict out;
    if (!writer_) return out;
    const grid::WriteStats s = writer_->stats();
    out["planes"] = s.planes;
    out["blocks"] = s.blocks;
    out["raw_bytes"] = s.raw_bytes;
    out["stored_bytes"] = s.stored_bytes;
    return out;
  }
  py::dict Meta() const { return MetaToPython(meta_); }

 private:
  void CheckOpen() const {
    if (done_) {
      throw py::value_error("the writer of dataset '" + meta_.id +
                            "' is finished or aborted: create the dataset again to write more");
    }
  }

  std::shared_ptr<GridStore> store_;  // outlives writer_ (declared first, destroyed last)
  grid::DataSetMeta meta_;
  const bool replacing_;
  std::unique_ptr<grid::GridDataWriter> writer_;
  bool done_ = false;
};

}  // namespace

void BindWriter(py::module_& m) {
  py::class_<PyWriter>(m, "Writer")
      .def("write", &PyWriter::Write, py::arg("variable"), py::arg("values"), py::arg("t0"),
           py::arg("z0"))
      .def("finish", &PyWriter::Finish, py::arg("attributes"), py::arg("allow_missing") = false)
      .def("abort", &PyWriter::Abort)
      .def_property_readonly("done", &PyWriter::done)
      .def_property_readonly("stats", &PyWriter::Stats)
      .def_property_readonly("meta", &PyWriter::Meta);
  m.def(
      "create_dataset",
      [](PyStore& store, const py::dict& meta, bool overwrite) {
        return std::make_unique<PyWriter>(store.Get(), MetaFromPython(meta), overwrite);
      },
      py::arg("store"), py::arg("meta"), py::arg("overwrite"));
}

}  // namespace gridstore::python
