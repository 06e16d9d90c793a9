// Copyright 2026 The GridStore Authors.
//
// The block codec: turns one 2-D block of raw values into a self-describing stored value and
// back. A stored block is a fixed header (format version, codec, data type, block shape, raw size,
// XXH3-64 checksum) followed by the payload; docs/format.md gives the grammar. The payload is
// either one compressed unit (version 1) or, for a framed block (version 2), a table of sizes
// followed by independently compressed frames of `frame_rows` consecutive rows each, so that a
// reader needing a few rows decompresses only the frames holding them. Decoding checks everything
// and reports a corrupt or truncated block as DataLoss, never a crash or wrong data. zstd contexts
// and scratch buffers are reused per thread. All functions are thread-safe.
#ifndef GRIDSTORE_BLOCKS_INTERNAL_BLOCK_CODEC_H_
#define GRIDSTORE_BLOCKS_INTERNAL_BLOCK_CODEC_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/model/codec_options.h"
#include "gridstore/model/data_type.h"
#include "gridstore/util/internal/mutex.h"
#include "gridstore/util/internal/thread_annotations.h"
#include "gridstore/util/result.h"

namespace gridstore::grid {

// Version 1: one compressed payload, checksum over the raw bytes. Version 2: framed.
inline constexpr uint8_t kUnframedBlockVersion = 1;
inline constexpr uint8_t kFramedBlockVersion = 2;
// The newest block format this build reads.
inline constexpr uint8_t kBlockFormatVersion = kFramedBlockVersion;

struct BlockHeader {
  uint8_t version = kUnframedBlockVersion;
  Codec codec = Codec::kNone;
  DataType type = DataType::kFloat32;
  uint32_t rows = 0;      // extent along x
  uint32_t cols = 0;      // extent along y (contiguous)
  uint64_t raw_size = 0;  // rows * cols * DataTypeSize(type)
  // Version 1: XXH3-64 of the raw (unshuffled, uncompressed) bytes. Version 2: XXH3-64 of the
  // stored block itself (docs/format.md), so it is checked without decompressing every frame.
  uint64_t checksum = 0;
  // Version 2 only (0 and 1 for version 1): rows per frame, in [1, rows), and the frame count,
  // ceil(rows / frame_rows). The last frame may hold fewer rows.
  uint32_t frame_rows = 0;
  uint32_t frames = 1;
  // Version 2 only: the frames were compressed with the variable's dictionary (BlockDictionary).
  bool dictionary = false;
};

// A zstd dictionary trained on the frames of one variable's first plane. Frames of a few rows
// compress worse than whole blocks on their own (zstd starts each one with no history and fresh
// entropy tables); primed with a dictionary they compress about as well, so a point read can
// decode 16 rows instead of 256 without giving up ratio (docs/benchmarks.md). Immutable once
// loaded; thread-safe.
class BlockDictionary {
 public:
  // Parses a stored dictionary (the value TrainBlockDictionary returns). DataLoss if it is
  // truncated, damaged (checksum) or not a zstd dictionary.
  static Result<std::shared_ptr<const BlockDictionary>> Load(std::string_view stored);
  ~BlockDictionary();
  BlockDictionary(const BlockDictionary&) = delete;
  BlockDictionary& operator=(const BlockDictionary&) = delete;

  // zstd's dictionary id, also written in every frame compressed with it.
  uint32_t id() const { return id_; }
  size_t size() const { return content_.size(); }

  // For the codec: the ZSTD_DDict, and the ZSTD_CDict for `level` (made on first use; null if
  // zstd fails).
  const void* decompression_dictionary() const { return ddict_; }
  const void* CompressionDictionary(int level) const;

 private:
  BlockDictionary() = default;

  std::string content_;
  uint32_t id_ = 0;
  void* ddict_ = nullptr;  // ZSTD_DDict*
  mutable Mutex mu_;
  mutable std::map<int, void*> cdicts_ GUARDED_BY(mu_);  // level -> ZSTD_CDict*
};

// One raw block (row-major, rows x cols values) for TrainBlockDictionary.
struct RawBlock {
  uint32_t rows = 0;
  uint32_t cols = 0;
  std::string_view raw;
};

// Trains a dictionary for blocks framed `frame_rows` rows at a time and compressed with
// `options`, from `blocks` (a variable's first plane), and returns it in its stored form (for
// BlockDictionary::Load). Returns "" when a dictionary would not pay: an unframed layout, codec
// none, or less than kMinDictionaryTrainingBytes of frames (zstd cannot train on a few samples).
Result<std::string> TrainBlockDictionary(const CodecOptions& options, DataType type,
                                         uint32_t frame_rows, const std::vector<RawBlock>& blocks);
inline constexpr size_t kMinDictionaryTrainingBytes = 256 << 10;

// Encodes rows x cols values of `type` held in `raw` (little-endian, row-major, exactly
// rows * cols * DataTypeSize(type) bytes) into *out, replacing its contents. With frame_rows in
// [1, rows) the block is framed (version 2): rows are compressed in independent groups of
// frame_rows; with 0 or frame_rows >= rows it is one unit (version 1, the format of blocks written
// before frames existed). InvalidArgument if the sizes disagree or the options are invalid.
// With a `dictionary`, the frames of a framed, compressed block are compressed with it (and the
// block can be decoded only with it); unframed blocks ignore it.
Status EncodeBlock(const CodecOptions& options, DataType type, uint32_t rows, uint32_t cols,
                   uint32_t frame_rows, std::string_view raw, std::string* out,
                   const BlockDictionary* dictionary = nullptr);

// Parses and validates the header of a stored block (not the payload). DataLoss if truncated or
// malformed (bad version, codec, type, or sizes that disagree).
Result<BlockHeader> ReadBlockHeader(std::string_view block);
// Whether a stored block needs its variable's dictionary to decode (false if it is too short to
// tell: decoding then reports the damage).
bool BlockNeedsDictionary(std::string_view block);

// Decodes a stored block (either version) into `dst`, which must have room for
// rows * cols * DataTypeSize(type) bytes. DataLoss (with a message saying what is wrong: truncated,
// wrong type or shape for this variable, decompression failure, checksum mismatch) if the block is
// not exactly what was written, or it needs a dictionary and `dictionary` is null or another one.
// The caller adds which dataset, variable, t, z and block it was.
Status DecodeBlock(std::string_view block, DataType type, uint32_t rows, uint32_t cols, char* dst,
                   const BlockDictionary* dictionary = nullptr);

// Decodes only rows [row_begin, row_end) of a stored block into `dst`, which must have room for
// (row_end - row_begin) * cols * DataTypeSize(type) bytes. A framed block decompresses just the
// frames holding those rows (after checking the checksum of the whole stored value); an unframed
// one is decompressed whole into a per-thread buffer. If `bytes_decoded` is not null it receives
// the raw bytes decompressed. REQUIRES: row_begin < row_end <= rows. Errors as DecodeBlock.
Status DecodeBlockRows(std::string_view block, DataType type, uint32_t rows, uint32_t cols,
                       uint32_t row_begin, uint32_t row_end, char* dst, size_t* bytes_decoded,
                       const BlockDictionary* dictionary = nullptr);

// Where DecodeBlockRowsInto writes: columns [col_begin, col_end) of block row r (row_begin <= r <
// row_end) at base + (r - row_begin) * row_stride bytes; e.g. straight into the rows of a fetch's
// result, which are wider than the block, instead of through a buffer and a copy.
struct RowsTarget {
  char* base = nullptr;
  size_t row_stride = 0;  // bytes
  uint32_t col_begin = 0;
  uint32_t col_end = 0;
};

// DecodeBlockRows into a RowsTarget. REQUIRES: also col_begin < col_end <= cols, and the
// target's rows do not overlap one another. Errors as DecodeBlock.
Status DecodeBlockRowsInto(std::string_view block, DataType type, uint32_t rows, uint32_t cols,
                           uint32_t row_begin, uint32_t row_end, const RowsTarget& target,
                           size_t* bytes_decoded, const BlockDictionary* dictionary = nullptr);

// The frames of a block of `rows` rows encoded with `frame_rows` (as passed to EncodeBlock):
// ceil(rows / frame_rows), or 1 for an unframed block (frame_rows 0 or at least rows).
constexpr int64_t FrameCount(int64_t rows, int64_t frame_rows) {
  return frame_rows > 0 && frame_rows < rows ? (rows + frame_rows - 1) / frame_rows : 1;
}

// The rows DecodeBlockRows decompresses to read rows [row_begin, row_end) of a block of `rows`
// rows encoded with `frame_rows` (as passed to EncodeBlock): those of the frames covering the
// range, or all rows of an unframed block. For plans and statistics.
uint32_t RowsToDecode(uint32_t rows, uint32_t frame_rows, uint32_t row_begin, uint32_t row_end);

// XXH3-64 of `bytes`: the block checksum.
uint64_t BlockChecksum(std::string_view bytes);

}  // namespace gridstore::grid

#endif  // GRIDSTORE_BLOCKS_INTERNAL_BLOCK_CODEC_H_
