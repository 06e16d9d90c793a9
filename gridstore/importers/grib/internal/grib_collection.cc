// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/grib/internal/grib_collection.h"

#include <iterator>
#include <set>

#include "gridstore/forecast/collection.h"
#include "gridstore/importers/grib/internal/grib_mapping.h"
#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_importers {

std::string CollectionKind(const GribField& f) {
  const std::string& type = !f.data_type.empty() ? f.data_type : f.type_of_processed_data;
  // Control (cf), perturbed (pf) and both (cs): the members of one ensemble.
  if (type == "cf" || type == "pf" || type == "cs") return "ens";
  return type.empty() ? "fc" : type;
}

Result<GribRun> IdentifyRun(const std::vector<std::string>& paths,
                            const std::vector<GribField>& fields, bool run_given) {
  GribRun run;
  if (fields.empty()) return run;
  const GribField& first = fields.front();
  std::string centre = first.centre_abbreviation;
  if (centre.empty()) centre = first.centre > 0 ? std::to_string(first.centre) : "unknown";
  run.collection = centre + "/" + CollectionKind(first);
  std::set<std::string> kinds;
  std::map<int64_t, const GribField*> references;  // seconds -> its first field
  bool forecast = false;
  for (const GribField& f : fields) {
    kinds.insert(CollectionKind(f));
    const int64_t reference = EpochSeconds(f.data_date, f.data_time);
    references.emplace(reference, &f);
    forecast |= EpochSeconds(f.validity_date, f.validity_time) != reference;
  }
  if (kinds.size() > 1) {
    run.notes.push_back("the fields are of several kinds (" +
                        Join(std::vector<std::string>(kinds.begin(), kinds.end()), ", ") +
                        "): collection " + Quote(run.collection) +
                        " after the first field (--collection names another)");
  }
  if (references.size() > 1 && forecast && !run_given) {
    auto a = references.begin(), b = std::next(a);
    std::string files = Quote(paths[size_t(b->second->file)]);
    if (b->second->file != a->second->file)
      files += " and " + Quote(paths[size_t(a->second->file)]);
    return Status::InvalidArgument(
        files + ": forecast fields of " + std::to_string(references.size()) + " runs (" +
        forecast::FormatIsoMs(a->first * 1000) + ", " + forecast::FormatIsoMs(b->first * 1000) +
        (references.size() > 2 ? ", ..." : "") +
        "): import each run separately (or name the run with --run)");
  }
  // One run; analyses of several times (a reanalysis): the earliest.
  run.run_time_ms = references.begin()->first * 1000;
  return run;
}

Result<std::map<long, std::vector<size_t>>> SplitByMember(const std::vector<std::string>& paths,
                                                          const std::vector<GribField>& fields) {
  std::set<long> members;
  bool ensemble = false;
  for (const GribField& f : fields) {
    members.insert(f.member);
    ensemble |= f.ensemble_size > 1;
  }
  ensemble |= members.size() > 1;
  std::map<long, std::vector<size_t>> by_member;
  for (size_t i = 0; i < fields.size(); ++i) {
    const GribField& f = fields[i];
    if (ensemble && f.member < 0) {
      return Status::InvalidArgument(
          Quote(paths[size_t(f.file)]) + ": " + f.Describe() +
          " has no ensemble member number (perturbationNumber), but other fields are members "
          "of an ensemble: import them as separate datasets");
    }
    by_member[ensemble ? f.member : -1].push_back(i);
  }
  return by_member;
}

}  // namespace gridstore::internal_importers
