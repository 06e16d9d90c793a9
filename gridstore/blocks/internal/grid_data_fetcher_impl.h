// Copyright 2026 The GridStore Authors.
//
// The store's GridDataFetcher: validates a request, picks a layout per variable, reads through
// plane_fetch / series_fetch (the shared block-read scheduler) and unpacks.
#ifndef GRIDSTORE_BLOCKS_INTERNAL_GRID_DATA_FETCHER_IMPL_H_
#define GRIDSTORE_BLOCKS_INTERNAL_GRID_DATA_FETCHER_IMPL_H_

#include <memory>
#include <vector>

#include "gridstore/blocks/grid_data_fetcher.h"
#include "gridstore/blocks/internal/store_context.h"

namespace gridstore::internal_grid {

class GridDataFetcherImpl final : public grid::GridDataFetcher {
 public:
  GridDataFetcherImpl(StoreContext* context, std::shared_ptr<const grid::DataSetMeta> meta)
      : context_(context), meta_(std::move(meta)) {}

  using GridDataFetcher::Explain;
  using GridDataFetcher::Fetch;
  using GridDataFetcher::FetchBoxes;
  Result<grid::GridDataSet> Fetch(const grid::FetchRequest& request) const override;
  Result<std::vector<grid::GridDataSet>> FetchBoxes(
      const grid::FetchRequest& request, const std::vector<grid::Box>& boxes) const override;
  Result<grid::FetchPlan> Explain(const grid::FetchRequest& request) const override;
  const grid::DataSetMeta& meta() const override { return *meta_; }

 private:
  // Fetch (boxes null: each variable whole, one result) and FetchBoxes.
  Result<std::vector<grid::GridDataSet>> FetchImpl(const grid::FetchRequest& request,
                                                   const std::vector<grid::Box>* boxes) const;
  Result<std::vector<const grid::VariableMeta*>> ResolveVariables(
      const grid::FetchRequest& request) const;
  // FailedPrecondition unless the dataset is complete (or, INGESTING, every box of `vars` lies
  // in its complete steps) or request.options.allow_incomplete.
  Status CheckComplete(const grid::FetchRequest& request,
                       const std::vector<const grid::VariableMeta*>& vars,
                       const std::vector<grid::Box>* boxes) const;
  // NotFound if the dataset was deleted, Aborted if it is now another incarnation.
  Status CheckStillCurrent() const;
  Status CheckBox(const grid::VariableMeta& var, const grid::Shape4& origin,
                  const grid::Shape4& shape) const;
  // The boxes of `var` to read: `boxes`, each checked, or (null) the whole variable.
  Result<std::vector<grid::Box>> BoxesOf(const grid::VariableMeta& var,
                                         const std::vector<grid::Box>* boxes) const;

  StoreContext* const context_;
  const std::shared_ptr<const grid::DataSetMeta> meta_;
};

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_BLOCKS_INTERNAL_GRID_DATA_FETCHER_IMPL_H_
