// Copyright 2026 The GridStore Authors.
#include "gridstore/blocks/internal/block_codec.h"

#include <xxhash.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gridstore/util/internal/coding.h"
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

std::string EncodeFramed(const CodecOptions& options, DataType type, uint32_t rows, uint32_t cols,
                         uint32_t frame_rows, std::string_view raw) {
  std::string out;
  Status s = EncodeBlock(options, type, rows, cols, frame_rows, raw, &out);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

// Makes a hand-edited framed block self-consistent again: payload_size and the checksum of the
// stored value (docs/format.md), so that the decoder's deeper checks are reached.
void Reseal(std::string* block) {
  const uint32_t payload = static_cast<uint32_t>(block->size() - kHeaderSize);
  std::memcpy(block->data() + 32, &payload, 4);
  const uint64_t seed = XXH3_64bits(block->data(), 24);
  const uint64_t sum = XXH3_64bits_withSeed(block->data() + 32, block->size() - 32, seed);
  std::memcpy(block->data() + 24, &sum, 8);
}

std::string Encode(const CodecOptions& options, DataType type, uint32_t rows, uint32_t cols,
                   std::string_view raw) {
  std::string out;
  Status s = EncodeBlock(options, type, rows, cols, 0, raw, &out);
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
        EXPECT_EQ(h.version, kUnframedBlockVersion);
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

TEST(BlockCodecTest, FramedBlocksDecodeEveryRowRange) {
  const std::pair<uint32_t, uint32_t> shapes[] = {{1, 5}, {2, 3}, {7, 1}, {13, 9}, {16, 4}};
  uint32_t seed = 100;
  for (DataType type :
       {DataType::kUint8, DataType::kInt16, DataType::kFloat32, DataType::kFloat64}) {
    for (Codec codec : kAllCodecs) {
      for (auto [rows, cols] : shapes) {
        const std::string raw = RandomRaw(size_t{rows} * cols * DataTypeSize(type), seed++);
        const size_t row_bytes = size_t{cols} * DataTypeSize(type);
        for (uint32_t frame_rows : {0u, 1u, 2u, 3u, 5u, rows - 1, rows, rows + 4}) {
          SCOPED_TRACE(std::string(DataTypeName(type)) + " " + std::string(CodecName(codec)) + " " +
                       std::to_string(rows) + "x" + std::to_string(cols) + " frame_rows " +
                       std::to_string(frame_rows));
          const std::string block = EncodeFramed({codec, 3}, type, rows, cols, frame_rows, raw);
          ASSERT_OK_AND_ASSIGN(BlockHeader h, ReadBlockHeader(block));
          const bool framed = frame_rows != 0 && frame_rows < rows;
          EXPECT_EQ(h.version, framed ? kFramedBlockVersion : kUnframedBlockVersion);
          EXPECT_EQ(h.frame_rows, framed ? frame_rows : 0u);
          EXPECT_EQ(h.frames, framed ? (rows + frame_rows - 1) / frame_rows : 1u);
          if (!framed) {
            // One frame is exactly the format of blocks written before frames existed.
            EXPECT_EQ(block, Encode({codec, 3}, type, rows, cols, raw));
          }
          std::string whole;
          ASSERT_OK(DecodeChecked(block, type, rows, cols, &whole));
          ASSERT_EQ(whole, raw);
          for (uint32_t r0 = 0; r0 < rows; ++r0) {
            for (uint32_t r1 = r0 + 1; r1 <= rows; ++r1) {
              const size_t n = (r1 - r0) * row_bytes;
              std::string buf(n + 8, '\x5a');
              size_t decoded = 0;
              ASSERT_OK(DecodeBlockRows(block, type, rows, cols, r0, r1, buf.data(), &decoded));
              ASSERT_EQ(buf.substr(0, n), raw.substr(r0 * row_bytes, n)) << r0 << ".." << r1;
              ASSERT_EQ(buf.substr(n), std::string(8, '\x5a')) << "wrote past the rows";
              ASSERT_EQ(decoded, RowsToDecode(rows, frame_rows, r0, r1) * row_bytes);
            }
          }
        }
      }
    }
  }
}

TEST(BlockCodecTest, RowsToDecodeCoversWholeFrames) {
  EXPECT_EQ(RowsToDecode(256, 0, 10, 11), 256u);    // unframed: everything
  EXPECT_EQ(RowsToDecode(256, 256, 10, 11), 256u);  // one frame
  EXPECT_EQ(RowsToDecode(256, 16, 10, 11), 16u);
  EXPECT_EQ(RowsToDecode(256, 16, 15, 17), 32u);  // straddles two frames
  EXPECT_EQ(RowsToDecode(100, 16, 99, 100), 4u);  // the short last frame
  EXPECT_EQ(RowsToDecode(100, 16, 0, 100), 100u);
}

TEST(BlockCodecTest, DecodeBlockRowsRejectsBadRange) {
  const std::string raw = RandomRaw(4 * 3, 9);
  const std::string block = EncodeFramed({}, DataType::kUint8, 4, 3, 2, raw);
  char buf[16];
  EXPECT_STATUS(DecodeBlockRows(block, DataType::kUint8, 4, 3, 2, 2, buf, nullptr),
                kInvalidArgument, "row range [2, 2)");
  EXPECT_STATUS(DecodeBlockRows(block, DataType::kUint8, 4, 3, 3, 5, buf, nullptr),
                kInvalidArgument, "4 rows");
}

TEST(BlockCodecTest, FramedBlockDamageIsDataLoss) {
  for (Codec codec : kAllCodecs) {
    SCOPED_TRACE(std::string(CodecName(codec)));
    const std::string raw = RandomRaw(10 * 6 * 4, 21);
    const std::string block = EncodeFramed({codec, 3}, DataType::kFloat32, 10, 6, 3, raw);
    std::string decoded;
    // Any truncation, and any flipped bit: the checksum covers the whole stored value.
    for (size_t n = 0; n < block.size(); ++n) {
      EXPECT_STATUS(DecodeChecked(block.substr(0, n), DataType::kFloat32, 10, 6, &decoded),
                    kDataLoss, "");
    }
    for (size_t pos = 0; pos < block.size(); ++pos) {
      std::string bad = block;
      bad[pos] = static_cast<char>(bad[pos] ^ 0x04);
      Status s = DecodeChecked(bad, DataType::kFloat32, 10, 6, &decoded);
      EXPECT_TRUE(s.IsDataLoss()) << "byte " << pos << ": " << s;
    }
    std::string flipped = block;
    flipped[block.size() - 2] ^= 0x01;
    EXPECT_STATUS(DecodeChecked(flipped, DataType::kFloat32, 10, 6, &decoded), kDataLoss,
                  "checksum mismatch");
    // The header's frame fields: 4 frames of 3 rows.
    ASSERT_EQ(DecodeFixed32(block.data() + kHeaderSize), 3u);
    ASSERT_EQ(DecodeFixed32(block.data() + kHeaderSize + 4), 4u);
    auto edit32 = [&](size_t offset, uint32_t v) {
      std::string b = block;
      std::memcpy(b.data() + offset, &v, 4);
      Reseal(&b);
      return b;
    };
    EXPECT_STATUS(DecodeChecked(edit32(kHeaderSize, 0), DataType::kFloat32, 10, 6, &decoded),
                  kDataLoss, "0 rows per frame, expected 1 to 9");
    EXPECT_STATUS(DecodeChecked(edit32(kHeaderSize, 10), DataType::kFloat32, 10, 6, &decoded),
                  kDataLoss, "10 rows per frame");
    EXPECT_STATUS(DecodeChecked(edit32(kHeaderSize + 4, 5), DataType::kFloat32, 10, 6, &decoded),
                  kDataLoss, "5 frames, expected 4");
    // A frame table cut short.
    std::string cut = block.substr(0, kHeaderSize + 8 + 4 * 2);
    Reseal(&cut);
    EXPECT_STATUS(DecodeChecked(cut, DataType::kFloat32, 10, 6, &decoded), kDataLoss,
                  "table of 4 frame sizes needs 24");
    // Frame sizes that do not add up to the bytes present.
    const uint32_t size0 = DecodeFixed32(block.data() + kHeaderSize + 8);
    EXPECT_STATUS(
        DecodeChecked(edit32(kHeaderSize + 8, size0 + 1), DataType::kFloat32, 10, 6, &decoded),
        kDataLoss,
        codec == Codec::kNone ? "frame 0 is 73 bytes uncompressed" : "frame sizes sum to");
  }
}

// Builds a framed block of 3-row frames whose first frame is replaced by the first frame of a
// block framed every `other_rows` rows, table and checksum fixed up: the frame then decodes to the
// wrong number of bytes.
std::string BlockWithForeignFrame(Codec codec, const std::string& raw, uint32_t other_rows) {
  const std::string block = EncodeFramed({codec, 3}, DataType::kFloat32, 10, 6, 3, raw);
  const std::string other = EncodeFramed({codec, 3}, DataType::kFloat32, 10, 6, other_rows, raw);
  constexpr size_t kTable = kHeaderSize + 8;  // where the frame size table starts
  const uint32_t frames = DecodeFixed32(block.data() + kHeaderSize + 4);
  const uint32_t other_frames = DecodeFixed32(other.data() + kHeaderSize + 4);
  const uint32_t size0 = DecodeFixed32(block.data() + kTable);
  const uint32_t other0 = DecodeFixed32(other.data() + kTable);
  std::string out = block.substr(0, kTable + 4 * frames);
  std::memcpy(out.data() + kTable, &other0, 4);
  out += other.substr(kTable + 4 * other_frames, other0);
  out += block.substr(kTable + 4 * frames + size0);
  Reseal(&out);
  return out;
}

TEST(BlockCodecTest, FrameOfTheWrongSizeIsDataLoss) {
  const std::string raw = RandomRaw(10 * 6 * 4, 23);
  std::string decoded;
  for (Codec codec : {Codec::kZstd, Codec::kShuffleZstd}) {
    SCOPED_TRACE(std::string(CodecName(codec)));
    // Frame 0 holds 2 rows instead of 3: too short.
    EXPECT_STATUS(
        DecodeChecked(BlockWithForeignFrame(codec, raw, 2), DataType::kFloat32, 10, 6, &decoded),
        kDataLoss, "frame 0 of 4", "decompressed 48 bytes, expected 72");
    // Frame 0 holds 4 rows: too long for its 72 bytes.
    EXPECT_STATUS(
        DecodeChecked(BlockWithForeignFrame(codec, raw, 4), DataType::kFloat32, 10, 6, &decoded),
        kDataLoss, "frame 0 of 4", "zstd");
    // Rows of other frames still decode: each frame stands alone.
    std::string rows(3 * 6 * 4, '\0');
    ASSERT_OK(DecodeBlockRows(BlockWithForeignFrame(codec, raw, 2), DataType::kFloat32, 10, 6, 3, 6,
                              rows.data(), nullptr));
    EXPECT_EQ(rows, raw.substr(3 * 6 * 4, 3 * 6 * 4));
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
      // Framed: each frame is compressed with the parameters chosen for the whole block.
      const std::string framed = EncodeFramed({codec, level}, DataType::kFloat32, 40, 50, 7, raw);
      ASSERT_OK(DecodeChecked(framed, DataType::kFloat32, 40, 50, &decoded));
      EXPECT_EQ(decoded, raw);
    }
  }
}

TEST(BlockCodecTest, UnframedEncodeIsUnaffectedByAnEarlierFramedOne) {
  // The thread's compression context must not carry a framed block's parameters over.
  const std::string raw = SmoothFloats(64, 64);
  const std::string before = Encode({Codec::kZstd, 3}, DataType::kFloat32, 64, 64, raw);
  EncodeFramed({Codec::kZstd, 19}, DataType::kFloat32, 64, 64, 4, raw);
  EXPECT_EQ(Encode({Codec::kZstd, 3}, DataType::kFloat32, 64, 64, raw), before);
}

TEST(BlockCodecTest, EncodingIsDeterministicAndReplacesOutput) {
  const std::string raw = SmoothFloats(30, 31);
  std::string a = "previous contents that must disappear";
  ASSERT_OK(EncodeBlock({}, DataType::kFloat32, 30, 31, 0, raw, &a));
  std::string b;
  ASSERT_OK(EncodeBlock({}, DataType::kFloat32, 30, 31, 0, raw, &b));
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
  newer[2] = 3;
  EXPECT_STATUS(ReadBlockHeader(newer), kDataLoss, "block format version 3 is newer");
  std::string reserved = block;
  reserved[7] = 1;
  EXPECT_STATUS(ReadBlockHeader(reserved), kDataLoss, "invalid flags 256");
  std::string magic = block;
  magic[0] = 'X';
  EXPECT_STATUS(ReadBlockHeader(magic), kDataLoss, "bad magic");
}

TEST(BlockCodecTest, EncodeRejectsBadArguments) {
  std::string out;
  EXPECT_STATUS(EncodeBlock({}, DataType::kFloat32, 10, 20, 0, std::string(799, '\0'), &out),
                kInvalidArgument, "799 bytes", "10x20 float32 needs 800");
  EXPECT_STATUS(EncodeBlock({}, DataType::kFloat32, 0, 20, 0, "", &out), kInvalidArgument,
                "block shape 0x20");
  EXPECT_STATUS(EncodeBlock({Codec::kZstd, 40}, DataType::kUint8, 1, 1, 0, "x", &out),
                kInvalidArgument, "codec level 40 is out of range [-7, 22]");
  EXPECT_STATUS(EncodeBlock({static_cast<Codec>(9), 3}, DataType::kUint8, 1, 1, 0, "x", &out),
                kInvalidArgument, "unknown codec 9");
  EXPECT_STATUS(EncodeBlock({}, static_cast<DataType>(0), 1, 1, 0, "x", &out), kInvalidArgument,
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
        Status s = EncodeBlock({kAllCodecs[i % 3], 1 + i % 5}, type, rows, cols, 0, raw, &block);
        if (s.ok()) s = DecodeBlock(block, type, rows, cols, decoded.data());
        if (!s.ok() || decoded != raw) ++failures[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures, std::vector<int>(4, 0));
}

// ---- Dictionaries ----

// Blocks of a smooth field, `count` blocks of rows x cols float32, each a little different.
std::vector<std::string> SmoothBlocks(int count, uint32_t rows, uint32_t cols, float phase) {
  std::vector<std::string> blocks;
  for (int b = 0; b < count; ++b) {
    std::vector<float> v(size_t{rows} * cols);
    for (uint32_t r = 0; r < rows; ++r) {
      for (uint32_t c = 0; c < cols; ++c) {
        v[size_t{r} * cols + c] =
            250.0f + 30.0f * std::sin((r + 37.0f * b) * 0.021f + phase) * std::cos(c * 0.017f) +
            0.01f * static_cast<float>((r * 7 + c * 13 + b) % 11);
      }
    }
    blocks.emplace_back(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  }
  return blocks;
}

std::shared_ptr<const BlockDictionary> Train(const CodecOptions& options, uint32_t frame_rows,
                                             const std::vector<std::string>& raws, uint32_t rows,
                                             uint32_t cols) {
  std::vector<RawBlock> blocks;
  for (const auto& raw : raws) blocks.push_back(RawBlock{rows, cols, raw});
  auto stored = TrainBlockDictionary(options, DataType::kFloat32, frame_rows, blocks);
  EXPECT_TRUE(stored.ok()) << stored.status();
  if (!stored.ok() || stored->empty()) return nullptr;
  auto dict = BlockDictionary::Load(*stored);
  EXPECT_TRUE(dict.ok()) << dict.status();
  return dict.ok() ? *dict : nullptr;
}

TEST(BlockCodecTest, DictionaryFramesRoundTripAndCompressBetter) {
  const auto raws = SmoothBlocks(8, 128, 128, 0.0f);  // 512 KB of training frames
  for (Codec codec : {Codec::kZstd, Codec::kShuffleZstd}) {
    SCOPED_TRACE(std::string(CodecName(codec)));
    const CodecOptions options{codec, 3};
    auto dict = Train(options, 8, raws, 128, 128);
    ASSERT_NE(dict, nullptr);
    // Other data of the same kind (not the training planes) round-trips through it.
    const auto others = SmoothBlocks(4, 128, 128, 1.3f);
    size_t with = 0, without = 0;
    for (const auto& raw : others) {
      std::string plain, primed;
      ASSERT_OK(EncodeBlock(options, DataType::kFloat32, 128, 128, 8, raw, &plain));
      ASSERT_OK(EncodeBlock(options, DataType::kFloat32, 128, 128, 8, raw, &primed, dict.get()));
      without += plain.size();
      with += primed.size();
      ASSERT_OK_AND_ASSIGN(BlockHeader h, ReadBlockHeader(primed));
      EXPECT_TRUE(h.dictionary);
      EXPECT_TRUE(BlockNeedsDictionary(primed));
      EXPECT_FALSE(BlockNeedsDictionary(plain));
      std::string decoded(raw.size(), '\0');
      ASSERT_OK(DecodeBlock(primed, DataType::kFloat32, 128, 128, decoded.data(), dict.get()));
      EXPECT_EQ(decoded, raw);
      // A row range decodes its frames only, with the dictionary.
      size_t bytes = 0;
      std::string rows(3 * 128 * 4, '\0');
      ASSERT_OK(DecodeBlockRows(primed, DataType::kFloat32, 128, 128, 61, 64, rows.data(), &bytes,
                                dict.get()));
      EXPECT_EQ(rows, raw.substr(61 * 128 * 4, 3 * 128 * 4));
      EXPECT_EQ(bytes, 8u * 128 * 4);
    }
    // The default codec, shuffle-zstd, is the one frames are tuned for (docs/benchmarks.md).
    if (codec == Codec::kShuffleZstd) {
      EXPECT_LT(with, without);
    }
  }
}

TEST(BlockCodecTest, DictionaryBlocksNeedTheirOwnDictionary) {
  const CodecOptions options{Codec::kShuffleZstd, 3};
  auto dict = Train(options, 16, SmoothBlocks(8, 128, 128, 0.0f), 128, 128);
  auto other = Train(options, 16, SmoothBlocks(8, 128, 128, 2.0f), 128, 128);
  ASSERT_NE(dict, nullptr);
  ASSERT_NE(other, nullptr);
  ASSERT_NE(dict->id(), other->id());
  const std::string raw = SmoothBlocks(1, 128, 128, 0.5f)[0];
  std::string block;
  ASSERT_OK(EncodeBlock(options, DataType::kFloat32, 128, 128, 16, raw, &block, dict.get()));
  std::string decoded(raw.size(), '\0');
  EXPECT_STATUS(DecodeBlock(block, DataType::kFloat32, 128, 128, decoded.data()), kDataLoss,
                "compressed with its variable's dictionary, which is missing");
  EXPECT_STATUS(DecodeBlock(block, DataType::kFloat32, 128, 128, decoded.data(), other.get()),
                kDataLoss, "was compressed with dictionary " + std::to_string(dict->id()));
  // Unframed blocks and codec none never use one, so they decode without it.
  std::string unframed;
  ASSERT_OK(EncodeBlock(options, DataType::kFloat32, 128, 128, 0, raw, &unframed, dict.get()));
  EXPECT_FALSE(BlockNeedsDictionary(unframed));
  ASSERT_OK(DecodeBlock(unframed, DataType::kFloat32, 128, 128, decoded.data()));
  EXPECT_EQ(decoded, raw);
  std::string none;
  ASSERT_OK(
      EncodeBlock({Codec::kNone, 0}, DataType::kFloat32, 128, 128, 16, raw, &none, dict.get()));
  EXPECT_FALSE(BlockNeedsDictionary(none));
  // The flag is only valid on framed, compressed blocks.
  std::string flagged = unframed;
  flagged[6] = 1;
  EXPECT_STATUS(ReadBlockHeader(flagged), kDataLoss, "invalid flags 1");
}

TEST(BlockCodecTest, DictionaryTrainingSkipsWhatWouldNotPay) {
  const auto raws = SmoothBlocks(8, 128, 128, 0.0f);
  std::vector<RawBlock> blocks;
  for (const auto& raw : raws) blocks.push_back(RawBlock{128, 128, raw});
  const CodecOptions zstd{Codec::kShuffleZstd, 3};
  // Unframed (0, or frames as tall as the block), codec none, too little data: no dictionary.
  for (uint32_t frame_rows : {0u, 128u, 500u}) {
    ASSERT_OK_AND_ASSIGN(std::string stored,
                         TrainBlockDictionary(zstd, DataType::kFloat32, frame_rows, blocks));
    EXPECT_EQ(stored, "") << frame_rows;
  }
  ASSERT_OK_AND_ASSIGN(std::string none,
                       TrainBlockDictionary({Codec::kNone, 0}, DataType::kFloat32, 8, blocks));
  EXPECT_EQ(none, "");
  ASSERT_OK_AND_ASSIGN(
      std::string small,
      TrainBlockDictionary(zstd, DataType::kFloat32, 8, {blocks.begin(), blocks.begin() + 3}));
  EXPECT_EQ(small, "");
  // Constant data gives zstd nothing to learn: no dictionary, no error.
  const std::string zeros(128 * 128 * 4, '\0');
  std::vector<RawBlock> flat(8, RawBlock{128, 128, zeros});
  EXPECT_OK(TrainBlockDictionary(zstd, DataType::kFloat32, 8, flat).status());
  // A block whose size disagrees with its shape is the caller's bug.
  std::vector<RawBlock> bad = blocks;
  bad[2].rows = 64;
  EXPECT_STATUS(TrainBlockDictionary(zstd, DataType::kFloat32, 8, bad).status(), kInvalidArgument,
                "not 64x128");
}

TEST(BlockCodecTest, DamagedDictionaryIsDataLoss) {
  const auto raws = SmoothBlocks(8, 128, 128, 0.0f);
  std::vector<RawBlock> blocks;
  for (const auto& raw : raws) blocks.push_back(RawBlock{128, 128, raw});
  ASSERT_OK_AND_ASSIGN(std::string stored, TrainBlockDictionary({Codec::kShuffleZstd, 3},
                                                                DataType::kFloat32, 8, blocks));
  ASSERT_FALSE(stored.empty());
  ASSERT_OK(BlockDictionary::Load(stored).status());
  EXPECT_STATUS(BlockDictionary::Load(stored.substr(0, 10)).status(), kDataLoss, "truncated");
  std::string magic = stored;
  magic[1] = 'X';
  EXPECT_STATUS(BlockDictionary::Load(magic).status(), kDataLoss, "bad magic");
  std::string version = stored;
  version[2] = 2;
  EXPECT_STATUS(BlockDictionary::Load(version).status(), kDataLoss, "version 2");
  std::string flipped = stored;
  flipped[stored.size() / 2] ^= 0x20;
  EXPECT_STATUS(BlockDictionary::Load(flipped).status(), kDataLoss, "checksum mismatch");
  std::string id = stored;
  id[4] ^= 1;
  EXPECT_STATUS(BlockDictionary::Load(id).status(), kDataLoss, "does not match its content");
}

}  // namespace
}  // namespace gridstore::grid
