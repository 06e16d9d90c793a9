// Copyright 2026 The GridStore Authors.

#include "gridstore/storage/rados/object_names.h"

namespace gridstore::storage::rados_internal {

std::string EscapeObjectName(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(bytes.size() * 3);
  for (char ch : bytes) {
    const auto c = static_cast<unsigned char>(ch);
    const bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '-';
    if (plain) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 15]);
    }
  }
  return out;
}

std::string_view DataPartition(std::string_view key) {
  const size_t nul = key.find('\0');
  return nul == std::string_view::npos ? std::string_view() : key.substr(0, nul + 1);
}

std::string PartitionEnd(std::string_view partition) {
  if (partition.empty()) return "";
  // A partition ends with its only NUL: every key of it is below the same prefix ending in 0x01.
  std::string end(partition);
  end.back() = '\x01';
  return end;
}

uint64_t StableHash(std::string_view bytes) {
  uint64_t h = 14695981039346656037ull;
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ull;
  }
  return h;
}

int DirectoryShard(std::string_view key) {
  return static_cast<int>(StableHash(key) % kDirectoryShards);
}

std::string DataObjectName(std::string_view key) { return "d." + EscapeObjectName(key); }

std::string DirectoryObjectName(std::string_view partition, int shard) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string name = "dir." + EscapeObjectName(partition) + ".";
  name.push_back(kHex[(shard >> 4) & 15]);
  name.push_back(kHex[shard & 15]);
  return name;
}

}  // namespace gridstore::storage::rados_internal
