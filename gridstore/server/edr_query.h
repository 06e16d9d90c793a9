// Copyright 2026 The GridStore Authors.
//
// OGC API-EDR query parameters (coords in WKT, bbox, z, datetime, parameter-name, within +
// within-units, corridor-width + width-units, crs, f) to an ExtractRequest, for the six query
// types the service answers. Everything is checked here, before any data is read: an unknown
// parameter, a WKT of the wrong geometry, a distance without units or a CRS the service does not
// speak is an InvalidArgument that names it (400 Bad Request).
#ifndef GRIDSTORE_SERVER_EDR_QUERY_H_
#define GRIDSTORE_SERVER_EDR_QUERY_H_

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/formats/output_format.h"
#include "gridstore/geo/extract.h"
#include "gridstore/util/result.h"

namespace gridstore::server {

enum class EdrQueryType { kPosition, kArea, kCube, kRadius, kTrajectory, kCorridor };
inline constexpr EdrQueryType kEdrQueryTypes[] = {
    EdrQueryType::kPosition, EdrQueryType::kArea,       EdrQueryType::kCube,
    EdrQueryType::kRadius,   EdrQueryType::kTrajectory, EdrQueryType::kCorridor};

// "position", "area", ...
const char* EdrQueryTypeName(EdrQueryType type);
std::optional<EdrQueryType> EdrQueryTypeFromName(std::string_view name);

// The result formats (formats/output_format.h), of which EDR serves CoverageJSON, NetCDF and CSV.
using formats::OutputFormat;
// The names collections advertise ("CoverageJSON", "NetCDF", "CSV"; forecast collections also
// "JSON").
const char* EdrFormatName(OutputFormat format);

struct EdrQuery {
  grid::ExtractRequest request;
  OutputFormat format = OutputFormat::kCoverageJson;
};

using QueryParameters = std::map<std::string, std::string, std::less<>>;

// What a resource adds to the EDR parameters (a forecast collection's run, member, stat...):
// names its endpoint reads itself, accepted here (and listed in the error for an unknown one)
// but otherwise ignored, and whether `f` may be JSON (OutputFormat::kJson).
struct EdrQueryExtensions {
  std::vector<std::string> parameters;
  bool json = false;
};

// `parameters` of a query of `type` on a dataset whose data variables are `variables` (named in
// errors). A missing parameter-name leaves the request's variables empty: every variable, each
// group on its own axes (grid::ExtractEvery). `f` accepts the advertised names and
// covjson / nc / csv (and json / application/json with extensions.json), in any case.
Result<EdrQuery> ParseEdrQuery(EdrQueryType type, const QueryParameters& parameters,
                               const std::vector<std::string>& variables,
                               const EdrQueryExtensions& extensions = {});

// Distances: a number in `units` (km, m, mi, nmi; the EDR within-units / width-units) in km.
Result<double> DistanceKm(std::string_view value, std::string_view units, std::string_view what);

}  // namespace gridstore::server

#endif  // GRIDSTORE_SERVER_EDR_QUERY_H_
