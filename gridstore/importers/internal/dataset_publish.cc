// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/internal/dataset_publish.h"

#include <chrono>
#include <string>

#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_importers {

Result<std::unique_ptr<DatasetPublisher>> DatasetPublisher::Begin(
    grid::GridStore* store, grid::DataSetMeta meta, bool overwrite,
    const grid::WriteGridOptions& options) {
  auto existing = store->GetDataSetMeta(meta.id);
  if (existing.ok() && !overwrite) {
    return Status::AlreadyExists("dataset " + Quote(meta.id) + " already exists (status " +
                                 Quote(existing->status()) + "); use --overwrite to replace it");
  }
  if (!existing.ok() && !existing.status().IsNotFound()) return existing.status();
  const bool replace = existing.ok();
  meta.set_status(grid::kStatusInit);
  std::unique_ptr<DatasetPublisher> p(new DatasetPublisher(store, meta, replace));
  if (replace) {
    GRIDSTORE_ASSIGN_OR_RETURN(p->meta_, store->BeginReplacement(meta));
    auto made = store->GetReplacementWriter(p->meta_, options);
    if (!made.ok()) return made.status();  // the destructor abandons the replacement
    p->writer_ = std::move(made).value();
  } else {
    Status put = store->PutDataSetMeta(meta);
    if (!put.ok()) {
      p->done_ = true;  // nothing of it exists
      return put;
    }
    GRIDSTORE_ASSIGN_OR_RETURN(p->writer_, store->GetDataWriter(meta.id, options));
  }
  return p;
}

DatasetPublisher::~DatasetPublisher() {
  if (!done_) Discard();
}

void DatasetPublisher::Discard() {
  done_ = true;
  writer_.reset();
  if (replace_) {
    store_->AbandonReplacement(meta_).IgnoreError();
  } else {
    store_->DeleteDataSet(meta_.id).IgnoreError();
  }
}

Status DatasetPublisher::FinishWrites() {
  if (writer_ == nullptr) return Status::OK();
  Status flushed = writer_->Flush();
  stats_ = writer_->stats();
  writer_.reset();
  if (!flushed.ok()) Discard();
  return flushed;
}

Status DatasetPublisher::Publish() {
  if (done_) return Status::Aborted("dataset " + Quote(meta_.id) + " was discarded");
  GRIDSTORE_RETURN_IF_ERROR(FinishWrites());
  meta_.set_status(grid::kStatusDone);
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  meta_.attributes[std::string(grid::kCreateTimeAttribute)] = grid::AttributeValue::Int64(
      std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
  Status published = replace_ ? store_->CommitReplacement(meta_) : store_->UpdateDataSetMeta(meta_);
  if (!published.ok()) {
    Discard();
    return published;
  }
  done_ = true;
  return Status::OK();
}

}  // namespace gridstore::internal_importers
