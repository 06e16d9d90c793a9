// Copyright 2026 The GridStore Authors.
#include "gridstore/forecast/collection_query.h"

#include <algorithm>
#include <charconv>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "gridstore/forecast/derived.h"
#include "gridstore/forecast/ensemble_stats.h"
#include "gridstore/grid/retention.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::forecast {
namespace {

using grid::DataSetMeta;
using grid::Extraction;

bool ParseInt(std::string_view text, int64_t* value) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *value);
  return !text.empty() && ec == std::errc() && ptr == end;
}

std::string RunList(const Collection& c) {
  if (c.runs.empty()) return "none";
  if (c.runs.size() <= 4) {
    return Join(c.runs, ", ", [](const Run& r) { return FormatIsoMs(r.run_time_ms); });
  }
  return std::to_string(c.runs.size()) + " from " + FormatIsoMs(c.runs.front().run_time_ms) +
         " to " + FormatIsoMs(c.runs.back().run_time_ms);
}

// " (the nearest are A and B)" for a run time that is not one of the collection's.
std::string NearestRuns(const Collection& c, int64_t ms) {
  const Run* before = nullptr;
  const Run* after = nullptr;
  for (const Run& r : c.runs) {
    if (r.run_time_ms < ms) before = &r;
    if (r.run_time_ms > ms && after == nullptr) after = &r;
  }
  if (before != nullptr && after != nullptr) {
    return " (the nearest are " + FormatIsoMs(before->run_time_ms) + " and " +
           FormatIsoMs(after->run_time_ms) + ")";
  }
  const Run* one = before != nullptr ? before : after;
  return one == nullptr ? " (it has none)"
                        : " (the nearest is " + FormatIsoMs(one->run_time_ms) + ")";
}

// One end of "ISO/ISO": nullopt for an open end ("" or "..").
Result<std::optional<int64_t>> RangeEnd(std::string_view text, std::string_view what) {
  text = Trim(text);
  if (text.empty() || text == "..") return std::optional<int64_t>();
  GRIDSTORE_ASSIGN_OR_RETURN(int64_t ms, ParseIsoMs(text, what));
  return std::optional<int64_t>(ms);
}

// A valid-time filter for best: "", "ISO", "ISO/ISO" (".." open) or "ISO,ISO,...".
Result<std::function<bool(int64_t)>> TimeFilter(std::string_view spec) {
  spec = Trim(spec);
  if (spec.empty()) return std::function<bool(int64_t)>([](int64_t) { return true; });
  const size_t slash = spec.find('/');
  if (slash != std::string_view::npos) {
    GRIDSTORE_ASSIGN_OR_RETURN(auto from, RangeEnd(spec.substr(0, slash), "time"));
    GRIDSTORE_ASSIGN_OR_RETURN(auto to, RangeEnd(spec.substr(slash + 1), "time"));
    return std::function<bool(int64_t)>(
        [from, to](int64_t t) { return (!from || t >= *from) && (!to || t <= *to); });
  }
  std::set<int64_t> times;
  for (const std::string& item : SplitList(spec, ',')) {
    GRIDSTORE_ASSIGN_OR_RETURN(int64_t t, ParseIsoMs(Trim(item), "time"));
    times.insert(t);
  }
  return std::function<bool(int64_t)>([times](int64_t t) { return times.count(t) > 0; });
}

// The valid times of `run` every member has complete for `variable` (all of them once DONE).
Result<std::vector<int64_t>> AvailableTimes(const Run& run, const std::string& variable) {
  const DataSetMeta& first = *run.members.front().meta;
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<int64_t> times, ValidTimesMs(first, variable));
  std::vector<int64_t> out;
  for (size_t t = 0; t < times.size(); ++t) {
    bool complete = true;
    for (const RunMember& m : run.members) {
      if (m.meta->status() == grid::kStatusDone) continue;
      const grid::VariableMeta* var = nullptr;
      for (const auto& v : m.meta->variables) {
        if (v.name == variable || (variable.empty() && var == nullptr)) var = &v;
      }
      complete &= var != nullptr && var->complete_steps.Contains(int64_t(t), int64_t(t) + 1);
    }
    if (complete) out.push_back(times[t]);
  }
  return out;
}

std::string IsoList(const std::vector<int64_t>& times) {
  return Join(times, ",", [](int64_t t) { return FormatIsoMs(t); });
}

// What to read from one run: the valid times (an ExtractRequest time spec) and the members.
struct RunRead {
  const Run* run = nullptr;
  std::string time;  // ExtractRequest::time for this run
  std::vector<const RunMember*> members;
};

Result<std::vector<const RunMember*>> SelectMembers(const Collection& c, const Run& run,
                                                    std::string_view spec) {
  std::vector<const RunMember*> out;
  spec = Trim(spec);
  if (spec.empty() || spec == "all") {
    for (const RunMember& m : run.members) out.push_back(&m);
    return out;
  }
  if (!c.has_members()) {
    return Status::InvalidArgument("collection " + Quote(c.name) +
                                   " is deterministic: it has no members to choose");
  }
  for (const std::string& item : SplitList(spec, ',')) {
    int64_t n = 0;
    if (!ParseInt(Trim(item), &n)) {
      return Status::InvalidArgument("member " + Quote(item) +
                                     " is not a number (--member all, or a list such as 0,1,5)");
    }
    const RunMember* m = run.Find(n);
    if (m == nullptr) {
      return Status::NotFound(
          "run " + FormatIsoMs(run.run_time_ms) + " of collection " + Quote(c.name) +
          " has no member " + std::to_string(n) + " (it has " +
          Join(run.members, ",", [](const RunMember& x) { return std::to_string(x.member); }) +
          ")");
    }
    out.push_back(m);
  }
  return out;
}

// Reads one member of one run: every group, derived quantities made, units converted.
Result<std::vector<Extraction>> ReadMember(grid::GridStore& store, const RunMember& member,
                                           const CollectionRequest& request,
                                           const std::string& time,
                                           std::vector<std::string>* notes) {
  grid::ExtractRequest r = request.extract;
  r.time = time;
  // A run still arriving: its steps not yet complete read as missing, never as an error.
  if (member.meta->status() == grid::kStatusIngesting) r.allow_incomplete = true;
  std::vector<std::string> left_out;
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<Extraction> out,
                             ExtractDerived(store, member.meta, r, request.units, &left_out));
  for (const std::string& why : left_out) {
    if (std::find(notes->begin(), notes->end(), why) == notes->end()) notes->push_back(why);
  }
  return out;
}

// The statistics of one run's members, one slice per statistic.
Result<std::vector<CollectionSlice>> Statistics(grid::GridStore& store,
                                                const std::vector<Statistic>& statistics,
                                                const std::vector<CollectionSlice>& members) {
  const CollectionSlice& first = members.front();
  // Every (group, variable) with its members' values, checked to be alike.
  struct Field {
    size_t g, v;
    std::vector<const std::vector<double>*> members;
    std::vector<std::vector<double>> stats;
  };
  std::vector<Field> fields;
  for (size_t g = 0; g < first.groups.size(); ++g) {
    for (size_t v = 0; v < first.groups[g].variables.size(); ++v) {
      Field f{g, v, {}, {}};
      for (const CollectionSlice& m : members) {
        const std::vector<double>* x = nullptr;
        if (g < m.groups.size() && v < m.groups[g].variables.size()) {
          x = &m.groups[g].variables[v].values;
        }
        if (x == nullptr || x->size() != first.groups[g].variables[v].values.size()) {
          return Status::FailedPrecondition(
              "member " + std::to_string(m.member) + " (dataset " + Quote(m.dataset) + ") of run " +
              FormatIsoMs(m.run_time_ms) + " has other axes than member " +
              std::to_string(first.member) + " for " +
              Quote(first.groups[g].variables[v].meta.name) + ": no statistic over them");
        }
        f.members.push_back(x);
      }
      fields.push_back(std::move(f));
    }
  }
  store.RunInParallel(fields.size(), [&](size_t i) {
    fields[i].stats = ComputeStatistics(statistics, fields[i].members);
  });
  std::vector<CollectionSlice> out(statistics.size());
  for (size_t s = 0; s < statistics.size(); ++s) {
    out[s].run_time_ms = first.run_time_ms;
    out[s].statistic = statistics[s].name;
    out[s].groups = first.groups;
  }
  for (Field& f : fields) {
    for (size_t s = 0; s < statistics.size(); ++s) {
      Extraction::Variable& out_var = out[s].groups[f.g].variables[f.v];
      out_var.values = std::move(f.stats[s]);
      if (statistics[s].is_probability()) {
        grid::Attributes& a = out_var.meta.attributes;
        a["units"] = grid::AttributeValue::String("1");
        a["long_name"] = grid::AttributeValue::String("probability of " + out_var.meta.name + " " +
                                                      statistics[s].name.substr(4));
        a.erase("standard_name");
      }
    }
  }
  return out;
}

}  // namespace

std::string_view RunViewName(RunView view) {
  switch (view) {
    case RunView::kRuns:
      return "runs";
    case RunView::kConstantValidTime:
      return "constant forecast time";
    case RunView::kConstantLead:
      return "constant offset";
    case RunView::kBest:
      return "best";
  }
  return "?";
}

Result<std::vector<const Run*>> SelectRuns(const Collection& c, std::string_view spec) {
  spec = Trim(spec);
  std::vector<const Run*> out;
  if (spec.empty() || spec == "latest" || spec.substr(0, 7) == "latest-") {
    int64_t back = 0;
    if (spec.size() > 7 && !ParseInt(spec.substr(7), &back)) {
      return Status::InvalidArgument("run " + Quote(spec) +
                                     ": latest-N takes a number of runs back (latest-1)");
    }
    std::vector<const Run*> complete;
    for (const Run& r : c.runs) {
      if (r.complete()) complete.push_back(&r);
    }
    if (complete.empty()) {
      return Status::FailedPrecondition("no run of collection " + Quote(c.name) +
                                        " is complete yet (runs: " + RunList(c) + ")");
    }
    if (back < 0 || back >= int64_t(complete.size())) {
      return Status::NotFound("collection " + Quote(c.name) + " has " +
                              std::to_string(complete.size()) + " complete run(s): " + Quote(spec) +
                              " is not one");
    }
    out.push_back(complete[complete.size() - 1 - size_t(back)]);
    return out;
  }
  if (spec == "all") {
    for (const Run& r : c.runs) out.push_back(&r);
    if (out.empty()) return Status::NotFound("collection " + Quote(c.name) + " has no run");
    return out;
  }
  const size_t slash = spec.find('/');
  if (slash != std::string_view::npos) {
    GRIDSTORE_ASSIGN_OR_RETURN(auto from, RangeEnd(spec.substr(0, slash), "run"));
    GRIDSTORE_ASSIGN_OR_RETURN(auto to, RangeEnd(spec.substr(slash + 1), "run"));
    if (from && to && *from > *to) {
      return Status::InvalidArgument("runs " + Quote(spec) + ": the start is after the end");
    }
    for (const Run& r : c.runs) {
      if ((!from || r.run_time_ms >= *from) && (!to || r.run_time_ms <= *to)) out.push_back(&r);
    }
    if (out.empty()) {
      return Status::NotFound("collection " + Quote(c.name) + " has no run in " + Quote(spec) +
                              " (runs: " + RunList(c) + ")");
    }
    return out;
  }
  GRIDSTORE_ASSIGN_OR_RETURN(int64_t ms, ParseIsoMs(spec, "run"));
  const Run* run = c.Find(ms);
  if (run == nullptr) {
    return Status::NotFound("collection " + Quote(c.name) + " has no run at " + FormatIsoMs(ms) +
                            NearestRuns(c, ms));
  }
  out.push_back(run);
  return out;
}

namespace {

// The request checked against the collection: the view, the statistics, and whether values are
// derived (which needs them unpacked).
Result<std::vector<Statistic>> CheckRequest(const Collection& c, const CollectionRequest& request,
                                            RunView* view) {
  const int views =
      int(!request.valid_time.empty()) + int(!request.lead.empty()) + int(request.best);
  if (views > 1) {
    return Status::InvalidArgument(
        "choose one cross-run view: a valid time (constant forecast time), a lead (constant "
        "offset) or best");
  }
  *view = !request.valid_time.empty() ? RunView::kConstantValidTime
          : !request.lead.empty()     ? RunView::kConstantLead
          : request.best              ? RunView::kBest
                                      : RunView::kRuns;
  if (*view != RunView::kRuns && *view != RunView::kBest && !request.extract.time.empty()) {
    return Status::InvalidArgument(std::string(RunViewName(*view)) +
                                   " sets each run's time itself: ask no time with it");
  }
  std::vector<Statistic> statistics;
  if (!request.statistics.empty()) {
    GRIDSTORE_ASSIGN_OR_RETURN(statistics, ParseStatistics(request.statistics));
    if (!c.has_members()) {
      return Status::InvalidArgument("collection " + Quote(c.name) +
                                     " is deterministic: it has no members to take " +
                                     "statistics over");
    }
  }
  const bool derives =
      !request.units.empty() || !statistics.empty() ||
      !ResolveDerived(*c.runs.front().members.front().meta, request.extract.variables).empty();
  if (derives && !request.extract.unpack) {
    return Status::InvalidArgument(
        "statistics, derived quantities and units need unpacked values (leave out --no-unpack)");
  }
  return statistics;
}

// Best: each valid time (narrowed by `time`) from the newest run that covers it; `add` takes a
// run and its times.
Status AddBest(const std::vector<const Run*>& runs,
               const std::map<const Run*, std::vector<int64_t>>& available, std::string_view time,
               const std::function<Status(const Run*, std::string)>& add) {
  GRIDSTORE_ASSIGN_OR_RETURN(auto keep, TimeFilter(time));
  std::map<int64_t, const Run*> newest;  // valid time -> the newest run covering it
  for (const Run* run : runs) {
    for (int64_t t : available.at(run)) {
      if (keep(t)) newest[t] = run;
    }
  }
  std::map<const Run*, std::vector<int64_t>> times_of;
  for (const auto& [t, run] : newest) times_of[run].push_back(t);
  for (const Run* run : runs) {
    auto it = times_of.find(run);
    if (it != times_of.end()) GRIDSTORE_RETURN_IF_ERROR(add(run, IsoList(it->second)));
  }
  return Status::OK();
}

// What each selected run contributes to the view: its valid times and members.
Result<std::vector<RunRead>> PlanReads(const Collection& c, const CollectionRequest& request,
                                       RunView view, const std::vector<const Run*>& runs) {
  // The variable whose valid times the views follow: the first asked (a derived one's u).
  std::string time_variable;
  if (!request.extract.variables.empty()) {
    const DerivedVariables d =
        ResolveDerived(*runs.front()->members.front().meta, {request.extract.variables.front()});
    time_variable = d.read.front();
  }
  std::vector<RunRead> reads;
  std::map<const Run*, std::vector<int64_t>> available;
  int64_t longest_lead = INT64_MIN;
  for (const Run* run : runs) {
    GRIDSTORE_ASSIGN_OR_RETURN(available[run], AvailableTimes(*run, time_variable));
    if (!available[run].empty()) {
      longest_lead = std::max(longest_lead, available[run].back() - run->run_time_ms);
    }
  }
  auto add = [&](const Run* run, std::string time) -> Status {
    RunRead read;
    read.run = run;
    read.time = std::move(time);
    GRIDSTORE_ASSIGN_OR_RETURN(read.members, SelectMembers(c, *run, request.members));
    reads.push_back(std::move(read));
    return Status::OK();
  };
  switch (view) {
    case RunView::kRuns:
      for (const Run* run : runs) GRIDSTORE_RETURN_IF_ERROR(add(run, request.extract.time));
      break;
    case RunView::kConstantValidTime: {
      GRIDSTORE_ASSIGN_OR_RETURN(int64_t at, ParseIsoMs(request.valid_time, "valid time"));
      for (const Run* run : runs) {
        const auto& times = available[run];
        if (std::find(times.begin(), times.end(), at) != times.end()) {
          GRIDSTORE_RETURN_IF_ERROR(add(run, FormatIsoMs(at)));
        }
      }
      if (reads.empty()) {
        return Status::OutOfRange("no run of collection " + Quote(c.name) + " covers " +
                                  FormatIsoMs(at) + " (runs: " + RunList(c) + ")");
      }
      break;
    }
    case RunView::kConstantLead: {
      GRIDSTORE_ASSIGN_OR_RETURN(int64_t lead, grid::ParseDurationMs(request.lead, "--lead"));
      for (const Run* run : runs) {
        const auto& times = available[run];
        if (std::find(times.begin(), times.end(), run->run_time_ms + lead) != times.end()) {
          GRIDSTORE_RETURN_IF_ERROR(add(run, FormatIsoMs(run->run_time_ms + lead)));
        }
      }
      if (reads.empty()) {
        if (lead > longest_lead) {
          return Status::OutOfRange("lead " + FormatLead(lead) + " is beyond every run of " +
                                    Quote(c.name) + " (the longest reaches " +
                                    FormatLead(longest_lead) + ")");
        }
        return Status::OutOfRange(
            "no run of collection " + Quote(c.name) + " has a step at lead " + FormatLead(lead) +
            " (leads: " + Join(c.LeadsMs(), ", ", [](int64_t l) { return FormatLead(l); }) + ")");
      }
      break;
    }
    case RunView::kBest:
      GRIDSTORE_RETURN_IF_ERROR(AddBest(runs, available, request.extract.time, add));
      if (reads.empty()) {
        return Status::OutOfRange("no run of collection " + Quote(c.name) +
                                  " has a valid time in " + Quote(request.extract.time));
      }
      break;
  }
  return reads;
}

// Reads every (run, member) of `reads` at once on the store's threads (a meteogram of 51 members
// is 51 small reads, each mostly planning and decoding on one core), then makes the slices:
// the members', or the statistics over them per run.
Status ReadSlices(grid::GridStore& store, const CollectionRequest& request,
                  const std::vector<Statistic>& statistics, const std::vector<RunRead>& reads,
                  CollectionExtraction* result) {
  struct Task {
    const RunRead* read;
    const RunMember* member;
  };
  std::vector<Task> tasks;
  for (const RunRead& read : reads) {
    for (const RunMember* m : read.members) tasks.push_back({&read, m});
  }
  std::vector<Result<std::vector<Extraction>>> got(tasks.size(), Status::Internal("not read"));
  std::vector<std::vector<std::string>> notes(tasks.size());
  store.RunInParallel(tasks.size(), [&](size_t i) {
    got[i] = ReadMember(store, *tasks[i].member, request, tasks[i].read->time, &notes[i]);
  });
  size_t next = 0;
  for (const RunRead& read : reads) {
    std::vector<CollectionSlice> members;
    for (const RunMember* m : read.members) {
      const size_t i = next++;
      if (!got[i].ok()) return got[i].status();
      for (const std::string& note : notes[i]) {
        if (std::find(result->notes.begin(), result->notes.end(), note) == result->notes.end()) {
          result->notes.push_back(note);
        }
      }
      CollectionSlice slice;
      slice.run_time_ms = read.run->run_time_ms;
      slice.member = m->member;
      slice.dataset = m->meta->id;
      slice.groups = *std::move(got[i]);
      members.push_back(std::move(slice));
    }
    if (statistics.empty()) {
      for (CollectionSlice& s : members) result->slices.push_back(std::move(s));
    } else {
      GRIDSTORE_ASSIGN_OR_RETURN(std::vector<CollectionSlice> stats,
                                 Statistics(store, statistics, members));
      for (CollectionSlice& s : stats) result->slices.push_back(std::move(s));
    }
  }
  return Status::OK();
}

}  // namespace

Result<CollectionExtraction> ExtractCollection(grid::GridStore& store,
                                               const CollectionRequest& request) {
  GRIDSTORE_ASSIGN_OR_RETURN(Collection c, GetCollection(store, request.collection));
  CollectionExtraction result;
  result.collection = c.name;
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<Statistic> statistics,
                             CheckRequest(c, request, &result.view));
  const std::string runs_spec =
      request.runs.empty() ? (result.view == RunView::kRuns ? "latest" : "all") : request.runs;
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<const Run*> runs, SelectRuns(c, runs_spec));
  GRIDSTORE_ASSIGN_OR_RETURN(std::vector<RunRead> reads, PlanReads(c, request, result.view, runs));
  if (!statistics.empty()) {
    for (const RunRead& read : reads) {
      if (read.members.size() < 2) {
        return Status::InvalidArgument("a statistic over " + std::to_string(read.members.size()) +
                                       " member of run " + FormatIsoMs(read.run->run_time_ms) +
                                       ": choose at least two members");
      }
    }
  }
  for (const Run* run : runs) {
    if (std::none_of(reads.begin(), reads.end(), [&](const RunRead& r) { return r.run == run; })) {
      result.notes.push_back("run " + FormatIsoMs(run->run_time_ms) + ": not in the " +
                             std::string(RunViewName(result.view)) + " view");
    }
  }

  result.has_statistics = !statistics.empty();
  result.has_members = statistics.empty() && c.has_members();
  GRIDSTORE_RETURN_IF_ERROR(ReadSlices(store, request, statistics, reads, &result));
  return result;
}

}  // namespace gridstore::forecast
