// Copyright 2026 The GridStore Authors.
//
// frame_rows_bench: what framing blocks costs and buys on real data, to choose the import default
// of BlockLayout::frame_rows. Reads sample planes of a dataset from a store (any layout), cuts them
// into blocks of the given shape, and for each frame_rows encodes every block
// (grid::EncodeBlock, codec as given) and reports, on one thread:
//   ratio          raw bytes / stored bytes (headers and frame tables included)
//   encode MB/s    raw MB encoded per CPU second
//   decode MB/s    raw MB per CPU second of whole-block grid::DecodeBlock
//   point          raw bytes decompressed and CPU microseconds to read one row of a block
//                  (grid::DecodeBlockRows of a random row: one frame, or the whole unframed block)
//
// Usage: frame_rows_bench STORE DATASET [--frame-rows 0,8,16,32,64] [--block 256x256]
//            [--codec shuffle-zstd:3] [--planes 12] [--seed 1]
// Planes are spread evenly over every variable's (t, z) planes.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_common.h"
#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/grid/grid_store.h"

namespace {

namespace grid = gridstore::grid;
using gridstore::bench::Check;
using gridstore::bench::CheckResult;
using gridstore::bench::ThreadCpuSeconds;

struct Options {
  std::string store, dataset;
  std::vector<uint32_t> frame_rows = {0, 8, 16, 32, 64};
  int64_t block_x = 256, block_y = 256;
  std::string codec = "shuffle-zstd:3";
  int64_t planes = 12;  // per variable
  uint64_t seed = 1;
};

Options ParseArgs(int argc, char** argv) {
  Options o;
  CLI::App app(
      "What framing blocks (BlockLayout::frame_rows) costs and buys on a store's own "
      "data: ratio, encode and decode speed, and the cost of reading one row.");
  gridstore::bench::SetUpCommandLine(app);
  app.add_option("STORE", o.store, "The store to sample")->required();
  app.add_option("DATASET", o.dataset, "The dataset to sample")->required();
  app.add_option("--frame-rows", o.frame_rows, "The frame_rows to compare (0: unframed)")
      ->delimiter(',')
      ->check(CLI::Range(uint32_t{0}, uint32_t{1} << 20));
  gridstore::bench::AddBlockShapeOption(app, "--block", &o.block_x, &o.block_y,
                                        "The blocks to cut the planes into");
  app.add_option("--codec", o.codec, "The codec to encode with")
      ->check(gridstore::bench::CodecValidator());
  app.add_option("--planes", o.planes, "Sample planes per variable")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
  app.add_option("--seed", o.seed, "Seed of the rows read");
  gridstore::bench::ParseCommandLine(app, argc, argv);
  return o;
}

struct Block {
  std::string raw;
  uint32_t rows, cols;
};

// Cuts plane `g` of `var` into blocks of bx x by, appended to `blocks`.
void CutIntoBlocks(const grid::VariableMeta& var, const grid::Grid4D& g, int64_t bx, int64_t by,
                   std::vector<Block>& blocks) {
  const size_t es = grid::DataTypeSize(var.type);
  const int64_t X = var.shape[grid::kX], Y = var.shape[grid::kY];
  for (int64_t x0 = 0; x0 < X; x0 += bx) {
    for (int64_t y0 = 0; y0 < Y; y0 += by) {
      Block b;
      b.rows = static_cast<uint32_t>(std::min(bx, X - x0));
      b.cols = static_cast<uint32_t>(std::min(by, Y - y0));
      for (int64_t x = x0; x < x0 + b.rows; ++x) {
        b.raw.append(g.bytes() + (x * Y + y0) * es, b.cols * es);
      }
      blocks.push_back(std::move(b));
    }
  }
}

// Sample planes, cut into blocks (float32 or any type: blocks are bytes here); *type is the type
// of the last variable.
std::vector<Block> SampleBlocks(const Options& o, grid::DataType* type) {
  auto store =
      CheckResult(grid::GridStore::Open(o.store, {.read_only = true}), "opening " + o.store);
  auto fetcher = CheckResult(store->GetDataFetcher(o.dataset), "dataset " + o.dataset);
  const grid::DataSetMeta meta = fetcher->meta();
  std::vector<Block> blocks;
  for (const auto& var : meta.variables) {
    *type = var.type;
    const int64_t n = var.shape[grid::kT] * var.shape[grid::kZ];
    for (int64_t p = 0; p < std::min(n, o.planes); ++p) {
      const int64_t index = p * n / std::min(n, o.planes);
      const int64_t t = index / var.shape[grid::kZ], z = index % var.shape[grid::kZ];
      fetcher->SetVariablesToGet({var.name});
      fetcher->SetOriginShape({t, z, 0, 0}, {1, 1, var.shape[grid::kX], var.shape[grid::kY]});
      const grid::GridDataSet got = CheckResult(fetcher->Fetch(), "fetching " + var.name);
      CutIntoBlocks(var, *got.GetVariable(var.name), o.block_x, o.block_y, blocks);
    }
  }
  return blocks;
}

// Encodes, decodes and reads one random row of every block with `fr` frame rows; prints its row.
void MeasureFrameRows(const Options& o, const grid::CodecOptions& codec, grid::DataType type,
                      const std::vector<Block>& blocks, uint64_t raw_bytes, uint32_t fr,
                      std::vector<std::string>& encoded, std::vector<char>& out) {
  uint64_t stored = 0;
  double start = ThreadCpuSeconds();
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Block& b = blocks[i];
    Check(grid::EncodeBlock(codec, type, b.rows, b.cols, fr, b.raw, &encoded[i]), "EncodeBlock");
    stored += encoded[i].size();
  }
  const double encode_s = ThreadCpuSeconds() - start;
  start = ThreadCpuSeconds();
  for (size_t i = 0; i < blocks.size(); ++i) {
    Check(grid::DecodeBlock(encoded[i], type, blocks[i].rows, blocks[i].cols, out.data()),
          "DecodeBlock");
  }
  const double decode_s = ThreadCpuSeconds() - start;
  // One random row per block, repeated over the sample.
  std::mt19937_64 rng(o.seed);
  uint64_t point_bytes = 0;
  start = ThreadCpuSeconds();
  for (size_t i = 0; i < blocks.size(); ++i) {
    const uint32_t r = static_cast<uint32_t>(rng() % blocks[i].rows);
    size_t decoded = 0;
    Check(grid::DecodeBlockRows(encoded[i], type, blocks[i].rows, blocks[i].cols, r, r + 1,
                                out.data(), &decoded),
          "DecodeBlockRows");
    point_bytes += decoded;
  }
  const double point_s = ThreadCpuSeconds() - start;
  std::printf("%10u %8.3f %12.1f %12.1f %14.0f %12.1f\n", fr,
              static_cast<double>(raw_bytes) / stored, raw_bytes / encode_s / 1e6,
              raw_bytes / decode_s / 1e6, static_cast<double>(point_bytes) / blocks.size(),
              point_s / blocks.size() * 1e6);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = ParseArgs(argc, argv);
  const int64_t bx = o.block_x, by = o.block_y;
  const grid::CodecOptions codec = CheckResult(grid::ParseCodecOptions(o.codec), "--codec");
  grid::DataType type = grid::DataType::kFloat32;
  const std::vector<Block> blocks = SampleBlocks(o, &type);
  uint64_t raw_bytes = 0;
  for (const Block& b : blocks) raw_bytes += b.raw.size();
  std::printf("%zu blocks of up to %ldx%ld, %.1f MB raw, codec %s\n", blocks.size(), bx, by,
              raw_bytes / 1e6, grid::CodecOptionsToString(codec).c_str());
  std::printf("%10s %8s %12s %12s %14s %12s\n", "frame_rows", "ratio", "encode MB/s", "decode MB/s",
              "point bytes", "point us");

  std::vector<std::string> encoded(blocks.size());
  std::vector<char> out(static_cast<size_t>(bx * by) * 8);
  for (uint32_t fr : o.frame_rows) {
    MeasureFrameRows(o, codec, type, blocks, raw_bytes, fr, encoded, out);
  }
  return 0;
}
