// Copyright 2026 The GridStore Authors.
//
// Reading a variable's planes from its HDF5 chunks in parallel, without netCDF-C: the importing
// thread reads the stored chunks of a group of planes (those sharing one chunk extent along t
// and z) with pread, worker threads inflate, unshuffle and scatter them into planes
// (chunk_decoder.h), and the importing thread hands the planes to the writer. netCDF-C would
// decompress every chunk on the one importing thread, under its lock: on a deflate-compressed
// input that is most of an import's CPU time (docs/benchmarks.md). Chunks never written are read
// through netCDF-C (the fill value, as netCDF-C gives it). Variables that do not qualify
// (hdf5_chunk_index.h) are read by the slab reader (netcdf_slab_reader.h); both give the same
// values, byte for byte.
#ifndef GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_CHUNK_PLANE_READER_H_
#define GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_CHUNK_PLANE_READER_H_

#include <cstddef>
#include <optional>
#include <string>

#include "gridstore/importers/netcdf/internal/cf_mapping.h"
#include "gridstore/importers/netcdf/internal/hdf5_chunk_index.h"
#include "gridstore/importers/netcdf/internal/plane_stream.h"

namespace gridstore::internal_importers {

// A variable read from its chunks: where they are, and the bytes of one group of planes.
struct ChunkPlan {
  ChunkIndex index;
  size_t group_bytes = 0;   // planes of one chunk extent along t and z
  unsigned workers = 1;     // threads inflating chunks
  size_t worker_bytes = 0;  // their chunk buffers
  size_t groups_in_flight = 0;
};

// The chunk plan of `pv` (meta `var`) in the open file `ncid`, for `workers` threads (at least
// 1), or nullopt with *why_not when it
// is read through netCDF-C: HDF5 or libdeflate unavailable, a layout or filter not decoded here
// (ListChunks), dimensions not in (t, z, x, y) order, or fewer than two groups of planes (and
// their stored chunks) fitting in `read_budget` bytes beside the workers' chunk buffers. REQUIRES:
// NetCdfMutex() held.
std::optional<ChunkPlan> PlanChunkRead(int ncid, const std::string& path, const PlannedVariable& pv,
                                       const grid::VariableMeta& var, size_t read_budget,
                                       unsigned workers, std::string* why_not);

// Reads every plane of `var` from the chunks of `plan` and submits them through `st`. Errors
// name the file, the variable and the chunk: DataLoss for a chunk beyond the end of the file, a
// short read or a chunk that does not decode; the writer's errors as they come. Holds
// NetCdfMutex() only to read a chunk never written.
Status WriteVariableFromChunks(const std::string& path, int ncid, const PlannedVariable& pv,
                               const grid::VariableMeta& var, const ChunkPlan& plan,
                               PlaneStream* st);

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_CHUNK_PLANE_READER_H_
