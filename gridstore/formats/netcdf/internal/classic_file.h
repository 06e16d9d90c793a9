// Copyright 2026 The GridStore Authors.
//
// A netCDF classic file (CDF-2, "64-bit offset", or CDF-5, "64-bit data") written by GridStore
// itself, in memory:
// a small answer (a point series, a profile, a region, a plane) then needs neither netCDF-C nor
// HDF5, whose loading and start-up cost a short `gridstore fetch -o out.nc` most of its run time
// (docs/design/library-and-build.md). The format is Unidata's "Classic Format Specification"
// (https://docs.unidata.ucar.edu/netcdf-c/current/file_format_specifications.html): a big-endian
// header (dimensions, global attributes, variables with their attributes, types, sizes and
// offsets) followed by each variable's values, big-endian, each padded to 4 bytes. Only fixed
// dimensions; no records. CDF-2 has the six classic types (byte, char, short, int, float,
// double); CDF-5 adds the unsigned and 64-bit integers (netCDF-C reads it since 4.4; so do
// ncdump and xarray's netCDF4 engine, not scipy's), and is chosen only when they are needed.
//
// It takes the calls netCDF-C would (NetCdfSink) and answers them with netCDF status codes, so
// that one writer (netcdf_exporter.cc) fills either kind of file. The whole file is held in memory:
// callers use it only for answers of bounded size.
#ifndef GRIDSTORE_FORMATS_NETCDF_INTERNAL_CLASSIC_FILE_H_
#define GRIDSTORE_FORMATS_NETCDF_INTERNAL_CLASSIC_FILE_H_

#include <netcdf.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/formats/netcdf/internal/netcdf_output.h"
#include "gridstore/model/data_type.h"

namespace gridstore::internal_formats {

// The netCDF type of `type` in a CDF-2 file: NC_BYTE, NC_SHORT, NC_INT, NC_FLOAT or NC_DOUBLE;
// nullopt for the unsigned and 64-bit types (netCDF-4 or CDF-5 only).
std::optional<nc_type> ClassicType(grid::DataType type);

// True if `name` is written the same by netCDF-C into either kind of file: printable ASCII, not
// '/', starting with a letter, digit or '_', not ending in a space, at most NC_MAX_NAME bytes.
// (netCDF-C also accepts UTF-8, which it normalizes: those names are left to it.)
bool IsPlainNetCdfName(std::string_view name);

class ClassicNetCdfFile : public NetCdfSink {
 public:
  enum class Kind { kCdf2, kCdf5 };
  explicit ClassicNetCdfFile(Kind kind) : cdf5_(kind == Kind::kCdf5) {}

  int DefDim(const char* name, size_t length, int* id) override;
  int DefVar(const char* name, nc_type type, int ndims, const int* dimids, int* id) override;
  // A classic file is neither chunked nor compressed.
  int DefCompression(int /*varid*/, const size_t* /*chunks*/) override { return NC_NOERR; }
  int DefFill(int varid, const void* value) override;
  int PutAtt(int varid, const char* name, nc_type type, size_t n, const void* values) override;
  int PutAttText(int varid, const char* name, size_t n, const char* text) override;
  // Lays the variables out after the header; after it, only values are written.
  int EndDef() override;
  int PutVarDouble(int varid, const double* values) override;
  int PutVara(int varid, const size_t* start, const size_t* count, const void* values) override;
  const char* StrError(int rc) const override;

  // The whole file. REQUIRES: EndDef() succeeded.
  const std::string& bytes() const { return bytes_; }

 private:
  struct Attribute {
    std::string name;
    nc_type type = NC_CHAR;
    size_t count = 0;
    std::string values;  // big-endian
  };
  struct Variable {
    std::string name;
    nc_type type = NC_DOUBLE;
    std::vector<int> dims;
    std::vector<Attribute> attributes;
    size_t values = 1;  // product of the dimensions' lengths
    size_t begin = 0;   // offset of the first value in the file
  };
  std::vector<Attribute>* AttributesOf(int varid);
  // The header, with every variable's begin set: its size does not depend on the begins (each
  // is 8 bytes), so one pass with zeros sizes it and a second writes it.
  std::string Header() const;

  // A count in the header: 32 bits in CDF-2, 64 in CDF-5.
  void PutCount(std::string& out, uint64_t n) const;
  void PutName(std::string& out, const std::string& name) const;

  bool cdf5_;
  std::vector<std::pair<std::string, size_t>> dims_;
  std::vector<Attribute> globals_;
  std::vector<Variable> vars_;
  bool defined_ = false;  // EndDef() done
  std::string bytes_;
};

}  // namespace gridstore::internal_formats

#endif  // GRIDSTORE_FORMATS_NETCDF_INTERNAL_CLASSIC_FILE_H_
