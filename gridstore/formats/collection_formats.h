// Copyright 2026 The GridStore Authors.
//
// A forecast collection's answer (forecast/collection_query.h: slices of one run and one member
// or statistic, each one Extraction per group of variables on the same axes) as CoverageJSON,
// CSV and JSON; NetCDF is netcdf/netcdf_collection_writer.h. The command (`extract COLLECTION`),
// the HTTP service (EDR collections and instances) and Python write through
// formats::WriteCollection (output_format.h), which dispatches here. The run, the member or the
// statistic of each slice become axes beside time, level and the feature:
//
// - `run`: the forecast reference time, ISO 8601 ("2026-11-25T00:00:00Z");
// - `member`: the ensemble member number (slices of members; absent for a deterministic model);
// - `stat`: the statistic as asked ("mean", "spread", "p90", "prob>273.15"; statistic slices);
// - `lead_hours`: the lead time, valid time minus run time, in hours as a number (36, 1.5; empty
//   / absent where the time axis has no CF time units).
//
// A probability statistic's values are fractions 0..1 (its parameter's units are "1").
#ifndef GRIDSTORE_FORMATS_COLLECTION_FORMATS_H_
#define GRIDSTORE_FORMATS_COLLECTION_FORMATS_H_

#include <ostream>

#include "gridstore/forecast/collection_query.h"
#include "gridstore/formats/extraction_formats.h"
#include "gridstore/util/status.h"

namespace gridstore::formats {

// A CoverageCollection with one coverage per slice and per coverage its extraction has (as
// WriteCoverageJson makes them), each domain with the extra single-valued axes `run` (ISO
// strings, a TemporalRS) and `member` (integers) or `stat` (strings), each with an
// IdentifierRS. The collection's `parameters` are the variables'; a coverage whose parameters
// differ (a probability's units are "1") carries its own. A `gridstore` member holds the
// collection's name, the view and the notes. InvalidArgument if there is no slice.
Status WriteCollectionCoverageJson(const forecast::CollectionExtraction& result, std::ostream& out,
                                   JsonLayout layout = JsonLayout::kIndented);

// Long format, one row per slice, place, time and level:
//   run,member,time,lead_hours,level,lat,lon,cell_lat,cell_lon,distance_km,<variables...>
// (`stat` instead of `member` for statistics; neither for a deterministic collection). Columns as
// WriteExtractionCsv's: lat/lon where asked, cell_lat/cell_lon the cell whose value the row
// holds. Variables on other axes than a row's (other groups) are empty in it; so are missing
// values. Slices in the result's order (run-major, then member or statistic).
Status WriteCollectionCsv(const forecast::CollectionExtraction& result, std::ostream& out);

// {"collection": NAME, "view": "runs" | "constant forecast time" | "constant offset" | "best",
//  "parameters": {VAR: {"units", "long_name", "standard_name"}}, "notes": [...],
//  "rows": [{"run": ISO, "member": N | "stat": S, "time": ISO, "lead_hours": H, "level": L,
//            "lat", "lon", "cell_lat", "cell_lon", "distance_km", VAR: value | null, ...}]}
// One row per CSV row; "level" only where the variables have a level axis, "cell_*" and
// "distance_km" only for points and paths (an area's rows are its cells), a row holding its
// group's variables only.
Status WriteCollectionJson(const forecast::CollectionExtraction& result, std::ostream& out);

}  // namespace gridstore::formats

#endif  // GRIDSTORE_FORMATS_COLLECTION_FORMATS_H_
