// Copyright 2026 The GridStore Authors.
//
// What every netCDF writer shares: attributes written with their own types, and a new file made
// either beside its final path (renamed over it only once complete) or in memory (the HTTP
// service's answers: no temporary file to write and read back).
#ifndef GRIDSTORE_FORMATS_NETCDF_INTERNAL_NETCDF_OUTPUT_H_
#define GRIDSTORE_FORMATS_NETCDF_INTERNAL_NETCDF_OUTPUT_H_

#include <netcdf.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "gridstore/formats/netcdf/netcdf_exporter.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/status.h"

namespace gridstore::internal_formats {

// Where a netCDF writer puts its file: the path `name`, or, if `memory` is set, *memory (the
// file's bytes; `name` then only names it in messages).
struct NetCdfDestination {
  std::string name;
  std::string* memory = nullptr;
};

// The netCDF calls that fill a new file, each answering a netCDF status code (NC_NOERR...): to
// netCDF-C (NetCdf4Sink, a netCDF-4 file) or to GridStore's own classic file (classic_file.h), so
// that one writer fills either kind.
class NetCdfSink {
 public:
  virtual ~NetCdfSink() = default;
  virtual int DefDim(const char* name, size_t length, int* id) = 0;
  virtual int DefVar(const char* name, nc_type type, int ndims, const int* dimids, int* id) = 0;
  // Chunks of `chunks` (one per dimension), deflate level 1 with shuffle: netCDF-4 only.
  virtual int DefCompression(int varid, const size_t* chunks) = 0;
  // The fill value (one value of the variable's type), written as its _FillValue attribute.
  virtual int DefFill(int varid, const void* value) = 0;
  virtual int PutAtt(int varid, const char* name, nc_type type, size_t n, const void* values) = 0;
  virtual int PutAttText(int varid, const char* name, size_t n, const char* text) = 0;
  virtual int EndDef() = 0;
  // Every value of a variable, from doubles (converted to its type).
  virtual int PutVarDouble(int varid, const double* values) = 0;
  // A hyperslab, the values in the variable's own type.
  virtual int PutVara(int varid, const size_t* start, const size_t* count, const void* values) = 0;
  virtual const char* StrError(int rc) const = 0;
};

// A netCDF-C file `ncid`, open in define mode. REQUIRES: LoadNetCdf() succeeded.
class NetCdf4Sink : public NetCdfSink {
 public:
  explicit NetCdf4Sink(int ncid) : ncid_(ncid) {}
  int DefDim(const char* name, size_t length, int* id) override;
  int DefVar(const char* name, nc_type type, int ndims, const int* dimids, int* id) override;
  int DefCompression(int varid, const size_t* chunks) override;
  int DefFill(int varid, const void* value) override;
  int PutAtt(int varid, const char* name, nc_type type, size_t n, const void* values) override;
  int PutAttText(int varid, const char* name, size_t n, const char* text) override;
  int EndDef() override;
  int PutVarDouble(int varid, const double* values) override;
  int PutVara(int varid, const size_t* start, const size_t* count, const void* values) override;
  const char* StrError(int rc) const override;

 private:
  int ncid_;
};

// Writes one attribute with its own type (a netCDF status code). Text (and bools, which netCDF
// lacks) become NC_CHAR.
int PutAttribute(NetCdfSink& sink, int varid, const std::string& name,
                 const grid::AttributeValue& a);
int PutAttribute(int ncid, int varid, const std::string& name, const grid::AttributeValue& a);

// Writes `bytes` (a whole file made without netCDF-C) to `to` as WriteNetCdfFile does: beside the
// path and renamed over it once complete, or to *to.memory.
Status WriteFileBytes(const NetCdfDestination& to, const std::string& bytes);

// Creates a netCDF-4 file at `to` and lets `write` fill it (under the netCDF lock). A path gets a
// fresh temporary name beside it (O_EXCL: nothing that exists is clobbered), renamed over the
// path only if everything succeeded, otherwise removed; memory (nc_create_mem) is copied to
// *to.memory only if everything succeeded. Loads netCDF-C first. Errors name `to.name`.
Status WriteNetCdfFile(const NetCdfDestination& to, const std::function<Status(int ncid)>& write);

// Defining and filling a file through the C API, each error an Unavailable naming the file
// (`name`) and what was written. Call only inside WriteNetCdfFile's `write` (under the lock).
class NetCdfWriter {
 public:
  NetCdfWriter(std::string name, int ncid) : name_(std::move(name)), ncid_(ncid) {}

  Status Dim(const std::string& name, size_t length, int* id);
  // A double variable; data (not coordinates, which CF forbids to miss values) gets NaN fill.
  Status Var(const std::string& name, const std::vector<int>& dims, int* id, bool data = false);
  // A variable of netCDF type `nc_type` (NC_INT, NC_STRING...), without fill (strings: the
  // library's default).
  Status TypedVar(const std::string& name, int nc_type, const std::vector<int>& dims, int* id);
  Status Text(int varid, const std::string& name, const std::string& value);
  // The attributes of a coordinate or variable that still apply to extracted values: units,
  // calendar, standard_name, long_name, positive, axis.
  Status CopyAttributes(int varid, const grid::Attributes& attributes);
  // Every value of a double variable.
  Status Put(int varid, const std::vector<double>& values, const std::string& name);
  // Every value of a 1-D NC_INT / NC_STRING variable.
  Status PutInts(int varid, const std::vector<int>& values, const std::string& name);
  Status PutStrings(int varid, const std::vector<std::string>& values, const std::string& name);
  Status EndDef();

 private:
  Status Check(int rc, const std::string& what) const;
  std::string name_;
  int ncid_;
};

// formats::WriteNetCdf to either destination (netcdf_exporter.cc).
Status WriteNetCdfDataSet(const NetCdfDestination& to, const grid::DataSetMeta& meta,
                          const grid::GridDataSet& data,
                          const formats::NetCdfExportOptions& options);

}  // namespace gridstore::internal_formats

#endif  // GRIDSTORE_FORMATS_NETCDF_INTERNAL_NETCDF_OUTPUT_H_
