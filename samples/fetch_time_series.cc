// Copyright 2026 The GridStore Authors.
//
// One point's time series: every forecast time at one level and grid point.
#include "sample_common.h"

int main(int argc, char** argv) {
  const auto& s = samples::kShape;
  auto result = samples::FetchSample(argc, argv, {"humidity"}, {0, 3, 45, 90}, {s[0], 1, 1, 1});
  const auto& grid = *result.GetVariable("humidity");
  samples::Verify(grid, 2);
  for (float v : grid.data<float>()) std::printf("%.3f ", v);
  std::printf("\n");
  return 0;
}
