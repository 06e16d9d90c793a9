// Copyright 2026 The GridStore Authors.
//
// Which forecast collection, run and ensemble member GRIB fields are (docs/usage-import.md,
// "Forecast collections"): the collection "<centre>/<kind>" from ecCodes' centre and dataType,
// the run from the reference time, and an ensemble's fields split by member, one dataset each.
// Pure: from the fields' headers.
#ifndef GRIDSTORE_IMPORTERS_GRIB_INTERNAL_GRIB_COLLECTION_H_
#define GRIDSTORE_IMPORTERS_GRIB_INTERNAL_GRIB_COLLECTION_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "gridstore/importers/grib/internal/grib_file.h"
#include "gridstore/importers/internal/member_id.h"  // MemberDatasetId: an ensemble's datasets
#include "gridstore/util/result.h"

namespace gridstore::internal_importers {

// The collection and run: collection "<centre>/<kind>", the centre as ecCodes abbreviates it
// ("ecmf", "kwbc"; its number if it has no abbreviation) and the kind "ens" for control and
// perturbed members (dataType cf, pf, cs), else the dataType (or GRIB2's typeOfProcessedData):
// "fc", "an", "af"..., "fc" if neither is given (a note if the fields are of several kinds: the
// first field's is taken); the run time is the fields' reference time (dataDate, dataTime), the
// earliest one for analyses of several times (every field valid at its reference time).
struct GribRun {
  std::string collection;
  int64_t run_time_ms = 0;  // ms since 1970-01-01 UTC
  std::vector<std::string> notes;
};
// InvalidArgument naming the file(s) and two run times for forecasts (some field valid after
// its reference time) of several reference times, unless `run_given` (the caller names the run).
Result<GribRun> IdentifyRun(const std::vector<std::string>& paths,
                            const std::vector<GribField>& fields, bool run_given);
// The collection kind of one field: "ens", "fc", "an"...
std::string CollectionKind(const GribField& f);

// The fields (indices into `fields`) of each dataset, by member number: an ensemble's
// (numberOfForecastsInEnsemble > 1, or several perturbationNumbers) one per member, else all of
// them as one, member -1. InvalidArgument naming the file and field for a field without a
// member number among an ensemble's.
Result<std::map<long, std::vector<size_t>>> SplitByMember(const std::vector<std::string>& paths,
                                                          const std::vector<GribField>& fields);

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_GRIB_INTERNAL_GRIB_COLLECTION_H_
