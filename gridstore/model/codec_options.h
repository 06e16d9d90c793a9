// Copyright 2026 The GridStore Authors.
//
// How blocks are compressed: the codec and its level, chosen per dataset (BlockLayout::codec) and
// given on the command line as "shuffle-zstd:3". The codec itself is internal (block_codec.h).
#ifndef GRIDSTORE_MODEL_CODEC_OPTIONS_H_
#define GRIDSTORE_MODEL_CODEC_OPTIONS_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "gridstore/util/result.h"

namespace gridstore::grid {

// Values are part of the stored format: never renumber.
enum class Codec : uint8_t {
  kNone = 0,         // raw little-endian values
  kZstd = 1,         // zstd over the raw bytes
  kShuffleZstd = 2,  // byte shuffle (all first bytes, then all second bytes...), then zstd
};

// "none", "zstd", "shuffle-zstd".
std::string_view CodecName(Codec codec);
// True if `raw` is the value of a Codec this build knows (stored blocks name their codec).
bool IsValidCodecValue(uint8_t raw);

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

}  // namespace gridstore::grid

#endif  // GRIDSTORE_MODEL_CODEC_OPTIONS_H_
