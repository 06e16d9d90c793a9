// Copyright 2026 The GridStore Authors.
//
// How the RADOS backend names its objects (docs/format.md, "RADOS"). Pure functions, no librados,
// so the mapping is unit-tested without a cluster. Within a store's namespace:
//
//   catalog                   omap: 'm' meta key -> value, 'i' index key -> value (catalog shard 0,
//                             the home shard: store-wide keys and the partitions hashed to 0)
//   catalog.<NNNN>            omap: the same, for the partitions hashed to shard NNNN (4 hex
//   digits) partitions                omap: data partition -> "" (every partition that may hold
//   keys) d.<esc(key)>              one data value (a compressed block) per object
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
#include <vector>

#include "gridstore/storage/kv_store.h"

namespace gridstore::storage::internal_rados {

inline constexpr std::string_view kCatalogObject = "catalog";
inline constexpr std::string_view kPartitionsObject = "partitions";
inline constexpr int kDirectoryShards = 16;
// The catalog's shards (docs/format.md, "Catalog shards"): fixed when a store is created and
// recorded in the home shard's xattr; a store without it (written before shards existed) has one.
inline constexpr int kDefaultCatalogShards = 64;
inline constexpr int kMaxCatalogShards = 4096;
inline constexpr char kCatalogShardsXattr[] = "gridstore.catalog_shards";
// Every shard's copy of the home shard's store-wide sequence (decimal): bumped by every write of a
// store-wide key, copied to every shard before that write returns.
inline constexpr char kStoreWideSeqXattr[] = "gridstore.store_wide_seq";
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

// Where a meta or index key lives in a sharded catalog:
//   kPartition: in the shard of `partition` (a dataset id): meta keys `id`, stamps `00 01 id`,
//               staged records `00 02 id 00 ...`, per-dataset index entries `02 id 00 ...`;
//   kPosting:   an index posting `01 ...`, whose id ends the key after a value of a type the key
//               does not name: it lives with the dataset its writer names
//               (WriteBatch::Op::partition), else with the batch's dataset it ends with
//               (PostingOwner);
//   kStoreWide: every other key (store marker, index definitions and versions, keys of generic
//               tests): in the home shard.
enum class CatalogPlacement : uint8_t { kStoreWide, kPartition, kPosting };
CatalogPlacement PlaceCatalogKey(Table table, std::string_view key, std::string_view* partition);
// The single partition every key of index range [begin, end) belongs to (`02 id 00` ranges), or
// false if the range may hold keys of several.
bool CatalogRangePartition(Table table, std::string_view begin, std::string_view end,
                           std::string_view* partition);
// Of `candidates` (the partitions a batch names), the one whose dataset a posting key ends with
// (`id 00`); the longest if several do. False if none does.
bool PostingOwner(std::string_view posting, const std::vector<std::string_view>& candidates,
                  std::string_view* owner);
int CatalogShardOf(std::string_view partition, int shards);
// Shard 0 is "catalog" (so a store from before shards is a one-shard store); shard n > 0 is
// "catalog.<n as 4 lowercase hex digits>".
std::string CatalogShardName(int shard);

std::string DataObjectName(std::string_view key);
std::string DirectoryObjectName(std::string_view partition, int shard);

}  // namespace gridstore::storage::internal_rados

#endif  // GRIDSTORE_STORAGE_RADOS_OBJECT_NAMES_H_
