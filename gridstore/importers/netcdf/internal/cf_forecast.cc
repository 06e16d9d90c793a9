// Copyright 2026 The GridStore Authors.
//
// The CF rules for forecast collections (cf_mapping.h): the run's reference time and the
// dimension of ensemble members. Pure functions of the file's structure.
#include <algorithm>
#include <cctype>
#include <string>

#include "gridstore/importers/netcdf/internal/cf_mapping.h"
#include "gridstore/importers/netcdf/internal/netcdf_util.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_importers {
namespace {

std::string LowerTrimmed(std::string_view s) {
  std::string out(gridstore::Trim(s));
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

const NcVariable* FindForecastReferenceTime(const FileStructure& f) {
  const NcVariable* found = nullptr;
  for (const NcVariable& v : f.variables) {
    const std::string sn = LowerTrimmed(StringAttribute(v.attributes, "standard_name"));
    if (sn != "forecast_reference_time" || !ToDataType(v.type) || v.dim_names.size() > 1) continue;
    if (found == nullptr || (v.dim_names.empty() && !found->dim_names.empty())) found = &v;
  }
  return found;
}

bool IsMemberDimension(const FileStructure& f, std::string_view dim) {
  const NcVariable* c = f.Find(dim);
  if (c != nullptr && IsCoordinateVariable(*c) &&
      LowerTrimmed(StringAttribute(c->attributes, "standard_name")) == "realization") {
    return true;
  }
  const std::string name = LowerTrimmed(dim);
  return name == "realization" || name == "ensemble" || name == "member" || name == "number";
}

bool HasMemberDimension(const NcVariable& v, const References& refs) {
  return v.dim_names.size() >= 3 && refs.member_dims.count(v.dim_names[0]) > 0;
}

std::vector<int> MapAxesWithMember(const FileStructure& f, const NcVariable& v,
                                   const References& refs) {
  if (!HasMemberDimension(v, refs)) return MapAxes(f, v, refs);
  NcVariable rest = v;
  rest.dim_names.erase(rest.dim_names.begin());
  rest.dim_lengths.erase(rest.dim_lengths.begin());
  std::vector<int> axes = MapAxes(f, rest, refs);
  axes.insert(axes.begin(), kMemberAxis);
  return axes;
}

}  // namespace gridstore::internal_importers
