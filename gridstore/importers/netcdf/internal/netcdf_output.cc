// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/netcdf/internal/netcdf_output.h"

#include <netcdf.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "gridstore/importers/netcdf/internal/netcdf_api.h"
#include "gridstore/importers/netcdf/internal/netcdf_util.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_importers {

// Writes one attribute with its own type. Text (and bools, which netCDF lacks) become NC_CHAR.
int PutAttribute(int ncid, int varid, const std::string& name, const grid::AttributeValue& a) {
  if (a.is_string()) {
    return netcdf::nc_put_att_text(ncid, varid, name.c_str(), a.string_value().size(),
                                   a.string_value().data());
  }
  if (a.is_bool()) {
    const std::string text = a.bool_value() ? "true" : "false";
    return netcdf::nc_put_att_text(ncid, varid, name.c_str(), text.size(), text.data());
  }
  return grid::VisitDataType(a.number_type(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> values;
    if constexpr (std::is_floating_point_v<T>) {
      for (double d : a.floats()) values.push_back(static_cast<T>(d));
    } else {
      for (int64_t i : a.integers()) values.push_back(static_cast<T>(i));
    }
    return netcdf::nc_put_att(ncid, varid, name.c_str(), ToNcType(a.number_type()), values.size(),
                              values.data());
  });
}

Status WriteNetCdfFile(const std::string& path, const std::function<Status(int ncid)>& write) {
  GRIDSTORE_RETURN_IF_ERROR(LoadNetCdf());
  std::string partial = path + ".partial-XXXXXX";
  const int fd = ::mkstemp(partial.data());
  if (fd < 0) {
    return Status::FailedPrecondition(
        Quote(path) +
        ": cannot create the file (a temporary beside it first): " + std::strerror(errno));
  }
  ::close(fd);
  NetCdfLock lock(NetCdfMutex());
  int ncid = -1;
  int rc = netcdf::nc_create(partial.c_str(), NC_NETCDF4 | NC_CLOBBER, &ncid);
  std::error_code ec;
  if (rc != NC_NOERR) {
    std::filesystem::remove(partial, ec);
    return Status::FailedPrecondition(Quote(path) +
                                      ": cannot create the file: " + netcdf::nc_strerror(rc));
  }
  Status s = write(ncid);
  rc = netcdf::nc_close(ncid);
  if (s.ok() && rc != NC_NOERR) {
    s = Status::Unavailable(Quote(path) + ": writing the file: " + netcdf::nc_strerror(rc));
  }
  if (s.ok()) {
    std::filesystem::rename(partial, path, ec);
    if (!ec) return Status::OK();
    s = Status::FailedPrecondition(Quote(path) + ": cannot replace the file: " + ec.message());
  }
  std::filesystem::remove(partial, ec);
  return s;
}

}  // namespace gridstore::internal_importers
