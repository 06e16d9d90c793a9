// Copyright 2026 The GridStore Authors.
#include "gridstore/blocks/grid_data_writer.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <type_traits>
#include <vector>

#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/blocks/internal/block_geometry.h"
#include "gridstore/blocks/internal/grid_data_writer_impl.h"
#include "gridstore/blocks/internal/store_context.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/model/internal/grid_messages.h"
#include "gridstore/util/result.h"

namespace gridstore::grid {

using internal_grid::BlockGeometry;

namespace {
// Raw bytes encoded by one pool task of the submit pipeline: enough work to amortise scheduling,
// little enough that one plane spreads over every core.
constexpr int64_t kTaskRawBytes = 1 << 20;
}  // namespace

struct GridDataWriterImpl::PlaneJob {
  PlaneJob(const VariableMeta* var, int64_t t_in, int64_t z_in, Grid2D p, const BlockLayout& layout)
      : variable(var), t(t_in), z(z_in), plane(std::move(p)), geometry(*var, layout) {}
  const VariableMeta* variable;
  int64_t t;
  int64_t z;
  Grid2D plane;
  BlockGeometry geometry;
  std::shared_ptr<const BlockDictionary> dictionary;
  std::atomic<int64_t> remaining_tasks{0};
};

GridDataWriterImpl::GridDataWriterImpl(internal_grid::StoreContext* context,
                                       std::shared_ptr<const DataSetMeta> meta,
                                       const WriteGridOptions& options, uint64_t series_starts_seen,
                                       Publish publish)
    : context_(context),
      meta_(std::move(meta)),
      options_(options),
      series_starts_seen_(series_starts_seen),
      publish_(std::move(publish)) {
  MutexLock lock(&mu_);
  for (const VariableMeta& v : meta_->variables) {
    written_.emplace_back(size_t(std::max<int64_t>(0, v.shape[kT] * v.shape[kZ])), false);
  }
}

GridDataWriter::~GridDataWriter() = default;
GridDataWriterImpl::~GridDataWriterImpl() { Flush().IgnoreError(); }

Result<const VariableMeta*> GridDataWriterImpl::CheckPlane(std::string_view variable, int64_t t,
                                                           int64_t z, const Grid2D& plane) const {
  const std::string dataset = "dataset '" + EscapeForMessage(meta_->id) + "'";
  if (context_->read_only) {
    return Status::FailedPrecondition("the store is open read-only; cannot write " + dataset);
  }
  const VariableMeta* var = meta_->FindVariable(variable);
  if (var == nullptr) return internal_grid::NoSuchVariable(*meta_, variable);
  const std::string where = dataset + ", variable '" + EscapeForMessage(variable) + "'";
  if (t < 0 || t >= var->shape[kT]) {
    return Status::OutOfRange(where + ": t = " + std::to_string(t) + " is outside [0, " +
                              std::to_string(var->shape[kT]) + ")");
  }
  if (z < 0 || z >= var->shape[kZ]) {
    return Status::OutOfRange(where + ": z = " + std::to_string(z) + " is outside [0, " +
                              std::to_string(var->shape[kZ]) + ")");
  }
  if (meta_->series && t < meta_->series->StepsHeld(var->shape[kT])) {
    // Its series blocks would keep the old values.
    return Status::FailedPrecondition(
        where + ": step t = " + std::to_string(t) + " is held in the series layout (steps 0-" +
        std::to_string(meta_->series->StepsHeld(var->shape[kT]) - 1) +
        "), which writing its planes would leave stale; drop the series layout first "
        "(gridstore relayout ID --drop series)");
  }
  if (plane.type() != var->type) {
    return Status::InvalidArgument(where + ": plane has type " +
                                   std::string(DataTypeName(plane.type())) +
                                   " but the variable is " + std::string(DataTypeName(var->type)));
  }
  if (plane.x() != var->shape[kX] || plane.y() != var->shape[kY]) {
    return Status::InvalidArgument(
        where + ": plane is " + std::to_string(plane.x()) + "x" + std::to_string(plane.y()) +
        " (x by y) but the variable's planes are " + std::to_string(var->shape[kX]) + "x" +
        std::to_string(var->shape[kY]));
  }
  return var;
}

Result<std::shared_ptr<const BlockDictionary>> GridDataWriterImpl::DictionaryFor(
    const VariableMeta& var, const Grid2D& plane) {
  auto dictionary = context_->dictionaries->GetOrTrain(*meta_, var, plane, options_.sync);
  if (!dictionary.ok()) {
    return dictionary.status().WithContext("writing dataset '" + EscapeForMessage(meta_->id) + "'");
  }
  return dictionary;
}

Status GridDataWriterImpl::EncodeBlock(const VariableMeta& var, int64_t t, int64_t z,
                                       const Grid2D& plane, int64_t index,
                                       const BlockDictionary* dictionary, std::string* key,
                                       std::string* value) const {
  const BlockGeometry g(var, meta_->layout);
  const int64_t r = index / g.block_cols, c = index % g.block_cols;
  const int64_t rows = g.rows_of(r), cols = g.cols_of(c);
  const size_t esize = DataTypeSize(var.type);
  // Gather the block's rows into one contiguous buffer, reused per thread.
  thread_local std::string scratch;
  scratch.resize(rows * cols * esize);
  const char* src = plane.bytes() + (g.row_begin(r) * g.y + g.col_begin(c)) * esize;
  for (int64_t i = 0; i < rows; ++i) {
    std::memcpy(scratch.data() + i * cols * esize, src + i * g.y * esize, cols * esize);
  }
  key->clear();
  AppendDataKey(BlockAddress{meta_->id, meta_->key_incarnation(), var.name, kPlaneLayout,
                             static_cast<uint32_t>(t), static_cast<uint32_t>(z),
                             static_cast<uint32_t>(r), static_cast<uint32_t>(c)},
                key);
  return grid::EncodeBlock(
      meta_->layout.codec, var.type, static_cast<uint32_t>(rows), static_cast<uint32_t>(cols),
      static_cast<uint32_t>(meta_->layout.frame_rows), scratch, value, dictionary);
}

Status GridDataWriterImpl::WriteBatchAndInvalidate(storage::WriteBatch* batch) {
  if (batch->empty()) return Status::OK();
  Status s =
      context_->series_fence->WritePlanes(meta_->id, meta_->incarnation, series_starts_seen_, [&] {
        return context_->kv->Write(storage::WriteOptions{.disable_wal = options_.bulk_load},
                                   *batch);
      });
  if (context_->cache->capacity() > 0) {
    // After the write, so that a concurrent fetch cannot re-cache the old block.
    const BlockLayout& layout = meta_->layout;
    const int64_t frames = FrameCount(layout.block_x, layout.frame_rows);
    std::string cache_key;
    for (const auto& op : batch->ops()) {
      for (int64_t f = 0; f < frames; ++f) {
        cache_key.clear();
        internal_grid::AppendCacheKey(meta_->incarnation, op.key, static_cast<uint32_t>(f),
                                      &cache_key);
        context_->cache->Erase(cache_key);
      }
    }
  }
  batch->Clear();
  return s.WithContext("writing dataset '" + EscapeForMessage(meta_->id) + "'");
}

Status GridDataWriterImpl::WriteGrid2D(std::string_view variable, int64_t t, int64_t z,
                                       const Grid2D& plane) {
  GRIDSTORE_ASSIGN_OR_RETURN(const VariableMeta* var, CheckPlane(variable, t, z, plane));
  GRIDSTORE_RETURN_IF_ERROR(MarkWritten(var, t, z));
  GRIDSTORE_ASSIGN_OR_RETURN(auto dictionary, DictionaryFor(*var, plane));
  const int64_t n = BlockGeometry(*var, meta_->layout).num_blocks();
  std::vector<std::string> keys(n), values(n);
  std::vector<Status> statuses(n);
  ParallelFor(context_->pool, n, 0, [&](size_t i) {
    statuses[i] = EncodeBlock(*var, t, z, plane, static_cast<int64_t>(i), dictionary.get(),
                              &keys[i], &values[i]);
  });
  for (const Status& s : statuses) GRIDSTORE_RETURN_IF_ERROR(s);

  storage::WriteBatch batch;
  int64_t stored = 0;
  for (int64_t i = 0; i < n; ++i) {
    stored += values[i].size();
    batch.Put(storage::Table::kData, keys[i], values[i]);
    if (batch.ApproximateSize() >= options_.batch_bytes) {
      GRIDSTORE_RETURN_IF_ERROR(WriteBatchAndInvalidate(&batch));
    }
  }
  GRIDSTORE_RETURN_IF_ERROR(WriteBatchAndInvalidate(&batch));
  if (options_.sync) GRIDSTORE_RETURN_IF_ERROR(context_->kv->Sync());
  MutexLock lock(&mu_);
  stats_.planes += 1;
  stats_.blocks += n;
  stats_.raw_bytes += static_cast<int64_t>(plane.size_bytes());
  stats_.stored_bytes += stored;
  return Status::OK();
}

Status GridDataWriterImpl::SubmitGrid2D(std::string_view variable, int64_t t, int64_t z,
                                        Grid2D plane) {
  GRIDSTORE_ASSIGN_OR_RETURN(const VariableMeta* var, CheckPlane(variable, t, z, plane));
  GRIDSTORE_RETURN_IF_ERROR(MarkWritten(var, t, z));
  GRIDSTORE_ASSIGN_OR_RETURN(auto dictionary, DictionaryFor(*var, plane));
  const size_t bytes = plane.size_bytes();
  auto job = std::make_shared<PlaneJob>(var, t, z, std::move(plane), meta_->layout);
  job->dictionary = std::move(dictionary);
  const int64_t n = job->geometry.num_blocks();
  const int64_t raw_per_block =
      std::max<int64_t>(1, job->geometry.block_x * job->geometry.block_y *
                               static_cast<int64_t>(DataTypeSize(var->type)));
  const int64_t blocks_per_task = std::max<int64_t>(1, kTaskRawBytes / raw_per_block);
  const int64_t tasks = (n + blocks_per_task - 1) / blocks_per_task;
  {
    MutexLock lock(&mu_);
    if (!first_error_.ok()) return first_error_;
    // A plane larger than the whole budget still goes through, alone.
    while (pending_bytes_ != 0 && pending_bytes_ + bytes > options_.max_pending_bytes)
      cv_.Wait(&mu_);
    pending_bytes_ += bytes;
    pending_tasks_ += tasks;
  }
  job->remaining_tasks = tasks;
  for (int64_t first = 0; first < n; first += blocks_per_task) {
    const int64_t last = std::min(n, first + blocks_per_task);
    context_->pool->Schedule([this, job, first, last] { RunBlockTask(job, first, last); });
  }
  return Status::OK();
}

Status GridDataWriterImpl::MarkWritten(const VariableMeta* var, int64_t t, int64_t z) {
  MutexLock lock(&mu_);
  if (finished_) {
    return Status::FailedPrecondition("dataset '" + EscapeForMessage(meta_->id) +
                                      "' is finished: its writer takes no more planes");
  }
  written_[size_t(var - meta_->variables.data())][size_t(t * var->shape[kZ] + z)] = true;
  return Status::OK();
}

namespace {

// "3, 5-7, 9" for sorted indices.
std::string Ranges(const std::vector<int64_t>& v) {
  std::string out;
  for (size_t i = 0; i < v.size();) {
    size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += std::to_string(v[i]);
    if (j > i) out += "-" + std::to_string(v[j]);
    i = j + 1;
  }
  return out;
}

// netCDF's default fill of each type (netcdf.h NC_FILL_*), for a variable without one whose
// unwritten planes must read as missing.
void SetDefaultFill(VariableMeta* v) {
  VisitDataType(v->type, [&](auto tag) {
    using T = decltype(tag);
    T fill;
    if constexpr (std::is_floating_point_v<T>) {
      fill = static_cast<T>(9.9692099683868690e+36);
    } else if constexpr (std::is_signed_v<T>) {
      fill = static_cast<T>(std::numeric_limits<T>::min() + 1);
    } else {
      fill = static_cast<T>(std::numeric_limits<T>::max() - (sizeof(T) == 8 ? 1 : 0));
    }
    v->set_fill_value(fill);
    v->attributes["_FillValue"] =
        std::is_floating_point_v<T>
            ? AttributeValue::Floats(v->type, {static_cast<double>(fill)})
            : AttributeValue::Integers(v->type, {static_cast<int64_t>(fill)});
  });
}

}  // namespace

std::vector<std::string> GridDataWriterImpl::MissingPlanes(size_t max_lines) const {
  std::vector<std::string> lines;
  MutexLock lock(&mu_);
  for (size_t i = 0; i < meta_->variables.size(); ++i) {
    const VariableMeta& v = meta_->variables[i];
    const int64_t nz = v.shape[kZ];
    std::vector<int64_t> steps;  // with a level missing
    for (int64_t t = 0; t < v.shape[kT]; ++t) {
      for (int64_t z = 0; z < nz; ++z) {
        if (!written_[i][size_t(t * nz + z)]) {
          steps.push_back(t);
          break;
        }
      }
    }
    if (steps.empty()) continue;
    if (lines.size() == max_lines) {
      lines.push_back("...");
      break;
    }
    lines.push_back("'" + EscapeForMessage(v.name) + "': " + std::to_string(steps.size()) + " of " +
                    std::to_string(v.shape[kT]) + " step(s) not (wholly) written: t " +
                    Ranges(steps));
  }
  return lines;
}

Status GridDataWriterImpl::Finish(const FinishOptions& options) {
  GRIDSTORE_RETURN_IF_ERROR(Flush());
  if (!publish_) {
    return Status::FailedPrecondition("this writer of dataset '" + EscapeForMessage(meta_->id) +
                                      "' cannot publish it");
  }
  const std::vector<std::string> missing = MissingPlanes(20);
  if (!missing.empty() && !options.allow_missing) {
    std::string text;
    for (const std::string& line : missing) text += (text.empty() ? "" : "; ") + line;
    return Status::FailedPrecondition(
        "dataset '" + EscapeForMessage(meta_->id) + "' is not complete: " + text +
        "; write them, or finish with allow_missing to publish them as fill values");
  }
  DataSetMeta meta = *meta_;
  if (!missing.empty()) {
    MutexLock lock(&mu_);
    for (size_t i = 0; i < meta.variables.size(); ++i) {
      const bool all =
          std::all_of(written_[i].begin(), written_[i].end(), [](bool b) { return b; });
      if (!all && !meta.variables[i].has_fill_value()) SetDefaultFill(&meta.variables[i]);
    }
  }
  for (const auto& [name, value] : options.attributes) meta.attributes[name] = value;
  meta.set_status(kStatusDone);
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  meta.attributes[std::string(kCreateTimeAttribute)] =
      AttributeValue::Int64(std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
  GRIDSTORE_RETURN_IF_ERROR(publish_(meta));
  MutexLock lock(&mu_);
  finished_ = true;
  return Status::OK();
}

void GridDataWriterImpl::RunBlockTask(const std::shared_ptr<PlaneJob>& job, int64_t first,
                                      int64_t last) {
  Status status;
  std::string key, value;
  int64_t stored = 0;
  storage::WriteBatch full;  // a full batch this task took over to write
  for (int64_t i = first; i < last && status.ok(); ++i) {
    status = EncodeBlock(*job->variable, job->t, job->z, job->plane, i, job->dictionary.get(), &key,
                         &value);
    if (!status.ok()) break;
    stored += value.size();
    {
      MutexLock lock(&mu_);
      batch_.Put(storage::Table::kData, key, value);
      if (batch_.ApproximateSize() >= options_.batch_bytes) std::swap(full, batch_);
    }
    // Written outside the lock, so other tasks keep encoding meanwhile.
    if (!full.empty()) status = WriteBatchAndInvalidate(&full);
  }
  const bool plane_done = job->remaining_tasks.fetch_sub(1) == 1;
  if (plane_done) job->plane = Grid2D();  // release the plane's memory now, not at the last ref
  {
    MutexLock lock(&mu_);
    if (!status.ok() && first_error_.ok()) first_error_ = status;
    stats_.blocks += last - first;
    stats_.stored_bytes += stored;
    if (plane_done) {
      stats_.planes += 1;
      stats_.raw_bytes += static_cast<int64_t>(job->geometry.x * job->geometry.y *
                                               DataTypeSize(job->variable->type));
      pending_bytes_ -= job->geometry.x * job->geometry.y * DataTypeSize(job->variable->type);
    }
    --pending_tasks_;
    // Notify under the lock: once it is released, Flush (perhaps in the destructor) may return and
    // destroy cv_, so this task must not touch the writer afterwards.
    cv_.SignalAll();
  }
}

Status GridDataWriterImpl::Drain() {
  storage::WriteBatch rest;
  {
    MutexLock lock(&mu_);
    while (pending_tasks_ != 0) cv_.Wait(&mu_);
    std::swap(rest, batch_);
  }
  Status s = WriteBatchAndInvalidate(&rest);
  MutexLock lock(&mu_);
  if (!s.ok() && first_error_.ok()) first_error_ = s;
  return first_error_;
}

Status GridDataWriterImpl::Flush() {
  Status s = Drain();
  // A bulk load's blocks are in memtables only: flushed to table files, they are durable.
  if (s.ok() && options_.bulk_load) s = context_->kv->Flush();
  if (s.ok() && options_.sync) s = context_->kv->Sync();
  MutexLock lock(&mu_);
  if (!s.ok() && first_error_.ok()) first_error_ = s;
  return first_error_;
}

WriteStats GridDataWriterImpl::stats() const {
  MutexLock lock(&mu_);
  return stats_;
}

}  // namespace gridstore::grid
