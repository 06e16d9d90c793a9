// Copyright 2026 The GridStore Authors.
//
// Reading a netCDF file through netCDF-C (loaded at run time: netcdf_api.h): opening it with
// clear errors (missing, not netCDF, truncated or corrupt), its root group's structure and
// attributes, and coordinate values. netCDF-C errors become a Status here, naming the file and
// the variable. Callers hold NetCdfMutex() around every call.
#ifndef GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_NETCDF_FILE_H_
#define GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_NETCDF_FILE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "gridstore/importers/netcdf/internal/cf_mapping.h"
#include "gridstore/util/result.h"
#include "gridstore/util/status.h"

namespace gridstore::internal_importers {

// A netCDF-C failure while working on `path` (and `what`: "variable 'T'", ...) as a Status.
// Errors a well-formed file cannot cause are Internal; an errno is I/O trouble; the rest mean the
// file is not what its header says (HDF5 errors, failed filters, short reads): DataLoss.
Status NcError(int code, const std::string& path, const std::string& what);

// An open netCDF file, closed (under NetCdfMutex) when destroyed.
class NcFile {
 public:
  explicit NcFile(int ncid) : ncid_(ncid) {}
  ~NcFile();
  NcFile(const NcFile&) = delete;
  NcFile& operator=(const NcFile&) = delete;
  int id() const { return ncid_; }

 private:
  const int ncid_;
};

// Opens `path` read-only. NotFound, InvalidArgument (a directory, not a netCDF file),
// FailedPrecondition (cannot be opened) or DataLoss (truncated or corrupt), naming the path.
Result<std::unique_ptr<NcFile>> OpenNetCdf(const std::string& path);

// The root group's variables and attributes (other groups are noted as skipped).
Result<FileStructure> ReadStructure(int ncid, const std::string& path);

// Reads the values of plan->meta.coordinates from their source variables.
Status ReadCoordinateValues(int ncid, const std::string& path, ImportPlan* plan);

// The numbers of plan->member_dim's members (ImportPlan::members): its coordinate variable's
// values if they are distinct whole numbers >= 0, else 0, 1, 2... (with a note in plan->notes).
// Nothing if the plan has no member dimension.
Status ReadMembers(int ncid, const std::string& path, const FileStructure& f, ImportPlan* plan);

// The run's reference time, in ms since 1970-01-01 UTC, from the file's CF
// forecast_reference_time (FindForecastReferenceTime): nullopt if it has none, or (with a note
// in *notes saying why) one that gives no single date: several different values, no or bad
// units. NcError if netCDF cannot read it.
Result<std::optional<int64_t>> ReadRunTime(int ncid, const std::string& path,
                                           const FileStructure& f, std::vector<std::string>* notes);

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_NETCDF_FILE_H_
