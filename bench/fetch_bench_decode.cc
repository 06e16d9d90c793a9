// Copyright 2026 The GridStore Authors.
//
// zstd's single-core decode speed on a sample of the store's own blocks (ZSTD_decompressDCtx of
// their payloads, and the whole grid::DecodeBlock), which turns the bytes GridStore decoded into
// a lower bound on the time of a fetch on one core.
#include <zstd.h>

#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "bench/fetch_bench.h"
#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/model/internal/grid_keys.h"

namespace gridstore::bench::fetch {
namespace {

constexpr int kSampleBlocks = 256;
constexpr size_t kHeader = 36;  // docs/format.md, "Blocks"

struct Sample {
  std::string block;
  uint32_t rows, cols;
  const grid::BlockDictionary* dictionary;  // the variable's, if its frames use one
};

using Dictionaries = std::map<std::string, std::shared_ptr<const grid::BlockDictionary>>;

// Each variable's dictionary (framed layouts), as the fetcher would use it.
Dictionaries LoadDictionaries(grid::GridStore* store, const DataSet& d,
                              const grid::DataSetMeta& meta) {
  Dictionaries dictionaries;
  for (const std::string& v : d.variables) {
    std::string stored;
    const Status st = grid::KvStoreOf(store)->Get(
        {}, storage::Table::kData, grid::DictionaryKey(d.id, meta.key_incarnation(), v), &stored);
    if (st.IsNotFound()) continue;
    Check(st, "reading the dictionary of " + v);
    dictionaries[v] = CheckResult(grid::BlockDictionary::Load(stored), "dictionary of " + v);
  }
  return dictionaries;
}

// Fills *sample with blocks at pseudo-random addresses and *speed with their raw and stored
// bytes. False (and stops) at a block that is not compressed: there is nothing to measure.
bool SampleBlocks(grid::GridStore* store, const DataSet& d, const grid::DataSetMeta& meta,
                  Dictionaries& dictionaries, uint64_t seed, std::vector<Sample>* sample,
                  DecodeSpeed* speed) {
  const int64_t bx = meta.layout.block_x, by = meta.layout.block_y;
  const int64_t rows = (d.shape[2] + bx - 1) / bx, cols = (d.shape[3] + by - 1) / by;
  Rng rng(seed ^ 0xdec0de);
  for (int i = 0; i < kSampleBlocks; ++i) {
    const std::string& v = d.variables[rng.Below(static_cast<int64_t>(d.variables.size()))];
    const grid::BlockAddress a{d.id,
                               meta.key_incarnation(),
                               v,
                               grid::kPlaneLayout,
                               static_cast<uint32_t>(rng.Below(d.shape[0])),
                               static_cast<uint32_t>(rng.Below(d.shape[1])),
                               static_cast<uint32_t>(rng.Below(rows)),
                               static_cast<uint32_t>(rng.Below(cols))};
    Sample s;
    Check(grid::KvStoreOf(store)->Get({}, storage::Table::kData, grid::DataKey(a), &s.block),
          "reading a sample block");
    const grid::BlockHeader header = CheckResult(grid::ReadBlockHeader(s.block), "sample block");
    if (header.codec == grid::Codec::kNone) return false;
    s.rows = header.rows;
    s.cols = header.cols;
    s.dictionary = header.dictionary ? dictionaries[v].get() : nullptr;
    if (header.dictionary && s.dictionary == nullptr) Die("the dictionary of " + v + " is missing");
    speed->raw_bytes += header.raw_size;
    speed->stored_bytes += s.block.size();
    sample->push_back(std::move(s));
  }
  return true;
}

// The zstd frames of a block: one payload, or (a framed block, format version 2) frame_rows,
// count, size table, then the frames.
std::vector<std::string_view> ZstdUnits(const std::string& block) {
  std::vector<std::string_view> units;
  if (static_cast<uint8_t>(block[2]) != grid::kFramedBlockVersion) {
    units.push_back(std::string_view(block).substr(kHeader));
    return units;
  }
  uint32_t frames;
  std::memcpy(&frames, block.data() + kHeader + 4, 4);
  size_t offset = kHeader + 8 + 4 * size_t{frames};
  for (uint32_t f = 0; f < frames; ++f) {
    uint32_t size;
    std::memcpy(&size, block.data() + kHeader + 8 + 4 * size_t{f}, 4);
    units.push_back(std::string_view(block).substr(offset, size));
    offset += size;
  }
  return units;
}

// Decompresses every frame of the sample with zstd alone; returns the bytes it made.
uint64_t ZstdDecodeAll(const std::vector<Sample>& sample, ZSTD_DCtx* dctx, std::vector<char>& out) {
  uint64_t bytes = 0;
  for (const Sample& s : sample) {
    for (std::string_view u : ZstdUnits(s.block)) {
      const size_t n =
          s.dictionary != nullptr
              ? ZSTD_decompress_usingDDict(
                    dctx, out.data(), out.size(), u.data(), u.size(),
                    static_cast<const ZSTD_DDict*>(s.dictionary->decompression_dictionary()))
              : ZSTD_decompressDCtx(dctx, out.data(), out.size(), u.data(), u.size());
      if (ZSTD_isError(n)) Die(std::string("zstd: ") + ZSTD_getErrorName(n));
      bytes += n;
    }
  }
  return bytes;
}

// grid::DecodeBlock of every block of the sample; returns the bytes it made.
uint64_t DecodeBlockAll(const std::vector<Sample>& sample, std::vector<char>& out) {
  uint64_t bytes = 0;
  for (const Sample& s : sample) {
    Check(grid::DecodeBlock(s.block, grid::DataType::kFloat32, s.rows, s.cols, out.data(),
                            s.dictionary),
          "DecodeBlock");
    bytes += uint64_t{s.rows} * s.cols * 4;
  }
  return bytes;
}

// MB made per CPU second of this thread by `decode` (which returns the bytes it made), repeated
// until at least a second of CPU has gone into it.
template <typename Decode>
double Rate(Decode&& decode) {
  decode();  // warm the caches and the context
  const double start = ThreadCpuSeconds();
  uint64_t bytes = 0;
  do {
    bytes += decode();
  } while (ThreadCpuSeconds() - start < 1.0);
  return static_cast<double>(bytes) / (ThreadCpuSeconds() - start) / 1e6;
}

}  // namespace

DecodeSpeed MeasureDecodeSpeed(grid::GridStore* store, const DataSet& d, uint64_t seed) {
  const grid::DataSetMeta meta = CheckResult(store->GetDataSetMeta(d.id), "meta of " + d.id);
  Dictionaries dictionaries = LoadDictionaries(store, d, meta);
  std::vector<Sample> sample;
  DecodeSpeed speed;
  if (!SampleBlocks(store, d, meta, dictionaries, seed, &sample, &speed)) return speed;
  speed.blocks = static_cast<int>(sample.size());
  std::vector<char> out(static_cast<size_t>(meta.layout.block_x * meta.layout.block_y * 8));
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  speed.zstd_mb_s = Rate([&] { return ZstdDecodeAll(sample, dctx, out); });
  speed.decode_block_mb_s = Rate([&] { return DecodeBlockAll(sample, out); });
  ZSTD_freeDCtx(dctx);
  return speed;
}

}  // namespace gridstore::bench::fetch
