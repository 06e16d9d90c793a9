// Copyright 2026 The GridStore Authors.
//
// How the RADOS backend names its objects (docs/format.md, "RADOS"). Pure functions, no librados,
// so the mapping is unit-tested without a cluster. Within a store's namespace:
//
//   catalog                   omap: 'm' meta key -> value, 'i' index key -> value
//   partitions                omap: data partition -> "" (every partition that may hold keys)
//   d.<esc(key)>              one data value (a compressed block) per object
//   dir.<esc(partition)>.<NN> omap: data key -> its value's size (u64 LE); NN = shard, 2 hex digits
//
// A data partition is a data key's first NUL-terminated component (the grid layer's dataset id);
// keys without a NUL share the partition "". Each partition's directory is cut into
// kDirectoryShards objects by a hash of the key, so an import spreads its directory writes over
// that many placement groups, and listing a partition merges that many sorted omaps.
#ifndef GRIDSTORE_STORAGE_RADOS_OBJECT_NAMES_H_
#define GRIDSTORE_STORAGE_RADOS_OBJECT_NAMES_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gridstore::storage::rados_internal {

inline constexpr std::string_view kCatalogObject = "catalog";
inline constexpr std::string_view kPartitionsObject = "partitions";
inline constexpr int kDirectoryShards = 16;
// Ceph's default osd_max_object_name_len.
inline constexpr size_t kMaxObjectNameBytes = 2048;

// Omap key tags in the catalog object, one per table it holds.
inline constexpr char kMetaTag = 'm';
inline constexpr char kIndexTag = 'i';

// [A-Za-z0-9_-] as is, every other byte as %XX: readable in `rados ls`, unambiguous ('.' is
// escaped, so it only ever separates), and at most 3x the key.
std::string EscapeObjectName(std::string_view bytes);

// The key's partition: up to and including its first NUL, or "" if it has none.
std::string_view DataPartition(std::string_view key);
// The smallest key greater than every key of `partition` ("" for the NUL-less partition "" means
// none: its keys are everywhere in the key space).
std::string PartitionEnd(std::string_view partition);

// Stable across builds and machines (it is part of the stored layout): FNV-1a 64.
uint64_t StableHash(std::string_view bytes);
int DirectoryShard(std::string_view key);

std::string DataObjectName(std::string_view key);
std::string DirectoryObjectName(std::string_view partition, int shard);

}  // namespace gridstore::storage::rados_internal

#endif  // GRIDSTORE_STORAGE_RADOS_OBJECT_NAMES_H_
