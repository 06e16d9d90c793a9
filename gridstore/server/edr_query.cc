// Copyright 2026 The GridStore Authors.
#include "gridstore/server/edr_query.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

#include "gridstore/util/internal/strings.h"

namespace gridstore::server {
namespace {

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

Result<double> Number(std::string_view text, std::string_view what) {
  const std::string_view item = Trim(text);
  size_t used = 0;
  const std::optional<double> v = ParseDecimal(item, &used);
  if (!v || used != item.size()) {
    return Status::InvalidArgument(std::string(what) + ": " + Quote(text) + " is not a number");
  }
  return *v;
}

// The body of "KEYWORD ( body )", case-insensitive keyword, or nullopt if `wkt` is not of it.
std::optional<std::string_view> WktBody(std::string_view wkt, std::string_view keyword) {
  wkt = Trim(wkt);
  if (wkt.size() < keyword.size() || Lower(wkt.substr(0, keyword.size())) != keyword) {
    return std::nullopt;
  }
  std::string_view rest = Trim(wkt.substr(keyword.size()));
  if (rest.size() < 2 || rest.front() != '(' || rest.back() != ')') return std::nullopt;
  return rest.substr(1, rest.size() - 2);
}

Result<grid::LonLat> LonLatPair(std::string_view text, std::string_view wkt) {
  const std::vector<std::string> parts = SplitWhitespace(text);
  if (parts.size() != 2) {
    return Status::InvalidArgument("coords " + Quote(wkt) + ": " + Quote(Trim(text)) +
                                   " is not a position 'LON LAT' (give levels with z)");
  }
  GRIDSTORE_ASSIGN_OR_RETURN(double lon, Number(parts[0], "coords longitude"));
  GRIDSTORE_ASSIGN_OR_RETURN(double lat, Number(parts[1], "coords latitude"));
  return grid::LonLat{lon, lat};
}

// POINT(x y) or MULTIPOINT((x y), (x y)) / MULTIPOINT(x y, x y).
Result<std::vector<grid::LonLat>> ParsePoints(std::string_view wkt, bool allow_multi) {
  std::vector<grid::LonLat> points;
  if (auto body = WktBody(wkt, "point")) {
    GRIDSTORE_ASSIGN_OR_RETURN(grid::LonLat p, LonLatPair(*body, wkt));
    points.push_back(p);
    return points;
  }
  if (auto body = allow_multi ? WktBody(wkt, "multipoint") : std::nullopt) {
    for (const std::string& item : SplitList(*body, ',')) {
      std::string_view p = Trim(item);
      if (!p.empty() && p.front() == '(' && p.back() == ')') p = p.substr(1, p.size() - 2);
      GRIDSTORE_ASSIGN_OR_RETURN(grid::LonLat ll, LonLatPair(p, wkt));
      points.push_back(ll);
    }
    if (!points.empty()) return points;
  }
  return Status::InvalidArgument("coords " + Quote(wkt) + " is not a WKT " +
                                 (allow_multi ? "POINT or MULTIPOINT" : "POINT") +
                                 " in longitude and latitude, e.g. POINT(120.2 30.3)");
}

bool StartsWithWord(std::string_view wkt, std::string_view word) {
  wkt = Trim(wkt);
  return wkt.size() >= word.size() && Lower(wkt.substr(0, word.size())) == word;
}

// The parameters each query type takes (EDR 1.1, section 8.2), beyond the common ones.
std::set<std::string, std::less<>> Allowed(EdrQueryType type) {
  // time-method / level-method: GridStore's extension (EDR has none): "nearest" takes the
  // value nearest a datetime / z that is not on the axis (docs/serve.md).
  std::set<std::string, std::less<>> allowed = {
      "datetime", "parameter-name", "crs", "f", "z", "method", "time-method", "level-method"};
  switch (type) {
    case EdrQueryType::kCube:
      allowed.insert("bbox");
      break;
    case EdrQueryType::kRadius:
      allowed.insert({"coords", "within", "within-units"});
      break;
    case EdrQueryType::kCorridor:
      // corridor-height / height-units are accepted for EDR clients that always send them; the
      // levels come from z (or the path's Z), as for a trajectory.
      allowed.insert(
          {"coords", "corridor-width", "width-units", "corridor-height", "height-units"});
      break;
    default:
      allowed.insert("coords");
  }
  return allowed;
}

const std::string* Find(const QueryParameters& parameters, std::string_view name) {
  auto it = parameters.find(name);
  return it == parameters.end() ? nullptr : &it->second;
}

Result<std::string> Required(const QueryParameters& parameters, std::string_view name,
                             EdrQueryType type) {
  const std::string* v = Find(parameters, name);
  if (v == nullptr || Trim(*v).empty()) {
    return Status::InvalidArgument(std::string("the ") + EdrQueryTypeName(type) +
                                   " query needs the parameter " + Quote(name));
  }
  return *v;
}

// EDR's z: "850", "850,700", "1000/500", or "R5/1000/-100" (5 levels from 1000 in steps of -100).
Result<std::string> LevelSpec(std::string_view z) {
  if (z.empty() || (z[0] != 'R' && z[0] != 'r')) return std::string(z);
  const std::vector<std::string> parts = SplitList(z.substr(1), '/');
  if (parts.size() != 3) {
    return Status::InvalidArgument("z " + Quote(z) + " is not Rn/start/step");
  }
  GRIDSTORE_ASSIGN_OR_RETURN(double n, Number(parts[0], "z count"));
  GRIDSTORE_ASSIGN_OR_RETURN(double start, Number(parts[1], "z start"));
  GRIDSTORE_ASSIGN_OR_RETURN(double step, Number(parts[2], "z step"));
  if (n < 1 || n > 10000 || n != std::floor(n)) {
    return Status::InvalidArgument("z " + Quote(z) + ": the count must be 1 to 10000");
  }
  std::string spec;
  for (int i = 0; i < static_cast<int>(n); ++i) {
    spec += (i ? "," : "") + FormatDouble(start + i * step);
  }
  return spec;
}

Result<OutputFormat> ParseFormat(const std::string* f, bool json) {
  if (f == nullptr) return OutputFormat::kCoverageJson;
  const std::string v = Lower(Trim(*f));
  if (v == "coveragejson" || v == "covjson" || v == "application/prs.coverage+json") {
    return OutputFormat::kCoverageJson;
  }
  if (v == "netcdf" || v == "nc" || v == "application/x-netcdf") return OutputFormat::kNetCdf;
  if (v == "csv" || v == "text/csv") return OutputFormat::kCsv;
  if (json && (v == "json" || v == "application/json")) return OutputFormat::kJson;
  return Status::InvalidArgument("f " + Quote(*f) + " is not CoverageJSON, NetCDF" +
                                 (json ? ", CSV or JSON" : " or CSV"));
}

Status CheckCrs(const std::string* crs) {
  if (crs == nullptr) return Status::OK();
  const std::string v = Lower(Trim(*crs));
  if (v == "crs84" || v == "ogc:crs84" || v == "http://www.opengis.net/def/crs/ogc/1.3/crs84") {
    return Status::OK();
  }
  return Status::InvalidArgument("crs " + Quote(*crs) +
                                 " is not supported: coordinates are longitude/latitude (CRS84)");
}

Status ParseFeature(EdrQueryType type, const QueryParameters& p, grid::ExtractRequest* r) {
  switch (type) {
    case EdrQueryType::kPosition: {
      GRIDSTORE_ASSIGN_OR_RETURN(std::string coords, Required(p, "coords", type));
      GRIDSTORE_ASSIGN_OR_RETURN(r->points, ParsePoints(coords, true));
      return Status::OK();
    }
    case EdrQueryType::kArea: {
      GRIDSTORE_ASSIGN_OR_RETURN(std::string coords, Required(p, "coords", type));
      if (!StartsWithWord(coords, "polygon") && !StartsWithWord(coords, "multipolygon")) {
        return Status::InvalidArgument("coords " + Quote(coords) +
                                       " is not a WKT POLYGON or MULTIPOLYGON");
      }
      r->polygon = coords;
      return Status::OK();
    }
    case EdrQueryType::kCube: {
      GRIDSTORE_ASSIGN_OR_RETURN(std::string bbox, Required(p, "bbox", type));
      const std::vector<std::string> parts = SplitList(bbox, ',');
      if (parts.size() != 4) {
        return Status::InvalidArgument("bbox " + Quote(bbox) +
                                       " is not minLon,minLat,maxLon,maxLat (give levels with z)");
      }
      std::array<double, 4> box{};
      for (int i = 0; i < 4; ++i) {
        GRIDSTORE_ASSIGN_OR_RETURN(box[i], Number(parts[i], "bbox"));
      }
      r->bbox = box;
      return Status::OK();
    }
    case EdrQueryType::kRadius: {
      GRIDSTORE_ASSIGN_OR_RETURN(std::string coords, Required(p, "coords", type));
      GRIDSTORE_ASSIGN_OR_RETURN(std::vector<grid::LonLat> centre, ParsePoints(coords, false));
      GRIDSTORE_ASSIGN_OR_RETURN(std::string within, Required(p, "within", type));
      GRIDSTORE_ASSIGN_OR_RETURN(std::string units, Required(p, "within-units", type));
      GRIDSTORE_ASSIGN_OR_RETURN(double km, DistanceKm(within, units, "within"));
      r->radius = grid::Radius{centre[0], km};
      return Status::OK();
    }
    case EdrQueryType::kTrajectory:
    case EdrQueryType::kCorridor: {
      GRIDSTORE_ASSIGN_OR_RETURN(std::string coords, Required(p, "coords", type));
      if (!StartsWithWord(coords, "linestring")) {
        return Status::InvalidArgument("coords " + Quote(coords) +
                                       " is not a WKT LINESTRING (Z, M or ZM)");
      }
      r->trajectory = coords;
      if (type == EdrQueryType::kTrajectory) return Status::OK();
      GRIDSTORE_ASSIGN_OR_RETURN(std::string width, Required(p, "corridor-width", type));
      GRIDSTORE_ASSIGN_OR_RETURN(std::string units, Required(p, "width-units", type));
      GRIDSTORE_ASSIGN_OR_RETURN(r->corridor_width_km, DistanceKm(width, units, "corridor-width"));
      return Status::OK();
    }
  }
  return Status::InvalidArgument("unknown query type");
}

}  // namespace

const char* EdrQueryTypeName(EdrQueryType type) {
  switch (type) {
    case EdrQueryType::kPosition:
      return "position";
    case EdrQueryType::kArea:
      return "area";
    case EdrQueryType::kCube:
      return "cube";
    case EdrQueryType::kRadius:
      return "radius";
    case EdrQueryType::kTrajectory:
      return "trajectory";
    case EdrQueryType::kCorridor:
      return "corridor";
  }
  return "?";
}

std::optional<EdrQueryType> EdrQueryTypeFromName(std::string_view name) {
  for (EdrQueryType t : kEdrQueryTypes) {
    if (name == EdrQueryTypeName(t)) return t;
  }
  return std::nullopt;
}

const char* EdrFormatName(OutputFormat format) {
  switch (format) {
    case OutputFormat::kCoverageJson:
      return "CoverageJSON";
    case OutputFormat::kNetCdf:
      return "NetCDF";
    case OutputFormat::kCsv:
      return "CSV";
    case OutputFormat::kJson:
      return "JSON";  // forecast collections only
    case OutputFormat::kNpy:
      break;  // not served
  }
  return "?";
}

Result<double> DistanceKm(std::string_view value, std::string_view units, std::string_view what) {
  GRIDSTORE_ASSIGN_OR_RETURN(double v, Number(value, what));
  const std::string u = Lower(Trim(units));
  double km_per_unit = 0;
  if (u == "km" || u == "kilometers" || u == "kilometres") {
    km_per_unit = 1;
  } else if (u == "m" || u == "meters" || u == "metres") {
    km_per_unit = 0.001;
  } else if (u == "mi" || u == "miles") {
    km_per_unit = 1.609344;
  } else if (u == "nmi" || u == "nautical miles") {
    km_per_unit = 1.852;
  } else {
    return Status::InvalidArgument(std::string(what) + " units " + Quote(units) +
                                   " are not km, m, mi or nmi");
  }
  if (v <= 0) {
    return Status::InvalidArgument(std::string(what) + " " + Quote(value) + " must be positive");
  }
  return v * km_per_unit;
}

Result<EdrQuery> ParseEdrQuery(EdrQueryType type, const QueryParameters& parameters,
                               const std::vector<std::string>& variables,
                               const EdrQueryExtensions& extensions) {
  auto allowed = Allowed(type);
  allowed.insert(extensions.parameters.begin(), extensions.parameters.end());
  for (const auto& [name, value] : parameters) {
    if (!allowed.contains(name)) {
      return Status::InvalidArgument("the " + std::string(EdrQueryTypeName(type)) +
                                     " query has no parameter " + Quote(name) + "; it takes " +
                                     Join(allowed, ", "));
    }
  }
  EdrQuery q;
  GRIDSTORE_RETURN_IF_ERROR(CheckCrs(Find(parameters, "crs")));
  GRIDSTORE_ASSIGN_OR_RETURN(q.format, ParseFormat(Find(parameters, "f"), extensions.json));
  GRIDSTORE_RETURN_IF_ERROR(ParseFeature(type, parameters, &q.request));
  if (const std::string* names = Find(parameters, "parameter-name")) {
    for (const std::string& name : SplitList(*names, ',')) {
      q.request.variables.emplace_back(Trim(name));
    }
    if (q.request.variables.empty()) {
      return Status::InvalidArgument("parameter-name is empty; name one or more of " +
                                     Join(variables, ", "));
    }
  }
  if (const std::string* t = Find(parameters, "datetime")) q.request.time = std::string(Trim(*t));
  if (const std::string* z = Find(parameters, "z")) {
    GRIDSTORE_ASSIGN_OR_RETURN(q.request.level, LevelSpec(Trim(*z)));
  }
  if (const std::string* m = Find(parameters, "method")) {
    if (*m == "bilinear") {
      q.request.method = grid::InterpolationMethod::kBilinear;
    } else if (*m != "nearest") {
      return Status::InvalidArgument("method " + Quote(*m) + " is not nearest or bilinear");
    }
  }
  for (const char* name : {"time-method", "level-method"}) {
    const std::string* m = Find(parameters, name);
    if (m == nullptr) continue;
    if (*m != "nearest" && *m != "exact") {
      return Status::InvalidArgument(std::string(name) + " " + Quote(*m) +
                                     " is not exact or nearest");
    }
    (name[0] == 't' ? q.request.time_match : q.request.level_match) =
        *m == "nearest" ? grid::AxisMatch::kNearest : grid::AxisMatch::kExact;
  }
  q.request.unpack = true;  // CoverageJSON, NetCDF and CSV all carry values
  return q;
}

}  // namespace gridstore::server
