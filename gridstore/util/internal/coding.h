// Copyright 2026 The GridStore Authors.
//
// Byte coding: fixed-width little-endian (values, headers) and big-endian (keys: byte order equals
// numeric order) integers, varints, and length-prefixed strings. `Put*` append to a std::string;
// `ByteReader` consumes a std::string_view and reports truncation instead of reading past the end.
// All functions are pure and thread-safe.
#ifndef GRIDSTORE_UTIL_INTERNAL_CODING_H_
#define GRIDSTORE_UTIL_INTERNAL_CODING_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace gridstore {

void PutFixed16(std::string* dst, uint16_t v);
void PutFixed32(std::string* dst, uint32_t v);
void PutFixed64(std::string* dst, uint64_t v);
void PutFixed32BigEndian(std::string* dst, uint32_t v);
void PutFixed64BigEndian(std::string* dst, uint64_t v);
void PutVarint64(std::string* dst, uint64_t v);
// Zig-zag encoded signed varint: small negative numbers stay short.
void PutVarsint64(std::string* dst, int64_t v);
void PutDouble(std::string* dst, double v);                        // IEEE-754 bits, little-endian
void PutLengthPrefixed(std::string* dst, std::string_view value);  // varint length + bytes

// REQUIRES: `p` points at 2/4/8 readable bytes.
inline uint16_t DecodeFixed16(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;  // the project targets little-endian hosts only (checked in CMake)
}
inline uint32_t DecodeFixed32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
inline uint64_t DecodeFixed64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
inline uint32_t DecodeFixed32BigEndian(const char* p) {
  return __builtin_bswap32(DecodeFixed32(p));
}
inline uint64_t DecodeFixed64BigEndian(const char* p) {
  return __builtin_bswap64(DecodeFixed64(p));
}

// Decodes the varint at [p, limit) into *v and returns the byte after it, or nullptr if it is
// truncated or does not fit 64 bits. Inline for hot loops that decode many small values.
inline const char* GetVarint64Ptr(const char* p, const char* limit, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && p < limit; shift += 7) {
    const auto byte = static_cast<uint8_t>(*p++);
    if (shift == 63 && byte > 1) return nullptr;  // would overflow 64 bits
    result |= static_cast<uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return p;
    }
  }
  return nullptr;
}

// Reads encoded values from the front of a byte string. Every Read* returns false (and leaves the
// output unspecified) when the input is truncated or malformed; callers turn that into DataLoss.
class ByteReader {
 public:
  explicit ByteReader(std::string_view input) : in_(input) {}
  // A reader of a temporary string would outlive its bytes.
  explicit ByteReader(std::string&&) = delete;

  bool ReadFixed16(uint16_t* v);
  bool ReadFixed32(uint32_t* v);
  bool ReadFixed64(uint64_t* v);
  bool ReadFixed32BigEndian(uint32_t* v);
  bool ReadFixed64BigEndian(uint64_t* v);
  bool ReadVarint64(uint64_t* v);
  bool ReadVarsint64(int64_t* v);
  bool ReadDouble(double* v);
  bool ReadByte(uint8_t* v);
  // The view points into the input and lives as long as it does.
  bool ReadLengthPrefixed(std::string_view* v);
  bool ReadBytes(size_t n, std::string_view* v);
  // Reads up to (not including) the next NUL, and consumes the NUL.
  bool ReadNulTerminated(std::string_view* v);

  std::string_view remaining() const { return in_; }
  bool empty() const { return in_.empty(); }

 private:
  std::string_view in_;
};

}  // namespace gridstore

#endif  // GRIDSTORE_UTIL_INTERNAL_CODING_H_
