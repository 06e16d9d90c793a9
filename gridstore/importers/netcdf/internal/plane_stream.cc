// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/netcdf/internal/plane_stream.h"

#include <utility>

#include "gridstore/importers/netcdf/internal/import_precision.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_importers {

Status SubmitPlane(PlaneStream* st, const PlannedVariable& pv, const grid::VariableMeta& var,
                   int64_t t, int64_t z, grid::Grid2D plane, const std::string& path) {
  const size_t bytes = plane.size_bytes();
  // On the reading thread: BitRound costs a few ns a value, Granular BitRound about 50 (a
  // logarithm each; docs/design/import.md).
  if (pv.precision) QuantizePlane(*pv.precision, var, &plane);
  st->Sample(bytes);
  Status s = st->writer->SubmitGrid2D(var.name, st->t_of ? (*st->t_of)[size_t(t)] : t, z,
                                      std::move(plane));
  if (!s.ok()) return s.WithContext(Quote(path) + ": variable " + Quote(var.name));
  st->submitted_bytes += bytes;
  st->progress.planes_done += 1;
  st->progress.bytes_done += static_cast<int64_t>(bytes);
  if (st->options->on_progress) st->options->on_progress(st->progress);
  return Status::OK();
}

}  // namespace gridstore::internal_importers
