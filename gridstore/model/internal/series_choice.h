// Copyright 2026 The GridStore Authors.
//
// The series layout's geometry chosen for a dataset (grid_meta.h, SeriesLayout), so that a point's
// whole series is one read however long it is. A fixed 256 steps per block made a 40-year hourly
// series (350,640 steps) 1,370 block reads; a block of all its steps over 16x16 points, 359 MB of
// values, would make it one read of far too much. So the steps per block follow the series (all of
// it, up to 2^20 steps per block), and the points per block and per frame shrink as the series
// grows, keeping a block near 4 MiB and a frame near 256 KiB of values. A series of at most 256
// steps gets the layout every store had before (256 steps x 16x16 points, frames of 16).
#ifndef GRIDSTORE_MODEL_INTERNAL_SERIES_CHOICE_H_
#define GRIDSTORE_MODEL_INTERNAL_SERIES_CHOICE_H_

#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::grid::internal_meta {

// `requested` with every field at kSeriesChoose (and block_t at kSeriesWholeSeries) replaced by
// the choice for `meta`'s variables (the longest series and widest type among them); the other
// fields as given. InvalidArgument for a field below kSeriesWholeSeries, or kSeriesWholeSeries in
// a field other than block_t.
Result<SeriesLayout> ResolveSeriesLayout(const DataSetMeta& meta, const SeriesLayout& requested);

}  // namespace gridstore::grid::internal_meta

#endif  // GRIDSTORE_MODEL_INTERNAL_SERIES_CHOICE_H_
