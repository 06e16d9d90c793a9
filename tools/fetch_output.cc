// Copyright 2026 The GridStore Authors.
#include "tools/fetch_output.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <vector>

#include "gridstore/formats/fetch_formats.h"
#include "gridstore/formats/netcdf/netcdf_exporter.h"
#include "gridstore/model/slabs.h"

namespace gridstore::tools {
namespace {

// The values of `slab_bytes` bytes, for values of `value_bytes` bytes (at least one).
int64_t SlabValues(int64_t slab_bytes, int64_t value_bytes) {
  return std::max<int64_t>(1, slab_bytes / std::max<int64_t>(1, value_bytes));
}

// Answers of at most this many bytes of values are written as netCDF classic files, without
// netCDF-C and HDF5 (formats/netcdf/netcdf_exporter.h): a point series to .nc took 18 ms, most
// of it loading and starting them. Larger ones stay netCDF-4, deflated and written slab by slab.
// GRIDSTORE_FETCH_NC_CLASSIC_BYTES replaces the bound (for tests: 0 writes netCDF-4 always).
int64_t ClassicBytes() {
  const char* env = std::getenv("GRIDSTORE_FETCH_NC_CLASSIC_BYTES");
  if (env == nullptr || *env == '\0') return int64_t{16} << 20;
  return std::max<int64_t>(0, std::atoll(env));
}

// The type the fetch of `v` returns (FetchPlan has the stored one).
grid::DataType ResultType(const grid::FetchPlan::Variable& v, bool unpacked,
                          const grid::DataSetMeta& meta) {
  const grid::VariableMeta* var = meta.FindVariable(v.name);
  return unpacked && var != nullptr ? grid::UnpackedType(*var) : v.type;
}

// Fetches `box` of `names` (one fetch).
Result<grid::GridDataSet> FetchSlab(grid::GridDataFetcher& fetcher,
                                    const std::vector<std::string>& names, const grid::Box& box) {
  fetcher.SetVariablesToGet(names);
  fetcher.SetOriginShape(box.origin, box.shape);
  return fetcher.Fetch();
}

Status WriteNc(const grid::FetchPlan& plan, bool unpacked, int64_t slab_bytes,
               grid::GridDataFetcher& fetcher, OutputFile& out) {
  std::vector<formats::ExportVariable> variables;
  int64_t widest = 1;
  for (const auto& v : plan.variables) {
    variables.push_back({v.name, ResultType(v, unpacked, fetcher.meta()), v.origin, v.shape});
    widest = std::max<int64_t>(widest, grid::DataTypeSize(variables.back().type));
  }
  std::optional<grid::GridDataSet> slab;  // the last one fetched; the exporter writes it
  Status fetch_error;                     // reported as the fetch's, not as the writer's
  const formats::SlabSource source = [&](const std::string& name,
                                         const grid::Box& box) -> Result<const grid::Grid4D*> {
    slab.reset();  // before the next fetch: one slab in memory at a time
    Result<grid::GridDataSet> fetched = FetchSlab(fetcher, {name}, box);
    if (!fetched.ok()) {
      fetch_error = fetched.status();
      return fetch_error;
    }
    slab = std::move(*fetched);
    return slab->GetVariable(name);
  };
  Status s = formats::WriteNetCdfSlabs(out.writer_path(), fetcher.meta(), variables, source,
                                       SlabValues(slab_bytes, widest),
                                       {.unpacked = unpacked, .classic_max_bytes = ClassicBytes()});
  if (!s.ok()) {
    out.Abort();
    if (!fetch_error.ok()) return fetch_error;
    return Status(s.code(), "writing the netCDF output for " + out.display_name() +
                                " failed: " + std::string(s.message()));
  }
  return Status::OK();
}

Status WriteNpySlabs(const grid::FetchPlan& plan, bool unpacked, int64_t slab_bytes,
                     grid::GridDataFetcher& fetcher, std::ostream& out) {
  const grid::FetchPlan::Variable& v = plan.variables.at(0);
  const grid::DataType type = ResultType(v, unpacked, fetcher.meta());
  const int64_t max_values = SlabValues(slab_bytes, grid::DataTypeSize(type));
  bool first = true;
  for (const grid::Box& box : grid::SplitIntoSlabs({v.origin, v.shape}, max_values)) {
    GRIDSTORE_ASSIGN_OR_RETURN(grid::GridDataSet slab, FetchSlab(fetcher, {v.name}, box));
    const grid::Grid4D& g = slab.variables.begin()->second;
    if (g.type() != type || g.shape() != box.shape) {
      return Status::Internal("npy output: a slab came back in another type or shape");
    }
    // The header once the first fetch succeeded: a refused fetch writes nothing to a stream.
    if (first) GRIDSTORE_RETURN_IF_ERROR(formats::WriteNpyHeader(type, v.shape, out));
    first = false;
    out.write(g.bytes(), static_cast<std::streamsize>(g.size_bytes()));
    if (!out) return Status::Unavailable("writing the npy output failed");
  }
  return Status::OK();
}

Status WriteCsvSlabs(const grid::FetchPlan& plan, bool unpacked, int64_t slab_bytes,
                     grid::GridDataFetcher& fetcher, std::ostream& out) {
  std::vector<formats::CsvSlabWriter::Variable> variables;
  std::vector<std::string> names;
  int64_t row_bytes = 0;
  for (const auto& v : plan.variables) {
    variables.push_back({v.name, {v.origin, v.shape}});
    names.push_back(v.name);
    row_bytes += grid::DataTypeSize(ResultType(v, unpacked, fetcher.meta()));
  }
  // Start checks that every variable has the first one's box.
  GRIDSTORE_ASSIGN_OR_RETURN(auto writer,
                             formats::CsvSlabWriter::Start(fetcher.meta(), variables, out));
  const grid::Box whole = variables.at(0).box;
  for (const grid::Box& box : grid::SplitIntoSlabs(whole, SlabValues(slab_bytes, row_bytes))) {
    GRIDSTORE_ASSIGN_OR_RETURN(grid::GridDataSet slab, FetchSlab(fetcher, names, box));
    GRIDSTORE_RETURN_IF_ERROR(writer->Write(slab));
  }
  return Status::OK();
}

}  // namespace

Status WriteFetchOutput(formats::OutputFormat format, const grid::FetchPlan& plan, bool unpacked,
                        int64_t slab_bytes, grid::GridDataFetcher& fetcher, OutputFile& out) {
  // One pass over the box: the store's cache of decompressed blocks would fill with up to its
  // budget (256 MiB by default) of blocks that are never read again.
  grid::FetchOptions options = fetcher.options();
  options.use_cache = false;
  fetcher.set_options(options);
  Status s;
  switch (format) {
    case formats::OutputFormat::kNetCdf:
      GRIDSTORE_RETURN_IF_ERROR(WriteNc(plan, unpacked, slab_bytes, fetcher, out));
      return out.Commit();
    case formats::OutputFormat::kNpy:
      s = WriteNpySlabs(plan, unpacked, slab_bytes, fetcher, out.stream());
      break;
    case formats::OutputFormat::kCsv:
      s = WriteCsvSlabs(plan, unpacked, slab_bytes, fetcher, out.stream());
      break;
    default:
      return Status::InvalidArgument("fetch writes " +
                                     std::string(formats::OutputFormatName(format)) +
                                     " whole, not slab by slab");
  }
  if (!s.ok()) {
    // A writer that stopped at a failed write cannot know why; the output knows (errno).
    Status io = out.WriteError();
    return io.ok() ? s : io;
  }
  return out.Commit();
}

}  // namespace gridstore::tools
