// Copyright 2026 The GridStore Authors.
//
// Handing an import's planes to the GridDataWriter, on the importing thread: precision rounding,
// progress, and the count of plane bytes held (read buffers, the plane in hand, the writer's
// queue) behind ImportSummary::peak_buffered_bytes. Shared by the netCDF-C slab reader and the
// parallel chunk reader. Thread-compatible: only the importing thread touches it.
#ifndef GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_PLANE_STREAM_H_
#define GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_PLANE_STREAM_H_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gridstore/blocks/grid_data_writer.h"
#include "gridstore/importers/netcdf/internal/cf_mapping.h"
#include "gridstore/importers/netcdf/netcdf_importer.h"
#include "gridstore/model/grid.h"

namespace gridstore::internal_importers {

struct PlaneStream {
  grid::GridDataWriter* writer = nullptr;
  const importers::NetCdfImportOptions* options = nullptr;
  importers::ImportProgress progress;
  size_t submitted_bytes = 0;
  size_t held_bytes = 0;  // read-side buffers held now (a slab buffer, decoded chunk groups)
  size_t peak = 0;
  int64_t planes_from_chunks = 0;              // planes read by the parallel chunk reader
  const std::vector<int64_t>* t_of = nullptr;  // the file's t -> the dataset's, if not the same

  size_t Pending() const {
    return submitted_bytes - static_cast<size_t>(writer->stats().raw_bytes);
  }
  // Called when the most is held: a plane in hand besides the read side and the queued planes.
  void Sample(size_t in_hand) { peak = std::max(peak, held_bytes + in_hand + Pending()); }
};

// Rounds `plane` (if the variable keeps fewer bits), hands it to the writer as (t, z) of `var`
// and reports progress. Errors name the file and the variable.
Status SubmitPlane(PlaneStream* st, const PlannedVariable& pv, const grid::VariableMeta& var,
                   int64_t t, int64_t z, grid::Grid2D plane, const std::string& path);

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_PLANE_STREAM_H_
