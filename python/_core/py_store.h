// Copyright 2026 The GridStore Authors.
//
// The objects the extension module exposes: PyStore (an open GridStore, shared by every Python
// thread) and PyWriter (a dataset being written from numpy). Their Python methods are bound in
// store_bindings.cc and writer_bindings.cc; python/gridstore/ wraps them in the public API.
#ifndef GRIDSTORE_PYTHON_CORE_PY_STORE_H_
#define GRIDSTORE_PYTHON_CORE_PY_STORE_H_

#include <pybind11/pybind11.h>

#include <memory>
#include <string>

#include "gridstore/grid/grid_store.h"

namespace gridstore::python {

// An open store. The GridStore is held by shared_ptr: every call copies it (under the GIL) before
// it releases the GIL, so Close() while other threads fetch waits for none of them and frees the
// store when the last one is done; writers hold it too, as a store must outlive its writers.
class PyStore {
 public:
  PyStore(std::string uri, std::shared_ptr<grid::GridStore> store)
      : uri_(std::move(uri)), store_(std::move(store)) {}

  // The store; ValueError if it was closed. REQUIRES: the GIL.
  std::shared_ptr<grid::GridStore> Get() const;
  // Drops this object's reference. REQUIRES: the GIL.
  void Close() { store_.reset(); }
  // Swaps in `store` (a reopened handle); calls running on the old one finish on it.
  // REQUIRES: the GIL.
  void Replace(std::shared_ptr<grid::GridStore> store) { store_ = std::move(store); }
  bool closed() const { return store_ == nullptr; }
  const std::string& uri() const { return uri_; }

 private:
  const std::string uri_;
  std::shared_ptr<grid::GridStore> store_;
};

void BindStore(pybind11::module_& m);
void BindWriter(pybind11::module_& m);
// Store._extract: the extraction library's result as a dict of numpy arrays.
void BindExtract(pybind11::class_<PyStore, std::shared_ptr<PyStore>>& store);
// Store.collections, collection, extract_collection[_bytes]: forecast collections.
void BindCollections(pybind11::class_<PyStore, std::shared_ptr<PyStore>>& store);

}  // namespace gridstore::python

#endif  // GRIDSTORE_PYTHON_CORE_PY_STORE_H_
