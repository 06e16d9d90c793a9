// Copyright 2026 The GridStore Authors.
//
// Key grammar (docs/format.md, "Keys"):
//
//   string      := bytes (no NUL) 0x00
//   u8          := 1 byte
//   u32         := 4 bytes, big-endian
//
//   meta table
//     meta key  := id                          (1..256 bytes, no NUL; never starts with 0x00)
//     store key := 0x00 "gridstore"
//   data table
//     data key  := string(id) string(variable) layout:u8 t:u32 z:u32 block_row:u32 block_col:u32
//   index table
//     index key := 0x01 ...                    (meta-query postings)
//                | 0x02 string(id) ...         (per-dataset entries)
//
// A data key ends in exactly 17 fixed bytes after the second NUL; the first two NULs are always the
// string terminators because ids and names hold none.
#include "grid/grid_keys.h"

#include <cstdio>

#include "util/coding.h"

namespace gridstore::grid {
namespace {

constexpr size_t kDataKeyTailBytes = 1 + 4 * 4;  // layout + t, z, block_row, block_col
// Longest part of an over-long id or name quoted in an error message.
constexpr size_t kMaxQuotedBytes = 40;

Status ValidateName(std::string_view what, std::string_view name, size_t limit) {
  if (name.empty()) return Status::InvalidArgument(std::string(what) + " is empty");
  if (name.size() > limit) {
    std::string shown = EscapeForMessage(name.substr(0, kMaxQuotedBytes));
    return Status::InvalidArgument(std::string(what) + " is " + std::to_string(name.size()) +
                                   " bytes; the limit is " + std::to_string(limit) + ": '" + shown +
                                   "...'");
  }
  if (name.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument(std::string(what) + " '" + EscapeForMessage(name) +
                                   "' contains a NUL byte");
  }
  return Status::OK();
}

void AppendString(std::string_view s, std::string* dst) {
  dst->append(s.data(), s.size());
  dst->push_back('\0');
}

// Length of the well-formed UTF-8 sequence (of a code point >= U+00A0) at the start of `s`, or 0.
size_t Utf8SequenceLength(std::string_view s) {
  const auto b0 = static_cast<uint8_t>(s[0]);
  size_t n;
  uint32_t cp;
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    n = 2;
    cp = b0 & 0x1f;
  } else if (b0 >= 0xe0 && b0 <= 0xef) {
    n = 3;
    cp = b0 & 0x0f;
  } else if (b0 >= 0xf0 && b0 <= 0xf4) {
    n = 4;
    cp = b0 & 0x07;
  } else {
    return 0;
  }
  if (s.size() < n) return 0;
  for (size_t i = 1; i < n; ++i) {
    const auto b = static_cast<uint8_t>(s[i]);
    if ((b & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
  const bool surrogate = cp >= 0xd800 && cp <= 0xdfff;
  // C1 controls (U+0080..U+009F) print as garbage; escape their bytes like other controls.
  if (overlong || surrogate || cp > 0x10ffff || cp < 0xa0) return 0;
  return n;
}

}  // namespace

Status ValidateDataSetId(std::string_view id) {
  return ValidateName("dataset id", id, kMaxDataSetIdBytes);
}

Status ValidateVariableName(std::string_view name) {
  return ValidateName("variable name", name, kMaxVariableNameBytes);
}

std::string StoreMarkerKey() { return std::string("\0gridstore", 10); }

std::string MetaKey(std::string_view id) { return std::string(id); }

storage::KeyRange AllMetaKeys() { return storage::KeyRange{std::string("\x01"), std::string()}; }

void AppendDataKey(const BlockAddress& address, std::string* dst) {
  AppendString(address.dataset, dst);
  AppendString(address.variable, dst);
  dst->push_back(static_cast<char>(address.layout));
  PutFixed32BigEndian(dst, address.t);
  PutFixed32BigEndian(dst, address.z);
  PutFixed32BigEndian(dst, address.block_row);
  PutFixed32BigEndian(dst, address.block_col);
}

std::string DataKey(const BlockAddress& address) {
  std::string key;
  key.reserve(address.dataset.size() + address.variable.size() + 2 + kDataKeyTailBytes);
  AppendDataKey(address, &key);
  return key;
}

Result<BlockAddress> DecodeDataKey(std::string_view key) {
  ByteReader reader(key);
  BlockAddress a;
  if (!reader.ReadNulTerminated(&a.dataset) || !reader.ReadNulTerminated(&a.variable)) {
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
  bool ok = reader.ReadByte(&a.layout) && reader.ReadFixed32BigEndian(&a.t) &&
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

storage::KeyRange VariableDataRange(std::string_view id, std::string_view variable) {
  std::string prefix;
  AppendString(id, &prefix);
  AppendString(variable, &prefix);
  return storage::KeyRange::Prefix(prefix);
}

storage::KeyRange PlaneDataRange(std::string_view id, std::string_view variable, uint8_t layout,
                                 uint32_t t, uint32_t z) {
  std::string prefix;
  AppendString(id, &prefix);
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

std::string EscapeForMessage(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  while (!bytes.empty()) {
    const auto c = static_cast<uint8_t>(bytes[0]);
    if (c == '\\') {
      out += "\\\\";  // so that a literal "\x00" in a name cannot pass for an escape
      bytes.remove_prefix(1);
    } else if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
      bytes.remove_prefix(1);
    } else if (size_t n = Utf8SequenceLength(bytes); n > 0) {
      out.append(bytes.data(), n);
      bytes.remove_prefix(n);
    } else {
      char buf[5];
      std::snprintf(buf, sizeof(buf), "\\x%02x", c);
      out += buf;
      bytes.remove_prefix(1);
    }
  }
  return out;
}

}  // namespace gridstore::grid
