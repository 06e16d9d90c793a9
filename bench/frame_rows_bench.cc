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
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/internal/block_codec.h"

namespace {

namespace grid = gridstore::grid;

[[noreturn]] void Die(const std::string& message) {
  std::fprintf(stderr, "frame_rows_bench: %s\n", message.c_str());
  std::exit(1);
}

double ThreadCpu() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t end = s.find(sep, start);
    if (end == std::string::npos) end = s.size();
    if (end > start) out.push_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

struct Block {
  std::string raw;
  uint32_t rows, cols;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    Die("usage: frame_rows_bench STORE DATASET [--frame-rows 0,8,16,32,64] [--block 256x256] "
        "[--codec shuffle-zstd:3] [--planes 12] [--seed 1]");
  }
  const std::string store_path = argv[1], dataset = argv[2];
  std::vector<uint32_t> frame_rows = {0, 8, 16, 32, 64};
  int64_t bx = 256, by = 256, planes_per_var = 12;
  uint64_t seed = 1;
  grid::CodecOptions codec;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    if (i + 1 >= argc) Die(a + " wants a value");
    const std::string v = argv[++i];
    if (a == "--frame-rows") {
      frame_rows.clear();
      for (const auto& f : Split(v, ',')) frame_rows.push_back(std::stoul(f));
    } else if (a == "--block") {
      if (std::sscanf(v.c_str(), "%ldx%ld", &bx, &by) != 2 || bx < 1 || by < 1) {
        Die("bad --block '" + v + "'");
      }
    } else if (a == "--codec") {
      auto c = grid::ParseCodecOptions(v);
      if (!c.ok()) Die(c.status().ToString());
      codec = *c;
    } else if (a == "--planes") {
      planes_per_var = std::stol(v);
    } else if (a == "--seed") {
      seed = std::stoull(v);
    } else {
      Die("unknown option " + a);
    }
  }

  auto store = grid::GridStore::Open(store_path, {.read_only = true});
  if (!store.ok()) Die(store.status().ToString());
  auto fetcher = (*store)->GetDataFetcher(dataset);
  if (!fetcher.ok()) Die(fetcher.status().ToString());
  const grid::DataSetMeta meta = (*fetcher)->meta();

  // Sample planes, cut into blocks (float32 or any type: blocks are bytes here).
  std::vector<Block> blocks;
  grid::DataType type = grid::DataType::kFloat32;
  for (const auto& var : meta.variables) {
    type = var.type;
    const int64_t n = var.shape[grid::kT] * var.shape[grid::kZ];
    const size_t es = grid::DataTypeSize(var.type);
    for (int64_t p = 0; p < std::min(n, planes_per_var); ++p) {
      const int64_t index = p * n / std::min(n, planes_per_var);
      const int64_t t = index / var.shape[grid::kZ], z = index % var.shape[grid::kZ];
      (*fetcher)->SetVariablesToGet({var.name});
      (*fetcher)->SetOriginShape({t, z, 0, 0}, {1, 1, var.shape[grid::kX], var.shape[grid::kY]});
      auto got = (*fetcher)->Fetch();
      if (!got.ok()) Die(got.status().ToString());
      const grid::Grid4D& g = *got->GetVariable(var.name);
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
  }
  uint64_t raw_bytes = 0;
  for (const Block& b : blocks) raw_bytes += b.raw.size();
  std::printf("%zu blocks of up to %ldx%ld, %.1f MB raw, codec %s\n", blocks.size(), bx, by,
              raw_bytes / 1e6, grid::CodecOptionsToString(codec).c_str());
  std::printf("%10s %8s %12s %12s %14s %12s\n", "frame_rows", "ratio", "encode MB/s", "decode MB/s",
              "point bytes", "point us");

  std::vector<std::string> encoded(blocks.size());
  std::vector<char> out(static_cast<size_t>(bx * by) * 8);
  for (uint32_t fr : frame_rows) {
    uint64_t stored = 0;
    double start = ThreadCpu();
    for (size_t i = 0; i < blocks.size(); ++i) {
      const Block& b = blocks[i];
      auto s = grid::EncodeBlock(codec, type, b.rows, b.cols, fr, b.raw, &encoded[i]);
      if (!s.ok()) Die(s.ToString());
      stored += encoded[i].size();
    }
    const double encode_s = ThreadCpu() - start;
    start = ThreadCpu();
    for (size_t i = 0; i < blocks.size(); ++i) {
      auto s = grid::DecodeBlock(encoded[i], type, blocks[i].rows, blocks[i].cols, out.data());
      if (!s.ok()) Die(s.ToString());
    }
    const double decode_s = ThreadCpu() - start;
    // One random row per block, repeated over the sample.
    std::mt19937_64 rng(seed);
    uint64_t point_bytes = 0;
    start = ThreadCpu();
    for (size_t i = 0; i < blocks.size(); ++i) {
      const uint32_t r = static_cast<uint32_t>(rng() % blocks[i].rows);
      size_t decoded = 0;
      auto s = grid::DecodeBlockRows(encoded[i], type, blocks[i].rows, blocks[i].cols, r, r + 1,
                                     out.data(), &decoded);
      if (!s.ok()) Die(s.ToString());
      point_bytes += decoded;
    }
    const double point_s = ThreadCpu() - start;
    std::printf("%10u %8.3f %12.1f %12.1f %14.0f %12.1f\n", fr,
                static_cast<double>(raw_bytes) / stored, raw_bytes / encode_s / 1e6,
                raw_bytes / decode_s / 1e6, static_cast<double>(point_bytes) / blocks.size(),
                point_s / blocks.size() * 1e6);
  }
  return 0;
}
