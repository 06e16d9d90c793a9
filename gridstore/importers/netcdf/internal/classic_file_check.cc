// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/netcdf/internal/classic_file_check.h"

#include <netcdf.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include "gridstore/importers/netcdf/internal/netcdf_util.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_importers {
namespace {

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

// One variable of a classic header: where its data begin and how long they are.
struct ClassicVariable {
  int index;
  bool record;
  uint64_t bytes;  // of one record (record variables) or of all data
  uint64_t begin;
};

// DataLoss naming the first variable whose data end past `file_size` (`records` records of
// `record_size` bytes; 0 records for a file still being written, whose length is unknown).
Status CheckDataEnds(const std::string& path, uint64_t file_size, uint64_t records,
                     uint64_t record_size, const std::vector<ClassicVariable>& vars) {
  for (const ClassicVariable& v : vars) {
    uint64_t end = v.begin;
    if (v.bytes == 0) continue;
    if (v.record) {
      if (records == 0) continue;
      end += (records - 1) * record_size + v.bytes;
    } else {
      end += v.bytes;
    }
    if (end > file_size) {
      char name[NC_MAX_NAME + 1] = "?";
      int ncid;
      // The variable's name from netCDF-C (loaded at run time: this check may run first).
      if (LoadNetCdf().ok() && netcdf::nc_open(path.c_str(), NC_NOWRITE, &ncid) == NC_NOERR) {
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

}  // namespace

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
  std::vector<ClassicVariable> vars;
  uint64_t record_size = 0;
  int record_vars = 0;
  for (uint64_t i = 0; i < n && tag == 0x0B; ++i) {
    uint64_t ndims, type, vsize, begin;
    if (!r.SkipName() || !r.Count(&ndims) || ndims > dim_lengths.size() + 1024) return unparsed();
    ClassicVariable v{static_cast<int>(i), false, 1, 0};
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
    for (const ClassicVariable& v : vars) {
      if (v.record) record_size = v.bytes;
    }
  }
  const uint64_t records = r.streaming(numrecs) ? 0 : numrecs;
  return CheckDataEnds(path, file_size, records, record_size, vars);
}

}  // namespace gridstore::internal_importers
