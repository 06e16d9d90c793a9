// Copyright 2026 The GridStore Authors.
//
// Every variable at one point, time and level (no variable list means all of them).
#include "sample_common.h"

int main(int argc, char** argv) {
  auto result = samples::FetchSample(argc, argv, {}, {4, 7, 60, 120}, {1, 1, 1, 1});
  if (result.variables.size() != 3) return 1;
  for (int v = 0; v < 3; ++v) {
    const auto& grid = *result.GetVariable(samples::kVariables[v]);
    samples::Verify(grid, v);
    std::printf("%s = %.4f\n", samples::kVariables[v], grid.at<float>(0, 0, 0, 0));
  }
  return 0;
}
