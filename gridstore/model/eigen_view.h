// Copyright 2026 The GridStore Authors.
//
// Eigen views of fetched grids, for applications that compute with Eigen's Tensor module. Kept out
// of grid.h so that only code that wants Eigen pays for its headers (they more than double the
// preprocessed size of every file that includes them).
//
//   GRIDSTORE_ASSIGN_OR_RETURN(GridDataSet result, fetcher->Fetch());
//   auto t = gridstore::grid::TensorView<float>(*result.GetVariable("t2m"));  // (t, z, x, y)
//   Eigen::Tensor<float, 0, Eigen::RowMajor> mean = t.mean();
#ifndef GRIDSTORE_MODEL_EIGEN_VIEW_H_
#define GRIDSTORE_MODEL_EIGEN_VIEW_H_

#include <unsupported/Eigen/CXX11/Tensor>

#include "gridstore/model/grid.h"

namespace gridstore::grid {

template <typename T>
using TensorMap4 = Eigen::TensorMap<Eigen::Tensor<T, 4, Eigen::RowMajor, Eigen::DenseIndex>>;

// A view of `grid`'s values, indexed (t, z, x, y) relative to its origin; valid while `grid`
// lives. REQUIRES: T matches grid.type().
template <typename T>
TensorMap4<T> TensorView(Grid4D& grid) {
  const Shape4& s = grid.shape();
  return TensorMap4<T>(grid.data<T>().data(), s[0], s[1], s[2], s[3]);
}
template <typename T>
TensorMap4<const T> TensorView(const Grid4D& grid) {
  const Shape4& s = grid.shape();
  return TensorMap4<const T>(grid.data<T>().data(), s[0], s[1], s[2], s[3]);
}

}  // namespace gridstore::grid

#endif  // GRIDSTORE_MODEL_EIGEN_VIEW_H_
