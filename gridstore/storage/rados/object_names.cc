// Copyright 2026 The GridStore Authors.

#include "gridstore/storage/rados/object_names.h"

namespace gridstore::storage::internal_rados {

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

CatalogPlacement PlaceCatalogKey(Table table, std::string_view key, std::string_view* partition) {
  if (key.empty()) return CatalogPlacement::kStoreWide;
  const auto first = static_cast<unsigned char>(key[0]);
  if (table == Table::kMeta) {
    if (first != 0) {
      *partition = key;
      return CatalogPlacement::kPartition;
    }
    if (key.size() > 2 && key[1] == '\x01') {
      *partition = key.substr(2);
      return CatalogPlacement::kPartition;
    }
    if (key.size() > 2 && key[1] == '\x02') {
      *partition = key.substr(2, key.find('\0', 2) - 2);
      return partition->empty() ? CatalogPlacement::kStoreWide : CatalogPlacement::kPartition;
    }
    return CatalogPlacement::kStoreWide;
  }
  if (first == 0x01) return CatalogPlacement::kPosting;
  if (first == 0x02 && key.size() > 1) {
    *partition = key.substr(1, key.find('\0', 1) - 1);
    return partition->empty() ? CatalogPlacement::kStoreWide : CatalogPlacement::kPartition;
  }
  return CatalogPlacement::kStoreWide;
}

bool CatalogRangePartition(Table table, std::string_view begin, std::string_view end,
                           std::string_view* partition) {
  if (table != Table::kIndex || begin.size() < 3 || begin[0] != '\x02') return false;
  const size_t nul = begin.find('\0', 1);
  if (nul == std::string_view::npos || nul == 1) return false;
  // [02 id 00 ..., 02 id 01) holds only keys of id.
  std::string limit(begin.substr(0, nul));
  limit.push_back('\x01');
  if (end.empty() || end > limit) return false;
  *partition = begin.substr(1, nul - 1);
  return true;
}

bool PostingOwner(std::string_view posting, const std::vector<std::string_view>& candidates,
                  std::string_view* owner) {
  if (posting.empty() || posting.back() != '\0') return false;
  const std::string_view body = posting.substr(0, posting.size() - 1);
  bool found = false;
  for (std::string_view c : candidates) {
    if (c.size() < body.size() && body.ends_with(c) && (!found || c.size() > owner->size())) {
      *owner = c;
      found = true;
    }
  }
  return found;
}

int CatalogShardOf(std::string_view partition, int shards) {
  return shards <= 1 ? 0 : static_cast<int>(StableHash(partition) % static_cast<uint64_t>(shards));
}

std::string CatalogShardName(int shard) {
  if (shard == 0) return "catalog";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string name = "catalog.";
  for (int s = 12; s >= 0; s -= 4) name.push_back(kHex[(shard >> s) & 15]);
  return name;
}

std::string DataObjectName(std::string_view key) { return "d." + EscapeObjectName(key); }

std::string DirectoryObjectName(std::string_view partition, int shard) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string name = "dir." + EscapeObjectName(partition) + ".";
  name.push_back(kHex[(shard >> 4) & 15]);
  name.push_back(kHex[shard & 15]);
  return name;
}

}  // namespace gridstore::storage::internal_rados
