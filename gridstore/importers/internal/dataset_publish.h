// Copyright 2026 The GridStore Authors.
//
// How an import writes a dataset so that it is whole or absent: a new dataset is published at
// once with status INIT (readers can tell an import in progress, or one that died, from a
// complete one); a replacement (overwrite) is written beside the dataset it replaces, which stays
// readable, and takes its place in one atomic switch. Publish marks it DONE with its create_time;
// Discard (on failure) removes what was written: a new dataset is deleted, a replacement dropped.
#ifndef GRIDSTORE_IMPORTERS_INTERNAL_DATASET_PUBLISH_H_
#define GRIDSTORE_IMPORTERS_INTERNAL_DATASET_PUBLISH_H_

#include <memory>

#include "gridstore/grid/grid_store.h"
#include "gridstore/util/result.h"

namespace gridstore::internal_importers {

class DatasetPublisher {
 public:
  // AlreadyExists (naming the dataset and its status) if `meta.id` exists and not `overwrite`.
  static Result<std::unique_ptr<DatasetPublisher>> Begin(grid::GridStore* store,
                                                         grid::DataSetMeta meta, bool overwrite,
                                                         const grid::WriteGridOptions& options);
  // Discards what was written unless Publish succeeded.
  ~DatasetPublisher();

  grid::GridDataWriter* writer() { return writer_.get(); }
  // Flushes the writer and closes it (writer() is null afterwards); on failure discards the
  // dataset and returns the error. Publish calls it; an import of several datasets calls it for
  // each before it publishes any, so that a failed write leaves none of them.
  Status FinishWrites();
  // Flushes the writer, then marks the dataset DONE with create_time (now) and publishes it. On
  // failure, discards it and returns the error.
  Status Publish();
  // The writer's statistics (valid after Publish too).
  const grid::WriteStats& stats() const { return stats_; }
  const grid::DataSetMeta& meta() const { return meta_; }

 private:
  DatasetPublisher(grid::GridStore* store, grid::DataSetMeta meta, bool replace)
      : store_(store), meta_(std::move(meta)), replace_(replace) {}
  void Discard();

  grid::GridStore* store_;
  grid::DataSetMeta meta_;
  const bool replace_;
  std::unique_ptr<grid::GridDataWriter> writer_;
  grid::WriteStats stats_;
  bool done_ = false;
};

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_INTERNAL_DATASET_PUBLISH_H_
