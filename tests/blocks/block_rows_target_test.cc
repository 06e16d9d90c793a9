// Copyright 2026 The GridStore Authors.
//
// DecodeBlockRowsInto: rows and a window of columns of a block decoded straight into rows of a
// wider buffer (a fetch's result), for every codec, element size and framing, with a dictionary
// too; nothing outside the window may be touched.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/blocks/internal/byte_shuffle.h"
#include "tests/test_util.h"

namespace gridstore::grid {
namespace {

constexpr char kGuard = '\x5a';

std::string NoisyRaw(size_t size, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string raw(size, '\0');
  for (size_t i = 0; i < size; ++i) raw[i] = static_cast<char>(rng() % 3 == 0 ? rng() : i / 5);
  return raw;
}

// Decodes rows [r0, r1) x columns [c0, c1) of `block` into rows of `pad` guard bytes more than
// the window, and checks the window against `raw` and every guard byte.
void CheckWindow(const std::string& block, DataType type, uint32_t rows, uint32_t cols,
                 const std::string& raw, uint32_t r0, uint32_t r1, uint32_t c0, uint32_t c1,
                 const BlockDictionary* dictionary = nullptr) {
  const size_t es = DataTypeSize(type);
  const size_t run = (c1 - c0) * es, pad = 3 * es + 1;
  const size_t stride = run + pad;
  std::string buf((r1 - r0) * stride, kGuard);
  const RowsTarget target{buf.data(), stride, c0, c1};
  size_t decoded = 0;
  ASSERT_OK(DecodeBlockRowsInto(block, type, rows, cols, r0, r1, target, &decoded, dictionary));
  for (uint32_t r = r0; r < r1; ++r) {
    const std::string got = buf.substr((r - r0) * stride, run);
    ASSERT_EQ(got, raw.substr((size_t{r} * cols + c0) * es, run))
        << "row " << r << " columns " << c0 << ".." << c1;
    ASSERT_EQ(buf.substr((r - r0) * stride + run, pad), std::string(pad, kGuard))
        << "wrote past the window in row " << r;
  }
  const uint32_t frame_rows = ReadBlockHeader(block)->frame_rows;
  EXPECT_EQ(decoded, RowsToDecode(rows, frame_rows, r0, r1) * cols * es);
}

TEST(BlockRowsTargetTest, WindowsOfEveryCodecTypeAndFraming) {
  const std::pair<uint32_t, uint32_t> shapes[] = {{1, 17}, {7, 1}, {13, 37}, {40, 33}};
  uint32_t seed = 7;
  for (DataType type :
       {DataType::kUint8, DataType::kInt16, DataType::kFloat32, DataType::kFloat64}) {
    for (Codec codec : {Codec::kNone, Codec::kZstd, Codec::kShuffleZstd}) {
      for (auto [rows, cols] : shapes) {
        const std::string raw = NoisyRaw(size_t{rows} * cols * DataTypeSize(type), seed++);
        for (uint32_t frame_rows : {0u, 1u, 4u, rows}) {
          SCOPED_TRACE(std::string(DataTypeName(type)) + " " + std::string(CodecName(codec)) + " " +
                       std::to_string(rows) + "x" + std::to_string(cols) + " frame_rows " +
                       std::to_string(frame_rows));
          std::string block;
          ASSERT_OK(EncodeBlock({codec, 3}, type, rows, cols, frame_rows, raw, &block));
          const uint32_t row_cuts[][2] = {
              {0, rows}, {rows / 2, rows}, {0, (rows + 1) / 2}, {rows / 3, rows / 3 + 1}};
          const uint32_t col_cuts[][2] = {
              {0, cols}, {cols / 2, cols}, {0, (cols + 1) / 2}, {cols / 3, cols / 3 + 1}};
          for (const auto& rc : row_cuts) {
            for (const auto& cc : col_cuts) {
              CheckWindow(block, type, rows, cols, raw, rc[0], rc[1], cc[0], cc[1]);
            }
          }
        }
      }
    }
  }
}

TEST(BlockRowsTargetTest, WindowsOfDictionaryFrames) {
  constexpr uint32_t kRows = 64, kCols = 64;
  std::vector<std::string> raws;
  std::vector<RawBlock> training;
  for (int b = 0; b < 24; ++b) {
    std::vector<float> v(kRows * kCols);
    for (uint32_t i = 0; i < v.size(); ++i) {
      v[i] = 270.0f + 10.0f * std::sin(0.01f * static_cast<float>(i + 131 * b));
    }
    raws.emplace_back(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
  }
  for (const auto& raw : raws) training.push_back({kRows, kCols, raw});
  const CodecOptions options{Codec::kShuffleZstd, 3};
  ASSERT_OK_AND_ASSIGN(std::string stored,
                       TrainBlockDictionary(options, DataType::kFloat32, 8, training));
  ASSERT_FALSE(stored.empty());
  ASSERT_OK_AND_ASSIGN(auto dictionary, BlockDictionary::Load(stored));
  std::string block;
  ASSERT_OK(
      EncodeBlock(options, DataType::kFloat32, kRows, kCols, 8, raws[3], &block, dictionary.get()));
  ASSERT_TRUE(BlockNeedsDictionary(block));
  CheckWindow(block, DataType::kFloat32, kRows, kCols, raws[3], 0, kRows, 0, kCols,
              dictionary.get());
  CheckWindow(block, DataType::kFloat32, kRows, kCols, raws[3], 5, 30, 17, 50, dictionary.get());
}

TEST(BlockRowsTargetTest, BadColumnRangeIsInvalidArgument) {
  const std::string raw = NoisyRaw(4 * 3, 1);
  std::string block;
  ASSERT_OK(EncodeBlock({}, DataType::kUint8, 4, 3, 2, raw, &block));
  char buf[16];
  EXPECT_STATUS(DecodeBlockRowsInto(block, DataType::kUint8, 4, 3, 0, 4, {buf, 4, 2, 2}, nullptr),
                kInvalidArgument, "column range [2, 2)");
  EXPECT_STATUS(DecodeBlockRowsInto(block, DataType::kUint8, 4, 3, 0, 4, {buf, 4, 1, 4}, nullptr),
                kInvalidArgument, "3 columns");
}

TEST(BlockRowsTargetTest, UnshuffleElementsIsPartOfUnshuffleBytes) {
  for (size_t es : {2, 4, 8}) {
    const size_t n = 101;
    const std::string raw = NoisyRaw(n * es, static_cast<uint32_t>(es));
    std::string shuffled(raw.size(), '\0'), whole(raw.size(), '\0');
    ShuffleBytes(raw.data(), shuffled.data(), raw.size(), es);
    UnshuffleBytes(shuffled.data(), whole.data(), raw.size(), es);
    ASSERT_EQ(whole, raw);
    for (auto [b, e] : {std::pair<size_t, size_t>{0, n}, {3, 40}, {17, 18}, {50, 101}, {9, 9}}) {
      std::string part((e - b) * es, kGuard);
      UnshuffleElements(shuffled.data(), n, b, e, part.data(), es);
      EXPECT_EQ(part, raw.substr(b * es, (e - b) * es)) << es << " " << b << ".." << e;
    }
  }
}

}  // namespace
}  // namespace gridstore::grid
