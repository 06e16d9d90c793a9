// Copyright 2026 The GridStore Authors.
//
// Quantities users ask for constantly, made after the read, value by value:
// - wind speed and direction from u/v pairs. Pairs are recognised by GRIB short names (u/v at
//   any level type, 10u/10v, 100u/100v, u10/v10) and by CF standard names (eastward_wind /
//   northward_wind, x_wind / y_wind, with `surface_`/`_at_10m` forms alike). Their names follow
//   ECMWF's: `ws`/`wdir` for u/v, `10si`/`10wdir` for 10u/10v, `100si`/`100wdir`; a CF pair's are
//   `wind_speed`/`wind_from_direction` (suffixed `_<u name>` when a dataset has several CF pairs).
//   Direction is where the wind blows from, degrees clockwise from north (meteorological), as
//   the components give it: on a rotated or projected grid whose components are grid-relative,
//   it is relative to the grid (docs/collections.md).
// - unit conversion on output (`--units degC,hPa,km/h`) with udunits2 (Debian's libudunits2 and
//   its unit database), for every variable whose units convert to a unit asked.
#ifndef GRIDSTORE_FORECAST_DERIVED_H_
#define GRIDSTORE_FORECAST_DERIVED_H_

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gridstore/geo/extract.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/model/grid_meta.h"
#include "gridstore/util/result.h"

namespace gridstore::forecast {

struct WindPair {
  std::string u, v;              // the components, as stored
  std::string speed, direction;  // the derived names
};

// The u/v pairs of `meta` (both components present, on the same shape), in meta order.
std::vector<WindPair> WindPairs(const grid::DataSetMeta& meta);

// The variables a request names, split into those stored and those derived.
struct DerivedVariables {
  struct Derived {
    std::string name;
    bool speed = true;  // else direction
    std::string u, v;
  };
  std::vector<std::string> read;       // stored variables to read (components added)
  std::vector<Derived> derived;        // made after the read
  std::vector<std::string> requested;  // the output order, as asked
  bool empty() const { return derived.empty(); }
};

// Resolves `variables` against `meta`: a stored variable is read as itself; a derived name
// (WindPairs) reads its two components. A name that is neither stays in `read` (the plan then
// names it unknown). Nothing derived: `read` == `variables`.
DerivedVariables ResolveDerived(const grid::DataSetMeta& meta,
                                const std::vector<std::string>& variables);

// Makes the derived variables of `resolved` in `extraction` (read with resolved.read) and leaves
// the variables in the order asked, without components read only to derive. The values must be
// unpacked (ExtractRequest::unpack): the caller checks.
Status ApplyDerived(const DerivedVariables& resolved, grid::Extraction* extraction);

// Converts every variable of `results` whose units convert to one of `units` (comma-separated
// udunits2 units: "degC,hPa,km/h"); its `units` attribute becomes that unit. InvalidArgument for
// a unit udunits2 does not know or a unit no variable converts to (naming the variables' units).
// The values must be unpacked (the caller checks). FailedPrecondition if udunits2's database
// cannot be read.
Status ConvertUnits(std::string_view units, std::span<grid::Extraction> results);

// One dataset's answer with derived quantities and units (what ExtractCollection reads for each
// member; the command's `extract ID`): the requested variables grouped by the axes they share
// (every variable if none, as ExtractEvery), each group planned once and read, derived
// quantities made, then `units` (may be empty) applied. Groups the request does not fit go to
// *left_out. InvalidArgument for derived quantities or units with packed values
// (!request.unpack); otherwise PlanExtractions' and Extract's errors.
Result<std::vector<grid::Extraction>> ExtractDerived(grid::GridStore& store,
                                                     std::shared_ptr<const grid::DataSetMeta> meta,
                                                     const grid::ExtractRequest& request,
                                                     std::string_view units,
                                                     std::vector<std::string>* left_out);

// `value` in `from` as `to` (udunits2); InvalidArgument if they do not convert.
Result<double> ConvertValue(double value, std::string_view from, std::string_view to);

}  // namespace gridstore::forecast

#endif  // GRIDSTORE_FORECAST_DERIVED_H_
