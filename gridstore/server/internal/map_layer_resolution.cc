// Copyright 2026 The GridStore Authors.
//
// Which field a map request names (map_layers.h): the dataset or forecast collection, its run,
// member or statistic, the parameter, valid time and level, and for a difference the B side with
// the defaults it takes from A; then the colour map a quantity gets and range=. Apart from
// map_layers.cc (reading and drawing) because these rules are about the request's words and
// every error sentence a wrong one gets, and are read and changed as one.
#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "gridstore/forecast/collection.h"
#include "gridstore/forecast/collection_query.h"
#include "gridstore/forecast/derived.h"
#include "gridstore/forecast/ensemble_stats.h"
#include "gridstore/geo/coordinates.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/server/internal/documents.h"
#include "gridstore/server/internal/endpoints.h"
#include "gridstore/server/internal/map_layers.h"
#include "gridstore/server/map_image.h"
#include "gridstore/server/query_string.h"
#include "gridstore/util/internal/strings.h"
#include "gridstore/util/result.h"
#include "gridstore/util/status.h"

namespace gridstore::server {
namespace map_layer_resolution_detail {

const std::string* Get(const RequestTarget& target, const std::string& name) {
  auto it = target.query.find(name);
  return it == target.query.end() ? nullptr : &it->second;
}

Status CheckNames(const RequestTarget& target, const std::vector<std::string>& extra,
                  std::string_view where) {
  for (const auto& [name, value] : target.query) {
    const auto& common = MapParameterNames();
    if (std::find(common.begin(), common.end(), name) != common.end()) continue;
    if (std::find(extra.begin(), extra.end(), name) != extra.end()) continue;
    std::vector<std::string> all = common;
    all.insert(all.end(), extra.begin(), extra.end());
    return Status::InvalidArgument(std::string(where) + " has no parameter " + Quote(name) +
                                   "; it takes " + Join(all, ", "));
  }
  return Status::OK();
}

std::string Lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool OneOf(const std::string& s, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), s) != names.end();
}

// The colour map a quantity gets when none is asked (docs/serve.md lists the rules).
Colormap QuantityColormap(const MapField& f) {
  const std::string standard = Lower(f.standard_name), units = f.units, name = Lower(f.variable);
  if (standard.find("precipitation") != std::string::npos ||
      standard.find("rainfall") != std::string::npos ||
      OneOf(name, {"tp", "cp", "lsp", "pr", "precip", "precipitation", "rain", "tprate", "prate",
                   "apcp", "crr", "lsrr"}) ||
      OneOf(units, {"kg m-2", "kg m**-2", "kg/m2", "kg m-2 s-1", "kg m**-2 s**-1", "mm",
                    "m of water equivalent"})) {
    return Colormap::kPrecipitation;
  }
  if (standard.find("temperature") != std::string::npos ||
      OneOf(name, {"t", "2t", "t2m", "tas", "temp", "temperature", "skt", "sst", "tos", "2d", "d2m",
                   "td", "t2m_c"}) ||
      OneOf(units, {"K", "degC", "Celsius", "celsius", "degree_Celsius", "deg C", "C", "degF"})) {
    return Colormap::kTemperature;
  }
  if (standard.find("wind") != std::string::npos ||
      OneOf(name,
            {"ws",  "wspd", "wind", "10si", "si10", "100si", "u",    "v",    "10u",  "10v",
             "u10", "v10",  "100u", "100v", "ugrd", "vgrd",  "gust", "fg10", "10fg", "i10fg"})) {
    return Colormap::kWind;
  }
  return Colormap::kViridis;
}

// Below this, precipitation is drawn transparent: 0.1 mm (0.0001 m of water, 0.1 kg m-2), 0.1
// mm/h for a rate; any value above 0 otherwise.
double PrecipitationThreshold(const std::string& units) {
  if (units == "m" || units == "m of water equivalent") return 1e-4;
  if (units.find("s-1") != std::string::npos || units.find("s**-1") != std::string::npos) {
    return 0.1 / 3600;
  }
  if (units.find("kg") != std::string::npos || units == "mm") return 0.1;
  return 1e-9;
}

Result<std::vector<double>> RangeNumbers(const std::string& text, size_t count, const char* name) {
  std::vector<double> out;
  for (const std::string& item : SplitList(text, ',')) {
    const std::string_view trimmed = Trim(item);
    size_t used = 0;
    const std::optional<double> v = ParseDecimal(trimmed, &used);
    if (!v || used != trimmed.size() || !std::isfinite(*v)) break;
    out.push_back(*v);
  }
  if (out.size() != count) {
    return Status::InvalidArgument(std::string(name) + " " + Quote(text) + " is not " +
                                   std::to_string(count) + " comma-separated finite numbers");
  }
  return out;
}

std::vector<std::string> Labels(const grid::DataSetMeta& meta, const grid::VariableMeta& var,
                                grid::Axis axis) {
  std::vector<std::string> labels;
  Result<grid::AxisCoordinate> a = grid::AxisCoordinate::Build(meta, var, axis);
  if (!a.ok() || a->name().empty()) return labels;
  for (int64_t i = 0; i < a->size(); ++i) labels.push_back(a->Label(i));
  return labels;
}

std::string Version(const grid::DataSetMeta& meta) {
  return meta.id + "@" + std::to_string(meta.incarnation) + "." + std::to_string(meta.generation);
}

// A dataset has no runs, members or statistics: InvalidArgument if `prefix`run, member or stat
// is given.
Status RefuseForecastParameters(const RequestTarget& target, const std::string& prefix,
                                const std::string& id) {
  for (const std::string* given : {Get(target, prefix + "run"), Get(target, prefix + "member"),
                                   Get(target, prefix + "stat")}) {
    if (given != nullptr) {
      return Status::InvalidArgument(prefix + "run, " + prefix + "member and " + prefix +
                                     "stat are for forecast " + "collections; " + Quote(id) +
                                     " is a dataset");
    }
  }
  return Status::OK();
}

// The one run of `c` that `run` (or "latest") selects. B takes A's run unless it says (when B
// has that run: another centre's may lag).
Result<const forecast::Run*> SelectRun(const forecast::Collection& c, const std::string* run,
                                       const std::string& prefix, const MapField* a) {
  std::string run_spec = run ? *run : "latest";
  if (a != nullptr && run == nullptr && !a->run.empty()) {
    Result<std::vector<const forecast::Run*>> same = forecast::SelectRuns(c, a->run);
    if (same.ok() && same->size() == 1) run_spec = a->run;
  }
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<const forecast::Run*> runs,
                             forecast::SelectRuns(c, run_spec));
  if (runs.size() != 1) {
    return Status::InvalidArgument(prefix + "run " + Quote(run_spec) + " selects " +
                                   std::to_string(runs.size()) +
                                   " runs; a map shows one: latest, latest-N or an ISO time");
  }
  return runs.front();
}

// The member `text` (a member number) of run `r` of collection `id`, whose time is `run_time`.
Result<const forecast::RunMember*> FindMember(const forecast::Collection& c, const forecast::Run& r,
                                              const std::string& text, const std::string& prefix,
                                              const std::string& id, const std::string& run_time) {
  if (!c.has_members()) {
    return Status::InvalidArgument(prefix + "member " + Quote(text) + ": " + Quote(id) +
                                   " is deterministic (no members)");
  }
  int64_t m = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), m);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return Status::InvalidArgument(prefix + "member " + Quote(text) + " is not one member number");
  }
  const forecast::RunMember* found = r.Find(m);
  if (found == nullptr) {
    std::vector<std::string> have;
    for (const auto& rm : r.members) have.push_back(std::to_string(rm.member));
    return Status::NotFound(prefix + "member " + std::to_string(m) + " is not in run " + run_time +
                            " of " + Quote(id) + " (members " + Join(have, ", ") + ")");
  }
  return found;
}

// Sets f->stat, f->probability and f->members_read for the statistic `text` of run `r`.
Status SetStatistic(const forecast::Collection& c, const forecast::Run& r, const std::string& text,
                    const std::string& prefix, const std::string& id, MapField* f) {
  if (!c.has_members()) {
    return Status::InvalidArgument(prefix + "stat " + Quote(text) + ": " + Quote(id) +
                                   " is deterministic (no members to take statistics of)");
  }
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<forecast::Statistic> parsed,
                             forecast::ParseStatistics(text));
  if (parsed.size() != 1) {
    return Status::InvalidArgument(prefix + "stat " + Quote(text) + ": a map shows one statistic");
  }
  f->stat = text;
  f->probability = parsed.front().is_probability();
  f->members_read = int64_t(r.members.size());
  return Status::OK();
}

// The member of run `r` whose dataset is read (for a statistic, the first, whose grid and axes
// are those of all), setting f->member or f's statistic. Without either, the run's first member
// (the control); B takes A's statistic, or A's member when B's run has it.
Result<const forecast::RunMember*> SelectMemberOrStat(const forecast::Collection& c,
                                                      const forecast::Run& r,
                                                      const RequestTarget& target,
                                                      const std::string& prefix, const MapField* a,
                                                      MapField* f) {
  const std::string* member = Get(target, prefix + "member");
  const std::string* stat = Get(target, prefix + "stat");
  if (member && stat) {
    return Status::InvalidArgument(prefix + "member and " + prefix +
                                   "stat together: a map shows one member or one statistic");
  }
  if (a != nullptr && member == nullptr && stat == nullptr && c.has_members()) {
    if (!a->stat.empty()) {
      stat = &a->stat;
    } else if (!a->member.empty() && r.Find(std::stoll(a->member)) != nullptr) {
      member = &a->member;
    }
  }
  const forecast::RunMember* chosen = &r.members.front();
  if (member) {
    GRIDSTORE_ASSIGN_OR_RETURN(chosen, FindMember(c, r, *member, prefix, f->collection, f->run));
    f->member = std::to_string(chosen->member);
  } else if (stat) {
    GRIDSTORE_RETURN_IF_ERROR(SetStatistic(c, r, *stat, prefix, f->collection, f));
  } else if (c.has_members()) {
    f->member = std::to_string(chosen->member);  // the run's first member (the control)
  }
  return chosen;
}

// Fills in the forecast side of f (whose collection is `id`): run, member or statistic, the
// dataset read and the version of every dataset read.
Status ResolveForecastField(const EndpointContext& context, const std::string& id,
                            const RequestTarget& target, const std::string& prefix,
                            const MapField* a, MapField* f) {
  Result<forecast::Collection> c = ServedCollection(context, id);
  if (!c.ok()) {
    return Status::NotFound((prefix.empty() ? "" : prefix + "collection: ") +
                            std::string(c.status().message()) +
                            " (no dataset or forecast collection " + Quote(id) + ")");
  }
  f->forecast = true;
  GRIDSTORE_ASSIGN_OR_RETURN(const forecast::Run* r,
                             SelectRun(*c, Get(target, prefix + "run"), prefix, a));
  f->run = forecast::FormatIsoMs(r->run_time_ms);
  GRIDSTORE_ASSIGN_OR_RETURN(const forecast::RunMember* chosen,
                             SelectMemberOrStat(*c, *r, target, prefix, a, f));
  f->meta = chosen->meta;
  for (const auto& rm : r->members) {
    if (!f->stat.empty() || &rm == chosen) f->version += Version(*rm.meta) + ";";
  }
  return Status::OK();
}

// The variable of f (A's own or the first default one; B takes A's), its units and standard
// name (a derived wind's, a probability's) and the labels of its time and level axes.
Status ResolveVariable(const EndpointContext& context, const RequestTarget& target,
                       const std::string& prefix, const MapField* a, MapField* f) {
  const std::string* name = a ? nullptr : Get(target, "parameter-name");
  if (a != nullptr) {
    f->variable = a->variable;
  } else if (name != nullptr) {
    f->variable = *name;
  } else {
    GRIDSTORE_ASSIGN_OR_RETURN(std::shared_ptr<const CollectionSummary> summary,
                               context.summaries->Get(*f->meta));
    f->variable = summary->default_variables.front();
  }
  const forecast::DerivedVariables derived = forecast::ResolveDerived(*f->meta, {f->variable});
  const grid::VariableMeta* var = f->meta->FindVariable(derived.read.front());
  if (var == nullptr || (!derived.empty() && !f->forecast)) {
    std::vector<std::string> names;
    for (const auto& v : f->meta->variables) names.push_back(v.name);
    const std::string& id = f->collection;
    return Status::InvalidArgument(
        (a ? prefix + "collection " + Quote(id) + " has no parameter " + Quote(f->variable)
           : "parameter-name " + Quote(f->variable) + " is not a parameter of " + Quote(id)) +
        " (its parameters: " + Join(names, ", ") + ")");
  }
  f->units = grid::StringAttribute(var->attributes, "units");
  f->standard_name = grid::StringAttribute(var->attributes, "standard_name");
  if (!derived.empty()) {
    const bool speed = derived.derived.front().speed;
    f->standard_name = speed ? "wind_speed" : "wind_from_direction";
    if (!speed) f->units = "degree";
  }
  if (f->probability) f->units = "1";
  f->steps = Labels(*f->meta, *var, grid::Axis::kT);
  f->levels = Labels(*f->meta, *var, grid::Axis::kZ);
  return Status::OK();
}

// The valid time (datetime, else A's for B, else the first step) and level (z, else the first;
// B takes A's) of f.
void ResolveTimeAndLevel(const RequestTarget& target, const std::string& prefix, const MapField* a,
                         MapField* f) {
  const std::string* time = Get(target, prefix.empty() ? "datetime" : prefix + "datetime");
  if (time != nullptr) {
    f->time = *time;
  } else if (a != nullptr) {
    f->time = a->time;
  } else {
    f->time = f->steps.empty() ? "" : f->steps.front();
  }
  if (a != nullptr) {
    f->level = a->level;
  } else if (const std::string* z = Get(target, "z")) {
    f->level = *z;
  } else {
    f->level = f->levels.empty() ? "" : f->levels.front();
  }
}

// The dataset or forecast field `id` with the run, member and stat asked (`prefix` "" or
// "diff-"); `a` is side A when this is side B (whose variable, level and defaults it takes).
Result<MapField> ResolveField(const EndpointContext& context, const std::string& id,
                              const RequestTarget& target, const std::string& prefix,
                              const MapField* a) {
  MapField f;
  f.collection = id;
  Result<grid::DataSetMeta> dataset = CollectionMeta(context, id);
  if (dataset.ok()) {
    GRIDSTORE_RETURN_IF_ERROR(RefuseForecastParameters(target, prefix, id));
    f.meta = std::make_shared<const grid::DataSetMeta>(std::move(*dataset));
    f.version = Version(*f.meta);
  } else {
    GRIDSTORE_RETURN_IF_ERROR(ResolveForecastField(context, id, target, prefix, a, &f));
  }
  GRIDSTORE_RETURN_IF_ERROR(ResolveVariable(context, target, prefix, a, &f));
  ResolveTimeAndLevel(target, prefix, a, &f);
  return f;
}

// The colour map asked, else: coolwarm for a difference, viridis for a spread or probability,
// else the quantity's.
Result<Colormap> LayerColormap(const RequestTarget& target, const MapLayer& layer) {
  if (const std::string* c = Get(target, "colormap")) return ParseColormap(*c);
  if (layer.b) return Colormap::kCoolwarm;
  if (!layer.a.stat.empty() &&
      (layer.a.probability || layer.a.stat == "spread" || layer.a.stat == "std")) {
    return Colormap::kViridis;
  }
  return QuantityColormap(layer.a);
}

}  // namespace map_layer_resolution_detail

std::string MapField::Key(const std::string& at_time) const {
  return "F|" + collection + "|" + version + "|" + run + "|" + member + "|" + stat + "|" +
         variable + "|" + at_time + "|" + level;
}

const std::vector<std::string>& MapParameterNames() {
  static const std::vector<std::string> names = {
      "parameter-name",  "datetime", "z",           "run",
      "member",          "stat",     "colormap",    "range",
      "diff-collection", "diff-run", "diff-member", "diff-stat",
      "diff-datetime"};
  return names;
}

Result<MapLayer> ResolveMapLayer(const EndpointContext& context, const std::string& id,
                                 const RequestTarget& target, const std::vector<std::string>& extra,
                                 std::string_view where) {
  using namespace map_layer_resolution_detail;  // NOLINT: this file's helpers
  GRIDSTORE_RETURN_IF_ERROR(CheckNames(target, extra, where));
  MapLayer layer;
  GRIDSTORE_ASSIGN_OR_RETURN(layer.a, ResolveField(context, id, target, "", nullptr));
  bool difference = false;
  for (const char* name :
       {"diff-collection", "diff-run", "diff-member", "diff-stat", "diff-datetime"}) {
    difference |= Get(target, name) != nullptr;
  }
  if (difference) {
    const std::string* other = Get(target, "diff-collection");
    GRIDSTORE_ASSIGN_OR_RETURN(
        MapField b, ResolveField(context, other ? *other : id, target, "diff-", &layer.a));
    layer.b = std::move(b);
    layer.b_time_given = Get(target, "diff-datetime") != nullptr;
  }
  GRIDSTORE_ASSIGN_OR_RETURN(layer.colormap, LayerColormap(target, layer));
  if (layer.colormap == Colormap::kPrecipitation && !layer.b) {
    layer.transparent_below = PrecipitationThreshold(layer.a.units);
  }
  if (const std::string* r = Get(target, "range")) {
    GRIDSTORE_ASSIGN_OR_RETURN(std::vector<double> v, RangeNumbers(*r, 2, "range"));
    if (!(v[0] < v[1])) {
      return Status::InvalidArgument("range " + Quote(*r) +
                                     ": the minimum must be below the maximum");
    }
    layer.range = std::array<double, 2>{v[0], v[1]};
  }
  return layer;
}

std::string MapQueryString(const RequestTarget& target) {
  std::string q;
  const auto& names = MapParameterNames();
  for (const auto& [name, value] : target.query) {
    if (std::find(names.begin(), names.end(), name) == names.end()) continue;
    q += (q.empty() ? "?" : "&") + PercentEncode(name) + "=" + PercentEncode(value);
  }
  return q;
}

}  // namespace gridstore::server
