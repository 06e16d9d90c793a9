// Copyright 2026 The GridStore Authors.
//
// _core.Store: open, list and query, describe, fetch (as arrays, or as bytes in a file format),
// import, delete. Every call that reads or
// writes the store releases the GIL while it does, so Python threads fetch in parallel.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "gridstore/catalog/query_parser.h"
#include "gridstore/formats/output_format.h"
#include "gridstore/grid/grid_store.h"
#include "gridstore/importers/import.h"
#include "gridstore/model/codec_options.h"
#include "gridstore/storage/kv_store_factory.h"
#include "python/_core/convert.h"
#include "python/_core/errors.h"
#include "python/_core/py_store.h"

namespace gridstore::python {
namespace {

namespace py = pybind11;
using grid::GridStore;
using grid::Shape4;

std::string Quote(const std::string& s) { return "'" + s + "'"; }

std::shared_ptr<PyStore> Open(const std::string& uri, bool read_only, bool create, int threads,
                              size_t cache_bytes) {
  grid::GridStoreOptions options;
  options.read_only = read_only;
  options.create_if_missing = create && !read_only;
  options.threads = threads;
  options.block_cache_bytes = cache_bytes;
  std::unique_ptr<GridStore> store;
  {
    py::gil_scoped_release release;
    store = ValueOrThrow(GridStore::Open(uri, options));
  }
  return std::make_shared<PyStore>(uri, std::shared_ptr<GridStore>(std::move(store)));
}

std::vector<std::string> Datasets(PyStore& self, const std::optional<std::string>& where,
                                  const std::optional<std::string>& sort, int64_t limit,
                                  int64_t offset) {
  auto store = self.Get();
  grid::Query query = where ? ValueOrThrow(grid::ParseQuery(*where)) : grid::QueryBuilder::All();
  grid::QueryParams params;
  params.limit = limit;
  params.offset = offset;
  if (sort) params.sort = ValueOrThrow(grid::ParseSortFields(*sort, "sort"));
  params.ids_only = true;
  grid::QueryResult result;
  {
    py::gil_scoped_release release;
    result = ValueOrThrow(store->QueryDataSets(query, params));
  }
  return std::move(result.ids);
}

py::dict Info(PyStore& self, const std::string& id) {
  auto store = self.Get();
  grid::DataSetMeta meta;
  {
    py::gil_scoped_release release;
    meta = ValueOrThrow(store->GetDataSetMeta(id));
  }
  return MetaToPython(meta);
}

struct FetchArgs {
  std::optional<std::vector<std::string>> variables;
  std::optional<Shape4> origin, shape;
  bool unpack = false, allow_incomplete = false;
  uint64_t incarnation = 0;  // if not 0: the dataset must still be this incarnation
  bool use_cache = true;     // serve from and fill the store's block cache
};

// The fetch, without the GIL; *meta_out (if not null) gets the meta it was read against.
grid::GridDataSet FetchNoGil(GridStore& store, const std::string& id, const FetchArgs& args,
                             grid::DataSetMeta* meta_out = nullptr) {
  auto fetcher = ValueOrThrow(store.GetDataFetcher(id));
  const grid::DataSetMeta& meta = fetcher->meta();
  if (meta_out != nullptr) *meta_out = meta;
  if (args.incarnation != 0 && meta.incarnation != args.incarnation) {
    ThrowIfError(Status::Aborted(
        "dataset " + Quote(id) +
        " was replaced after it was opened (deleted and created again, or imported with "
        "overwrite): open it again to read the new one"));
  }
  if (args.variables) fetcher->SetVariablesToGet(*args.variables);
  if (args.origin || args.shape) {
    const Shape4 origin = args.origin.value_or(Shape4{0, 0, 0, 0});
    Shape4 shape;
    if (args.shape) {
      shape = *args.shape;
    } else {
      // From origin to the end: the chosen variables must agree on their extents.
      std::optional<Shape4> extent;
      for (const grid::VariableMeta& v : meta.variables) {
        if (args.variables && std::find(args.variables->begin(), args.variables->end(), v.name) ==
                                  args.variables->end()) {
          continue;
        }
        if (extent && *extent != v.shape) {
          ThrowIfError(Status::InvalidArgument(
              "dataset " + Quote(id) + ": the variables differ in shape, so give `shape` too"));
        }
        extent = v.shape;
      }
      if (!extent) extent = Shape4{1, 1, 1, 1};  // Fetch names the real problem
      for (int a = 0; a < grid::kRank; ++a) shape[a] = (*extent)[a] - origin[a];
    }
    fetcher->SetOriginShape(origin, shape);
  }
  grid::FetchOptions options;
  options.unpack = args.unpack;
  options.allow_incomplete = args.allow_incomplete;
  options.use_cache = args.use_cache;
  fetcher->set_options(options);
  return ValueOrThrow(fetcher->Fetch());
}

py::dict Fetch(PyStore& self, const std::string& id, FetchArgs args) {
  auto store = self.Get();
  grid::GridDataSet result;
  {
    py::gil_scoped_release release;
    result = FetchNoGil(*store, id, args);
  }
  py::dict out;
  for (auto& [name, grid] : result.variables) out[py::str(name)] = GridToArray(std::move(grid));
  return out;
}

// The fetch written in `format` (npy, csv, json or nc) by the writers every front end shares
// (formats/output_format.h).
py::bytes FetchBytes(PyStore& self, const std::string& id, FetchArgs args,
                     const std::string& format_name) {
  const std::optional<formats::OutputFormat> format = formats::ParseOutputFormat(format_name);
  if (!format || !formats::WritesFetches(*format)) {
    ThrowIfError(
        Status::InvalidArgument("format " + Quote(format_name) + " is not npy, csv, json or nc"));
  }
  auto store = self.Get();
  std::string bytes;
  {
    py::gil_scoped_release release;
    grid::DataSetMeta meta;
    const grid::GridDataSet result = FetchNoGil(*store, id, args, &meta);
    std::ostringstream out;
    ThrowIfError(formats::WriteFetched(meta, result, *format, out, {.unpacked = args.unpack}));
    bytes = std::move(out).str();
  }
  return py::bytes(bytes);
}

struct ImportArgs {
  std::string path, dataset, format;  // format: "netcdf" or "grib"
  std::vector<std::string> variables;
  grid::Attributes attributes;
  bool overwrite = false;
  std::optional<std::pair<int64_t, int64_t>> block;
  std::optional<std::string> codec;
  std::optional<int64_t> frame_rows;
  bool float64 = false;                 // GRIB: keep ecCodes' doubles
  std::vector<std::string> more_paths;  // GRIB: further files of the same dataset
  bool append = false, finish = false;  // GRIB: a run arriving step by step
  int64_t expected_steps = 0;
  std::map<std::string, int> keep_bits, keep_digits;  // NetCDF: lossy precision by variable
  std::string collection, run_time;  // a forecast collection's name and the run's time (ISO)
  std::string store_uri;             // set by Import: the default block shape is the store's
};

// The import, without the GIL: the file's content must be the format asked for.
importers::ImportSummary ImportNoGil(GridStore& store, const ImportArgs& args) {
  importers::ImportOptions options;
  options.dataset_id = args.dataset;
  options.layout = importers::ImportLayoutFor(storage::IsDistributedUri(args.store_uri));
  if (args.block) std::tie(options.layout.block_x, options.layout.block_y) = *args.block;
  if (args.codec) options.layout.codec = ValueOrThrow(grid::ParseCodecOptions(*args.codec));
  if (args.frame_rows) options.layout.frame_rows = *args.frame_rows;
  options.attributes = args.attributes;
  options.overwrite = args.overwrite;
  options.variables = args.variables;
  options.keep_bits = args.keep_bits;
  options.keep_digits = args.keep_digits;
  if (args.float64) options.type = grid::DataType::kFloat64;
  options.append = args.append;
  options.finish = args.finish;
  options.expected_steps = args.expected_steps;
  options.collection = args.collection;
  options.run_time = args.run_time;
  // Store.import_netcdf and import_grib name the format; the file's content must agree.
  const bool grib = importers::IsGribFile(args.path);
  if (grib != (args.format == "grib")) {
    ThrowIfError(Status::InvalidArgument(
        Quote(args.path) + (grib ? " is GRIB: use Store.import_grib"
                                 : " is not GRIB (NetCDF?): use Store.import_netcdf")));
  }
  std::vector<std::string> paths = {args.path};
  paths.insert(paths.end(), args.more_paths.begin(), args.more_paths.end());
  auto plan = ValueOrThrow(importers::PlanImport(paths, options));
  importers::ImportSummary summary = ValueOrThrow(importers::RunImport(&store, *plan, nullptr));
  ThrowIfError(store.Flush());
  return summary;
}

py::dict Import(PyStore& self, ImportArgs args, const py::object& attributes) {
  auto store = self.Get();
  args.attributes = AttributesFromPython(attributes, "import of " + Quote(args.path));
  args.store_uri = self.uri();
  importers::ImportSummary summary;
  {
    py::gil_scoped_release release;
    summary = ImportNoGil(*store, args);
  }
  py::dict out;
  out["dataset"] = summary.dataset_id;
  out["datasets"] = summary.datasets;  // one per member of an ensemble
  out["variables"] = summary.variables;
  out["planes"] = summary.planes;
  out["raw_bytes"] = summary.raw_bytes;
  out["stored_bytes"] = summary.stored_bytes;
  out["seconds"] = summary.seconds;
  out["notes"] = summary.notes;
  out["status"] = summary.status;
  out["steps"] = summary.steps;
  out["complete_steps"] = summary.complete_steps;
  return out;
}

// Store.import_file: the arguments in Python's order, as ImportArgs.
py::dict ImportFile(PyStore& self, const std::string& path, const std::string& dataset,
                    const std::string& format, std::vector<std::string> variables,
                    const py::object& attributes, bool overwrite,
                    std::optional<std::pair<int64_t, int64_t>> block,
                    std::optional<std::string> codec, std::optional<int64_t> frame_rows,
                    bool float64, std::vector<std::string> more_paths, bool append, bool finish,
                    int64_t expected_steps, std::map<std::string, int> keep_bits,
                    std::map<std::string, int> keep_digits, std::string collection,
                    std::string run_time) {
  ImportArgs args{path,
                  dataset,
                  format,
                  std::move(variables),
                  {},
                  overwrite,
                  block,
                  codec,
                  frame_rows,
                  float64,
                  std::move(more_paths),
                  append,
                  finish,
                  expected_steps,
                  std::move(keep_bits),
                  std::move(keep_digits),
                  std::move(collection),
                  std::move(run_time)};
  return Import(self, std::move(args), attributes);
}

void Delete(PyStore& self, const std::string& id) {
  auto store = self.Get();
  py::gil_scoped_release release;
  ThrowIfError(store->DeleteDataSet(id));
  ThrowIfError(store->Flush());
}

py::dict Verify(PyStore& self, const std::string& id) {
  auto store = self.Get();
  grid::VerifyReport report;
  {
    py::gil_scoped_release release;
    report = ValueOrThrow(store->Verify(id));
  }
  py::dict out;
  out["ok"] = report.ok();
  out["datasets"] = report.datasets;
  out["blocks"] = report.blocks;
  out["bytes_read"] = report.bytes_read;
  out["datasets_not_done"] = report.datasets_not_done;
  py::list problems;
  for (const grid::VerifyProblem& p : report.problems) {
    problems.append(py::make_tuple(p.dataset, p.message));
  }
  out["problems"] = problems;
  out["orphan_blocks"] = [&] {
    int64_t n = 0;
    for (const grid::VerifyOrphan& o : report.orphans) n += o.blocks;
    return n;
  }();
  return out;
}

// Adds the series layout (grid_meta.h, SeriesLayout) of dataset `id`, or drops it.
py::dict Relayout(PyStore& self, const std::string& id, bool drop, int64_t steps,
                  std::pair<int64_t, int64_t> tile, int64_t levels, int64_t frame_points) {
  auto store = self.Get();
  py::dict out;
  if (drop) {
    py::gil_scoped_release release;
    ThrowIfError(store->DropSeriesLayout(id));
    ThrowIfError(store->Flush());
    return out;
  }
  const grid::SeriesLayout series{.block_t = steps,
                                  .tile_x = tile.first,
                                  .tile_y = tile.second,
                                  .block_z = levels,
                                  .frame_points = frame_points};
  grid::RelayoutReport report;
  {
    py::gil_scoped_release release;
    report = ValueOrThrow(store->AddSeriesLayout(id, series));
    ThrowIfError(store->Flush());
  }
  out["blocks_written"] = report.blocks_written;
  out["blocks_resumed"] = report.blocks_resumed;
  out["raw_bytes"] = report.raw_bytes;
  out["stored_bytes"] = report.stored_bytes;
  out["already_ready"] = report.already_ready;
  py::dict layout;  // the sides used, chosen or given
  layout["steps"] = report.layout.block_t;
  layout["tile"] = py::make_tuple(report.layout.tile_x, report.layout.tile_y);
  layout["levels"] = report.layout.block_z;
  layout["frame_points"] = report.layout.frame_points;
  out["layout"] = layout;
  return out;
}

}  // namespace

std::shared_ptr<GridStore> PyStore::Get() const {
  if (store_ == nullptr) throw py::value_error("the store " + Quote(uri_) + " is closed");
  return store_;
}

void BindStore(py::module_& m) {
  py::class_<PyStore, std::shared_ptr<PyStore>> store(m, "Store");
  m.def(
      "default_block",
      [](const std::string& uri) {
        const grid::BlockLayout layout = grid::DefaultBlockLayout(storage::IsDistributedUri(uri));
        return py::make_tuple(layout.block_x, layout.block_y);
      },
      py::arg("uri"), "The block shape a new dataset of the store at `uri` gets by default.");
  m.def("open", &Open, py::arg("uri"), py::arg("read_only") = true, py::arg("create") = false,
        py::arg("threads") = 0, py::arg("cache_bytes") = size_t{256} << 20);
  store.def_property_readonly("uri", &PyStore::uri)
      .def_property_readonly("closed", &PyStore::closed)
      .def_property_readonly("read_only",
                             [](PyStore& self) { return self.Get()->options().read_only; })
      .def("close", &PyStore::Close)
      .def("datasets", &Datasets, py::arg("where"), py::arg("sort"), py::arg("limit"),
           py::arg("offset"))
      .def("info", &Info, py::arg("id"))
      .def(
          "fetch",
          [](PyStore& self, const std::string& id,
             std::optional<std::vector<std::string>> variables, std::optional<Shape4> origin,
             std::optional<Shape4> shape, bool unpack, bool allow_incomplete, uint64_t incarnation,
             bool use_cache) {
            return Fetch(self, id,
                         {std::move(variables), origin, shape, unpack, allow_incomplete,
                          incarnation, use_cache});
          },
          py::arg("id"), py::arg("variables"), py::arg("origin"), py::arg("shape"),
          py::arg("unpack"), py::arg("allow_incomplete"), py::arg("incarnation"),
          py::arg("use_cache") = true)
      .def(
          "fetch_bytes",
          [](PyStore& self, const std::string& id,
             std::optional<std::vector<std::string>> variables, std::optional<Shape4> origin,
             std::optional<Shape4> shape, bool unpack, bool allow_incomplete, bool use_cache,
             const std::string& format) {
            return FetchBytes(
                self, id,
                {std::move(variables), origin, shape, unpack, allow_incomplete, 0, use_cache},
                format);
          },
          py::arg("id"), py::arg("variables"), py::arg("origin"), py::arg("shape"),
          py::arg("unpack"), py::arg("allow_incomplete"), py::arg("use_cache"), py::arg("format"))
      .def("import_file", &ImportFile, py::arg("path"), py::arg("dataset"), py::arg("format"),
           py::arg("variables"), py::arg("attributes"), py::arg("overwrite"), py::arg("block"),
           py::arg("codec"), py::arg("frame_rows"), py::arg("float64"),
           py::arg("more_paths") = std::vector<std::string>{}, py::arg("append") = false,
           py::arg("finish") = false, py::arg("expected_steps") = 0,
           py::arg("keep_bits") = std::map<std::string, int>{},
           py::arg("keep_digits") = std::map<std::string, int>{},
           py::arg("collection") = std::string(), py::arg("run_time") = std::string())
      .def("delete", &Delete, py::arg("id"))
      .def("verify", &Verify, py::arg("id"))
      .def("relayout", &Relayout, py::arg("id"), py::arg("drop"), py::arg("steps"), py::arg("tile"),
           py::arg("levels"), py::arg("frame_points"))
      .def("refresh",
           [](PyStore& self) {
             // A read-only store sees the store as it was when opened (RocksDB); reopening it
             // shows what other processes wrote since: new datasets, steps completed meanwhile.
             auto gs = self.Get();
             if (!gs->options().read_only) return;
             const grid::GridStoreOptions options = gs->options();
             std::unique_ptr<GridStore> reopened;
             {
               py::gil_scoped_release release;
               reopened = ValueOrThrow(GridStore::Open(self.uri(), options));
             }
             self.Replace(std::shared_ptr<GridStore>(std::move(reopened)));
           })
      .def("flush", [](PyStore& self) {
        auto gs = self.Get();
        py::gil_scoped_release release;
        ThrowIfError(gs->Flush());
      });
  BindExtract(store);
  BindCollections(store);
}

}  // namespace gridstore::python
