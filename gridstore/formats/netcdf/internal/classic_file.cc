// Copyright 2026 The GridStore Authors.
#include "gridstore/formats/netcdf/internal/classic_file.h"

#include <bit>
#include <cctype>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>

namespace gridstore::internal_formats {
namespace {

// The header's tags (the specification's NC_DIMENSION, NC_VARIABLE, NC_ATTRIBUTE).
constexpr uint32_t kTagDimension = 0x0A;
constexpr uint32_t kTagVariable = 0x0B;
constexpr uint32_t kTagAttribute = 0x0C;

// Bytes of a value of `type`; 0 for a type the file cannot hold.
size_t TypeSize(nc_type type, bool cdf5) {
  switch (type) {
    case NC_BYTE:
    case NC_CHAR:
      return 1;
    case NC_SHORT:
      return 2;
    case NC_INT:
    case NC_FLOAT:
      return 4;
    case NC_DOUBLE:
      return 8;
    case NC_UBYTE:
      return cdf5 ? 1 : 0;
    case NC_USHORT:
      return cdf5 ? 2 : 0;
    case NC_UINT:
      return cdf5 ? 4 : 0;
    case NC_INT64:
    case NC_UINT64:
      return cdf5 ? 8 : 0;
    default:
      return 0;
  }
}

size_t Padded(size_t n) { return (n + 3) & ~size_t{3}; }

void PutU32(std::string& out, uint32_t v) {
  const char b[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
  out.append(b, 4);
}

void PutU64(std::string& out, uint64_t v) {
  PutU32(out, static_cast<uint32_t>(v >> 32));
  PutU32(out, static_cast<uint32_t>(v));
}

// Copies `n` values of `size` bytes from native to big-endian order (files are big-endian).
void ToBigEndian(const void* from, size_t n, size_t size, char* to) {
  const char* in = static_cast<const char*>(from);
  if constexpr (std::endian::native == std::endian::big) {
    std::memcpy(to, in, n * size);
    return;
  }
  switch (size) {
    case 1:
      std::memcpy(to, in, n);
      break;
    case 2:
      for (size_t i = 0; i < n; ++i) {
        uint16_t v;
        std::memcpy(&v, in + 2 * i, 2);
        v = __builtin_bswap16(v);
        std::memcpy(to + 2 * i, &v, 2);
      }
      break;
    case 4:
      for (size_t i = 0; i < n; ++i) {
        uint32_t v;
        std::memcpy(&v, in + 4 * i, 4);
        v = __builtin_bswap32(v);
        std::memcpy(to + 4 * i, &v, 4);
      }
      break;
    case 8:
      for (size_t i = 0; i < n; ++i) {
        uint64_t v;
        std::memcpy(&v, in + 8 * i, 8);
        v = __builtin_bswap64(v);
        std::memcpy(to + 8 * i, &v, 8);
      }
      break;
    default:
      break;
  }
}

// `values` converted to T as netCDF-C converts them: out-of-range values are NC_ERANGE (still
// written, cast), as nc_put_var_double reports them.
template <typename T>
int FromDoubles(const double* values, size_t n, std::vector<T>* out) {
  int rc = NC_NOERR;
  out->resize(n);
  for (size_t i = 0; i < n; ++i) {
    const double d = values[i];
    if constexpr (std::is_floating_point_v<T>) {
      if (d > std::numeric_limits<T>::max() || d < -std::numeric_limits<T>::max()) rc = NC_ERANGE;
    } else {
      // (Beyond 32 bits the largest value rounds up to a power of two: that one is out too.)
      const double max = double(std::numeric_limits<T>::max());
      if (!(d >= double(std::numeric_limits<T>::min()) && (sizeof(T) < 8 ? d <= max : d < max))) {
        rc = NC_ERANGE;
        (*out)[i] = 0;
        continue;
      }
    }
    (*out)[i] = static_cast<T>(d);
  }
  return rc;
}

}  // namespace

void ClassicNetCdfFile::PutCount(std::string& out, uint64_t n) const {
  if (cdf5_) {
    PutU64(out, n);
  } else {
    PutU32(out, static_cast<uint32_t>(n));
  }
}

void ClassicNetCdfFile::PutName(std::string& out, const std::string& name) const {
  PutCount(out, name.size());
  out += name;
  out.append(Padded(name.size()) - name.size(), '\0');
}

std::optional<nc_type> ClassicType(grid::DataType type) {
  switch (type) {
    case grid::DataType::kInt8:
      return NC_BYTE;
    case grid::DataType::kInt16:
      return NC_SHORT;
    case grid::DataType::kInt32:
      return NC_INT;
    case grid::DataType::kFloat32:
      return NC_FLOAT;
    case grid::DataType::kFloat64:
      return NC_DOUBLE;
    default:
      return std::nullopt;
  }
}

bool IsPlainNetCdfName(std::string_view name) {
  if (name.empty() || name.size() > NC_MAX_NAME || name.back() == ' ') return false;
  const unsigned char first = static_cast<unsigned char>(name[0]);
  if (!std::isalnum(first) && first != '_') return false;
  for (const char c : name) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u > 0x7e || u == '/') return false;
  }
  return true;
}

std::vector<ClassicNetCdfFile::Attribute>* ClassicNetCdfFile::AttributesOf(int varid) {
  if (varid == NC_GLOBAL) return &globals_;
  if (varid < 0 || static_cast<size_t>(varid) >= vars_.size()) return nullptr;
  return &vars_[static_cast<size_t>(varid)].attributes;
}

int ClassicNetCdfFile::DefDim(const char* name, size_t length, int* id) {
  if (defined_) return NC_ENOTINDEFINE;
  if (!IsPlainNetCdfName(name)) return NC_EBADNAME;
  // Length 0 is the record dimension's mark in the header; CDF-2 lengths are 31-bit.
  if (length == 0 || (!cdf5_ && length > uint32_t{std::numeric_limits<int32_t>::max()})) {
    return NC_EDIMSIZE;
  }
  for (const auto& d : dims_) {
    if (d.first == name) return NC_ENAMEINUSE;
  }
  dims_.emplace_back(name, length);
  *id = static_cast<int>(dims_.size() - 1);
  return NC_NOERR;
}

int ClassicNetCdfFile::DefVar(const char* name, nc_type type, int ndims, const int* dimids,
                              int* id) {
  if (defined_) return NC_ENOTINDEFINE;
  if (!IsPlainNetCdfName(name)) return NC_EBADNAME;
  if (TypeSize(type, cdf5_) == 0) return NC_EBADTYPE;
  for (const auto& v : vars_) {
    if (v.name == name) return NC_ENAMEINUSE;
  }
  Variable v;
  v.name = name;
  v.type = type;
  for (int i = 0; i < ndims; ++i) {
    if (dimids[i] < 0 || static_cast<size_t>(dimids[i]) >= dims_.size()) return NC_EBADDIM;
    v.dims.push_back(dimids[i]);
    v.values *= dims_[static_cast<size_t>(dimids[i])].second;
  }
  // A CDF-2 variable's size field is 32 bits (rounded up to 4 bytes).
  if (!cdf5_ && v.values * TypeSize(type, cdf5_) > (uint64_t{1} << 32) - 4) return NC_EVARSIZE;
  vars_.push_back(std::move(v));
  *id = static_cast<int>(vars_.size() - 1);
  return NC_NOERR;
}

int ClassicNetCdfFile::DefFill(int varid, const void* value) {
  if (varid < 0 || static_cast<size_t>(varid) >= vars_.size()) return NC_ENOTVAR;
  return PutAtt(varid, "_FillValue", vars_[static_cast<size_t>(varid)].type, 1, value);
}

int ClassicNetCdfFile::PutAtt(int varid, const char* name, nc_type type, size_t n,
                              const void* values) {
  if (defined_) return NC_ENOTINDEFINE;
  std::vector<Attribute>* attributes = AttributesOf(varid);
  if (attributes == nullptr) return NC_ENOTVAR;
  if (!IsPlainNetCdfName(name)) return NC_EBADNAME;
  const size_t size = TypeSize(type, cdf5_);
  if (size == 0) return NC_EBADTYPE;
  if (!cdf5_ && n > uint32_t{std::numeric_limits<int32_t>::max()}) return NC_EINVAL;
  // As netCDF-C: a variable's _FillValue is one value of its own type.
  if (varid != NC_GLOBAL && std::strcmp(name, "_FillValue") == 0) {
    if (n != 1) return NC_EINVAL;
    if (type != vars_[static_cast<size_t>(varid)].type) return NC_EBADTYPE;
  }
  Attribute a;
  a.name = name;
  a.type = type;
  a.count = n;
  a.values.resize(n * size);
  if (n > 0) ToBigEndian(values, n, size, a.values.data());
  for (Attribute& old : *attributes) {
    if (old.name == a.name) {  // replaced where it stands, as netCDF-C does
      old = std::move(a);
      return NC_NOERR;
    }
  }
  attributes->push_back(std::move(a));
  return NC_NOERR;
}

int ClassicNetCdfFile::PutAttText(int varid, const char* name, size_t n, const char* text) {
  return PutAtt(varid, name, NC_CHAR, n, text);
}

std::string ClassicNetCdfFile::Header() const {
  std::string h = "CDF";
  h += cdf5_ ? '\x05' : '\x02';  // 64-bit data, or 64-bit offsets
  PutCount(h, 0);                // no records
  // A list: its tag and count, or ABSENT (a 32-bit zero and a zero count).
  const auto put_list = [&](uint32_t tag, size_t n) {
    PutU32(h, n == 0 ? 0 : tag);
    PutCount(h, n);
  };
  const auto put_attributes = [&](const std::vector<Attribute>& attributes) {
    put_list(kTagAttribute, attributes.size());
    for (const Attribute& a : attributes) {
      PutName(h, a.name);
      PutU32(h, static_cast<uint32_t>(a.type));
      PutCount(h, a.count);
      h += a.values;
      h.append(Padded(a.values.size()) - a.values.size(), '\0');
    }
  };
  put_list(kTagDimension, dims_.size());
  for (const auto& [name, length] : dims_) {
    PutName(h, name);
    PutCount(h, length);
  }
  put_attributes(globals_);
  put_list(kTagVariable, vars_.size());
  for (const Variable& v : vars_) {
    PutName(h, v.name);
    PutCount(h, v.dims.size());
    for (int d : v.dims) PutCount(h, static_cast<uint64_t>(d));
    put_attributes(v.attributes);
    PutU32(h, static_cast<uint32_t>(v.type));
    PutCount(h, Padded(v.values * TypeSize(v.type, cdf5_)));
    PutU64(h, v.begin);
  }
  return h;
}

int ClassicNetCdfFile::EndDef() {
  if (defined_) return NC_ENOTINDEFINE;
  size_t offset = Padded(Header().size());
  for (Variable& v : vars_) {
    v.begin = offset;
    offset += Padded(v.values * TypeSize(v.type, cdf5_));
  }
  bytes_ = Header();
  bytes_.resize(offset, '\0');  // the values, zero until written
  defined_ = true;
  return NC_NOERR;
}

int ClassicNetCdfFile::PutVara(int varid, const size_t* start, const size_t* count,
                               const void* values) {
  if (!defined_) return NC_EINDEFINE;
  if (varid < 0 || static_cast<size_t>(varid) >= vars_.size()) return NC_ENOTVAR;
  const Variable& v = vars_[static_cast<size_t>(varid)];
  const size_t size = TypeSize(v.type, cdf5_);
  const size_t rank = v.dims.size();
  if (rank == 0) {
    ToBigEndian(values, 1, size, bytes_.data() + v.begin);
    return NC_NOERR;
  }
  std::vector<size_t> lengths(rank);
  for (size_t i = 0; i < rank; ++i) {
    lengths[i] = dims_[static_cast<size_t>(v.dims[i])].second;
    if (start[i] > lengths[i]) return NC_EINVALCOORDS;
    if (count[i] > lengths[i] - start[i]) return NC_EEDGE;
    if (count[i] == 0) return NC_NOERR;
  }
  // Runs of count[rank - 1] values, the other indices walked like an odometer.
  const size_t run = count[rank - 1];
  const char* in = static_cast<const char*>(values);
  std::vector<size_t> index(rank, 0);
  for (;;) {
    size_t element = 0;
    for (size_t i = 0; i < rank; ++i) element = element * lengths[i] + start[i] + index[i];
    ToBigEndian(in, run, size, bytes_.data() + v.begin + element * size);
    in += run * size;
    size_t i = rank - 1;
    while (i-- > 0) {
      if (++index[i] < count[i]) break;
      index[i] = 0;
    }
    if (i == static_cast<size_t>(-1)) return NC_NOERR;
  }
}

int ClassicNetCdfFile::PutVarDouble(int varid, const double* values) {
  if (!defined_) return NC_EINDEFINE;
  if (varid < 0 || static_cast<size_t>(varid) >= vars_.size()) return NC_ENOTVAR;
  const Variable& v = vars_[static_cast<size_t>(varid)];
  std::vector<size_t> start(v.dims.size(), 0), count;
  for (int d : v.dims) count.push_back(dims_[static_cast<size_t>(d)].second);
  auto put = [&](auto converted) {
    const int rc = FromDoubles(values, v.values, &converted);
    const int put_rc = PutVara(varid, start.data(), count.data(), converted.data());
    return put_rc != NC_NOERR ? put_rc : rc;
  };
  switch (v.type) {
    case NC_BYTE:
      return put(std::vector<int8_t>());
    case NC_SHORT:
      return put(std::vector<int16_t>());
    case NC_INT:
      return put(std::vector<int32_t>());
    case NC_UBYTE:
      return put(std::vector<uint8_t>());
    case NC_USHORT:
      return put(std::vector<uint16_t>());
    case NC_UINT:
      return put(std::vector<uint32_t>());
    case NC_INT64:
      return put(std::vector<int64_t>());
    case NC_UINT64:
      return put(std::vector<uint64_t>());
    case NC_FLOAT:
      return put(std::vector<float>());
    case NC_DOUBLE:
      return PutVara(varid, start.data(), count.data(), values);
    default:
      return NC_EBADTYPE;  // NC_CHAR: netCDF-C refuses numbers into text too (NC_ECHAR)
  }
}

const char* ClassicNetCdfFile::StrError(int rc) const {
  // netCDF-C's own words (nc_strerror), so that errors read the same from either kind of file.
  switch (rc) {
    case NC_NOERR:
      return "No error";
    case NC_EINVAL:
      return "NetCDF: Invalid argument";
    case NC_ENAMEINUSE:
      return "NetCDF: String match to name in use";
    case NC_EBADTYPE:
      return "NetCDF: Not a valid data type or _FillValue type mismatch";
    case NC_EBADDIM:
      return "NetCDF: Invalid dimension ID or name";
    case NC_ENOTVAR:
      return "NetCDF: Variable not found";
    case NC_EINDEFINE:
      return "NetCDF: Operation not allowed in define mode";
    case NC_ENOTINDEFINE:
      return "NetCDF: Operation not allowed in data mode";
    case NC_EINVALCOORDS:
      return "NetCDF: Index exceeds dimension bound";
    case NC_EEDGE:
      return "NetCDF: Start+count exceeds dimension bound";
    case NC_ERANGE:
      return "NetCDF: Numeric conversion not representable";
    case NC_EBADNAME:
      return "NetCDF: Name contains illegal characters";
    case NC_EDIMSIZE:
      return "NetCDF: Invalid dimension size";
    case NC_EVARSIZE:
      return "NetCDF: One or more variable sizes violate format constraints";
    default:
      return "NetCDF: Unknown error";
  }
}

}  // namespace gridstore::internal_formats
