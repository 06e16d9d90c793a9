// Copyright 2026 The GridStore Authors.
//
// A stored block (docs/format.md, "Blocks"), all integers little-endian:
//
//   block   := header payload
//   header  := magic:"GB" version:u8 codec:u8 type:u8 element_size:u8 flags:u16
//              rows:u32 cols:u32 raw_size:u64 checksum:u64 payload_size:u32       (36 bytes)
//   payload := unit(raw)                                            version 1
//            | frame_rows:u32 frame_count:u32 frame_size:u32{frame_count}
//              unit(frame_0) ... unit(frame_{frame_count-1})        version 2 (framed)
//   unit(b) := b                        codec 0 (none)
//            | zstd_frame(b)            codec 1 (zstd)
//            | zstd_frame(shuffle(b))   codec 2 (shuffle-zstd)
//
//   raw_size     = rows * cols * element_size,  element_size = DataTypeSize(type)
//   frame_i      = raw rows [i * frame_rows, min((i + 1) * frame_rows, rows)); 1 <= frame_rows <
//   rows frame_count  = ceil(rows / frame_rows),  sum(frame_size) = payload_size - 8 - 4 *
//   frame_count checksum     = version 1: XXH3_64bits(raw)
//                  version 2: XXH3_64bits_withSeed(block[32, end), XXH3_64bits(block[0, 24))), i.e.
//                  the whole stored value except the checksum field, checked without decoding
//   payload_size = size(block) - 36
//   flags        = 0, or 1 for a framed, compressed block whose frames were compressed with the
//                  variable's dictionary (zstd_frame then names the dictionary's id)
//
// A stored dictionary (BlockDictionary::Load, TrainBlockDictionary):
//   dictionary := magic:"GD" version:u8(=1) reserved:u8(=0) dict_id:u32 checksum:u64 content
//   content    = a zstd dictionary (ZDICT_trainFromBuffer), checksum = XXH3_64bits(content)
//   shuffle(b)   = byte 0 of every element, then byte 1 of every element, ... (identity when
//                  element_size is 1)
//
// Every header field is checked against the others and against what the caller expects, so any
// damage to the header is DataLoss; damage to the payload is caught by zstd or by the checksum.
#include "gridstore/blocks/internal/block_format.h"

#include <xxhash.h>
#if defined(__x86_64__)
#define XXH_DISPATCH_DISABLE_REPLACE
#include <xxh_x86dispatch.h>
#endif

#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include "gridstore/util/internal/coding.h"

namespace gridstore::grid {
namespace {

// libxxhash's runtime dispatch where there is one: AVX2 or AVX-512 when the CPU has them, about
// twice the speed of the SSE2 code the library is built for (every block is hashed on every
// write and read); the hashes are the same.
uint64_t Xxh3(const void* data, size_t size) {
#if defined(__x86_64__)
  return XXH3_64bits_dispatch(data, size);
#else
  return XXH3_64bits(data, size);
#endif
}

uint64_t Xxh3WithSeed(const void* data, size_t size, uint64_t seed) {
#if defined(__x86_64__)
  return XXH3_64bits_withSeed_dispatch(data, size, seed);
#else
  return XXH3_64bits_withSeed(data, size, seed);
#endif
}

}  // namespace

uint64_t BlockChecksum(std::string_view bytes) { return Xxh3(bytes.data(), bytes.size()); }

namespace block_format {

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%016" PRIx64, v);
  return buf;
}

std::string Shape(uint64_t rows, uint64_t cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

uint64_t FramedChecksum(std::string_view block) {
  const uint64_t seed = Xxh3(block.data(), kOffChecksum);
  return Xxh3WithSeed(block.data() + kOffPayloadSize, block.size() - kOffPayloadSize, seed);
}

void WriteBlockHeader(const BlockHeader& h, size_t element_size, std::string_view raw,
                      std::string* block) {
  char* p = block->data();
  const bool framed = h.version == kFramedBlockVersion;
  p[0] = kMagic[0];
  p[1] = kMagic[1];
  p[kOffVersion] = static_cast<char>(h.version);
  p[kOffCodec] = static_cast<char>(h.codec);
  p[kOffType] = static_cast<char>(h.type);
  p[kOffElementSize] = static_cast<char>(element_size);
  StoreFixed(p + kOffFlags, h.dictionary ? kFlagDictionary : uint16_t{0});
  StoreFixed(p + kOffRows, h.rows);
  StoreFixed(p + kOffCols, h.cols);
  StoreFixed(p + kOffRawSize, h.raw_size);
  StoreFixed(p + kOffPayloadSize, static_cast<uint32_t>(block->size() - kHeaderSize));
  if (framed) {
    StoreFixed(p + kHeaderSize, h.frame_rows);
    StoreFixed(p + kHeaderSize + 4, h.frames);
    StoreFixed(p + kOffChecksum, FramedChecksum(*block));
  } else {
    StoreFixed(p + kOffChecksum, BlockChecksum(raw));
  }
}

namespace {

// The frame table of a framed block: frame_rows, the frame count and the frame sizes, all
// consistent with the header `h` (filled in) and with the payload.
Status ReadFrameTable(std::string_view block, size_t element_size, BlockHeader* header) {
  BlockHeader& h = *header;
  const char* p = block.data();
  const uint32_t payload_size = DecodeFixed32(p + kOffPayloadSize);
  if (payload_size < 8) {
    return Status::DataLoss("framed block is truncated: " + std::to_string(payload_size) +
                            " payload bytes, the frame count needs 8");
  }
  h.frame_rows = DecodeFixed32(p + kHeaderSize);
  h.frames = DecodeFixed32(p + kHeaderSize + 4);
  if (h.frame_rows == 0 || h.frame_rows >= h.rows) {
    return Status::DataLoss("framed block has " + std::to_string(h.frame_rows) +
                            " rows per frame, expected 1 to " + std::to_string(h.rows - 1) +
                            " for a block of " + std::to_string(h.rows) + " rows");
  }
  const auto expected_frames = static_cast<uint32_t>(FrameCount(h.rows, h.frame_rows));
  if (h.frames != expected_frames) {
    return Status::DataLoss("framed block has " + std::to_string(h.frames) + " frames, expected " +
                            std::to_string(expected_frames) + " (" + std::to_string(h.rows) +
                            " rows, " + std::to_string(h.frame_rows) + " per frame)");
  }
  const uint64_t table_end = 8 + 4 * uint64_t{h.frames};
  if (table_end > payload_size) {
    return Status::DataLoss("framed block is truncated: the table of " + std::to_string(h.frames) +
                            " frame sizes needs " + std::to_string(table_end) +
                            " payload bytes, the block holds " + std::to_string(payload_size));
  }
  const uint64_t row_bytes = uint64_t{h.cols} * element_size;
  uint64_t sum = 0;
  for (uint32_t f = 0; f < h.frames; ++f) {
    const uint32_t size = DecodeFixed32(p + kHeaderSize + 8 + 4 * size_t{f});
    const uint64_t frame_rows =
        std::min<uint64_t>(h.frame_rows, h.rows - uint64_t{f} * h.frame_rows);
    if (h.codec == Codec::kNone && size != frame_rows * row_bytes) {
      return Status::DataLoss("frame " + std::to_string(f) + " is " + std::to_string(size) +
                              " bytes uncompressed, expected " +
                              std::to_string(frame_rows * row_bytes));
    }
    sum += size;
  }
  if (sum != payload_size - table_end) {
    return Status::DataLoss("frame sizes sum to " + std::to_string(sum) +
                            " bytes, the block holds " + std::to_string(payload_size - table_end) +
                            " after the frame table");
  }
  return Status::OK();
}

}  // namespace

}  // namespace block_format

using namespace block_format;  // NOLINT: the header layout, in the functions below

Result<BlockHeader> ReadBlockHeader(std::string_view block) {
  if (block.size() < kHeaderSize) {
    return Status::DataLoss("block is truncated: " + std::to_string(block.size()) +
                            " bytes, header needs " + std::to_string(kHeaderSize));
  }
  const char* p = block.data();
  if (p[0] != kMagic[0] || p[1] != kMagic[1]) {
    char magic[8];
    std::snprintf(magic, sizeof(magic), "%02x%02x", static_cast<uint8_t>(p[0]),
                  static_cast<uint8_t>(p[1]));
    return Status::DataLoss(std::string("not a block: bad magic 0x") + magic +
                            " (expected 0x4742, \"GB\")");
  }
  BlockHeader h;
  h.version = static_cast<uint8_t>(p[kOffVersion]);
  if (h.version > kBlockFormatVersion) {
    return Status::DataLoss("block format version " + std::to_string(h.version) +
                            " is newer than this build reads (" +
                            std::to_string(kBlockFormatVersion) + ")");
  }
  if (h.version < kUnframedBlockVersion) {
    return Status::DataLoss("invalid block format version " + std::to_string(h.version));
  }
  const auto codec = static_cast<uint8_t>(p[kOffCodec]);
  if (!IsValidCodecValue(codec)) {
    return Status::DataLoss("block has unknown codec " + std::to_string(codec));
  }
  h.codec = static_cast<Codec>(codec);
  const auto type = static_cast<uint8_t>(p[kOffType]);
  if (!IsValidDataType(type)) {
    return Status::DataLoss("block has unknown data type " + std::to_string(type));
  }
  h.type = static_cast<DataType>(type);
  const auto element_size = static_cast<uint8_t>(p[kOffElementSize]);
  if (element_size != DataTypeSize(h.type)) {
    return Status::DataLoss("block element size " + std::to_string(element_size) +
                            " does not match its type " + std::string(DataTypeName(h.type)));
  }
  const uint16_t flags = DecodeFixed16(p + kOffFlags);
  if (flags != 0 &&
      !(flags == kFlagDictionary && h.version == kFramedBlockVersion && h.codec != Codec::kNone)) {
    return Status::DataLoss("block header has invalid flags " + std::to_string(flags));
  }
  h.dictionary = flags == kFlagDictionary;
  h.rows = DecodeFixed32(p + kOffRows);
  h.cols = DecodeFixed32(p + kOffCols);
  if (h.rows == 0 || h.cols == 0) {
    return Status::DataLoss("block shape " + Shape(h.rows, h.cols) + " is empty");
  }
  h.raw_size = DecodeFixed64(p + kOffRawSize);
  uint64_t expected_raw = 0;
  if (!RawSize(h.rows, h.cols, element_size, &expected_raw) || h.raw_size != expected_raw) {
    return Status::DataLoss("block raw size " + std::to_string(h.raw_size) + " does not match " +
                            Shape(h.rows, h.cols) + " " + std::string(DataTypeName(h.type)));
  }
  h.checksum = DecodeFixed64(p + kOffChecksum);
  const uint32_t payload_size = DecodeFixed32(p + kOffPayloadSize);
  if (payload_size != block.size() - kHeaderSize) {
    return Status::DataLoss("payload size mismatch: header says " + std::to_string(payload_size) +
                            " bytes, block holds " + std::to_string(block.size() - kHeaderSize));
  }
  if (h.version == kUnframedBlockVersion) {
    if (h.codec == Codec::kNone && payload_size != h.raw_size) {
      return Status::DataLoss("payload size mismatch: uncompressed payload is " +
                              std::to_string(payload_size) + " bytes, raw size is " +
                              std::to_string(h.raw_size));
    }
    return h;
  }
  GRIDSTORE_RETURN_IF_ERROR(ReadFrameTable(block, element_size, &h));
  return h;
}

bool BlockNeedsDictionary(std::string_view block) {
  return block.size() >= kHeaderSize && DecodeFixed16(block.data() + kOffFlags) == kFlagDictionary;
}

}  // namespace gridstore::grid
