// Copyright 2026 The GridStore Authors.
//
// Verification reads each dataset's blocks by the keys its meta implies (MultiGet in groups,
// decoded in parallel), so that every block gets its own outcome: an unreadable block is one
// problem, not the end of the run. Blocks nobody owns are found by walking the data table one
// (dataset, incarnation) group at a time, without reading them.
#include "gridstore/grid/grid_verify.h"

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>

#include "gridstore/blocks/internal/block_codec.h"
#include "gridstore/blocks/internal/block_geometry.h"
#include "gridstore/blocks/internal/dictionary_cache.h"
#include "gridstore/blocks/internal/series_geometry.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/grid/internal/grid_store_impl.h"
#include "gridstore/grid/internal/store_walk.h"
#include "gridstore/model/internal/grid_keys.h"
#include "gridstore/model/internal/grid_messages.h"
#include "gridstore/util/internal/thread_pool.h"

namespace gridstore::grid {

namespace {

// Blocks read with one MultiGet and decoded by one thread.
constexpr size_t kGroupBlocks = 32;
// Blocks planned at once (then read by groups on every thread).
constexpr size_t kRoundBlocks = 4096;

std::string BlockName(const BlockAddress& a) {
  return internal_grid::BlockName(a.variable, a.t, a.z, a.block_row, a.block_col);
}

class Verifier {
 public:
  Verifier(storage::KvStore* kv, ThreadPool* pool, const VerifyOptions& options)
      : kv_(kv), pool_(pool), options_(options), dictionaries_(kv) {}

  // Checks every block `meta` implies.
  void CheckDataSet(const DataSetMeta& meta) {
    {
      MutexLock lock(&mu_);
      ++report_.datasets;
      if (meta.status() != kStatusDone) ++report_.datasets_not_done;
    }
    Status valid = meta.Validate();
    if (!valid.ok()) {
      Problem(meta.id, std::string(valid.message()));
      return;  // its shapes cannot be trusted to plan keys
    }
    if (meta.series) {
      MutexLock lock(&mu_);
      series_datasets_.push_back(meta.id);
    }
    for (const VariableMeta& var : meta.variables) {
      CheckDictionary(meta, var);
      const internal_grid::BlockGeometry g(var, meta.layout);
      std::vector<BlockAddress> round;
      for (int64_t t = 0; t < var.shape[kT]; ++t) {
        for (int64_t z = 0; z < var.shape[kZ]; ++z) {
          for (int64_t r = 0; r < g.block_rows; ++r) {
            for (int64_t c = 0; c < g.block_cols; ++c) {
              round.push_back(BlockAddress{meta.id, meta.key_incarnation(), var.name, kPlaneLayout,
                                           static_cast<uint32_t>(t), static_cast<uint32_t>(z),
                                           static_cast<uint32_t>(r), static_cast<uint32_t>(c)});
              if (round.size() == kRoundBlocks) {
                CheckBlocks(meta, var, g, &round);
              }
            }
          }
        }
      }
      CheckBlocks(meta, var, g, &round);
    }
  }

  void Problem(std::string dataset, std::string message) {
    MutexLock lock(&mu_);
    report_.problems.push_back(VerifyProblem{std::move(dataset), std::move(message)});
  }

  // Once no check runs any more (Verify's sequential steps), the report needs no lock.
  VerifyReport& report() NO_THREAD_SAFETY_ANALYSIS { return report_; }
  // The datasets checked that have a series layout (checked against their planes afterwards).
  const std::vector<std::string>& series_datasets() NO_THREAD_SAFETY_ANALYSIS {
    return series_datasets_;
  }

 private:
  void CheckDictionary(const DataSetMeta& meta, const VariableMeta& var) {
    std::string stored;
    Status s = kv_->Get(storage::ReadOptions{.fill_cache = false}, storage::Table::kData,
                        DictionaryKey(meta.id, meta.key_incarnation(), var.name), &stored);
    if (s.IsNotFound()) return;  // blocks that need one report it missing
    if (s.ok()) s = BlockDictionary::Load(stored).status();
    if (!s.ok()) {
      Problem(meta.id, "variable '" + EscapeForMessage(var.name) +
                           "', dictionary: " + std::string(s.message()));
    }
  }

  // Reads and decodes the blocks of `round` (then clears it): groups of kGroupBlocks per task.
  void CheckBlocks(const DataSetMeta& meta, const VariableMeta& var,
                   const internal_grid::BlockGeometry& g, std::vector<BlockAddress>* round) {
    const size_t groups = (round->size() + kGroupBlocks - 1) / kGroupBlocks;
    ParallelFor(pool_, groups, 0, [&](size_t group) {
      const size_t begin = group * kGroupBlocks;
      const size_t end = std::min(round->size(), begin + kGroupBlocks);
      std::vector<std::string> keys;
      for (size_t i = begin; i < end; ++i) keys.push_back(DataKey((*round)[i]));
      const std::vector<std::string_view> views(keys.begin(), keys.end());
      std::vector<std::string> values;
      std::vector<Status> statuses;
      kv_->MultiGet(storage::ReadOptions{.fill_cache = false}, storage::Table::kData, views,
                    &values, &statuses);
      int64_t blocks = 0, bytes = 0;
      thread_local std::string scratch;
      for (size_t i = 0; i < keys.size(); ++i) {
        const BlockAddress& a = (*round)[begin + i];
        if (statuses[i].IsNotFound()) continue;  // never written: reads as the fill value
        ++blocks;
        if (!statuses[i].ok()) {
          Problem(meta.id, BlockName(a) + ": unreadable: " + std::string(statuses[i].message()));
          continue;
        }
        bytes += static_cast<int64_t>(values[i].size());
        const auto rows = static_cast<uint32_t>(g.rows_of(a.block_row));
        const auto cols = static_cast<uint32_t>(g.cols_of(a.block_col));
        scratch.resize(size_t{rows} * cols * DataTypeSize(var.type));
        std::shared_ptr<const BlockDictionary> dictionary;
        if (BlockNeedsDictionary(values[i])) {
          auto loaded = dictionaries_.Get(meta, var.name);
          if (!loaded.ok()) {
            Problem(meta.id, BlockName(a) + ": " + std::string(loaded.status().message()));
            continue;
          }
          dictionary = *std::move(loaded);
        }
        Status s = DecodeBlock(values[i], var.type, rows, cols, scratch.data(), dictionary.get());
        if (!s.ok()) Problem(meta.id, BlockName(a) + ": " + std::string(s.message()));
      }
      MutexLock lock(&mu_);
      report_.blocks += blocks;
      report_.bytes_read += bytes;
    });
    round->clear();
    if (options_.on_progress) {
      int64_t checked = 0;
      {
        MutexLock lock(&mu_);
        checked = report_.blocks;
      }
      options_.on_progress(checked);
    }
  }

  storage::KvStore* const kv_;
  ThreadPool* const pool_;
  const VerifyOptions& options_;
  internal_grid::DictionaryCache dictionaries_;  // its own: checks the stored ones, not a cache
  Mutex mu_;
  VerifyReport report_ GUARDED_BY(mu_);
  std::vector<std::string> series_datasets_ GUARDED_BY(mu_);
};

std::string Near(std::string_view key) {
  return "near key '" + EscapeForMessage(key.substr(0, 64)) + "'";
}

// Whether `a`, the last key of one layout of `var`, lies inside the shape the meta gives.
bool LastKeyFits(const DataSetMeta& meta, const VariableMeta& var, const BlockAddress& a) {
  int64_t t_end = var.shape[kT], z_end = var.shape[kZ];
  if (a.layout == kSeriesLayout) {
    if (!meta.series) return false;
    const internal_grid::SeriesGeometry geometry(var, *meta.series);
    t_end = geometry.t_blocks;
    z_end = geometry.z_blocks;
  } else if (a.layout != kPlaneLayout) {
    return false;
  }
  return a.t < t_end && (a.t < t_end - 1 || a.z < z_end);
}

// Blocks are read by the keys the meta implies, so keys it does not imply are found here: one
// seek per variable of the dataset's current incarnation, and one reverse seek for its last key
// (keys sort by t, z, block, so a key beyond the shape is the last one, or sorts after it).
Status CheckKeysFitMeta(const internal_grid::DataGroup& group, Verifier* verifier,
                        const internal_grid::DamageFn& on_damage, storage::KvStore* kv) {
  std::string bytes;
  Status read =
      kv->Get(storage::ReadOptions{}, storage::Table::kMeta, MetaKey(group.dataset), &bytes);
  if (read.IsDataLoss()) return Status::OK();  // reported with the metas
  GRIDSTORE_RETURN_IF_ERROR(read);
  auto meta = DataSetMeta::Decode(bytes);
  if (!meta.ok()) return Status::OK();  // reported with the metas
  std::string position = group.range.begin;
  while (position < group.range.end) {
    std::optional<std::string> first;
    GRIDSTORE_RETURN_IF_ERROR(internal_grid::ScanPastDamage(
        kv, storage::Table::kData, storage::KeyRange{position, group.range.end},
        [&](std::string_view key, std::string_view) {
          first.emplace(key);
          return false;
        },
        on_damage));
    if (!first) break;
    auto address = DecodeDataKey(*first);
    if (!address.ok()) {
      verifier->Problem(group.dataset, "malformed data key " + Near(*first));
      position = *first + '\0';
      continue;
    }
    const std::string variable(address->variable);
    const storage::KeyRange range = VariableDataRange(group.dataset, group.incarnation, variable);
    const VariableMeta* var = meta->FindVariable(variable);
    if (var == nullptr) {
      int64_t blocks = 0;
      uint64_t block_bytes = 0;
      GRIDSTORE_RETURN_IF_ERROR(
          internal_grid::CountRange(kv, range, &blocks, &block_bytes, on_damage));
      verifier->Problem(group.dataset, std::to_string(blocks) + " block(s) of variable '" +
                                           EscapeForMessage(variable) +
                                           "', which the dataset's meta does not have");
    } else {
      // Each layout's blocks sort by t (steps, for series blocks), then z: a key beyond the
      // shape is the layout's last one, or sorts after it.
      for (const uint8_t layout : {kPlaneLayout, kSeriesLayout}) {
        std::optional<std::string> last;
        Status s =
            kv->ReverseScan(storage::ReadOptions{.fill_cache = false}, storage::Table::kData,
                            LayoutDataRange(group.dataset, group.incarnation, variable, layout),
                            [&](std::string_view key, std::string_view) {
                              last.emplace(key);
                              return false;
                            });
        if (!s.ok() && !s.IsDataLoss()) return s;  // damage is reported by the block reads
        if (!last) continue;
        auto a = DecodeDataKey(*last);
        if (a.ok() && !LastKeyFits(*meta, *var, *a)) {
          verifier->Problem(group.dataset, BlockName(*a) +
                                               (layout == kSeriesLayout ? " (series)" : "") +
                                               ": outside the variable's shape or "
                                               "layout (and maybe more after it)");
        }
      }
    }
    if (range.end.empty()) break;
    position = range.end;
  }
  return Status::OK();
}

// Reports damage the engine found while scanning `table` as a problem of the store.
internal_grid::DamageFn TableDamage(Verifier* verifier, std::string_view table) {
  return [verifier, table](std::string_view key, const Status& error) {
    verifier->Problem("", "the " + std::string(table) + " table is unreadable " + Near(key) + ": " +
                              std::string(error.message()));
  };
}

// Every dataset's meta and blocks, one meta at a time (memory stays small, a bad meta is one
// problem).
Status VerifyAllDataSets(storage::KvStore* kv, Verifier* verifier) {
  return internal_grid::ScanPastDamage(
      kv, storage::Table::kMeta, AllMetaKeys(),
      [&](std::string_view key, std::string_view value) {
        auto meta = DataSetMeta::Decode(value);
        if (!meta.ok()) {
          verifier->Problem(std::string(key), "meta: " + std::string(meta.status().message()));
        } else {
          verifier->CheckDataSet(*meta);
        }
        return true;
      },
      TableDamage(verifier, "meta"));
}

// Blocks under `range` that no current dataset owns are orphans; those of current datasets must
// fit their meta.
Status VerifyDataGroups(storage::KvStore* kv, const storage::KeyRange& range, Verifier* verifier) {
  VerifyReport& report = verifier->report();
  return internal_grid::ForEachDataGroup(
      kv, range,
      [&](const internal_grid::DataGroup& group) -> Status {
        GRIDSTORE_ASSIGN_OR_RETURN(
            internal_grid::GroupOwner owner,
            internal_grid::FindGroupOwner(kv, group.dataset, group.incarnation));
        if (owner.kind == internal_grid::GroupOwner::Kind::kUnknown) {
          verifier->Problem(group.dataset,
                            "cannot tell whether its blocks of incarnation " +
                                std::to_string(group.incarnation) +
                                " are current: " + std::string(owner.damage.message()));
          return Status::OK();
        }
        if (owner.kind == internal_grid::GroupOwner::Kind::kCurrent) {
          return CheckKeysFitMeta(group, verifier, TableDamage(verifier, "data"), kv);
        }
        if (owner.kind != internal_grid::GroupOwner::Kind::kNone) return Status::OK();
        VerifyOrphan orphan{group.dataset, group.incarnation, 0, 0,
                            owner.has_meta ? "an incarnation the dataset no longer uses (a "
                                             "replaced or interrupted import)"
                                           : "no dataset meta (a killed import or delete)"};
        GRIDSTORE_RETURN_IF_ERROR(internal_grid::CountRange(
            kv, group.range, &orphan.blocks, &orphan.bytes, TableDamage(verifier, "data")));
        report.orphans.push_back(std::move(orphan));
        return Status::OK();
      },
      TableDamage(verifier, "data"));
}

}  // namespace

// Replacements of `id` (every one, if empty): in progress, or abandoned (an orphan).
Status GridStoreImpl::VerifyReplacements(
    std::string_view id, const VerifyOptions& options, VerifyReport* report,
    const std::function<void(std::string, std::string)>& problem) {
  const auto damage = [&](std::string_view table) {
    return [&problem, table](std::string_view key, const Status& error) {
      problem("", "the " + std::string(table) + " table is unreadable " + Near(key) + ": " +
                      std::string(error.message()));
    };
  };
  return internal_grid::ScanPastDamage(
      kv_.get(), storage::Table::kMeta, id.empty() ? AllStagedKeys() : StagedKeysOf(id),
      [&](std::string_view key, std::string_view value) {
        std::string_view dataset;
        uint64_t incarnation = 0;
        auto record = internal_grid::DecodeStagedRecord(value);
        if (!DecodeStagedKey(key, &dataset, &incarnation) || !record.ok()) {
          problem(std::string(dataset), "a malformed replacement record " + Near(key));
          return true;
        }
        if (!ReplacementAbandoned(dataset, incarnation, record->started_ms,
                                  options.shared_store_min_age)) {
          ++report->replacements_in_progress;
          return true;
        }
        VerifyOrphan orphan{std::string(dataset), incarnation, 0, 0,
                            "an abandoned replacement (an import --overwrite that did not "
                            "finish)"};
        Status counted =
            internal_grid::CountRange(kv_.get(), IncarnationDataRange(dataset, incarnation),
                                      &orphan.blocks, &orphan.bytes, damage("data"));
        if (!counted.ok()) problem(orphan.dataset, std::string(counted.message()));
        report->orphans.push_back(std::move(orphan));
        return true;
      },
      damage("meta"));
}

Result<VerifyReport> GridStoreImpl::Verify(std::string_view id, const VerifyOptions& options) {
  // Its own pool: verification is a long batch job and should not queue behind fetches.
  GRIDSTORE_ASSIGN_OR_RETURN(std::unique_ptr<ThreadPool> pool, ThreadPool::Create(0));
  Verifier verifier(kv_.get(), pool.get(), options);
  if (!id.empty()) {
    GRIDSTORE_ASSIGN_OR_RETURN(DataSetMeta meta, GetDataSetMeta(id));
    verifier.CheckDataSet(meta);
  } else {
    std::vector<std::string> integrity;
    GRIDSTORE_RETURN_IF_ERROR(kv_->CheckIntegrity(&integrity));
    for (std::string& problem : integrity) verifier.Problem("", std::move(problem));
    GRIDSTORE_RETURN_IF_ERROR(VerifyAllDataSets(kv_.get(), &verifier));
  }
  GRIDSTORE_RETURN_IF_ERROR(VerifyReplacements(
      id, options, &verifier.report(), [&](std::string dataset, std::string what) {
        verifier.Problem(std::move(dataset), std::move(what));
      }));
  const storage::KeyRange range = id.empty() ? storage::KeyRange{} : DataSetDataRange(id);
  GRIDSTORE_RETURN_IF_ERROR(VerifyDataGroups(kv_.get(), range, &verifier));
  // The series layouts, block by block against the planes they were written from.
  VerifyReport& report = verifier.report();
  for (const std::string& with_series : verifier.series_datasets()) {
    auto meta = LoadMeta(with_series);
    if (!meta.ok()) continue;  // deleted meanwhile
    GRIDSTORE_RETURN_IF_ERROR(VerifySeriesBlocks(*meta, &report));
  }
  return std::move(report);
}

Result<VerifyReport> Verify(GridStore* store, std::string_view id, const VerifyOptions& options) {
  return store->Verify(id, options);
}

}  // namespace gridstore::grid
