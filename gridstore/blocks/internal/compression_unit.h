// Copyright 2026 The GridStore Authors.
//
// One compression unit of a stored block (a version-1 payload, or one frame): zstd, optionally
// after the byte shuffle, with per-thread zstd contexts and scratch buffers reused across calls.
#ifndef GRIDSTORE_BLOCKS_INTERNAL_COMPRESSION_UNIT_H_
#define GRIDSTORE_BLOCKS_INTERNAL_COMPRESSION_UNIT_H_

#include <zstd.h>

#include <cstddef>
#include <memory>
#include <new>
#include <string_view>

#include "gridstore/model/codec_options.h"
#include "gridstore/util/status.h"

namespace gridstore::grid {

// Thread-local scratch buffers above this size are released after use, so that one huge block
// does not pin its memory in every worker thread for the life of the process.
inline constexpr size_t kMaxRetainedScratch = size_t{16} << 20;

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

// The calling thread's buffers: encode and decode each own one.
Scratch& EncodeScratch();
Scratch& DecodeScratch();

// Compresses `n` raw bytes at `src` (shuffled first for shuffle-zstd) into dst[0, capacity).
// Returns the compressed size through *written. `params_size` is the input size zstd chooses its
// parameters for: the whole block's for a frame, since zstd's tables for small inputs (<= 128 KB)
// pick weaker match finders at the same level, which costs framed blocks several % of ratio.
// With a `cdict`, the unit is compressed with that dictionary (and its parameters).
Status CompressUnit(const CodecOptions& options, size_t element_size, const char* src, size_t n,
                    size_t params_size, const ZSTD_CDict* cdict, char* dst, size_t capacity,
                    size_t* written);

// Decompresses one stored unit into exactly `n` raw bytes at `dst`, unshuffling if the codec
// shuffled. DataLoss if the unit does not decode to exactly n bytes.
Status DecompressUnit(Codec codec, size_t element_size, std::string_view unit, char* dst, size_t n,
                      const ZSTD_DDict* ddict = nullptr);

// Decompresses one stored unit into exactly `n` bytes as they were compressed, still shuffled
// for shuffle-zstd (UnshuffleElements undoes it, e.g. straight into a fetch's result). *bytes
// points into the thread's DecodeScratch (valid until its next decode), or into `unit` for codec
// none. Errors as DecompressUnit.
Status DecompressUnitShuffled(Codec codec, std::string_view unit, size_t n, const ZSTD_DDict* ddict,
                              const char** bytes);

}  // namespace gridstore::grid

#endif  // GRIDSTORE_BLOCKS_INTERNAL_COMPRESSION_UNIT_H_
