// Copyright 2026 The GridStore Authors.
#include "grid/grid_verify.h"

#include <map>
#include <memory>

#include "grid/block_codec.h"
#include "grid/grid_keys.h"
#include "grid/internal/block_geometry.h"
#include "grid/internal/dictionary_cache.h"
#include "util/thread_pool.h"

namespace gridstore::grid {

namespace {

// Blocks are copied out of the scan in batches of about this many bytes and decoded in parallel.
constexpr size_t kBatchBytes = 32 << 20;

struct PendingBlock {
  std::string key;
  std::string value;
};

std::string BlockName(const BlockAddress& a) {
  return "variable '" + EscapeForMessage(a.variable) + "', t=" + std::to_string(a.t) +
         ", z=" + std::to_string(a.z) + ", block (" + std::to_string(a.block_row) + ", " +
         std::to_string(a.block_col) + ")";
}

class Verifier {
 public:
  Verifier(GridStore* store, const VerifyOptions& options)
      : store_(store), options_(options), dictionaries_(store->kv_store()) {}

  Status Run(std::string_view id) {
    storage::KeyRange range;  // the whole data table by default
    if (!id.empty()) {
      GRIDSTORE_ASSIGN_OR_RETURN(DataSetMeta meta, store_->GetDataSetMeta(id));
      CheckMeta(meta);
      metas_.emplace(std::string(id), std::make_unique<DataSetMeta>(std::move(meta)));
      range = DataSetDataRange(id);
    } else {
      GRIDSTORE_ASSIGN_OR_RETURN(std::vector<DataSetMeta> metas, store_->ListDataSets());
      for (DataSetMeta& meta : metas) {
        CheckMeta(meta);
        std::string key = meta.id;
        metas_.emplace(std::move(key), std::make_unique<DataSetMeta>(std::move(meta)));
      }
    }
    std::vector<PendingBlock> batch;
    size_t batch_bytes = 0;
    GRIDSTORE_RETURN_IF_ERROR(store_->kv_store()->Scan(
        storage::ReadOptions{.fill_cache = false}, storage::Table::kData, range,
        [&](std::string_view key, std::string_view value) {
          batch.push_back(PendingBlock{std::string(key), std::string(value)});
          batch_bytes += key.size() + value.size();
          if (batch_bytes >= kBatchBytes) {
            CheckBatch(&batch);
            batch_bytes = 0;
          }
          return true;
        }));
    CheckBatch(&batch);
    for (const auto& [dataset, count] : orphans_) {
      report_.problems.push_back(VerifyProblem{
          dataset, std::to_string(count) + " block(s) belong to no dataset meta (left by a " +
                       "deleted or failed import?); `gridstore delete` removes them"});
    }
    return Status::OK();
  }

  VerifyReport& report() { return report_; }

 private:
  void CheckMeta(const DataSetMeta& meta) {
    ++report_.datasets;
    if (meta.status() != kStatusDone) ++report_.datasets_not_done;
    Status s = meta.Validate();
    if (!s.ok()) report_.problems.push_back(VerifyProblem{meta.id, std::string(s.message())});
  }

  // Decodes every block of `batch` in parallel, records problems in key order, clears the batch.
  void CheckBatch(std::vector<PendingBlock>* batch) {
    std::vector<std::string> errors(batch->size());
    std::vector<std::string> datasets(batch->size());
    std::vector<char> orphan(batch->size(), 0);
    ParallelFor(pool_.get(), batch->size(), 0, [&](size_t i) {
      const PendingBlock& block = (*batch)[i];
      auto address = DecodeDataKey(block.key);
      if (!address.ok()) {
        errors[i] = "malformed data key: " + std::string(address.status().message());
        return;
      }
      datasets[i] = std::string(address->dataset);
      auto it = metas_.find(address->dataset);
      if (it == metas_.end()) {
        orphan[i] = 1;
        return;
      }
      const DataSetMeta& meta = *it->second;
      const VariableMeta* var = meta.FindVariable(address->variable);
      const std::string name = BlockName(*address);
      if (var == nullptr) {
        errors[i] = name + ": the dataset has no such variable";
        return;
      }
      if (address->layout == kDictionaryLayout && address->t == 0 && address->z == 0 &&
          address->block_row == 0 && address->block_col == 0) {
        auto dictionary = BlockDictionary::Load(block.value);
        if (!dictionary.ok()) {
          errors[i] = "variable '" + EscapeForMessage(address->variable) +
                      "', dictionary: " + std::string(dictionary.status().message());
        }
        return;
      }
      internal_grid::BlockGeometry g(*var, meta.layout);
      if (address->layout != kPlaneLayout || address->t >= var->shape[kT] ||
          address->z >= var->shape[kZ] || address->block_row >= g.block_rows ||
          address->block_col >= g.block_cols) {
        errors[i] = name + ": outside the variable's shape or layout";
        return;
      }
      const uint32_t rows = static_cast<uint32_t>(g.rows_of(address->block_row));
      const uint32_t cols = static_cast<uint32_t>(g.cols_of(address->block_col));
      thread_local std::string scratch;
      scratch.resize(size_t{rows} * cols * DataTypeSize(var->type));
      std::shared_ptr<const BlockDictionary> dictionary;
      if (BlockNeedsDictionary(block.value)) {
        auto loaded = dictionaries_.Get(meta, var->name);
        if (!loaded.ok()) {
          errors[i] = name + ": " + std::string(loaded.status().message());
          return;
        }
        dictionary = *std::move(loaded);
      }
      Status s = DecodeBlock(block.value, var->type, rows, cols, scratch.data(), dictionary.get());
      if (!s.ok()) errors[i] = name + ": " + std::string(s.message());
    });
    for (size_t i = 0; i < batch->size(); ++i) {
      ++report_.blocks;
      report_.bytes_read += static_cast<int64_t>((*batch)[i].value.size());
      if (orphan[i]) ++orphans_[datasets[i]];
      if (!errors[i].empty()) report_.problems.push_back(VerifyProblem{datasets[i], errors[i]});
    }
    batch->clear();
    if (options_.on_progress) options_.on_progress(report_.blocks);
  }

  GridStore* store_;
  const VerifyOptions& options_;
  // Its own pool: verification is a long batch job and should not queue behind fetches.
  std::unique_ptr<ThreadPool> pool_ = std::make_unique<ThreadPool>(0);
  std::map<std::string, std::unique_ptr<DataSetMeta>, std::less<>> metas_;
  std::map<std::string, int64_t> orphans_;
  VerifyReport report_;
  internal_grid::DictionaryCache dictionaries_;  // its own: checks the stored ones, not a cache
};

}  // namespace

Result<VerifyReport> Verify(GridStore* store, std::string_view id, const VerifyOptions& options) {
  Verifier verifier(store, options);
  GRIDSTORE_RETURN_IF_ERROR(verifier.Run(id));
  return std::move(verifier.report());
}

}  // namespace gridstore::grid
