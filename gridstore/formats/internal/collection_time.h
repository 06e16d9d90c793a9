// Copyright 2026 The GridStore Authors.
//
// Valid and lead times of a forecast collection's slices, shared by its writers
// (collection_formats.cc, netcdf/netcdf_collection_writer.cc).
#ifndef GRIDSTORE_FORMATS_INTERNAL_COLLECTION_TIME_H_
#define GRIDSTORE_FORMATS_INTERNAL_COLLECTION_TIME_H_

#include <cstdint>
#include <optional>

#include "gridstore/geo/extract.h"

namespace gridstore::internal_formats {

// The valid time, in ms since 1970-01-01 UTC, of index `t` of the time axis of `r`, a slice of
// the run at `run_time_ms`: that run time itself if the variables have no time axis (a field
// valid at its reference time, as forecast::ValidTimesMs has it); nullopt if the axis has no CF
// time units.
std::optional<int64_t> ValidTimeMs(const grid::Extraction& r, int64_t t, int64_t run_time_ms);

}  // namespace gridstore::internal_formats

#endif  // GRIDSTORE_FORMATS_INTERNAL_COLLECTION_TIME_H_
