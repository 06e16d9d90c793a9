// Copyright 2026 The GridStore Authors.
//
// Reading an import's planes from the file in slabs of whole (t, z) planes and handing them to a
// GridDataWriter: slabs are sized for the memory budget and aligned with the file's chunks (each
// chunk decompressed once, with a chunk cache that holds one slab's chunks), so that reading
// (this thread) overlaps compression (the store's pool) within the budget.
#ifndef GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_NETCDF_SLAB_READER_H_
#define GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_NETCDF_SLAB_READER_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gridstore/blocks/grid_data_writer.h"
#include "gridstore/importers/netcdf/internal/cf_mapping.h"
#include "gridstore/importers/netcdf/netcdf_importer.h"
#include "gridstore/util/result.h"

namespace gridstore::internal_importers {

// How one variable is read: slabs of `slab_t` whole times (all z), or, when one time does not
// fit, `slab_z` levels of one time. `chunk_t` is the chunk extent along t (1 if not chunked).
struct SlabShape {
  int64_t slab_t = 1;
  int64_t slab_z = 1;
  int64_t chunk_t = 1;
};

// How the planes of an import are read: slabs of (t, z) planes per variable, sized for the memory
// budget, and what the writer may queue.
struct SlabPlan {
  std::vector<SlabShape> slabs;
  std::vector<std::vector<size_t>> chunk_shapes;
  std::vector<bool> chunked;
  std::vector<int64_t> chunk_z;  // chunk extent along z (1 if not chunked)
  size_t budget = 0;
  bool pipelined = false;
  size_t slab_bytes = 0;
  size_t max_pending = 0;  // WriteGridOptions::max_pending_bytes
  size_t read_budget = 0;  // for the read side: a slab buffer and chunk cache, or chunk groups
};

// What WritePlanes reports: the most plane bytes held at once, and the planes read from their
// chunks in parallel (chunk_plane_reader.h) rather than through netCDF-C.
struct WriteTally {
  size_t peak = 0;
  int64_t planes_from_chunks = 0;
};

// Plans the slabs of `plan`'s variables in the open file `ncid` for a memory budget of
// `budget` bytes. REQUIRES: NetCdfMutex() held.
SlabPlan PlanSlabs(int ncid, const ImportPlan& plan, size_t budget);

// Reads every plane of `plan`'s variables from the open file `ncid` and hands it to `writer`,
// then waits until all are stored. A variable in HDF5 chunks with only deflate and shuffle is
// read from its chunks in parallel (unless options.parallel_inflate is false), any other
// through netCDF-C in slabs; the values are the same. *tally gets the peak of plane bytes held
// and the planes read from chunks. `t_of` (if not null) maps the file's t indices to the
// dataset's (a file of a run of many).
Status WritePlanes(const std::string& path, const importers::NetCdfImportOptions& options,
                   const ImportPlan& plan, int ncid, const SlabPlan& slabs,
                   grid::GridDataWriter* writer, WriteTally* tally,
                   const std::vector<int64_t>* t_of = nullptr);

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_NETCDF_SLAB_READER_H_
