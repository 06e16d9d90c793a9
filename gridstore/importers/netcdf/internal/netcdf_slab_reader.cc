// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/netcdf/internal/netcdf_slab_reader.h"

#include <netcdf.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "gridstore/importers/internal/read_and_work.h"
#include "gridstore/importers/netcdf/internal/chunk_plane_reader.h"
#include "gridstore/importers/netcdf/internal/netcdf_file.h"
#include "gridstore/importers/netcdf/internal/netcdf_util.h"
#include "gridstore/importers/netcdf/internal/plane_stream.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_importers {

using grid::DataSetMeta;
using grid::kT;
using grid::kX;
using grid::kY;
using grid::kZ;

namespace {

// Chunk extents of `var` along t and z (1 for a contiguous or classic variable).
std::pair<int64_t, int64_t> ChunkExtentsTZ(int ncid, const PlannedVariable& pv,
                                           std::vector<size_t>* chunks, bool* chunked) {
  const size_t rank = pv.axes.size();
  chunks->assign(rank, 0);
  int storage = NC_CONTIGUOUS;
  *chunked =
      netcdf::nc_inq_var_chunking(ncid, pv.source->id, &storage, chunks->data()) == NC_NOERR &&
      storage == NC_CHUNKED;
  int64_t ct = 1, cz = 1;
  if (*chunked) {
    for (size_t i = 0; i < rank; ++i) {
      if (pv.axes[i] == kT) ct = static_cast<int64_t>((*chunks)[i]);
      if (pv.axes[i] == kZ) cz = static_cast<int64_t>((*chunks)[i]);
    }
  }
  return {std::max<int64_t>(ct, 1), std::max<int64_t>(cz, 1)};
}

// Slabs line up with chunks: a multiple of the chunk extent, or a divisor of it, so that no slab
// straddles a chunk boundary and each chunk's slabs are read one after another (ForEachSlab).
SlabShape ChooseSlab(const grid::VariableMeta& var, size_t plane_bytes, size_t slab_budget,
                     int64_t ct, int64_t cz) {
  const int64_t planes = std::max<int64_t>(1, static_cast<int64_t>(slab_budget / plane_bytes));
  const int64_t nz = var.shape[kZ], nt = var.shape[kT];
  auto align = [](int64_t n, int64_t chunk) {
    if (n >= chunk) return n - n % chunk;
    while (chunk % n != 0) --n;
    return n;
  };
  SlabShape s;
  s.chunk_t = ct;
  if (nz <= planes) {
    s.slab_z = nz;
    s.slab_t = std::min(align(planes / nz, ct), nt);
  } else {
    s.slab_t = 1;
    s.slab_z = align(planes, cz);
  }
  return s;
}

// Calls fn(t0, nt, z0, nz) for each slab of a variable of `nt` times and `nz` levels. Slabs of
// one time go chunk by chunk: every time of a chunk row along t for one range of levels, then
// the next range, so that a chunk is finished before the next is started.
Status ForEachSlab(int64_t nt, int64_t nz, const SlabShape& slab,
                   const std::function<Status(int64_t, int64_t, int64_t, int64_t)>& fn) {
  if (slab.slab_z >= nz) {
    for (int64_t t0 = 0; t0 < nt; t0 += slab.slab_t) {
      GRIDSTORE_RETURN_IF_ERROR(fn(t0, std::min(slab.slab_t, nt - t0), 0, nz));
    }
    return Status::OK();
  }
  for (int64_t tb = 0; tb < nt; tb += slab.chunk_t) {
    for (int64_t z0 = 0; z0 < nz; z0 += slab.slab_z) {
      for (int64_t t = tb; t < std::min(tb + slab.chunk_t, nt); ++t) {
        GRIDSTORE_RETURN_IF_ERROR(fn(t, 1, z0, std::min(slab.slab_z, nz - z0)));
      }
    }
  }
  return Status::OK();
}

// Gives a chunked variable a chunk cache that holds every chunk one slab touches: slabs follow
// chunk boundaries and order (ChooseSlab, ForEachSlab), so no chunk is decompressed twice.
// At most `cap` bytes. Returns the cache settings to restore once the variable is read, since
// HDF5 keeps a dataset's cached chunks until its cache is changed or the file closed.
struct ChunkCache {
  size_t size = 0, slots = 0;
  float preemption = 0.75f;
};
std::optional<ChunkCache> SetChunkCache(int ncid, const PlannedVariable& pv,
                                        const std::vector<size_t>& chunks, const SlabShape& slab,
                                        size_t element_size, size_t cap) {
  NetCdfLock lock(NetCdfMutex());
  ChunkCache old;
  if (netcdf::nc_get_var_chunk_cache(ncid, pv.source->id, &old.size, &old.slots, &old.preemption) !=
      NC_NOERR) {
    return std::nullopt;
  }
  double chunk_count = 1, chunk_bytes = static_cast<double>(element_size);
  for (size_t i = 0; i < pv.axes.size(); ++i) {
    const double extent = static_cast<double>(std::max<size_t>(chunks[i], 1));
    double span = static_cast<double>(pv.source->dim_lengths[i]);  // x and y: the whole plane
    if (pv.axes[i] == kMemberAxis) span = 1;                       // one member
    if (pv.axes[i] == kT) span = static_cast<double>(slab.slab_t);
    if (pv.axes[i] == kZ) span = static_cast<double>(slab.slab_z);
    chunk_count *= std::ceil(span / extent);
    chunk_bytes *= extent;
  }
  // HDF5 allocates cache space only for chunks it holds, so a generous size costs nothing more.
  const double wanted = std::min(chunk_count * chunk_bytes, static_cast<double>(cap));
  const size_t size = static_cast<size_t>(std::max(wanted, chunk_bytes));
  const size_t slots = std::max<size_t>(1009, static_cast<size_t>(chunk_count) * 4 + 1);
  if (size <= old.size) return std::nullopt;  // the default is large enough
  // A hint: if netCDF refuses it, reading is only slower.
  if (netcdf::nc_set_var_chunk_cache(ncid, pv.source->id, size, slots, 0.75f) != NC_NOERR) {
    return std::nullopt;
  }
  return old;
}

// Reads the hyperslab of planes [t0, t0 + nt) x [z0, z0 + nz) into `dst`.
Status ReadSlab(int ncid, const std::string& path, const PlannedVariable& pv, int64_t t0,
                int64_t nt, int64_t z0, int64_t nz, char* dst) {
  const size_t rank = pv.axes.size();
  std::vector<size_t> start(rank, 0), count(rank);
  for (size_t i = 0; i < rank; ++i) {
    count[i] = pv.source->dim_lengths[i];
    if (pv.axes[i] == kMemberAxis) {  // the member being imported
      start[i] = static_cast<size_t>(pv.member_index);
      count[i] = 1;
    } else if (pv.axes[i] == kT) {
      start[i] = static_cast<size_t>(t0);
      count[i] = static_cast<size_t>(nt);
    } else if (pv.axes[i] == kZ) {
      start[i] = static_cast<size_t>(z0);
      count[i] = static_cast<size_t>(nz);
    }
  }
  int rc;
  {
    NetCdfLock lock(NetCdfMutex());
    rc = netcdf::nc_get_vara(ncid, pv.source->id, start.data(), count.data(), dst);
  }
  if (rc == NC_NOERR) return Status::OK();
  return NcError(rc, path,
                 "variable " + Quote(pv.source->name) + " at t " + std::to_string(t0) +
                     (nt > 1 ? "-" + std::to_string(t0 + nt - 1) : "") + ", z " +
                     std::to_string(z0) + (nz > 1 ? "-" + std::to_string(z0 + nz - 1) : ""));
}

}  // namespace

SlabPlan PlanSlabs(int ncid, const ImportPlan& plan, size_t budget) {
  const grid::DataSetMeta& meta = plan.meta;
  // Budget B: a slab buffer S, the chunk cache (at most S, and only when slabs share chunks),
  // the plane being handed over (at most Pmax) and the writer's queue M, with
  // 2S + Pmax + M <= B and M >= Pmax (the writer always admits one plane). With too small a
  // budget, planes are read and written one at a time.
  size_t max_plane = 0;
  for (const auto& v : meta.variables) {
    max_plane = std::max(
        max_plane, static_cast<size_t>(v.shape[kX] * v.shape[kY]) * grid::DataTypeSize(v.type));
  }
  // A chunk cache, when slabs share chunks, takes at most a slab's size more (WritePlanes): the
  // slab gets a third of the budget, the queue the rest.
  const bool pipelined = budget / 3 >= max_plane;
  const size_t slab_budget = pipelined ? std::min(budget / 3, budget - 2 * max_plane) : 0;

  // Slab shapes: the buffer is sized once for the largest.
  SlabPlan slabs;
  slabs.budget = budget;
  slabs.pipelined = pipelined;
  slabs.max_pending = pipelined ? budget - 2 * slab_budget - max_plane : 0;
  slabs.read_budget = 2 * slab_budget;
  slabs.chunk_shapes.resize(meta.variables.size());
  for (size_t i = 0; i < meta.variables.size(); ++i) {
    const grid::VariableMeta& var = meta.variables[i];
    const size_t es = grid::DataTypeSize(var.type);
    const size_t plane_bytes = static_cast<size_t>(var.shape[kX] * var.shape[kY]) * es;
    bool chunked = false;
    auto [ct, cz] = ChunkExtentsTZ(ncid, plan.variables[i], &slabs.chunk_shapes[i], &chunked);
    slabs.chunked.push_back(chunked);
    slabs.chunk_z.push_back(cz);
    SlabShape slab =
        pipelined ? ChooseSlab(var, plane_bytes, slab_budget, ct, cz) : SlabShape{1, 1, ct};
    if (pipelined) {
      slabs.slab_bytes =
          std::max(slabs.slab_bytes, plane_bytes * static_cast<size_t>(slab.slab_t * slab.slab_z));
    }
    slabs.slabs.push_back(slab);
  }
  return slabs;
}

namespace {

// Reads `var` through netCDF-C in slabs (a slab buffer allocated on first use) and submits its
// planes.
Status WriteVariableBySlabs(const std::string& path, int ncid, const PlannedVariable& pv,
                            const grid::VariableMeta& var, const SlabPlan& slabs, size_t i,
                            std::unique_ptr<char[]>* slab_buffer, PlaneStream* st) {
  const SlabShape& slab = slabs.slabs[i];
  const int64_t nt = var.shape[kT], nz = var.shape[kZ], nx = var.shape[kX], ny = var.shape[kY];
  const size_t plane_bytes = static_cast<size_t>(nx * ny) * grid::DataTypeSize(var.type);
  if (slabs.pipelined && *slab_buffer == nullptr && slabs.slab_bytes > 0) {
    *slab_buffer = std::make_unique_for_overwrite<char[]>(slabs.slab_bytes);
    st->held_bytes += slabs.slab_bytes;  // kept to the end of the import
  }
  std::optional<ChunkCache> restore;
  // A chunk that several slabs share is kept between their reads: a cache of at most the
  // slab's size (counted in the budget: PlanSlabs). Slabs of whole chunks need none beyond the
  // library's default, which a chunk passes through once.
  const bool shared_chunks = (slab.slab_t < slab.chunk_t && slab.slab_t < nt) ||
                             (slab.slab_z < slabs.chunk_z[i] && slab.slab_z < nz);
  if (slabs.chunked[i] && shared_chunks) {
    restore = SetChunkCache(ncid, pv, slabs.chunk_shapes[i], slab, grid::DataTypeSize(var.type),
                            std::max<size_t>(slabs.slab_bytes, plane_bytes));
  }
  Status read = ForEachSlab(nt, nz, slab, [&](int64_t t0, int64_t ts, int64_t z0, int64_t zs) {
    if (!slabs.pipelined) {
      // One plane at a time, read straight into the plane handed over.
      grid::Grid2D plane(var.type, nx, ny);
      GRIDSTORE_RETURN_IF_ERROR(ReadSlab(ncid, path, pv, t0, 1, z0, 1, plane.bytes()));
      GRIDSTORE_RETURN_IF_ERROR(SubmitPlane(st, pv, var, t0, z0, std::move(plane), path));
      return st->writer->Flush().WithContext(Quote(path) + ": variable " + Quote(var.name));
    }
    GRIDSTORE_RETURN_IF_ERROR(ReadSlab(ncid, path, pv, t0, ts, z0, zs, slab_buffer->get()));
    st->Sample(0);
    for (int64_t t = 0; t < ts; ++t) {
      for (int64_t z = 0; z < zs; ++z) {
        grid::Grid2D plane(var.type, nx, ny);
        std::memcpy(plane.bytes(), slab_buffer->get() + (t * zs + z) * plane_bytes, plane_bytes);
        GRIDSTORE_RETURN_IF_ERROR(SubmitPlane(st, pv, var, t0 + t, z0 + z, std::move(plane), path));
      }
    }
    return Status::OK();
  });
  if (restore) {
    NetCdfLock lock(NetCdfMutex());
    netcdf::nc_set_var_chunk_cache(ncid, pv.source->id, restore->size, restore->slots,
                                   restore->preemption);  // frees the chunks held
  }
  return read;
}

// The chunk plan of variable `i` if it is read from its chunks in parallel (chunk_plane_reader.h).
std::optional<ChunkPlan> ChunkPlanFor(const std::string& path, int ncid,
                                      const importers::NetCdfImportOptions& options,
                                      const PlannedVariable& pv, const grid::VariableMeta& var,
                                      const SlabPlan& slabs, size_t i) {
  if (!options.parallel_inflate || !slabs.pipelined || !slabs.chunked[i]) return std::nullopt;
  std::string why_not;  // the netCDF-C path is as correct, only slower: nothing to report
  NetCdfLock lock(NetCdfMutex());
  const unsigned workers = options.inflate_threads > 0
                               ? static_cast<unsigned>(options.inflate_threads)
                               : WorkersPerCore();
  return PlanChunkRead(ncid, path, pv, var, slabs.read_budget, workers, &why_not);
}

}  // namespace

Status WritePlanes(const std::string& path, const importers::NetCdfImportOptions& options,
                   const ImportPlan& plan, int ncid, const SlabPlan& slabs,
                   grid::GridDataWriter* writer, WriteTally* tally,
                   const std::vector<int64_t>* t_of) {
  const DataSetMeta& meta = plan.meta;
  PlaneStream st;
  st.writer = writer;
  st.t_of = t_of;
  st.options = &options;
  for (const auto& v : meta.variables) {
    const int64_t planes = v.shape[kT] * v.shape[kZ];
    st.progress.planes_total += planes;
    st.progress.bytes_total += v.num_elements() * static_cast<int64_t>(grid::DataTypeSize(v.type));
  }
  std::unique_ptr<char[]> slab_buffer;
  for (size_t i = 0; i < meta.variables.size(); ++i) {
    const grid::VariableMeta& var = meta.variables[i];
    const PlannedVariable& pv = plan.variables[i];
    st.progress.variable = var.name;
    Status read;
    if (std::optional<ChunkPlan> chunks = ChunkPlanFor(path, ncid, options, pv, var, slabs, i)) {
      read = WriteVariableFromChunks(path, ncid, pv, var, *chunks, &st);
    } else {
      read = WriteVariableBySlabs(path, ncid, pv, var, slabs, i, &slab_buffer, &st);
    }
    if (!read.ok()) {
      writer->Flush().IgnoreError();  // the first error is the one to report
      return read;
    }
  }
  tally->peak = st.peak;
  tally->planes_from_chunks = st.planes_from_chunks;
  return writer->Flush().WithContext("importing " + Quote(path));
}

}  // namespace gridstore::internal_importers
