// Copyright 2026 The GridStore Authors.
#include "gridstore/formats/output_format.h"

#include <array>
#include <sstream>
#include <string>
#include <utility>

#include "gridstore/formats/collection_formats.h"
#include "gridstore/formats/fetch_formats.h"
#include "gridstore/formats/internal/coverage_json_stream.h"
#include "gridstore/formats/netcdf/internal/netcdf_output.h"
#include "gridstore/formats/netcdf/netcdf_collection_writer.h"
#include "gridstore/formats/netcdf/netcdf_extraction_writer.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::formats {
namespace {

struct FormatInfo {
  OutputFormat format;
  std::string_view name;
  std::string_view content_type;
};

constexpr std::array<FormatInfo, 5> kFormats = {{
    {OutputFormat::kCoverageJson, "covjson", "application/prs.coverage+json"},
    {OutputFormat::kCsv, "csv", "text/csv; charset=utf-8"},
    {OutputFormat::kJson, "json", "application/json"},
    {OutputFormat::kNetCdf, "nc", "application/x-netcdf"},
    {OutputFormat::kNpy, "npy", "application/x-npy"},
}};

const FormatInfo& Info(OutputFormat format) {
  for (const FormatInfo& f : kFormats) {
    if (f.format == format) return f;
  }
  return kFormats[0];  // unreachable: every enumerator is in the table
}

Status WriteBytes(const std::string& bytes, std::ostream& out) {
  out.write(bytes.data(), std::streamsize(bytes.size()));
  return out ? Status::OK() : Status::Unavailable("writing the output failed");
}

Status Refuse(OutputFormat format, std::string_view what) {
  return Status::InvalidArgument(
      std::string(what) + " cannot be written as " + std::string(OutputFormatName(format)) + " (" +
      std::string(what) + " are written as " +
      (what == "extractions" ? "covjson, csv, json or nc" : "npy, csv, json or nc") + ")");
}

}  // namespace

std::string_view OutputFormatName(OutputFormat format) { return Info(format).name; }

std::optional<OutputFormat> ParseOutputFormat(std::string_view name) {
  for (const FormatInfo& f : kFormats) {
    if (f.name == name) return f.format;
  }
  return std::nullopt;
}

std::string_view ContentType(OutputFormat format) { return Info(format).content_type; }

bool WritesExtractions(OutputFormat format) { return format != OutputFormat::kNpy; }
bool WritesFetches(OutputFormat format) { return format != OutputFormat::kCoverageJson; }

Status WriteExtractions(std::span<const grid::Extraction> results, OutputFormat format,
                        std::ostream& out, const OutputOptions& options) {
  if (results.empty()) return Status::InvalidArgument("no extraction to write");
  switch (format) {
    case OutputFormat::kCoverageJson:
      return WriteCoverageJson(results, out, options.layout);
    case OutputFormat::kCsv:
      return WriteExtractionCsv(results, out);
    case OutputFormat::kJson:
      return WriteExtractionJson(results, out);
    case OutputFormat::kNetCdf: {
      const grid::Extraction& first = results.front();
      GRIDSTORE_ASSIGN_OR_RETURN(std::string bytes, NetCdfExtractionBytes(*first.meta, first));
      return WriteBytes(bytes, out);
    }
    case OutputFormat::kNpy:
      break;
  }
  return Refuse(format, "extractions");
}

Result<std::string> FormatExtractions(std::span<const grid::Extraction> results,
                                      OutputFormat format, const OutputOptions& options) {
  if (results.empty()) return Status::InvalidArgument("no extraction to write");
  const grid::Extraction& first = results.front();
  if (format == OutputFormat::kNetCdf) return NetCdfExtractionBytes(*first.meta, first);
  std::string text;
  if (format == OutputFormat::kCoverageJson && results.size() == 1 &&
      options.layout == JsonLayout::kCompact &&
      internal_formats::AppendPointCoverageJson(first, &text)) {
    return text;
  }
  std::ostringstream out;
  GRIDSTORE_RETURN_IF_ERROR(WriteExtractions(results, format, out, options));
  return std::move(out).str();
}

Status WriteCollection(const forecast::CollectionExtraction& result, OutputFormat format,
                       std::ostream& out, const OutputOptions& options) {
  if (result.slices.empty()) return Status::InvalidArgument("no slice of the collection to write");
  switch (format) {
    case OutputFormat::kCoverageJson:
      return WriteCollectionCoverageJson(result, out, options.layout);
    case OutputFormat::kCsv:
      return WriteCollectionCsv(result, out);
    case OutputFormat::kJson:
      return WriteCollectionJson(result, out);
    case OutputFormat::kNetCdf: {
      GRIDSTORE_ASSIGN_OR_RETURN(std::string bytes, NetCdfCollectionBytes(result));
      return WriteBytes(bytes, out);
    }
    case OutputFormat::kNpy:
      break;
  }
  return Refuse(format, "extractions");
}

Status WriteFetched(const grid::DataSetMeta& meta, const grid::GridDataSet& data,
                    OutputFormat format, std::ostream& out, const OutputOptions& options) {
  switch (format) {
    case OutputFormat::kNpy:
      if (data.variables.size() != 1) {
        return Status::InvalidArgument("npy output holds one variable; fetch one");
      }
      return WriteNpy(data.variables.begin()->second, out);
    case OutputFormat::kCsv:
      return WriteCsv(meta, data, out);
    case OutputFormat::kJson:
      return WriteJson(meta, data, out);
    case OutputFormat::kNetCdf: {
      std::string bytes;
      GRIDSTORE_RETURN_IF_ERROR(
          internal_formats::WriteNetCdfDataSet({.name = "the netCDF output", .memory = &bytes},
                                               meta, data, {.unpacked = options.unpacked}));
      return WriteBytes(bytes, out);
    }
    case OutputFormat::kCoverageJson:
      break;
  }
  return Refuse(format, "fetched slices");
}

}  // namespace gridstore::formats
