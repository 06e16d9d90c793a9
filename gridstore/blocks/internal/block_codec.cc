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

//   shuffle(b)   = byte 0 of every element, then byte 1 of every element, ... (identity when
//                  element_size is 1)
//
// Every header field is checked against the others and against what the caller expects, so any
// damage to the header is DataLoss; damage to the payload is caught by zstd or by the checksum.
#include "gridstore/blocks/internal/block_codec.h"

#include <zstd.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "gridstore/blocks/internal/block_format.h"
#include "gridstore/blocks/internal/byte_shuffle.h"
#include "gridstore/blocks/internal/compression_unit.h"
#include "gridstore/util/internal/coding.h"

namespace gridstore::grid {
namespace {

using namespace block_format;  // NOLINT: the header layout, throughout this file

// Releases oversized per-thread decode buffers on every exit path of a decode.
struct TrimDecodeScratchOnExit {
  ~TrimDecodeScratchOnExit();
};

Scratch& RowsScratch() {
  thread_local Scratch scratch;
  return scratch;
}

TrimDecodeScratchOnExit::~TrimDecodeScratchOnExit() {
  DecodeScratch().Trim();
  RowsScratch().Trim();
}

}  // namespace

uint32_t RowsToDecode(uint32_t rows, uint32_t frame_rows, uint32_t row_begin, uint32_t row_end) {
  if (frame_rows == 0 || frame_rows >= rows || row_begin >= row_end) return rows;
  const uint32_t first = row_begin / frame_rows;
  const uint32_t last = (row_end - 1) / frame_rows;
  return std::min<uint32_t>(rows, (last + 1) * frame_rows) - first * frame_rows;
}

namespace {

// Checks what EncodeBlock is given; the raw size in *raw_size.
Status CheckEncodeInput(const CodecOptions& options, DataType type, uint32_t rows, uint32_t cols,
                        std::string_view raw, uint64_t* raw_size) {
  GRIDSTORE_RETURN_IF_ERROR(ValidateCodecOptions(options));
  const size_t element_size = DataTypeSize(type);
  if (element_size == 0) {
    return Status::InvalidArgument("invalid data type " + std::to_string(static_cast<int>(type)));
  }
  if (rows == 0 || cols == 0) {
    return Status::InvalidArgument("block shape " + Shape(rows, cols) +
                                   " is invalid: each side must be at least 1");
  }
  const bool fits = RawSize(rows, cols, element_size, raw_size);
  if (!fits || raw.size() != *raw_size) {
    return Status::InvalidArgument("raw block is " + std::to_string(raw.size()) + " bytes, but " +
                                   Shape(rows, cols) + " " + std::string(DataTypeName(type)) +
                                   " needs " +
                                   (fits ? std::to_string(*raw_size) : "more than 2^64"));
  }
  return Status::OK();
}

// Compresses `raw` as h.frames units of frame_raw bytes (the last may be shorter) after the
// header and, for a framed block, the frame table in *out, whose size is set to what was written.
Status CompressFrames(const CodecOptions& options, const BlockHeader& h, size_t element_size,
                      size_t frame_raw, std::string_view raw, const ZSTD_CDict* cdict,
                      std::string* out) {
  const bool framed = h.version == kFramedBlockVersion;
  size_t unit_bound = frame_raw;
  if (options.codec != Codec::kNone) {
    unit_bound = ZSTD_compressBound(frame_raw);
    if (ZSTD_isError(unit_bound)) return Status::InvalidArgument("block is too large to compress");
  }
  // Header, then for a framed block frame_rows, the frame count and the size table.
  const size_t table_size = framed ? 8 + 4 * size_t{h.frames} : 0;
  out->resize(kHeaderSize + table_size + unit_bound * h.frames);
  size_t payload_size = table_size;
  for (uint32_t f = 0; f < h.frames; ++f) {
    const size_t begin = f * frame_raw;
    const size_t n = std::min(frame_raw, raw.size() - begin);
    size_t written = 0;
    GRIDSTORE_RETURN_IF_ERROR(CompressUnit(options, element_size, raw.data() + begin, n, raw.size(),
                                           cdict, out->data() + kHeaderSize + payload_size,
                                           unit_bound, &written));
    if (framed) {
      StoreFixed(out->data() + kHeaderSize + 8 + 4 * size_t{f}, static_cast<uint32_t>(written));
    }
    payload_size += written;
  }
  if (payload_size > UINT32_MAX) {
    return Status::InvalidArgument("block payload of " + std::to_string(payload_size) +
                                   " bytes exceeds the 4 GiB limit of the block format");
  }
  out->resize(kHeaderSize + payload_size);
  return Status::OK();
}

}  // namespace

Status EncodeBlock(const CodecOptions& options, DataType type, uint32_t rows, uint32_t cols,
                   uint32_t frame_rows, std::string_view raw, std::string* out,
                   const BlockDictionary* dictionary) {
  uint64_t raw_size = 0;
  GRIDSTORE_RETURN_IF_ERROR(CheckEncodeInput(options, type, rows, cols, raw, &raw_size));
  const size_t element_size = DataTypeSize(type);
  // One frame is the unframed format: no table to store, and readers of version 1 can read it.
  const bool framed = frame_rows != 0 && frame_rows < rows;
  BlockHeader h;
  h.version = framed ? kFramedBlockVersion : kUnframedBlockVersion;
  h.codec = options.codec;
  h.type = type;
  h.rows = rows;
  h.cols = cols;
  h.raw_size = raw_size;
  h.frame_rows = framed ? frame_rows : 0;
  h.frames = static_cast<uint32_t>(FrameCount(rows, frame_rows));
  h.dictionary = framed && dictionary != nullptr && options.codec != Codec::kNone;
  const ZSTD_CDict* cdict = nullptr;
  if (h.dictionary) {
    cdict = static_cast<const ZSTD_CDict*>(dictionary->CompressionDictionary(options.level));
    if (cdict == nullptr) return Status::Internal("zstd: cannot load the compression dictionary");
  }
  const size_t frame_raw = framed ? frame_rows * size_t{cols} * element_size : raw.size();
  Status s = CompressFrames(options, h, element_size, frame_raw, raw, cdict, out);
  EncodeScratch().Trim();
  if (!s.ok()) {
    out->clear();
    return s;
  }
  WriteBlockHeader(h, element_size, raw, out);
  return Status::OK();
}

Status DecodeBlock(std::string_view block, DataType type, uint32_t rows, uint32_t cols, char* dst,
                   const BlockDictionary* dictionary) {
  return DecodeBlockRows(block, type, rows, cols, 0, rows, dst, nullptr, dictionary);
}

Status DecodeBlockRows(std::string_view block, DataType type, uint32_t rows, uint32_t cols,
                       uint32_t row_begin, uint32_t row_end, char* dst, size_t* bytes_decoded,
                       const BlockDictionary* dictionary) {
  const RowsTarget target{dst, size_t{cols} * DataTypeSize(type), 0, cols};
  return DecodeBlockRowsInto(block, type, rows, cols, row_begin, row_end, target, bytes_decoded,
                             dictionary);
}

namespace {

// Where rows [row_begin, row_end) of a block go, and how its units are laid out.
struct RowsSink {
  const RowsTarget& target;
  uint32_t row_begin, row_end, cols;
  size_t element_size;
  bool shuffled;  // the units hold shuffled bytes (shuffle-zstd, elements wider than a byte)

  size_t row_bytes() const { return size_t{cols} * element_size; }
  // Whether the target is the rows themselves, one after another, whole.
  bool contiguous() const {
    return target.col_begin == 0 && target.col_end == cols && target.row_stride == row_bytes();
  }
  char* row(uint32_t r) const { return target.base + (r - row_begin) * target.row_stride; }

  // Copies the wanted columns of rows [lo, hi) from `raw`, which holds rows from `first` on,
  // unshuffled.
  void CopyRows(const char* raw, uint32_t first, uint32_t lo, uint32_t hi) const {
    const size_t skip = target.col_begin * element_size;
    const size_t run = (target.col_end - target.col_begin) * element_size;
    for (uint32_t r = lo; r < hi; ++r)
      std::memcpy(row(r), raw + (r - first) * row_bytes() + skip, run);
  }
  // Unshuffles the wanted columns of rows [lo, hi) of a unit holding rows [first, first + n_rows)
  // still shuffled, straight into the target.
  void UnshuffleRows(const char* unit, uint32_t first, uint32_t n_rows, uint32_t lo,
                     uint32_t hi) const {
    const size_t count = size_t{n_rows} * cols;
    for (uint32_t r = lo; r < hi; ++r) {
      const size_t at = size_t{r - first} * cols;
      UnshuffleElements(unit, count, at + target.col_begin, at + target.col_end, row(r),
                        element_size);
    }
  }
};

// Decodes the rows an unframed block's sink wants: its one unit whole (straight into the target
// when that is the whole block), then the checksum of the raw bytes.
Status DecodeUnframed(const BlockHeader& h, std::string_view payload, const RowsSink& sink,
                      size_t* decoded) {
  const size_t raw_size = h.raw_size;
  const bool whole = sink.row_begin == 0 && sink.row_end == h.rows && sink.contiguous();
  char* raw = whole ? sink.target.base : RowsScratch().Get(raw_size);
  if (raw == nullptr) return Status::Internal("out of memory decoding a block");
  GRIDSTORE_RETURN_IF_ERROR(DecompressUnit(h.codec, sink.element_size, payload, raw, raw_size));
  const uint64_t computed = BlockChecksum(std::string_view(raw, raw_size));
  if (computed != h.checksum) {
    return Status::DataLoss("checksum mismatch: stored " + Hex(h.checksum) + ", computed " +
                            Hex(computed));
  }
  if (!whole) sink.CopyRows(raw, 0, sink.row_begin, sink.row_end);
  *decoded = raw_size;
  return Status::OK();
}

// Decodes frame f of a framed block (rows [fb, fe)) into the sink: straight into the target when
// the frame's rows are wanted whole and the target is contiguous, else decompressed into a buffer
// and unshuffled (or copied) row by row into the target.
Status DecodeFrame(const BlockHeader& h, std::string_view unit, uint32_t fb, uint32_t fe,
                   const ZSTD_DDict* ddict, const RowsSink& sink) {
  const size_t n = (fe - fb) * sink.row_bytes();
  const uint32_t lo = std::max(fb, sink.row_begin), hi = std::min(fe, sink.row_end);
  if (lo == fb && hi == fe && sink.contiguous()) {
    return DecompressUnit(h.codec, sink.element_size, unit, sink.row(fb), n, ddict);
  }
  const char* bytes = nullptr;
  GRIDSTORE_RETURN_IF_ERROR(DecompressUnitShuffled(h.codec, unit, n, ddict, &bytes));
  if (sink.shuffled) {
    sink.UnshuffleRows(bytes, fb, fe - fb, lo, hi);
  } else {
    sink.CopyRows(bytes, fb, lo, hi);
  }
  return Status::OK();
}

// Decodes the rows a framed block's sink wants (its checksum checked already): only the frames
// holding them.
Status DecodeFrames(const BlockHeader& h, std::string_view payload,
                    const BlockDictionary* dictionary, const ZSTD_DDict* ddict,
                    const RowsSink& sink, size_t* decoded) {
  const uint32_t first = sink.row_begin / h.frame_rows, last = (sink.row_end - 1) / h.frame_rows;
  const char* table = payload.data() + 8;
  size_t offset = 8 + 4 * size_t{h.frames};
  for (uint32_t f = 0; f < first; ++f) offset += DecodeFixed32(table + 4 * size_t{f});
  *decoded = 0;
  for (uint32_t f = first; f <= last; ++f) {
    const uint32_t size = DecodeFixed32(table + 4 * size_t{f});
    const uint32_t fb = f * h.frame_rows, fe = std::min(h.rows, fb + h.frame_rows);
    const std::string_view unit = payload.substr(offset, size);
    if (ddict != nullptr) {
      const unsigned id = ZSTD_getDictID_fromFrame(unit.data(), unit.size());
      if (id != dictionary->id()) {
        return Status::DataLoss("frame " + std::to_string(f) + " was compressed with dictionary " +
                                std::to_string(id) + ", but the variable's dictionary is " +
                                std::to_string(dictionary->id()));
      }
    }
    Status s = DecodeFrame(h, unit, fb, fe, ddict, sink);
    if (!s.ok()) {
      return s.WithContext("frame " + std::to_string(f) + " of " + std::to_string(h.frames));
    }
    offset += size;
    *decoded += (fe - fb) * sink.row_bytes();
  }
  return Status::OK();
}

// The dictionary a framed block's frames need (null if none), checked against `dictionary`.
Result<const ZSTD_DDict*> FramesDictionary(const BlockHeader& h,
                                           const BlockDictionary* dictionary) {
  if (!h.dictionary) return static_cast<const ZSTD_DDict*>(nullptr);
  if (dictionary == nullptr) {
    return Status::DataLoss(
        "block was compressed with its variable's dictionary, which is missing");
  }
  return static_cast<const ZSTD_DDict*>(dictionary->decompression_dictionary());
}

}  // namespace

Status DecodeBlockRowsInto(std::string_view block, DataType type, uint32_t rows, uint32_t cols,
                           uint32_t row_begin, uint32_t row_end, const RowsTarget& target,
                           size_t* bytes_decoded, const BlockDictionary* dictionary) {
  if (bytes_decoded != nullptr) *bytes_decoded = 0;
  GRIDSTORE_ASSIGN_OR_RETURN(BlockHeader h, ReadBlockHeader(block));
  if (h.type != type) {
    return Status::DataLoss("block has type " + std::string(DataTypeName(h.type)) +
                            " but the variable is " + std::string(DataTypeName(type)));
  }
  if (h.rows != rows || h.cols != cols) {
    return Status::DataLoss("block shape " + Shape(h.rows, h.cols) + ", expected " +
                            Shape(rows, cols));
  }
  if (row_begin >= row_end || row_end > rows) {
    return Status::InvalidArgument("row range [" + std::to_string(row_begin) + ", " +
                                   std::to_string(row_end) + ") is not inside the block's " +
                                   std::to_string(rows) + " rows");
  }
  if (target.col_begin >= target.col_end || target.col_end > cols) {
    return Status::InvalidArgument("column range [" + std::to_string(target.col_begin) + ", " +
                                   std::to_string(target.col_end) + ") is not inside the block's " +
                                   std::to_string(cols) + " columns");
  }
  TrimDecodeScratchOnExit trim;
  const size_t element_size = DataTypeSize(type);
  const RowsSink sink{target, row_begin,    row_end,
                      cols,   element_size, h.codec == Codec::kShuffleZstd && element_size > 1};
  const std::string_view payload = block.substr(kHeaderSize);
  size_t decoded = 0;
  if (h.version == kUnframedBlockVersion) {
    GRIDSTORE_RETURN_IF_ERROR(DecodeUnframed(h, payload, sink, &decoded));
  } else {
    // The checksum covers the stored bytes, so it is checked before any frame is touched,
    // whichever frames are decoded.
    const uint64_t computed = FramedChecksum(block);
    if (computed != h.checksum) {
      return Status::DataLoss("checksum mismatch: stored " + Hex(h.checksum) + ", computed " +
                              Hex(computed));
    }
    GRIDSTORE_ASSIGN_OR_RETURN(const ZSTD_DDict* ddict, FramesDictionary(h, dictionary));
    GRIDSTORE_RETURN_IF_ERROR(DecodeFrames(h, payload, dictionary, ddict, sink, &decoded));
  }
  if (bytes_decoded != nullptr) *bytes_decoded = decoded;
  return Status::OK();
}

}  // namespace gridstore::grid
