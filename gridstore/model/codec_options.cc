// Copyright 2026 The GridStore Authors.
#include "gridstore/model/codec_options.h"

#include <charconv>
#include <system_error>

#include "gridstore/model/internal/grid_keys.h"

namespace gridstore::grid {
namespace {

constexpr int kMinLevel = -7;
constexpr int kMaxLevel = 22;

}  // namespace

bool IsValidCodecValue(uint8_t raw) { return raw <= static_cast<uint8_t>(Codec::kShuffleZstd); }

std::string_view CodecName(Codec codec) {
  switch (codec) {
    case Codec::kNone:
      return "none";
    case Codec::kZstd:
      return "zstd";
    case Codec::kShuffleZstd:
      return "shuffle-zstd";
  }
  return "invalid";
}

Result<CodecOptions> ParseCodecOptions(std::string_view text) {
  std::string_view name = text;
  std::string_view level_text;
  bool has_level = false;
  if (size_t colon = text.find(':'); colon != std::string_view::npos) {
    name = text.substr(0, colon);
    level_text = text.substr(colon + 1);
    has_level = true;
  }
  CodecOptions options;
  if (name == "none") {
    options.codec = Codec::kNone;
  } else if (name == "zstd") {
    options.codec = Codec::kZstd;
  } else if (name == "shuffle-zstd") {
    options.codec = Codec::kShuffleZstd;
  } else {
    return Status::InvalidArgument("unknown codec '" + EscapeForMessage(name) +
                                   "' (expected none, zstd or shuffle-zstd)");
  }
  if (!has_level) return options;
  if (options.codec == Codec::kNone) {
    return Status::InvalidArgument("codec 'none' takes no level (got '" + EscapeForMessage(text) +
                                   "')");
  }
  int level = 0;
  const char* begin = level_text.data();
  const char* end = begin + level_text.size();
  // from_chars rejects a leading '+', which is fine; accept nothing but a whole integer.
  auto [ptr, ec] = std::from_chars(begin, end, level);
  if (level_text.empty() || ptr != end || ec == std::errc::invalid_argument) {
    return Status::InvalidArgument("codec level '" + EscapeForMessage(level_text) +
                                   "' is not an integer");
  }
  if (ec == std::errc::result_out_of_range || level < kMinLevel || level > kMaxLevel) {
    return Status::InvalidArgument("codec level " + EscapeForMessage(level_text) +
                                   " is out of range [-7, 22]");
  }
  options.level = level;
  return options;
}

std::string CodecOptionsToString(const CodecOptions& options) {
  std::string s(CodecName(options.codec));
  if (options.codec != Codec::kNone) s += ":" + std::to_string(options.level);
  return s;
}

Status ValidateCodecOptions(const CodecOptions& options) {
  if (!IsValidCodecValue(static_cast<uint8_t>(options.codec))) {
    return Status::InvalidArgument("unknown codec " +
                                   std::to_string(static_cast<int>(options.codec)) +
                                   " (expected none, zstd or shuffle-zstd)");
  }
  if (options.codec != Codec::kNone && (options.level < kMinLevel || options.level > kMaxLevel)) {
    return Status::InvalidArgument("codec level " + std::to_string(options.level) +
                                   " is out of range [-7, 22]");
  }
  return Status::OK();
}

}  // namespace gridstore::grid
