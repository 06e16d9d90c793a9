// Copyright 2026 The GridStore Authors.
//
// AxisCoordinate: a variable's time or level values, and selections of them by value.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <optional>

#include "gridstore/geo/coordinates.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::grid {
namespace {

// Units of levels that convert into one another: pressures (to Pa) and lengths (to m).
struct UnitScale {
  enum Kind { kPressure, kLength } kind;
  double factor;  // to Pa or m
};

std::optional<UnitScale> ScaleOf(std::string_view unit) {
  std::string u(Trim(unit));
  for (char& c : u) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  static const std::array<std::pair<const char*, UnitScale>, 14> kUnits = {{
      {"pa", {UnitScale::kPressure, 1}},
      {"hpa", {UnitScale::kPressure, 100}},
      {"mbar", {UnitScale::kPressure, 100}},
      {"millibar", {UnitScale::kPressure, 100}},
      {"millibars", {UnitScale::kPressure, 100}},
      {"mb", {UnitScale::kPressure, 100}},
      {"kpa", {UnitScale::kPressure, 1000}},
      {"bar", {UnitScale::kPressure, 1e5}},
      {"m", {UnitScale::kLength, 1}},
      {"meter", {UnitScale::kLength, 1}},
      {"meters", {UnitScale::kLength, 1}},
      {"metre", {UnitScale::kLength, 1}},
      {"metres", {UnitScale::kLength, 1}},
      {"km", {UnitScale::kLength, 1000}},
  }};
  for (const auto& [name, scale] : kUnits) {
    if (u == name) return scale;
  }
  return std::nullopt;
}

bool LooksLikeTime(const Coordinate& c) {
  const std::string units = StringAttribute(c.attributes, "units");
  return units.find(" since ") != std::string::npos;
}

bool LooksLikeLatLon(const Coordinate& c) {
  const std::string units = StringAttribute(c.attributes, "units");
  const std::string standard = StringAttribute(c.attributes, "standard_name");
  return units.starts_with("degree") || standard == "latitude" || standard == "longitude";
}

// Scalar coordinates that are neither the valid time nor a level.
bool IsRunOrMember(const Coordinate& c) {
  const std::string standard = StringAttribute(c.attributes, "standard_name");
  return standard == "forecast_reference_time" || standard == "forecast_period" ||
         standard == "realization" || c.name == "step" || c.name == "number";
}

// A one-value axis without a dimension: the scalar coordinate the variable's `coordinates`
// attribute names for it (CF 5.7; how GRIB's `2t` says it lies at 2 m), a time for the time axis
// and anything but a time, lat/lon, run or member for the level axis.
const Coordinate* NamedScalar(const DataSetMeta& meta, const VariableMeta& var, Axis axis) {
  for (const std::string& name : SplitWhitespace(StringAttribute(var.attributes, "coordinates"))) {
    const Coordinate* c = meta.FindCoordinate(name);
    if (c == nullptr || !c->dimensions.empty() || c->values.size() != 1 || IsRunOrMember(*c)) {
      continue;
    }
    if (axis == Axis::kT ? LooksLikeTime(*c) : !LooksLikeTime(*c) && !LooksLikeLatLon(*c)) return c;
  }
  return nullptr;
}

}  // namespace

Result<AxisCoordinate> AxisCoordinate::Build(const DataSetMeta& meta, const VariableMeta& var,
                                             Axis which) {
  AxisCoordinate a;
  a.axis_ = which;
  a.variable_ = var.name;
  const int axis = Index(which);
  const std::string& dim = var.dimension_names[axis];
  const Coordinate* c = dim.empty() ? nullptr : meta.FindCoordinate(dim);
  if (c == nullptr && var.shape[axis] == 1) c = NamedScalar(meta, var, which);
  if (c == nullptr && which == Axis::kT && var.shape[kT] == 1) {
    // A single-time file often has a scalar time coordinate instead of a dimension.
    const Coordinate* scalar = meta.FindCoordinate("time");
    if (scalar != nullptr && scalar->dimensions.empty() && LooksLikeTime(*scalar)) c = scalar;
  }
  if (c != nullptr && c->values.size() == size_t(var.shape[axis])) {
    a.name_ = c->name;
    a.units_ = StringAttribute(c->attributes, "units");
    a.values_ = c->values;
    if (LooksLikeTime(*c)) {
      auto units = TimeUnits::Parse(a.units_, StringAttribute(c->attributes, "calendar"));
      if (!units.ok()) {
        return units.status().WithContext("variable " + Quote(var.name) + ", time coordinate " +
                                          Quote(c->name));
      }
      a.time_units_ = *units;
    }
    return a;
  }
  a.name_ = dim;
  for (int64_t i = 0; i < var.shape[axis]; ++i) a.values_.push_back(double(i));
  return a;
}

std::string AxisCoordinate::Label(int64_t index) const {
  const double v = values_[size_t(index)];
  if (time_units_) {
    auto iso = time_units_->ToIso(v);
    if (iso.ok()) return *iso;
  }
  return FormatDouble(v);
}

std::string AxisCoordinate::Describe() const {
  std::string what = axis_ == Axis::kT ? "time" : "level";
  std::string out = "variable " + Quote(variable_) + ", " + what;
  if (!name_.empty()) out += " coordinate " + Quote(name_);
  if (!values_.empty()) {
    out += " (" + std::to_string(values_.size()) + " value" + (values_.size() == 1 ? "" : "s") +
           ": " + Label(0);
    if (values_.size() > 1) out += " .. " + Label(size() - 1);
    out += ")";
  }
  return out;
}

Result<double> AxisCoordinate::ParseValue(std::string_view text) const {
  text = Trim(text);
  if (time_units_) {
    auto v = time_units_->FromIso(text);
    if (!v.ok()) return v.status().WithContext(Describe());
    return *v;
  }
  size_t used = 0;
  const std::optional<double> parsed = ParseDecimal(text, &used);
  if (!parsed) {
    return Status::InvalidArgument(Describe() + ": " + Quote(text) + " is not a number");
  }
  const double v = *parsed;
  const std::string_view unit = Trim(text.substr(used));
  if (unit.empty()) return v;  // in the coordinate's own units
  // A value with units ("850hPa", "1.5 km"): converted to the coordinate's units if both are
  // pressures or both lengths.
  const std::optional<UnitScale> given = ScaleOf(unit), own = ScaleOf(units_);
  if (!given || !own || given->kind != own->kind) {
    return Status::InvalidArgument(Describe() + ": " + Quote(text) + " is in " + Quote(unit) +
                                   ", which cannot be converted to the coordinate's units " +
                                   Quote(units_) + " (give the value in " + Quote(units_) + ")");
  }
  return v * given->factor / own->factor;
}

Result<std::vector<int64_t>> AxisCoordinate::Select(std::string_view spec, AxisMatch match) const {
  std::vector<int64_t> out;
  if (Trim(spec).empty()) {
    for (int64_t i = 0; i < size(); ++i) out.push_back(i);
    return out;
  }
  const size_t slash = spec.find('/');
  if (slash != std::string_view::npos) {
    const std::string_view lo_text = Trim(spec.substr(0, slash)),
                           hi_text = Trim(spec.substr(slash + 1));
    double lo = -INFINITY, hi = INFINITY;
    if (lo_text != "..") {
      GRIDSTORE_ASSIGN_OR_RETURN(lo, ParseValue(lo_text));
    }
    if (hi_text != "..") {
      GRIDSTORE_ASSIGN_OR_RETURN(hi, ParseValue(hi_text));
    }
    if (lo > hi) {
      // A time range backwards is a mistake (it used to be read forwards: issue 29, 4.7); a
      // level range may run either way (pressure falls with height: "1000/500").
      if (time_units_) {
        return Status::InvalidArgument(Describe() + ": the interval " + Quote(spec) +
                                       " is reversed: its start is after its end");
      }
      std::swap(lo, hi);
    }
    const double eps = time_units_ ? 0.5e6 / double(time_units_->unit_microseconds()) : 0;
    for (int64_t i = 0; i < size(); ++i) {
      if (values_[size_t(i)] >= lo - eps && values_[size_t(i)] <= hi + eps) out.push_back(i);
    }
    if (out.empty()) {
      return Status::OutOfRange(Describe() + ": no value lies in " + Quote(spec));
    }
    return out;
  }
  const std::vector<std::string> items = SplitList(spec, ',');
  if (items.size() != size_t(std::count(spec.begin(), spec.end(), ',')) + 1) {
    // "850,,500" or "," (found by the request fuzzer: an empty list used to select nothing).
    return Status::InvalidArgument(Describe() + ": " + Quote(spec) + " has an empty item");
  }
  for (const std::string& item : items) {
    GRIDSTORE_ASSIGN_OR_RETURN(const double v, ParseValue(item));
    int64_t found = -1;
    if (match == AxisMatch::kNearest) {
      GRIDSTORE_ASSIGN_OR_RETURN(found, NearestIndex(v, Quote(item)));
    } else {
      // Times match to the second, levels to a relative 1e-6.
      const double eps = time_units_ ? 0.5e6 / double(time_units_->unit_microseconds())
                                     : 1e-6 * std::max(1.0, std::fabs(v));
      for (int64_t i = 0; i < size() && found < 0; ++i) {
        if (std::fabs(values_[size_t(i)] - v) <= eps) found = i;
      }
    }
    if (found < 0) {
      return Status::OutOfRange(
          Describe() + ": there is no " + std::string(time_units_ ? "time " : "value ") +
          Quote(item) + NearestHint(v) + "; give one of its values, a range V1/V2, or " +
          "ask for the nearest (" + (axis_ == Axis::kT ? "--time-method" : "--level-method") +
          " nearest)");
    }
    // The same value twice is one selection, as for a range (issue 29, 4.7).
    if (std::find(out.begin(), out.end(), found) == out.end()) out.push_back(found);
  }
  return out;
}

std::string AxisCoordinate::NearestHint(double v) const {
  int64_t below = -1, above = -1;
  for (int64_t i = 0; i < size(); ++i) {
    const double x = values_[size_t(i)];
    if (x <= v && (below < 0 || x > values_[size_t(below)])) below = i;
    if (x >= v && (above < 0 || x < values_[size_t(above)])) above = i;
  }
  std::vector<std::string> near;
  if (below >= 0) near.push_back(Label(below));
  if (above >= 0 && above != below) near.push_back(Label(above));
  if (near.empty()) return "";
  return near.size() == 1 ? " (the nearest is " + near[0] + ")"
                          : " (the nearest are " + near[0] + " and " + near[1] + ")";
}

Result<int64_t> AxisCoordinate::NearestIndex(double value, std::string_view label) const {
  int64_t best = 0;
  for (int64_t i = 1; i < size(); ++i) {
    if (std::fabs(values_[size_t(i)] - value) < std::fabs(values_[size_t(best)] - value)) best = i;
  }
  const auto [lo, hi] = std::minmax_element(values_.begin(), values_.end());
  const double half_step = size() > 1 ? std::fabs(values_[1] - values_[0]) / 2 : 0.5;
  if (value < *lo - half_step || value > *hi + half_step) {
    return Status::OutOfRange(Describe() + ": " + std::string(label) + " is outside it");
  }
  return best;
}

CoordinateSummary SummarizeCoordinate(const Coordinate& c) {
  CoordinateSummary s;
  if (c.values.empty()) return s;
  std::optional<TimeUnits> time;
  if (LooksLikeTime(c)) {
    auto units = TimeUnits::Parse(StringAttribute(c.attributes, "units"),
                                  StringAttribute(c.attributes, "calendar"));
    if (units.ok()) time = *units;
  }
  auto label = [&](double v) {
    if (time) {
      auto iso = time->ToIso(v);
      if (iso.ok()) return *iso;
    }
    return FormatDouble(v + 0.0);  // + 0.0: -0 reads as 0
  };
  s.is_time = time.has_value();
  s.first = label(c.values.front());
  s.last = label(c.values.back());
  if (c.dimensions.size() != 1 || c.values.size() < 2) return s;
  const double step = c.values[1] - c.values[0];
  bool up = true, down = true, regular = true;
  for (size_t i = 1; i < c.values.size(); ++i) {
    const double d = c.values[i] - c.values[i - 1];
    up &= d > 0;
    down &= d < 0;
    regular &= std::fabs(d - step) <= 1e-6 * std::max(std::fabs(step), 1e-300);
  }
  s.direction = up                     ? "ascending"
                : down                 ? "descending"
                : step == 0 && regular ? "constant"
                                       : "unordered";
  if (regular && step != 0) s.step = step;
  return s;
}

}  // namespace gridstore::grid
