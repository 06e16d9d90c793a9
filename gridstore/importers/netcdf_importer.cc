// Copyright 2026 The GridStore Authors.
//
// NetCDF import. netCDF-C errors are converted to a Status exactly once, here, naming the file
// (and the variable); nothing netCDF leaves this file. The import validates everything it can
// before it writes, then streams slabs of whole planes into GridDataWriter's submit pipeline, so
// that reading (this thread) overlaps compression (the store's pool) within a memory budget.
#include "gridstore/importers/netcdf_importer.h"

#include <netcdf.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gridstore/grid/grid.h"
#include "gridstore/grid/grid_data_writer.h"
#include "gridstore/grid/names.h"
#include "gridstore/importers/internal/netcdf_api.h"
#include "gridstore/importers/internal/netcdf_util.h"
#include "gridstore/util/internal/utf8.h"

namespace gridstore::importers {
namespace {

using grid::Attributes;
using grid::AttributeValue;
using grid::DataSetMeta;
using grid::DataType;
using grid::kT;
using grid::kX;
using grid::kY;
using grid::kZ;
namespace netcdf = internal_importers::netcdf;
using internal_importers::NetCdfLock;
using internal_importers::NetCdfMutex;
using internal_importers::Quote;
using internal_importers::SplitWhitespace;
using internal_importers::ToDataType;

std::string Join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += separator;
    out += p;
  }
  return out;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// ---- Errors ----

// A netCDF-C failure while working on `path` (and `what`: "variable 'T'", ...) as a Status.
// Errors a well-formed file cannot cause are Internal; an errno is I/O trouble; the rest mean the
// file is not what its header says (HDF5 errors, failed filters, short reads): DataLoss.
Status NcError(int code, const std::string& path, const std::string& what) {
  const std::string where = Quote(path) + (what.empty() ? "" : ": " + what);
  const std::string message = netcdf::nc_strerror(code);
  if (code > 0) return Status::Unavailable(where + ": " + message);
  switch (code) {
    case NC_ENOMEM:
      return Status::Unavailable(where + ": " + message);
    case NC_EBADID:
    case NC_ENOTVAR:
    case NC_EINVALCOORDS:
    case NC_EEDGE:
    case NC_ESTRIDE:
    case NC_EBADTYPE:
      return Status::Internal(where + ": " + message);
    default:
      return Status::DataLoss(where + ": " + message);
  }
}

// ---- Opening ----

class NcFile {
 public:
  explicit NcFile(int ncid) : ncid_(ncid) {}
  ~NcFile() {
    NetCdfLock lock(NetCdfMutex());
    netcdf::nc_close(ncid_);
  }
  NcFile(const NcFile&) = delete;
  NcFile& operator=(const NcFile&) = delete;
  int id() const { return ncid_; }

 private:
  const int ncid_;
};

// True if the file starts like a classic NetCDF (CDF\1, \2, \5) or HDF5 file: one netCDF-C
// calls "Unknown file format" is then a damaged NetCDF file rather than some other file.
bool HasNetCdfSignature(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[8] = {};
  in.read(head, sizeof(head));
  const auto n = in.gcount();
  if (n >= 4 && std::memcmp(head, "CDF", 3) == 0) {
    return head[3] == 1 || head[3] == 2 || head[3] == 5;
  }
  static constexpr char kHdf5[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  return n == 8 && std::memcmp(head, kHdf5, 8) == 0;
}

// Reads the big-endian header of a classic file (CDF-1, CDF-2 or CDF-5): just enough to know
// where each variable's data end.
class ClassicHeaderReader {
 public:
  ClassicHeaderReader(std::ifstream* in, uint64_t file_size) : in_(in), file_size_(file_size) {}

  bool ReadMagic() {
    char magic[4];
    if (!in_->read(magic, 4) || std::memcmp(magic, "CDF", 3) != 0) return false;
    version_ = magic[3];
    return version_ == 1 || version_ == 2 || version_ == 5;
  }
  bool U32(uint64_t* v) { return Unsigned(4, v); }
  // NON_NEG: 8 bytes in CDF-5, 4 before.
  bool Count(uint64_t* v) { return Unsigned(version_ == 5 ? 8 : 4, v); }
  // OFFSET: 4 bytes in CDF-1 only.
  bool Offset(uint64_t* v) { return Unsigned(version_ == 1 ? 4 : 8, v); }
  bool SkipName() {
    uint64_t n;
    return Count(&n) && Skip(Pad4(n));
  }
  bool SkipAttributes() {
    uint64_t tag, n;
    if (!U32(&tag) || !Count(&n)) return false;
    if (tag == 0) return n == 0;
    if (tag != 0x0C) return false;
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t type, count;
      if (!SkipName() || !U32(&type) || !Count(&count)) return false;
      const uint64_t size = TypeSize(type);
      if (size == 0 || count > file_size_ || !Skip(Pad4(count * size))) return false;
    }
    return true;
  }
  // True once a read or skip ran past the end of the file.
  bool past_end() const { return past_end_; }
  bool streaming(uint64_t numrecs) const {
    return numrecs == (version_ == 5 ? ~uint64_t{0} : uint64_t{0xFFFFFFFF});
  }
  static uint64_t TypeSize(uint64_t type) {
    switch (type) {
      case NC_BYTE:
      case NC_CHAR:
      case NC_UBYTE:
        return 1;
      case NC_SHORT:
      case NC_USHORT:
        return 2;
      case NC_INT:
      case NC_FLOAT:
      case NC_UINT:
        return 4;
      case NC_DOUBLE:
      case NC_INT64:
      case NC_UINT64:
        return 8;
      default:
        return 0;
    }
  }
  static uint64_t Pad4(uint64_t n) { return (n + 3) & ~uint64_t{3}; }

 private:
  bool Unsigned(int bytes, uint64_t* v) {
    unsigned char b[8];
    if (!in_->read(reinterpret_cast<char*>(b), bytes)) {
      past_end_ = in_->eof();
      return false;
    }
    *v = 0;
    for (int i = 0; i < bytes; ++i) *v = (*v << 8) | b[i];
    return true;
  }
  bool Skip(uint64_t n) {
    const auto pos = static_cast<uint64_t>(in_->tellg());
    if (n > file_size_ || pos + n > file_size_) {
      past_end_ = true;
      return false;
    }
    return static_cast<bool>(in_->seekg(static_cast<std::streamoff>(n), std::ios::cur));
  }

  std::ifstream* in_;
  uint64_t file_size_;
  char version_ = 0;
  bool past_end_ = false;
};

// netCDF-C 4.9.0 opens a truncated classic file and reads the missing data as zeros without an
// error (and a CDF-5 header cut short as a file with fewer variables), so the classic header's
// own layout is checked against the file's size. DataLoss naming the first variable whose data
// lie past the end, or saying the header does. If this parser cannot follow a header that
// netCDF-C accepted for another reason, the check is skipped: the disagreement would be ours.
Status CheckClassicFileSize(const std::string& path) {
  std::error_code ec;
  const uint64_t file_size = std::filesystem::file_size(path, ec);
  if (ec) return Status::OK();
  std::ifstream in(path, std::ios::binary);
  ClassicHeaderReader r(&in, file_size);
  auto unparsed = [&] {
    if (!r.past_end()) return Status::OK();
    return Status::DataLoss(Quote(path) + " is truncated: its header runs past the end of its " +
                            std::to_string(file_size) + " bytes");
  };
  uint64_t numrecs, tag, n;
  if (!r.ReadMagic() || !r.Count(&numrecs) || !r.U32(&tag) || !r.Count(&n)) return unparsed();
  std::vector<uint64_t> dim_lengths;
  if (tag == 0x0A) {
    for (uint64_t i = 0; i < n; ++i) {
      uint64_t length;
      if (!r.SkipName() || !r.Count(&length)) return unparsed();
      dim_lengths.push_back(length);
    }
  } else if (tag != 0 || n != 0) {
    return unparsed();
  }
  if (!r.SkipAttributes() || !r.U32(&tag) || !r.Count(&n)) return unparsed();
  if (tag != 0x0B && (tag != 0 || n != 0)) return unparsed();
  struct Var {
    int index;
    bool record;
    uint64_t bytes;  // of one record (record variables) or of all data
    uint64_t begin;
  };
  std::vector<Var> vars;
  uint64_t record_size = 0;
  int record_vars = 0;
  for (uint64_t i = 0; i < n && tag == 0x0B; ++i) {
    uint64_t ndims, type, vsize, begin;
    if (!r.SkipName() || !r.Count(&ndims) || ndims > dim_lengths.size() + 1024) return unparsed();
    Var v{static_cast<int>(i), false, 1, 0};
    for (uint64_t d = 0; d < ndims; ++d) {
      uint64_t dimid;
      if (!r.Count(&dimid) || dimid >= dim_lengths.size()) return unparsed();
      if (dim_lengths[dimid] == 0) {
        v.record = (d == 0);
      } else if (__builtin_mul_overflow(v.bytes, dim_lengths[dimid], &v.bytes)) {
        return unparsed();
      }
    }
    if (!r.SkipAttributes() || !r.U32(&type) || !r.Count(&vsize) || !r.Offset(&begin)) {
      return unparsed();
    }
    const uint64_t type_size = ClassicHeaderReader::TypeSize(type);
    if (type_size == 0 || __builtin_mul_overflow(v.bytes, type_size, &v.bytes)) return unparsed();
    v.begin = begin;
    if (v.record) {
      record_size += ClassicHeaderReader::Pad4(v.bytes);
      ++record_vars;
    }
    vars.push_back(v);
  }
  // With a single record variable, records are not padded (netCDF-C NC_begins).
  if (record_vars == 1) {
    for (const Var& v : vars) {
      if (v.record) record_size = v.bytes;
    }
  }
  for (const Var& v : vars) {
    uint64_t end = v.begin;
    if (v.bytes == 0) continue;
    if (v.record) {
      if (numrecs == 0 || r.streaming(numrecs)) continue;
      end += (numrecs - 1) * record_size + v.bytes;
    } else {
      end += v.bytes;
    }
    if (end > file_size) {
      char name[NC_MAX_NAME + 1] = "?";
      int ncid;
      if (netcdf::nc_open(path.c_str(), NC_NOWRITE, &ncid) == NC_NOERR) {
        netcdf::nc_inq_varname(ncid, v.index, name);
        netcdf::nc_close(ncid);
      }
      return Status::DataLoss(Quote(path) + " is truncated: it has " + std::to_string(file_size) +
                              " bytes but the data of variable " + Quote(name) + " end at byte " +
                              std::to_string(end));
    }
  }
  return Status::OK();
}

Result<std::unique_ptr<NcFile>> OpenNetCdf(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) return Status::NotFound(Quote(path) + ": no such file");
  if (std::filesystem::is_directory(status)) {
    return Status::InvalidArgument(Quote(path) + " is a directory, not a NetCDF file");
  }
  int ncid = -1;
  const int rc = netcdf::nc_open(path.c_str(), NC_NOWRITE, &ncid);
  if (rc == NC_ENOTNC) {
    if (HasNetCdfSignature(path)) {
      return Status::DataLoss(Quote(path) + " is truncated or corrupt: " + netcdf::nc_strerror(rc));
    }
    return Status::InvalidArgument(Quote(path) + " is not a NetCDF file (" +
                                   netcdf::nc_strerror(rc) + ")");
  }
  if (rc == ENOENT) return Status::NotFound(Quote(path) + ": no such file");
  if (rc > 0 || rc == NC_ENOMEM) {
    return Status::FailedPrecondition(Quote(path) + ": cannot open: " + netcdf::nc_strerror(rc));
  }
  if (rc != NC_NOERR) {
    return Status::DataLoss(Quote(path) + " is truncated or corrupt: " + netcdf::nc_strerror(rc));
  }
  auto file = std::make_unique<NcFile>(ncid);
  int format = 0, mode = 0;
  if (netcdf::nc_inq_format_extended(ncid, &format, &mode) == NC_NOERR &&
      format == NC_FORMATX_NC3) {
    GRIDSTORE_RETURN_IF_ERROR(CheckClassicFileSize(path));
  }
  return file;
}

// ---- Types and attributes ----

// One attribute as an AttributeValue, or nullopt (and a note) for a type GridStore cannot hold.
Result<std::optional<AttributeValue>> ReadAttribute(int ncid, int varid, const char* name,
                                                    const std::string& path,
                                                    const std::string& owner,
                                                    std::vector<std::string>* notes) {
  nc_type type;
  size_t len;
  const std::string what = "attribute " + Quote(name) + " of " + owner;
  int rc = netcdf::nc_inq_att(ncid, varid, name, &type, &len);
  if (rc != NC_NOERR) return NcError(rc, path, what);
  if (type == NC_CHAR) {
    std::string text(len, '\0');
    if (len > 0 && (rc = netcdf::nc_get_att_text(ncid, varid, name, text.data())) != NC_NOERR) {
      return NcError(rc, path, what);
    }
    while (!text.empty() && text.back() == '\0') text.pop_back();  // C writers count the NUL
    return std::optional(AttributeValue::String(std::move(text)));
  }
  if (type == NC_STRING) {
    std::vector<char*> strings(len, nullptr);
    if (len > 0 &&
        (rc = netcdf::nc_get_att_string(ncid, varid, name, strings.data())) != NC_NOERR) {
      return NcError(rc, path, what);
    }
    std::vector<std::string> parts;
    for (char* s : strings) parts.emplace_back(s ? s : "");
    if (len > 0) netcdf::nc_free_string(len, strings.data());
    // AttributeValue holds one string: an array of strings is kept one per line.
    return std::optional(AttributeValue::String(Join(parts, "\n")));
  }
  const std::optional<DataType> data_type = ToDataType(type);
  if (!data_type) {
    if (notes) notes->push_back("skipped " + what + ": user-defined type");
    return std::optional<AttributeValue>();
  }
  return grid::VisitDataType(*data_type, [&](auto tag) -> Result<std::optional<AttributeValue>> {
    using T = decltype(tag);
    std::vector<T> values(len);
    int get_rc = len == 0 ? NC_NOERR : netcdf::nc_get_att(ncid, varid, name, values.data());
    if (get_rc != NC_NOERR) return NcError(get_rc, path, what);
    if constexpr (std::is_floating_point_v<T>) {
      return std::optional(AttributeValue::Floats(*data_type, {values.begin(), values.end()}));
    } else {
      std::vector<int64_t> integers;
      integers.reserve(len);
      for (T v : values) integers.push_back(static_cast<int64_t>(v));  // uint64: bit pattern
      return std::optional(AttributeValue::Integers(*data_type, std::move(integers)));
    }
  });
}

Result<Attributes> ReadAttributes(int ncid, int varid, const std::string& path,
                                  const std::string& owner, std::vector<std::string>* notes) {
  int natts = 0;
  int rc = varid == NC_GLOBAL ? netcdf::nc_inq_natts(ncid, &natts)
                              : netcdf::nc_inq_varnatts(ncid, varid, &natts);
  if (rc != NC_NOERR) return NcError(rc, path, owner);
  Attributes attributes;
  for (int i = 0; i < natts; ++i) {
    char name[NC_MAX_NAME + 1];
    if ((rc = netcdf::nc_inq_attname(ncid, varid, i, name)) != NC_NOERR)
      return NcError(rc, path, owner);
    GRIDSTORE_ASSIGN_OR_RETURN(std::optional<AttributeValue> value,
                               ReadAttribute(ncid, varid, name, path, owner, notes));
    if (value) attributes[name] = std::move(*value);
  }
  return attributes;
}

const AttributeValue* FindAttribute(const Attributes& attributes, std::string_view name) {
  auto it = attributes.find(name);
  return it == attributes.end() ? nullptr : &it->second;
}

std::string StringAttribute(const Attributes& attributes, std::string_view name) {
  const AttributeValue* a = FindAttribute(attributes, name);
  return a && a->is_string() ? a->string_value() : "";
}

// `a`'s first number converted to T, if T holds it exactly (NaN counts as exact for floats).
template <typename T>
std::optional<T> ExactValue(const AttributeValue& a) {
  if (!a.is_number() || a.size() == 0) return std::nullopt;
  if (!grid::IsFloatingPoint(a.number_type())) {
    const int64_t raw = a.integers()[0];
    const bool is_unsigned = a.number_type() == DataType::kUint64;
    if constexpr (std::is_integral_v<T>) {
      if (is_unsigned) {
        const auto u = static_cast<uint64_t>(raw);
        if (!std::in_range<T>(u)) return std::nullopt;
        return static_cast<T>(u);
      }
      if (!std::in_range<T>(raw)) return std::nullopt;
      return static_cast<T>(raw);
    } else {
      // An integer is exact in T if it converts back unchanged; 2^63 / 2^64 themselves are not.
      if (is_unsigned) {
        const auto u = static_cast<uint64_t>(raw);
        const T t = static_cast<T>(u);
        if (static_cast<double>(t) >= 18446744073709551616.0 || static_cast<uint64_t>(t) != u) {
          return std::nullopt;
        }
        return t;
      }
      const T t = static_cast<T>(raw);
      if (static_cast<double>(t) >= 9223372036854775808.0 || static_cast<int64_t>(t) != raw) {
        return std::nullopt;
      }
      return t;
    }
  }
  const double d = a.floats()[0];
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(d)) return std::numeric_limits<T>::quiet_NaN();
    if (std::isfinite(d) && std::fabs(d) > static_cast<double>(std::numeric_limits<T>::max())) {
      return std::nullopt;
    }
    const T t = static_cast<T>(d);
    if (static_cast<double>(t) != d) return std::nullopt;
    return t;
  } else {
    if (!std::isfinite(d) || d != std::trunc(d)) return std::nullopt;
    if (d < 0) {
      if (d < -9223372036854775808.0) return std::nullopt;
      const auto s = static_cast<int64_t>(d);
      if (!std::in_range<T>(s)) return std::nullopt;
      return static_cast<T>(s);
    }
    if (d >= 18446744073709551616.0) return std::nullopt;
    const auto u = static_cast<uint64_t>(d);
    if (!std::in_range<T>(u)) return std::nullopt;
    return static_cast<T>(u);
  }
}

// netCDF-C's default fill value for `type`: what it returns for data never written when the
// variable has no _FillValue attribute, so blocks GridStore never wrote read the same way.
std::string DefaultFill(nc_type type) {
  auto bytes = [](auto v) { return std::string(reinterpret_cast<const char*>(&v), sizeof(v)); };
  switch (type) {
    case NC_BYTE:
      return bytes(static_cast<int8_t>(NC_FILL_BYTE));
    case NC_UBYTE:
      return bytes(static_cast<uint8_t>(NC_FILL_UBYTE));
    case NC_SHORT:
      return bytes(static_cast<int16_t>(NC_FILL_SHORT));
    case NC_USHORT:
      return bytes(static_cast<uint16_t>(NC_FILL_USHORT));
    case NC_INT:
      return bytes(static_cast<int32_t>(NC_FILL_INT));
    case NC_UINT:
      return bytes(static_cast<uint32_t>(NC_FILL_UINT));
    case NC_INT64:
      return bytes(static_cast<int64_t>(NC_FILL_INT64));
    case NC_UINT64:
      return bytes(static_cast<uint64_t>(NC_FILL_UINT64));
    case NC_FLOAT:
      return bytes(static_cast<float>(NC_FILL_FLOAT));
    case NC_DOUBLE:
      return bytes(static_cast<double>(NC_FILL_DOUBLE));
    default:
      return "";
  }
}

bool IsPressureUnit(std::string_view units) {
  static const std::set<std::string, std::less<>> kPressure = {
      "pa",      "pascal",   "pascals",   "hpa", "hectopascal", "hectopascals", "kpa",
      "mbar",    "millibar", "millibars", "mb",  "bar",         "bars",         "dbar",
      "decibar", "decibars", "cbar",      "atm", "torr",        "mmhg",         "psi"};
  return kPressure.count(Lower(Trim(units))) > 0;
}

// ---- Structure ----

struct NcVariable {
  int id = 0;
  std::string name;
  nc_type type = NC_NAT;
  std::vector<std::string> dim_names;
  std::vector<size_t> dim_lengths;
  Attributes attributes;
};

enum class Role { kGridded, kCoordinate, kSkipped, kTooManyDimensions };

struct Classified {
  Role role = Role::kSkipped;
  std::string why;  // for kSkipped: the note's reason
};

// A selected variable and how its netCDF dimensions map to (t, z, x, y).
struct PlannedVariable {
  const NcVariable* source = nullptr;
  std::vector<int> axes;  // axis of each netCDF dimension
};

struct FileStructure {
  std::vector<NcVariable> variables;
  std::map<std::string, size_t, std::less<>> by_name;
  Attributes global_attributes;
  std::vector<std::string> notes;

  const NcVariable* Find(std::string_view name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : &variables[it->second];
  }
};

Result<FileStructure> ReadStructure(int ncid, const std::string& path) {
  FileStructure f;
  int rc, nvars = 0, ngroups = 0;
  if ((rc = netcdf::nc_inq_grps(ncid, &ngroups, nullptr)) != NC_NOERR) return NcError(rc, path, "");
  if (ngroups > 0) {
    std::vector<int> groups(static_cast<size_t>(ngroups));
    std::vector<std::string> names;
    if ((rc = netcdf::nc_inq_grps(ncid, nullptr, groups.data())) != NC_NOERR)
      return NcError(rc, path, "");
    for (int g : groups) {
      char name[NC_MAX_NAME + 1];
      if (netcdf::nc_inq_grpname(g, name) == NC_NOERR) names.push_back(Quote(name));
    }
    f.notes.push_back("skipped group" + std::string(names.size() > 1 ? "s " : " ") +
                      Join(names, ", ") + ": only the root group is imported");
  }
  if ((rc = netcdf::nc_inq_nvars(ncid, &nvars)) != NC_NOERR) return NcError(rc, path, "");
  for (int v = 0; v < nvars; ++v) {
    NcVariable var;
    var.id = v;
    char name[NC_MAX_NAME + 1];
    int ndims = 0;
    if ((rc = netcdf::nc_inq_var(ncid, v, name, &var.type, &ndims, nullptr, nullptr)) != NC_NOERR) {
      return NcError(rc, path, "variable #" + std::to_string(v));
    }
    var.name = name;
    const std::string owner = "variable " + Quote(var.name);
    std::vector<int> dimids(static_cast<size_t>(ndims));
    if (ndims > 0 && (rc = netcdf::nc_inq_vardimid(ncid, v, dimids.data())) != NC_NOERR) {
      return NcError(rc, path, owner);
    }
    for (int d : dimids) {
      char dim_name[NC_MAX_NAME + 1];
      size_t length;
      if ((rc = netcdf::nc_inq_dim(ncid, d, dim_name, &length)) != NC_NOERR) {
        return NcError(rc, path, owner);
      }
      var.dim_names.emplace_back(dim_name);
      var.dim_lengths.push_back(length);
    }
    GRIDSTORE_ASSIGN_OR_RETURN(var.attributes, ReadAttributes(ncid, v, path, owner, &f.notes));
    f.by_name[var.name] = f.variables.size();
    f.variables.push_back(std::move(var));
  }
  GRIDSTORE_ASSIGN_OR_RETURN(f.global_attributes,
                             ReadAttributes(ncid, NC_GLOBAL, path, "the file", &f.notes));
  return f;
}

// Names the file's variables give in `bounds` / `climatology`, `grid_mapping` and `coordinates`.
struct References {
  std::set<std::string, std::less<>> bounds;
  std::set<std::string, std::less<>> grid_mappings;
  std::set<std::string, std::less<>> coordinates;
};

References CollectReferences(const FileStructure& f) {
  References refs;
  for (const NcVariable& v : f.variables) {
    for (const char* attr : {"bounds", "climatology"}) {
      for (auto& n : SplitWhitespace(StringAttribute(v.attributes, attr))) refs.bounds.insert(n);
    }
    for (auto& n : SplitWhitespace(StringAttribute(v.attributes, "coordinates"))) {
      refs.coordinates.insert(n);
    }
    // "crs" or, since CF-1.7, "crs: lat lon crs2: x y": the names before colons are mappings.
    auto tokens = SplitWhitespace(StringAttribute(v.attributes, "grid_mapping"));
    const bool extended =
        std::any_of(tokens.begin(), tokens.end(), [](auto& t) { return t.back() == ':'; });
    for (auto& t : tokens) {
      if (!extended) {
        refs.grid_mappings.insert(t);
      } else if (t.back() == ':') {
        refs.grid_mappings.insert(t.substr(0, t.size() - 1));
      } else {
        refs.coordinates.insert(t);
      }
    }
  }
  return refs;
}

bool IsCoordinateVariable(const NcVariable& v) {
  return v.dim_names.size() == 1 && v.dim_names[0] == v.name;
}

Classified Classify(const NcVariable& v, const References& refs) {
  if (v.type == NC_CHAR) return {Role::kSkipped, "character variable"};
  if (v.type == NC_STRING) return {Role::kSkipped, "string variable"};
  if (!ToDataType(v.type)) return {Role::kSkipped, "user-defined type"};
  if (refs.bounds.count(v.name)) return {Role::kSkipped, "bounds variable"};
  if (refs.grid_mappings.count(v.name)) return {Role::kSkipped, "grid mapping variable"};
  if (IsCoordinateVariable(v)) return {Role::kCoordinate, ""};
  if (refs.coordinates.count(v.name) && v.dim_names.size() <= 2) return {Role::kCoordinate, ""};
  if (v.dim_names.empty()) return {Role::kSkipped, "scalar variable"};
  if (v.dim_names.size() == 1) return {Role::kSkipped, "1-D variable that is not a coordinate"};
  if (v.dim_names.size() > grid::kRank) return {Role::kTooManyDimensions, ""};
  for (size_t i = 0; i < v.dim_names.size(); ++i) {
    if (v.dim_lengths[i] == 0) {
      return {Role::kSkipped, "no data (dimension " + Quote(v.dim_names[i]) + " has length 0)"};
    }
  }
  return {Role::kGridded, ""};
}

// CF: a dimension is vertical if its coordinate variable has axis "Z", a `positive` attribute,
// or units of pressure.
bool IsVerticalDimension(const FileStructure& f, const std::string& dim) {
  const NcVariable* c = f.Find(dim);
  if (c == nullptr || !IsCoordinateVariable(*c)) return false;
  if (Lower(Trim(StringAttribute(c->attributes, "axis"))) == "z") return true;
  if (FindAttribute(c->attributes, "positive") != nullptr) return true;
  return IsPressureUnit(StringAttribute(c->attributes, "units"));
}

// DESIGN.md: the last two dimensions are x and y; with four, the first two are t and z; with
// three, the leading one is z if vertical, else t.
std::vector<int> MapAxes(const FileStructure& f, const NcVariable& v) {
  switch (v.dim_names.size()) {
    case 4:
      return {kT, kZ, kX, kY};
    case 3:
      return {IsVerticalDimension(f, v.dim_names[0]) ? kZ : kT, kX, kY};
    default:
      return {kX, kY};
  }
}

std::string TooManyDimensions(const std::string& path, const NcVariable& v, bool implicit) {
  std::string message = Quote(path) + ": variable " + Quote(v.name) + " has " +
                        std::to_string(v.dim_names.size()) + " dimensions (" +
                        Join(v.dim_names, ", ") +
                        "); GridStore variables have at most 4 (t, z, x, y)";
  if (implicit) message += "; choose the variables to import with --variables";
  return message;
}

grid::VariableMeta MakeVariableMeta(const NcVariable& v, const std::vector<int>& axes) {
  grid::VariableMeta meta;
  meta.name = v.name;
  meta.type = *ToDataType(v.type);
  for (size_t i = 0; i < axes.size(); ++i) {
    meta.shape[axes[i]] = static_cast<int64_t>(v.dim_lengths[i]);
    meta.dimension_names[axes[i]] = v.dim_names[i];
  }
  meta.attributes = v.attributes;
  if (const AttributeValue* fill = FindAttribute(v.attributes, "_FillValue")) {
    // Kept only if exact in the variable's type (a double NaN on shorts is not); the attribute
    // itself stays either way.
    meta.fill_value = grid::VisitDataType(meta.type, [&](auto tag) -> std::string {
      using T = decltype(tag);
      std::optional<T> value = ExactValue<T>(*fill);
      if (!value) return "";
      return std::string(reinterpret_cast<const char*>(&*value), sizeof(T));
    });
  } else {
    meta.fill_value = DefaultFill(v.type);
  }
  if (const AttributeValue* missing = FindAttribute(v.attributes, "missing_value");
      missing && missing->is_number()) {
    for (size_t i = 0; i < missing->size(); ++i)
      meta.missing_values.push_back(missing->AsDouble(i));
  }
  const AttributeValue* scale = FindAttribute(v.attributes, "scale_factor");
  const AttributeValue* offset = FindAttribute(v.attributes, "add_offset");
  if (scale && !scale->is_number()) scale = nullptr;
  if (offset && !offset->is_number()) offset = nullptr;
  if (scale || offset) {
    grid::Packing packing;
    if (scale) packing.scale_factor = scale->AsDouble();
    if (offset) packing.add_offset = offset->AsDouble();
    const AttributeValue* typed = scale ? scale : offset;
    packing.unpacked_type =
        grid::IsFloatingPoint(typed->number_type()) ? typed->number_type() : DataType::kFloat64;
    meta.packing = packing;
  }
  return meta;
}

Result<grid::Coordinate> MakeCoordinate(int ncid, const std::string& path, const NcVariable& v) {
  grid::Coordinate c;
  c.name = v.name;
  c.type = *ToDataType(v.type);
  c.attributes = v.attributes;
  size_t count = 1;
  for (size_t i = 0; i < v.dim_names.size(); ++i) {
    c.dimensions.push_back(v.dim_names[i]);
    c.shape.push_back(static_cast<int64_t>(v.dim_lengths[i]));
    count *= v.dim_lengths[i];
  }
  c.values.resize(count);
  const int rc = netcdf::nc_get_var_double(ncid, v.id, c.values.data());
  if (rc != NC_NOERR) return NcError(rc, path, "coordinate " + Quote(v.name));
  return c;
}

struct ImportPlan {
  DataSetMeta meta;
  std::vector<PlannedVariable> variables;  // parallel to meta.variables
  std::vector<std::string> notes;
};

Result<ImportPlan> PlanImport(int ncid, const std::string& path, const NetCdfImportOptions& options,
                              const FileStructure* f) {
  ImportPlan plan;
  plan.notes = f->notes;
  const References refs = CollectReferences(*f);
  std::vector<Classified> roles;
  std::vector<std::string> gridded;
  for (const NcVariable& v : f->variables) {
    roles.push_back(Classify(v, refs));
    if (roles.back().role == Role::kGridded) gridded.push_back(v.name);
  }

  // The variables to import, in file order.
  std::vector<size_t> selected;
  if (options.variables.empty()) {
    for (size_t i = 0; i < f->variables.size(); ++i) {
      if (roles[i].role == Role::kTooManyDimensions) {
        return Status::InvalidArgument(TooManyDimensions(path, f->variables[i], true));
      }
      if (roles[i].role == Role::kGridded) selected.push_back(i);
    }
  } else {
    const std::string available =
        gridded.empty() ? "it has none" : "it has: " + Join(gridded, ", ");
    std::set<size_t> chosen;
    for (const std::string& name : options.variables) {
      auto it = f->by_name.find(name);
      if (it == f->by_name.end()) {
        return Status::InvalidArgument(Quote(path) + " has no variable " + Quote(name) +
                                       " to import (" + available + ")");
      }
      const Classified& c = roles[it->second];
      if (c.role == Role::kTooManyDimensions) {
        return Status::InvalidArgument(TooManyDimensions(path, f->variables[it->second], false));
      }
      if (c.role != Role::kGridded) {
        const std::string why = c.role == Role::kCoordinate ? "a coordinate" : c.why;
        return Status::InvalidArgument(Quote(path) + ": " + Quote(name) +
                                       " is not a gridded variable (" + why + "); " + available);
      }
      chosen.insert(it->second);
    }
    selected.assign(chosen.begin(), chosen.end());
  }
  for (size_t i = 0; i < f->variables.size(); ++i) {
    if (roles[i].role == Role::kSkipped) {
      plan.notes.push_back("skipped " + Quote(f->variables[i].name) + ": " + roles[i].why);
    } else if (roles[i].role == Role::kTooManyDimensions) {
      plan.notes.push_back("skipped " + Quote(f->variables[i].name) + ": " +
                           std::to_string(f->variables[i].dim_names.size()) +
                           " dimensions (at most 4)");
    }
  }
  if (selected.empty()) {
    return Status::InvalidArgument(Quote(path) + " has no gridded variable to import (" +
                                   Join(plan.notes, "; ") + ")");
  }

  DataSetMeta& meta = plan.meta;
  meta.id = options.dataset_id;
  meta.layout = options.layout;
  std::set<std::string, std::less<>> used_dims, aux_names;
  for (size_t i : selected) {
    const NcVariable& v = f->variables[i];
    PlannedVariable pv{&v, MapAxes(*f, v)};
    meta.variables.push_back(MakeVariableMeta(v, pv.axes));
    plan.variables.push_back(std::move(pv));
    used_dims.insert(v.dim_names.begin(), v.dim_names.end());
    for (auto& n : SplitWhitespace(StringAttribute(v.attributes, "coordinates"))) {
      aux_names.insert(n);
    }
  }
  // Coordinate variables of the dimensions used, and the auxiliary coordinates named.
  for (size_t i = 0; i < f->variables.size(); ++i) {
    const NcVariable& v = f->variables[i];
    if (roles[i].role != Role::kCoordinate) continue;
    const bool wanted =
        (IsCoordinateVariable(v) && used_dims.count(v.name)) || aux_names.count(v.name);
    if (!wanted) continue;
    if (std::count(v.dim_lengths.begin(), v.dim_lengths.end(), size_t{0}) > 0) {
      plan.notes.push_back("skipped coordinate " + Quote(v.name) + ": it has no values");
      continue;
    }
    GRIDSTORE_ASSIGN_OR_RETURN(grid::Coordinate c, MakeCoordinate(ncid, path, v));
    meta.coordinates.push_back(std::move(c));
  }
  meta.attributes = f->global_attributes;
  for (const auto& [name, value] : options.attributes) meta.attributes[name] = value;
  meta.set_status(grid::kStatusInit);
  return plan;
}

// ---- Streaming ----

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// How one variable is read: slabs of `slab_t` whole times (all z), or, when one time does not
// fit, `slab_z` levels of one time. `chunk_t` is the chunk extent along t (1 if not chunked).
struct SlabShape {
  int64_t slab_t = 1;
  int64_t slab_z = 1;
  int64_t chunk_t = 1;
};

// Chunk extents of `var` along t and z (1 for a contiguous or classic variable).
std::pair<int64_t, int64_t> ChunkExtentsTZ(int ncid, const PlannedVariable& pv,
                                           std::vector<size_t>* chunks, bool* chunked) {
  const size_t rank = pv.axes.size();
  chunks->assign(rank, 0);
  int storage = NC_CONTIGUOUS;
  *chunked =
      netcdf::nc_inq_var_chunking(ncid, pv.source->id, &storage, chunks->data()) == NC_NOERR &&
      storage == NC_CHUNKED;
  int64_t ct = 1, cz = 1;
  if (*chunked) {
    for (size_t i = 0; i < rank; ++i) {
      if (pv.axes[i] == kT) ct = static_cast<int64_t>((*chunks)[i]);
      if (pv.axes[i] == kZ) cz = static_cast<int64_t>((*chunks)[i]);
    }
  }
  return {std::max<int64_t>(ct, 1), std::max<int64_t>(cz, 1)};
}

// Slabs line up with chunks: a multiple of the chunk extent, or a divisor of it, so that no slab
// straddles a chunk boundary and each chunk's slabs are read one after another (ForEachSlab).
SlabShape ChooseSlab(const grid::VariableMeta& var, size_t plane_bytes, size_t slab_budget,
                     int64_t ct, int64_t cz) {
  const int64_t planes = std::max<int64_t>(1, static_cast<int64_t>(slab_budget / plane_bytes));
  const int64_t nz = var.shape[kZ], nt = var.shape[kT];
  auto align = [](int64_t n, int64_t chunk) {
    if (n >= chunk) return n - n % chunk;
    while (chunk % n != 0) --n;
    return n;
  };
  SlabShape s;
  s.chunk_t = ct;
  if (nz <= planes) {
    s.slab_z = nz;
    s.slab_t = std::min(align(planes / nz, ct), nt);
  } else {
    s.slab_t = 1;
    s.slab_z = align(planes, cz);
  }
  return s;
}

// Calls fn(t0, nt, z0, nz) for each slab of a variable of `nt` times and `nz` levels. Slabs of
// one time go chunk by chunk: every time of a chunk row along t for one range of levels, then
// the next range, so that a chunk is finished before the next is started.
Status ForEachSlab(int64_t nt, int64_t nz, const SlabShape& slab,
                   const std::function<Status(int64_t, int64_t, int64_t, int64_t)>& fn) {
  if (slab.slab_z >= nz) {
    for (int64_t t0 = 0; t0 < nt; t0 += slab.slab_t) {
      GRIDSTORE_RETURN_IF_ERROR(fn(t0, std::min(slab.slab_t, nt - t0), 0, nz));
    }
    return Status::OK();
  }
  for (int64_t tb = 0; tb < nt; tb += slab.chunk_t) {
    for (int64_t z0 = 0; z0 < nz; z0 += slab.slab_z) {
      for (int64_t t = tb; t < std::min(tb + slab.chunk_t, nt); ++t) {
        GRIDSTORE_RETURN_IF_ERROR(fn(t, 1, z0, std::min(slab.slab_z, nz - z0)));
      }
    }
  }
  return Status::OK();
}

// Gives a chunked variable a chunk cache that holds every chunk one slab touches: slabs follow
// chunk boundaries and order (ChooseSlab, ForEachSlab), so no chunk is decompressed twice.
// At most `cap` bytes. Returns the cache settings to restore once the variable is read, since
// HDF5 keeps a dataset's cached chunks until its cache is changed or the file closed.
struct ChunkCache {
  size_t size = 0, slots = 0;
  float preemption = 0.75f;
};
std::optional<ChunkCache> SetChunkCache(int ncid, const PlannedVariable& pv,
                                        const std::vector<size_t>& chunks, const SlabShape& slab,
                                        size_t element_size, size_t cap) {
  NetCdfLock lock(NetCdfMutex());
  ChunkCache old;
  if (netcdf::nc_get_var_chunk_cache(ncid, pv.source->id, &old.size, &old.slots, &old.preemption) !=
      NC_NOERR) {
    return std::nullopt;
  }
  double chunk_count = 1, chunk_bytes = static_cast<double>(element_size);
  for (size_t i = 0; i < pv.axes.size(); ++i) {
    const double extent = static_cast<double>(std::max<size_t>(chunks[i], 1));
    double span = static_cast<double>(pv.source->dim_lengths[i]);  // x and y: the whole plane
    if (pv.axes[i] == kT) span = static_cast<double>(slab.slab_t);
    if (pv.axes[i] == kZ) span = static_cast<double>(slab.slab_z);
    chunk_count *= std::ceil(span / extent);
    chunk_bytes *= extent;
  }
  // HDF5 allocates cache space only for chunks it holds, so a generous size costs nothing more.
  const double wanted = std::min(chunk_count * chunk_bytes, static_cast<double>(cap));
  const size_t size = static_cast<size_t>(std::max(wanted, chunk_bytes));
  const size_t slots = std::max<size_t>(1009, static_cast<size_t>(chunk_count) * 4 + 1);
  if (size <= old.size) return std::nullopt;  // the default is large enough
  // A hint: if netCDF refuses it, reading is only slower.
  if (netcdf::nc_set_var_chunk_cache(ncid, pv.source->id, size, slots, 0.75f) != NC_NOERR) {
    return std::nullopt;
  }
  return old;
}

struct StreamState {
  grid::GridDataWriter* writer = nullptr;
  const NetCdfImportOptions* options = nullptr;
  ImportProgress progress;
  size_t submitted_bytes = 0;
  size_t slab_bytes = 0;  // the slab buffer held, counted for the whole import
  size_t peak = 0;

  size_t Pending() const {
    return submitted_bytes - static_cast<size_t>(writer->stats().raw_bytes);
  }
  // Called when the most is held: a plane in hand besides the slab and the queued planes.
  void Sample(size_t in_hand) { peak = std::max(peak, slab_bytes + in_hand + Pending()); }
};

Status SubmitPlane(StreamState* st, const grid::VariableMeta& var, int64_t t, int64_t z,
                   grid::Grid2D plane, const std::string& path) {
  const size_t bytes = plane.size_bytes();
  st->Sample(bytes);
  Status s = st->writer->SubmitGrid2D(var.name, t, z, std::move(plane));
  if (!s.ok()) return s.WithContext(Quote(path) + ": variable " + Quote(var.name));
  st->submitted_bytes += bytes;
  st->progress.planes_done += 1;
  st->progress.bytes_done += static_cast<int64_t>(bytes);
  if (st->options->on_progress) st->options->on_progress(st->progress);
  return Status::OK();
}

// Reads the hyperslab of planes [t0, t0 + nt) x [z0, z0 + nz) into `dst`.
Status ReadSlab(int ncid, const std::string& path, const PlannedVariable& pv, int64_t t0,
                int64_t nt, int64_t z0, int64_t nz, char* dst) {
  const size_t rank = pv.axes.size();
  std::vector<size_t> start(rank, 0), count(rank);
  for (size_t i = 0; i < rank; ++i) {
    count[i] = pv.source->dim_lengths[i];
    if (pv.axes[i] == kT) {
      start[i] = static_cast<size_t>(t0);
      count[i] = static_cast<size_t>(nt);
    } else if (pv.axes[i] == kZ) {
      start[i] = static_cast<size_t>(z0);
      count[i] = static_cast<size_t>(nz);
    }
  }
  int rc;
  {
    NetCdfLock lock(NetCdfMutex());
    rc = netcdf::nc_get_vara(ncid, pv.source->id, start.data(), count.data(), dst);
  }
  if (rc == NC_NOERR) return Status::OK();
  return NcError(rc, path,
                 "variable " + Quote(pv.source->name) + " at t " + std::to_string(t0) +
                     (nt > 1 ? "-" + std::to_string(t0 + nt - 1) : "") + ", z " +
                     std::to_string(z0) + (nz > 1 ? "-" + std::to_string(z0 + nz - 1) : ""));
}

}  // namespace

// How the planes of an import are read: slabs of (t, z) planes per variable, sized for the memory
// budget (see ImportNetCdf).
struct SlabPlan {
  std::vector<SlabShape> slabs;
  std::vector<std::vector<size_t>> chunk_shapes;
  std::vector<bool> chunked;
  size_t budget = 0;
  bool pipelined = false;
  size_t slab_bytes = 0;
};

// Reads every plane of `plan`'s variables from the open file `ncid` and hands it to `writer`,
// then waits until all are stored. *peak gets the most plane bytes held at once.
Status WritePlanes(const std::string& path, const NetCdfImportOptions& options,
                   const ImportPlan& plan, int ncid, const SlabPlan& slabs,
                   grid::GridDataWriter* writer, size_t* peak) {
  const DataSetMeta& meta = plan.meta;
  StreamState st;
  st.writer = writer;
  st.options = &options;
  st.slab_bytes = slabs.slab_bytes;
  for (const auto& v : meta.variables) {
    const int64_t planes = v.shape[kT] * v.shape[kZ];
    st.progress.planes_total += planes;
    st.progress.bytes_total += v.num_elements() * static_cast<int64_t>(grid::DataTypeSize(v.type));
  }
  std::unique_ptr<char[]> slab_buffer;
  if (st.slab_bytes > 0) slab_buffer = std::make_unique_for_overwrite<char[]>(st.slab_bytes);

  for (size_t i = 0; i < meta.variables.size(); ++i) {
    const grid::VariableMeta& var = meta.variables[i];
    const PlannedVariable& pv = plan.variables[i];
    const SlabShape& slab = slabs.slabs[i];
    const int64_t nt = var.shape[kT], nz = var.shape[kZ], nx = var.shape[kX], ny = var.shape[kY];
    const size_t plane_bytes = static_cast<size_t>(nx * ny) * grid::DataTypeSize(var.type);
    st.progress.variable = var.name;
    std::optional<ChunkCache> restore;
    if (slabs.chunked[i]) {
      restore = SetChunkCache(ncid, pv, slabs.chunk_shapes[i], slab, grid::DataTypeSize(var.type),
                              std::max<size_t>(slabs.budget, 1));
    }
    Status read = ForEachSlab(nt, nz, slab, [&](int64_t t0, int64_t ts, int64_t z0, int64_t zs) {
      if (!slabs.pipelined) {
        // One plane at a time, read straight into the plane handed over.
        grid::Grid2D plane(var.type, nx, ny);
        GRIDSTORE_RETURN_IF_ERROR(ReadSlab(ncid, path, pv, t0, 1, z0, 1, plane.bytes()));
        GRIDSTORE_RETURN_IF_ERROR(SubmitPlane(&st, var, t0, z0, std::move(plane), path));
        return writer->Flush().WithContext(Quote(path) + ": variable " + Quote(var.name));
      }
      GRIDSTORE_RETURN_IF_ERROR(ReadSlab(ncid, path, pv, t0, ts, z0, zs, slab_buffer.get()));
      st.Sample(0);
      for (int64_t t = 0; t < ts; ++t) {
        for (int64_t z = 0; z < zs; ++z) {
          grid::Grid2D plane(var.type, nx, ny);
          std::memcpy(plane.bytes(), slab_buffer.get() + (t * zs + z) * plane_bytes, plane_bytes);
          GRIDSTORE_RETURN_IF_ERROR(SubmitPlane(&st, var, t0 + t, z0 + z, std::move(plane), path));
        }
      }
      return Status::OK();
    });
    if (restore) {
      NetCdfLock lock(NetCdfMutex());
      netcdf::nc_set_var_chunk_cache(ncid, pv.source->id, restore->size, restore->slots,
                                     restore->preemption);  // frees the chunks held
    }
    if (!read.ok()) {
      writer->Flush().IgnoreError();  // the first error is the one to report
      return read;
    }
  }
  *peak = st.peak;
  return writer->Flush().WithContext("importing " + Quote(path));
}

Result<grid::DataSetMeta> ReadNetCdfMeta(const std::string& path,
                                         const NetCdfImportOptions& options,
                                         std::vector<std::string>* notes) {
  GRIDSTORE_RETURN_IF_ERROR(internal_importers::LoadNetCdf());
  NetCdfLock lock(NetCdfMutex());
  GRIDSTORE_ASSIGN_OR_RETURN(std::unique_ptr<NcFile> file, OpenNetCdf(path));
  GRIDSTORE_ASSIGN_OR_RETURN(FileStructure structure, ReadStructure(file->id(), path));
  GRIDSTORE_ASSIGN_OR_RETURN(ImportPlan plan, PlanImport(file->id(), path, options, &structure));
  GRIDSTORE_RETURN_IF_ERROR(plan.meta.Validate().WithContext("importing " + Quote(path)));
  if (notes) *notes = std::move(plan.notes);
  return std::move(plan.meta);
}

Result<ImportSummary> ImportNetCdf(grid::GridStore* store, const std::string& path,
                                   const NetCdfImportOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  if (options.dataset_id.empty()) {
    return Status::InvalidArgument("no dataset id given for importing " + Quote(path));
  }
  GRIDSTORE_RETURN_IF_ERROR(internal_importers::LoadNetCdf());
  // Everything that can be checked is checked before the first write. The netCDF lock (the
  // library is not thread-safe) is held only around netCDF calls, never across store I/O, so
  // other imports and exports in this process wait on nothing but netCDF.
  std::unique_lock<std::recursive_mutex> nc_lock(NetCdfMutex());
  GRIDSTORE_ASSIGN_OR_RETURN(std::unique_ptr<NcFile> file, OpenNetCdf(path));
  const int ncid = file->id();
  GRIDSTORE_ASSIGN_OR_RETURN(FileStructure structure, ReadStructure(ncid, path));
  GRIDSTORE_ASSIGN_OR_RETURN(ImportPlan plan, PlanImport(ncid, path, options, &structure));
  DataSetMeta& meta = plan.meta;
  GRIDSTORE_RETURN_IF_ERROR(meta.Validate().WithContext("importing " + Quote(path)));

  // Budget B: a slab buffer S, the plane being handed over (at most Pmax) and the writer's
  // queue M, with S + Pmax + M <= B and M >= Pmax (the writer always admits one plane). With too
  // small a budget, planes are read and written one at a time.
  const size_t budget = options.memory_budget_bytes;
  size_t max_plane = 0;
  for (const auto& v : meta.variables) {
    max_plane = std::max(
        max_plane, static_cast<size_t>(v.shape[kX] * v.shape[kY]) * grid::DataTypeSize(v.type));
  }
  const bool pipelined = budget / 3 >= max_plane;
  const size_t slab_budget = pipelined ? std::min(budget / 2, budget - 2 * max_plane) : 0;
  const size_t max_pending = pipelined ? budget - slab_budget - max_plane : 0;

  // Slab shapes: the buffer is sized once for the largest.
  SlabPlan slabs;
  slabs.budget = budget;
  slabs.pipelined = pipelined;
  slabs.chunk_shapes.resize(meta.variables.size());
  for (size_t i = 0; i < meta.variables.size(); ++i) {
    const grid::VariableMeta& var = meta.variables[i];
    const size_t es = grid::DataTypeSize(var.type);
    const size_t plane_bytes = static_cast<size_t>(var.shape[kX] * var.shape[kY]) * es;
    bool chunked = false;
    auto [ct, cz] = ChunkExtentsTZ(ncid, plan.variables[i], &slabs.chunk_shapes[i], &chunked);
    slabs.chunked.push_back(chunked);
    SlabShape slab =
        pipelined ? ChooseSlab(var, plane_bytes, slab_budget, ct, cz) : SlabShape{1, 1, ct};
    if (pipelined) {
      slabs.slab_bytes =
          std::max(slabs.slab_bytes, plane_bytes * static_cast<size_t>(slab.slab_t * slab.slab_z));
    }
    slabs.slabs.push_back(slab);
  }
  nc_lock.unlock();

  auto existing = store->GetDataSetMeta(meta.id);
  if (existing.ok() && !options.overwrite) {
    return Status::AlreadyExists("dataset " + Quote(meta.id) + " already exists (status " +
                                 Quote(existing->status()) + "); use --overwrite to replace it");
  }
  if (!existing.ok() && !existing.status().IsNotFound()) return existing.status();

  // A new dataset is published as INIT at once, so that readers can tell an import in progress
  // (or one that died) from a complete one. A replacement is written beside the dataset it
  // replaces, which stays readable, and takes its place in one atomic switch at the end: a
  // failure or a kill at any moment leaves the old dataset or the new one, never neither.
  const bool replace = existing.ok();
  std::optional<DataSetMeta> staged;
  // What a failed import leaves: nothing. A replacement is dropped (the old dataset stays), a new
  // dataset deleted. (A killed one cannot clean up: it stays visibly INIT.)
  auto discard = [&] {
    if (replace) {
      store->AbandonReplacement(*staged).IgnoreError();
    } else {
      store->DeleteDataSet(meta.id).IgnoreError();
    }
  };
  grid::WriteGridOptions write_options;
  write_options.max_pending_bytes = max_pending;
  std::unique_ptr<grid::GridDataWriter> writer;
  if (replace) {
    GRIDSTORE_ASSIGN_OR_RETURN(staged, store->BeginReplacement(meta));
    auto made = store->GetReplacementWriter(*staged, write_options);
    if (!made.ok()) {
      store->AbandonReplacement(*staged).IgnoreError();
      return made.status();
    }
    writer = std::move(made).value();
    meta = *staged;
  } else {
    GRIDSTORE_RETURN_IF_ERROR(store->PutDataSetMeta(meta));
    GRIDSTORE_ASSIGN_OR_RETURN(writer, store->GetDataWriter(meta.id, write_options));
  }
  size_t peak_buffered_bytes = 0;
  Status written =
      WritePlanes(path, options, plan, ncid, slabs, writer.get(), &peak_buffered_bytes);
  const grid::WriteStats stats = writer->stats();
  writer.reset();
  if (!written.ok()) {
    discard();
    return written;
  }

  meta.set_status(grid::kStatusDone);
  meta.attributes[std::string(grid::kCreateTimeAttribute)] = AttributeValue::Int64(NowMillis());
  Status published = replace ? store->CommitReplacement(meta) : store->UpdateDataSetMeta(meta);
  if (!published.ok()) {
    discard();
    return published;
  }

  ImportSummary summary;
  summary.dataset_id = meta.id;
  summary.variables = static_cast<int>(meta.variables.size());
  summary.planes = stats.planes;
  summary.raw_bytes = stats.raw_bytes;
  summary.stored_bytes = stats.stored_bytes;
  summary.peak_buffered_bytes = peak_buffered_bytes;
  summary.notes = std::move(plan.notes);
  summary.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return summary;
}

}  // namespace gridstore::importers
