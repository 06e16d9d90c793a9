// Copyright 2026 The GridStore Authors.
//
// Small netCDF and npy helpers for the command's tests: a tiny netCDF-4 file written through
// netCDF-C, a variable read back as raw bytes, the data of an .npy file, and file-system checks.
#ifndef GRIDSTORE_TESTS_TOOLS_NC_TESTUTIL_H_
#define GRIDSTORE_TESTS_TOOLS_NC_TESTUTIL_H_

#include <gtest/gtest.h>
#include <netcdf.h>
#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace gridstore::testing {

// A netCDF-4 file with 1-D coordinates time(nt), level(nz), lat(nx), lon(ny) and, for each name
// in `variables`, a float variable over (time, level, lat, lon) whose i-th value (C order) is
// 100 * (index of the variable + 1) + 0.25 * i.
inline void WriteTestNetCdf(const std::string& path, const std::vector<std::string>& variables,
                            size_t nt = 2, size_t nz = 1, size_t nx = 30, size_t ny = 40) {
  int nc, d[4];
  ASSERT_EQ(nc_create(path.c_str(), NC_NETCDF4 | NC_CLOBBER, &nc), NC_NOERR) << path;
  const char* dims[] = {"time", "level", "lat", "lon"};
  const size_t sizes[] = {nt, nz, nx, ny};
  std::vector<int> coords(4), vars(variables.size());
  for (int i = 0; i < 4; ++i) {
    ASSERT_EQ(nc_def_dim(nc, dims[i], sizes[i], &d[i]), NC_NOERR);
    ASSERT_EQ(nc_def_var(nc, dims[i], NC_DOUBLE, 1, &d[i], &coords[i]), NC_NOERR);
  }
  ASSERT_EQ(nc_put_att_text(nc, coords[1], "positive", 4, "down"), NC_NOERR);
  for (size_t v = 0; v < variables.size(); ++v) {
    ASSERT_EQ(nc_def_var(nc, variables[v].c_str(), NC_FLOAT, 4, d, &vars[v]), NC_NOERR)
        << variables[v];
  }
  ASSERT_EQ(nc_enddef(nc), NC_NOERR);
  for (int i = 0; i < 4; ++i) {
    std::vector<double> values(sizes[i]);
    for (size_t k = 0; k < sizes[i]; ++k) values[k] = 10.0 * i + static_cast<double>(k);
    ASSERT_EQ(nc_put_var_double(nc, coords[i], values.data()), NC_NOERR);
  }
  const size_t n = nt * nz * nx * ny;
  for (size_t v = 0; v < variables.size(); ++v) {
    std::vector<float> values(n);
    for (size_t i = 0; i < n; ++i) {
      values[i] = 100.f * static_cast<float>(v + 1) + 0.25f * static_cast<float>(i);
    }
    ASSERT_EQ(nc_put_var_float(nc, vars[v], values.data()), NC_NOERR);
  }
  ASSERT_EQ(nc_close(nc), NC_NOERR);
}

// Every value of `var` in `path` as raw bytes of its type; "<...>" if it cannot be read.
inline std::string NcReadAll(const std::string& path, const std::string& var) {
  int nc, id, ndims;
  nc_type type;
  size_t size;
  if (nc_open(path.c_str(), NC_NOWRITE, &nc) != NC_NOERR) return "<cannot open>";
  if (nc_inq_varid(nc, var.c_str(), &id) != NC_NOERR) {
    nc_close(nc);
    return "<no variable>";
  }
  nc_inq_vartype(nc, id, &type);
  nc_inq_type(nc, type, nullptr, &size);
  nc_inq_varndims(nc, id, &ndims);
  std::vector<int> dims(static_cast<size_t>(ndims));
  nc_inq_vardimid(nc, id, dims.data());
  size_t n = 1;
  for (int d : dims) {
    size_t len;
    nc_inq_dimlen(nc, d, &len);
    n *= len;
  }
  std::string bytes(n * size, '\0');
  const int rc = nc_get_var(nc, id, bytes.data());
  nc_close(nc);
  return rc == NC_NOERR ? bytes : "<read error>";
}

// The data bytes of an .npy file (after its header).
inline std::string NpyData(const std::string& npy) {
  if (npy.size() < 10) return "<short>";
  const size_t len = static_cast<uint8_t>(npy[8]) | (static_cast<uint8_t>(npy[9]) << 8);
  return npy.size() < 10 + len ? "<short>" : npy.substr(10 + len);
}

// lstat's mode of `path`, 0 if it does not exist.
inline mode_t LstatMode(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0 ? st.st_mode : 0;
}

// The names in `folder` that our output files' private folders have (".NAME.gridstore-tmp-...").
inline std::vector<std::string> TempLeftovers(const std::string& folder) {
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(folder, ec)) {
    const std::string name = e.path().filename().string();
    if (name.find(".gridstore-tmp-") != std::string::npos) found.push_back(name);
  }
  return found;
}

}  // namespace gridstore::testing

#endif  // GRIDSTORE_TESTS_TOOLS_NC_TESTUTIL_H_
