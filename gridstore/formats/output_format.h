// Copyright 2026 The GridStore Authors.
//
// The one dispatch from an output format to its writer, shared by the command (`extract`,
// `fetch`), the HTTP service (EDR `f=`) and Python (`Store.extract(format=...)`,
// `Store.fetch(format=...)`): each front end parses its own spelling into OutputFormat and hands
// the results here. Extractions (geo/extract.h) are written as CoverageJSON, CSV, JSON or NetCDF;
// fetched slices (blocks/grid_data_fetcher.h) as npy, CSV, JSON or NetCDF. NetCDF is made in
// memory (netCDF-C's nc_create_mem), so every format goes to a stream and no writer needs a file.
#ifndef GRIDSTORE_FORMATS_OUTPUT_FORMAT_H_
#define GRIDSTORE_FORMATS_OUTPUT_FORMAT_H_

#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>

#include "gridstore/forecast/collection_query.h"
#include "gridstore/formats/extraction_formats.h"
#include "gridstore/geo/extract.h"
#include "gridstore/model/grid.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/status.h"

namespace gridstore::formats {

enum class OutputFormat { kCoverageJson, kCsv, kJson, kNetCdf, kNpy };

// The name every front end spells it by: "covjson", "csv", "json", "nc", "npy".
std::string_view OutputFormatName(OutputFormat format);
// The format named `name` (OutputFormatName), or nullopt.
std::optional<OutputFormat> ParseOutputFormat(std::string_view name);
// Its media type: application/prs.coverage+json, text/csv; charset=utf-8, application/json,
// application/x-netcdf, application/x-npy.
std::string_view ContentType(OutputFormat format);

// Whether results of that kind can be written in `format`: extractions in every format but npy
// (their variables have no common array), fetched slices in every format but CoverageJSON.
bool WritesExtractions(OutputFormat format);
bool WritesFetches(OutputFormat format);

struct OutputOptions {
  // CoverageJSON and JSON of extractions: indented for people, compact for the wire.
  JsonLayout layout = JsonLayout::kIndented;
  // Fetched slices: the values were fetched unpacked (FetchOptions::unpack); NetCDF then writes
  // them as floating point without scale_factor / add_offset.
  bool unpacked = false;
};

// Writes `results` (one per group of variables on the same axes, geo/extract.h) to `out`.
// NetCDF holds one group: the first (the front end says which it left out). npy:
// InvalidArgument. Write failures: Unavailable.
Status WriteExtractions(std::span<const grid::Extraction> results, OutputFormat format,
                        std::ostream& out, const OutputOptions& options = {});

// The same bytes as WriteExtractions, as one string: for answers held whole in memory (the
// service's), without an ostream to grow and copy for the formats made as one string already
// (NetCDF, one point's compact CoverageJSON: a 40-year hourly series is 14 MB of it).
Result<std::string> FormatExtractions(std::span<const grid::Extraction> results,
                                      OutputFormat format, const OutputOptions& options = {});

// Writes a collection's answer (forecast/collection_query.h): the slices' run, member and
// statistic become axes beside time, level and the feature (docs/collections.md, "Output"):
// CSV and JSON in long format, one row per value with `run` (ISO), `member` or `stat` columns
// beside time and level; NetCDF with `run` and `member` or `stat` dimensions (the valid times
// as time(run, time)); CoverageJSON a CoverageCollection whose coverages carry `run` and
// `member`/`stat` as extra domain axes. npy: InvalidArgument. Write failures: Unavailable.
Status WriteCollection(const forecast::CollectionExtraction& result, OutputFormat format,
                       std::ostream& out, const OutputOptions& options = {});

// Writes `data`, fetched from the dataset `meta` describes, to `out`: npy holds one variable
// (InvalidArgument for more), CSV and JSON at most kMaxTextValues values. CoverageJSON:
// InvalidArgument. (`gridstore fetch` writes large boxes slab by slab with the same writers.)
Status WriteFetched(const grid::DataSetMeta& meta, const grid::GridDataSet& data,
                    OutputFormat format, std::ostream& out, const OutputOptions& options = {});

}  // namespace gridstore::formats

#endif  // GRIDSTORE_FORMATS_OUTPUT_FORMAT_H_
