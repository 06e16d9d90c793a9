// Copyright 2026 The GridStore Authors.
#include "gridstore/geo/internal/grid_mapping.h"

#include <cmath>
#include <map>
#include <memory>
#include <optional>

#include "gridstore/features.h"
#if GRIDSTORE_HAVE_GEO
#include "gridstore/geo/internal/geo_libraries.h"
#endif
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_grid {
namespace {

constexpr double kDegrees = 180.0 / M_PI;

class MappingAttributes {
 public:
  explicit MappingAttributes(const grid::Coordinate& mapping) : mapping_(mapping) {}

  // A string attribute trimmed and in lower case, or "".
  std::string Text(std::string_view name) const {
    auto it = mapping_.attributes.find(name);
    if (it == mapping_.attributes.end() || !it->second.is_string()) return "";
    std::string v(Trim(it->second.string_value()));
    for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return v;
  }
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

#if GRIDSTORE_HAVE_GEO
struct ProjDeleter {
  void operator()(PJ* p) const { proj::proj_destroy(p); }
};
struct ContextDeleter {
  void operator()(PJ_CONTEXT* c) const { proj::proj_context_destroy(c); }
};
#endif

}  // namespace

namespace {

// The parameters of one CF grid mapping as PROJ takes them. `a` is read through Param, which
// accepts the CF name and, with a note, the names some writers use instead.
class Definition {
 public:
  Definition(const MappingAttributes& a, std::vector<std::string>* notes) : a_(a), notes_(notes) {}

  // " +KEY=VALUE" from the first of `names` present (a later one is a common non-CF spelling:
  // noted), or from `fallback` if none is and it is given; else an error naming the CF one.
  Status Param(const char* key, std::initializer_list<const char*> names,
               std::optional<double> fallback = std::nullopt, size_t index = 0) {
    const char* cf = *names.begin();
    for (const char* n : names) {
      if (!a_.Has(n)) continue;
      if (n != cf && notes_ != nullptr) {
        notes_->push_back("grid mapping attribute " + Quote(n) + " taken for CF's " + Quote(cf));
      }
      def_ += std::string(" +") + key + "=" + FormatDouble(a_.Get(n, 0, index));
      return Status::OK();
    }
    if (fallback) {
      def_ += std::string(" +") + key + "=" + FormatDouble(*fallback);
      return Status::OK();
    }
    return a_.Require({cf});
  }
  void Add(const std::string& text) { def_ += text; }
  const std::string& text() const { return def_; }

 private:
  const MappingAttributes& a_;
  std::vector<std::string>* notes_;
  std::string def_;
};

constexpr const char* kSupported =
    "albers_conical_equal_area, azimuthal_equidistant, geostationary, "
    "lambert_azimuthal_equal_area, lambert_conformal_conic, lambert_cylindrical_equal_area, "
    "latitude_longitude, mercator, oblique_mercator, orthographic, polar_stereographic, "
    "rotated_latitude_longitude, sinusoidal, stereographic, transverse_mercator, "
    "vertical_perspective";

}  // namespace

namespace {

// Each family of CF grid mappings as PROJ parameters: `d` holds the definition so far and
// collects notes; the earth and false origin are added by ProjDefinition.
using Builder = Status (*)(const std::string& name, const MappingAttributes& a, Definition* d);

// The CF names of the origin. Writers often give the projection origin's longitude for the
// central meridian and the reverse, so each accepts the other with a note.
Status Lat0(Definition* d) { return d->Param("lat_0", {"latitude_of_projection_origin"}, 0.0); }
Status Lon0Origin(Definition* d) {
  return d->Param("lon_0", {"longitude_of_projection_origin", "longitude_of_central_meridian"},
                  0.0);
}
Status Lon0Meridian(Definition* d) {
  return d->Param("lon_0", {"longitude_of_central_meridian", "longitude_of_projection_origin"},
                  0.0);
}
// A standard parallel if given, else the scale factor at the origin (Mercator, stereographic...).
Status ParallelOrScale(const MappingAttributes& a, Definition* d) {
  if (a.Has("standard_parallel")) return d->Param("lat_ts", {"standard_parallel"});
  return d->Param("k_0", {"scale_factor_at_projection_origin"}, 1.0);
}

Status Conic(const std::string& name, const MappingAttributes& a, Definition* d) {
  GRIDSTORE_RETURN_IF_ERROR(a.Require({"standard_parallel"}));
  const double lat1 = a.Get("standard_parallel", 0, 0);
  const double lat2 = a.Count("standard_parallel") > 1 ? a.Get("standard_parallel", 0, 1) : lat1;
  d->Add(std::string(name == "albers_conical_equal_area" ? "+proj=aea" : "+proj=lcc") +
         " +lat_1=" + FormatDouble(lat1) + " +lat_2=" + FormatDouble(lat2));
  GRIDSTORE_RETURN_IF_ERROR(Lat0(d));
  return Lon0Meridian(d);
}

Status Stereographic(const std::string& name, const MappingAttributes& a, Definition* d) {
  d->Add("+proj=stere");
  if (name == "stereographic") {
    GRIDSTORE_RETURN_IF_ERROR(Lat0(d));
    GRIDSTORE_RETURN_IF_ERROR(Lon0Origin(d));
    return d->Param("k_0", {"scale_factor_at_projection_origin"}, 1.0);
  }
  GRIDSTORE_RETURN_IF_ERROR(d->Param("lat_0", {"latitude_of_projection_origin"}));
  GRIDSTORE_RETURN_IF_ERROR(d->Param(
      "lon_0", {"straight_vertical_longitude_from_pole", "longitude_of_projection_origin"}, 0.0));
  return ParallelOrScale(a, d);
}

Status TransverseMercator(const std::string&, const MappingAttributes&, Definition* d) {
  d->Add("+proj=tmerc");
  GRIDSTORE_RETURN_IF_ERROR(Lat0(d));
  GRIDSTORE_RETURN_IF_ERROR(Lon0Meridian(d));
  return d->Param("k_0", {"scale_factor_at_central_meridian", "scale_factor_at_projection_origin"},
                  1.0);
}

Status Mercator(const std::string&, const MappingAttributes& a, Definition* d) {
  d->Add("+proj=merc");
  GRIDSTORE_RETURN_IF_ERROR(Lon0Origin(d));
  return ParallelOrScale(a, d);
}

Status ObliqueMercator(const std::string&, const MappingAttributes&, Definition* d) {
  d->Add("+proj=omerc");
  GRIDSTORE_RETURN_IF_ERROR(Lat0(d));
  GRIDSTORE_RETURN_IF_ERROR(d->Param("lonc", {"longitude_of_projection_origin"}));
  GRIDSTORE_RETURN_IF_ERROR(d->Param("alpha", {"azimuth_of_central_line"}));
  return d->Param("k_0", {"scale_factor_at_projection_origin"}, 1.0);
}

Status Azimuthal(const std::string& name, const MappingAttributes&, Definition* d) {
  d->Add(name == "lambert_azimuthal_equal_area" ? "+proj=laea"
         : name == "orthographic"               ? "+proj=ortho"
                                                : "+proj=aeqd");
  GRIDSTORE_RETURN_IF_ERROR(Lat0(d));
  return Lon0Origin(d);
}

Status CylindricalEqualArea(const std::string&, const MappingAttributes& a, Definition* d) {
  d->Add("+proj=cea");
  GRIDSTORE_RETURN_IF_ERROR(Lon0Meridian(d));
  return ParallelOrScale(a, d);
}

Status Sinusoidal(const std::string&, const MappingAttributes&, Definition* d) {
  d->Add("+proj=sinu");
  return Lon0Meridian(d);
}

Status Perspective(const std::string& name, const MappingAttributes& a, Definition* d) {
  const bool geos = name == "geostationary";
  d->Add(geos ? "+proj=geos" : "+proj=nsper");
  GRIDSTORE_RETURN_IF_ERROR(d->Param("h", {"perspective_point_height"}));
  if (!geos) GRIDSTORE_RETURN_IF_ERROR(Lat0(d));
  GRIDSTORE_RETURN_IF_ERROR(Lon0Origin(d));
  if (geos) {
    // CF names the sweep axis, or the fixed one (the other); x is the default (GOES).
    const std::string sweep = a.Text("sweep_angle_axis"), fixed = a.Text("fixed_angle_axis");
    d->Add(std::string(" +sweep=") + (sweep == "y" || (sweep.empty() && fixed == "x") ? "y" : "x"));
  }
  return Status::OK();
}

const std::map<std::string, Builder, std::less<>>& Builders() {
  static const auto* builders = new std::map<std::string, Builder, std::less<>>{
      {"albers_conical_equal_area", Conic},
      {"azimuthal_equidistant", Azimuthal},
      {"geostationary", Perspective},
      {"lambert_azimuthal_equal_area", Azimuthal},
      {"lambert_conformal_conic", Conic},
      {"lambert_cylindrical_equal_area", CylindricalEqualArea},
      {"mercator", Mercator},
      {"oblique_mercator", ObliqueMercator},
      {"orthographic", Azimuthal},
      {"polar_stereographic", Stereographic},
      {"sinusoidal", Sinusoidal},
      {"stereographic", Stereographic},
      {"transverse_mercator", TransverseMercator},
      {"vertical_perspective", Perspective}};
  return *builders;
}

}  // namespace

Result<std::string> ProjDefinition(const grid::Coordinate& mapping,
                                   std::vector<std::string>* notes) {
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
  if (name == "latitude_longitude") return std::string("+proj=longlat") + a.Earth() + " +no_defs";
  const auto builder = Builders().find(name);
  if (builder == Builders().end()) {
    if (name.empty()) {
      return Status::InvalidArgument("grid mapping " + Quote(mapping.name) +
                                     " has no grid_mapping_name (supported: " + kSupported + ")");
    }
    return Status::InvalidArgument(
        "grid mapping " + Quote(mapping.name) + ": grid_mapping_name " + Quote(name) +
        " is not supported (supported: " + kSupported +
        "); give the grid 2-D latitude and longitude coordinates instead");
  }
  Definition d(a, notes);
  GRIDSTORE_RETURN_IF_ERROR(builder->second(name, a, &d));
  return d.text() + a.FalseOrigin() + a.Earth() + " +units=m +no_defs";
}

Status ToGeographic(const grid::Coordinate& mapping, std::string_view xy_units,
                    const std::vector<double>& xs, const std::vector<double>& ys,
                    std::vector<double>* lons, std::vector<double>* lats,
                    std::vector<std::string>* notes) {
  GRIDSTORE_ASSIGN_OR_RETURN(const std::string definition, ProjDefinition(mapping, notes));
#if !GRIDSTORE_HAVE_GEO
  (void)xy_units, (void)xs, (void)ys, (void)lons, (void)lats;
  return Status::Unimplemented("grid mapping " + Quote(mapping.name) + " (" + definition +
                               ") needs PROJ: " + kEnableGeo);
#else
  std::string units(Trim(xy_units));
  for (char& c : units) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  double xy_scale = 1;  // to metres
  if (units == "km" || units == "kilometre" || units == "kilometer" || units == "kilometres" ||
      units == "kilometers") {
    xy_scale = 1000;
  } else if (units == "rad" || units == "radian" || units == "radians") {
    // A geostationary image's scanning angles (CF): metres at the satellite's height.
    xy_scale = MappingAttributes(mapping).Get("perspective_point_height", 1);
  } else if (units == "microradian" || units == "microradians") {
    xy_scale = 1e-6 * MappingAttributes(mapping).Get("perspective_point_height", 1);
  }
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
  // Points PROJ cannot place (off the disk of a geostationary view) come back as HUGE_VAL: NaN,
  // so that they are no cell's centre.
  for (size_t i = 0; i < n; ++i) {
    const bool valid = std::isfinite((*lons)[i]) && std::isfinite((*lats)[i]) &&
                       std::fabs((*lons)[i]) < 1e10 && std::fabs((*lats)[i]) < 1e10;
    (*lons)[i] = valid ? (*lons)[i] * kDegrees : NAN;
    (*lats)[i] = valid ? (*lats)[i] * kDegrees : NAN;
  }
  return Status::OK();
#endif  // GRIDSTORE_HAVE_GEO
}

}  // namespace gridstore::internal_grid
