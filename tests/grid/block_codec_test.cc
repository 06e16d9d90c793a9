// Copyright 2026 The GridStore Authors.
#include "grid/block_codec.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "tests/test_util.h"

namespace gridstore::grid {
namespace {

constexpr size_t kHeaderSize = 36;
constexpr Codec kAllCodecs[] = {Codec::kNone, Codec::kZstd, Codec::kShuffleZstd};

std::vector<DataType> AllTypes() {
  std::vector<DataType> types;
  for (uint8_t raw = 1; raw <= 10; ++raw) types.push_back(static_cast<DataType>(raw));
  return types;
}

// Random bytes with runs, so that zstd finds something to compress; every bit pattern (NaNs
// included) must survive, so blocks are compared bytewise.
std::string RandomRaw(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string raw(size, '\0');
  for (size_t i = 0; i < size; ++i) {
    raw[i] = static_cast<char>(rng() % 4 == 0 ? rng() : i / 7);
  }
  return raw;
}

std::string SmoothFloats(uint32_t rows, uint32_t cols) {
  std::vector<float> v(size_t{rows} * cols);
  for (uint32_t r = 0; r < rows; ++r) {
    for (uint32_t c = 0; c < cols; ++c) {
      v[size_t{r} * cols + c] = 280.0f + 15.0f * std::sin(r * 0.05f) * std::cos(c * 0.03f);
    }
  }
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
}

std::string Encode(const CodecOptions& options, DataType type, uint32_t rows, uint32_t cols,
                   std::string_view raw) {
  std::string out;
  Status s = EncodeBlock(options, type, rows, cols, raw, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

// Decodes into a buffer with guard bytes after the block, which must stay untouched.
Status DecodeChecked(std::string_view block, DataType type, uint32_t rows, uint32_t cols,
                     std::string* decoded) {
  const size_t size = size_t{rows} * cols * DataTypeSize(type);
  std::string buf(size + 16, '\x5a');
  Status s = DecodeBlock(block, type, rows, cols, buf.data());
  EXPECT_EQ(buf.substr(size), std::string(16, '\x5a')) << "DecodeBlock wrote past the block";
  decoded->assign(buf.data(), size);
  return s;
}

TEST(BlockCodecTest, RoundTripsEveryTypeCodecAndShape) {
  const std::pair<uint32_t, uint32_t> shapes[] = {{1, 1},  {1, 37}, {37, 1},  {3, 5},
                                                  {7, 13}, {16, 1}, {64, 64}, {33, 65}};
  uint32_t seed = 1;
  for (DataType type : AllTypes()) {
    for (Codec codec : kAllCodecs) {
      for (auto [rows, cols] : shapes) {
        SCOPED_TRACE(std::string(DataTypeName(type)) + " " + std::string(CodecName(codec)) + " " +
                     std::to_string(rows) + "x" + std::to_string(cols));
        const std::string raw = RandomRaw(size_t{rows} * cols * DataTypeSize(type), seed++);
        const std::string block = Encode({codec, 3}, type, rows, cols, raw);
        ASSERT_OK_AND_ASSIGN(BlockHeader h, ReadBlockHeader(block));
        EXPECT_EQ(h.version, kBlockFormatVersion);
        EXPECT_EQ(h.codec, codec);
        EXPECT_EQ(h.type, type);
        EXPECT_EQ(h.rows, rows);
        EXPECT_EQ(h.cols, cols);
        EXPECT_EQ(h.raw_size, raw.size());
        EXPECT_EQ(h.checksum, BlockChecksum(raw));
        if (codec == Codec::kNone) {
          EXPECT_EQ(block.size(), kHeaderSize + raw.size());
        }
        std::string decoded;
        ASSERT_OK(DecodeChecked(block, type, rows, cols, &decoded));
        EXPECT_EQ(decoded, raw);
      }
    }
  }
}

TEST(BlockCodecTest, RoundTripsAtEveryLevelExtreme) {
  const std::string raw = SmoothFloats(40, 50);
  for (Codec codec : {Codec::kZstd, Codec::kShuffleZstd}) {
    for (int level : {-7, -1, 0, 1, 9, 19, 22}) {
      SCOPED_TRACE(CodecOptionsToString({codec, level}));
      const std::string block = Encode({codec, level}, DataType::kFloat32, 40, 50, raw);
      std::string decoded;
      ASSERT_OK(DecodeChecked(block, DataType::kFloat32, 40, 50, &decoded));
      EXPECT_EQ(decoded, raw);
    }
  }
}

TEST(BlockCodecTest, EncodingIsDeterministicAndReplacesOutput) {
  const std::string raw = SmoothFloats(30, 31);
  std::string a = "previous contents that must disappear";
  ASSERT_OK(EncodeBlock({}, DataType::kFloat32, 30, 31, raw, &a));
  std::string b;
  ASSERT_OK(EncodeBlock({}, DataType::kFloat32, 30, 31, raw, &b));
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.substr(0, 2), "GB");
}

TEST(BlockCodecTest, ShuffleCompressesSmoothFloatsBetterThanPlainZstd) {
  const std::string raw = SmoothFloats(256, 256);
  const size_t zstd = Encode({Codec::kZstd, 3}, DataType::kFloat32, 256, 256, raw).size();
  const size_t shuffled =
      Encode({Codec::kShuffleZstd, 3}, DataType::kFloat32, 256, 256, raw).size();
  EXPECT_LT(shuffled, zstd * 9 / 10) << "shuffle-zstd " << shuffled << " vs zstd " << zstd;
  EXPECT_LT(zstd, raw.size());

  std::vector<double> d(128 * 128);
  for (size_t i = 0; i < d.size(); ++i) d[i] = 1000.0 + std::sin(static_cast<double>(i) * 1e-3);
  const std::string raw64(reinterpret_cast<const char*>(d.data()), d.size() * sizeof(double));
  const size_t zstd64 = Encode({Codec::kZstd, 3}, DataType::kFloat64, 128, 128, raw64).size();
  const size_t shuffled64 =
      Encode({Codec::kShuffleZstd, 3}, DataType::kFloat64, 128, 128, raw64).size();
  EXPECT_LT(shuffled64, zstd64);
}

TEST(BlockCodecTest, LargeBlockRoundTrips) {
  // Larger than the thread-local scratch that is kept between calls (16 MiB).
  constexpr uint32_t kRows = 2048, kCols = 2100;
  const std::string raw = SmoothFloats(kRows, kCols);
  const std::string block =
      Encode({Codec::kShuffleZstd, -7}, DataType::kFloat32, kRows, kCols, raw);
  std::string decoded(raw.size(), '\0');
  ASSERT_OK(DecodeBlock(block, DataType::kFloat32, kRows, kCols, decoded.data()));
  EXPECT_TRUE(decoded == raw);
}

TEST(BlockCodecTest, EveryTruncationIsDataLoss) {
  for (DataType type :
       {DataType::kUint8, DataType::kInt16, DataType::kFloat32, DataType::kFloat64}) {
    for (Codec codec : kAllCodecs) {
      SCOPED_TRACE(std::string(DataTypeName(type)) + " " + std::string(CodecName(codec)));
      const std::string raw = RandomRaw(5 * 7 * DataTypeSize(type), 7);
      const std::string block = Encode({codec, 3}, type, 5, 7, raw);
      std::string decoded;
      for (size_t n = 0; n < block.size(); ++n) {
        EXPECT_STATUS(DecodeChecked(std::string_view(block).substr(0, n), type, 5, 7, &decoded),
                      kDataLoss, "");
        if (n < kHeaderSize) {
          EXPECT_STATUS(ReadBlockHeader(block.substr(0, n)), kDataLoss, "block is truncated",
                        "header needs 36");
        }
      }
      EXPECT_STATUS(DecodeChecked(block + '\0', type, 5, 7, &decoded), kDataLoss,
                    "payload size mismatch");
    }
  }
}

TEST(BlockCodecTest, EveryFlippedByteIsDataLossOrHarmless) {
  for (DataType type : {DataType::kInt8, DataType::kUint16, DataType::kFloat32, DataType::kInt64}) {
    for (Codec codec : kAllCodecs) {
      SCOPED_TRACE(std::string(DataTypeName(type)) + " " + std::string(CodecName(codec)));
      const std::string raw = RandomRaw(4 * 6 * DataTypeSize(type), 11);
      const std::string block = Encode({codec, 3}, type, 4, 6, raw);
      for (size_t pos = 0; pos < block.size(); ++pos) {
        for (uint8_t mask : {0x01, 0x10, 0x80, 0xff}) {
          std::string bad = block;
          bad[pos] = static_cast<char>(bad[pos] ^ mask);
          std::string decoded;
          Status s = DecodeChecked(bad, type, 4, 6, &decoded);
          if (pos < kHeaderSize) {
            // Every header field is checked: damage there is always detected.
            EXPECT_TRUE(s.IsDataLoss()) << "byte " << pos << " ^ " << int{mask} << ": " << s;
          } else if (s.ok()) {
            // Only a flip zstd ignores (an unused frame-header bit) may pass, and then the data
            // must be exactly right.
            EXPECT_EQ(decoded, raw) << "byte " << pos << " ^ " << int{mask};
          } else {
            EXPECT_TRUE(s.IsDataLoss()) << "byte " << pos << " ^ " << int{mask} << ": " << s;
          }
        }
      }
    }
  }
}

TEST(BlockCodecTest, CorruptPayloadReportsChecksumMismatch) {
  const std::string raw = RandomRaw(8 * 8 * 4, 3);
  std::string block = Encode({Codec::kNone, 3}, DataType::kFloat32, 8, 8, raw);
  block[kHeaderSize + 5] ^= 0x01;
  std::string decoded;
  EXPECT_STATUS(DecodeChecked(block, DataType::kFloat32, 8, 8, &decoded), kDataLoss,
                "checksum mismatch: stored 0x", ", computed 0x");
}

TEST(BlockCodecTest, CorruptZstdFrameReportsZstdError) {
  const std::string raw = SmoothFloats(8, 8);
  std::string block = Encode({Codec::kZstd, 3}, DataType::kFloat32, 8, 8, raw);
  block[kHeaderSize] ^= 0xff;  // the frame's magic number
  std::string decoded;
  EXPECT_STATUS(DecodeChecked(block, DataType::kFloat32, 8, 8, &decoded), kDataLoss, "zstd: ");
}

TEST(BlockCodecTest, RandomGarbageIsDataLoss) {
  std::mt19937 rng(42);
  std::string decoded;
  for (int i = 0; i < 3000; ++i) {
    std::string garbage(rng() % 120, '\0');
    for (char& c : garbage) c = static_cast<char>(rng());
    if (i % 2 == 1 && garbage.size() >= kHeaderSize) {
      // A plausible header, so that the payload path is exercised too.
      const std::string valid = Encode({kAllCodecs[i % 3], 3}, DataType::kInt16, 2, 3,
                                       std::string(12, static_cast<char>(i)));
      garbage.replace(0, kHeaderSize, valid.substr(0, kHeaderSize));
      const auto payload = static_cast<uint32_t>(garbage.size() - kHeaderSize);
      std::memcpy(&garbage[32], &payload, 4);
    }
    Status s = DecodeChecked(garbage, DataType::kInt16, 2, 3, &decoded);
    EXPECT_TRUE(s.IsDataLoss()) << i << ": " << s;
  }
}

TEST(BlockCodecTest, WrongTypeOrShapeNamesBoth) {
  const std::string raw = RandomRaw(10 * 20 * 4, 5);
  const std::string block = Encode({}, DataType::kFloat32, 10, 20, raw);
  std::string decoded;
  EXPECT_STATUS(DecodeChecked(block, DataType::kInt16, 10, 20, &decoded), kDataLoss,
                "block has type float32 but the variable is int16");
  // Same element size: still refused.
  EXPECT_STATUS(DecodeChecked(block, DataType::kInt32, 10, 20, &decoded), kDataLoss,
                "block has type float32 but the variable is int32");
  EXPECT_STATUS(DecodeChecked(block, DataType::kFloat32, 10, 30, &decoded), kDataLoss,
                "block shape 10x20, expected 10x30");
  EXPECT_STATUS(DecodeChecked(block, DataType::kFloat32, 20, 10, &decoded), kDataLoss,
                "block shape 10x20, expected 20x10");
}

TEST(BlockCodecTest, HeaderRejectsNewerVersionAndNonZeroReserved) {
  const std::string block = Encode({}, DataType::kUint8, 2, 2, "abcd");
  std::string newer = block;
  newer[2] = 2;
  EXPECT_STATUS(ReadBlockHeader(newer), kDataLoss, "block format version 2 is newer");
  std::string reserved = block;
  reserved[7] = 1;
  EXPECT_STATUS(ReadBlockHeader(reserved), kDataLoss, "reserved");
  std::string magic = block;
  magic[0] = 'X';
  EXPECT_STATUS(ReadBlockHeader(magic), kDataLoss, "bad magic");
}

TEST(BlockCodecTest, EncodeRejectsBadArguments) {
  std::string out;
  EXPECT_STATUS(EncodeBlock({}, DataType::kFloat32, 10, 20, std::string(799, '\0'), &out),
                kInvalidArgument, "799 bytes", "10x20 float32 needs 800");
  EXPECT_STATUS(EncodeBlock({}, DataType::kFloat32, 0, 20, "", &out), kInvalidArgument,
                "block shape 0x20");
  EXPECT_STATUS(EncodeBlock({Codec::kZstd, 40}, DataType::kUint8, 1, 1, "x", &out),
                kInvalidArgument, "codec level 40 is out of range [-7, 22]");
  EXPECT_STATUS(EncodeBlock({static_cast<Codec>(9), 3}, DataType::kUint8, 1, 1, "x", &out),
                kInvalidArgument, "unknown codec 9");
  EXPECT_STATUS(EncodeBlock({}, static_cast<DataType>(0), 1, 1, "x", &out), kInvalidArgument,
                "invalid data type 0");
}

TEST(BlockCodecTest, ParsesCodecOptions) {
  struct Case {
    const char* text;
    CodecOptions expected;
  };
  const Case cases[] = {
      {"none", {Codec::kNone, 3}},
      {"zstd", {Codec::kZstd, 3}},
      {"shuffle-zstd", {Codec::kShuffleZstd, 3}},
      {"zstd:9", {Codec::kZstd, 9}},
      {"zstd:0", {Codec::kZstd, 0}},
      {"shuffle-zstd:-7", {Codec::kShuffleZstd, -7}},
      {"shuffle-zstd:22", {Codec::kShuffleZstd, 22}},
  };
  for (const Case& c : cases) {
    ASSERT_OK_AND_ASSIGN(CodecOptions options, ParseCodecOptions(c.text));
    EXPECT_EQ(options, c.expected) << c.text;
    EXPECT_OK(ValidateCodecOptions(options));
    ASSERT_OK_AND_ASSIGN(CodecOptions again, ParseCodecOptions(CodecOptionsToString(options)));
    EXPECT_EQ(again, options) << c.text;
  }
  EXPECT_EQ(CodecOptionsToString({Codec::kShuffleZstd, 3}), "shuffle-zstd:3");
  EXPECT_EQ(CodecOptionsToString({Codec::kNone, 3}), "none");
  EXPECT_EQ(CodecName(Codec::kZstd), "zstd");
}

TEST(BlockCodecTest, RejectsBadCodecOptions) {
  EXPECT_STATUS(ParseCodecOptions("lz5"), kInvalidArgument,
                "unknown codec 'lz5' (expected none, zstd or shuffle-zstd)");
  EXPECT_STATUS(ParseCodecOptions(""), kInvalidArgument, "unknown codec ''");
  EXPECT_STATUS(ParseCodecOptions("ZSTD"), kInvalidArgument, "unknown codec 'ZSTD'");
  EXPECT_STATUS(ParseCodecOptions(":3"), kInvalidArgument, "unknown codec ''");
  EXPECT_STATUS(ParseCodecOptions("zstd:x"), kInvalidArgument, "codec level 'x' is not an integer");
  EXPECT_STATUS(ParseCodecOptions("zstd:"), kInvalidArgument, "codec level '' is not an integer");
  EXPECT_STATUS(ParseCodecOptions("zstd:3:4"), kInvalidArgument, "'3:4' is not an integer");
  EXPECT_STATUS(ParseCodecOptions("zstd: 3"), kInvalidArgument, "is not an integer");
  EXPECT_STATUS(ParseCodecOptions("zstd:+3"), kInvalidArgument, "is not an integer");
  EXPECT_STATUS(ParseCodecOptions("zstd:40"), kInvalidArgument,
                "codec level 40 is out of range [-7, 22]");
  EXPECT_STATUS(ParseCodecOptions("shuffle-zstd:-8"), kInvalidArgument,
                "codec level -8 is out of range");
  EXPECT_STATUS(ParseCodecOptions("zstd:99999999999999999999"), kInvalidArgument, "out of range");
  EXPECT_STATUS(ParseCodecOptions("none:3"), kInvalidArgument, "'none' takes no level");
  EXPECT_STATUS(ValidateCodecOptions({Codec::kShuffleZstd, 23}), kInvalidArgument,
                "codec level 23 is out of range [-7, 22]");
  EXPECT_OK(ValidateCodecOptions({Codec::kNone, 99}));  // the level is ignored for none
}

TEST(BlockCodecTest, ConcurrentEncodeAndDecode) {
  std::vector<std::thread> threads;
  std::vector<int> failures(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &failures] {
      for (int i = 0; i < 50; ++i) {
        const uint32_t rows = 1 + (t * 50 + i) % 37, cols = 1 + i % 23;
        const DataType type = static_cast<DataType>(1 + (t + i) % 10);
        const std::string raw = RandomRaw(size_t{rows} * cols * DataTypeSize(type), t * 100 + i);
        std::string block, decoded(raw.size(), '\0');
        Status s = EncodeBlock({kAllCodecs[i % 3], 1 + i % 5}, type, rows, cols, raw, &block);
        if (s.ok()) s = DecodeBlock(block, type, rows, cols, decoded.data());
        if (!s.ok() || decoded != raw) ++failures[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace gridstore::grid
