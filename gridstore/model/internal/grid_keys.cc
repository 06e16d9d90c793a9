// Copyright 2026 The GridStore Authors.
//
// Key grammar (docs/format.md, "Keys"):
//
//   string      := bytes (no NUL) 0x00
//   u8          := 1 byte
//   u32         := 4 bytes, big-endian
//
//   u64         := 8 bytes, big-endian
//
//   meta table
//     meta key  := id                          (1..256 bytes, no NUL; never starts with 0x00)
//     store key := 0x00 "gridstore"
//     stamp key := 0x00 0x01 id                -> incarnation:u64 generation:u64
//     staged    := 0x00 0x02 string(id) incarnation:u64   -> staged record (grid_store.cc)
//   data table
//     data key  := string(id) 0x00 incarnation:u64 string(variable) layout:u8 t:u32 z:u32
//                  block_row:u32 block_col:u32
//                | string(id) string(variable) layout:u8 t:u32 z:u32 block_row:u32 block_col:u32
//                                              (incarnation 0: written before store format 2)
//   A variable name is never empty, so the byte after string(id) tells the two forms apart.
//   index table
//     posting   := 0x01 string(index) string(field) value string(id)     -> ""
//                | 0x02 string(id) ...         (per-dataset entries)
//     def key   := 0x03 string(index)                                    -> encoded schema
//     defs version := 0x04                     -> u64, changed by every index create or drop
//     building  := 0x05 string(index)          -> encoded schema of an index being built
//     value     := esc(bytes) 0x00 0x01        string; esc maps 0x00 to 0x00 0xff
//                | be64(v ^ 2^63)              int64
//                | be64(total_order(v))        double: bits | 2^63 if v >= 0, else ~bits;
//                                              -0.0 as 0.0, every NaN as 0x7ff8000000000000
//                | u8 (0 or 1)                 bool
//
// The string terminator 0x00 0x01 sorts below every escaped or ordinary continuation, so encoded
// strings sort as the strings do and a value is never a prefix of another value's encoding.
//
// A data key ends in exactly 17 fixed bytes after the second NUL; the first two NULs are always the
// string terminators because ids and names hold none.
#include "gridstore/model/internal/grid_keys.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include "gridstore/util/internal/coding.h"
#include "gridstore/util/internal/utf8.h"

namespace gridstore::grid {
namespace {

constexpr size_t kDataKeyTailBytes = 1 + 4 * 4;  // layout + t, z, block_row, block_col
void AppendString(std::string_view s, std::string* dst) {
  dst->append(s.data(), s.size());
  dst->push_back('\0');
}

}  // namespace

std::string StoreMarkerKey() { return std::string("\0gridstore", 10); }

std::string MetaKey(std::string_view id) { return std::string(id); }

storage::KeyRange AllMetaKeys() { return storage::KeyRange{std::string("\x01"), std::string()}; }

std::string MetaStampKey(std::string_view id) {
  std::string key("\0\x01", 2);
  key.append(id);
  return key;
}

std::string EncodeMetaStamp(uint64_t incarnation, uint64_t generation) {
  std::string s;
  PutFixed64(&s, incarnation);
  PutFixed64(&s, generation);
  return s;
}

bool DecodeMetaStamp(std::string_view value, uint64_t* incarnation, uint64_t* generation) {
  if (value.size() != 16) return false;
  *incarnation = DecodeFixed64(value.data());
  *generation = DecodeFixed64(value.data() + 8);
  return true;
}

std::string StagedKey(std::string_view id, uint64_t incarnation) {
  std::string key("\0\x02", 2);
  AppendString(id, &key);
  PutFixed64BigEndian(&key, incarnation);
  return key;
}

storage::KeyRange AllStagedKeys() { return storage::KeyRange::Prefix(std::string("\0\x02", 2)); }

storage::KeyRange StagedKeysOf(std::string_view id) {
  std::string prefix("\0\x02", 2);
  AppendString(id, &prefix);
  return storage::KeyRange::Prefix(prefix);
}

bool DecodeStagedKey(std::string_view key, std::string_view* id, uint64_t* incarnation) {
  if (key.size() < 2 || key[0] != '\0' || key[1] != '\x02') return false;
  ByteReader reader(key.substr(2));
  return reader.ReadNulTerminated(id) && !id->empty() && reader.ReadFixed64BigEndian(incarnation) &&
         reader.remaining().empty();
}

namespace {

// string(id), then the incarnation's marker and number unless it is 0 (the keys written before
// incarnations were part of them).
void AppendIncarnationPrefix(std::string_view id, uint64_t incarnation, std::string* dst) {
  AppendString(id, dst);
  if (incarnation != 0) {
    dst->push_back('\0');
    PutFixed64BigEndian(dst, incarnation);
  }
}

}  // namespace

void AppendDataKey(const BlockAddress& address, std::string* dst) {
  AppendIncarnationPrefix(address.dataset, address.incarnation, dst);
  AppendString(address.variable, dst);
  dst->push_back(static_cast<char>(address.layout));
  PutFixed32BigEndian(dst, address.t);
  PutFixed32BigEndian(dst, address.z);
  PutFixed32BigEndian(dst, address.block_row);
  PutFixed32BigEndian(dst, address.block_col);
}

std::string DataKey(const BlockAddress& address) {
  std::string key;
  key.reserve(address.dataset.size() + address.variable.size() + 11 + kDataKeyTailBytes);
  AppendDataKey(address, &key);
  return key;
}

std::string DictionaryKey(std::string_view id, uint64_t incarnation, std::string_view variable) {
  return DataKey(BlockAddress{id, incarnation, variable, kDictionaryLayout, 0, 0, 0, 0});
}

Result<BlockAddress> DecodeDataKey(std::string_view key) {
  ByteReader reader(key);
  BlockAddress a;
  bool ok = reader.ReadNulTerminated(&a.dataset);
  if (ok && !reader.remaining().empty() && reader.remaining()[0] == '\0') {
    uint8_t marker = 0;
    ok = reader.ReadByte(&marker) && reader.ReadFixed64BigEndian(&a.incarnation) &&
         a.incarnation != 0;
    if (!ok) {
      return Status::DataLoss("data key '" + EscapeForMessage(key) +
                              "' has a malformed incarnation");
    }
  }
  if (!ok || !reader.ReadNulTerminated(&a.variable)) {
    return Status::DataLoss("data key '" + EscapeForMessage(key) +
                            "' is missing a string terminator");
  }
  if (a.dataset.empty() || a.dataset.size() > kMaxDataSetIdBytes || a.variable.empty() ||
      a.variable.size() > kMaxVariableNameBytes) {
    return Status::DataLoss("data key '" + EscapeForMessage(key) +
                            "' has an empty or over-long dataset id or variable name");
  }
  if (reader.remaining().size() != kDataKeyTailBytes) {
    return Status::DataLoss("data key '" + EscapeForMessage(key) + "' has " +
                            std::to_string(reader.remaining().size()) +
                            " bytes after the variable name; expected " +
                            std::to_string(kDataKeyTailBytes));
  }
  ok = reader.ReadByte(&a.layout) && reader.ReadFixed32BigEndian(&a.t) &&
       reader.ReadFixed32BigEndian(&a.z) && reader.ReadFixed32BigEndian(&a.block_row) &&
       reader.ReadFixed32BigEndian(&a.block_col);
  if (!ok) return Status::DataLoss("data key '" + EscapeForMessage(key) + "' is truncated");
  return a;
}

storage::KeyRange DataSetDataRange(std::string_view id) {
  std::string prefix;
  AppendString(id, &prefix);
  return storage::KeyRange::Prefix(prefix);
}

storage::KeyRange IncarnationDataRange(std::string_view id, uint64_t incarnation) {
  std::string prefix;
  AppendIncarnationPrefix(id, incarnation, &prefix);
  storage::KeyRange range = storage::KeyRange::Prefix(prefix);
  // Incarnation-0 keys continue with a variable name, whose first byte is never 0x00: starting
  // at 0x01 leaves out every key that carries an incarnation.
  if (incarnation == 0) range.begin.push_back('\x01');
  return range;
}

storage::KeyRange VariableDataRange(std::string_view id, uint64_t incarnation,
                                    std::string_view variable) {
  std::string prefix;
  AppendIncarnationPrefix(id, incarnation, &prefix);
  AppendString(variable, &prefix);
  return storage::KeyRange::Prefix(prefix);
}

storage::KeyRange LayoutDataRange(std::string_view id, uint64_t incarnation,
                                  std::string_view variable, uint8_t layout) {
  std::string prefix;
  AppendIncarnationPrefix(id, incarnation, &prefix);
  AppendString(variable, &prefix);
  prefix.push_back(static_cast<char>(layout));
  return storage::KeyRange::Prefix(prefix);
}

storage::KeyRange PlaneDataRange(std::string_view id, uint64_t incarnation,
                                 std::string_view variable, uint8_t layout, uint32_t t,
                                 uint32_t z) {
  std::string prefix;
  AppendIncarnationPrefix(id, incarnation, &prefix);
  AppendString(variable, &prefix);
  prefix.push_back(static_cast<char>(layout));
  PutFixed32BigEndian(&prefix, t);
  PutFixed32BigEndian(&prefix, z);
  return storage::KeyRange::Prefix(prefix);
}

storage::KeyRange DataSetIndexRange(std::string_view id) {
  std::string prefix("\x02");
  AppendString(id, &prefix);
  return storage::KeyRange::Prefix(prefix);
}

std::string IndexDefinitionKey(std::string_view index) {
  std::string key("\x03");
  AppendString(index, &key);
  return key;
}

storage::KeyRange AllIndexDefinitions() { return storage::KeyRange::Prefix("\x03"); }

std::string IndexDefinitionsVersionKey() { return std::string("\x04"); }

bool DecodeIndexDefinitionKey(std::string_view key, std::string_view* index) {
  if (key.size() < 3 || (key[0] != '\x03' && key[0] != '\x05') || key.back() != '\0') {
    return false;
  }
  *index = key.substr(1, key.size() - 2);
  return index->find('\0') == std::string_view::npos;
}

std::string BuildingIndexDefinitionKey(std::string_view index) {
  std::string key("\x05");
  AppendString(index, &key);
  return key;
}

storage::KeyRange AllBuildingIndexDefinitions() { return storage::KeyRange::Prefix("\x05"); }

storage::KeyRange IndexPostingsRange(std::string_view index) {
  std::string prefix("\x01");
  AppendString(index, &prefix);
  return storage::KeyRange::Prefix(prefix);
}

std::string IndexFieldPrefix(std::string_view index, std::string_view field) {
  std::string prefix("\x01");
  AppendString(index, &prefix);
  AppendString(field, &prefix);
  return prefix;
}

void AppendIndexStringPrefix(std::string_view prefix, std::string* dst) {
  for (char c : prefix) {
    dst->push_back(c);
    if (c == '\0') dst->push_back('\xff');
  }
}

void AppendIndexString(std::string_view value, std::string* dst) {
  AppendIndexStringPrefix(value, dst);
  dst->push_back('\0');
  dst->push_back('\x01');
}

void AppendIndexInt64(int64_t value, std::string* dst) {
  PutFixed64BigEndian(dst, static_cast<uint64_t>(value) ^ (uint64_t{1} << 63));
}

void AppendIndexDouble(double value, std::string* dst) {
  if (value == 0) value = 0.0;  // -0.0 equals 0.0: one key for both
  uint64_t bits;
  if (std::isnan(value)) {
    bits = 0x7ff8000000000000ull;  // one NaN, above +inf (sign and payload dropped)
  } else {
    std::memcpy(&bits, &value, sizeof(bits));
  }
  bits = (bits >> 63) != 0 ? ~bits : bits | (uint64_t{1} << 63);
  PutFixed64BigEndian(dst, bits);
}

void AppendIndexBool(bool value, std::string* dst) { dst->push_back(value ? '\x01' : '\0'); }

void AppendIndexPostingId(std::string_view id, std::string* dst) { AppendString(id, dst); }

bool SplitIndexPosting(std::string_view suffix, size_t value_width, std::string_view* value,
                       std::string_view* id) {
  size_t n = value_width;
  if (n == 0) {
    // The value ends at the first 0x00 not followed by 0xff.
    size_t i = 0;
    while (true) {
      i = suffix.find('\0', i);
      if (i == std::string_view::npos || i + 1 >= suffix.size()) return false;
      if (suffix[i + 1] == '\x01') break;
      if (suffix[i + 1] != '\xff') return false;
      i += 2;
    }
    n = i + 2;
  }
  if (suffix.size() < n + 2 || suffix.back() != '\0') return false;
  *value = suffix.substr(0, n);
  *id = suffix.substr(n, suffix.size() - n - 1);
  return id->find('\0') == std::string_view::npos;
}

int64_t DecodeIndexInt64(std::string_view encoded) {
  return static_cast<int64_t>(DecodeFixed64BigEndian(encoded.data()) ^ (uint64_t{1} << 63));
}

double DecodeIndexDouble(std::string_view encoded) {
  uint64_t bits = DecodeFixed64BigEndian(encoded.data());
  bits = (bits >> 63) != 0 ? bits & ~(uint64_t{1} << 63) : ~bits;
  double value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

bool DecodeIndexString(std::string_view encoded, std::string* value) {
  value->clear();
  for (size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] != '\0') {
      value->push_back(encoded[i]);
      continue;
    }
    if (i + 1 >= encoded.size()) return false;
    if (encoded[i + 1] == '\x01') return i + 2 == encoded.size();
    if (encoded[i + 1] != '\xff') return false;
    value->push_back('\0');
    ++i;
  }
  return false;
}

}  // namespace gridstore::grid
