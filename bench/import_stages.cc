// Copyright 2026 The GridStore Authors.
//
// import_stages: times the stages of `gridstore import` one at a time on one variable of a
// NetCDF file, so that the bound of the import is visible (docs/benchmarks.md):
//   read      netCDF-C reading every (t, z) plane (page cache warm), one plane per call and in
//             the importer's slabs;
//   handover  a fresh buffer per plane filled from the slab by memcpy and freed on another
//             thread, as the importer and the writer do;
//   encode    cutting planes into blocks and grid::EncodeBlock on one thread, split into its parts
//             (row gather, XXH3 checksum, byte shuffle, zstd) for the first codec, and the
//             whole EncodeBlock for each codec; then on N threads;
//   write     the encoded blocks of the first codec, with GridStore's data keys, in 8 MB
//             storage::WriteBatch-es into a fresh RocksDB store through storage::OpenKvStore
//             (WAL on, no sync, as the importer writes), then closing the store.
// The one-thread encode figures are the thread's CPU seconds (robust to other load on the machine);
// the rest are wall seconds beside the process's CPU seconds. Then one JSON line.
//
// Usage: import_stages FILE.nc --variable NAME [--block 256x256]
//            [--codecs shuffle-zstd:3,shuffle-zstd:2,shuffle-zstd:1,shuffle-zstd:-1,zstd:1]
//            [--threads N] [--store DIR]
//            [--slab-planes 32]
#include <netcdf.h>
#include <sys/resource.h>
#include <xxhash.h>
#include <zstd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "bench/bench_common.h"
#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/storage/kv_store.h"
#include "gridstore/storage/kv_store_factory.h"

namespace {

namespace grid = gridstore::grid;
namespace storage = gridstore::storage;
using gridstore::bench::Check;
using gridstore::bench::CheckNc;
using gridstore::bench::Clock;
using gridstore::bench::Die;
using gridstore::bench::ProcessCpuSeconds;
using gridstore::bench::Since;
using gridstore::bench::ThreadCpuSeconds;

// Wall and process CPU seconds since it was made.
struct Span {
  Clock::time_point wall0 = Clock::now();
  double cpu0 = ProcessCpuSeconds();
  double wall() const { return Since(wall0); }
  double cpu() const { return ProcessCpuSeconds() - cpu0; }
};

struct Options {
  std::string file, variable = "thetao", store = "/tmp/gridstore-bench/stages-store";
  int64_t block_x = 256, block_y = 256;
  std::vector<std::string> codecs = {"shuffle-zstd:3", "shuffle-zstd:2", "shuffle-zstd:1",
                                     "shuffle-zstd:-1", "zstd:1"};
  int threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  size_t slab_planes = 32;
};

Options ParseArgs(int argc, char** argv) {
  Options o;
  CLI::App app(
      "Times the stages of `gridstore import` one at a time on one variable of a NetCDF "
      "file: netCDF read, hand-over, block encode, store write.");
  gridstore::bench::SetUpCommandLine(app);
  app.add_option("FILE.nc", o.file, "The NetCDF file")->required();
  app.add_option("--variable", o.variable, "A 4-D float variable of the file");
  gridstore::bench::AddBlockShapeOption(app, "--block", &o.block_x, &o.block_y,
                                        "The blocks to cut the planes into");
  app.add_option("--codecs", o.codecs, "Codecs to encode with; the first is timed in parts")
      ->delimiter(',')
      ->check(gridstore::bench::CodecValidator());
  app.add_option("--threads", o.threads, "Threads of the parallel encode")
      ->check(CLI::Range(1, 1024));
  app.add_option("--store", o.store, "A scratch store to write (deleted before and after)");
  app.add_option("--slab-planes", o.slab_planes, "Planes per read of the importer's slabs")
      ->check(CLI::Range(size_t{1}, size_t{1} << 20));
  gridstore::bench::ParseCommandLine(app, argc, argv);
  return o;
}

// The variable, read as planes of float32 (t, z, x, y; 4 dimensions) .
class Input {
 public:
  Input(const std::string& path, const std::string& name) {
    CheckNc(nc_open(path.c_str(), NC_NOWRITE, &ncid_), "opening '" + path + "'");
    CheckNc(nc_inq_varid(ncid_, name.c_str(), &varid_), "variable '" + name + "'");
    int ndims = 0, dims[NC_MAX_VAR_DIMS];
    nc_type type;
    CheckNc(nc_inq_var(ncid_, varid_, nullptr, &type, &ndims, dims, nullptr), "variable");
    if (ndims != 4 || type != NC_FLOAT) Die("'" + name + "' is not a 4-D float variable");
    for (int i = 0; i < 4; ++i) CheckNc(nc_inq_dimlen(ncid_, dims[i], &shape_[i]), "dimension");
  }
  ~Input() { nc_close(ncid_); }
  size_t nt() const { return shape_[0]; }
  size_t nz() const { return shape_[1]; }
  size_t nx() const { return shape_[2]; }
  size_t ny() const { return shape_[3]; }
  size_t planes() const { return nt() * nz(); }
  size_t plane_bytes() const { return nx() * ny() * sizeof(float); }
  // Reads planes [p, p + n) in (t, z) order into dst; n planes must not cross a time unless they
  // cover whole times.
  void Read(size_t p, size_t n, float* dst) const {
    size_t start[4] = {p / nz(), p % nz(), 0, 0};
    size_t count[4] = {1, n, nx(), ny()};
    if (n > nz()) count[0] = n / nz(), count[1] = nz();
    CheckNc(nc_get_vara_float(ncid_, varid_, start, count, dst), "reading");
  }

 private:
  int ncid_ = -1, varid_ = -1;
  size_t shape_[4] = {};
};

// Block (r, c) of a plane and its extent (edge blocks are smaller).
struct BlockRef {
  int64_t r, c, rows, cols;
};

std::vector<BlockRef> Blocks(int64_t nx, int64_t ny, int64_t bx, int64_t by) {
  std::vector<BlockRef> out;
  for (int64_t r = 0; r * bx < nx; ++r) {
    for (int64_t c = 0; c * by < ny; ++c) {
      out.push_back({r, c, std::min(bx, nx - r * bx), std::min(by, ny - c * by)});
    }
  }
  return out;
}

void Gather(const float* plane, int64_t ny, int64_t bx, int64_t by, const BlockRef& b,
            std::string* out) {
  out->resize(static_cast<size_t>(b.rows * b.cols) * sizeof(float));
  const float* src = plane + b.r * bx * ny + b.c * by;
  for (int64_t i = 0; i < b.rows; ++i) {
    std::memcpy(out->data() + i * b.cols * sizeof(float), src + i * ny, b.cols * sizeof(float));
  }
}

// Plain byte shuffle (the codec's own is SSE2; this one only prices the step roughly).
void Shuffle4(const char* src, char* dst, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    for (size_t b = 0; b < 4; ++b) dst[b * n + i] = src[i * 4 + b];
  }
}

double MB(double bytes) { return bytes / 1e6; }

// The JSON line printed last: {"bench":"import_stages","raw_bytes":N,"key":value,...}.
class JsonLine {
 public:
  explicit JsonLine(size_t raw_bytes)
      : text_("{\"bench\":\"import_stages\",\"raw_bytes\":" + std::to_string(raw_bytes)) {}
  void Add(const std::string& key, double v) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), ",\"%s\":%.4g", key.c_str(), v);
    text_ += buf;
  }
  std::string Close() const { return text_ + "}"; }

 private:
  std::string text_;
};

// What every stage reads: the options, the input, its raw size and its blocks per plane.
struct Stages {
  const Options& o;
  const Input& in;
  size_t planes, plane_bytes;
  double raw;
  std::vector<BlockRef> blocks;
  JsonLine& json;
};

// ---- read ----
void MeasureRead(const Stages& st) {
  const Input& in = st.in;
  std::vector<float> plane(in.nx() * in.ny());
  {
    // Warm: the page cache holds the file (import_bench.sh measures cold reads end to end).
    for (size_t p = 0; p < st.planes; ++p) in.Read(p, 1, plane.data());
    Span s;
    for (size_t p = 0; p < st.planes; ++p) in.Read(p, 1, plane.data());
    std::printf("read     plane by plane           %7.2f s wall %7.2f s cpu %8.1f MB/s\n", s.wall(),
                s.cpu(), MB(st.raw) / s.wall());
    st.json.Add("read_plane_s", s.wall());
    st.json.Add("read_plane_cpu_s", s.cpu());
  }
  size_t slab = std::max<size_t>(1, st.o.slab_planes / in.nz()) * in.nz();
  if (st.o.slab_planes < in.nz()) slab = st.o.slab_planes;
  std::vector<float> buffer(slab * in.nx() * in.ny());
  Span s;
  for (size_t p = 0; p < st.planes; p += slab) {
    in.Read(p, std::min(slab, st.planes - p), buffer.data());
  }
  std::printf("read     slabs of %3zu planes      %7.2f s wall %7.2f s cpu %8.1f MB/s\n", slab,
              s.wall(), s.cpu(), MB(st.raw) / s.wall());
  st.json.Add("read_slab_s", s.wall());
}

// ---- hand-over: what the importer does per plane besides reading and encoding: a fresh
// plane buffer filled by memcpy from the slab buffer, queued (up to the writer's default
// budget of in-flight planes) and freed by another thread once "encoded" ----
void MeasureHandover(const Stages& st) {
  const size_t planes = st.planes, plane_bytes = st.plane_bytes;
  const size_t slab = std::min(planes, std::max<size_t>(1, st.o.slab_planes));
  const size_t in_flight = std::max<size_t>(1, (256u << 20) / plane_bytes);
  std::vector<char> slab_buffer(slab * plane_bytes, 1);
  std::mutex mu;
  std::condition_variable cv;
  std::deque<std::unique_ptr<char[]>> queue;
  bool done = false;
  rusage r0{}, r1{};
  getrusage(RUSAGE_SELF, &r0);
  Span s;
  std::thread consumer([&] {
    for (;;) {
      std::unique_ptr<char[]> plane_buffer;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return queue.size() >= in_flight || done; });
        if (queue.empty()) return;
        plane_buffer = std::move(queue.front());
        queue.pop_front();
      }
      cv.notify_all();
      plane_buffer.reset();  // freed on another thread, as RunBlockTask frees a plane
    }
  });
  for (size_t p = 0; p < planes; ++p) {
    auto fresh = std::make_unique_for_overwrite<char[]>(plane_bytes);
    std::memcpy(fresh.get(), slab_buffer.data() + (p % slab) * plane_bytes, plane_bytes);
    std::unique_lock<std::mutex> lock(mu);
    cv.wait(lock, [&] { return queue.size() <= in_flight; });
    queue.push_back(std::move(fresh));
    cv.notify_all();
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    done = true;
  }
  cv.notify_all();
  consumer.join();
  getrusage(RUSAGE_SELF, &r1);
  std::printf(
      "handover fresh plane + memcpy     %7.2f s wall %7.2f s cpu %8.1f MB/s, %ld minor "
      "page faults (%zu planes in flight, freed by another thread)\n",
      s.wall(), s.cpu(), MB(st.raw) / s.wall(), r1.ru_minflt - r0.ru_minflt, in_flight);
  st.json.Add("handover_s", s.wall());
  st.json.Add("handover_cpu_s", s.cpu());
  st.json.Add("handover_faults", static_cast<double>(r1.ru_minflt - r0.ru_minflt));
}

// Thread CPU seconds of the parts of EncodeBlock, timed one by one on the same bytes.
struct EncodeParts {
  double sum = 0, shuffle = 0, zstd = 0, zstd_bytes = 0;
};

// Times the checksum, the shuffle and zstd of `block` alone, added to *parts.
void TimeEncodeParts(const grid::CodecOptions& codec, const std::string& block, ZSTD_CCtx* cctx,
                     std::string& zout, std::string& shuffled, EncodeParts* parts) {
  const double t1 = ThreadCpuSeconds();
  volatile uint64_t h = XXH3_64bits(block.data(), block.size());
  (void)h;
  const double t2 = ThreadCpuSeconds();
  shuffled.resize(block.size());
  Shuffle4(block.data(), shuffled.data(), block.size() / 4);
  const double t3 = ThreadCpuSeconds();
  const std::string& zin = codec.codec == grid::Codec::kShuffleZstd ? shuffled : block;
  const size_t n = ZSTD_compress2(cctx, zout.data(), zout.size(), zin.data(), zin.size());
  if (ZSTD_isError(n)) Die("zstd failed");
  parts->zstd_bytes += static_cast<double>(n);
  const double t4 = ThreadCpuSeconds();
  parts->sum += t2 - t1;
  parts->shuffle += t3 - t2;
  parts->zstd += t4 - t3;
}

// ---- encode, one thread, with codec `ci`; the first codec is also timed in parts and its
// blocks are kept in *stored with their data keys ----
void MeasureEncode(const Stages& st, size_t ci,
                   std::vector<std::pair<std::string, std::string>>* stored) {
  const Options& o = st.o;
  const Input& in = st.in;
  auto codec = grid::ParseCodecOptions(o.codecs[ci]);
  Check(codec.status(), "--codecs");
  const bool first = ci == 0;
  double t_gather = 0, t_encode = 0, out_bytes = 0;
  EncodeParts parts;
  std::vector<float> plane(in.nx() * in.ny());
  std::string key, block, value, shuffled;
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, codec->level);
  std::string zout(ZSTD_compressBound(o.block_x * o.block_y * sizeof(float)), '\0');
  for (size_t p = 0; p < st.planes; ++p) {
    in.Read(p, 1, plane.data());
    for (const BlockRef& b : st.blocks) {
      const double t0 = ThreadCpuSeconds();
      Gather(plane.data(), static_cast<int64_t>(in.ny()), o.block_x, o.block_y, b, &block);
      t_gather += ThreadCpuSeconds() - t0;
      if (first) TimeEncodeParts(*codec, block, cctx, zout, shuffled, &parts);
      const double t5 = ThreadCpuSeconds();
      Check(grid::EncodeBlock(*codec, grid::DataType::kFloat32, static_cast<uint32_t>(b.rows),
                              static_cast<uint32_t>(b.cols), 0, block, &value),
            "EncodeBlock");
      t_encode += ThreadCpuSeconds() - t5;
      out_bytes += static_cast<double>(value.size());
      if (first) {
        key.clear();
        grid::AppendDataKey({"bench", /*incarnation=*/1, o.variable, grid::kPlaneLayout,
                             static_cast<uint32_t>(p / in.nz()), static_cast<uint32_t>(p % in.nz()),
                             static_cast<uint32_t>(b.r), static_cast<uint32_t>(b.c)},
                            &key);
        stored->emplace_back(key, value);
      }
    }
  }
  ZSTD_freeCCtx(cctx);
  const std::string tag = o.codecs[ci];
  const double raw = st.raw;
  if (first) {
    std::printf(
        "encode   %-15s parts: gather %.2f s, xxh3 %.2f s, shuffle (scalar) %.2f s, "
        "zstd alone %.2f s (%.1f MB/s, ratio %.3f); thread CPU seconds\n",
        tag.c_str(), t_gather, parts.sum, parts.shuffle, parts.zstd, MB(raw) / parts.zstd,
        raw / parts.zstd_bytes);
    st.json.Add("gather_s", t_gather);
    st.json.Add("xxh3_s", parts.sum);
    st.json.Add("shuffle_scalar_s", parts.shuffle);
    st.json.Add("zstd_alone_s", parts.zstd);
  }
  std::printf(
      "encode   %-15s 1 thread  %7.2f cpu-s (EncodeBlock) %8.1f MB/s, ratio %.3f "
      "(%.0f stored bytes)\n",
      tag.c_str(), t_encode, MB(raw) / t_encode, raw / out_bytes, out_bytes);
  st.json.Add("encode1_" + tag + "_s", t_encode);
  st.json.Add("ratio_" + tag, raw / out_bytes);
}

// ---- encode, N threads (one codec: the first), planes already in memory in turn ----
void MeasureParallelEncode(const Stages& st) {
  const Options& o = st.o;
  const Input& in = st.in;
  const auto& blocks = st.blocks;
  auto codec = grid::ParseCodecOptions(o.codecs[0]);
  // Read every plane first (a few at a time would measure reading too).
  const size_t keep = std::min<size_t>(st.planes, 16);
  std::vector<std::vector<float>> held(keep, std::vector<float>(in.nx() * in.ny()));
  for (size_t p = 0; p < keep; ++p) in.Read(p, 1, held[p].data());
  std::atomic<size_t> next{0};
  const size_t jobs = keep * blocks.size();
  Span s;
  std::vector<std::thread> workers;
  for (int w = 0; w < o.threads; ++w) {
    workers.emplace_back([&] {
      std::string blk, val;
      for (size_t j; (j = next.fetch_add(1)) < jobs;) {
        const BlockRef& b = blocks[j % blocks.size()];
        Gather(held[j / blocks.size()].data(), static_cast<int64_t>(in.ny()), o.block_x, o.block_y,
               b, &blk);
        Check(grid::EncodeBlock(*codec, grid::DataType::kFloat32, static_cast<uint32_t>(b.rows),
                                static_cast<uint32_t>(b.cols), 0, blk, &val),
              "EncodeBlock");
      }
    });
  }
  for (auto& w : workers) w.join();
  const double bytes = static_cast<double>(keep * st.plane_bytes);
  std::printf("encode   %-15s %d threads %6.2f s for %zu planes     %8.1f MB/s (cpu %.2f s)\n",
              o.codecs[0].c_str(), o.threads, s.wall(), keep, MB(bytes) / s.wall(), s.cpu());
  st.json.Add("encodeN_MBps", MB(bytes) / s.wall());
}

// ---- write: `stored` into a fresh store in 8 MB batches, then close it ----
void MeasureWrite(const Stages& st,
                  const std::vector<std::pair<std::string, std::string>>& stored) {
  const Options& o = st.o;
  std::error_code ec;
  std::filesystem::remove_all(o.store, ec);
  auto kv = storage::OpenKvStore(o.store, {.create_if_missing = true});
  Check(kv.status(), "opening '" + o.store + "'");
  double stored_bytes = 0;
  for (const auto& kvp : stored) stored_bytes += static_cast<double>(kvp.second.size());
  Span s;
  storage::WriteBatch batch;
  double in_write = 0;
  for (const auto& [k, v] : stored) {
    batch.Put(storage::Table::kData, k, v);
    if (batch.ApproximateSize() >= (8u << 20)) {
      const auto t0 = Clock::now();
      Check((*kv)->Write({}, batch), "Write");
      in_write += Since(t0);
      batch.Clear();
    }
  }
  Check((*kv)->Write({}, batch), "Write");
  const double writes = s.wall(), writes_cpu = s.cpu();
  kv->reset();  // close: waits for RocksDB's background flushes and compactions
  const double total = s.wall();
  uint64_t du = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(o.store)) {
    if (e.is_regular_file()) du += e.file_size();
  }
  std::printf(
      "write    %-15s %7.2f s in Write (%.2f s incl. batching, cpu %.2f s) %8.1f MB/s "
      "of stored bytes = %.1f MB/s of raw; close %.2f s; %.0f bytes on disk\n",
      o.codecs[0].c_str(), in_write, writes, writes_cpu, MB(stored_bytes) / writes,
      MB(st.raw) / writes, total - writes, static_cast<double>(du));
  st.json.Add("write_s", writes);
  st.json.Add("write_cpu_s", writes_cpu);
  st.json.Add("close_s", total - writes);
  st.json.Add("store_bytes", static_cast<double>(du));
  std::filesystem::remove_all(o.store, ec);
}

}  // namespace

int main(int argc, char** argv) {
  const Options o = ParseArgs(argc, argv);
  const Input in(o.file, o.variable);
  const size_t planes = in.planes(), plane_bytes = in.plane_bytes();
  JsonLine json(planes * plane_bytes);
  const Stages st{.o = o,
                  .in = in,
                  .planes = planes,
                  .plane_bytes = plane_bytes,
                  .raw = static_cast<double>(planes * plane_bytes),
                  .blocks = Blocks(static_cast<int64_t>(in.nx()), static_cast<int64_t>(in.ny()),
                                   o.block_x, o.block_y),
                  .json = json};
  std::printf(
      "input: %s, variable %s: %zu x %zu planes of %zu x %zu float32 = %.0f bytes; "
      "%zu blocks of %ldx%ld per plane; %d threads for the parallel encode\n",
      o.file.c_str(), o.variable.c_str(), in.nt(), in.nz(), in.nx(), in.ny(), st.raw,
      st.blocks.size(), o.block_x, o.block_y, o.threads);
  MeasureRead(st);
  MeasureHandover(st);
  std::vector<std::pair<std::string, std::string>> stored;  // blocks of the first codec
  for (size_t ci = 0; ci < o.codecs.size(); ++ci) MeasureEncode(st, ci, &stored);
  MeasureParallelEncode(st);
  MeasureWrite(st, stored);
  std::printf("%s\n", json.Close().c_str());
  return 0;
}
