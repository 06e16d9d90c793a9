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
#include "gridstore/grid/internal/block_codec.h"

#include <xxhash.h>
// ZSTD_getCParams: the parameters zstd would pick for a given input size (framed blocks).
#define ZSTD_STATIC_LINKING_ONLY
#include <zdict.h>
#include <zstd.h>

#include <algorithm>
#include <charconv>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <utility>

#include "gridstore/grid/internal/grid_keys.h"
#include "gridstore/util/internal/coding.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace gridstore::grid {
namespace {

constexpr size_t kHeaderSize = 36;
constexpr char kMagic[2] = {'G', 'B'};
// Thread-local scratch buffers above this size are released after use, so that one huge block
// does not pin its memory in every worker thread for the life of the process.
constexpr size_t kMaxRetainedScratch = size_t{16} << 20;

// Header field offsets.
constexpr size_t kOffVersion = 2;
constexpr size_t kOffCodec = 3;
constexpr size_t kOffType = 4;
constexpr size_t kOffElementSize = 5;
constexpr size_t kOffFlags = 6;
constexpr uint16_t kFlagDictionary = 1;
constexpr size_t kOffRows = 8;
constexpr size_t kOffCols = 12;
constexpr size_t kOffRawSize = 16;
constexpr size_t kOffChecksum = 24;
constexpr size_t kOffPayloadSize = 32;

// rows * cols * element_size, or false on overflow.
bool RawSize(uint64_t rows, uint64_t cols, uint64_t element_size, uint64_t* size) {
  return !__builtin_mul_overflow(rows, cols, size) &&
         !__builtin_mul_overflow(*size, element_size, size);
}

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "0x%016" PRIx64, v);
  return buf;
}

std::string Shape(uint64_t rows, uint64_t cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

struct CCtxDeleter {
  void operator()(ZSTD_CCtx* c) const { ZSTD_freeCCtx(c); }
};
struct DCtxDeleter {
  void operator()(ZSTD_DCtx* c) const { ZSTD_freeDCtx(c); }
};

ZSTD_CCtx* ThreadCCtx() {
  thread_local std::unique_ptr<ZSTD_CCtx, CCtxDeleter> cctx(ZSTD_createCCtx());
  return cctx.get();
}

ZSTD_DCtx* ThreadDCtx() {
  thread_local std::unique_ptr<ZSTD_DCtx, DCtxDeleter> dctx(ZSTD_createDCtx());
  return dctx.get();
}

// A per-thread, uninitialised byte buffer for shuffled data (encode and decode each own one, so
// that a caller decoding inside an encode callback cannot clobber the other).
class Scratch {
 public:
  char* Get(size_t n) {
    if (n > capacity_) {
      buf_.reset(new (std::nothrow) char[n]);
      capacity_ = buf_ ? n : 0;
    }
    return buf_.get();
  }
  void Trim() {
    if (capacity_ > kMaxRetainedScratch) {
      buf_.reset();
      capacity_ = 0;
    }
  }

 private:
  std::unique_ptr<char[]> buf_;
  size_t capacity_ = 0;
};

Scratch& EncodeScratch() {
  thread_local Scratch scratch;
  return scratch;
}
Scratch& DecodeScratch() {
  thread_local Scratch scratch;
  return scratch;
}

// ---- Byte shuffle ----
//
// shuffle:   dst[b * n + i] = src[i * K + b]   for element i < n, byte b < K
// unshuffle: the inverse.
// With SSE2, 16 elements are transposed per step by log2(K) passes of byte (de)interleaving;
// otherwise, and for the tail, plain loops.

template <size_t K>
void ShuffleScalar(const uint8_t* src, uint8_t* dst, size_t begin, size_t n) {
  for (size_t b = 0; b < K; ++b) {
    uint8_t* plane = dst + b * n;
    for (size_t i = begin; i < n; ++i) plane[i] = src[i * K + b];
  }
}

template <size_t K>
void UnshuffleScalar(const uint8_t* src, uint8_t* dst, size_t begin, size_t n) {
  for (size_t i = begin; i < n; ++i) {
    for (size_t b = 0; b < K; ++b) dst[i * K + b] = src[b * n + i];
  }
}

#if defined(__SSE2__)
// v[0..K) hold 16 interleaved K-byte elements. Each pass splits every pair of vectors into their
// even bytes (first half of the output) and odd bytes (second half); after log2(K) passes, v[b]
// holds byte b of the 16 elements.
template <size_t K>
inline void TransposeToPlanes(__m128i* v) {
  const __m128i low = _mm_set1_epi16(0x00ff);
  // Fully unrolled (also at -O2) so that v and t stay in registers.
#pragma GCC unroll 8
  for (size_t pass = 1; pass < K; pass *= 2) {
    __m128i t[K];
#pragma GCC unroll 8
    for (size_t p = 0; p < K / 2; ++p) {
      t[p] = _mm_packus_epi16(_mm_and_si128(v[2 * p], low), _mm_and_si128(v[2 * p + 1], low));
      t[K / 2 + p] = _mm_packus_epi16(_mm_srli_epi16(v[2 * p], 8), _mm_srli_epi16(v[2 * p + 1], 8));
    }
#pragma GCC unroll 8
    for (size_t p = 0; p < K; ++p) v[p] = t[p];
  }
}

// The exact inverse of TransposeToPlanes: interleaving the even and odd halves undoes a pass.
template <size_t K>
inline void TransposeFromPlanes(__m128i* v) {
#pragma GCC unroll 8
  for (size_t pass = 1; pass < K; pass *= 2) {
    __m128i t[K];
#pragma GCC unroll 8
    for (size_t p = 0; p < K / 2; ++p) {
      t[2 * p] = _mm_unpacklo_epi8(v[p], v[K / 2 + p]);
      t[2 * p + 1] = _mm_unpackhi_epi8(v[p], v[K / 2 + p]);
    }
#pragma GCC unroll 8
    for (size_t p = 0; p < K; ++p) v[p] = t[p];
  }
}

template <size_t K>
void Shuffle(const uint8_t* src, uint8_t* dst, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i v[K];
#pragma GCC unroll 8
    for (size_t p = 0; p < K; ++p) {
      v[p] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i * K + 16 * p));
    }
    TransposeToPlanes<K>(v);
#pragma GCC unroll 8
    for (size_t b = 0; b < K; ++b) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + b * n + i), v[b]);
    }
  }
  ShuffleScalar<K>(src, dst, i, n);
}

template <size_t K>
void Unshuffle(const uint8_t* src, uint8_t* dst, size_t n) {
  size_t i = 0;
  for (; i + 16 <= n; i += 16) {
    __m128i v[K];
#pragma GCC unroll 8
    for (size_t b = 0; b < K; ++b) {
      v[b] = _mm_loadu_si128(reinterpret_cast<const __m128i*>(src + b * n + i));
    }
    TransposeFromPlanes<K>(v);
#pragma GCC unroll 8
    for (size_t p = 0; p < K; ++p) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i * K + 16 * p), v[p]);
    }
  }
  UnshuffleScalar<K>(src, dst, i, n);
}
#else
template <size_t K>
void Shuffle(const uint8_t* src, uint8_t* dst, size_t n) {
  ShuffleScalar<K>(src, dst, 0, n);
}
template <size_t K>
void Unshuffle(const uint8_t* src, uint8_t* dst, size_t n) {
  UnshuffleScalar<K>(src, dst, 0, n);
}
#endif

// REQUIRES: element_size is 2, 4 or 8; `size` is a multiple of it; the buffers do not overlap.
void ShuffleBytes(const char* src, char* dst, size_t size, size_t element_size) {
  auto* s = reinterpret_cast<const uint8_t*>(src);
  auto* d = reinterpret_cast<uint8_t*>(dst);
  switch (element_size) {
    case 2:
      return Shuffle<2>(s, d, size / 2);
    case 4:
      return Shuffle<4>(s, d, size / 4);
    default:
      return Shuffle<8>(s, d, size / 8);
  }
}

void UnshuffleBytes(const char* src, char* dst, size_t size, size_t element_size) {
  auto* s = reinterpret_cast<const uint8_t*>(src);
  auto* d = reinterpret_cast<uint8_t*>(dst);
  switch (element_size) {
    case 2:
      return Unshuffle<2>(s, d, size / 2);
    case 4:
      return Unshuffle<4>(s, d, size / 4);
    default:
      return Unshuffle<8>(s, d, size / 8);
  }
}

Status ZstdError(size_t code) {
  return Status::DataLoss(std::string("zstd: ") + ZSTD_getErrorName(code));
}

}  // namespace

uint64_t BlockChecksum(std::string_view bytes) { return XXH3_64bits(bytes.data(), bytes.size()); }

namespace {

// In-place counterpart of PutFixed* (little-endian hosts only, as util/coding.h).
template <typename T>
void StoreFixed(char* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// The checksum of a framed block: XXH3-64 of everything after the checksum field, seeded with
// XXH3-64 of the header bytes before it, i.e. of the whole stored value minus the field itself.
uint64_t FramedChecksum(std::string_view block) {
  const uint64_t seed = XXH3_64bits(block.data(), kOffChecksum);
  return XXH3_64bits_withSeed(block.data() + kOffPayloadSize, block.size() - kOffPayloadSize, seed);
}

// Compresses `n` raw bytes at `src` (shuffled first for shuffle-zstd) into dst[0, capacity).
// Returns the compressed size through *written. `params_size` is the input size zstd chooses its
// parameters for: the whole block's for a frame, since zstd's tables for small inputs (<= 128 KB)
// pick weaker match finders at the same level, which costs framed blocks several % of ratio.
// With a `cdict`, the unit is compressed with that dictionary (and its parameters).
Status CompressUnit(const CodecOptions& options, size_t element_size, const char* src, size_t n,
                    size_t params_size, const ZSTD_CDict* cdict, char* dst, size_t capacity,
                    size_t* written) {
  if (options.codec == Codec::kNone) {
    std::memcpy(dst, src, n);
    *written = n;
    return Status::OK();
  }
  Scratch& scratch = EncodeScratch();
  if (options.codec == Codec::kShuffleZstd && element_size > 1) {
    char* shuffled = scratch.Get(n);
    if (shuffled == nullptr) return Status::Internal("out of memory shuffling a block");
    ShuffleBytes(src, shuffled, n, element_size);
    src = shuffled;
  }
  ZSTD_CCtx* cctx = ThreadCCtx();
  if (cctx == nullptr) return Status::Internal("zstd: cannot create a compression context");
  // Parameters set for an earlier unit must not leak into this one.
  size_t rc = ZSTD_CCtx_reset(cctx, ZSTD_reset_parameters);
  if (cdict != nullptr) {
    if (!ZSTD_isError(rc)) rc = ZSTD_compress_usingCDict(cctx, dst, capacity, src, n, cdict);
    if (ZSTD_isError(rc)) return Status::Internal(std::string("zstd: ") + ZSTD_getErrorName(rc));
    *written = rc;
    return Status::OK();
  }
  if (!ZSTD_isError(rc)) rc = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, options.level);
  if (params_size != n) {
    const ZSTD_compressionParameters p = ZSTD_getCParams(options.level, params_size, 0);
    const std::pair<ZSTD_cParameter, int> params[] = {
        {ZSTD_c_windowLog, static_cast<int>(p.windowLog)},
        {ZSTD_c_chainLog, static_cast<int>(p.chainLog)},
        {ZSTD_c_hashLog, static_cast<int>(p.hashLog)},
        {ZSTD_c_searchLog, static_cast<int>(p.searchLog)},
        {ZSTD_c_minMatch, static_cast<int>(p.minMatch)},
        {ZSTD_c_targetLength, static_cast<int>(p.targetLength)},
        {ZSTD_c_strategy, static_cast<int>(p.strategy)}};
    for (const auto& [param, value] : params) {
      if (!ZSTD_isError(rc)) rc = ZSTD_CCtx_setParameter(cctx, param, value);
    }
  }
  if (!ZSTD_isError(rc)) rc = ZSTD_compress2(cctx, dst, capacity, src, n);
  if (ZSTD_isError(rc)) return Status::Internal(std::string("zstd: ") + ZSTD_getErrorName(rc));
  *written = rc;
  return Status::OK();
}

// Decompresses one stored unit (a version-1 payload or one frame) into exactly `n` raw bytes at
// `dst`, unshuffling if the codec shuffled. DataLoss if the unit does not decode to exactly n
// bytes.
Status DecompressUnit(Codec codec, size_t element_size, std::string_view unit, char* dst, size_t n,
                      const ZSTD_DDict* ddict = nullptr) {
  if (codec == Codec::kNone) {
    // The header parser checked the size already.
    std::memcpy(dst, unit.data(), n);
    return Status::OK();
  }
  ZSTD_DCtx* dctx = ThreadDCtx();
  if (dctx == nullptr) return Status::Internal("zstd: cannot create a decompression context");
  const bool shuffled = codec == Codec::kShuffleZstd && element_size > 1;
  char* target = dst;
  if (shuffled) {
    target = DecodeScratch().Get(n);
    if (target == nullptr) return Status::Internal("out of memory unshuffling a block");
  }
  // Decompressing into exactly n bytes bounds the work and the memory whatever the frame claims;
  // a frame that decodes to more is an error, to less is caught below.
  const size_t got =
      ddict != nullptr
          ? ZSTD_decompress_usingDDict(dctx, target, n, unit.data(), unit.size(), ddict)
          : ZSTD_decompressDCtx(dctx, target, n, unit.data(), unit.size());
  if (ZSTD_isError(got)) return ZstdError(got);
  if (got != n) {
    return Status::DataLoss("zstd: decompressed " + std::to_string(got) + " bytes, expected " +
                            std::to_string(n));
  }
  if (shuffled) UnshuffleBytes(target, dst, n, element_size);
  return Status::OK();
}

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

Status EncodeBlock(const CodecOptions& options, DataType type, uint32_t rows, uint32_t cols,
                   uint32_t frame_rows, std::string_view raw, std::string* out,
                   const BlockDictionary* dictionary) {
  GRIDSTORE_RETURN_IF_ERROR(ValidateCodecOptions(options));
  const size_t element_size = DataTypeSize(type);
  if (element_size == 0) {
    return Status::InvalidArgument("invalid data type " + std::to_string(static_cast<int>(type)));
  }
  if (rows == 0 || cols == 0) {
    return Status::InvalidArgument("block shape " + Shape(rows, cols) +
                                   " is invalid: each side must be at least 1");
  }
  uint64_t raw_size = 0;
  const bool fits = RawSize(rows, cols, element_size, &raw_size);
  if (!fits || raw.size() != raw_size) {
    return Status::InvalidArgument("raw block is " + std::to_string(raw.size()) + " bytes, but " +
                                   Shape(rows, cols) + " " + std::string(DataTypeName(type)) +
                                   " needs " +
                                   (fits ? std::to_string(raw_size) : "more than 2^64"));
  }
  // One frame is the unframed format: no table to store, and readers of version 1 can read it.
  const bool framed = frame_rows != 0 && frame_rows < rows;
  const uint32_t frames = framed ? (rows + frame_rows - 1) / frame_rows : 1;
  const size_t row_bytes = size_t{cols} * element_size;
  const size_t frame_raw = framed ? frame_rows * row_bytes : raw.size();
  const bool use_dictionary = framed && dictionary != nullptr && options.codec != Codec::kNone;
  const ZSTD_CDict* cdict = nullptr;
  if (use_dictionary) {
    cdict = static_cast<const ZSTD_CDict*>(dictionary->CompressionDictionary(options.level));
    if (cdict == nullptr) return Status::Internal("zstd: cannot load the compression dictionary");
  }

  size_t unit_bound = frame_raw;
  if (options.codec != Codec::kNone) {
    unit_bound = ZSTD_compressBound(frame_raw);
    if (ZSTD_isError(unit_bound)) return Status::InvalidArgument("block is too large to compress");
  }
  // Header, then for a framed block frame_rows, the frame count and the size table.
  const size_t table_size = framed ? 8 + 4 * size_t{frames} : 0;
  out->resize(kHeaderSize + table_size + unit_bound * frames);
  size_t payload_size = table_size;
  for (uint32_t f = 0; f < frames; ++f) {
    const size_t begin = f * frame_raw;
    const size_t n = std::min(frame_raw, raw.size() - begin);
    size_t written = 0;
    Status s = CompressUnit(options, element_size, raw.data() + begin, n, raw.size(), cdict,
                            out->data() + kHeaderSize + payload_size, unit_bound, &written);
    if (!s.ok()) {
      EncodeScratch().Trim();
      out->clear();
      return s;
    }
    if (framed) {
      StoreFixed(out->data() + kHeaderSize + 8 + 4 * size_t{f}, static_cast<uint32_t>(written));
    }
    payload_size += written;
  }
  EncodeScratch().Trim();
  if (payload_size > UINT32_MAX) {
    out->clear();
    return Status::InvalidArgument("block payload of " + std::to_string(payload_size) +
                                   " bytes exceeds the 4 GiB limit of the block format");
  }
  out->resize(kHeaderSize + payload_size);

  char* p = out->data();
  p[0] = kMagic[0];
  p[1] = kMagic[1];
  p[kOffVersion] = static_cast<char>(framed ? kFramedBlockVersion : kUnframedBlockVersion);
  p[kOffCodec] = static_cast<char>(options.codec);
  p[kOffType] = static_cast<char>(type);
  p[kOffElementSize] = static_cast<char>(element_size);
  StoreFixed(p + kOffFlags, use_dictionary ? kFlagDictionary : uint16_t{0});
  StoreFixed(p + kOffRows, rows);
  StoreFixed(p + kOffCols, cols);
  StoreFixed(p + kOffRawSize, raw_size);
  StoreFixed(p + kOffPayloadSize, static_cast<uint32_t>(payload_size));
  if (framed) {
    StoreFixed(p + kHeaderSize, frame_rows);
    StoreFixed(p + kHeaderSize + 4, frames);
    StoreFixed(p + kOffChecksum, FramedChecksum(*out));
  } else {
    StoreFixed(p + kOffChecksum, BlockChecksum(raw));
  }
  return Status::OK();
}

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

  // Framed: frame_rows, the frame count and the size table, all consistent with the payload.
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
  const uint32_t expected_frames = (h.rows + h.frame_rows - 1) / h.frame_rows;
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
  return h;
}

Status DecodeBlock(std::string_view block, DataType type, uint32_t rows, uint32_t cols, char* dst,
                   const BlockDictionary* dictionary) {
  return DecodeBlockRows(block, type, rows, cols, 0, rows, dst, nullptr, dictionary);
}

bool BlockNeedsDictionary(std::string_view block) {
  return block.size() >= kHeaderSize && DecodeFixed16(block.data() + kOffFlags) == kFlagDictionary;
}

Status DecodeBlockRows(std::string_view block, DataType type, uint32_t rows, uint32_t cols,
                       uint32_t row_begin, uint32_t row_end, char* dst, size_t* bytes_decoded,
                       const BlockDictionary* dictionary) {
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
  TrimDecodeScratchOnExit trim;
  const size_t element_size = DataTypeSize(type);
  const size_t row_bytes = size_t{cols} * element_size;
  const std::string_view payload = block.substr(kHeaderSize);

  if (h.version == kUnframedBlockVersion) {
    // One unit: decode it whole, straight into dst when the whole block is wanted.
    const size_t raw_size = h.raw_size;
    const bool whole = row_begin == 0 && row_end == rows;
    char* target = whole ? dst : RowsScratch().Get(raw_size);
    if (target == nullptr) return Status::Internal("out of memory decoding a block");
    GRIDSTORE_RETURN_IF_ERROR(DecompressUnit(h.codec, element_size, payload, target, raw_size));
    const uint64_t computed = BlockChecksum(std::string_view(target, raw_size));
    if (computed != h.checksum) {
      return Status::DataLoss("checksum mismatch: stored " + Hex(h.checksum) + ", computed " +
                              Hex(computed));
    }
    if (!whole) {
      std::memcpy(dst, target + row_begin * row_bytes, (row_end - row_begin) * row_bytes);
    }
    if (bytes_decoded != nullptr) *bytes_decoded = raw_size;
    return Status::OK();
  }

  // Framed: the checksum covers the stored bytes, so it is checked before any frame is touched,
  // whichever frames are decoded.
  const uint64_t computed = FramedChecksum(block);
  if (computed != h.checksum) {
    return Status::DataLoss("checksum mismatch: stored " + Hex(h.checksum) + ", computed " +
                            Hex(computed));
  }
  const ZSTD_DDict* ddict = nullptr;
  if (h.dictionary) {
    if (dictionary == nullptr) {
      return Status::DataLoss(
          "block was compressed with its variable's dictionary, which is missing");
    }
    ddict = static_cast<const ZSTD_DDict*>(dictionary->decompression_dictionary());
  }
  const uint32_t first = row_begin / h.frame_rows, last = (row_end - 1) / h.frame_rows;
  const char* table = payload.data() + 8;
  size_t offset = 8 + 4 * size_t{h.frames};
  for (uint32_t f = 0; f < first; ++f) offset += DecodeFixed32(table + 4 * size_t{f});
  size_t decoded = 0;
  for (uint32_t f = first; f <= last; ++f) {
    const uint32_t size = DecodeFixed32(table + 4 * size_t{f});
    const uint32_t fb = f * h.frame_rows, fe = std::min(rows, fb + h.frame_rows);
    const size_t n = (fe - fb) * row_bytes;
    // A frame wholly inside the range decodes in place; a partial one through a buffer.
    const bool inside = fb >= row_begin && fe <= row_end;
    char* target = inside ? dst + (fb - row_begin) * row_bytes : RowsScratch().Get(n);
    if (target == nullptr) return Status::Internal("out of memory decoding a block");
    const std::string_view unit = payload.substr(offset, size);
    if (ddict != nullptr) {
      const unsigned id = ZSTD_getDictID_fromFrame(unit.data(), unit.size());
      if (id != dictionary->id()) {
        return Status::DataLoss("frame " + std::to_string(f) + " was compressed with dictionary " +
                                std::to_string(id) + ", but the variable's dictionary is " +
                                std::to_string(dictionary->id()));
      }
    }
    Status s = DecompressUnit(h.codec, element_size, unit, target, n, ddict);
    if (!s.ok()) {
      return s.WithContext("frame " + std::to_string(f) + " of " + std::to_string(h.frames));
    }
    if (!inside) {
      const uint32_t lo = std::max(fb, row_begin), hi = std::min(fe, row_end);
      std::memcpy(dst + (lo - row_begin) * row_bytes, target + (lo - fb) * row_bytes,
                  (hi - lo) * row_bytes);
    }
    offset += size;
    decoded += n;
  }
  if (bytes_decoded != nullptr) *bytes_decoded = decoded;
  return Status::OK();
}

// ---- Dictionaries ----

namespace {
constexpr char kDictionaryMagic[2] = {'G', 'D'};
constexpr uint8_t kDictionaryVersion = 1;
constexpr size_t kDictionaryHeaderSize = 16;  // magic, version, reserved, dict_id, checksum
// zstd's recommended dictionary size; measured on the fetch benchmark's data, 110 KB recovers the
// ratio of whole blocks for frames of 16 rows, where 32 KB recovers about half of it.
constexpr size_t kMaxDictionaryBytes = 112640;
// Training time grows with the samples; beyond this, frames are sampled evenly.
constexpr size_t kMaxTrainingBytes = size_t{16} << 20;
}  // namespace

Result<std::shared_ptr<const BlockDictionary>> BlockDictionary::Load(std::string_view stored) {
  if (stored.size() <= kDictionaryHeaderSize) {
    return Status::DataLoss("dictionary is truncated: " + std::to_string(stored.size()) + " bytes");
  }
  const char* p = stored.data();
  if (p[0] != kDictionaryMagic[0] || p[1] != kDictionaryMagic[1]) {
    return Status::DataLoss("not a dictionary: bad magic");
  }
  if (static_cast<uint8_t>(p[2]) != kDictionaryVersion || p[3] != 0) {
    return Status::DataLoss("dictionary format version " +
                            std::to_string(static_cast<uint8_t>(p[2])) +
                            " is not the one this build reads (1)");
  }
  const std::string_view content = stored.substr(kDictionaryHeaderSize);
  const uint64_t checksum = DecodeFixed64(p + 8);
  const uint64_t computed = BlockChecksum(content);
  if (checksum != computed) {
    return Status::DataLoss("dictionary checksum mismatch: stored " + Hex(checksum) +
                            ", computed " + Hex(computed));
  }
  std::shared_ptr<BlockDictionary> dict(new BlockDictionary());
  dict->content_ = std::string(content);
  dict->id_ = DecodeFixed32(p + 4);
  if (ZDICT_getDictID(dict->content_.data(), dict->content_.size()) != dict->id_) {
    return Status::DataLoss("dictionary id " + std::to_string(dict->id_) +
                            " does not match its content");
  }
  dict->ddict_ = ZSTD_createDDict(dict->content_.data(), dict->content_.size());
  if (dict->ddict_ == nullptr) return Status::DataLoss("zstd cannot load the dictionary");
  return std::shared_ptr<const BlockDictionary>(std::move(dict));
}

BlockDictionary::~BlockDictionary() {
  ZSTD_freeDDict(static_cast<ZSTD_DDict*>(ddict_));
  for (auto& [level, cdict] : cdicts_) ZSTD_freeCDict(static_cast<ZSTD_CDict*>(cdict));
}

const void* BlockDictionary::CompressionDictionary(int level) const {
  std::lock_guard<std::mutex> lock(mu_);
  void*& cdict = cdicts_[level];
  if (cdict == nullptr) cdict = ZSTD_createCDict(content_.data(), content_.size(), level);
  return cdict;
}

Result<std::string> TrainBlockDictionary(const CodecOptions& options, DataType type,
                                         uint32_t frame_rows, const std::vector<RawBlock>& blocks) {
  GRIDSTORE_RETURN_IF_ERROR(ValidateCodecOptions(options));
  const size_t element_size = DataTypeSize(type);
  if (options.codec == Codec::kNone || frame_rows == 0 || element_size == 0) return std::string();
  // The samples are the frames exactly as CompressUnit sees them: shuffled for shuffle-zstd.
  size_t total = 0;
  for (const RawBlock& b : blocks) {
    if (frame_rows < b.rows) total += b.raw.size();
  }
  if (total < kMinDictionaryTrainingBytes) return std::string();
  const size_t stride = (total + kMaxTrainingBytes - 1) / kMaxTrainingBytes;
  std::string samples;
  std::vector<size_t> sizes;
  size_t frame_index = 0;
  for (const RawBlock& b : blocks) {
    if (frame_rows >= b.rows) continue;
    const size_t row_bytes = size_t{b.cols} * element_size;
    if (b.raw.size() != b.rows * row_bytes) {
      return Status::InvalidArgument("raw block is " + std::to_string(b.raw.size()) +
                                     " bytes, not " + Shape(b.rows, b.cols));
    }
    for (uint32_t r = 0; r < b.rows; r += frame_rows, ++frame_index) {
      if (frame_index % stride != 0) continue;
      const size_t n = std::min<size_t>(frame_rows, b.rows - r) * row_bytes;
      const size_t at = samples.size();
      samples.resize(at + n);
      if (options.codec == Codec::kShuffleZstd && element_size > 1) {
        ShuffleBytes(b.raw.data() + r * row_bytes, samples.data() + at, n, element_size);
      } else {
        std::memcpy(samples.data() + at, b.raw.data() + r * row_bytes, n);
      }
      sizes.push_back(n);
    }
  }
  std::string stored(kDictionaryHeaderSize + std::min(kMaxDictionaryBytes, samples.size() / 32),
                     '\0');
  const size_t size = ZDICT_trainFromBuffer(stored.data() + kDictionaryHeaderSize,
                                            stored.size() - kDictionaryHeaderSize, samples.data(),
                                            sizes.data(), static_cast<unsigned>(sizes.size()));
  // Data zstd cannot learn from (constant, or too few distinct samples): no dictionary.
  if (ZDICT_isError(size)) return std::string();
  stored.resize(kDictionaryHeaderSize + size);
  char* p = stored.data();
  p[0] = kDictionaryMagic[0];
  p[1] = kDictionaryMagic[1];
  p[2] = static_cast<char>(kDictionaryVersion);
  p[3] = 0;
  StoreFixed(p + 4, static_cast<uint32_t>(ZDICT_getDictID(p + kDictionaryHeaderSize, size)));
  StoreFixed(p + 8, BlockChecksum(std::string_view(p + kDictionaryHeaderSize, size)));
  return stored;
}

}  // namespace gridstore::grid
