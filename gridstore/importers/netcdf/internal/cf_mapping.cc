// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/netcdf/internal/cf_mapping.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <utility>

#include "gridstore/importers/netcdf/internal/netcdf_util.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_importers {

using grid::Attributes;
using grid::AttributeValue;
using grid::DataSetMeta;
using grid::DataType;
using grid::kT;
using grid::kX;
using grid::kY;
using grid::kZ;

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// `a`'s first number converted to T, if T holds it exactly (NaN counts as exact for floats).
template <typename T>
std::optional<T> ExactValue(const AttributeValue& a) {
  if (!a.is_number() || a.size() == 0) return std::nullopt;
  if (!grid::IsFloatingPoint(a.number_type())) {
    const int64_t raw = a.integers()[0];
    const bool is_unsigned = a.number_type() == DataType::kUint64;
    if constexpr (std::is_integral_v<T>) {
      if (is_unsigned) {
        const auto u = static_cast<uint64_t>(raw);
        if (!std::in_range<T>(u)) return std::nullopt;
        return static_cast<T>(u);
      }
      if (!std::in_range<T>(raw)) return std::nullopt;
      return static_cast<T>(raw);
    } else {
      // An integer is exact in T if it converts back unchanged; 2^63 / 2^64 themselves are not.
      if (is_unsigned) {
        const auto u = static_cast<uint64_t>(raw);
        const T t = static_cast<T>(u);
        if (static_cast<double>(t) >= 18446744073709551616.0 || static_cast<uint64_t>(t) != u) {
          return std::nullopt;
        }
        return t;
      }
      const T t = static_cast<T>(raw);
      if (static_cast<double>(t) >= 9223372036854775808.0 || static_cast<int64_t>(t) != raw) {
        return std::nullopt;
      }
      return t;
    }
  }
  const double d = a.floats()[0];
  if constexpr (std::is_floating_point_v<T>) {
    if (std::isnan(d)) return std::numeric_limits<T>::quiet_NaN();
    if (std::isfinite(d) && std::fabs(d) > static_cast<double>(std::numeric_limits<T>::max())) {
      return std::nullopt;
    }
    const T t = static_cast<T>(d);
    if (static_cast<double>(t) != d) return std::nullopt;
    return t;
  } else {
    if (!std::isfinite(d) || d != std::trunc(d)) return std::nullopt;
    if (d < 0) {
      if (d < -9223372036854775808.0) return std::nullopt;
      const auto s = static_cast<int64_t>(d);
      if (!std::in_range<T>(s)) return std::nullopt;
      return static_cast<T>(s);
    }
    if (d >= 18446744073709551616.0) return std::nullopt;
    const auto u = static_cast<uint64_t>(d);
    if (!std::in_range<T>(u)) return std::nullopt;
    return static_cast<T>(u);
  }
}

// netCDF-C's default fill value for `type`: what it returns for data never written when the
// variable has no _FillValue attribute, so blocks GridStore never wrote read the same way.
std::string DefaultFill(nc_type type) {
  auto bytes = [](auto v) { return std::string(reinterpret_cast<const char*>(&v), sizeof(v)); };
  switch (type) {
    case NC_BYTE:
      return bytes(static_cast<int8_t>(NC_FILL_BYTE));
    case NC_UBYTE:
      return bytes(static_cast<uint8_t>(NC_FILL_UBYTE));
    case NC_SHORT:
      return bytes(static_cast<int16_t>(NC_FILL_SHORT));
    case NC_USHORT:
      return bytes(static_cast<uint16_t>(NC_FILL_USHORT));
    case NC_INT:
      return bytes(static_cast<int32_t>(NC_FILL_INT));
    case NC_UINT:
      return bytes(static_cast<uint32_t>(NC_FILL_UINT));
    case NC_INT64:
      return bytes(static_cast<int64_t>(NC_FILL_INT64));
    case NC_UINT64:
      return bytes(static_cast<uint64_t>(NC_FILL_UINT64));
    case NC_FLOAT:
      return bytes(static_cast<float>(NC_FILL_FLOAT));
    case NC_DOUBLE:
      return bytes(static_cast<double>(NC_FILL_DOUBLE));
    default:
      return "";
  }
}

std::string TooManyDimensions(const std::string& path, const NcVariable& v, bool implicit) {
  std::string message = Quote(path) + ": variable " + Quote(v.name) + " has " +
                        std::to_string(v.dim_names.size()) + " dimensions (" +
                        Join(v.dim_names, ", ") +
                        "); GridStore variables have at most 4 (t, z, x, y)";
  if (implicit) message += "; choose the variables to import with --variables";
  return message;
}

// A coordinate's meta, without its values (ReadCoordinateValues reads them).
grid::Coordinate MakeCoordinate(const NcVariable& v) {
  grid::Coordinate c;
  c.name = v.name;
  c.attributes = v.attributes;
  if (!ToDataType(v.type)) {  // a text grid mapping: kept as an int scalar with its attributes
    c.type = DataType::kInt32;
    return c;
  }
  c.type = *ToDataType(v.type);
  for (size_t i = 0; i < v.dim_names.size(); ++i) {
    c.dimensions.push_back(v.dim_names[i]);
    c.shape.push_back(static_cast<int64_t>(v.dim_lengths[i]));
  }
  return c;
}

// A WRF coordinate as CF has it: XLAT/XLONG without their Time dimension, with a standard name
// and CF units (WRF writes "degrees latitude"), found by HorizontalGrid over the variables' own
// dimensions (the U and V grids get theirs); `Times` as the time coordinate of its dimension.
grid::Coordinate MakeWrfCoordinate(const NcVariable& v) {
  grid::Coordinate c;
  c.attributes = v.attributes;
  if (v.type == NC_CHAR) {  // Times(Time, DateStrLen)
    c.name = v.dim_names[0];
    c.dimensions = {v.dim_names[0]};
    c.shape = {int64_t(v.dim_lengths[0])};
    c.type = DataType::kFloat64;
    c.attributes.clear();
    c.attributes["standard_name"] = AttributeValue::String("time");
    c.attributes["long_name"] = AttributeValue::String("time (from WRF's Times)");
    return c;  // units "seconds since <the first time>" once read (ReadCoordinateValues)
  }
  c.name = v.name;
  c.type = *ToDataType(v.type);
  for (size_t i = v.dim_names.size() - 2; i < v.dim_names.size(); ++i) {
    c.dimensions.push_back(v.dim_names[i]);
    c.shape.push_back(static_cast<int64_t>(v.dim_lengths[i]));
  }
  const bool lat = v.name.find("LAT") != std::string::npos;
  c.attributes["standard_name"] = AttributeValue::String(lat ? "latitude" : "longitude");
  c.attributes["units"] = AttributeValue::String(lat ? "degrees_north" : "degrees_east");
  return c;
}

}  // namespace

const AttributeValue* FindAttribute(const Attributes& attributes, std::string_view name) {
  auto it = attributes.find(name);
  return it == attributes.end() ? nullptr : &it->second;
}

bool IsPressureUnit(std::string_view units) {
  static const std::set<std::string, std::less<>> kPressure = {
      "pa",      "pascal",   "pascals",   "hpa", "hectopascal", "hectopascals", "kpa",
      "mbar",    "millibar", "millibars", "mb",  "bar",         "bars",         "dbar",
      "decibar", "decibars", "cbar",      "atm", "torr",        "mmhg",         "psi"};
  return kPressure.count(Lower(gridstore::Trim(units))) > 0;
}

// WRF's coordinates: latitudes and longitudes of the mass, U and V grids (and geogrid's
// computational grid), 2-D or with a leading Time dimension.
static bool IsWrfLatLon(const NcVariable& v) {
  static const std::set<std::string, std::less<>> kNames = {
      "XLAT",    "XLONG",  "XLAT_M",  "XLONG_M", "XLAT_U",
      "XLONG_U", "XLAT_V", "XLONG_V", "CLAT",    "CLONG"};
  if (!kNames.count(v.name) || !ToDataType(v.type)) return false;
  return v.dim_names.size() == 2 || (v.dim_names.size() == 3 && v.dim_names[0] == "Time");
}

References CollectReferences(const FileStructure& f) {
  References refs;
  if (FindAttribute(f.global_attributes, "MAP_PROJ") != nullptr) {
    for (const NcVariable& v : f.variables) {
      if (IsWrfLatLon(v)) refs.wrf_lat_lon.insert(v.name);
      if (v.name == "Times" && v.type == NC_CHAR && v.dim_names.size() == 2) {
        refs.wrf_times = v.name;
      }
    }
  }
  for (const NcVariable& v : f.variables) {
    if (v.dim_names.size() == 1 && !IsCoordinateVariable(v) && IsLatitudeOrLongitude(v)) {
      // A 1-D latitude or longitude over a dimension that is not its own: unstructured cells.
      // Counted as a cell dimension once it has both (below).
      refs.cell_dims.insert(v.dim_names[0]);
    }
    if (StringAttribute(v.attributes, "cf_role") == "mesh_topology") {
      for (const char* attr :
           {"face_node_connectivity", "edge_node_connectivity", "boundary_node_connectivity",
            "face_edge_connectivity", "face_face_connectivity", "edge_face_connectivity",
            "volume_node_connectivity"}) {
        for (auto& n : SplitWhitespace(StringAttribute(v.attributes, attr))) {
          refs.mesh_connectivity.insert(n);
        }
      }
    }
    for (const char* attr : {"bounds", "climatology"}) {
      for (auto& n : SplitWhitespace(StringAttribute(v.attributes, attr))) refs.bounds.insert(n);
    }
    for (auto& n : SplitWhitespace(StringAttribute(v.attributes, "coordinates"))) {
      refs.coordinates.insert(n);
    }
    // "crs" or, since CF-1.7, "crs: lat lon crs2: x y": the names before colons are mappings.
    auto tokens = SplitWhitespace(StringAttribute(v.attributes, "grid_mapping"));
    const bool extended =
        std::any_of(tokens.begin(), tokens.end(), [](auto& t) { return t.back() == ':'; });
    for (auto& t : tokens) {
      if (!extended) {
        refs.grid_mappings.insert(t);
      } else if (t.back() == ':') {
        refs.grid_mappings.insert(t.substr(0, t.size() - 1));
      } else {
        refs.coordinates.insert(t);
      }
    }
  }
  // Ensemble members along a leading dimension (docs/usage-import.md, "Forecast collections").
  for (const NcVariable& v : f.variables) {
    if (v.dim_names.size() >= 3 && IsMemberDimension(f, v.dim_names[0])) {
      refs.member_dims.insert(v.dim_names[0]);
    }
  }
  // Keep only dimensions with both a latitude and a longitude over them.
  std::erase_if(refs.cell_dims, [&](const std::string& dim) {
    bool lat = false, lon = false;
    for (const NcVariable& v : f.variables) {
      if (v.dim_names.size() != 1 || v.dim_names[0] != dim || !IsLatitudeOrLongitude(v)) continue;
      const std::string sn = StringAttribute(v.attributes, "standard_name");
      const std::string units = StringAttribute(v.attributes, "units");
      const bool is_lat = sn == "latitude" || units.find("north") != std::string::npos;
      (is_lat ? lat : lon) = true;
    }
    return !(lat && lon);
  });
  return refs;
}

bool IsCoordinateVariable(const NcVariable& v) {
  return v.dim_names.size() == 1 && v.dim_names[0] == v.name;
}

// A latitude or longitude by CF's own marks (standard_name, or units in degrees north/east):
// MM5 and others write 2-D lat/lon that no `coordinates` attribute names.
bool IsLatitudeOrLongitude(const NcVariable& v) {
  const std::string sn = Lower(gridstore::Trim(StringAttribute(v.attributes, "standard_name")));
  if (sn == "latitude" || sn == "longitude") return true;
  const std::string units = Lower(gridstore::Trim(StringAttribute(v.attributes, "units")));
  static const std::set<std::string, std::less<>> kUnits = {
      "degrees_north", "degree_north", "degree_n", "degrees_n", "degreen", "degreesn",
      "degrees_east",  "degree_east",  "degree_e", "degrees_e", "degreee", "degreese"};
  return kUnits.count(units) > 0;
}

Classified Classify(const NcVariable& v, const References& refs) {
  if (refs.wrf_lat_lon.count(v.name)) return {Role::kCoordinate, ""};
  if (v.name == refs.wrf_times && !v.name.empty()) return {Role::kCoordinate, ""};
  if (v.type == NC_CHAR) return {Role::kSkipped, "character variable"};
  if (v.type == NC_STRING) return {Role::kSkipped, "string variable"};
  if (!ToDataType(v.type)) return {Role::kSkipped, "user-defined type"};
  if (refs.bounds.count(v.name)) return {Role::kSkipped, "bounds variable"};
  if (refs.grid_mappings.count(v.name)) return {Role::kSkipped, "grid mapping variable"};
  if (refs.mesh_connectivity.count(v.name) ||
      StringAttribute(v.attributes, "cf_role").ends_with("_connectivity")) {
    return {Role::kSkipped, "UGRID mesh connectivity"};
  }
  if (StringAttribute(v.attributes, "cf_role") == "mesh_topology") {
    return {Role::kSkipped, "UGRID mesh topology"};
  }
  // A leading member dimension is not one of the four axes (one dataset per member).
  const size_t members = HasMemberDimension(v, refs) ? 1 : 0;
  // Over a cell dimension: a latitude/longitude of the cells, or data on them (1 to 3 dims).
  if (!v.dim_names.empty() && refs.cell_dims.count(v.dim_names.back())) {
    if (v.dim_names.size() == 1 && IsLatitudeOrLongitude(v)) return {Role::kCoordinate, ""};
    if (v.dim_names.size() <= 3 + members && !IsCoordinateVariable(v)) {
      return {Role::kGridded, ""};
    }
  }
  if (IsCoordinateVariable(v)) return {Role::kCoordinate, ""};
  if (refs.coordinates.count(v.name) && v.dim_names.size() <= 2) return {Role::kCoordinate, ""};
  if (v.dim_names.size() == 2 && IsLatitudeOrLongitude(v)) return {Role::kCoordinate, ""};
  if (v.dim_names.empty()) return {Role::kSkipped, "scalar variable"};
  if (v.dim_names.size() == 1) {
    // Data on the cells of an unstructured grid (CAM-SE `ncol`, a UGRID mesh's faces): one
    // horizontal dimension, not rows and columns.
    if (FindAttribute(v.attributes, "mesh") != nullptr ||
        FindAttribute(v.attributes, "location") != nullptr) {
      return {Role::kSkipped, "data on the " + StringAttribute(v.attributes, "location") +
                                  "s of UGRID mesh " +
                                  Quote(StringAttribute(v.attributes, "mesh")) +
                                  ", whose cells have no 1-D latitude and longitude"};
    }
    return {Role::kSkipped, "1-D variable that is not a coordinate"};
  }
  if (v.dim_names.size() > grid::kRank + members) return {Role::kTooManyDimensions, ""};
  for (size_t i = 0; i < v.dim_names.size(); ++i) {
    if (v.dim_lengths[i] == 0) {
      return {Role::kSkipped, "no data (dimension " + Quote(v.dim_names[i]) + " has length 0)"};
    }
  }
  return {Role::kGridded, ""};
}

// CF: a dimension is vertical if its coordinate variable has axis "Z", a `positive` attribute,
// or units of pressure.
bool IsVerticalDimension(const FileStructure& f, const std::string& dim) {
  const NcVariable* c = f.Find(dim);
  if (c == nullptr || !IsCoordinateVariable(*c)) return false;
  if (Lower(gridstore::Trim(StringAttribute(c->attributes, "axis"))) == "z") return true;
  if (FindAttribute(c->attributes, "positive") != nullptr) return true;
  return IsPressureUnit(StringAttribute(c->attributes, "units"));
}

// DESIGN.md: the last two dimensions are x and y; with four, the first two are t and z; with
// three, the leading one is z if vertical, else t.
std::vector<int> MapAxes(const FileStructure& f, const NcVariable& v, const References& refs) {
  if (!v.dim_names.empty() && refs.cell_dims.count(v.dim_names.back())) {
    switch (v.dim_names.size()) {
      case 3:
        return {kT, kZ, kY};
      case 2:
        return {IsVerticalDimension(f, v.dim_names[0]) ? kZ : kT, kY};
      default:
        return {kY};
    }
  }
  switch (v.dim_names.size()) {
    case 4:
      return {kT, kZ, kX, kY};
    case 3:
      return {IsVerticalDimension(f, v.dim_names[0]) ? kZ : kT, kX, kY};
    default:
      return {kX, kY};
  }
}

grid::VariableMeta MakeVariableMeta(const NcVariable& v, const std::vector<int>& axes) {
  grid::VariableMeta meta;
  meta.name = v.name;
  meta.type = *ToDataType(v.type);
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i] == kMemberAxis) continue;  // one dataset per member
    meta.shape[axes[i]] = static_cast<int64_t>(v.dim_lengths[i]);
    meta.dimension_names[axes[i]] = v.dim_names[i];
  }
  meta.attributes = v.attributes;
  if (const AttributeValue* fill = FindAttribute(v.attributes, "_FillValue")) {
    // Kept only if exact in the variable's type (a double NaN on shorts is not); the attribute
    // itself stays either way.
    meta.fill_value = grid::VisitDataType(meta.type, [&](auto tag) -> std::string {
      using T = decltype(tag);
      std::optional<T> value = ExactValue<T>(*fill);
      if (!value) return "";
      return std::string(reinterpret_cast<const char*>(&*value), sizeof(T));
    });
  } else {
    meta.fill_value = DefaultFill(v.type);
  }
  if (const AttributeValue* missing = FindAttribute(v.attributes, "missing_value");
      missing && missing->is_number()) {
    for (size_t i = 0; i < missing->size(); ++i)
      meta.missing_values.push_back(missing->AsDouble(i));
  }
  const AttributeValue* scale = FindAttribute(v.attributes, "scale_factor");
  const AttributeValue* offset = FindAttribute(v.attributes, "add_offset");
  if (scale && !scale->is_number()) scale = nullptr;
  if (offset && !offset->is_number()) offset = nullptr;
  if (scale || offset) {
    grid::Packing packing;
    if (scale) packing.scale_factor = scale->AsDouble();
    if (offset) packing.add_offset = offset->AsDouble();
    const AttributeValue* typed = scale ? scale : offset;
    packing.unpacked_type =
        grid::IsFloatingPoint(typed->number_type()) ? typed->number_type() : DataType::kFloat64;
    meta.packing = packing;
  }
  return meta;
}

namespace {

// The indices of the variables to import, in file order: every gridded one, or those
// options.variables names (each must exist and be gridded).
Result<std::vector<size_t>> SelectVariables(const std::string& path,
                                            const importers::NetCdfImportOptions& options,
                                            const FileStructure& f,
                                            const std::vector<Classified>& roles) {
  std::vector<size_t> selected;
  if (options.variables.empty()) {
    for (size_t i = 0; i < f.variables.size(); ++i) {
      if (roles[i].role == Role::kTooManyDimensions) {
        return Status::InvalidArgument(TooManyDimensions(path, f.variables[i], true));
      }
      if (roles[i].role == Role::kGridded) selected.push_back(i);
    }
    return selected;
  }
  std::vector<std::string> gridded;
  for (size_t i = 0; i < f.variables.size(); ++i) {
    if (roles[i].role == Role::kGridded) gridded.push_back(f.variables[i].name);
  }
  const std::string available = gridded.empty() ? "it has none" : "it has: " + Join(gridded, ", ");
  std::set<size_t> chosen;
  for (const std::string& name : options.variables) {
    auto it = f.by_name.find(name);
    if (it == f.by_name.end()) {
      return Status::InvalidArgument(Quote(path) + " has no variable " + Quote(name) +
                                     " to import (" + available + ")");
    }
    const Classified& c = roles[it->second];
    if (c.role == Role::kTooManyDimensions) {
      return Status::InvalidArgument(TooManyDimensions(path, f.variables[it->second], false));
    }
    if (c.role != Role::kGridded) {
      const std::string why = c.role == Role::kCoordinate ? "a coordinate" : c.why;
      return Status::InvalidArgument(Quote(path) + ": " + Quote(name) +
                                     " is not a gridded variable (" + why + "); " + available);
    }
    chosen.insert(it->second);
  }
  return std::vector<size_t>(chosen.begin(), chosen.end());
}

// The grid mapping variables the selected variables name and the bounds of the coordinates
// they use (CF cell metadata): kept in the meta as coordinates, so that extraction can
// georeference the grid and export can write them back. Bounds of 2-D coordinates (3-D arrays)
// are not kept.
std::set<std::string, std::less<>> CellMetadataOf(const FileStructure& f,
                                                  const std::vector<size_t>& selected) {
  std::set<std::string, std::less<>> kept, coordinates;
  for (size_t i : selected) {
    const NcVariable& v = f.variables[i];
    for (auto& t : SplitWhitespace(StringAttribute(v.attributes, "grid_mapping"))) {
      if (t.back() == ':') t.pop_back();  // "crs: lat lon": the mapping is before the colon
      // A grid mapping's value means nothing, only its attributes do, so its type does not
      // matter: CDO writes `char rotated_pole` (CORDEX), others int, byte or float.
      const NcVariable* m = f.Find(t);
      if (m != nullptr && (m->dim_names.empty() || !ToDataType(m->type))) kept.insert(t);
    }
    coordinates.insert(v.dim_names.begin(), v.dim_names.end());
    for (auto& n : SplitWhitespace(StringAttribute(v.attributes, "coordinates"))) {
      coordinates.insert(n);
    }
  }
  for (const std::string& name : coordinates) {
    const NcVariable* c = f.Find(name);
    if (c == nullptr) continue;
    for (const char* attr : {"bounds", "climatology"}) {
      const NcVariable* b = f.Find(StringAttribute(c->attributes, attr));
      if (b != nullptr && b->dim_names.size() == 2 && ToDataType(b->type) &&
          std::count(b->dim_lengths.begin(), b->dim_lengths.end(), size_t{0}) == 0) {
        kept.insert(b->name);
      }
    }
  }
  return kept;
}

}  // namespace

// Adds `v` (a coordinate, or cell metadata in `kept`) to the plan if the variables use it: the
// coordinate variables of the dimensions used, the auxiliary coordinates named, the grid
// mappings and bounds that describe them, latitudes and longitudes over the dimensions used
// that no `coordinates` attribute names, and WRF's coordinates.
static void AddCoordinate(const NcVariable& v, const References& refs,
                          const std::set<std::string, std::less<>>& used_dims,
                          const std::set<std::string, std::less<>>& aux_names,
                          const std::set<std::string, std::less<>>& kept, ImportPlan* plan) {
  const bool unnamed_lat_lon = IsLatitudeOrLongitude(v) &&
                               ((v.dim_names.size() == 2 && used_dims.count(v.dim_names[0]) &&
                                 used_dims.count(v.dim_names[1])) ||
                                (v.dim_names.size() == 1 && refs.cell_dims.count(v.dim_names[0]) &&
                                 used_dims.count(v.dim_names[0])));
  const bool wrf = refs.wrf_lat_lon.count(v.name) > 0 || v.name == refs.wrf_times;
  const bool wanted = (IsCoordinateVariable(v) && used_dims.count(v.name)) ||
                      aux_names.count(v.name) || kept.count(v.name) || unnamed_lat_lon || wrf;
  if (!wanted) return;
  for (const std::string& dim : v.dim_names) {
    if (refs.member_dims.count(dim)) return;  // the members' numbers: one dataset each
  }
  if (std::count(v.dim_lengths.begin(), v.dim_lengths.end(), size_t{0}) > 0) {
    plan->notes.push_back("skipped coordinate " + Quote(v.name) + ": it has no values");
    return;
  }
  if (wrf) {
    plan->meta.coordinates.push_back(MakeWrfCoordinate(v));
    plan->coordinate_sources.push_back({&v, v.name == refs.wrf_times
                                                ? CoordinateSource::Kind::kWrfTimes
                                                : CoordinateSource::Kind::kFirstOfTime});
    return;
  }
  plan->meta.coordinates.push_back(MakeCoordinate(v));
  plan->coordinate_sources.push_back({&v});
}

Result<ImportPlan> PlanFileImport(const std::string& path,
                                  const importers::NetCdfImportOptions& options,
                                  const FileStructure& file) {
  const FileStructure* f = &file;
  ImportPlan plan;
  plan.notes = f->notes;
  const References refs = CollectReferences(*f);
  std::vector<Classified> roles;
  for (const NcVariable& v : f->variables) roles.push_back(Classify(v, refs));
  GRIDSTORE_ASSIGN_OR_RETURN(const std::vector<size_t> selected,
                             SelectVariables(path, options, *f, roles));
  const std::set<std::string, std::less<>> kept = CellMetadataOf(*f, selected);
  for (size_t i = 0; i < f->variables.size(); ++i) {
    if (kept.count(f->variables[i].name)) continue;  // not skipped: kept as a coordinate
    if (roles[i].role == Role::kSkipped) {
      plan.notes.push_back("skipped " + Quote(f->variables[i].name) + ": " + roles[i].why);
    } else if (roles[i].role == Role::kTooManyDimensions) {
      plan.notes.push_back("skipped " + Quote(f->variables[i].name) + ": " +
                           std::to_string(f->variables[i].dim_names.size()) +
                           " dimensions (at most 4)");
    }
  }
  if (selected.empty()) {
    return Status::InvalidArgument(Quote(path) + " has no gridded variable to import (" +
                                   Join(plan.notes, "; ") + ")");
  }

  DataSetMeta& meta = plan.meta;
  meta.id = options.dataset_id;
  meta.layout = options.layout;
  std::set<std::string, std::less<>> used_dims, aux_names;
  for (size_t i : selected) {
    const NcVariable& v = f->variables[i];
    PlannedVariable pv{&v, MapAxesWithMember(*f, v, refs)};
    if (HasMemberDimension(v, refs)) {
      if (!plan.member_dim.empty() && plan.member_dim != v.dim_names[0]) {
        return Status::InvalidArgument(Quote(path) + ": variable " + Quote(v.name) +
                                       " has members along " + Quote(v.dim_names[0]) +
                                       ", others along " + Quote(plan.member_dim) +
                                       ": import them separately (--variables)");
      }
      plan.member_dim = v.dim_names[0];
    }
    meta.variables.push_back(MakeVariableMeta(v, pv.axes));
    plan.variables.push_back(std::move(pv));
    used_dims.insert(v.dim_names.begin(), v.dim_names.end());
    for (auto& n : SplitWhitespace(StringAttribute(v.attributes, "coordinates"))) {
      aux_names.insert(n);
    }
  }
  for (size_t i = 0; i < f->variables.size(); ++i) {
    if (roles[i].role != Role::kCoordinate && !kept.count(f->variables[i].name)) continue;
    AddCoordinate(f->variables[i], refs, used_dims, aux_names, kept, &plan);
  }
  // Every variable on a cell axis (one row per plane): blocks along the row.
  if (std::all_of(meta.variables.begin(), meta.variables.end(),
                  [](const grid::VariableMeta& v) { return v.dimension_names[kX].empty(); })) {
    meta.layout = grid::ForOneRowPlanes(meta.layout);
  }
  meta.attributes = f->global_attributes;
  for (const auto& [name, value] : options.attributes) meta.attributes[name] = value;
  meta.set_status(grid::kStatusInit);
  return plan;
}

}  // namespace gridstore::internal_importers
