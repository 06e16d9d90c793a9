// Copyright 2026 The GridStore Authors.
#include "gridstore/forecast/derived.h"

#include <udunits2.h>

#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <set>

#include "gridstore/grid/derived_cache.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::forecast {
namespace {

using grid::DataSetMeta;
using grid::VariableMeta;

// GRIB short-name pairs and their derived names (ECMWF's parameter names).
struct NamedPair {
  const char* u;
  const char* v;
  const char* speed;
  const char* direction;
};
constexpr NamedPair kGribPairs[] = {
    {"u", "v", "ws", "wdir"},
    {"10u", "10v", "10si", "10wdir"},
    {"100u", "100v", "100si", "100wdir"},
    {"u10", "v10", "10si", "10wdir"},
    {"u100", "v100", "100si", "100wdir"},
};

// The CF standard name of the v component that pairs with u's, or "" if u's is not a u one.
std::string PairedStandardName(std::string_view u) {
  static const std::pair<std::string_view, std::string_view> kStems[] = {
      {"eastward_", "northward_"}, {"x_", "y_"}, {"surface_eastward_", "surface_northward_"}};
  for (const auto& [east, north] : kStems) {
    if (u.substr(0, east.size()) == east && u.find("wind") != std::string_view::npos) {
      return std::string(north) + std::string(u.substr(east.size()));
    }
  }
  return "";
}

const VariableMeta* Find(const DataSetMeta& meta, std::string_view name) {
  for (const auto& v : meta.variables) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

// ---- udunits2: one unit system for the process, read once (its database is immutable), and
// one lock, since udunits2's parser is not thread-safe.

struct Units {
  std::mutex mu;
  ut_system* system = nullptr;
  std::string error;
};

Units& TheUnits() {
  static Units* units = [] {
    auto* u = new Units;
    ut_set_error_message_handler(ut_ignore);
    u->system = ut_read_xml(nullptr);
    if (u->system == nullptr) {
      u->error =
          "udunits2 cannot read its unit database (install libudunits2-data, or set "
          "UDUNITS2_XML_PATH)";
    }
    return u;
  }();
  return *units;
}

struct UnitDeleter {
  void operator()(ut_unit* u) const { ut_free(u); }
};
using UnitPtr = std::unique_ptr<ut_unit, UnitDeleter>;
struct ConverterDeleter {
  void operator()(cv_converter* c) const { cv_free(c); }
};
using ConverterPtr = std::unique_ptr<cv_converter, ConverterDeleter>;

// GRIB writes "m s**-1" and "m**2 s**-2"; udunits2 reads both "**" and plain exponents. A
// few spellings it lacks are mapped.
std::string Normalise(std::string_view units) {
  std::string u(Trim(units));
  if (u == "deg C" || u == "C" || u == "Celsius") return "degC";
  if (u == "(0 - 1)" || u == "0-1" || u == "fraction") return "1";
  if (u == "%") return "percent";
  return u;
}

// The converter from `from` to `to`, or null if they do not convert. REQUIRES: lock held.
Result<ConverterPtr> Converter(Units& units, std::string_view from, std::string_view to) {
  UnitPtr a(ut_parse(units.system, Normalise(from).c_str(), UT_UTF8));
  UnitPtr b(ut_parse(units.system, Normalise(to).c_str(), UT_UTF8));
  if (b == nullptr) {
    return Status::InvalidArgument("unit " + Quote(to) + " is not one udunits2 knows");
  }
  if (a == nullptr || !ut_are_convertible(a.get(), b.get())) return ConverterPtr();
  return ConverterPtr(ut_get_converter(a.get(), b.get()));
}

constexpr const char* kDroppedOnConversion[] = {"valid_min",    "valid_max",    "valid_range",
                                                "actual_range", "scale_factor", "add_offset"};

}  // namespace

std::vector<WindPair> WindPairs(const DataSetMeta& meta) {
  std::vector<WindPair> pairs;
  std::set<std::string> taken;
  auto add = [&](const VariableMeta& u, const VariableMeta& v, std::string speed,
                 std::string direction) {
    if (u.shape != v.shape || taken.count(u.name) || Find(meta, speed) || Find(meta, direction)) {
      return;
    }
    taken.insert(u.name);
    pairs.push_back({u.name, v.name, std::move(speed), std::move(direction)});
  };
  for (const NamedPair& p : kGribPairs) {
    const VariableMeta* u = Find(meta, p.u);
    const VariableMeta* v = Find(meta, p.v);
    if (u != nullptr && v != nullptr) add(*u, *v, p.speed, p.direction);
  }
  std::vector<std::pair<const VariableMeta*, const VariableMeta*>> cf;
  for (const VariableMeta& u : meta.variables) {
    const std::string v_name =
        PairedStandardName(grid::StringAttribute(u.attributes, "standard_name"));
    if (v_name.empty() || taken.count(u.name)) continue;
    for (const VariableMeta& v : meta.variables) {
      if (grid::StringAttribute(v.attributes, "standard_name") == v_name) {
        cf.push_back({&u, &v});
        break;
      }
    }
  }
  for (const auto& [u, v] : cf) {
    const std::string suffix = cf.size() > 1 ? "_" + u->name : "";
    add(*u, *v, "wind_speed" + suffix, "wind_from_direction" + suffix);
  }
  return pairs;
}

DerivedVariables ResolveDerived(const DataSetMeta& meta,
                                const std::vector<std::string>& variables) {
  DerivedVariables out;
  out.requested = variables;
  std::vector<WindPair> pairs;
  bool looked = false;
  std::set<std::string> reading;
  auto read = [&](const std::string& name) {
    if (reading.insert(name).second) out.read.push_back(name);
  };
  for (const std::string& name : variables) {
    if (Find(meta, name) != nullptr) {
      read(name);
      continue;
    }
    if (!looked) pairs = WindPairs(meta), looked = true;
    bool derived = false;
    for (const WindPair& p : pairs) {
      if (name == p.speed || name == p.direction) {
        out.derived.push_back({name, name == p.speed, p.u, p.v});
        read(p.u);
        read(p.v);
        derived = true;
        break;
      }
    }
    if (!derived) read(name);
  }
  return out;
}

Status ApplyDerived(const DerivedVariables& resolved, grid::Extraction* extraction) {
  if (resolved.empty()) return Status::OK();
  std::map<std::string, grid::Extraction::Variable*> by_name;
  for (auto& v : extraction->variables) by_name[v.meta.name] = &v;
  std::map<std::string, grid::Extraction::Variable> made;
  for (const DerivedVariables::Derived& d : resolved.derived) {
    auto u = by_name.find(d.u);
    auto v = by_name.find(d.v);
    if (u == by_name.end() || v == by_name.end()) {
      return Status::Internal("wind components " + Quote(d.u) + " and " + Quote(d.v) +
                              " were not read");
    }
    grid::Extraction::Variable out;
    out.meta = u->second->meta;
    out.meta.name = d.name;
    out.meta.packing.reset();
    out.meta.complete_steps = {};
    grid::Attributes& a = out.meta.attributes;
    for (const char* dropped : kDroppedOnConversion) a.erase(dropped);
    a.erase("standard_name");
    a.erase("long_name");
    a.erase("GRIB_paramId");
    a.erase("GRIB_shortName");
    if (d.speed) {
      a["standard_name"] = grid::AttributeValue::String("wind_speed");
      a["long_name"] = grid::AttributeValue::String("wind speed from " + d.u + " and " + d.v);
    } else {
      a["standard_name"] = grid::AttributeValue::String("wind_from_direction");
      a["long_name"] = grid::AttributeValue::String(
          "direction the wind blows from, clockwise from north, from " + d.u + " and " + d.v);
      a["units"] = grid::AttributeValue::String("degree");
    }
    const std::vector<double>& us = u->second->values;
    const std::vector<double>& vs = v->second->values;
    out.values.resize(us.size());
    for (size_t i = 0; i < us.size(); ++i) {
      if (d.speed) {
        out.values[i] = std::hypot(us[i], vs[i]);
      } else {
        // From-direction: 180 degrees from where the vector points; calm air is 0 (ECMWF's).
        double deg = std::atan2(us[i], vs[i]) * 180.0 / std::numbers::pi + 180.0;
        if (us[i] == 0 && vs[i] == 0) deg = 0;
        out.values[i] = deg >= 360.0 ? deg - 360.0 : deg;
      }
    }
    made[d.name] = std::move(out);
  }
  std::vector<grid::Extraction::Variable> ordered;
  for (const std::string& name : resolved.requested) {
    auto m = made.find(name);
    if (m != made.end()) {
      ordered.push_back(std::move(m->second));
      continue;
    }
    auto r = by_name.find(name);
    if (r != by_name.end()) ordered.push_back(std::move(*r->second));
  }
  extraction->variables = std::move(ordered);
  return Status::OK();
}

Status ConvertUnits(std::string_view units, std::span<grid::Extraction> results) {
  const std::vector<std::string> targets = SplitList(units, ',');
  if (targets.empty()) return Status::InvalidArgument("--units names no unit");
  Units& u = TheUnits();
  std::lock_guard<std::mutex> lock(u.mu);
  if (u.system == nullptr) return Status::FailedPrecondition(u.error);
  std::vector<bool> used(targets.size(), false);
  std::string seen;  // "t (K), u (m s**-1)" for the error
  for (grid::Extraction& r : results) {
    for (grid::Extraction::Variable& var : r.variables) {
      const std::string from = grid::StringAttribute(var.meta.attributes, "units");
      seen += (seen.empty() ? "" : ", ") + var.meta.name + " (" +
              (from.empty() ? "no units" : from) + ")";
      if (from.empty()) continue;
      for (size_t t = 0; t < targets.size(); ++t) {
        GRIDSTORE_ASSIGN_OR_RETURN(ConverterPtr c, Converter(u, from, targets[t]));
        if (c == nullptr) continue;
        used[t] = true;
        cv_convert_doubles(c.get(), var.values.data(), var.values.size(), var.values.data());
        var.meta.attributes["units"] = grid::AttributeValue::String(targets[t]);
        var.meta.packing.reset();
        for (const char* dropped : kDroppedOnConversion) var.meta.attributes.erase(dropped);
        break;
      }
    }
  }
  for (size_t t = 0; t < targets.size(); ++t) {
    if (!used[t]) {
      return Status::InvalidArgument("--units " + Quote(targets[t]) +
                                     " converts none of the variables: " + seen);
    }
  }
  return Status::OK();
}

Result<double> ConvertValue(double value, std::string_view from, std::string_view to) {
  Units& u = TheUnits();
  std::lock_guard<std::mutex> lock(u.mu);
  if (u.system == nullptr) return Status::FailedPrecondition(u.error);
  GRIDSTORE_ASSIGN_OR_RETURN(ConverterPtr c, Converter(u, from, to));
  if (c == nullptr) {
    return Status::InvalidArgument("units " + Quote(from) + " do not convert to " + Quote(to));
  }
  return cv_convert_double(c.get(), value);
}

namespace {

// The requested variables split into the groups one extraction reads together (same grid and
// axes), in meta order, each with what it derives.
struct VariableGroup {
  DerivedVariables derived;  // its `read` is what the group reads
};

std::vector<VariableGroup> GroupVariables(grid::GridStore& store, const DataSetMeta& meta,
                                          const std::vector<std::string>& variables) {
  if (variables.empty()) return {VariableGroup{}};  // every variable: ExtractEvery's groups
  const DerivedVariables all = ResolveDerived(meta, variables);
  std::vector<std::vector<std::string>> groups =
      grid::VariableGroups(meta, nullptr, &store.derived_cache());
  std::map<std::string, size_t> group_of;
  for (size_t g = 0; g < groups.size(); ++g) {
    for (const std::string& v : groups[g]) group_of[v] = g;
  }
  // A name in no group (unknown, or without a grid) gets a group of its own: its plan says why.
  std::map<size_t, VariableGroup> by_group;
  size_t lone = groups.size();
  auto group_for = [&](const std::string& stored) {
    auto it = group_of.find(stored);
    return it != group_of.end() ? it->second : lone++;
  };
  std::map<std::string, size_t> placed;
  for (const std::string& name : variables) {
    const DerivedVariables::Derived* d = nullptr;
    for (const auto& x : all.derived) {
      if (x.name == name) d = &x;
    }
    const size_t g = group_for(d != nullptr ? d->u : name);
    DerivedVariables& gv = by_group[g].derived;
    gv.requested.push_back(name);
    auto read = [&](const std::string& v) {
      if (std::find(gv.read.begin(), gv.read.end(), v) == gv.read.end()) gv.read.push_back(v);
    };
    if (d != nullptr) {
      gv.derived.push_back(*d);
      read(d->u);
      read(d->v);
    } else {
      read(name);
    }
  }
  std::vector<VariableGroup> out;
  for (auto& [g, group] : by_group) out.push_back(std::move(group));
  return out;
}

}  // namespace

Result<std::vector<grid::Extraction>> ExtractDerived(grid::GridStore& store,
                                                     std::shared_ptr<const DataSetMeta> meta,
                                                     const grid::ExtractRequest& request,
                                                     std::string_view units,
                                                     std::vector<std::string>* left_out) {
  if ((!units.empty() || !ResolveDerived(*meta, request.variables).empty()) && !request.unpack) {
    return Status::InvalidArgument("derived quantities and units need unpacked values (not --raw)");
  }
  std::vector<grid::Extraction> out;
  for (const VariableGroup& group : GroupVariables(store, *meta, request.variables)) {
    grid::ExtractRequest r = request;
    r.variables = group.derived.read;
    GRIDSTORE_ASSIGN_OR_RETURN(std::vector<grid::PlannedExtract> plans,
                               grid::PlanExtractions(store, meta, r, left_out));
    for (const grid::PlannedExtract& plan : plans) {
      GRIDSTORE_ASSIGN_OR_RETURN(grid::Extraction e, grid::Extract(store, plan));
      GRIDSTORE_RETURN_IF_ERROR(ApplyDerived(group.derived, &e));
      out.push_back(std::move(e));
    }
  }
  if (!units.empty()) GRIDSTORE_RETURN_IF_ERROR(ConvertUnits(units, out));
  return out;
}

}  // namespace gridstore::forecast
