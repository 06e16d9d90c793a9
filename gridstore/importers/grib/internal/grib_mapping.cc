// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/grib/internal/grib_mapping.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_importers {
namespace {

using grid::AttributeValue;
using grid::Coordinate;
using grid::DataType;
using grid::VariableMeta;

// Grids whose points form rows of equal length, with 1-D latitudes and longitudes.
bool IsRegularLatLon(const std::string& type) {
  return type == "regular_ll" || type == "regular_gg";
}
// Grids whose points form rows of equal length, with latitudes and longitudes per point.
bool IsProjected(const std::string& type) {
  return type == "rotated_ll" || type == "lambert" || type == "polar_stereographic" ||
         type == "mercator" || type == "lambert_azimuthal_equal_area" || type == "albers" ||
         type == "rotated_gg" || type == "transverse_mercator";
}

std::string IsoOf(long date, long time) {
  char buffer[128];
  std::snprintf(buffer, sizeof(buffer), "%04ld-%02ld-%02ld %02ld:%02ld:00", date / 10000,
                (date / 100) % 100, date % 100, time / 100, time % 100);
  return buffer;
}

// Units and direction of the common level types (ecCodes' typeOfLevel names).
void DescribeLevel(const std::string& type, grid::Attributes* attributes) {
  struct Known {
    const char* type;
    const char* units;
    const char* positive;
    const char* standard_name;
  };
  static constexpr Known kKnown[] = {
      {"isobaricInhPa", "hPa", "down", "air_pressure"},
      {"isobaricInPa", "Pa", "down", "air_pressure"},
      {"heightAboveGround", "m", "up", "height"},
      {"heightAboveSea", "m", "up", "altitude"},
      {"depthBelowSea", "m", "down", "depth"},
      {"depthBelowLand", "cm", "down", "depth"},
      {"hybrid", "1", "down", "model_level_number"},
  };
  (*attributes)["long_name"] = AttributeValue::String(type);
  for (const Known& k : kKnown) {
    if (type != k.type) continue;
    (*attributes)["units"] = AttributeValue::String(k.units);
    (*attributes)["positive"] = AttributeValue::String(k.positive);
    (*attributes)["standard_name"] = AttributeValue::String(k.standard_name);
    (*attributes)["axis"] = AttributeValue::String("Z");
  }
}

Coordinate MakeCoordinate(std::string name, std::vector<std::string> dims,
                          std::vector<int64_t> shape, std::vector<double> values, DataType type) {
  Coordinate c;
  c.name = std::move(name);
  c.dimensions = std::move(dims);
  c.shape = std::move(shape);
  c.values = std::move(values);
  c.type = type;
  return c;
}

struct VariableKey {
  std::string short_name, type_of_level, step_type;
  bool operator<(const VariableKey& o) const {
    return std::tie(short_name, type_of_level, step_type) <
           std::tie(o.short_name, o.type_of_level, o.step_type);
  }
};

std::string ShortName(const GribField& f) {
  return f.short_name.empty() ? "param" + std::to_string(f.param_id) : f.short_name;
}

// The horizontal coordinates: 1-D latitude/longitude for regular grids, 2-D for projected ones.
void AddHorizontal(const GribField& first, int64_t rows, int64_t columns,
                   const std::vector<double>& lats, const std::vector<double>& lons,
                   std::array<std::string, 2>* dims, grid::DataSetMeta* meta) {
  grid::Attributes lat_attrs, lon_attrs;
  lat_attrs["units"] = AttributeValue::String("degrees_north");
  lat_attrs["standard_name"] = AttributeValue::String("latitude");
  lon_attrs["units"] = AttributeValue::String("degrees_east");
  lon_attrs["standard_name"] = AttributeValue::String("longitude");
  if (IsRegularLatLon(first.grid_type)) {
    // Rows run along latitude unless the points of a column are consecutive.
    const bool by_row = !first.j_consecutive;
    std::vector<double> outer, inner;
    for (int64_t r = 0; r < rows; ++r) outer.push_back((by_row ? lats : lons)[size_t(r * columns)]);
    for (int64_t c = 0; c < columns; ++c) inner.push_back((by_row ? lons : lats)[size_t(c)]);
    *dims = by_row ? std::array<std::string, 2>{"latitude", "longitude"}
                   : std::array<std::string, 2>{"longitude", "latitude"};
    Coordinate a = MakeCoordinate((*dims)[0], {(*dims)[0]}, {rows}, outer, DataType::kFloat64);
    Coordinate b = MakeCoordinate((*dims)[1], {(*dims)[1]}, {columns}, inner, DataType::kFloat64);
    a.attributes = by_row ? lat_attrs : lon_attrs;
    b.attributes = by_row ? lon_attrs : lat_attrs;
    meta->coordinates.push_back(std::move(a));
    meta->coordinates.push_back(std::move(b));
    return;
  }
  if (rows == 1 && !IsProjected(first.grid_type)) {
    // A grid without fixed rows (reduced Gaussian or lat/lon, a satellite's view, unstructured):
    // a cell axis "values" with every point's own latitude and longitude (HorizontalGrid's
    // unstructured grid), no x dimension.
    *dims = {"", "values"};
    Coordinate lat = MakeCoordinate("latitude", {"values"}, {columns}, lats, DataType::kFloat64);
    Coordinate lon = MakeCoordinate("longitude", {"values"}, {columns}, lons, DataType::kFloat64);
    lat.attributes = lat_attrs;
    lon.attributes = lon_attrs;
    meta->coordinates.push_back(std::move(lat));
    meta->coordinates.push_back(std::move(lon));
    return;
  }
  *dims = {"y", "x"};
  Coordinate lat =
      MakeCoordinate("latitude", {"y", "x"}, {rows, columns}, lats, DataType::kFloat64);
  Coordinate lon =
      MakeCoordinate("longitude", {"y", "x"}, {rows, columns}, lons, DataType::kFloat64);
  lat.attributes = lat_attrs;
  lon.attributes = lon_attrs;
  meta->coordinates.push_back(std::move(lat));
  meta->coordinates.push_back(std::move(lon));
}

// The time coordinate (validity times) and, with one reference time, the step along it.
void AddTime(const std::vector<int64_t>& times, const std::set<std::pair<long, long>>& references,
             bool time_dimension, std::string* dim, grid::DataSetMeta* meta) {
  const auto [ref_date, ref_time] = *references.begin();
  const bool one_reference = references.size() == 1;
  const int64_t epoch = one_reference ? EpochSeconds(ref_date, ref_time) : times.front();
  std::vector<double> hours, steps;
  for (int64_t t : times) hours.push_back(static_cast<double>(t - epoch) / 3600.0);
  const bool axis = times.size() > 1 || time_dimension;
  *dim = axis ? "time" : "";
  std::vector<std::string> dims =
      axis ? std::vector<std::string>{"time"} : std::vector<std::string>{};
  std::vector<int64_t> shape =
      axis ? std::vector<int64_t>{int64_t(times.size())} : std::vector<int64_t>{};
  std::string units = "hours since ";
  if (one_reference) {
    units += IsoOf(ref_date, ref_time);
  } else {
    const int64_t s = times.front();
    const int64_t days = s / 86400, rest = s % 86400;
    // Back to a calendar date for the units' epoch.
    int64_t z = days + 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const int64_t doe = z - era * 146097;
    const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const int64_t mp = (5 * doy + 2) / 153;
    const int64_t day = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9;
    const int64_t year = yoe + era * 400 + (month <= 2);
    units +=
        IsoOf(long(year * 10000 + month * 100 + day), long(rest / 3600 * 100 + rest % 3600 / 60));
  }
  Coordinate time = MakeCoordinate("time", dims, shape, hours, DataType::kFloat64);
  time.attributes["units"] = AttributeValue::String(units);
  time.attributes["calendar"] = AttributeValue::String("standard");
  time.attributes["standard_name"] = AttributeValue::String("time");
  time.attributes["axis"] = AttributeValue::String("T");
  if (one_reference) {
    time.attributes["reference_time"] = AttributeValue::String(IsoOf(ref_date, ref_time));
    Coordinate step = MakeCoordinate("step", dims, shape, hours, DataType::kFloat64);
    step.attributes["units"] = AttributeValue::String("hours");
    step.attributes["long_name"] = AttributeValue::String("time since the reference time");
    step.attributes["standard_name"] = AttributeValue::String("forecast_period");
    meta->coordinates.push_back(std::move(step));
  }
  meta->coordinates.push_back(std::move(time));
}

// The grid's CF grid mapping, as a scalar coordinate "crs" whose attributes define it (CF 1.8,
// appendix F), from ecCodes' keys. False (nothing added) for a grid type without one here.
bool AddGridMapping(const GribField& first, grid::DataSetMeta* meta) {
  const std::map<std::string, double>& k = first.grid_keys;
  auto has = [&](const char* key) { return k.count(key) > 0; };
  auto at = [&](const char* key) { return k.at(key); };
  auto number = [](double v) { return AttributeValue::Floats(DataType::kFloat64, {v}); };
  grid::Attributes a;
  const std::string& type = first.grid_type;
  if (IsRegularLatLon(type)) {
    a["grid_mapping_name"] = AttributeValue::String("latitude_longitude");
  } else if (type == "lambert" && has("LaDInDegrees") && has("LoVInDegrees") &&
             has("Latin1InDegrees") && has("Latin2InDegrees")) {
    a["grid_mapping_name"] = AttributeValue::String("lambert_conformal_conic");
    const double p1 = at("Latin1InDegrees"), p2 = at("Latin2InDegrees");
    a["standard_parallel"] =
        p1 == p2 ? number(p1) : AttributeValue::Floats(DataType::kFloat64, {p1, p2});
    a["longitude_of_central_meridian"] = number(at("LoVInDegrees"));
    a["latitude_of_projection_origin"] = number(at("LaDInDegrees"));
  } else if (type == "polar_stereographic" && has("orientationOfTheGridInDegrees")) {
    a["grid_mapping_name"] = AttributeValue::String("polar_stereographic");
    a["straight_vertical_longitude_from_pole"] = number(at("orientationOfTheGridInDegrees"));
    // Bit 1 of projectionCentreFlag: the south pole is on the projection plane.
    const bool south =
        has("projectionCentreFlag") && (static_cast<long>(at("projectionCentreFlag")) & 128) != 0;
    a["latitude_of_projection_origin"] = number(south ? -90.0 : 90.0);
    if (has("LaDInDegrees")) a["standard_parallel"] = number(at("LaDInDegrees"));
  } else if (type == "mercator" && has("LaDInDegrees")) {
    a["grid_mapping_name"] = AttributeValue::String("mercator");
    a["standard_parallel"] = number(at("LaDInDegrees"));
    a["longitude_of_projection_origin"] = number(0.0);
  } else if (type == "rotated_ll" && has("latitudeOfSouthernPoleInDegrees") &&
             has("longitudeOfSouthernPoleInDegrees")) {
    a["grid_mapping_name"] = AttributeValue::String("rotated_latitude_longitude");
    a["grid_north_pole_latitude"] = number(-at("latitudeOfSouthernPoleInDegrees"));
    double lon = at("longitudeOfSouthernPoleInDegrees") - 180.0;
    if (lon < -180.0) lon += 360.0;
    a["grid_north_pole_longitude"] = number(lon);
    if (has("angleOfRotationInDegrees")) {
      a["north_pole_grid_longitude"] = number(-at("angleOfRotationInDegrees"));
    }
  } else {
    return false;
  }
  if (has("radius")) {
    a["earth_radius"] = number(at("radius"));
  } else if (has("earthMajorAxis") && has("earthMinorAxis")) {
    a["semi_major_axis"] = number(at("earthMajorAxis"));
    a["semi_minor_axis"] = number(at("earthMinorAxis"));
  }
  a["GRIB_gridType"] = AttributeValue::String(type);
  Coordinate crs = MakeCoordinate("crs", {}, {}, {0.0}, DataType::kInt32);
  crs.attributes = std::move(a);
  meta->coordinates.push_back(std::move(crs));
  return true;
}

Status Refuse(const std::vector<std::string>& paths, const GribField& f, const std::string& why) {
  return Status::InvalidArgument(Quote(paths[f.file]) + ": " + f.Describe() + ": " + why);
}

// "field 3 ('t', ...)", with its file when the import reads several.
std::string Where(const std::vector<std::string>& paths, const GribField& f) {
  return paths.size() > 1 ? f.Describe() + " of " + Quote(paths[f.file]) : f.Describe();
}

// What the fields hold, checked: one grid, no grid without rows.
struct Collected {
  std::set<std::pair<long, long>> references;         // (dataDate, dataTime)
  std::vector<int64_t> times;                         // distinct validity times, seconds, ascending
  std::map<VariableKey, std::vector<size_t>> groups;  // the fields of each variable
  // The levels of each variable (its own: 2t at 2 m and 10u at 10 m share no level axis), and
  // the name of the level coordinate each distinct (level type, levels) gets.
  std::map<VariableKey, std::set<double>> levels;
  std::map<std::pair<std::string, std::set<double>>, std::string> level_names;
};

Result<Collected> Collect(const std::vector<std::string>& paths,
                          const std::vector<GribField>& fields) {
  Collected c;
  std::set<int64_t> times;
  GRIDSTORE_RETURN_IF_ERROR(CheckOneGrid(paths, fields));
  for (const GribField& f : fields) {
    c.references.insert({f.data_date, f.data_time});
    times.insert(EpochSeconds(f.validity_date, f.validity_time));
  }
  for (size_t i = 0; i < fields.size(); ++i) {
    const GribField& f = fields[i];
    const VariableKey key{ShortName(f), f.type_of_level, f.step_type};
    c.groups[key].push_back(i);
    c.levels[key].insert(f.level);
  }
  // A level coordinate per distinct set of levels of a type: named after the type when it is
  // the type's only set (or its largest), else after the type and its level ("heightAboveGround"
  // for 2t's 2 m beside "heightAboveGround_10" for 10u's 10 m).
  std::map<std::string, std::vector<std::set<double>>> sets;
  for (const auto& [key, levels] : c.levels) {
    auto& of_type = sets[key.type_of_level];
    if (std::find(of_type.begin(), of_type.end(), levels) == of_type.end())
      of_type.push_back(levels);
  }
  for (auto& [type, of_type] : sets) {
    std::stable_sort(of_type.begin(), of_type.end(),
                     [](const auto& a, const auto& b) { return a.size() > b.size(); });
    for (size_t k = 0; k < of_type.size(); ++k) {
      std::string name = type;
      if (k > 0) {
        name +=
            "_" + (of_type[k].size() == 1 ? FormatDouble(*of_type[k].begin()) : std::to_string(k));
      }
      c.level_names[{type, of_type[k]}] = name;
    }
  }
  c.times.assign(times.begin(), times.end());
  return c;
}

// A coordinate per distinct set of levels (Collected::level_names): 1-D with several levels,
// scalar with one.
void AddLevels(const Collected& collected, grid::DataSetMeta* meta) {
  for (const auto& [type_and_levels, name] : collected.level_names) {
    const auto& [level_type, values] = type_and_levels;
    if (level_type.empty()) continue;
    Coordinate c;
    if (values.size() > 1) {
      c = MakeCoordinate(name, {name}, {int64_t(values.size())},
                         std::vector<double>(values.begin(), values.end()), DataType::kFloat64);
    } else {
      c = MakeCoordinate(name, {}, {}, {*values.begin()}, DataType::kFloat64);
    }
    DescribeLevel(level_type, &c.attributes);
    meta->coordinates.push_back(std::move(c));
  }
}

// What every variable shares: dimension names, stored type, grid.
struct Layout {
  std::array<std::string, 2> plane_dims;
  std::string time_dim;
  DataType type = DataType::kFloat32;
  bool projected = false;
  bool grid_mapping = false;  // a "crs" coordinate describes the grid
  std::string grid_type;
  long member = -1;  // the ensemble member of every field, or -1
};

// The variable of `key`'s fields, and the plane each of them fills.
Status AddVariable(const std::vector<std::string>& paths, const std::string& name,
                   const VariableKey& key, const std::vector<size_t>& indices,
                   const std::vector<GribField>& fields, const Collected& c, const Layout& layout,
                   GribPlan* plan) {
  const GribField& f0 = fields[indices.front()];
  const std::set<double>& zs = c.levels.at(key);
  const bool has_z = zs.size() > 1;
  const std::string& level_name = c.level_names.at({key.type_of_level, zs});
  VariableMeta var;
  var.name = name;
  var.type = layout.type;
  var.shape = {int64_t(c.times.size()), has_z ? int64_t(zs.size()) : 1, plan->rows, plan->columns};
  var.dimension_names = {layout.time_dim, has_z ? level_name : "", layout.plane_dims[0],
                         layout.plane_dims[1]};
  constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
  if (layout.type == DataType::kFloat32) {
    var.set_fill_value(std::numeric_limits<float>::quiet_NaN());
  } else {
    var.set_fill_value(kNan);
  }
  var.attributes["_FillValue"] = AttributeValue::Floats(layout.type, {kNan});
  if (!f0.units.empty()) var.attributes["units"] = AttributeValue::String(f0.units);
  if (!f0.name.empty()) var.attributes["long_name"] = AttributeValue::String(f0.name);
  if (!f0.cf_name.empty()) var.attributes["standard_name"] = AttributeValue::String(f0.cf_name);
  var.attributes["GRIB_paramId"] = AttributeValue::Int64(f0.param_id);
  var.attributes["GRIB_shortName"] = AttributeValue::String(key.short_name);
  var.attributes["GRIB_typeOfLevel"] = AttributeValue::String(key.type_of_level);
  if (!key.step_type.empty()) {
    var.attributes["GRIB_stepType"] = AttributeValue::String(key.step_type);
  }
  if (layout.member >= 0) {
    var.attributes["GRIB_perturbationNumber"] = AttributeValue::Int64(layout.member);
  }
  if (layout.grid_mapping) var.attributes["grid_mapping"] = AttributeValue::String("crs");
  std::vector<std::string> coordinates;
  if (!has_z && !key.type_of_level.empty()) coordinates.push_back(level_name);  // its one level
  if (layout.projected) {
    coordinates.push_back("latitude");
    coordinates.push_back("longitude");
    var.attributes["GRIB_gridType"] = AttributeValue::String(layout.grid_type);
  }
  if (!coordinates.empty()) {
    var.attributes["coordinates"] = AttributeValue::String(Join(coordinates, " "));
  }
  const size_t v = plan->meta.variables.size();
  std::map<std::pair<int64_t, int64_t>, const GribField*> seen;
  for (size_t i : indices) {
    const GribField& f = fields[i];
    const int64_t t = std::lower_bound(c.times.begin(), c.times.end(),
                                       EpochSeconds(f.validity_date, f.validity_time)) -
                      c.times.begin();
    const int64_t z = has_z ? std::distance(zs.begin(), zs.find(f.level)) : 0;
    auto [it, inserted] = seen.emplace(std::pair{t, z}, &f);
    if (!inserted) {
      return Refuse(paths, f,
                    "the same variable " + Quote(name) + ", time " +
                        IsoOf(f.validity_date, f.validity_time) + " and level as " +
                        Where(paths, *it->second) + ": remove the duplicate (grib_copy) first");
    }
    plan->targets[i] = {v, t, z};
  }
  const int64_t expected = var.shape[0] * var.shape[1];
  if (static_cast<int64_t>(indices.size()) < expected) {
    plan->notes.push_back("variable " + Quote(name) + " has " + std::to_string(indices.size()) +
                          " of its " + std::to_string(expected) +
                          " (time, level) fields; the others read as missing (NaN)");
  }
  plan->meta.variables.push_back(std::move(var));
  return Status::OK();
}

// ecCodes (2.28) gives a satellite view's points off the Earth's disk latitude 0, longitude 0,
// where a Meteosat view's sub-satellite point really lies. Those points get no place (NaN), all
// but a (0, 0) whose neighbours along the scan are placed and near it (the sub-satellite point
// itself). Returns how many were unplaced.
size_t UnplaceOffDisk(std::vector<double>* lats, std::vector<double>* lons) {
  const size_t n = lats->size();
  auto at_origin = [&](size_t i) { return (*lats)[i] == 0 && (*lons)[i] == 0; };
  auto placed_near = [&](size_t i) {  // within 10 degrees of (0, 0); longitudes may be 0..360
    const double lon = std::remainder((*lons)[i], 360.0);
    return !at_origin(i) && std::abs((*lats)[i]) < 10 && std::abs(lon) < 10;
  };
  std::vector<size_t> off;
  for (size_t i = 0; i < n; ++i) {
    if (!at_origin(i)) continue;
    const bool sub_satellite = i > 0 && i + 1 < n && placed_near(i - 1) && placed_near(i + 1);
    if (!sub_satellite) off.push_back(i);
  }
  if (off.size() < 2) return 0;  // one (0, 0) point is a place, not the off-disk marker
  for (size_t i : off) (*lats)[i] = (*lons)[i] = NAN;
  return off.size();
}

}  // namespace

Result<GribPlan> PlanGrib(const std::vector<std::string>& paths,
                          const std::vector<GribField>& fields, const GribPlanOptions& options,
                          const std::vector<double>& lats, const std::vector<double>& lons) {
  const GribField& first = fields.front();
  GribPlan plan;
  const bool cells = !IsRegularLatLon(first.grid_type) && !IsProjected(first.grid_type);
  if (cells) {
    // No fixed rows and columns (reduced_gg, reduced_ll, space_view, ...): one cell axis of
    // every point, placed by ecCodes' own latitudes and longitudes of each.
    if (first.num_values <= 0 || lats.size() != size_t(first.num_values)) {
      return Refuse(paths, first,
                    "gridType " + Quote(first.grid_type) +
                        " gives no latitude and longitude of its points, so they cannot be "
                        "placed");
    }
    plan.rows = 1;
    plan.columns = first.num_values;
  } else {
    plan.rows = first.j_consecutive ? first.ni : first.nj;
    plan.columns = first.j_consecutive ? first.nj : first.ni;
  }
  if (plan.rows <= 0 || plan.columns <= 0 || first.num_values != plan.rows * plan.columns ||
      (cells && lons.size() != lats.size()) || lats.size() != size_t(first.num_values) ||
      lons.size() != size_t(first.num_values)) {
    return Refuse(paths, first, "Ni x Nj does not match its number of values");
  }
  GRIDSTORE_ASSIGN_OR_RETURN(const Collected c, Collect(paths, fields));
  grid::DataSetMeta& meta = plan.meta;
  meta.id = options.id;
  Layout layout;
  if (first.grid_type == "space_view") {
    std::vector<double> on_disk_lats = lats, on_disk_lons = lons;
    const size_t off = UnplaceOffDisk(&on_disk_lats, &on_disk_lons);
    if (off > 0) {
      plan.notes.push_back(std::to_string(off) + " of the satellite view's " +
                           std::to_string(lats.size()) +
                           " points lie off the Earth's disk: they have no place (points and "
                           "areas never answer from them)");
    }
    AddHorizontal(first, plan.rows, plan.columns, on_disk_lats, on_disk_lons, &layout.plane_dims,
                  &meta);
  } else {
    AddHorizontal(first, plan.rows, plan.columns, lats, lons, &layout.plane_dims, &meta);
  }
  AddTime(c.times, c.references, options.time_dimension, &layout.time_dim, &meta);
  AddLevels(c, &meta);
  layout.grid_mapping = AddGridMapping(first, &meta);
  meta.attributes["Conventions"] = AttributeValue::String("CF-1.8");
  if (!first.centre_name.empty()) {
    meta.attributes["institution"] = AttributeValue::String(first.centre_name);
  }
  meta.attributes["GRIB_edition"] = AttributeValue::Int64(first.edition);
  meta.attributes["GRIB_centre"] = AttributeValue::Int64(first.centre);
  layout.type = options.type;
  layout.projected = IsProjected(first.grid_type);
  layout.grid_type = first.grid_type;
  layout.member = options.member;
  // Names: shortName where it is unique, else shortName_typeOfLevel; a parameter that comes as
  // several stepTypes (an 18-24 h average and an instant value) keeps its name for the instant
  // one and gets _<stepType> for the others (cfgrib sets them apart the same way). An ensemble's
  // members are planned one at a time (one dataset each), so names carry no member.
  std::map<std::string, std::set<std::string>> level_types, step_types;
  for (const auto& group : c.groups) {
    level_types[group.first.short_name].insert(group.first.type_of_level);
    step_types[group.first.short_name].insert(group.first.step_type);
  }
  plan.targets.resize(fields.size());
  for (const auto& [key, indices] : c.groups) {
    std::string name = level_types[key.short_name].size() > 1 && !key.type_of_level.empty()
                           ? key.short_name + "_" + key.type_of_level
                           : key.short_name;
    if (step_types[key.short_name].size() > 1 && key.step_type != "instant" &&
        !key.step_type.empty()) {
      name += "_" + key.step_type;
    }
    GRIDSTORE_RETURN_IF_ERROR(AddVariable(paths, name, key, indices, fields, c, layout, &plan));
  }
  return plan;
}

int64_t EpochSeconds(long date, long time) {
  int64_t y = date / 10000;
  const int64_t m = (date / 100) % 100, d = date % 100;
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const int64_t days = era * 146097 + doe - 719468;
  return days * 86400 + (time / 100) * 3600 + (time % 100) * 60;
}

Status CheckOneGrid(const std::vector<std::string>& paths, const std::vector<GribField>& fields) {
  if (fields.empty()) return Status::OK();
  const GribField& first = fields.front();
  for (const GribField& f : fields) {
    if (f.grid_type != first.grid_type || f.grid_md5 != first.grid_md5 || f.ni != first.ni ||
        f.nj != first.nj || f.j_consecutive != first.j_consecutive) {
      return Refuse(paths, f,
                    "on another grid (" + f.grid_type + " " + std::to_string(f.ni) + "x" +
                        std::to_string(f.nj) + ") than " + Where(paths, first) + " (" +
                        first.grid_type + " " + std::to_string(first.ni) + "x" +
                        std::to_string(first.nj) + "); import them as separate datasets");
    }
  }
  return Status::OK();
}

}  // namespace gridstore::internal_importers
