// Copyright 2026 The GridStore Authors.
#include "gridstore/blocks/grid_data_fetcher.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <mutex>
#include <set>
#include <span>
#include <tuple>
#include <utility>

#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/blocks/internal/block_geometry.h"
#include "gridstore/blocks/internal/fetch_planner.h"
#include "gridstore/blocks/internal/grid_data_fetcher_impl.h"
#include "gridstore/blocks/internal/plane_fetch.h"
#include "gridstore/blocks/internal/series_fetch.h"
#include "gridstore/blocks/internal/store_context.h"
#include "gridstore/blocks/internal/unpack.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/model/internal/grid_messages.h"
#include "gridstore/util/internal/mutex.h"
#include "gridstore/util/internal/strings.h"
#include "gridstore/util/internal/thread_pool.h"

namespace gridstore::internal_grid {

using grid::AxisName;
using grid::BlockLayoutToString;
using grid::Box;
using grid::DataSetMeta;
using grid::DataTypeSize;
using grid::DecodeMetaStamp;
using grid::FetchOptions;
using grid::FetchPlan;
using grid::FetchRequest;
using grid::FetchStats;
using grid::Grid4D;
using grid::GridDataSet;
using grid::kRank;
using grid::kStatusDone;
using grid::kStatusIngesting;
using grid::kT;
using grid::kX;
using grid::kY;
using grid::kZ;
using grid::MetaKey;
using grid::MetaStampKey;
using grid::SeriesLayoutToString;
using grid::Shape4;
using grid::VariableMeta;

namespace {}  // namespace

Result<std::vector<const VariableMeta*>> GridDataFetcherImpl::ResolveVariables(
    const FetchRequest& request) const {
  std::vector<const VariableMeta*> vars;
  if (meta_->variables.empty()) {
    return Status::InvalidArgument("dataset '" + EscapeForMessage(meta_->id) +
                                   "' has no variables (a catalogue entry without data)");
  }
  if (request.variables.empty()) {
    for (const auto& v : meta_->variables) vars.push_back(&v);
    return vars;
  }
  std::set<std::string_view> seen;
  for (const auto& name : request.variables) {
    const VariableMeta* var = meta_->FindVariable(name);
    if (var == nullptr) return internal_grid::NoSuchVariable(*meta_, name);
    if (!seen.insert(name).second) {
      return Status::InvalidArgument("variable '" + EscapeForMessage(name) +
                                     "' is requested twice");
    }
    vars.push_back(var);
  }
  return vars;
}

Status GridDataFetcherImpl::CheckBox(const VariableMeta& var, const Shape4& origin,
                                     const Shape4& shape) const {
  for (int axis = 0; axis < kRank; ++axis) {
    std::string where =
        "variable '" + EscapeForMessage(var.name) + "', axis " + std::string(AxisName(axis));
    if (!var.dimension_names[axis].empty()) {
      where += " (" + EscapeForMessage(var.dimension_names[axis]) + ")";
    }
    if (origin[axis] < 0) {
      return Status::InvalidArgument(where + ": origin " + std::to_string(origin[axis]) +
                                     " is negative");
    }
    if (shape[axis] < 1) {
      return Status::InvalidArgument(where + ": shape " + std::to_string(shape[axis]) +
                                     " must be at least 1");
    }
    const int64_t extent = var.shape[axis];
    if (origin[axis] >= extent || shape[axis] > extent - origin[axis]) {
      return Status::OutOfRange(where + ": origin " + std::to_string(origin[axis]) + " + shape " +
                                std::to_string(shape[axis]) + " exceeds the extent " +
                                std::to_string(extent));
    }
  }
  return Status::OK();
}

Result<FetchPlan> GridDataFetcherImpl::Explain(const FetchRequest& request) const {
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<const VariableMeta*> vars, ResolveVariables(request));
  GRIDSTORE_RETURN_IF_ERROR(internal_grid::CheckForcedLayout(*meta_, request.options.layout));
  FetchPlan plan;
  plan.layout = "plane blocks " + BlockLayoutToString(meta_->layout);
  if (meta_->series) {
    plan.layout += "; series blocks " + SeriesLayoutToString(*meta_->series) +
                   (meta_->series->ready ? "" : " (being written: not read yet)");
  }
  for (const VariableMeta* var : vars) {
    FetchPlan::Variable v;
    v.name = var->name;
    v.type = var->type;
    v.shape = var->shape;
    if (request.box)
      std::tie(v.origin, v.shape) = std::tie(request.box->origin, request.box->shape);
    GRIDSTORE_RETURN_IF_ERROR(CheckBox(*var, v.origin, v.shape));
    const internal_grid::LayoutChoice choice =
        internal_grid::ChooseLayout(*meta_, *var, {Box{v.origin, v.shape}}, request.options.layout);
    v.plane_blocks = choice.plane.blocks;
    v.plane_bytes_to_decode = choice.plane.bytes_to_decode;
    if (choice.series) {
      v.series_blocks = choice.series->blocks;
      v.series_bytes_to_decode = choice.series->bytes_to_decode;
    }
    v.layout = choice.use_series ? "series" : "plane";
    const internal_grid::LayoutCost& chosen = choice.use_series ? *choice.series : choice.plane;
    v.blocks = chosen.blocks;
    v.bytes_to_decode = chosen.bytes_to_decode;
    const int64_t es = static_cast<int64_t>(DataTypeSize(var->type));
    v.bytes_returned = v.shape[kT] * v.shape[kZ] * v.shape[kX] * v.shape[kY] * es;
    plan.blocks += v.blocks;
    plan.bytes_to_decode += v.bytes_to_decode;
    plan.bytes_returned += v.bytes_returned;
    plan.variables.push_back(std::move(v));
  }
  return plan;
}

Status GridDataFetcherImpl::CheckComplete(const FetchRequest& request,
                                          const std::vector<const VariableMeta*>& vars,
                                          const std::vector<Box>* boxes) const {
  if (request.options.allow_incomplete) return Status::OK();
  const std::string status = meta_->status();
  if (status == kStatusDone) return Status::OK();
  const std::string dataset = "dataset '" + EscapeForMessage(meta_->id) + "'";
  if (status == kStatusIngesting) {
    // A run still arriving: its complete steps read as any data, the others are refused.
    for (const VariableMeta* var : vars) {
      const size_t n = boxes != nullptr ? boxes->size() : 1;
      for (size_t b = 0; b < n; ++b) {
        const int64_t begin = boxes != nullptr ? (*boxes)[b].origin[kT] : 0;
        const int64_t end = boxes != nullptr ? begin + (*boxes)[b].shape[kT] : var->shape[kT];
        const int64_t missing =
            var->complete_steps.FirstMissing(begin, std::min(end, var->shape[kT]));
        if (missing >= std::min(end, var->shape[kT])) continue;
        return Status::FailedPrecondition(
            dataset + " is still being ingested: step " + std::to_string(missing) +
            " (t index) of variable '" + EscapeForMessage(var->name) +
            "' is not written yet (complete steps: " + var->complete_steps.ToString() + " of " +
            std::to_string(var->shape[kT]) +
            "). Read complete steps only, wait for the step, or allow incomplete data to read "
            "it as fill values");
      }
    }
    return Status::OK();
  }
  return Status::FailedPrecondition(
      dataset + " is not complete (status " +
      (status.empty() ? std::string("unset") : "'" + EscapeForMessage(status) + "'") +
      ", not 'DONE': an import in progress or one that failed); its unwritten blocks would read "
      "as fill values. Allow incomplete data to read it anyway");
}

Status GridDataFetcherImpl::CheckStillCurrent() const {
  const std::string dataset = "dataset '" + EscapeForMessage(meta_->id) + "'";
  std::string value;
  Status s = context_->kv->Get(storage::ReadOptions{}, storage::Table::kMeta,
                               MetaStampKey(meta_->id), &value);
  uint64_t incarnation = 0, generation = 0;
  if (s.ok()) {
    if (!DecodeMetaStamp(value, &incarnation, &generation)) {
      return Status::DataLoss("the meta stamp of " + dataset + " is malformed");
    }
  } else if (s.IsNotFound()) {
    // No stamp: a meta written before stamps existed, or no meta at all.
    s = context_->kv->Get(storage::ReadOptions{}, storage::Table::kMeta, MetaKey(meta_->id),
                          &value);
    if (s.IsNotFound()) {
      return Status::NotFound(dataset + " was deleted while it was being read");
    }
    GRIDSTORE_RETURN_IF_ERROR(s);
    GRIDSTORE_ASSIGN_OR_RETURN(DataSetMeta stored, DataSetMeta::Decode(value));
    incarnation = stored.incarnation;
  } else {
    return s.WithContext("checking that " + dataset + " is unchanged");
  }
  if (incarnation != meta_->incarnation) {
    return Status::Aborted(dataset +
                           " was replaced while it was being read (deleted and "
                           "written again, or imported with --overwrite); fetch again");
  }
  return Status::OK();
}

Result<GridDataSet> GridDataFetcherImpl::Fetch(const FetchRequest& request) const {
  if (!request.box) {
    GRIDSTORE_ASSIGN_OR_RETURN(std::vector<GridDataSet> results, FetchImpl(request, nullptr));
    return std::move(results[0]);
  }
  const std::vector<Box> boxes = {*request.box};
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<GridDataSet> results, FetchImpl(request, &boxes));
  return std::move(results[0]);
}

Result<std::vector<GridDataSet>> GridDataFetcherImpl::FetchBoxes(
    const FetchRequest& request, const std::vector<Box>& boxes) const {
  if (boxes.empty()) return std::vector<GridDataSet>{};
  return FetchImpl(request, &boxes);
}

Result<std::vector<Box>> GridDataFetcherImpl::BoxesOf(const VariableMeta& var,
                                                      const std::vector<Box>* boxes) const {
  if (boxes == nullptr) {
    return std::vector<Box>{Box{{0, 0, 0, 0}, var.shape}};
  }
  for (const Box& box : *boxes) GRIDSTORE_RETURN_IF_ERROR(CheckBox(var, box.origin, box.shape));
  return *boxes;
}

Result<std::vector<GridDataSet>> GridDataFetcherImpl::FetchImpl(
    const FetchRequest& request, const std::vector<Box>* boxes) const {
  const FetchOptions& options = request.options;
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<const VariableMeta*> vars, ResolveVariables(request));
  GRIDSTORE_RETURN_IF_ERROR(CheckComplete(request, vars, boxes));
  GRIDSTORE_RETURN_IF_ERROR(internal_grid::CheckForcedLayout(*meta_, options.layout));
  const size_t num_results = boxes != nullptr ? boxes->size() : 1;
  std::vector<GridDataSet> results(num_results);

  // Plan: one output per (box, variable), read from the layout cheaper for that variable's
  // boxes; one task per distinct block the boxes touch.
  std::vector<internal_grid::PlaneOutput> outputs;
  std::vector<internal_grid::SeriesOutput> series_outputs;
  outputs.reserve(num_results * vars.size());
  for (const VariableMeta* var : vars) {
    GRIDSTORE_ASSIGN_OR_RETURN(const std::vector<Box> var_boxes, BoxesOf(*var, boxes));
    const bool use_series =
        internal_grid::ChooseLayout(*meta_, *var, var_boxes, options.layout).use_series;
    for (size_t b = 0; b < num_results; ++b) {
      results[b].id = meta_->id;
      const auto& [origin, shape] = var_boxes[b];
      Grid4D& grid = results[b].variables[var->name] = Grid4D(var->type, origin, shape);
      if (!use_series) {
        outputs.push_back({var, BlockGeometry(*var, meta_->layout), origin, shape, &grid});
        continue;
      }
      // The steps the series layout holds from it; a growing run's later steps from the planes.
      const internal_grid::SeriesSplit split =
          internal_grid::SplitAtSeriesSteps(*meta_->series, *var, var_boxes[b]);
      if (split.held) {
        series_outputs.push_back(
            internal_grid::SeriesOutput{var, split.held->origin, split.held->shape, &grid});
      }
      if (split.later) {
        outputs.push_back({var, BlockGeometry(*var, meta_->layout), split.later->origin,
                           split.later->shape, &grid});
      }
    }
  }
  const int parallelism =
      options.parallelism > 0 ? options.parallelism : context_->pool->num_threads() + 1;
  const bool use_cache = options.use_cache && context_->cache->capacity() > 0;
  FetchStats stats;
  GRIDSTORE_RETURN_IF_ERROR(
      internal_grid::FetchPlanes(*meta_, context_, outputs, parallelism, use_cache, &stats));
  if (!series_outputs.empty()) {
    GRIDSTORE_RETURN_IF_ERROR(internal_grid::FetchSeries(*meta_, context_, series_outputs,
                                                         parallelism, use_cache, &stats));
  }
  // A missing block reads as the fill value: right only if the dataset is still the incarnation
  // planned from. Deleting or replacing it meanwhile removes blocks, so check (one small read,
  // and only when some block was missing).
  if (stats.blocks_missing > 0) GRIDSTORE_RETURN_IF_ERROR(CheckStillCurrent());

  if (options.unpack) {  // each result's grid once (a growing run's may have two outputs)
    for (GridDataSet& r : results) {
      for (auto& [name, grid] : r.variables) {
        grid = internal_grid::Unpack(*meta_->FindVariable(name), std::move(grid), context_->pool,
                                     parallelism);
      }
    }
  }
  // The stats are the whole read's; each result carries them.
  for (const GridDataSet& r : results) {
    for (const auto& [name, grid] : r.variables) {
      stats.bytes_returned += static_cast<int64_t>(grid.size_bytes());
    }
  }
  for (GridDataSet& r : results) r.stats = stats;
  return results;
}

}  // namespace gridstore::internal_grid

namespace gridstore::grid {

GridDataFetcher::~GridDataFetcher() = default;

FetchPlan ExplainBoxes(const DataSetMeta& meta, const std::vector<const VariableMeta*>& vars,
                       const std::vector<Box>& boxes, FetchLayout layout) {
  FetchPlan plan;
  plan.layout = "plane blocks " + BlockLayoutToString(meta.layout);
  if (meta.series) plan.layout += "; series blocks " + SeriesLayoutToString(*meta.series);
  for (const VariableMeta* var : vars) {
    const internal_grid::LayoutChoice choice =
        internal_grid::ChooseLayout(meta, *var, boxes, layout);
    FetchPlan::Variable v;
    v.name = var->name;
    v.type = var->type;
    v.layout = choice.use_series ? "series" : "plane";
    v.plane_blocks = internal_grid::DistinctBlocks(meta, *var, boxes, false);
    v.plane_bytes_to_decode = choice.plane.bytes_to_decode;
    if (choice.series) {
      v.series_blocks = internal_grid::DistinctBlocks(meta, *var, boxes, true);
      v.series_bytes_to_decode = choice.series->bytes_to_decode;
    }
    v.blocks = choice.use_series ? v.series_blocks : v.plane_blocks;
    v.bytes_to_decode = choice.use_series ? v.series_bytes_to_decode : v.plane_bytes_to_decode;
    for (const Box& b : boxes) {
      v.bytes_returned += b.shape[kT] * b.shape[kZ] * b.shape[kX] * b.shape[kY] *
                          static_cast<int64_t>(DataTypeSize(var->type));
    }
    plan.blocks += v.blocks;
    plan.bytes_to_decode += v.bytes_to_decode;
    plan.bytes_returned += v.bytes_returned;
    plan.variables.push_back(std::move(v));
  }
  return plan;
}

}  // namespace gridstore::grid
