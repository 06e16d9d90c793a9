// Copyright 2026 The GridStore Authors.
//
// Where the chunks of a netCDF-4 variable lie in its HDF5 file, for reading them without
// netCDF-C (chunk_plane_reader.h): the variable qualifies when it is chunked and filtered only by
// deflate and shuffle, in a file HDF5 reads through plain file offsets. Listed once, under
// NetCdfMutex(), through the HDF5 netCDF-C itself uses (hdf5_api.h).
#ifndef GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_HDF5_CHUNK_INDEX_H_
#define GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_HDF5_CHUNK_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "gridstore/importers/netcdf/internal/cf_mapping.h"
#include "gridstore/importers/netcdf/internal/chunk_decoder.h"

namespace gridstore::internal_importers {

// One chunk as stored. `size` 0: never written (it reads as the fill value).
struct StoredChunk {
  uint64_t address = 0;  // byte offset in the file
  uint64_t size = 0;
  uint32_t filter_mask = 0;  // bit i: filter i of the pipeline was skipped for this chunk
};

// A variable's chunks: extents per netCDF dimension, and every chunk in row-major order of the
// chunk grid (ceil(dims[i] / chunk[i]) along dimension i).
struct ChunkIndex {
  std::vector<uint64_t> dims;
  std::vector<uint64_t> chunk;
  std::vector<uint64_t> grid;  // chunks along each dimension
  ChunkCoding coding;
  std::vector<StoredChunk> chunks;
};

// Lists the chunks of variable `v` of the netCDF-4 file open as `ncid` (at `path`), or returns
// nullopt with *why_not saying why it must be read through netCDF-C (classic format, contiguous,
// other filters, a type HDF5 would convert, more than `max_chunks` chunks, HDF5 unavailable or
// refusing anything). Never an error: the netCDF-C path reports real trouble with the file.
// REQUIRES: NetCdfMutex() held; LoadNetCdf() succeeded.
std::optional<ChunkIndex> ListChunks(int ncid, const std::string& path, const NcVariable& v,
                                     size_t element_size, size_t max_chunks, std::string* why_not);

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_HDF5_CHUNK_INDEX_H_
