// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/grib/internal/grib_structure.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string_view>

#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_importers {
namespace {

// Random access to the bytes being checked: a file or a string.
class Bytes {
 public:
  virtual ~Bytes() = default;
  virtual uint64_t size() const = 0;
  // Up to `n` bytes at `offset` (fewer at the end).
  virtual std::string Read(uint64_t offset, size_t n) const = 0;
};

class FileBytes : public Bytes {
 public:
  FileBytes(std::FILE* f, uint64_t size) : f_(f), size_(size) {}
  uint64_t size() const override { return size_; }
  std::string Read(uint64_t offset, size_t n) const override {
    std::string out(n, '\0');
    if (fseeko(f_, off_t(offset), SEEK_SET) != 0) return "";
    out.resize(std::fread(out.data(), 1, n, f_));
    return out;
  }

 private:
  std::FILE* f_;
  uint64_t size_;
};

class StringBytes : public Bytes {
 public:
  explicit StringBytes(const std::string& s) : s_(s) {}
  uint64_t size() const override { return s_.size(); }
  std::string Read(uint64_t offset, size_t n) const override {
    return offset >= s_.size() ? "" : s_.substr(size_t(offset), n);
  }

 private:
  const std::string& s_;
};

uint64_t BigEndian(std::string_view b, size_t at, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; ++i) v = v << 8 | uint8_t(b[at + i]);
  return v;
}

// The offset of the next "GRIB" at or after `from`, or size() if none.
uint64_t FindGrib(const Bytes& bytes, uint64_t from) {
  constexpr size_t kChunk = 1 << 16;
  for (uint64_t at = from; at < bytes.size(); at += kChunk - 3) {
    const std::string chunk = bytes.Read(at, kChunk);
    const size_t hit = chunk.find("GRIB");
    if (hit != std::string::npos) return at + hit;
    if (chunk.size() < kChunk) break;
  }
  return bytes.size();
}

class Checker {
 public:
  Checker(const Bytes& bytes, const std::string& path) : bytes_(bytes), path_(path) {}

  Result<std::vector<std::string>> Run() {
    uint64_t pos = 0;
    for (int number = 1;; ++number) {
      const uint64_t at = FindGrib(bytes_, pos);
      if (at > pos && !AllZero(pos, at)) {  // NUL padding after a message is not junk
        notes_.push_back(Quote(path_) + ": skipped " + std::to_string(at - pos) +
                         " byte(s) at offset " + std::to_string(pos) +
                         (at == bytes_.size() ? " after the last message"
                                              : " before message " + std::to_string(number)) +
                         " (not GRIB)");
      }
      if (at == bytes_.size()) break;
      number_ = number;
      offset_ = at;
      GRIDSTORE_ASSIGN_OR_RETURN(uint64_t length, Message());
      if (length == 0) return notes_;  // a large GRIB1 message: the rest is left to ecCodes
      pos = at + length;
    }
    return notes_;
  }

 private:
  Status Broken(const std::string& what) const {
    return Status::DataLoss(Quote(path_) + ": GRIB message " + std::to_string(number_) +
                            " (at byte offset " + std::to_string(offset_) +
                            ") is corrupt: " + what);
  }

  // True if bytes [from, to) are all NUL: the padding some writers put after a message (ECMWF's
  // GRIB1 to an even length or a multiple of 120 bytes).
  bool AllZero(uint64_t from, uint64_t to) const {
    if (to - from > 4096) return false;
    const std::string gap = bytes_.Read(from, size_t(to - from));
    return gap.find_first_not_of('\0') == std::string::npos;
  }

  // The checked message's total length; 0 if it cannot be checked (large GRIB1).
  Result<uint64_t> Message() {
    const std::string head = bytes_.Read(offset_, 16);
    if (head.size() < 8) return Broken("the file ends inside its first 8 bytes");
    const int edition = uint8_t(head[7]);
    if (edition == 2) return Grib2(head);
    if (edition == 1) return Grib1(head);
    return Broken("edition " + std::to_string(edition) + " (GridStore reads GRIB 1 and 2)");
  }

  Status FitsInFile(uint64_t length) const {
    if (offset_ + length > bytes_.size()) {
      return Broken("its length of " + std::to_string(length) + " bytes runs past the end of the " +
                    "file (" + std::to_string(bytes_.size() - offset_) +
                    " bytes left): truncated or a damaged length");
    }
    return Status::OK();
  }

  Status EndMarker(uint64_t end) const {
    if (bytes_.Read(end, 4) != "7777") {
      return Broken("no end marker '7777' where its sections end (byte offset " +
                    std::to_string(end) + ")");
    }
    return Status::OK();
  }

  Result<uint64_t> Grib1(const std::string& head) {
    const uint64_t total = BigEndian(head, 4, 3);
    // ECMWF's large GRIB1 messages (over 8 MiB) encode their length in pieces; ecCodes reads them.
    if (total & 0x800000) return uint64_t{0};
    if (total < 8 + 28 + 11 + 4)
      return Broken("its length of " + std::to_string(total) + " bytes is too short");
    GRIDSTORE_RETURN_IF_ERROR(FitsInFile(total));
    uint64_t p = offset_ + 8;
    const std::string pds = bytes_.Read(p, 8);
    if (pds.size() < 8) return Broken("its product definition section is cut off");
    const uint64_t pds_length = BigEndian(pds, 0, 3);
    const int flags = uint8_t(pds[7]);
    if (pds_length < 28) return Broken("its product definition section is too short");
    p += pds_length;
    for (int section : {2, 3, 4}) {  // GDS, BMS (if flagged), BDS
      if ((section == 2 && !(flags & 0x80)) || (section == 3 && !(flags & 0x40))) continue;
      const std::string s = bytes_.Read(p, 3);
      const uint64_t length = s.size() == 3 ? BigEndian(s, 0, 3) : 0;
      if (length < 3 || p + length + 4 > offset_ + total) {
        return Broken("section " + std::to_string(section) + " (at byte offset " +
                      std::to_string(p) + ") has a length of " + std::to_string(length) +
                      " bytes that does not fit in the message");
      }
      p += length;
    }
    GRIDSTORE_RETURN_IF_ERROR(EndMarker(p));
    return total;
  }

  // The points of the grid definition section at `p`: checked against its rows and columns
  // where the template has them.
  Result<uint64_t> GridPoints(uint64_t p, uint64_t length) const {
    const std::string g = bytes_.Read(p, std::min<uint64_t>(length, 38));
    if (g.size() < 14) return Broken("its grid definition section is too short");
    const uint64_t points = BigEndian(g, 6, 4);
    const int templ = int(BigEndian(g, 12, 2));
    // Templates whose octets 31-38 are the points along a row and the rows.
    static constexpr int kRowsColumns[] = {0, 1, 2, 3, 10, 20, 30, 31, 40, 41, 42, 43, 90, 110};
    if (g.size() >= 38 && std::count(std::begin(kRowsColumns), std::end(kRowsColumns), templ)) {
      const uint64_t ni = BigEndian(g, 30, 4), nj = BigEndian(g, 34, 4);
      if (ni != 0xFFFFFFFF && nj != 0xFFFFFFFF && ni * nj != points) {
        return Broken("its grid (template 3." + std::to_string(templ) + ") has " +
                      std::to_string(ni) + " x " + std::to_string(nj) + " points but says " +
                      std::to_string(points));
      }
    }
    return points;
  }

  // The data representation section at `p` holds no more values than the grid has points.
  Status CheckValueCount(uint64_t p, uint64_t grid_points) const {
    const std::string r = bytes_.Read(p, 9);
    const uint64_t values = r.size() == 9 ? BigEndian(r, 5, 4) : 0;
    if (values > grid_points) {
      return Broken("its data representation section holds " + std::to_string(values) +
                    " values for a grid of " + std::to_string(grid_points) + " points");
    }
    return Status::OK();
  }

  Result<uint64_t> Grib2(const std::string& head) {
    if (head.size() < 16) return Broken("the file ends inside its indicator section");
    const uint64_t total = BigEndian(head, 8, 8);
    if (total < 16 + 21 + 4)
      return Broken("its length of " + std::to_string(total) + " bytes is too short");
    GRIDSTORE_RETURN_IF_ERROR(FitsInFile(total));
    const uint64_t end = offset_ + total - 4;
    uint64_t p = offset_ + 16;
    int previous = 0;
    uint64_t grid_points = 0;
    bool has_data = false;
    // GRIB2's order (WMO Manual on Codes, FM 92): 1, then repeats of [2] [3] 4 5 6 7.
    auto follows = [](int prev, int next) {
      switch (prev) {
        case 0:
          return next == 1;
        case 1:
          return next == 2 || next == 3;
        case 2:
          return next == 3;
        case 3:
          return next == 4;
        case 4:
          return next == 5;
        case 5:
          return next == 6;
        case 6:
          return next == 7;
        case 7:
          return next == 2 || next == 3 || next == 4;
        default:
          return false;
      }
    };
    while (p < end) {
      const std::string s = bytes_.Read(p, 5);
      if (s.size() < 5) return Broken("the file ends inside a section header");
      const uint64_t length = BigEndian(s, 0, 4);
      const int section = uint8_t(s[4]);
      if (length < 5 || p + length > end) {
        return Broken("section " + std::to_string(section) + " (at byte offset " +
                      std::to_string(p) + ") has a length of " + std::to_string(length) +
                      " bytes that does not fit in the message (" + std::to_string(end - p) +
                      " bytes left before its end marker)");
      }
      if (!follows(previous, section)) {
        return Broken("section " + std::to_string(section) + " (at byte offset " +
                      std::to_string(p) + ") cannot follow section " + std::to_string(previous));
      }
      if (section == 3) {
        GRIDSTORE_ASSIGN_OR_RETURN(grid_points, GridPoints(p, length));
      }
      if (section == 5) GRIDSTORE_RETURN_IF_ERROR(CheckValueCount(p, grid_points));
      has_data |= section == 7;
      previous = section;
      p += length;
    }
    if (p != end || previous != 7 || !has_data) {
      return Broken("its sections end at byte offset " + std::to_string(p) + " after section " +
                    std::to_string(previous) + ", not at its end marker with a data section");
    }
    GRIDSTORE_RETURN_IF_ERROR(EndMarker(end));
    return total;
  }

  const Bytes& bytes_;
  const std::string& path_;
  std::vector<std::string> notes_;
  int number_ = 0;
  uint64_t offset_ = 0;
};

}  // namespace

Result<std::vector<std::string>> CheckGribStructure(std::FILE* file, const std::string& path) {
  struct stat st;
  if (fstat(fileno(file), &st) != 0) {
    return Status::FailedPrecondition(Quote(path) + ": cannot read its size");
  }
  FileBytes bytes(file, uint64_t(st.st_size));
  return Checker(bytes, path).Run();
}

Result<std::vector<std::string>> CheckGribStructure(const std::string& data,
                                                    const std::string& path) {
  StringBytes bytes(data);
  return Checker(bytes, path).Run();
}

}  // namespace gridstore::internal_importers
