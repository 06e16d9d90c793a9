// Copyright 2026 The GridStore Authors.
//
// GridDataWriter writes planes of one dataset: each (x, y) plane of a variable at (t, z) is cut
// into the dataset's blocks, compressed in parallel on the store's thread pool, and written in
// batches. Two paths:
//   - WriteGrid2D: one plane, stored when the call returns.
//   - SubmitGrid2D + Flush: a pipeline for bulk import. Submit hands a plane over and returns
//     while it is compressed and written in the background, so the caller can read the next one;
//     memory stays bounded by `max_pending_bytes`.
// Writes are durable (in the store's write-ahead log) once WriteGrid2D / Flush return OK
// (WriteGridOptions::bulk_load: once Flush returns OK).
//
// Thread safety: WriteGrid2D may be called from many threads at once. SubmitGrid2D and Flush may
// be called from many threads too, but never from a task running on the store's thread pool.
#ifndef GRIDSTORE_BLOCKS_GRID_DATA_WRITER_H_
#define GRIDSTORE_BLOCKS_GRID_DATA_WRITER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/model/codec_options.h"
#include "gridstore/model/grid.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/status.h"

namespace gridstore::grid {

struct WriteGridOptions {
  // Raw bytes of submitted planes not yet stored. SubmitGrid2D waits while more are in flight, so
  // memory stays near this bound whatever the input size.
  size_t max_pending_bytes = 256ull << 20;
  // Target size of one write batch; larger batches amortise the engine's per-write cost.
  size_t batch_bytes = 8ull << 20;
  // Make the data durable on stable storage (fsync) at Flush and after WriteGrid2D. If false it is
  // still in the write-ahead log, which survives a process crash.
  bool sync = false;
  // A bulk load: the blocks skip the store's write-ahead log (writing every block once instead
  // of twice: about a tenth of an import's CPU), and Flush makes them durable by flushing the
  // store's tables instead. Until Flush returns, a crash may lose any of them: only for data
  // whose completion a later meta write records (importers mark a dataset DONE after Flush).
  bool bulk_load = false;
};

// What a writer has stored so far.
struct WriteStats {
  int64_t planes = 0;
  int64_t blocks = 0;
  int64_t raw_bytes = 0;
  int64_t stored_bytes = 0;
};

// How GridDataWriter::Finish publishes a dataset.
struct FinishOptions {
  // Set on the dataset as it is published (they win over its own).
  Attributes attributes;
  // Publish even if some planes were never written. They then read as the variable's fill value
  // (a variable without one gets netCDF's default fill of its type, and `_FillValue` says so).
  bool allow_missing = false;
};

class GridDataWriter {
 public:
  // Waits for submitted planes to be written (their errors are dropped: call Flush to see them).
  virtual ~GridDataWriter();

  GridDataWriter(const GridDataWriter&) = delete;
  GridDataWriter& operator=(const GridDataWriter&) = delete;

  // Stores `plane` as `variable` at (t, z), replacing what was there. InvalidArgument if the
  // variable does not exist, OutOfRange if t or z is outside its shape, InvalidArgument if the
  // plane's type or (x, y) shape differs from the variable's; each message names the dataset,
  // variable and bound. Errors of the store pass through.
  virtual Status WriteGrid2D(std::string_view variable, int64_t t, int64_t z,
                             const Grid2D& plane) = 0;

  // Validates as WriteGrid2D, then queues `plane` for compression and writing and returns. Blocks
  // while more than max_pending_bytes are in flight. An error of an earlier plane is returned by
  // the next SubmitGrid2D or Flush (and the plane is then not queued). Blocks are written in no
  // particular order: submitting the same (variable, t, z) twice without a Flush in between leaves
  // either plane's blocks.
  virtual Status SubmitGrid2D(std::string_view variable, int64_t t, int64_t z, Grid2D plane) = 0;

  // Waits until every submitted plane is stored, then returns the first error any of them met.
  virtual Status Flush() = 0;
  // As Flush, but a bulk load's blocks stay in the store's memtables (not yet durable): for an
  // importer writing several datasets at once (an ensemble's members), whose last writer's Flush
  // then makes all of them durable in one table flush instead of one each.
  virtual Status Drain() = 0;

  // The planes of the dataset this writer has not written, one line per variable that has some
  // ("'t2m': 3 of 24 steps x 1 level: t 5, 7-8"), at most `max_lines` lines. Empty if complete.
  virtual std::vector<std::string> MissingPlanes(size_t max_lines = 20) const = 0;

  // Flushes, then publishes the dataset: status DONE, create_time, options.attributes (for a
  // replacement writer, readers switch to it in one step) and makes it durable. Unless
  // options.allow_missing, FailedPrecondition naming the variables and steps never written
  // (MissingPlanes) if any plane was not, and nothing is published. After an OK Finish, writes
  // are FailedPrecondition. Errors of the store pass through.
  virtual Status Finish(const FinishOptions& options = {}) = 0;

  virtual const DataSetMeta& meta() const = 0;
  virtual WriteStats stats() const = 0;

 protected:
  GridDataWriter() = default;
};

}  // namespace gridstore::grid

#endif  // GRIDSTORE_BLOCKS_GRID_DATA_WRITER_H_
