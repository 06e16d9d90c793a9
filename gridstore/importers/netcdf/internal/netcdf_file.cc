// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/netcdf/internal/netcdf_file.h"

#include <netcdf.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "gridstore/forecast/collection.h"
#include "gridstore/importers/netcdf/internal/classic_file_check.h"
#include "gridstore/importers/netcdf/internal/netcdf_util.h"
#include "gridstore/model/cf_time.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_importers {

using grid::Attributes;
using grid::AttributeValue;
using grid::DataType;

Status NcError(int code, const std::string& path, const std::string& what) {
  const std::string where = Quote(path) + (what.empty() ? "" : ": " + what);
  const std::string message = netcdf::nc_strerror(code);
  if (code > 0) return Status::Unavailable(where + ": " + message);
  switch (code) {
    case NC_ENOMEM:
      return Status::Unavailable(where + ": " + message);
    case NC_EBADID:
    case NC_ENOTVAR:
    case NC_EINVALCOORDS:
    case NC_EEDGE:
    case NC_ESTRIDE:
    case NC_EBADTYPE:
      return Status::Internal(where + ": " + message);
    default:
      return Status::DataLoss(where + ": " + message);
  }
}

NcFile::~NcFile() {
  NetCdfLock lock(NetCdfMutex());
  netcdf::nc_close(ncid_);
}

namespace {

// True if the file starts like a classic NetCDF (CDF\1, \2, \5) or HDF5 file: one netCDF-C
// calls "Unknown file format" is then a damaged NetCDF file rather than some other file.
bool HasNetCdfSignature(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[8] = {};
  in.read(head, sizeof(head));
  const auto n = in.gcount();
  if (n >= 4 && std::memcmp(head, "CDF", 3) == 0) {
    return head[3] == 1 || head[3] == 2 || head[3] == 5;
  }
  static constexpr char kHdf5[8] = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  return n == 8 && std::memcmp(head, kHdf5, 8) == 0;
}

// One attribute as an AttributeValue, or nullopt (and a note) for a type GridStore cannot hold.
Result<std::optional<AttributeValue>> ReadAttribute(int ncid, int varid, const char* name,
                                                    const std::string& path,
                                                    const std::string& owner,
                                                    std::vector<std::string>* notes) {
  nc_type type;
  size_t len;
  const std::string what = "attribute " + Quote(name) + " of " + owner;
  int rc = netcdf::nc_inq_att(ncid, varid, name, &type, &len);
  if (rc != NC_NOERR) return NcError(rc, path, what);
  if (type == NC_CHAR) {
    std::string text(len, '\0');
    if (len > 0 && (rc = netcdf::nc_get_att_text(ncid, varid, name, text.data())) != NC_NOERR) {
      return NcError(rc, path, what);
    }
    while (!text.empty() && text.back() == '\0') text.pop_back();  // C writers count the NUL
    return std::optional(AttributeValue::String(std::move(text)));
  }
  if (type == NC_STRING) {
    std::vector<char*> strings(len, nullptr);
    if (len > 0 &&
        (rc = netcdf::nc_get_att_string(ncid, varid, name, strings.data())) != NC_NOERR) {
      return NcError(rc, path, what);
    }
    std::vector<std::string> parts;
    for (char* s : strings) parts.emplace_back(s ? s : "");
    if (len > 0) netcdf::nc_free_string(len, strings.data());
    // AttributeValue holds one string: an array of strings is kept one per line.
    return std::optional(AttributeValue::String(Join(parts, "\n")));
  }
  const std::optional<DataType> data_type = ToDataType(type);
  if (!data_type) {
    if (notes) notes->push_back("skipped " + what + ": user-defined type");
    return std::optional<AttributeValue>();
  }
  return grid::VisitDataType(*data_type, [&](auto tag) -> Result<std::optional<AttributeValue>> {
    using T = decltype(tag);
    std::vector<T> values(len);
    int get_rc = len == 0 ? NC_NOERR : netcdf::nc_get_att(ncid, varid, name, values.data());
    if (get_rc != NC_NOERR) return NcError(get_rc, path, what);
    if constexpr (std::is_floating_point_v<T>) {
      return std::optional(AttributeValue::Floats(*data_type, {values.begin(), values.end()}));
    } else {
      std::vector<int64_t> integers;
      integers.reserve(len);
      for (T v : values) integers.push_back(static_cast<int64_t>(v));  // uint64: bit pattern
      return std::optional(AttributeValue::Integers(*data_type, std::move(integers)));
    }
  });
}

Result<Attributes> ReadAttributes(int ncid, int varid, const std::string& path,
                                  const std::string& owner, std::vector<std::string>* notes) {
  int natts = 0;
  int rc = varid == NC_GLOBAL ? netcdf::nc_inq_natts(ncid, &natts)
                              : netcdf::nc_inq_varnatts(ncid, varid, &natts);
  if (rc != NC_NOERR) return NcError(rc, path, owner);
  Attributes attributes;
  for (int i = 0; i < natts; ++i) {
    char name[NC_MAX_NAME + 1];
    if ((rc = netcdf::nc_inq_attname(ncid, varid, i, name)) != NC_NOERR)
      return NcError(rc, path, owner);
    GRIDSTORE_ASSIGN_OR_RETURN(std::optional<AttributeValue> value,
                               ReadAttribute(ncid, varid, name, path, owner, notes));
    if (value) attributes[name] = std::move(*value);
  }
  return attributes;
}

}  // namespace

Result<std::unique_ptr<NcFile>> OpenNetCdf(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) return Status::NotFound(Quote(path) + ": no such file");
  if (std::filesystem::is_directory(status)) {
    return Status::InvalidArgument(Quote(path) + " is a directory, not a NetCDF file");
  }
  int ncid = -1;
  const int rc = netcdf::nc_open(path.c_str(), NC_NOWRITE, &ncid);
  if (rc == NC_ENOTNC) {
    if (HasNetCdfSignature(path)) {
      return Status::DataLoss(Quote(path) + " is truncated or corrupt: " + netcdf::nc_strerror(rc));
    }
    return Status::InvalidArgument(Quote(path) + " is not a NetCDF file (" +
                                   netcdf::nc_strerror(rc) + ")");
  }
  if (rc == ENOENT) return Status::NotFound(Quote(path) + ": no such file");
  if (rc > 0 || rc == NC_ENOMEM) {
    return Status::FailedPrecondition(Quote(path) + ": cannot open: " + netcdf::nc_strerror(rc));
  }
  if (rc != NC_NOERR) {
    return Status::DataLoss(Quote(path) + " is truncated or corrupt: " + netcdf::nc_strerror(rc));
  }
  auto file = std::make_unique<NcFile>(ncid);
  int format = 0, mode = 0;
  if (netcdf::nc_inq_format_extended(ncid, &format, &mode) == NC_NOERR &&
      format == NC_FORMATX_NC3) {
    GRIDSTORE_RETURN_IF_ERROR(CheckClassicFileSize(path));
  }
  return file;
}

Result<FileStructure> ReadStructure(int ncid, const std::string& path) {
  FileStructure f;
  int rc, nvars = 0, ngroups = 0;
  if ((rc = netcdf::nc_inq_grps(ncid, &ngroups, nullptr)) != NC_NOERR) return NcError(rc, path, "");
  if (ngroups > 0) {
    std::vector<int> groups(static_cast<size_t>(ngroups));
    std::vector<std::string> names;
    if ((rc = netcdf::nc_inq_grps(ncid, nullptr, groups.data())) != NC_NOERR)
      return NcError(rc, path, "");
    for (int g : groups) {
      char name[NC_MAX_NAME + 1];
      if (netcdf::nc_inq_grpname(g, name) == NC_NOERR) names.push_back(Quote(name));
    }
    f.notes.push_back("skipped group" + std::string(names.size() > 1 ? "s " : " ") +
                      Join(names, ", ") + ": only the root group is imported");
  }
  if ((rc = netcdf::nc_inq_nvars(ncid, &nvars)) != NC_NOERR) return NcError(rc, path, "");
  for (int v = 0; v < nvars; ++v) {
    NcVariable var;
    var.id = v;
    char name[NC_MAX_NAME + 1];
    int ndims = 0;
    if ((rc = netcdf::nc_inq_var(ncid, v, name, &var.type, &ndims, nullptr, nullptr)) != NC_NOERR) {
      return NcError(rc, path, "variable #" + std::to_string(v));
    }
    var.name = name;
    const std::string owner = "variable " + Quote(var.name);
    std::vector<int> dimids(static_cast<size_t>(ndims));
    if (ndims > 0 && (rc = netcdf::nc_inq_vardimid(ncid, v, dimids.data())) != NC_NOERR) {
      return NcError(rc, path, owner);
    }
    for (int d : dimids) {
      char dim_name[NC_MAX_NAME + 1];
      size_t length;
      if ((rc = netcdf::nc_inq_dim(ncid, d, dim_name, &length)) != NC_NOERR) {
        return NcError(rc, path, owner);
      }
      var.dim_names.emplace_back(dim_name);
      var.dim_lengths.push_back(length);
    }
    GRIDSTORE_ASSIGN_OR_RETURN(var.attributes, ReadAttributes(ncid, v, path, owner, &f.notes));
    f.Add(std::move(var));
  }
  GRIDSTORE_ASSIGN_OR_RETURN(f.global_attributes,
                             ReadAttributes(ncid, NC_GLOBAL, path, "the file", &f.notes));
  return f;
}

namespace {

// WRF's Times ("2005-08-28_12:00:00", one per time) as seconds since the first: the time axis
// that `--time ISO` selects on.
Status ReadWrfTimes(int ncid, const std::string& path, const NcVariable& v, grid::Coordinate* c) {
  const size_t n = v.dim_lengths[0], width = v.dim_lengths[1];
  std::string text(n * width, '\0');
  const int rc = netcdf::nc_get_var_text(ncid, v.id, text.data());
  if (rc != NC_NOERR) return NcError(rc, path, "variable " + Quote(v.name));
  std::optional<grid::TimeUnits> units;
  if (text.starts_with("0000-00-00")) {
    // geogrid writes static fields with Times of zeros: no date, so the axis is the index.
    c->attributes["long_name"] =
        grid::AttributeValue::String("WRF's Times holds no date (0000-00-00: static fields)");
    for (size_t t = 0; t < n; ++t) c->values.push_back(double(t));
    return Status::OK();
  }
  for (size_t t = 0; t < n; ++t) {
    std::string iso(
        Trim(std::string_view(text).substr(t * width, width), std::string_view("\0 ", 2)));
    if (iso.size() > 10 && iso[10] == '_') iso[10] = 'T';
    if (!units) {
      auto parsed = grid::TimeUnits::Parse("seconds since " + iso, "standard");
      if (!parsed.ok()) {
        return Status::InvalidArgument(Quote(path) + ": WRF's " + Quote(v.name) + " holds " +
                                       Quote(iso) + ", not a time YYYY-MM-DD_hh:mm:ss");
      }
      units = *parsed;
      c->attributes["units"] = grid::AttributeValue::String("seconds since " + iso);
      c->attributes["calendar"] = grid::AttributeValue::String("standard");
    }
    auto value = units->FromIso(iso);
    if (!value.ok()) return value.status().WithContext(Quote(path) + ": WRF's " + Quote(v.name));
    c->values.push_back(*value);
  }
  return Status::OK();
}

// WRF's XLAT/XLONG over (Time, y, x): the first time's, the same for every time. A moving nest
// (its grid moves with the storm) has other coordinates at other times: refused, never answered
// from another time's grid.
Status ReadFirstOfTime(int ncid, const std::string& path, const NcVariable& v,
                       grid::Coordinate* c) {
  size_t count = 1;
  for (size_t length : v.dim_lengths) count *= length;
  std::vector<double> all(count);
  const int rc = netcdf::nc_get_var_double(ncid, v.id, all.data());
  if (rc != NC_NOERR) return NcError(rc, path, "coordinate " + Quote(v.name));
  const size_t plane = v.dim_names.size() == 3 ? v.dim_lengths[1] * v.dim_lengths[2] : count;
  for (size_t k = plane; k < count; ++k) {
    const double a = all[k % plane], b = all[k];
    if (!(a == b || (std::isnan(a) && std::isnan(b)))) {
      return Status::Unimplemented(
          Quote(path) + ": " + Quote(v.name) + " differs between times (time " +
          std::to_string(k / plane) +
          " is not time 0): a moving nest, whose every time needs its "
          "own grid, which GridStore does not hold yet; import one time at a time (ncks -d "
          "Time,N)");
    }
  }
  all.resize(plane);
  c->values = std::move(all);
  return Status::OK();
}

}  // namespace

Status ReadCoordinateValues(int ncid, const std::string& path, ImportPlan* plan) {
  for (size_t i = 0; i < plan->meta.coordinates.size(); ++i) {
    grid::Coordinate& c = plan->meta.coordinates[i];
    const NcVariable& v = *plan->coordinate_sources[i].variable;
    switch (plan->coordinate_sources[i].kind) {
      case CoordinateSource::Kind::kWrfTimes:
        GRIDSTORE_RETURN_IF_ERROR(ReadWrfTimes(ncid, path, v, &c));
        continue;
      case CoordinateSource::Kind::kFirstOfTime:
        GRIDSTORE_RETURN_IF_ERROR(ReadFirstOfTime(ncid, path, v, &c));
        continue;
      case CoordinateSource::Kind::kValues:
        break;
    }
    if (!ToDataType(v.type)) {  // a text grid mapping (MakeCoordinate): only its attributes count
      c.values.assign(1, 0.0);
      continue;
    }
    size_t count = 1;
    for (size_t length : v.dim_lengths) count *= length;
    c.values.resize(count);
    const int rc = netcdf::nc_get_var_double(ncid, v.id, c.values.data());
    if (rc != NC_NOERR) return NcError(rc, path, "coordinate " + Quote(v.name));
  }
  return Status::OK();
}

Status ReadMembers(int ncid, const std::string& path, const FileStructure& f, ImportPlan* plan) {
  plan->members.clear();
  if (plan->member_dim.empty()) return Status::OK();
  size_t count = 0;
  for (const PlannedVariable& pv : plan->variables) {
    if (!pv.axes.empty() && pv.axes[0] == kMemberAxis) count = pv.source->dim_lengths[0];
  }
  const NcVariable* c = f.Find(plan->member_dim);
  std::vector<double> values(count);
  bool numbered =
      c != nullptr && IsCoordinateVariable(*c) && ToDataType(c->type) && c->dim_lengths[0] == count;
  if (numbered && count > 0) {
    const int rc = netcdf::nc_get_var_double(ncid, c->id, values.data());
    if (rc != NC_NOERR) return NcError(rc, path, "member coordinate " + Quote(c->name));
  }
  std::set<double> seen;
  for (double v : values) {
    numbered &=
        std::isfinite(v) && v >= 0 && v == std::floor(v) && v < 1e9 && seen.insert(v).second;
  }
  if (c != nullptr && !numbered) {
    plan->notes.push_back("the members along " + Quote(plan->member_dim) +
                          " are numbered 0, 1, 2... (its coordinate's values are not distinct "
                          "whole numbers)");
  }
  for (size_t i = 0; i < count; ++i) {
    plan->members.push_back(numbered ? static_cast<int64_t>(values[i]) : static_cast<int64_t>(i));
  }
  return Status::OK();
}

Result<std::optional<int64_t>> ReadRunTime(int ncid, const std::string& path,
                                           const FileStructure& f,
                                           std::vector<std::string>* notes) {
  const NcVariable* v = FindForecastReferenceTime(f);
  if (v == nullptr) return std::optional<int64_t>();
  size_t count = 1;
  for (size_t length : v->dim_lengths) count *= length;
  std::vector<double> values(count);
  if (count > 0) {
    const int rc = netcdf::nc_get_var_double(ncid, v->id, values.data());
    if (rc != NC_NOERR) return NcError(rc, path, "forecast_reference_time " + Quote(v->name));
  }
  std::set<double> distinct;
  for (double value : values) {
    if (std::isfinite(value)) distinct.insert(value);
  }
  auto no_run = [&](const std::string& why) {
    notes->push_back(Quote(v->name) + " (forecast_reference_time) " + why +
                     ": the dataset gets no run time (--run gives one)");
    return std::optional<int64_t>();
  };
  if (distinct.size() != 1) {
    return no_run(distinct.empty()
                      ? "has no value"
                      : "has " + std::to_string(distinct.size()) + " different values");
  }
  auto units = grid::TimeUnits::Parse(StringAttribute(v->attributes, "units"),
                                      StringAttribute(v->attributes, "calendar"));
  if (!units.ok()) return no_run("has no units of time since a date");
  auto iso = units->ToIso(*distinct.begin());
  if (!iso.ok()) return no_run("is not a date");
  auto ms = forecast::ParseIsoMs(*iso, "forecast_reference_time");
  if (!ms.ok()) return no_run("is " + *iso + ", not a date of the standard calendar");
  return std::optional<int64_t>(*ms);
}

}  // namespace gridstore::internal_importers
