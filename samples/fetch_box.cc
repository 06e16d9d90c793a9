// Copyright 2026 The GridStore Authors.
//
// A 4-D box: origin {2, 5, 10, 10}, shape {3, 10, 30, 30}, with an Eigen view of the result.
#include "gridstore/model/eigen_view.h"
#include "sample_common.h"

int main(int argc, char** argv) {
  auto result = samples::FetchSample(argc, argv, {"pressure"}, {2, 5, 10, 10}, {3, 10, 30, 30});
  const auto& grid = *result.GetVariable("pressure");
  samples::Verify(grid, 1);
  auto tensor = gridstore::grid::TensorView<float>(grid);
  Eigen::Tensor<float, 0, Eigen::RowMajor> mean = tensor.mean();
  std::printf("pressure box %ldx%ldx%ldx%ld, mean %.4f\n", long(tensor.dimension(0)),
              long(tensor.dimension(1)), long(tensor.dimension(2)), long(tensor.dimension(3)),
              mean());
  return 0;
}
