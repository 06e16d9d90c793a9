// Copyright 2026 The GridStore Authors.
//
// The CF mapping of a netCDF file onto GridStore's model, as pure functions of the file's
// structure read beforehand (netcdf_file.h): which variables are gridded, coordinates, bounds,
// grid mappings or skipped (and why), how each gridded variable's dimensions map to (t, z, x, y),
// its fill value, missing values and packing, and the dataset's meta. Nothing here opens a file or
// calls netCDF, so every rule is tested on structures built in memory (cf_mapping_test.cc).
#ifndef GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_CF_MAPPING_H_
#define GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_CF_MAPPING_H_

#include <netcdf.h>

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/importers/netcdf/netcdf_importer.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/model/quantize.h"
#include "gridstore/util/result.h"

namespace gridstore::internal_importers {

// One variable of the file, as ReadStructure found it (attributes GridStore cannot hold are left
// out, with a note).
struct NcVariable {
  int id = 0;
  std::string name;
  nc_type type = NC_NAT;
  std::vector<std::string> dim_names;
  std::vector<size_t> dim_lengths;
  grid::Attributes attributes;
};

// The root group of a file: its variables in file order and its global attributes.
struct FileStructure {
  std::vector<NcVariable> variables;
  std::map<std::string, size_t, std::less<>> by_name;
  grid::Attributes global_attributes;
  std::vector<std::string> notes;

  // Appends `v` (names are unique in a netCDF group).
  void Add(NcVariable v) {
    by_name[v.name] = variables.size();
    variables.push_back(std::move(v));
  }
  const NcVariable* Find(std::string_view name) const {
    auto it = by_name.find(name);
    return it == by_name.end() ? nullptr : &variables[it->second];
  }
};

enum class Role { kGridded, kCoordinate, kSkipped, kTooManyDimensions };

struct Classified {
  Role role = Role::kSkipped;
  std::string why;  // for kSkipped: the note's reason
};

// Names the file's variables give in `bounds` / `climatology`, `grid_mapping` and `coordinates`.
struct References {
  std::set<std::string, std::less<>> bounds;
  std::set<std::string, std::less<>> grid_mappings;
  std::set<std::string, std::less<>> coordinates;
  // UGRID: the connectivity arrays mesh topology variables name (face_node_connectivity...).
  std::set<std::string, std::less<>> mesh_connectivity;
  // WRF (global attribute MAP_PROJ): its latitudes and longitudes (XLAT, XLONG, XLAT_M, XLAT_U,
  // ... over (Time, south_north, west_east) or without Time), and its `Times` text variable.
  std::set<std::string, std::less<>> wrf_lat_lon;
  std::string wrf_times;
  // Dimensions of unstructured cells: each has 1-D latitude and longitude variables over it
  // (CAM-SE's `ncol`, a UGRID mesh's faces), so that data over it is a cell axis.
  std::set<std::string, std::less<>> cell_dims;
  // Dimensions of ensemble members (IsMemberDimension) that lead a variable of 3 or more: each
  // member is a dataset of its own.
  std::set<std::string, std::less<>> member_dims;
};
References CollectReferences(const FileStructure& f);

// A 1-D variable named after its dimension.
bool IsCoordinateVariable(const NcVariable& v);
Classified Classify(const NcVariable& v, const References& refs);
// ---- Forecast collections (cf_forecast.cc; docs/usage-import.md, "Forecast collections") ----

// The run's reference time (CF standard_name forecast_reference_time): a numeric variable of at
// most one dimension, a scalar one first; null if the file has none.
const NcVariable* FindForecastReferenceTime(const FileStructure& f);
// A dimension of ensemble members: its coordinate variable's standard_name is CF's
// "realization", or it is named realization, ensemble, member or number.
bool IsMemberDimension(const FileStructure& f, std::string_view dim);
// The axis MapAxes gives a leading member dimension: none of the four (one dataset per member).
inline constexpr int kMemberAxis = -1;
// True if `v`'s first dimension is one of refs.member_dims.
bool HasMemberDimension(const NcVariable& v, const References& refs);
// MapAxes of `v` without its member dimension, which gets kMemberAxis; MapAxes if it has none.
std::vector<int> MapAxesWithMember(const FileStructure& f, const NcVariable& v,
                                   const References& refs);
// A latitude or longitude by its standard_name or units (degrees north / east).
bool IsLatitudeOrLongitude(const NcVariable& v);
// CF: a dimension is vertical if its coordinate variable has axis "Z", a `positive` attribute,
// or units of pressure.
bool IsVerticalDimension(const FileStructure& f, const std::string& dim);
// The axis (kT, kZ, kX, kY) of each of `v`'s dimensions (DESIGN.md: the last two are x and y;
// with four, the first two are t and z; with three, the leading one is z if vertical, else t).
// Over a cell dimension (References::cell_dims) the last is y alone (x has size 1), and the
// ones before it are t and z as above.
std::vector<int> MapAxes(const FileStructure& f, const NcVariable& v, const References& refs = {});
// `v`'s GridStore meta: shape and dimension names by axis, attributes, fill value (the
// _FillValue if exact in the type, else netCDF's default fill), missing values, packing.
grid::VariableMeta MakeVariableMeta(const NcVariable& v, const std::vector<int>& axes);

// A selected variable and how its netCDF dimensions map to (t, z, x, y).
struct PlannedVariable {
  const NcVariable* source = nullptr;
  std::vector<int> axes;  // axis of each netCDF dimension (kMemberAxis: the member dimension)
  // With a member dimension: the index along it that is read (each member's import sets it).
  int64_t member_index = 0;
  // Values are rounded to this before they are written (import_precision.h).
  std::optional<grid::Precision> precision;
};

// Where a coordinate's values come from (ReadCoordinateValues).
struct CoordinateSource {
  const NcVariable* variable = nullptr;
  enum class Kind {
    kValues,       // the variable's values as they are (a text grid mapping: one 0)
    kFirstOfTime,  // WRF's XLAT/XLONG (Time, y, x): one time's, and refused if times differ
    kWrfTimes,     // WRF's Times ("2005-08-28_12:00:00" per time): seconds since the first
  } kind = Kind::kValues;
  bool operator==(const NcVariable* v) const { return variable == v; }
};

struct ImportPlan {
  grid::DataSetMeta meta;  // status INIT; coordinates without values (ReadCoordinateValues)
  // The member dimension of the variables that have one ("" if none), and the number of each
  // member along it (ReadMembers: its coordinate's values, else 0, 1, 2...).
  std::string member_dim;
  std::vector<int64_t> members;
  std::vector<PlannedVariable> variables;            // parallel to meta.variables
  std::vector<CoordinateSource> coordinate_sources;  // parallel to meta.coordinates
  std::vector<std::string> notes;
};

// What importing `f` (the file at `path`, for messages) with `options` writes. InvalidArgument
// naming the file and the variable for a variable that cannot be imported (not found, not
// gridded, more than 4 dimensions) or when nothing can be.
Result<ImportPlan> PlanFileImport(const std::string& path,
                                  const importers::NetCdfImportOptions& options,
                                  const FileStructure& f);

// Attribute helpers: the attribute, or null; a string attribute's text, or "".
const grid::AttributeValue* FindAttribute(const grid::Attributes& attributes,
                                          std::string_view name);
using grid::StringAttribute;
// Whether `units` (case and surrounding space ignored) are a unit of pressure.
bool IsPressureUnit(std::string_view units);

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_CF_MAPPING_H_
