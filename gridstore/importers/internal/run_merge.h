// Copyright 2026 The GridStore Authors.
//
// Appending to a run (import --append): the meta of newly arrived files merged into the stored
// dataset. The run grows along time only: new validity times go after the last one stored (a
// time already there is filled in, if its steps are not yet complete), new variables join with
// every step so far not written; the grid, the levels of each level type, the reference time and
// every variable's type and level count must stay as they are. Pure: metas in, meta out.
#ifndef GRIDSTORE_IMPORTERS_INTERNAL_RUN_MERGE_H_
#define GRIDSTORE_IMPORTERS_INTERNAL_RUN_MERGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::internal_importers {

struct RunMerge {
  // `existing` grown by the incoming times and variables; status and complete steps as they
  // were (a DONE dataset's steps all count as complete).
  grid::DataSetMeta merged;
  std::vector<int64_t> t_of;        // incoming t index -> merged t index
  std::vector<size_t> variable_of;  // incoming variable index -> merged variable index
};

// Merges `incoming` (the plan of the arriving files, described as `source` in messages, with a
// 1-D "time" coordinate) into `existing`. FailedPrecondition naming the dataset, the variable or
// coordinate and both values where they disagree, or a time that would fall between stored steps.
Result<RunMerge> MergeIntoRun(const grid::DataSetMeta& existing, const grid::DataSetMeta& incoming,
                              const std::string& source);

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_INTERNAL_RUN_MERGE_H_
