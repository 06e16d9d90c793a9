// Copyright 2026 The GridStore Authors.
#include "gridstore/util/internal/coding.h"

namespace gridstore {

void PutFixed16(std::string* dst, uint16_t v) { dst->append(reinterpret_cast<const char*>(&v), 2); }
void PutFixed32(std::string* dst, uint32_t v) { dst->append(reinterpret_cast<const char*>(&v), 4); }
void PutFixed64(std::string* dst, uint64_t v) { dst->append(reinterpret_cast<const char*>(&v), 8); }
void PutFixed32BigEndian(std::string* dst, uint32_t v) { PutFixed32(dst, __builtin_bswap32(v)); }
void PutFixed64BigEndian(std::string* dst, uint64_t v) { PutFixed64(dst, __builtin_bswap64(v)); }

void PutVarint64(std::string* dst, uint64_t v) {
  char buf[10];
  int n = 0;
  while (v >= 0x80) {
    buf[n++] = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  buf[n++] = static_cast<char>(v);
  dst->append(buf, n);
}

void PutVarsint64(std::string* dst, int64_t v) {
  PutVarint64(dst, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}

void PutDouble(std::string* dst, double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  PutFixed64(dst, bits);
}

void PutLengthPrefixed(std::string* dst, std::string_view value) {
  PutVarint64(dst, value.size());
  dst->append(value.data(), value.size());
}

bool ByteReader::ReadFixed16(uint16_t* v) {
  if (in_.size() < 2) return false;
  *v = DecodeFixed16(in_.data());
  in_.remove_prefix(2);
  return true;
}

bool ByteReader::ReadFixed32(uint32_t* v) {
  if (in_.size() < 4) return false;
  *v = DecodeFixed32(in_.data());
  in_.remove_prefix(4);
  return true;
}

bool ByteReader::ReadFixed64(uint64_t* v) {
  if (in_.size() < 8) return false;
  *v = DecodeFixed64(in_.data());
  in_.remove_prefix(8);
  return true;
}

bool ByteReader::ReadFixed32BigEndian(uint32_t* v) {
  if (!ReadFixed32(v)) return false;
  *v = __builtin_bswap32(*v);
  return true;
}

bool ByteReader::ReadFixed64BigEndian(uint64_t* v) {
  if (!ReadFixed64(v)) return false;
  *v = __builtin_bswap64(*v);
  return true;
}

bool ByteReader::ReadVarint64(uint64_t* v) {
  const char* next = GetVarint64Ptr(in_.data(), in_.data() + in_.size(), v);
  if (next == nullptr) return false;
  in_.remove_prefix(static_cast<size_t>(next - in_.data()));
  return true;
}

bool ByteReader::ReadVarsint64(int64_t* v) {
  uint64_t u;
  if (!ReadVarint64(&u)) return false;
  *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  return true;
}

bool ByteReader::ReadDouble(double* v) {
  uint64_t bits;
  if (!ReadFixed64(&bits)) return false;
  std::memcpy(v, &bits, 8);
  return true;
}

bool ByteReader::ReadByte(uint8_t* v) {
  if (in_.empty()) return false;
  *v = static_cast<uint8_t>(in_.front());
  in_.remove_prefix(1);
  return true;
}

bool ByteReader::ReadLengthPrefixed(std::string_view* v) {
  uint64_t n;
  if (!ReadVarint64(&n)) return false;
  return ReadBytes(n, v);
}

bool ByteReader::ReadBytes(size_t n, std::string_view* v) {
  if (in_.size() < n) return false;
  *v = in_.substr(0, n);
  in_.remove_prefix(n);
  return true;
}

bool ByteReader::ReadNulTerminated(std::string_view* v) {
  size_t pos = in_.find('\0');
  if (pos == std::string_view::npos) return false;
  *v = in_.substr(0, pos);
  in_.remove_prefix(pos + 1);
  return true;
}

}  // namespace gridstore
