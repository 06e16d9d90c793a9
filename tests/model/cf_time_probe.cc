// Copyright 2026 The GridStore Authors.
//
// Reads lines "UNITS|CALENDAR|VALUE" and prints each value's date (to the microsecond) as
// GridStore computes it, or "error: ..." for tests/model/cf_time_vs_cftime.py to compare.
#include <cstdio>
#include <iostream>
#include <string>

#include "gridstore/model/cf_time.h"

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    const size_t a = line.find('|'), b = line.find('|', a + 1);
    auto units =
        gridstore::grid::TimeUnits::Parse(line.substr(0, a), line.substr(a + 1, b - a - 1));
    if (!units.ok()) {
      std::cout << "error: " << units.status().ToString() << "\n";
      continue;
    }
    auto t = units->ToCivil(std::stod(line.substr(b + 1)));
    if (!t.ok()) {
      std::cout << "error: " << t.status().ToString() << "\n";
      continue;
    }
    std::cout << gridstore::grid::FormatIsoTime(*t) << "\n";
  }
  return 0;
}
