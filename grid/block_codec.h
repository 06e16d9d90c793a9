// Copyright 2026 The GridStore Authors.
//
// The block codec: turns one 2-D block of raw values into a self-describing stored value and
// back. A stored block is a fixed header (format version, codec, data type, block shape, raw size,
// XXH3-64 checksum of the raw bytes) followed by the payload; docs/format.md gives the grammar.
// Decoding checks everything and reports a corrupt or truncated block as DataLoss, never a crash or
// wrong data. zstd contexts are reused per thread. All functions are thread-safe.
#ifndef GRIDSTORE_GRID_BLOCK_CODEC_H_
#define GRIDSTORE_GRID_BLOCK_CODEC_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "grid/data_type.h"
#include "util/result.h"

namespace gridstore::grid {

// Values are part of the stored format: never renumber.
enum class Codec : uint8_t {
  kNone = 0,         // raw little-endian values
  kZstd = 1,         // zstd over the raw bytes
  kShuffleZstd = 2,  // byte shuffle (all first bytes, then all second bytes...), then zstd
};

// "none", "zstd", "shuffle-zstd".
std::string_view CodecName(Codec codec);

struct CodecOptions {
  Codec codec = Codec::kShuffleZstd;
  // zstd level, in [-7, 22]; ignored for kNone. 3 is zstd's default balance of speed and ratio.
  int level = 3;

  bool operator==(const CodecOptions&) const = default;
};

// Parses "none", "zstd", "shuffle-zstd", optionally followed by ":LEVEL" (e.g. "zstd:9").
// InvalidArgument naming the bad part otherwise.
Result<CodecOptions> ParseCodecOptions(std::string_view text);
// The inverse of ParseCodecOptions: "shuffle-zstd:3".
std::string CodecOptionsToString(const CodecOptions& options);
// InvalidArgument if the codec is unknown or the level out of range.
Status ValidateCodecOptions(const CodecOptions& options);

inline constexpr uint8_t kBlockFormatVersion = 1;

struct BlockHeader {
  uint8_t version = kBlockFormatVersion;
  Codec codec = Codec::kNone;
  DataType type = DataType::kFloat32;
  uint32_t rows = 0;      // extent along x
  uint32_t cols = 0;      // extent along y (contiguous)
  uint64_t raw_size = 0;  // rows * cols * DataTypeSize(type)
  uint64_t checksum = 0;  // XXH3-64 of the raw (unshuffled, uncompressed) bytes
};

// Encodes rows x cols values of `type` held in `raw` (little-endian, row-major, exactly
// rows * cols * DataTypeSize(type) bytes) into *out, replacing its contents.
// InvalidArgument if the sizes disagree or the options are invalid.
Status EncodeBlock(const CodecOptions& options, DataType type, uint32_t rows, uint32_t cols,
                   std::string_view raw, std::string* out);

// Parses and validates the header of a stored block (not the payload). DataLoss if truncated or
// malformed (bad version, codec, type, or sizes that disagree).
Result<BlockHeader> ReadBlockHeader(std::string_view block);

// Decodes a stored block into `dst`, which must have room for rows * cols * DataTypeSize(type)
// bytes. DataLoss (with a message saying what is wrong: truncated, wrong type or shape for this
// variable, decompression failure, checksum mismatch) if the block is not exactly what was written.
// The caller adds which dataset, variable, t, z and block it was.
Status DecodeBlock(std::string_view block, DataType type, uint32_t rows, uint32_t cols, char* dst);

// XXH3-64 of `bytes`: the block checksum.
uint64_t BlockChecksum(std::string_view bytes);

}  // namespace gridstore::grid

#endif  // GRIDSTORE_GRID_BLOCK_CODEC_H_
