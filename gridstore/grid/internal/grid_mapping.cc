// Copyright 2026 The GridStore Authors.
#include "gridstore/grid/internal/grid_mapping.h"

#include <cmath>
#include <memory>

#include "gridstore/grid/internal/geo_libraries.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_grid {
namespace {

constexpr double kDegrees = 180.0 / M_PI;

class MappingAttributes {
 public:
  explicit MappingAttributes(const grid::Coordinate& mapping) : mapping_(mapping) {}

  std::string Name() const {
    auto it = mapping_.attributes.find("grid_mapping_name");
    return it != mapping_.attributes.end() && it->second.is_string() ? it->second.string_value()
                                                                     : "";
  }
  bool Has(std::string_view name) const {
    auto it = mapping_.attributes.find(name);
    return it != mapping_.attributes.end() && it->second.is_number() && it->second.size() > 0;
  }
  double Get(std::string_view name, double fallback, size_t i = 0) const {
    auto it = mapping_.attributes.find(name);
    if (it == mapping_.attributes.end() || !it->second.is_number() || it->second.size() <= i) {
      return fallback;
    }
    return it->second.AsDouble(i);
  }
  size_t Count(std::string_view name) const {
    auto it = mapping_.attributes.find(name);
    return it == mapping_.attributes.end() || !it->second.is_number() ? 0 : it->second.size();
  }
  // " +R=..." or " +a=... +b=..." from the CF earth-shape attributes; WGS84 if none.
  std::string Earth() const {
    if (Has("earth_radius")) return " +R=" + FormatDouble(Get("earth_radius", 0));
    if (Has("semi_major_axis") && Has("semi_minor_axis")) {
      return " +a=" + FormatDouble(Get("semi_major_axis", 0)) +
             " +b=" + FormatDouble(Get("semi_minor_axis", 0));
    }
    if (Has("semi_major_axis") && Has("inverse_flattening")) {
      return " +a=" + FormatDouble(Get("semi_major_axis", 0)) +
             " +rf=" + FormatDouble(Get("inverse_flattening", 0));
    }
    return " +ellps=WGS84";
  }
  std::string FalseOrigin() const {
    return " +x_0=" + FormatDouble(Get("false_easting", 0)) +
           " +y_0=" + FormatDouble(Get("false_northing", 0));
  }
  Status Require(std::initializer_list<const char*> names) const {
    for (const char* n : names) {
      if (!Has(n)) {
        return Status::InvalidArgument("grid mapping " + Quote(mapping_.name) + " (" + Name() +
                                       ") has no numeric attribute " + Quote(n));
      }
    }
    return Status::OK();
  }

 private:
  const grid::Coordinate& mapping_;
};

struct ProjDeleter {
  void operator()(PJ* p) const { proj::proj_destroy(p); }
};
struct ContextDeleter {
  void operator()(PJ_CONTEXT* c) const { proj::proj_context_destroy(c); }
};

}  // namespace

Result<std::string> ProjDefinition(const grid::Coordinate& mapping) {
  const MappingAttributes a(mapping);
  const std::string name = a.Name();
  if (name == "rotated_latitude_longitude") {
    GRIDSTORE_RETURN_IF_ERROR(a.Require({"grid_north_pole_latitude", "grid_north_pole_longitude"}));
    return "+proj=ob_tran +o_proj=longlat +o_lon_p=" +
           FormatDouble(a.Get("north_pole_grid_longitude", 0)) +
           " +o_lat_p=" + FormatDouble(a.Get("grid_north_pole_latitude", 0)) +
           " +lon_0=" + FormatDouble(180 + a.Get("grid_north_pole_longitude", 0)) + a.Earth() +
           " +no_defs";
  }
  if (name == "lambert_conformal_conic") {
    GRIDSTORE_RETURN_IF_ERROR(a.Require(
        {"standard_parallel", "longitude_of_central_meridian", "latitude_of_projection_origin"}));
    const double lat1 = a.Get("standard_parallel", 0, 0);
    const double lat2 = a.Count("standard_parallel") > 1 ? a.Get("standard_parallel", 0, 1) : lat1;
    return "+proj=lcc +lat_1=" + FormatDouble(lat1) + " +lat_2=" + FormatDouble(lat2) +
           " +lat_0=" + FormatDouble(a.Get("latitude_of_projection_origin", 0)) +
           " +lon_0=" + FormatDouble(a.Get("longitude_of_central_meridian", 0)) + a.FalseOrigin() +
           a.Earth() + " +units=m +no_defs";
  }
  if (name == "polar_stereographic") {
    GRIDSTORE_RETURN_IF_ERROR(a.Require({"latitude_of_projection_origin"}));
    const double lon0 = a.Has("straight_vertical_longitude_from_pole")
                            ? a.Get("straight_vertical_longitude_from_pole", 0)
                            : a.Get("longitude_of_projection_origin", 0);
    std::string def =
        "+proj=stere +lat_0=" + FormatDouble(a.Get("latitude_of_projection_origin", 90)) +
        " +lon_0=" + FormatDouble(lon0);
    if (a.Has("standard_parallel")) {
      def += " +lat_ts=" + FormatDouble(a.Get("standard_parallel", 0));
    } else {
      def += " +k_0=" + FormatDouble(a.Get("scale_factor_at_projection_origin", 1));
    }
    return def + a.FalseOrigin() + a.Earth() + " +units=m +no_defs";
  }
  if (name == "latitude_longitude") return std::string("+proj=longlat") + a.Earth() + " +no_defs";
  return Status::InvalidArgument(
      "grid mapping " + Quote(mapping.name) + ": grid_mapping_name " + Quote(name) +
      " is not supported (supported: rotated_latitude_longitude, lambert_conformal_conic, "
      "polar_stereographic, latitude_longitude); give the grid 2-D latitude and longitude "
      "coordinates instead");
}

Status ToGeographic(const grid::Coordinate& mapping, double xy_scale, const std::vector<double>& xs,
                    const std::vector<double>& ys, std::vector<double>* lons,
                    std::vector<double>* lats) {
  GRIDSTORE_ASSIGN_OR_RETURN(const std::string definition, ProjDefinition(mapping));
  GRIDSTORE_RETURN_IF_ERROR(LoadProj());
  std::unique_ptr<PJ_CONTEXT, ContextDeleter> context(proj::proj_context_create());
  proj::proj_log_level(context.get(), PJ_LOG_NONE);
  std::unique_ptr<PJ, ProjDeleter> pj(proj::proj_create(context.get(), definition.c_str()));
  if (!pj) {
    return Status::InvalidArgument(
        "grid mapping " + Quote(mapping.name) + ": PROJ refuses " + Quote(definition) + ": " +
        proj::proj_context_errno_string(context.get(), proj::proj_context_errno(context.get())));
  }
  // Rotated degrees go to PROJ in radians (ob_tran's "projected" side is radians, though PROJ
  // does not call it angular); the output is radians.
  const bool angular = MappingAttributes(mapping).Name() == "rotated_latitude_longitude" ||
                       proj::proj_angular_input(pj.get(), PJ_INV);
  const size_t n = xs.size();
  lons->resize(n);
  lats->resize(n);
  for (size_t i = 0; i < n; ++i) {
    (*lons)[i] = angular ? xs[i] / kDegrees : xs[i] * xy_scale;
    (*lats)[i] = angular ? ys[i] / kDegrees : ys[i] * xy_scale;
  }
  proj::proj_trans_generic(pj.get(), PJ_INV, lons->data(), sizeof(double), n, lats->data(),
                           sizeof(double), n, nullptr, 0, 0, nullptr, 0, 0);
  for (size_t i = 0; i < n; ++i) {
    (*lons)[i] *= kDegrees;
    (*lats)[i] *= kDegrees;
  }
  return Status::OK();
}

}  // namespace gridstore::internal_grid
