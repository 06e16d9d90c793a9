// Copyright 2026 The GridStore Authors.
#include "gridstore/formats/netcdf/internal/netcdf_output.h"

#include <netcdf.h>
#include <netcdf_mem.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <vector>

#include "gridstore/model/netcdf/netcdf_api.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_formats {

namespace netcdf = internal_netcdf::netcdf;
using internal_netcdf::LoadNetCdf;
using internal_netcdf::NetCdfLock;
using internal_netcdf::NetCdfMutex;
using internal_netcdf::ToNcType;

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

namespace {

// The in-memory file: nc_create_mem, then nc_close_memio hands back the bytes (malloc'ed).
Status WriteInMemory(const NetCdfDestination& to, const std::function<Status(int ncid)>& write) {
  NetCdfLock lock(NetCdfMutex());
  int ncid = -1;
  int rc = netcdf::nc_create_mem(to.name.c_str(), NC_NETCDF4, 1 << 20, &ncid);
  if (rc != NC_NOERR) {
    return Status::FailedPrecondition(
        Quote(to.name) + ": cannot create the file in memory: " + netcdf::nc_strerror(rc));
  }
  Status s = write(ncid);
  NC_memio memio{};
  rc = netcdf::nc_close_memio(ncid, &memio);
  if (s.ok() && rc != NC_NOERR) {
    s = Status::Unavailable(Quote(to.name) + ": writing the file: " + netcdf::nc_strerror(rc));
  }
  if (s.ok() && memio.memory != nullptr) {
    to.memory->assign(static_cast<const char*>(memio.memory), memio.size);
  }
  std::free(memio.memory);
  return s;
}

}  // namespace

Status WriteNetCdfFile(const NetCdfDestination& to, const std::function<Status(int ncid)>& write) {
  GRIDSTORE_RETURN_IF_ERROR(LoadNetCdf());
  if (to.memory != nullptr) return WriteInMemory(to, write);
  const std::string& path = to.name;
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

}  // namespace gridstore::internal_formats
