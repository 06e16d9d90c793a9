// Copyright 2026 The GridStore Authors.
//
// Helpers for tests that write or read NetCDF files through netCDF-C.
#ifndef GRIDSTORE_TESTS_IMPORTERS_NETCDF_TESTUTIL_H_
#define GRIDSTORE_TESTS_IMPORTERS_NETCDF_TESTUTIL_H_

#include <gtest/gtest.h>
#include <netcdf.h>

// Asserts that a netCDF-C call returned NC_NOERR, printing the call and netCDF's message.
#define ASSERT_NC(expr)                                            \
  do {                                                             \
    const int rc_ = (expr);                                        \
    ASSERT_EQ(rc_, NC_NOERR) << #expr << ": " << nc_strerror(rc_); \
  } while (0)

#endif  // GRIDSTORE_TESTS_IMPORTERS_NETCDF_TESTUTIL_H_
