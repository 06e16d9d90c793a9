// Copyright 2026 The GridStore Authors.
//
// Small meta builders for tests of the data model and the modules above it. Free of gtest, so
// that the fuzzers (tests/fuzz, built without it) use them as well; grid_testutil.h includes it.
#ifndef GRIDSTORE_TESTS_MODEL_MODEL_TESTUTIL_H_
#define GRIDSTORE_TESTS_MODEL_MODEL_TESTUTIL_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gridstore/model/grid_meta.h"

namespace gridstore::testing {

// A 1-D coordinate variable `name` over the dimension of the same name, with CF units (and a
// standard_name and a calendar if given).
inline grid::Coordinate Coord1D(std::string name, std::vector<double> values, std::string units,
                                std::string standard_name = "", std::string calendar = "") {
  grid::Coordinate c;
  c.name = name;
  c.dimensions = {name};
  c.shape = {int64_t(values.size())};
  c.values = std::move(values);
  c.attributes["units"] = grid::AttributeValue::String(std::move(units));
  if (!standard_name.empty()) {
    c.attributes["standard_name"] = grid::AttributeValue::String(std::move(standard_name));
  }
  if (!calendar.empty())
    c.attributes["calendar"] = grid::AttributeValue::String(std::move(calendar));
  return c;
}

}  // namespace gridstore::testing

#endif  // GRIDSTORE_TESTS_MODEL_MODEL_TESTUTIL_H_
