// Copyright 2026 The GridStore Authors.
//
// A vertical profile: every level at one point and time, origin {0, 0, 0, 0}, shape {1, Z, 1, 1}.
#include "sample_common.h"

int main(int argc, char** argv) {
  const auto& s = samples::kShape;
  auto result = samples::FetchSample(argc, argv, {"temperature"}, {0, 0, 0, 0}, {1, s[1], 1, 1});
  const auto& grid = *result.GetVariable("temperature");
  samples::Verify(grid, 0);
  for (int64_t z = 0; z < s[1]; ++z)
    std::printf("level %ld: %.3f\n", long(z), grid.at<float>(0, z, 0, 0));
  return 0;
}
