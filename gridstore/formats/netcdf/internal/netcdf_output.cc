// Copyright 2026 The GridStore Authors.
#include "gridstore/formats/netcdf/internal/netcdf_output.h"

#include <netcdf.h>
#include <netcdf_mem.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <utility>
#include <vector>

#include "gridstore/model/netcdf/netcdf_api.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_formats {

namespace netcdf = internal_netcdf::netcdf;
using internal_netcdf::LoadNetCdf;
using internal_netcdf::NetCdfLock;
using internal_netcdf::NetCdfMutex;
using internal_netcdf::ToNcType;

int NetCdf4Sink::DefDim(const char* name, size_t length, int* id) {
  return netcdf::nc_def_dim(ncid_, name, length, id);
}
int NetCdf4Sink::DefVar(const char* name, nc_type type, int ndims, const int* dimids, int* id) {
  return netcdf::nc_def_var(ncid_, name, type, ndims, dimids, id);
}
int NetCdf4Sink::DefCompression(int varid, const size_t* chunks) {
  const int rc = netcdf::nc_def_var_chunking(ncid_, varid, NC_CHUNKED, chunks);
  return rc != NC_NOERR ? rc : netcdf::nc_def_var_deflate(ncid_, varid, 1, 1, 1);
}
int NetCdf4Sink::DefFill(int varid, const void* value) {
  return netcdf::nc_def_var_fill(ncid_, varid, 0, value);
}
int NetCdf4Sink::PutAtt(int varid, const char* name, nc_type type, size_t n, const void* values) {
  return netcdf::nc_put_att(ncid_, varid, name, type, n, values);
}
int NetCdf4Sink::PutAttText(int varid, const char* name, size_t n, const char* text) {
  return netcdf::nc_put_att_text(ncid_, varid, name, n, text);
}
int NetCdf4Sink::EndDef() { return netcdf::nc_enddef(ncid_); }
int NetCdf4Sink::PutVarDouble(int varid, const double* values) {
  return netcdf::nc_put_var_double(ncid_, varid, values);
}
int NetCdf4Sink::PutVara(int varid, const size_t* start, const size_t* count, const void* values) {
  return netcdf::nc_put_vara(ncid_, varid, start, count, values);
}
const char* NetCdf4Sink::StrError(int rc) const { return netcdf::nc_strerror(rc); }

// Writes one attribute with its own type. Text (and bools, which netCDF lacks) become NC_CHAR.
int PutAttribute(NetCdfSink& sink, int varid, const std::string& name,
                 const grid::AttributeValue& a) {
  if (a.is_string()) {
    return sink.PutAttText(varid, name.c_str(), a.string_value().size(), a.string_value().data());
  }
  if (a.is_bool()) {
    const std::string text = a.bool_value() ? "true" : "false";
    return sink.PutAttText(varid, name.c_str(), text.size(), text.data());
  }
  return grid::VisitDataType(a.number_type(), [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> values;
    if constexpr (std::is_floating_point_v<T>) {
      for (double d : a.floats()) values.push_back(static_cast<T>(d));
    } else {
      for (int64_t i : a.integers()) values.push_back(static_cast<T>(i));
    }
    return sink.PutAtt(varid, name.c_str(), ToNcType(a.number_type()), values.size(),
                       values.data());
  });
}

int PutAttribute(int ncid, int varid, const std::string& name, const grid::AttributeValue& a) {
  NetCdf4Sink sink(ncid);
  return PutAttribute(sink, varid, name, a);
}

namespace {

// A new temporary file beside `path` (its name in *partial), open for writing: outputs are
// written there and renamed over `path` when whole (FinishPartial), so a failure never leaves
// half a file under the user's name.
Result<int> CreatePartialBeside(const std::string& path, std::string* partial) {
  *partial = path + ".partial-XXXXXX";
  const int fd = ::mkstemp(partial->data());
  if (fd < 0) {
    return Status::FailedPrecondition(
        Quote(path) +
        ": cannot create the file (a temporary beside it first): " + std::strerror(errno));
  }
  return fd;
}

// Renames `partial` over `path` if `s` is OK, else (or if that fails) removes it.
Status FinishPartial(const std::string& partial, const std::string& path, Status s) {
  std::error_code ec;
  if (s.ok()) {
    std::filesystem::rename(partial, path, ec);
    if (!ec) return Status::OK();
    s = Status::FailedPrecondition(Quote(path) + ": cannot replace the file: " + ec.message());
  }
  std::filesystem::remove(partial, ec);
  return s;
}

}  // namespace

Status WriteFileBytes(const NetCdfDestination& to, const std::string& bytes) {
  if (to.memory != nullptr) {
    *to.memory = bytes;
    return Status::OK();
  }
  const std::string& path = to.name;
  std::string partial;
  GRIDSTORE_ASSIGN_OR_RETURN(const int fd, CreatePartialBeside(path, &partial));
  int err = 0;
  for (size_t done = 0; done < bytes.size() && err == 0;) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno != EINTR) err = errno;
    if (n > 0) done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0 && err == 0) err = errno;
  return FinishPartial(
      partial, path,
      err == 0 ? Status::OK()
               : Status::Unavailable(Quote(path) + ": writing the file: " + std::strerror(err)));
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
  std::string partial;
  GRIDSTORE_ASSIGN_OR_RETURN(const int fd, CreatePartialBeside(path, &partial));
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
  return FinishPartial(partial, path, std::move(s));
}

Status NetCdfWriter::Check(int rc, const std::string& what) const {
  if (rc == NC_NOERR) return Status::OK();
  return Status::Unavailable(Quote(name_) + ": writing " + what + ": " + netcdf::nc_strerror(rc));
}

Status NetCdfWriter::Dim(const std::string& name, size_t length, int* id) {
  return Check(netcdf::nc_def_dim(ncid_, name.c_str(), length, id), "dimension " + Quote(name));
}

Status NetCdfWriter::Var(const std::string& name, const std::vector<int>& dims, int* id,
                         bool data) {
  static constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  GRIDSTORE_RETURN_IF_ERROR(
      Check(netcdf::nc_def_var(ncid_, name.c_str(), NC_DOUBLE, int(dims.size()), dims.data(), id),
            "variable " + Quote(name)));
  if (!data) return Check(netcdf::nc_def_var_fill(ncid_, *id, 1, nullptr), "variable " + name);
  return Check(netcdf::nc_def_var_fill(ncid_, *id, 0, &kNan), "the fill value of " + name);
}

Status NetCdfWriter::TypedVar(const std::string& name, int nc_type, const std::vector<int>& dims,
                              int* id) {
  GRIDSTORE_RETURN_IF_ERROR(
      Check(netcdf::nc_def_var(ncid_, name.c_str(), nc_type, int(dims.size()), dims.data(), id),
            "variable " + Quote(name)));
  // netCDF-C refuses NC_NOFILL for strings (NC_EINVAL); every string is written anyway.
  if (nc_type == NC_STRING) return Status::OK();
  return Check(netcdf::nc_def_var_fill(ncid_, *id, 1, nullptr), "variable " + name);
}

Status NetCdfWriter::Text(int varid, const std::string& name, const std::string& value) {
  return Check(netcdf::nc_put_att_text(ncid_, varid, name.c_str(), value.size(), value.data()),
               "attribute " + Quote(name));
}

Status NetCdfWriter::CopyAttributes(int varid, const grid::Attributes& attributes) {
  for (const auto& [name, value] : attributes) {
    if (name == "units" || name == "calendar" || name == "standard_name" || name == "long_name" ||
        name == "positive" || name == "axis") {
      GRIDSTORE_RETURN_IF_ERROR(
          Check(PutAttribute(ncid_, varid, name, value), "attribute " + Quote(name)));
    }
  }
  return Status::OK();
}

Status NetCdfWriter::Put(int varid, const std::vector<double>& values, const std::string& name) {
  return Check(netcdf::nc_put_var_double(ncid_, varid, values.data()), "variable " + Quote(name));
}

Status NetCdfWriter::PutInts(int varid, const std::vector<int>& values, const std::string& name) {
  const size_t start = 0, count = values.size();
  return Check(netcdf::nc_put_vara(ncid_, varid, &start, &count, values.data()),
               "variable " + Quote(name));
}

Status NetCdfWriter::PutStrings(int varid, const std::vector<std::string>& values,
                                const std::string& name) {
  std::vector<const char*> pointers;
  for (const std::string& v : values) pointers.push_back(v.c_str());
  const size_t start = 0, count = values.size();
  return Check(netcdf::nc_put_vara(ncid_, varid, &start, &count, pointers.data()),
               "variable " + Quote(name));
}

Status NetCdfWriter::EndDef() { return Check(netcdf::nc_enddef(ncid_), "the header"); }

}  // namespace gridstore::internal_formats
