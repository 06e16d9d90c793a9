// Copyright 2026 The GridStore Authors.
//
// The layout of a stored block's 36-byte header (the grammar is in block_format.cc and
// docs/format.md) and the helpers the encoder, the decoder and the dictionaries share.
#ifndef GRIDSTORE_BLOCKS_INTERNAL_BLOCK_FORMAT_H_
#define GRIDSTORE_BLOCKS_INTERNAL_BLOCK_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "gridstore/blocks/internal/block_codec.h"

namespace gridstore::grid::block_format {

inline constexpr size_t kHeaderSize = 36;
inline constexpr char kMagic[2] = {'G', 'B'};

// Header field offsets.
inline constexpr size_t kOffVersion = 2;
inline constexpr size_t kOffCodec = 3;
inline constexpr size_t kOffType = 4;
inline constexpr size_t kOffElementSize = 5;
inline constexpr size_t kOffFlags = 6;
inline constexpr uint16_t kFlagDictionary = 1;
inline constexpr size_t kOffRows = 8;
inline constexpr size_t kOffCols = 12;
inline constexpr size_t kOffRawSize = 16;
inline constexpr size_t kOffChecksum = 24;
inline constexpr size_t kOffPayloadSize = 32;

// In-place counterpart of PutFixed* (little-endian hosts only, as util/coding.h).
template <typename T>
void StoreFixed(char* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// rows * cols * element_size, or false on overflow.
inline bool RawSize(uint64_t rows, uint64_t cols, uint64_t element_size, uint64_t* size) {
  return !__builtin_mul_overflow(rows, cols, size) &&
         !__builtin_mul_overflow(*size, element_size, size);
}

// "0x" and 16 hex digits, for checksums in messages.
std::string Hex(uint64_t v);
// "ROWSxCOLS", for messages.
std::string Shape(uint64_t rows, uint64_t cols);

// The checksum of a framed block: XXH3-64 of everything after the checksum field, seeded with
// XXH3-64 of the header bytes before it, i.e. of the whole stored value minus the field itself.
uint64_t FramedChecksum(std::string_view block);

// Fills the header of `block` (whose payload, and for a framed block its frame table, are
// written already): `h` gives every field but the checksum, which is computed here (over `raw`
// for an unframed block, over the stored bytes for a framed one).
void WriteBlockHeader(const BlockHeader& h, size_t element_size, std::string_view raw,
                      std::string* block);

}  // namespace gridstore::grid::block_format

#endif  // GRIDSTORE_BLOCKS_INTERNAL_BLOCK_FORMAT_H_
