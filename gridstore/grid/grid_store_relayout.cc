// Copyright 2026 The GridStore Authors.
//
// GridStoreImpl's series layout (grid_meta.h, SeriesLayout): AddSeriesLayout writes it from the
// planes, a group of tiles at a time, and DropSeriesLayout removes it. The meta carries the
// layout's state, so fetches read it only once every block is written, and a relayout that died
// resumes where it stopped (skipping the groups whose blocks all exist).
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/blocks/internal/series_fence.h"
#include "gridstore/blocks/internal/series_geometry.h"
#include "gridstore/blocks/internal/store_context.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/model/internal/series_choice.h"
#include "gridstore/util/internal/strings.h"
#include "gridstore/util/internal/thread_pool.h"

namespace gridstore::grid {

using internal_grid::SeriesGeometry;

namespace {

// A group of series blocks written in one batch: one variable, block of levels and block of
// steps, tile rows [r_begin, r_end) and tile columns [c_begin, c_end). Several tile rows only
// when whole rows of tiles fit the budget: every group reads each of its steps' planes once, so
// the fewer groups, the fewer plane reads (a 40-year hourly series is 350,640 planes per group).
struct TileGroup {
  const VariableMeta* var;
  int64_t zb, tb, r_begin, r_end, c_begin, c_end;

  int64_t tiles() const { return (r_end - r_begin) * (c_end - c_begin); }
  // The tile row and column of the group's i-th tile (row-major).
  int64_t r_of(int64_t i) const { return r_begin + i / (c_end - c_begin); }
  int64_t c_of(int64_t i) const { return c_begin + i % (c_end - c_begin); }
};

std::string SeriesKey(const DataSetMeta& meta, const TileGroup& g, int64_t r, int64_t c) {
  return DataKey(BlockAddress{meta.id, meta.key_incarnation(), g.var->name, kSeriesLayout,
                              static_cast<uint32_t>(g.tb), static_cast<uint32_t>(g.zb),
                              static_cast<uint32_t>(r), static_cast<uint32_t>(c)});
}

// The plane rows and columns the group spans.
int64_t GroupRows(const SeriesGeometry& g, const TileGroup& group) {
  return g.row_begin(group.r_end - 1) + g.rows_of(group.r_end - 1) - g.row_begin(group.r_begin);
}
int64_t GroupCols(const SeriesGeometry& g, const TileGroup& group) {
  return g.col_begin(group.c_end - 1) + g.cols_of(group.c_end - 1) - g.col_begin(group.c_begin);
}

// The raw bytes of the group's values.
int64_t GroupBytes(const DataSetMeta& meta, const TileGroup& group) {
  const SeriesGeometry g(*group.var, *meta.series);
  return g.steps_of(group.tb) * g.levels_of(group.zb) * GroupRows(g, group) * GroupCols(g, group) *
         static_cast<int64_t>(DataTypeSize(group.var->type));
}

// Every group of every variable holding steps [from, to) (to: kSeriesAllSteps for every step;
// both whole blocks of steps but for a variable's last), tiles grouped so that a group's values
// fit `budget` (tile columns of one row of tiles, or whole rows of tiles); *bytes gets the raw
// bytes of them all.
std::vector<TileGroup> PlanGroups(const DataSetMeta& meta, size_t budget, int64_t* bytes,
                                  int64_t from = 0, int64_t to = kSeriesAllSteps) {
  std::vector<TileGroup> groups;
  *bytes = 0;
  for (const VariableMeta& var : meta.variables) {
    const SeriesGeometry g(var, *meta.series);
    const int64_t end = to == kSeriesAllSteps ? g.t : std::min(to, g.t);
    const int64_t tile_bytes = std::min(g.block_t, g.t) * g.block_z * g.tile_x * g.tile_y *
                               static_cast<int64_t>(DataTypeSize(var.type));
    const int64_t per_group =
        std::clamp<int64_t>(static_cast<int64_t>(budget) / tile_bytes, 1, g.tile_cols);
    const int64_t rows_per_group =
        per_group < g.tile_cols
            ? 1
            : std::clamp<int64_t>(static_cast<int64_t>(budget) / (tile_bytes * g.tile_cols), 1,
                                  g.tile_rows);
    for (int64_t zb = 0; zb < g.z_blocks; ++zb) {
      for (int64_t tb = from / g.block_t; tb * g.block_t < end; ++tb) {
        for (int64_t r = 0; r < g.tile_rows; r += rows_per_group) {
          for (int64_t c = 0; c < g.tile_cols; c += per_group) {
            groups.push_back(TileGroup{&var, zb, tb, r, std::min(g.tile_rows, r + rows_per_group),
                                       c, std::min(g.tile_cols, c + per_group)});
            *bytes += GroupBytes(meta, groups.back());
          }
        }
      }
    }
  }
  return groups;
}

// Cuts series block (g.tb, g.zb, r, c) out of `box` (the group's values from the planes:
// steps x levels x rows x columns of the group) into its raw (rows x steps) form, a row per
// (point, level), point-major (series_geometry.h).
void GatherTile(const SeriesGeometry& geo, const TileGroup& g, int64_t r, int64_t c,
                const Grid4D& box, size_t es, std::string* raw) {
  const int64_t steps = geo.steps_of(g.tb), levels = geo.levels_of(g.zb);
  const int64_t rows = geo.rows_of(r), cols = geo.cols_of(c);
  raw->resize(rows * cols * levels * steps * es);
  const int64_t x0 = geo.row_begin(r) - geo.row_begin(g.r_begin);
  const int64_t y0 = geo.col_begin(c) - geo.col_begin(g.c_begin);
  const size_t t_stride = box.Offset(1, 0, 0, 0) * es;
  // The element copy with its size known to the compiler: a call to memcpy per value was a
  // quarter of a growing run's block of steps.
  auto gather = [&](auto element) {
    constexpr size_t kSize = sizeof(element);
    char* dst = raw->data();
    for (int64_t x = 0; x < rows; ++x) {
      for (int64_t y = 0; y < cols; ++y) {
        for (int64_t l = 0; l < levels; ++l) {
          const char* src = box.bytes() + box.Offset(0, l, x0 + x, y0 + y) * es;
          for (int64_t t = 0; t < steps; ++t, dst += kSize, src += t_stride) {
            std::memcpy(dst, src, kSize);
          }
        }
      }
    }
  };
  switch (es) {
    case 1:
      return gather(uint8_t{});
    case 2:
      return gather(uint16_t{});
    case 4:
      return gather(uint32_t{});
    default:
      return gather(uint64_t{});
  }
}

// "dataset 'x', variable 'T', z 0, steps from 256": what the group's blocks share.
std::string StepBlockName(const DataSetMeta& meta, const TileGroup& group) {
  const SeriesGeometry geo(*group.var, *meta.series);
  const int64_t z0 = geo.level_begin(group.zb), levels = geo.levels_of(group.zb);
  return "dataset " + Quote(meta.id) + ", variable " + Quote(group.var->name) +
         (levels == 1 ? ", z " + std::to_string(z0)
                      : ", z " + std::to_string(z0) + "-" + std::to_string(z0 + levels - 1)) +
         ", steps from " + std::to_string(geo.step_begin(group.tb));
}

std::string GroupName(const DataSetMeta& meta, const TileGroup& group) {
  return StepBlockName(meta, group) + (group.r_end - group.r_begin == 1
                                           ? ", tile row " + std::to_string(group.r_begin)
                                           : ", tile rows " + std::to_string(group.r_begin) + "-" +
                                                 std::to_string(group.r_end - 1));
}

// The group's values, read from the planes (never from the series layout being written or
// verified).
Result<GridDataSet> ReadFromPlanes(GridStoreImpl* store, std::shared_ptr<const DataSetMeta> meta,
                                   const TileGroup& group) {
  const SeriesGeometry geo(*group.var, *meta->series);
  if (meta->series->ready) {
    auto planes_only = std::make_shared<DataSetMeta>(*meta);
    planes_only->series.reset();
    meta = std::move(planes_only);
  }
  const FetchRequest request{
      .variables = {group.var->name},
      .box = Box{{geo.step_begin(group.tb), geo.level_begin(group.zb), geo.row_begin(group.r_begin),
                  geo.col_begin(group.c_begin)},
                 {geo.steps_of(group.tb), geo.levels_of(group.zb), GroupRows(geo, group),
                  GroupCols(geo, group)}},
      .options = FetchOptions{.use_cache = false, .allow_incomplete = true}};
  return store->NewFetcher(std::move(meta))->Fetch(request);
}

// The steps a growing series layout of `meta` can hold: every step once the run is DONE
// (kSeriesAllSteps), else the whole blocks of steps complete for every variable it does not hold
// entirely yet (its present count if none more).
int64_t StepsToHold(const DataSetMeta& meta) {
  const SeriesLayout& series = *meta.series;
  if (meta.status() == kStatusDone) return kSeriesAllSteps;
  int64_t to = std::numeric_limits<int64_t>::max();
  for (const VariableMeta& var : meta.variables) {
    if (var.shape[kT] <= series.steps) continue;  // every step held
    const int64_t complete = var.complete_steps.FirstMissing(0, var.shape[kT]);
    to = std::min(to, complete / series.block_t * series.block_t);
  }
  return to == std::numeric_limits<int64_t>::max() ? series.steps : std::max(to, series.steps);
}

}  // namespace

Status GridStoreImpl::VerifySeriesBlocks(std::shared_ptr<const DataSetMeta> meta,
                                         VerifyReport* report) {
  if (!meta->series) return Status::OK();
  int64_t total = 0;
  const std::vector<TileGroup> groups = PlanGroups(*meta, 64 << 20, &total, 0, meta->series->steps);
  auto problem = [&](std::string what) {
    report->problems.push_back(VerifyProblem{meta->id, std::move(what)});
  };
  const int64_t could_hold = StepsToHold(*meta);
  if (meta->series->ready && meta->series->steps != kSeriesAllSteps &&
      could_hold != meta->series->steps) {
    problem("its growing series layout holds " + std::to_string(meta->series->steps) +
            " steps but could hold " +
            (could_hold == kSeriesAllSteps ? std::string("all") : std::to_string(could_hold)) +
            ": writing its series blocks failed after an append; run gridstore relayout " +
            Quote(meta->id) +
            " --add series to write them (the planes answer those steps meanwhile)");
  }
  for (const TileGroup& group : groups) {
    const SeriesGeometry geo(*group.var, *meta->series);
    const std::string where = GroupName(*meta, group);
    const int64_t n = group.tiles();
    std::vector<std::string> keys;
    for (int64_t i = 0; i < n; ++i)
      keys.push_back(SeriesKey(*meta, group, group.r_of(i), group.c_of(i)));
    const std::vector<std::string_view> views(keys.begin(), keys.end());
    std::vector<std::string> values;
    std::vector<Status> statuses;
    kv_->MultiGet(storage::ReadOptions{.fill_cache = false}, storage::Table::kData, views, &values,
                  &statuses);
    Result<GridDataSet> planes = ReadFromPlanes(this, meta, group);
    if (!planes.ok()) {
      problem(where + ": cannot read the planes to compare with: " +
              std::string(planes.status().message()));
      continue;
    }
    const Grid4D& box = planes->variables.begin()->second;
    const size_t es = DataTypeSize(group.var->type);
    std::string expected, decoded;
    for (int64_t i = 0; i < n; ++i) {
      const int64_t r = group.r_of(i), c = group.c_of(i);
      const std::string tile = StepBlockName(*meta, group) + ", tile row " + std::to_string(r) +
                               ", tile column " + std::to_string(c) + " (series)";
      if (statuses[i].IsNotFound()) {
        if (meta->series->ready) problem(tile + ": missing");
        continue;  // not written yet: a relayout in progress or interrupted
      }
      if (!statuses[i].ok()) {
        problem(tile + ": unreadable: " + std::string(statuses[i].message()));
        continue;
      }
      ++report->blocks;
      report->bytes_read += static_cast<int64_t>(values[i].size());
      GatherTile(geo, group, r, c, box, es, &expected);
      decoded.resize(expected.size());
      const int64_t rows = geo.block_rows(group.zb, r, c);
      Status s = DecodeBlock(values[i], group.var->type, static_cast<uint32_t>(rows),
                             static_cast<uint32_t>(geo.steps_of(group.tb)), decoded.data());
      if (!s.ok()) {
        problem(tile + ": " + std::string(s.message()));
      } else if (decoded != expected) {
        problem(tile + ": differs from the planes it was written from");
      }
    }
  }
  return Status::OK();
}

namespace {

// Whether every series block of `group` exists. Its last block is read first: absent, the group
// was not written (the common case, one read). Present, the others are read too: a group's blocks
// go in one batch, atomic on RocksDB but not on RADOS, where a killed run can leave some.
Result<bool> GroupWritten(storage::KvStore* kv, const DataSetMeta& meta, const TileGroup& group) {
  const storage::ReadOptions read{.fill_cache = false};
  std::string value;
  const int64_t n = group.tiles();
  Status s = kv->Get(read, storage::Table::kData,
                     SeriesKey(meta, group, group.r_of(n - 1), group.c_of(n - 1)), &value);
  if (s.IsNotFound()) return false;
  GRIDSTORE_RETURN_IF_ERROR(s);
  std::vector<std::string> keys;
  for (int64_t i = 0; i + 1 < n; ++i)
    keys.push_back(SeriesKey(meta, group, group.r_of(i), group.c_of(i)));
  const std::vector<std::string_view> views(keys.begin(), keys.end());
  std::vector<std::string> values;
  std::vector<Status> statuses;
  kv->MultiGet(read, storage::Table::kData, views, &values, &statuses);
  for (const Status& status : statuses) {
    if (status.IsNotFound()) return false;
    GRIDSTORE_RETURN_IF_ERROR(status);
  }
  return true;
}

}  // namespace

Status GridStoreImpl::WriteSeriesBlocks(std::shared_ptr<const DataSetMeta> meta,
                                        const RelayoutOptions& options, int64_t from, int64_t to,
                                        bool resume, RelayoutReport* report) {
  int64_t total = 0, done = 0;
  const std::vector<TileGroup> groups =
      PlanGroups(*meta, options.memory_budget_bytes, &total, from, to);
  for (const TileGroup& group : groups) {
    const SeriesGeometry geo(*group.var, *meta->series);
    const int64_t n = group.tiles();
    const std::string where = GroupName(*meta, group);
    if (resume) {
      Result<bool> written = GroupWritten(kv_.get(), *meta, group);
      if (!written.ok()) return written.status().WithContext(where);
      if (*written) {  // by an earlier run
        report->blocks_resumed += n;
        done += GroupBytes(*meta, group);
        if (options.on_progress) options.on_progress(done, total);
        continue;
      }
    }
    Result<GridDataSet> box = ReadFromPlanes(this, meta, group);
    if (!box.ok()) return box.status().WithContext(where);
    const Grid4D& values = box->variables.begin()->second;
    const size_t es = DataTypeSize(group.var->type);
    std::vector<std::string> keys(n), blocks(n);
    std::vector<Status> statuses(n);
    ParallelFor(context_->pool, n, 0, [&](size_t i) {
      const int64_t r = group.r_of(static_cast<int64_t>(i)),
                    c = group.c_of(static_cast<int64_t>(i));
      thread_local std::string raw;
      GatherTile(geo, group, r, c, values, es, &raw);
      const int64_t rows = geo.block_rows(group.zb, r, c);
      keys[i] = SeriesKey(*meta, group, r, c);
      statuses[i] = EncodeBlock(meta->layout.codec, group.var->type, static_cast<uint32_t>(rows),
                                static_cast<uint32_t>(geo.steps_of(group.tb)),
                                geo.codec_frame_rows(rows), raw, &blocks[i]);
    });
    storage::WriteBatch batch;
    for (size_t i = 0; i < static_cast<size_t>(n); ++i) {
      GRIDSTORE_RETURN_IF_ERROR(statuses[i].WithContext(where));
      report->stored_bytes += static_cast<int64_t>(blocks[i].size());
      batch.Put(storage::Table::kData, keys[i], blocks[i]);
    }
    GRIDSTORE_RETURN_IF_ERROR(kv_->Write(storage::WriteOptions{}, batch).WithContext(where));
    report->blocks_written += n;
    report->raw_bytes += static_cast<int64_t>(values.size_bytes());
    done += GroupBytes(*meta, group);
    if (options.on_progress) options.on_progress(done, total);
  }
  return Status::OK();
}

Result<RelayoutReport> GridStoreImpl::AddSeriesLayout(std::string_view id,
                                                      const SeriesLayout& requested,
                                                      const RelayoutOptions& options) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  const std::string what = "adding a series layout to dataset " + Quote(id);
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const DataSetMeta> meta, LoadMeta(id));
  if (meta->status() != kStatusDone && meta->status() != kStatusIngesting) {
    return Status::FailedPrecondition(
        what + ": its status is " + Quote(meta->status()) +
        ", not DONE or INGESTING (an import that failed, or in progress): finish it first");
  }
  if (meta->variables.empty()) {
    return Status::InvalidArgument(what + ": it has no variables (a catalogue entry)");
  }
  // Fields left to choose (kSeriesChoose) keep the dataset's layout if it has one (chosen when
  // it was added: a run asking again as it grows or completes), else get the dataset's
  // geometry; deterministic, so a resumed relayout asking the same gets the same layout.
  SeriesLayout asked = requested;
  if (meta->series) {
    for (auto [field, stored] : {std::pair{&asked.block_t, meta->series->block_t},
                                 std::pair{&asked.tile_x, meta->series->tile_x},
                                 std::pair{&asked.tile_y, meta->series->tile_y},
                                 std::pair{&asked.block_z, meta->series->block_z},
                                 std::pair{&asked.frame_points, meta->series->frame_points}}) {
      if (*field == kSeriesChoose) *field = stored;
    }
  }
  Result<SeriesLayout> resolved = internal_meta::ResolveSeriesLayout(*meta, asked);
  if (!resolved.ok()) return resolved.status().WithContext(what);
  SeriesLayout series = *resolved;
  series.ready = false;
  RelayoutReport report;
  report.layout = series;
  if (meta->status() == kStatusIngesting ||
      (meta->series && meta->series->steps != kSeriesAllSteps)) {
    return StartGrowingSeries(meta, series, options);  // a run growing, or grown to its end
  }
  if (meta->series) {
    SeriesLayout stored = *meta->series;
    const bool ready = stored.ready;
    stored.ready = false;
    series.steps = stored.steps;  // a layout grown to the end holds every step
    if (!(stored == series)) {
      return Status::FailedPrecondition(what + ": it has another series layout (" +
                                        SeriesLayoutToString(stored) +
                                        "); drop it first (gridstore relayout ID --drop series)");
    }
    report.already_ready = ready;
    if (ready) return report;
  } else {
    DataSetMeta with = *meta;
    with.series = series;
    GRIDSTORE_RETURN_IF_ERROR(with.Validate().WithContext(what));
    // No plane batch lands between this and the relayout's reads (series_fence.h).
    GRIDSTORE_RETURN_IF_ERROR(series_fence_->StartSeries(
        id, meta->incarnation, [&] { return StoreSeriesState(*meta, series, what); }));
    GRIDSTORE_ASSIGN_OR_RETURN(meta, LoadMeta(id));
  }
  GRIDSTORE_RETURN_IF_ERROR(
      WriteSeriesBlocks(meta, options, 0, kSeriesAllSteps, /*resume=*/true, &report));
  series.ready = true;
  GRIDSTORE_RETURN_IF_ERROR(StoreSeriesState(*meta, series, what));
  return report;
}

Result<RelayoutReport> GridStoreImpl::StartGrowingSeries(std::shared_ptr<const DataSetMeta> meta,
                                                         const SeriesLayout& series,
                                                         const RelayoutOptions& options) {
  const std::string what = "adding a series layout to dataset " + Quote(meta->id);
  RelayoutReport report;
  if (meta->series) {
    SeriesLayout asked = series, stored = *meta->series;
    asked.steps = stored.steps;
    asked.ready = stored.ready;
    if (!(stored == asked)) {
      return Status::FailedPrecondition(what + ": it has another series layout (" +
                                        SeriesLayoutToString(stored) +
                                        "); drop it first (gridstore relayout ID --drop series)");
    }
    report.already_ready = stored.ready;
  } else {
    // Ready from the start, holding no step: each block of steps is written once complete.
    SeriesLayout growing = series;
    growing.steps = 0;
    growing.ready = true;
    DataSetMeta with = *meta;
    with.series = growing;
    GRIDSTORE_RETURN_IF_ERROR(with.Validate().WithContext(what));
    GRIDSTORE_RETURN_IF_ERROR(series_fence_->StartSeries(
        meta->id, meta->incarnation, [&] { return StoreSeriesState(*meta, growing, what); }));
    GRIDSTORE_ASSIGN_OR_RETURN(meta, LoadMeta(meta->id));
  }
  // The blocks of steps already complete.
  GRIDSTORE_RETURN_IF_ERROR(GrowSeriesLayout(meta, options, &report));
  GRIDSTORE_ASSIGN_OR_RETURN(meta, LoadMeta(meta->id));
  if (meta->series) report.layout = *meta->series;
  return report;
}

Status GridStoreImpl::GrowSeriesLayout(std::shared_ptr<const DataSetMeta> meta,
                                       const RelayoutOptions& options, RelayoutReport* report) {
  if (!meta->series || !meta->series->ready || meta->series->steps == kSeriesAllSteps) {
    return Status::OK();
  }
  const SeriesLayout& series = *meta->series;
  const int64_t to = StepsToHold(*meta);  // a short last block included once DONE
  if (to == series.steps) return Status::OK();
  const std::string what = "writing the series blocks of dataset " + Quote(meta->id) +
                           " from step " + std::to_string(series.steps);
  GRIDSTORE_RETURN_IF_ERROR(
      WriteSeriesBlocks(meta, options, series.steps, to, /*resume=*/false, report)
          .WithContext(what));
  SeriesLayout grown = series;
  grown.steps = to;
  Status stored = StoreSeriesState(*meta, grown, what);
  // Another write changed the meta meanwhile (a later step): the next one grows the layout.
  return stored.IsFailedPrecondition() ? Status::OK() : stored;
}

Status GridStoreImpl::KeepSeriesLayout(const DataSetMeta& meta, const DataSetMeta& prev,
                                       SeriesLayout* series) {
  for (const VariableMeta& var : meta.variables) {
    const VariableMeta* before = prev.FindVariable(var.name);
    const bool same_but_t =
        before != nullptr && before->type == var.type && var.shape[kT] >= before->shape[kT] &&
        var.shape[kZ] == before->shape[kZ] && var.shape[kX] == before->shape[kX] &&
        var.shape[kY] == before->shape[kY];
    if (!same_but_t) {
      return Status::FailedPrecondition(
          "dataset " + Quote(meta.id) + " has a series layout, so variable " + Quote(var.name) +
          (before == nullptr ? " cannot be added" : " cannot change shape") +
          "; drop the series layout first (gridstore relayout ID --drop series)");
    }
    const int64_t t0 = before->shape[kT];
    if (var.shape[kT] == t0) continue;
    if (!series->ready) {
      return Status::FailedPrecondition(
          "dataset " + Quote(meta.id) + ": variable " + Quote(var.name) +
          " cannot grow while its series layout is being written; finish it first (gridstore "
          "relayout ID --add series) or drop it");
    }
    const int64_t whole = t0 / series->block_t * series->block_t;
    series->steps = series->steps == kSeriesAllSteps ? whole : std::min(series->steps, whole);
  }
  return Status::OK();
}

Status GridStoreImpl::DropSeriesLayout(std::string_view id) {
  GRIDSTORE_RETURN_IF_ERROR(CheckWritable());
  const std::string what = "dropping the series layout of dataset " + Quote(id);
  GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const DataSetMeta> meta, LoadMeta(id));
  if (!meta->series) return Status::NotFound(what + ": it has none");
  GRIDSTORE_RETURN_IF_ERROR(StoreSeriesState(*meta, std::nullopt, what));
  storage::WriteBatch batch;
  std::vector<storage::KeyRange> ranges;
  for (const VariableMeta& var : meta->variables) {
    ranges.push_back(LayoutDataRange(meta->id, meta->key_incarnation(), var.name, kSeriesLayout));
    batch.DeleteRange(storage::Table::kData, ranges.back().begin, ranges.back().end);
  }
  GRIDSTORE_RETURN_IF_ERROR(kv_->Write(storage::WriteOptions{}, batch).WithContext(what));
  for (const storage::KeyRange& range : ranges) {
    GRIDSTORE_RETURN_IF_ERROR(ReclaimDataRange(range, what));
  }
  return Status::OK();
}

Status GridStoreImpl::StoreSeriesState(const DataSetMeta& expected,
                                       const std::optional<SeriesLayout>& series,
                                       const std::string& what) {
  MutexLock write_lock(&meta_write_mu_);
  return RetryOnConflict(what, [&]() -> Status {
    meta_write_mu_.AssertHeld();
    std::string bytes;
    Status s =
        kv_->Get(storage::ReadOptions{}, storage::Table::kMeta, MetaKey(expected.id), &bytes);
    if (s.IsNotFound()) return Status::FailedPrecondition(what + ": it was deleted meanwhile");
    GRIDSTORE_RETURN_IF_ERROR(s.WithContext(what));
    Result<DataSetMeta> decoded = DataSetMeta::Decode(bytes);
    if (!decoded.ok()) return decoded.status().WithContext("stored meta of " + Quote(expected.id));
    const DataSetMeta& prev = *decoded;
    if (prev.incarnation != expected.incarnation || prev.variables != expected.variables ||
        !(prev.layout == expected.layout) || prev.series != expected.series) {
      return Status::FailedPrecondition(what +
                                        ": it was replaced or changed meanwhile; run it again");
    }
    DataSetMeta next = prev;
    next.series = series;
    storage::WriteBatch batch;
    DataSetMeta stored;
    GRIDSTORE_RETURN_IF_ERROR(AddMetaWrite(next, &prev, &batch, &stored, /*series_change=*/true));
    ExpectUnchanged(expected.id, bytes, &batch);
    GRIDSTORE_RETURN_IF_ERROR(ExpectIndexDefinitions(&batch));
    Status written = kv_->Write(storage::WriteOptions{}, batch);
    EraseCachedMeta(expected.id);
    return written.WithContext(what);
  });
}

}  // namespace gridstore::grid
