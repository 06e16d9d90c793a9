// Copyright 2026 The GridStore Authors.
//
// What every netCDF writer shares: attributes written with their own types, and a new file made
// either beside its final path (renamed over it only once complete) or in memory (the HTTP
// service's answers: no temporary file to write and read back).
#ifndef GRIDSTORE_FORMATS_NETCDF_INTERNAL_NETCDF_OUTPUT_H_
#define GRIDSTORE_FORMATS_NETCDF_INTERNAL_NETCDF_OUTPUT_H_

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

// Writes one attribute with its own type (a netCDF status code). Text (and bools, which netCDF
// lacks) become NC_CHAR.
int PutAttribute(int ncid, int varid, const std::string& name, const grid::AttributeValue& a);

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
