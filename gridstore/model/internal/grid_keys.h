// Copyright 2026 The GridStore Authors.
//
// Every key GridStore writes is built here, and only here. The grammar (also in docs/format.md):
//
//   string    := bytes (no NUL) 0x00          ids and names end with a NUL, which they may not hold
//   u32       := 4 bytes, big-endian           byte order equals numeric order
//   u64       := 8 bytes, big-endian
//   meta key  := id                            (meta table; keys starting with 0x00 are reserved)
//   store key := 0x00 "gridstore"              (meta table; marks an initialised store)
//   stamp key := 0x00 0x01 id                  (meta table; the meta's incarnation and generation)
//   staged    := 0x00 0x02 string(id) incarnation:u64   (meta table; a replacement being written)
//   data key  := inc(id) string(variable) layout:u8 t:u32 z:u32 block_row:u32 block_col:u32
//                                              (layout 0: planes; 1: series, t = step block)
//              | inc(id) string(variable) 0xff 0:u32 0:u32 0:u32 0:u32   (the variable's
//                                              compression dictionary, after all its blocks)
//   inc(id)   := string(id) 0x00 incarnation:u64   (every dataset written since store format 2)
//              | string(id)                    (incarnation 0: datasets of store format 1)
//   index key := 0x01 string(index) string(field) value string(id)   (index table; a posting)
//              | 0x02 string(id) ...           (index table; per-dataset entries, deleted by range)
//              | 0x03 string(index)            (index table; a meta index definition)
//              | 0x04                          (index table; version of the definitions)
//              | 0x05 string(index)            (index table; an index being built)
//   value     := esc(bytes) 0x00 0x01          string: 0x00 escaped as 0x00 0xff
//              | be64(int ^ 2^63)              int64: sign bit flipped
//              | be64(total_order(double))     double: -0.0 stored as 0.0, every NaN as one NaN
//              | 0x00 | 0x01                   bool
//
// Because the terminator sorts below every legal byte, the keys of dataset "a" ("a\0...") and of
// "a/b" ("a/b\0...") never interleave, the keys of one dataset / variable / (t, z) plane are each
// one contiguous range, and planes sort by t, then z, then block. Each incarnation of a dataset
// (the blocks of one import) is a range of its own, so a replacement is written beside the data
// it replaces, and what a dead import left behind is told apart from live data.
#ifndef GRIDSTORE_MODEL_INTERNAL_GRID_KEYS_H_
#define GRIDSTORE_MODEL_INTERNAL_GRID_KEYS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "gridstore/model/names.h"
#include "gridstore/storage/kv_store.h"
#include "gridstore/util/internal/utf8.h"
#include "gridstore/util/result.h"

namespace gridstore::grid {

// Layout tag in data keys: 0 is the (t, z) plane cut into 2-D blocks.
inline constexpr uint8_t kPlaneLayout = 0;
// Layout tag 1 is the series layout (grid_meta.h, SeriesLayout): t is the index of the block of
// steps, block_row and block_col the tile's. Its keys sort after every plane of the variable.
inline constexpr uint8_t kSeriesLayout = 1;
// Layout tag of the key holding a variable's compression dictionary (BlockDictionary).
inline constexpr uint8_t kDictionaryLayout = 0xff;

// The store marker key in the meta table.
std::string StoreMarkerKey();
// The meta-table key of a dataset. REQUIRES: ValidateDataSetId(id).ok().
std::string MetaKey(std::string_view id);
// All dataset metas: every meta-table key that is not reserved.
storage::KeyRange AllMetaKeys();
// The key of the stamp of dataset `id`'s meta (written with every meta write): readers check it
// to tell whether a meta they cached is still current without reading the whole meta.
std::string MetaStampKey(std::string_view id);
// The stamp's value: incarnation, generation (fixed64 each).
std::string EncodeMetaStamp(uint64_t incarnation, uint64_t generation);
bool DecodeMetaStamp(std::string_view value, uint64_t* incarnation, uint64_t* generation);
// The key of the record of incarnation `incarnation` of dataset `id` being written as a
// replacement, and the ranges of all such records and of those of one dataset.
std::string StagedKey(std::string_view id, uint64_t incarnation);
storage::KeyRange AllStagedKeys();
storage::KeyRange StagedKeysOf(std::string_view id);
// Parses a staged key; `id` points into `key`. False if it is not one.
bool DecodeStagedKey(std::string_view key, std::string_view* id, uint64_t* incarnation);

struct BlockAddress {
  std::string_view dataset;
  // The incarnation the key carries; 0 for datasets written before incarnations were in keys.
  uint64_t incarnation = 0;
  std::string_view variable;
  uint8_t layout = kPlaneLayout;
  uint32_t t = 0;
  uint32_t z = 0;
  uint32_t block_row = 0;  // block index along x
  uint32_t block_col = 0;  // block index along y
};

// Appends the data key of `address` to *dst (hot path: no allocation when *dst has capacity).
void AppendDataKey(const BlockAddress& address, std::string* dst);
std::string DataKey(const BlockAddress& address);
// The data key of the compression dictionary of `variable` in incarnation `incarnation` of
// dataset `id`.
std::string DictionaryKey(std::string_view id, uint64_t incarnation, std::string_view variable);
// Parses a data key; the views point into `key`. DataLoss if it is not one.
Result<BlockAddress> DecodeDataKey(std::string_view key);

// Contiguous ranges of the data table: every incarnation of a dataset; one incarnation; one
// variable or plane of one incarnation.
storage::KeyRange DataSetDataRange(std::string_view id);
storage::KeyRange IncarnationDataRange(std::string_view id, uint64_t incarnation);
storage::KeyRange VariableDataRange(std::string_view id, uint64_t incarnation,
                                    std::string_view variable);
// Every block of one layout (kPlaneLayout, kSeriesLayout) of one variable of one incarnation.
storage::KeyRange LayoutDataRange(std::string_view id, uint64_t incarnation,
                                  std::string_view variable, uint8_t layout);
storage::KeyRange PlaneDataRange(std::string_view id, uint64_t incarnation,
                                 std::string_view variable, uint8_t layout, uint32_t t, uint32_t z);
// The index-table range holding every entry that belongs to dataset `id`.
storage::KeyRange DataSetIndexRange(std::string_view id);

// ---- Meta-query index (index table) ----

// The key of index `index`'s definition (its value is the encoded schema).
std::string IndexDefinitionKey(std::string_view index);
// Every index definition; the name is IndexDefinitionKey minus its first byte and last NUL.
storage::KeyRange AllIndexDefinitions();
// The key whose value changes with every index creation and drop; meta writes expect it
// unchanged, so a writer holding outdated definitions retries instead of skipping an index.
std::string IndexDefinitionsVersionKey();
// Parses a definition key (of a ready or a building index); false if it is not one.
bool DecodeIndexDefinitionKey(std::string_view key, std::string_view* index);
// The definition of index `index` while it is being built: writers maintain its postings, but
// queries do not use it until the ready definition replaces it.
std::string BuildingIndexDefinitionKey(std::string_view index);
storage::KeyRange AllBuildingIndexDefinitions();
// Every posting of index `index`.
storage::KeyRange IndexPostingsRange(std::string_view index);
// The common prefix of every posting of `field` in `index`: 0x01 string(index) string(field).
std::string IndexFieldPrefix(std::string_view index, std::string_view field);

// Order-preserving value encodings appended to a field prefix.
void AppendIndexString(std::string_view value, std::string* dst);
// As AppendIndexString without the terminator: every encoded string that starts with `prefix`
// starts with these bytes.
void AppendIndexStringPrefix(std::string_view prefix, std::string* dst);
void AppendIndexInt64(int64_t value, std::string* dst);
void AppendIndexDouble(double value, std::string* dst);
void AppendIndexBool(bool value, std::string* dst);
// Appends string(id), completing a posting key.
void AppendIndexPostingId(std::string_view id, std::string* dst);
// Splits what follows the field prefix of a posting key into the encoded value and the id.
// `value_width` is 8 (int64, double), 1 (bool) or 0 (string). False if malformed.
bool SplitIndexPosting(std::string_view suffix, size_t value_width, std::string_view* value,
                       std::string_view* id);
// Decoders of the fixed-width encodings. REQUIRES: `encoded` has the right width.
int64_t DecodeIndexInt64(std::string_view encoded);
double DecodeIndexDouble(std::string_view encoded);
// Decodes an encoded string value (with its terminator); false if malformed.
bool DecodeIndexString(std::string_view encoded, std::string* value);

}  // namespace gridstore::grid

#endif  // GRIDSTORE_MODEL_INTERNAL_GRID_KEYS_H_
