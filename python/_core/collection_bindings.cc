// Copyright 2026 The GridStore Authors.
//
// Forecast collections (gridstore/forecast/): Store.collections, Store.collection (one, its runs
// selected as the library selects them) and Store.extract_collection (forecast::
// ExtractCollection, the function behind `gridstore extract COLLECTION`), as dicts and numpy
// arrays; the bytes of a file format through formats::WriteCollection, as the command writes
// them. python/gridstore/_collection.py builds the public API and the xarray objects on them.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "gridstore/forecast/collection.h"
#include "gridstore/forecast/collection_query.h"
#include "gridstore/formats/output_format.h"
#include "python/_core/convert.h"
#include "python/_core/errors.h"
#include "python/_core/extraction.h"
#include "python/_core/py_store.h"

namespace gridstore::python {
namespace {

namespace py = pybind11;
using forecast::Collection;
using forecast::CollectionExtraction;
using forecast::Run;
using forecast::RunMember;

py::object MemberToPython(int64_t member) {
  return member == forecast::kNoMember ? py::object(py::none()) : py::object(py::int_(member));
}

// One run: its time, whether every member is complete, and its members' datasets. With
// `with_meta` (the xarray view) also the first member's meta, each variable's valid times (ms
// since 1970, or the reason there are none) and every member's time extent per variable (a run
// still arriving grows).
py::dict RunToPython(const Run& run, bool with_meta) {
  py::dict out;
  out["run_time_ms"] = run.run_time_ms;
  out["complete"] = run.complete();
  py::list members;
  for (const RunMember& m : run.members) {
    py::dict member;
    member["member"] = MemberToPython(m.member);
    member["id"] = m.meta->id;
    member["status"] = m.meta->status();
    member["incarnation"] = m.meta->incarnation;
    if (with_meta) {
      py::dict extents;
      for (const grid::VariableMeta& v : m.meta->variables) {
        extents[py::str(v.name)] = v.shape[grid::kT];
      }
      member["t_extent"] = extents;
    }
    members.append(member);
  }
  out["members"] = members;
  if (with_meta && !run.members.empty()) {
    const grid::DataSetMeta& first = *run.members.front().meta;
    out["meta"] = MetaToPython(first);
    py::dict valid_times;
    for (const grid::VariableMeta& v : first.variables) {
      Result<std::vector<int64_t>> times = forecast::ValidTimesMs(first, v.name);
      valid_times[py::str(v.name)] =
          times.ok() ? py::object(CopyToArray(*times))
                     : py::object(py::str(std::string(times.status().message())));
    }
    out["valid_times_ms"] = valid_times;
  }
  return out;
}

// A collection with the runs `runs` (every run if null).
py::dict CollectionToPython(const Collection& c, const std::vector<const Run*>* runs,
                            bool with_meta) {
  py::dict out;
  out["name"] = c.name;
  out["has_members"] = c.has_members();
  out["members"] = CopyToArray(c.Members());
  out["variables"] = py::cast(c.Variables());
  out["leads_ms"] = CopyToArray(c.LeadsMs());
  const Run* latest = c.Latest();
  out["latest_ms"] =
      latest != nullptr ? py::object(py::int_(latest->run_time_ms)) : py::object(py::none());
  py::list list;
  int64_t datasets = 0;
  for (const Run& run : c.runs) datasets += int64_t(run.members.size());
  if (runs != nullptr) {
    for (const Run* run : *runs) list.append(RunToPython(*run, with_meta));
  } else {
    for (const Run& run : c.runs) list.append(RunToPython(run, with_meta));
  }
  out["runs"] = list;
  out["datasets"] = datasets;
  return out;
}

py::dict ListCollectionsPy(PyStore& self) {
  auto store = self.Get();
  std::vector<Collection> collections;
  std::vector<std::string> left_out;
  {
    py::gil_scoped_release release;
    collections = ValueOrThrow(forecast::ListCollections(*store, &left_out));
  }
  py::list list;
  for (const Collection& c : collections) list.append(CollectionToPython(c, nullptr, false));
  py::dict out;
  out["collections"] = list;
  out["left_out"] = py::cast(left_out);
  return out;
}

// One collection, with the runs `runs` selects (forecast::SelectRuns: latest, latest-N, ISO,
// ISO/ISO or all).
py::dict GetCollectionPy(PyStore& self, const std::string& name, const std::string& runs,
                         bool with_meta) {
  auto store = self.Get();
  Collection c;
  std::vector<const Run*> selected;
  {
    py::gil_scoped_release release;
    c = ValueOrThrow(forecast::GetCollection(*store, name));
    selected = ValueOrThrow(forecast::SelectRuns(c, runs));
  }
  return CollectionToPython(c, &selected, with_meta);
}

forecast::CollectionRequest CollectionRequestFromPython(const py::dict& r) {
  forecast::CollectionRequest request;
  request.collection = r["collection"].cast<std::string>();
  request.runs = r["runs"].cast<std::string>();
  request.members = r["members"].cast<std::string>();
  request.statistics = r["statistics"].cast<std::string>();
  request.valid_time = r["valid_time"].cast<std::string>();
  request.lead = r["lead"].cast<std::string>();
  request.best = r["best"].cast<bool>();
  request.units = r["units"].cast<std::string>();
  request.extract = RequestFromPython(r["extract"].cast<py::dict>());
  return request;
}

// The variables of one answer as Store.info describes variables (their attributes as the
// answer labels them: converted units, a probability's "1", derived quantities).
py::object VariableMetas(const grid::Extraction& r) {
  grid::DataSetMeta only;
  only.id = r.meta->id;
  for (const grid::Extraction::Variable& v : r.variables) only.variables.push_back(v.meta);
  return MetaToPython(only)["variables"];
}

py::dict CollectionExtractionToPython(CollectionExtraction result) {
  py::dict out;
  out["collection"] = result.collection;
  out["view"] = std::string(forecast::RunViewName(result.view));
  out["has_members"] = result.has_members;
  out["has_statistics"] = result.has_statistics;
  out["notes"] = py::cast(result.notes);
  // Per run, the meta of the dataset its first slice was read from (coordinates, attributes):
  // the members of a run share their axes.
  py::dict metas;
  py::list slices;
  for (forecast::CollectionSlice& s : result.slices) {
    py::dict slice;
    slice["run_time_ms"] = s.run_time_ms;
    slice["member"] = MemberToPython(s.member);
    slice["statistic"] = s.statistic;
    slice["dataset"] = s.dataset;
    py::list groups;
    for (grid::Extraction& g : s.groups) {
      const py::int_ run(s.run_time_ms);
      if (!metas.contains(run)) metas[run] = MetaToPython(*g.meta);
      py::object variables = VariableMetas(g);
      py::dict group = ExtractionToPython(std::move(g));
      group["variable_metas"] = variables;
      groups.append(group);
    }
    slice["groups"] = groups;
    slices.append(slice);
  }
  out["slices"] = slices;
  out["metas"] = metas;
  return out;
}

py::dict ExtractCollectionPy(PyStore& self, const py::dict& request) {
  const forecast::CollectionRequest parsed = CollectionRequestFromPython(request);
  auto store = self.Get();
  CollectionExtraction result;
  {
    py::gil_scoped_release release;
    result = ValueOrThrow(forecast::ExtractCollection(*store, parsed));
  }
  return CollectionExtractionToPython(std::move(result));
}

// The answer written in `format` (covjson, csv, json or nc) by formats::WriteCollection, byte
// for byte what `gridstore extract COLLECTION --format F` writes.
py::dict ExtractCollectionBytes(PyStore& self, const py::dict& request,
                                const std::string& format_name) {
  const std::optional<formats::OutputFormat> format = formats::ParseOutputFormat(format_name);
  if (!format || !formats::WritesExtractions(*format)) {
    ThrowIfError(
        Status::InvalidArgument("format '" + format_name + "' is not covjson, csv, json or nc"));
  }
  const forecast::CollectionRequest parsed = CollectionRequestFromPython(request);
  auto store = self.Get();
  std::string bytes;
  std::vector<std::string> notes;
  {
    py::gil_scoped_release release;
    CollectionExtraction result = ValueOrThrow(forecast::ExtractCollection(*store, parsed));
    notes = result.notes;
    std::ostringstream out;
    ThrowIfError(formats::WriteCollection(result, *format, out));
    bytes = std::move(out).str();
  }
  py::dict out;
  out["bytes"] = py::bytes(bytes);
  out["notes"] = py::cast(notes);
  return out;
}

}  // namespace

void BindCollections(py::class_<PyStore, std::shared_ptr<PyStore>>& store) {
  store.def("collections", &ListCollectionsPy);
  store.def("collection", &GetCollectionPy, py::arg("name"), py::arg("runs"), py::arg("with_meta"));
  store.def("extract_collection", &ExtractCollectionPy, py::arg("request"));
  store.def("extract_collection_bytes", &ExtractCollectionBytes, py::arg("request"),
            py::arg("format"));
}

}  // namespace gridstore::python
