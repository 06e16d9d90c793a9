// Copyright 2026 The GridStore Authors.
//
// GridDataWriterImpl: the GridDataWriter that GridStore hands out. Planes are cut into blocks,
// compressed on the store's thread pool and written in batches of about batch_bytes.
#ifndef GRIDSTORE_BLOCKS_INTERNAL_GRID_DATA_WRITER_IMPL_H_
#define GRIDSTORE_BLOCKS_INTERNAL_GRID_DATA_WRITER_IMPL_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "gridstore/blocks/grid_data_writer.h"
#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/blocks/internal/store_context.h"
#include "gridstore/storage/kv_store.h"
#include "gridstore/util/internal/mutex.h"

namespace gridstore::grid {

class GridDataWriterImpl final : public GridDataWriter {
 public:
  // `series_starts_seen`: SeriesFence::Starts of the dataset, read before `meta` was.
  // Publishes the finished meta (Finish): GridStore::UpdateDataSetMeta, or CommitReplacement
  // for a replacement; then makes the store durable.
  using Publish = std::function<Status(const DataSetMeta&)>;
  GridDataWriterImpl(internal_grid::StoreContext* context, std::shared_ptr<const DataSetMeta> meta,
                     const WriteGridOptions& options, uint64_t series_starts_seen,
                     Publish publish = nullptr);
  ~GridDataWriterImpl() override;

  Status WriteGrid2D(std::string_view variable, int64_t t, int64_t z, const Grid2D& plane) override;
  Status SubmitGrid2D(std::string_view variable, int64_t t, int64_t z, Grid2D plane) override;
  Status Flush() override;
  Status Drain() override;
  std::vector<std::string> MissingPlanes(size_t max_lines) const override;
  Status Finish(const FinishOptions& options) override;
  const DataSetMeta& meta() const override { return *meta_; }
  WriteStats stats() const override;

 private:
  struct PlaneJob;

  // Records that `var`'s plane (t, z) was written; FailedPrecondition after Finish.
  Status MarkWritten(const VariableMeta* var, int64_t t, int64_t z);
  Result<const VariableMeta*> CheckPlane(std::string_view variable, int64_t t, int64_t z,
                                         const Grid2D& plane) const;
  // Compresses block `index` of `plane` (variable `var` at t, z) into its key and value.
  // `dictionary` (may be null) is the variable's, from DictionaryFor.
  Status EncodeBlock(const VariableMeta& var, int64_t t, int64_t z, const Grid2D& plane,
                     int64_t index, const BlockDictionary* dictionary, std::string* key,
                     std::string* value) const;
  // The variable's compression dictionary, trained from `plane` if it has none yet; null if the
  // layout does not use one.
  Result<std::shared_ptr<const BlockDictionary>> DictionaryFor(const VariableMeta& var,
                                                               const Grid2D& plane);
  // Encodes blocks [first, last) of a submitted plane into the shared batch.
  void RunBlockTask(const std::shared_ptr<PlaneJob>& job, int64_t first, int64_t last);
  // Writes `batch` in one atomic write, then drops the blocks it replaced from the cache.
  Status WriteBatchAndInvalidate(storage::WriteBatch* batch);

  internal_grid::StoreContext* const context_;
  const std::shared_ptr<const DataSetMeta> meta_;
  const WriteGridOptions options_;
  const uint64_t series_starts_seen_;
  const Publish publish_;

  mutable Mutex mu_;
  CondVar cv_;
  size_t pending_bytes_ GUARDED_BY(mu_) = 0;  // raw bytes of queued, unfinished planes
  int64_t pending_tasks_ GUARDED_BY(mu_) = 0;
  storage::WriteBatch batch_ GUARDED_BY(mu_);  // blocks encoded but not yet written
  Status first_error_ GUARDED_BY(mu_);
  WriteStats stats_ GUARDED_BY(mu_);
  // Per variable (meta order), one flag per plane (t * nz + z): written by this writer.
  std::vector<std::vector<bool>> written_ GUARDED_BY(mu_);
  bool finished_ GUARDED_BY(mu_) = false;
};

}  // namespace gridstore::grid

#endif  // GRIDSTORE_BLOCKS_INTERNAL_GRID_DATA_WRITER_IMPL_H_
