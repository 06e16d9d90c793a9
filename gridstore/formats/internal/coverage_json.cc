// Copyright 2026 The GridStore Authors.
#include "gridstore/formats/internal/coverage_json.h"

#include <charconv>
#include <random>

#include "gridstore/formats/internal/coverage_json_stream.h"

namespace gridstore::internal_formats {

using grid::Extraction;
using json = covjson;

json TimeValue(const Extraction& r, TimeLabels& labels, int64_t index) {
  if (r.time_axis.is_time()) return std::string(labels.Get(index));
  return r.time_axis.values()[size_t(index)];
}

json TimeValues(const Extraction& r, const std::vector<int64_t>& indices) {
  json values = json::array();
  if (!r.time_axis.is_time()) {
    for (int64_t i : indices) values.push_back(r.time_axis.values()[size_t(i)]);
    return values;
  }
  TimeLabels labels(r.time_axis);
  for (int64_t i : indices) values.push_back(std::string(labels.Get(i)));
  return values;
}

json LevelValues(const Extraction& r, const std::vector<int64_t>& indices) {
  json values = json::array();
  for (int64_t i : indices) values.push_back(r.level_axis.values()[size_t(i)]);
  return values;
}

// The domain's name for the t axis: "t" for CF time (ISO strings, a TemporalRS). An axis without
// CF time units (a "time" in `mon`, a month number) has no calendar, so it is not CoverageJSON's
// t: it goes by its own name, with an identifier reference system that says what it is.
std::string TimeKey(const Extraction& r) {
  if (r.time_axis.is_time()) return "t";
  std::string name = r.time_axis.name();
  if (name.empty() || name == "t" || name == "x" || name == "y" || name == "z" ||
      name == "composite") {
    name += "_axis";
  }
  return name;
}

namespace {

json Parameters(const Extraction& r) {
  json params = json::object();
  for (const auto& v : r.variables) {
    json p = {{"type", "Parameter"}};
    const std::string long_name = grid::StringAttribute(v.meta.attributes, "long_name");
    const std::string standard = grid::StringAttribute(v.meta.attributes, "standard_name");
    const std::string units = grid::StringAttribute(v.meta.attributes, "units");
    if (!long_name.empty()) p["description"] = {{"en", long_name}};
    if (!units.empty()) p["unit"] = {{"symbol", units}};
    json prop = {
        {"label",
         {{"en", long_name.empty() ? (standard.empty() ? v.meta.name : standard) : long_name}}}};
    if (!standard.empty()) {
      prop["id"] = "http://vocab.nerc.ac.uk/standard_name/" + standard + "/";
    }
    p["observedProperty"] = prop;
    params[v.meta.name] = p;
  }
  return params;
}

// The vertical reference system of the z axis, from the level coordinate's units: pressure
// increases downwards, heights and depths name their direction by the coordinate's `positive`.
json VerticalCrs(const Extraction& r) {
  const std::string& units = r.level_axis.units();
  json axis = {{"name", {{"en", r.level_axis.name()}}}};
  if (!units.empty()) axis["unit"] = {{"symbol", units}};
  return {{"type", "VerticalCRS"}, {"cs", {{"csAxes", json::array({axis})}}}};
}

}  // namespace

json Referencing(const Extraction& r) {
  json refs = json::array();
  refs.push_back(
      {{"coordinates", {"x", "y"}},
       {"system",
        {{"type", "GeographicCRS"}, {"id", "http://www.opengis.net/def/crs/OGC/1.3/CRS84"}}}});
  if (r.time_axis.is_time()) {
    const grid::Calendar cal = r.time_axis.time_units()->calendar();
    const bool gregorian =
        cal == grid::Calendar::kStandard || cal == grid::Calendar::kProlepticGregorian;
    refs.push_back({{"coordinates", {"t"}},
                    {"system",
                     {{"type", "TemporalRS"},
                      {"calendar", gregorian ? std::string("Gregorian")
                                             : "http://cfconventions.org/calendars/" +
                                                   std::string(grid::CalendarName(cal))}}}});
  } else if (!r.time_axis.name().empty()) {
    const std::string& units = r.time_axis.units();
    refs.push_back({{"coordinates", {TimeKey(r)}},
                    {"system",
                     {{"type", "IdentifierRS"},
                      {"label", {{"en", r.time_axis.name()}}},
                      {"targetConcept",
                       {{"label",
                         {{"en", "a time-like axis " +
                                     (units.empty() ? std::string("without units")
                                                    : "in '" + units + "', not CF time units") +
                                     ": it has no calendar"}}}}}}}});
  }
  if (!r.level_axis.name().empty()) {
    refs.push_back({{"coordinates", {"z"}}, {"system", VerticalCrs(r)}});
  }
  return refs;
}

namespace {

// Whether `v`'s values are written as floats (AppendRangeValue).
bool IsFloat(const Extraction::Variable& v) { return v.meta.type == grid::DataType::kFloat32; }

// The value of variable `v` at point p, i-th time and j-th level of the plan.
double PointValue(const Extraction& r, const Extraction::Variable& v, size_t p, size_t i,
                  size_t j) {
  const grid::ExtractPlan& plan = r.plan;
  return v.values[(p * plan.num_times() + i) * plan.num_levels() + j];
}

// The domain's axes that every coverage has: t and z (when the variable has them).
void AddTimeAndLevelAxes(const Extraction& r, const std::vector<int64_t>& times,
                         const std::vector<int64_t>& levels, json* axes) {
  if (!r.time_axis.name().empty()) (*axes)[TimeKey(r)] = {{"values", TimeValues(r, times)}};
  if (!r.level_axis.name().empty()) (*axes)["z"] = {{"values", LevelValues(r, levels)}};
}

json Range(const json& values, std::vector<std::string> axis_names, std::vector<size_t> shape) {
  json range = {{"type", "NdArray"}, {"dataType", "float"}, {"values", values}};
  if (!axis_names.empty()) {
    range["axisNames"] = axis_names;
    range["shape"] = shape;
  }
  return range;
}

// One coverage at point `p` over the plan's time positions `ti` and level positions `zi` (one
// of them a single position): PointSeries, VerticalProfile or Point.
json PointCoverage(const Extraction& r, size_t p, const std::vector<size_t>& ti,
                   const std::vector<size_t>& zi, RawArrays* raw) {
  const grid::ExtractPlan& plan = r.plan;
  const grid::LonLat& at = plan.points[p].requested;
  const bool series = ti.size() > 1, profile = zi.size() > 1;
  json domain = {{"type", "Domain"},
                 {"domainType", series    ? "PointSeries"
                                : profile ? "VerticalProfile"
                                          : "Point"}};
  json axes = {{"x", {{"values", {at.lon}}}}, {"y", {{"values", {at.lat}}}}};
  std::vector<int64_t> times, levels;
  for (size_t i : ti) times.push_back(plan.TimeOf(p, i));
  for (size_t j : zi) levels.push_back(plan.LevelOf(p, j));
  AddTimeAndLevelAxes(r, times, levels, &axes);
  domain["axes"] = axes;
  domain["referencing"] = Referencing(r);
  json ranges = json::object();
  for (const auto& v : r.variables) {
    std::vector<double> numbers;
    numbers.reserve(ti.size() * zi.size());
    for (size_t i : ti) {
      for (size_t j : zi) numbers.push_back(PointValue(r, v, p, i, j));
    }
    const json values = raw->Add(std::move(numbers), IsFloat(v));
    if (series) {
      ranges[v.meta.name] = Range(values, {TimeKey(r)}, {ti.size()});
    } else if (profile) {
      ranges[v.meta.name] = Range(values, {"z"}, {zi.size()});
    } else {
      ranges[v.meta.name] = Range(values, {}, {});
    }
  }
  return {{"type", "Coverage"}, {"domain", domain}, {"ranges", ranges}};
}

// The path at time position `i`: a Trajectory (one level each) or, over many levels, a Section.
json TrajectoryCoverage(const Extraction& r, TimeLabels& labels, size_t i, RawArrays* raw) {
  const grid::ExtractPlan& plan = r.plan;
  const size_t n = plan.points.size(), nz = plan.num_levels();
  const bool section = nz > 1;
  // A level in each tuple only where the variable has a level axis (else z has no reference).
  const bool with_level = !section && !r.level_axis.name().empty();
  json tuples = json::array();
  for (size_t p = 0; p < n; ++p) {
    json tuple = {TimeValue(r, labels, plan.TimeOf(p, i)), plan.points[p].requested.lon,
                  plan.points[p].requested.lat};
    if (with_level) tuple.push_back(r.level_axis.values()[size_t(plan.LevelOf(p, 0))]);
    tuples.push_back(tuple);
  }
  std::vector<std::string> coordinates = {TimeKey(r), "x", "y"};
  if (with_level) coordinates.push_back("z");
  json axes = {
      {"composite", {{"dataType", "tuple"}, {"coordinates", coordinates}, {"values", tuples}}}};
  if (section) axes["z"] = {{"values", LevelValues(r, plan.levels)}};
  json domain = {{"type", "Domain"},
                 {"domainType", section ? "Section" : "Trajectory"},
                 {"axes", axes},
                 {"referencing", Referencing(r)}};
  json ranges = json::object();
  for (const auto& v : r.variables) {
    std::vector<double> numbers;
    numbers.reserve(nz * n);
    for (size_t j = 0; j < nz; ++j) {  // z-major for a section
      for (size_t p = 0; p < n; ++p) numbers.push_back(PointValue(r, v, p, i, j));
    }
    const json values = raw->Add(std::move(numbers), IsFloat(v));
    ranges[v.meta.name] =
        section ? Range(values, {"z", "composite"}, {nz, n}) : Range(values, {"composite"}, {n});
  }
  return {{"type", "Coverage"}, {"domain", domain}, {"ranges", ranges}};
}

json GridCoverage(const Extraction& r, RawArrays* raw) {
  const grid::ExtractPlan& plan = r.plan;
  const int64_t nx = plan.area[2], ny = plan.area[3];
  json xs = json::array(), ys = json::array();
  const bool x_is_lat = r.grid->x_is_latitude();
  for (int64_t y = 0; y < ny; ++y) {
    const grid::LonLat c = r.grid->At(plan.AreaCell(0, y));
    (x_is_lat ? xs : ys).push_back(x_is_lat ? plan.Lon(c.lon) : c.lat);
  }
  for (int64_t x = 0; x < nx; ++x) {
    const grid::LonLat c = r.grid->At(plan.AreaCell(x, 0));
    (x_is_lat ? ys : xs).push_back(x_is_lat ? c.lat : plan.Lon(c.lon));
  }
  json axes = {{"x", {{"values", xs}}}, {"y", {{"values", ys}}}};
  AddTimeAndLevelAxes(r, plan.times, plan.levels, &axes);
  // The range's axes: t and z only where the domain has them (their extent is then the count).
  std::vector<std::string> names;
  std::vector<size_t> shape;
  if (axes.contains(TimeKey(r))) names.push_back(TimeKey(r)), shape.push_back(plan.times.size());
  if (axes.contains("z")) names.push_back("z"), shape.push_back(plan.levels.size());
  names.push_back(x_is_lat ? "y" : "x");
  names.push_back(x_is_lat ? "x" : "y");
  shape.push_back(size_t(nx));
  shape.push_back(size_t(ny));
  json domain = {
      {"type", "Domain"}, {"domainType", "Grid"}, {"axes", axes}, {"referencing", Referencing(r)}};
  json ranges = json::object();
  for (const auto& v : r.variables) {
    ranges[v.meta.name] = Range(raw->Add(&v.values, IsFloat(v)), names, shape);
  }
  return {{"type", "Coverage"}, {"domain", domain}, {"ranges", ranges}};
}

// An area of a curvilinear grid: the cells inside as a MultiPointSeries (or MultiPoint at one
// time), one coverage per level.
json MultiPointCoverage(const Extraction& r, size_t j, RawArrays* raw) {
  const grid::ExtractPlan& plan = r.plan;
  const int64_t nx = plan.area[2], ny = plan.area[3];
  // MultiPoint domains have no z axis: a level goes into each tuple (x, y, z).
  const bool with_level = !r.level_axis.name().empty();
  json tuples = json::array();
  std::vector<size_t> cells;  // x * ny + y of the cells inside
  for (int64_t x = 0; x < nx; ++x) {
    for (int64_t y = 0; y < ny; ++y) {
      if (!plan.mask[size_t(x * ny + y)]) continue;
      const grid::LonLat c = r.grid->At(plan.AreaCell(x, y));
      json tuple = {plan.Lon(c.lon), c.lat};
      if (with_level) tuple.push_back(r.level_axis.values()[size_t(plan.levels[j])]);
      tuples.push_back(tuple);
      cells.push_back(size_t(x * ny + y));
    }
  }
  const bool series = plan.times.size() > 1;
  std::vector<std::string> coordinates = {"x", "y"};
  if (with_level) coordinates.push_back("z");
  json axes = {
      {"composite", {{"dataType", "tuple"}, {"coordinates", coordinates}, {"values", tuples}}}};
  if (!r.time_axis.name().empty()) axes[TimeKey(r)] = {{"values", TimeValues(r, plan.times)}};
  json domain = {{"type", "Domain"},
                 {"domainType", series ? "MultiPointSeries" : "MultiPoint"},
                 {"axes", axes},
                 {"referencing", Referencing(r)}};
  json ranges = json::object();
  const size_t plane = size_t(nx * ny);
  for (const auto& v : r.variables) {
    std::vector<double> numbers;
    numbers.reserve(plan.times.size() * cells.size());
    for (size_t i = 0; i < plan.times.size(); ++i) {
      for (size_t c : cells) numbers.push_back(v.values[(i * plan.levels.size() + j) * plane + c]);
    }
    const json values = raw->Add(std::move(numbers), IsFloat(v));
    ranges[v.meta.name] =
        series ? Range(values, {TimeKey(r), "composite"}, {plan.times.size(), cells.size()})
               : Range(values, {"composite"}, {cells.size()});
  }
  return {{"type", "Coverage"}, {"domain", domain}, {"ranges", ranges}};
}

std::vector<size_t> Positions(size_t n) {
  std::vector<size_t> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = i;
  return out;
}

}  // namespace

json RawArrays::Add(const std::vector<double>* values, bool as_float) {
  arrays_.push_back({values, as_float});
  return Prefix() + std::to_string(arrays_.size() - 1) + "@";
}

json RawArrays::Add(std::vector<double> values, bool as_float) {
  return Add(&owned_.emplace_back(std::move(values)), as_float);
}

std::string RawArrays::Splice(const std::string& text) const {
  if (arrays_.empty()) return text;
  std::string out;
  size_t numbers = 0;
  for (const Array& a : arrays_) numbers += a.values->size();
  out.reserve(text.size() + numbers * 12);
  const std::string opening = "\"" + Prefix();
  const char* const text_end = text.data() + text.size();
  size_t pos = 0;
  for (size_t at; (at = text.find(opening, pos)) != std::string::npos;) {
    const char* digits = text.data() + at + opening.size();
    size_t index = 0;
    const auto [end, ec] = std::from_chars(digits, text_end, index);
    // Only a placeholder Add made ("<prefix><index>@"); anything else is the document's text.
    if (ec != std::errc() || index >= arrays_.size() || text_end - end < 2 || end[0] != '@' ||
        end[1] != '"') {
      out.append(text, pos, size_t(digits - text.data()) - pos);
      pos = size_t(digits - text.data());
      continue;
    }
    out.append(text, pos, at - pos);
    out += '[';
    const Array& a = arrays_[index];
    for (size_t k = 0; k < a.values->size(); ++k) {
      if (k > 0) out += ',';
      AppendRangeValue((*a.values)[k], a.as_float, &out);
    }
    out += ']';
    pos = size_t(end + 2 - text.data());
  }
  out.append(text, pos);
  return out;
}

const std::string& RawArrays::Prefix() {
  static const std::string prefix =
      "@gridstore-values-" + std::to_string(std::random_device()()) + "-";
  return prefix;
}

json CoverageParameters(const Extraction& r) { return Parameters(r); }

// The coverages of an extraction, before they are wrapped as one or a collection.
std::vector<json> ExtractionCoverages(const Extraction& r, RawArrays* raw) {
  const grid::ExtractPlan& plan = r.plan;
  std::vector<json> coverages;
  const size_t nt = plan.num_times(), nz = plan.num_levels();
  if (plan.kind == grid::FeatureKind::kArea) {
    if (r.grid->type() == grid::GridType::kRectilinear) return {GridCoverage(r, raw)};
    for (size_t j = 0; j < nz; ++j) coverages.push_back(MultiPointCoverage(r, j, raw));
    return coverages;
  }
  if (plan.kind == grid::FeatureKind::kTrajectory) {
    TimeLabels labels(r.time_axis);
    for (size_t i = 0; i < nt; ++i) coverages.push_back(TrajectoryCoverage(r, labels, i, raw));
    return coverages;
  }
  for (size_t p = 0; p < plan.points.size(); ++p) {
    if (nt > 1 && nz > 1) {
      for (size_t i = 0; i < nt; ++i) {
        coverages.push_back(PointCoverage(r, p, {i}, Positions(nz), raw));
      }
    } else {
      coverages.push_back(PointCoverage(r, p, Positions(nt), Positions(nz), raw));
    }
  }
  return coverages;
}

Status EmitJson(const json& doc, std::ostream& out, formats::JsonLayout layout,
                const RawArrays* raw) {
  const int indent = layout == formats::JsonLayout::kIndented ? 1 : -1;
  std::string text = doc.dump(indent, ' ', false, json::error_handler_t::replace) + "\n";
  if (raw != nullptr) text = raw->Splice(text);
  out.write(text.data(), std::streamsize(text.size()));
  return out ? Status::OK() : Status::Unavailable("writing the output failed");
}

}  // namespace gridstore::internal_formats
