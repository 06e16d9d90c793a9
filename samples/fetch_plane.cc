// Copyright 2026 The GridStore Authors.
//
// One whole horizontal plane: origin {0, 0, 0, 0}, shape {1, 1, X, Y}.
#include "sample_common.h"

int main(int argc, char** argv) {
  const auto& s = samples::kShape;
  auto result = samples::FetchSample(argc, argv, {"temperature"}, {0, 0, 0, 0}, {1, 1, s[2], s[3]});
  samples::Verify(*result.GetVariable("temperature"), 0);
  std::printf("temperature at (t=0, z=0): %ld x %ld values\n", long(s[2]), long(s[3]));
  return 0;
}
