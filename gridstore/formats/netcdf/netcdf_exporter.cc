// Copyright 2026 The GridStore Authors.
//
// NetCDF export: the inverse of the importer's mapping. Each fetched axis with a source dimension
// name becomes a dimension sized to the slice; coordinates are cut to the same window. The file
// is written beside `path` and renamed into place, so a failure never leaves half a file there.
#include "gridstore/formats/netcdf/netcdf_exporter.h"

#include <netcdf.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gridstore/formats/netcdf/internal/classic_file.h"
#include "gridstore/formats/netcdf/internal/netcdf_output.h"
#include "gridstore/model/names.h"
#include "gridstore/model/netcdf/netcdf_api.h"
#include "gridstore/model/slabs.h"
#include "gridstore/util/internal/strings.h"
#include "gridstore/util/internal/utf8.h"

namespace gridstore::formats {
namespace {

using grid::Attributes;
using grid::AttributeValue;
using grid::Coordinate;
using grid::DataType;
using grid::Grid4D;
using grid::VariableMeta;
namespace netcdf = internal_netcdf::netcdf;
using internal_formats::ClassicNetCdfFile;
using internal_formats::NetCdfSink;
using internal_formats::PutAttribute;
using internal_netcdf::NetCdfLock;
using internal_netcdf::NetCdfMutex;
using internal_netcdf::ToNcType;

constexpr float kNanFloat = std::numeric_limits<float>::quiet_NaN();
constexpr double kNanDouble = std::numeric_limits<double>::quiet_NaN();

std::string CoordinatesAttribute(const VariableMeta& var) {
  auto it = var.attributes.find("coordinates");
  return it != var.attributes.end() && it->second.is_string() ? it->second.string_value() : "";
}

// A dimension of the output: one window of one source dimension.
struct OutDim {
  std::string source;  // the source dimension name (or "t", "z"... where the source has none)
  int64_t origin = 0;
  int64_t extent = 0;
  std::string name;  // in the output: `source`, or `source`_2... for a second window
  int id = -1;

  // What a coordinate named after another window's dimension gets appended: "" or "_2"...
  std::string suffix() const { return name.substr(source.size()); }
};

struct OutVariable {
  const VariableMeta* meta = nullptr;
  const ExportVariable* source = nullptr;  // its box and type
  std::vector<size_t> dims;                // indices into the dimension list, per written axis
  std::vector<int> axes;                   // the axis of each written dimension
  std::map<std::string, std::string> coordinate_names;  // source name -> written name
  std::string grid_mapping;                             // the grid mapping written for it, or ""
  int id = -1;
};

struct OutCoordinate {
  const Coordinate* source = nullptr;
  std::string name;
  std::vector<size_t> dims;  // indices into the dimension list; empty for a scalar
  std::vector<double> values;
  std::string bounds;  // the name its bounds variable is written under, or ""
  int id = -1;
};

class Writer {
 public:
  Writer(const std::string& path, const grid::DataSetMeta& meta, const NetCdfExportOptions& options)
      : path_(path), meta_(meta), options_(options) {}

  Status Plan(const std::vector<ExportVariable>& variables);
  // The kind of classic file (classic_file.h) that holds the planned file as netCDF-C would
  // write it as netCDF-4 (plain names; CDF-2 if every type is one of its, else CDF-5), or nullopt
  // if none does or it has more than `max_bytes` bytes of values.
  std::optional<ClassicNetCdfFile::Kind> ClassicKind(int64_t max_bytes) const;
  Status Write(NetCdfSink& nc, const SlabSource& source, int64_t max_slab_values);

 private:
  size_t DimensionFor(const std::string& source, int64_t origin, int64_t extent);
  void PlanCoordinates();
  // The bounds of the coordinates planned, and the variables' grid mappings (CF cell metadata).
  void PlanCellMetadata();
  bool AddCoordinate(const Coordinate& c, std::string name, std::vector<size_t> dims);
  Status Fail(int rc, const std::string& what) const {
    const std::string message = Quote(path_) + ": writing " + what + ": " + nc_->StrError(rc);
    if (rc == NC_EBADNAME || rc == NC_EMAXNAME) return Status::InvalidArgument(message);
    return Status::Unavailable(message);
  }
  Status DefineVariable(OutVariable* v);
  Status DefineCoordinate(OutCoordinate* c);
  // Writes the values of `v`, slab by slab.
  Status WriteValues(const OutVariable& v, const SlabSource& source, int64_t max_slab_values) const;
  // Copies attributes; `skip` names those handled by the caller or not wanted.
  Status PutAttributes(int varid, const Attributes& attributes,
                       const std::set<std::string, std::less<>>& skip, const std::string& owner);

  const std::string& path_;
  const grid::DataSetMeta& meta_;
  const NetCdfExportOptions& options_;
  NetCdfSink* nc_ = nullptr;  // the file being written (Write)
  std::vector<OutDim> dims_;
  std::vector<OutVariable> variables_;
  std::vector<OutCoordinate> coordinates_;
  std::set<std::string, std::less<>> dimension_names_;
  std::set<std::string, std::less<>> variable_names_;  // of the data variables
};

size_t Writer::DimensionFor(const std::string& source, int64_t origin, int64_t extent) {
  int uses = 0;
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (dims_[i].source != source) continue;
    if (dims_[i].origin == origin && dims_[i].extent == extent) return i;
    ++uses;
  }
  OutDim d{source, origin, extent, source, -1};
  for (int n = uses + 1; n == uses + 1 || dimension_names_.count(d.name); ++n) {
    d.name = n == 1 ? source : source + "_" + std::to_string(n);
  }
  dimension_names_.insert(d.name);
  dims_.push_back(std::move(d));
  return dims_.size() - 1;
}

Status Writer::Plan(const std::vector<ExportVariable>& variables) {
  for (const ExportVariable& ev : variables) {
    const VariableMeta* var = meta_.FindVariable(ev.name);
    if (var == nullptr) {
      return Status::InvalidArgument(Quote(path_) + ": dataset " + Quote(meta_.id) +
                                     " has no variable " + Quote(ev.name));
    }
    const bool floating = grid::IsFloatingPoint(ev.type);
    if (options_.unpacked ? !floating : ev.type != var->type) {
      return Status::InvalidArgument(
          Quote(path_) + ": variable " + Quote(ev.name) + " was fetched as " +
          std::string(grid::DataTypeName(ev.type)) + " but is stored as " +
          std::string(grid::DataTypeName(var->type)) +
          (options_.unpacked ? "; unpacked data must be floating-point"
                             : "; set NetCdfExportOptions::unpacked for unpacked data"));
    }
  }
  if (variables.empty()) {
    return Status::InvalidArgument(Quote(path_) + ": no variables to write");
  }
  // In dataset order, which is the source file's order.
  for (const VariableMeta& var : meta_.variables) {
    const auto ev = std::find_if(variables.begin(), variables.end(),
                                 [&](const ExportVariable& e) { return e.name == var.name; });
    if (ev == variables.end()) continue;
    OutVariable v;
    v.meta = &var;
    v.source = &*ev;
    for (int axis = 0; axis < grid::kRank; ++axis) {
      std::string source = var.dimension_names[axis];
      const int64_t extent = ev->shape[axis];
      if (source.empty()) {
        if (extent == 1) continue;  // an axis the source variable does not have
        source = std::string(grid::AxisName(axis));
      }
      v.dims.push_back(DimensionFor(source, ev->origin[axis], extent));
      v.axes.push_back(axis);
    }
    variable_names_.insert(var.name);
    variables_.push_back(std::move(v));
  }
  PlanCoordinates();
  return Status::OK();
}

// Plans writing `c` under `name` over the written dimensions `dims`, cut to their windows. False
// if the name is a data variable's, or already planned over other dimensions.
bool Writer::AddCoordinate(const Coordinate& c, std::string name, std::vector<size_t> dims) {
  if (variable_names_.count(name)) return false;  // taken by a data variable
  for (const auto& oc : coordinates_) {
    if (oc.name == name) return oc.dims == dims;  // written already
  }
  OutCoordinate oc;
  oc.source = &c;
  oc.name = std::move(name);
  oc.dims = std::move(dims);
  if (oc.dims.empty()) {
    oc.values = {c.values.empty() ? 0.0 : c.values[0]};
  } else if (oc.dims.size() == 1) {
    const OutDim& d = dims_[oc.dims[0]];
    oc.values.assign(c.values.begin() + d.origin, c.values.begin() + d.origin + d.extent);
  } else {
    const OutDim& d0 = dims_[oc.dims[0]];
    const OutDim& d1 = dims_[oc.dims[1]];
    for (int64_t i = 0; i < d0.extent; ++i) {
      const auto row = c.values.begin() + (d0.origin + i) * c.shape[1] + d1.origin;
      oc.values.insert(oc.values.end(), row, row + d1.extent);
    }
  }
  coordinates_.push_back(std::move(oc));
  return true;
}

void Writer::PlanCoordinates() {
  auto add = [&](const Coordinate& c, std::string name, std::vector<size_t> dims) {
    return AddCoordinate(c, std::move(name), std::move(dims));
  };
  auto fits = [](const OutDim& d, int64_t length) { return d.origin + d.extent <= length; };

  for (OutVariable& v : variables_) {
    const auto wanted = SplitWhitespace(CoordinatesAttribute(*v.meta));
    for (const Coordinate& c : meta_.coordinates) {
      const bool named = std::find(wanted.begin(), wanted.end(), c.name) != wanted.end();
      if (c.dimensions.empty()) {  // a scalar: written if the variable names it
        if (named && add(c, c.name, {})) v.coordinate_names[c.name] = c.name;
        continue;
      }
      // The windows of this variable over the coordinate's dimensions.
      std::vector<size_t> dims;
      for (size_t k = 0; k < c.dimensions.size(); ++k) {
        for (size_t d : v.dims) {
          if (dims_[d].source == c.dimensions[k] && fits(dims_[d], c.shape[k])) {
            dims.push_back(d);
            break;
          }
        }
      }
      if (dims.size() != c.dimensions.size()) continue;
      std::string suffix;
      for (size_t d : dims) {
        if (suffix.empty()) suffix = dims_[d].suffix();
      }
      if (add(c, c.name + suffix, dims)) v.coordinate_names[c.name] = c.name + suffix;
    }
  }
  PlanCellMetadata();
}

void Writer::PlanCellMetadata() {
  // Bounds: `NAME_bnds(dim, bnds)` of a 1-D coordinate, cut along dim as the coordinate is.
  const size_t planned = coordinates_.size();
  for (size_t i = 0; i < planned; ++i) {
    const OutCoordinate oc = coordinates_[i];
    if (oc.dims.size() != 1) continue;
    for (const char* attr : {"bounds", "climatology"}) {
      const auto it = oc.source->attributes.find(attr);
      if (it == oc.source->attributes.end() || !it->second.is_string()) continue;
      const Coordinate* b = meta_.FindCoordinate(it->second.string_value());
      if (b == nullptr || b->dimensions.size() != 2 ||
          b->dimensions[0] != oc.source->dimensions[0]) {
        continue;
      }
      const size_t vertices = DimensionFor(b->dimensions[1], 0, b->shape[1]);
      const std::string name = b->name + dims_[oc.dims[0]].suffix();
      if (AddCoordinate(*b, name, {oc.dims[0], vertices})) coordinates_[i].bounds = name;
    }
  }
  // Grid mappings: the scalar a variable's `grid_mapping` names ("crs" or "crs: lat lon").
  for (OutVariable& v : variables_) {
    const auto it = v.meta->attributes.find("grid_mapping");
    if (it == v.meta->attributes.end() || !it->second.is_string()) continue;
    const auto words = SplitWhitespace(it->second.string_value());
    if (words.empty()) continue;
    std::string name = words[0];
    if (name.back() == ':') name.pop_back();
    const Coordinate* m = meta_.FindCoordinate(name);
    if (m == nullptr || !m->dimensions.empty()) continue;
    if (AddCoordinate(*m, name, {})) v.grid_mapping = name;
  }
}

std::optional<ClassicNetCdfFile::Kind> Writer::ClassicKind(int64_t max_bytes) const {
  using internal_formats::ClassicType;
  using internal_formats::IsPlainNetCdfName;
  bool cdf2 = true;  // every type is one of CDF-2's
  const auto type = [&cdf2](grid::DataType t) { cdf2 = cdf2 && ClassicType(t).has_value(); };
  // Attribute names netCDF-C writes alike into both kinds of file: plain, and of the '_' names
  // only those it does not reserve for netCDF-4 (_NCProperties, _Netcdf4Dimid... are refused or
  // dropped there; a classic file would keep them).
  const auto plain_attributes = [&](const Attributes& attributes) {
    for (const auto& [name, value] : attributes) {
      if (!IsPlainNetCdfName(name)) return false;
      if (name.starts_with("_") && name != "_FillValue" && name != "_Unsigned") return false;
      if (value.is_number()) type(value.number_type());
    }
    return true;
  };
  int64_t bytes = 0;
  for (const OutDim& d : dims_) {
    if (d.extent <= 0 || !IsPlainNetCdfName(d.name)) return std::nullopt;  // 0 marks records
  }
  for (const OutCoordinate& c : coordinates_) {
    if (!IsPlainNetCdfName(c.name) || !plain_attributes(c.source->attributes)) return std::nullopt;
    type(c.source->type);
    bytes += static_cast<int64_t>(c.values.size() * grid::DataTypeSize(c.source->type));
  }
  for (const OutVariable& v : variables_) {
    if (!IsPlainNetCdfName(v.meta->name) || !plain_attributes(v.meta->attributes)) {
      return std::nullopt;
    }
    type(v.source->type);
    int64_t values = 1;
    for (const int64_t extent : v.source->shape) values *= extent;
    bytes += static_cast<int64_t>(grid::DataTypeSize(v.source->type)) * values;
  }
  if (bytes > max_bytes || !plain_attributes(meta_.attributes)) return std::nullopt;
  return cdf2 ? ClassicNetCdfFile::Kind::kCdf2 : ClassicNetCdfFile::Kind::kCdf5;
}

Status Writer::PutAttributes(int varid, const Attributes& attributes,
                             const std::set<std::string, std::less<>>& skip,
                             const std::string& owner) {
  for (const auto& [name, value] : attributes) {
    if (skip.count(name)) continue;
    const int rc = PutAttribute(*nc_, varid, name, value);
    // netCDF-4 reserves some names starting with '_' for itself: those stay behind.
    if (rc != NC_NOERR && !name.starts_with("_")) {
      return Fail(rc, "attribute " + Quote(name) + " of " + owner);
    }
  }
  return Status::OK();
}

Status Writer::DefineCoordinate(OutCoordinate* c) {
  std::vector<int> dimids;
  for (size_t d : c->dims) dimids.push_back(dims_[d].id);
  const std::string owner = "coordinate " + Quote(c->name);
  int rc = nc_->DefVar(c->name.c_str(), ToNcType(c->source->type), static_cast<int>(dimids.size()),
                       dimids.data(), &c->id);
  if (rc != NC_NOERR) return Fail(rc, owner);
  std::set<std::string, std::less<>> skip = {"bounds", "climatology"};
  if (!c->bounds.empty()) {
    const bool climatology = !c->source->attributes.count("bounds");
    const char* attr = climatology ? "climatology" : "bounds";
    rc = nc_->PutAttText(c->id, attr, c->bounds.size(), c->bounds.data());
    if (rc != NC_NOERR) return Fail(rc, "attribute " + Quote(attr) + " of " + owner);
  }
  const auto fill = c->source->attributes.find("_FillValue");
  if (fill != c->source->attributes.end() &&
      (!fill->second.is_number() || fill->second.number_type() != c->source->type)) {
    skip.insert("_FillValue");  // netCDF-4 wants it in the variable's type
  }
  return PutAttributes(c->id, c->source->attributes, skip, owner);
}

Status Writer::DefineVariable(OutVariable* v) {
  const VariableMeta& var = *v->meta;
  const grid::DataType data_type = v->source->type;
  const std::string owner = "variable " + Quote(var.name);
  std::vector<int> dimids;
  for (size_t d : v->dims) dimids.push_back(dims_[d].id);
  const nc_type type = ToNcType(data_type);
  int rc =
      nc_->DefVar(var.name.c_str(), type, static_cast<int>(dimids.size()), dimids.data(), &v->id);
  if (rc != NC_NOERR) return Fail(rc, owner);
  if (!dimids.empty()) {
    // Chunks of at most one plane and about 4 MiB: whole rows of y, as many x as fit.
    std::vector<size_t> chunks(dimids.size(), 1);
    size_t room = std::max<size_t>(1, (size_t{4} << 20) / grid::DataTypeSize(data_type));
    for (size_t i = chunks.size(); i-- > 0;) {
      if (v->axes[i] != grid::kX && v->axes[i] != grid::kY) continue;
      chunks[i] = std::min(static_cast<size_t>(dims_[v->dims[i]].extent), room);
      room = std::max<size_t>(1, room / chunks[i]);
    }
    if ((rc = nc_->DefCompression(v->id, chunks.data())) != NC_NOERR) return Fail(rc, owner);
  }

  std::set<std::string, std::less<>> skip = {"_FillValue", "coordinates", "bounds", "climatology",
                                             "grid_mapping"};
  if (options_.unpacked) {
    // Values are floats with NaN for fill and missing values: packing metadata no longer applies.
    skip.insert({"scale_factor", "add_offset", "missing_value", "_Unsigned"});
    if (var.packing || !grid::IsFloatingPoint(var.type)) {
      skip.insert({"valid_range", "valid_min", "valid_max"});
    }
    rc = type == NC_FLOAT ? nc_->DefFill(v->id, &kNanFloat) : nc_->DefFill(v->id, &kNanDouble);
    if (rc != NC_NOERR) return Fail(rc, "the fill value of " + owner);
  } else if (var.attributes.count("_FillValue") && var.has_fill_value()) {
    // The source's _FillValue, in the variable's own type (the importer converted it).
    rc = nc_->PutAtt(v->id, "_FillValue", type, 1, var.fill_value.data());
    if (rc != NC_NOERR) return Fail(rc, "the fill value of " + owner);
  }
  if (!v->grid_mapping.empty()) skip.erase("grid_mapping");  // written: it still applies
  GRIDSTORE_RETURN_IF_ERROR(PutAttributes(v->id, var.attributes, skip, owner));

  // `coordinates`, naming what was written for this variable.
  std::string names;
  for (const auto& n : SplitWhitespace(CoordinatesAttribute(var))) {
    auto written = v->coordinate_names.find(n);
    if (written != v->coordinate_names.end()) names += (names.empty() ? "" : " ") + written->second;
  }
  if (!names.empty() &&
      (rc = nc_->PutAttText(v->id, "coordinates", names.size(), names.data())) != NC_NOERR) {
    return Fail(rc, "attribute 'coordinates' of " + owner);
  }
  return Status::OK();
}

Status Writer::Write(NetCdfSink& nc, const SlabSource& source, int64_t max_slab_values) {
  nc_ = &nc;
  int rc;
  for (OutDim& d : dims_) {
    if ((rc = nc.DefDim(d.name.c_str(), static_cast<size_t>(d.extent), &d.id)) != NC_NOERR) {
      return Fail(rc, "dimension " + Quote(d.name));
    }
  }
  for (OutCoordinate& c : coordinates_) GRIDSTORE_RETURN_IF_ERROR(DefineCoordinate(&c));
  for (OutVariable& v : variables_) GRIDSTORE_RETURN_IF_ERROR(DefineVariable(&v));
  GRIDSTORE_RETURN_IF_ERROR(PutAttributes(NC_GLOBAL, meta_.attributes, {}, "the file"));
  if ((rc = nc.EndDef()) != NC_NOERR) return Fail(rc, "the header");

  for (const OutCoordinate& c : coordinates_) {
    if ((rc = nc.PutVarDouble(c.id, c.values.data())) != NC_NOERR) {
      return Fail(rc, "coordinate " + Quote(c.name));
    }
  }
  for (const OutVariable& v : variables_) {
    GRIDSTORE_RETURN_IF_ERROR(WriteValues(v, source, max_slab_values));
  }
  return Status::OK();
}

Status Writer::WriteValues(const OutVariable& v, const SlabSource& source,
                           int64_t max_slab_values) const {
  const ExportVariable& ev = *v.source;
  const std::string owner = "variable " + Quote(v.meta->name);
  for (const grid::Box& slab : grid::SplitIntoSlabs({ev.origin, ev.shape}, max_slab_values)) {
    GRIDSTORE_ASSIGN_OR_RETURN(const Grid4D* grid, source(ev.name, slab));
    if (grid->type() != ev.type || grid->shape() != slab.shape) {
      return Status::Internal(Quote(path_) + ": " + owner + ": a slab came back as " +
                              std::string(grid::DataTypeName(grid->type())) + " " +
                              ShapeString(grid->shape()) + ", not as planned");
    }
    // The slab's window, over the written axes; the buffer is (t, z, x, y) row-major, and
    // dropping axes of extent 1 keeps the layout.
    std::vector<size_t> start, count;
    for (int axis : v.axes) {
      start.push_back(static_cast<size_t>(slab.origin[axis] - ev.origin[axis]));
      count.push_back(static_cast<size_t>(slab.shape[axis]));
    }
    const int rc = nc_->PutVara(v.id, start.data(), count.data(), grid->bytes());
    if (rc != NC_NOERR) return Fail(rc, owner);
  }
  return Status::OK();
}

Status WriteSlabsTo(const internal_formats::NetCdfDestination& to, const grid::DataSetMeta& meta,
                    const std::vector<ExportVariable>& variables, const SlabSource& source,
                    int64_t max_slab_values, const NetCdfExportOptions& options) {
  Writer writer(to.name, meta, options);
  GRIDSTORE_RETURN_IF_ERROR(writer.Plan(variables));
  if (const auto kind = writer.ClassicKind(options.classic_max_bytes)) {
    // Without netCDF-C: no library to load, no HDF5 to start (classic_file.h).
    ClassicNetCdfFile file(*kind);
    GRIDSTORE_RETURN_IF_ERROR(writer.Write(file, source, max_slab_values));
    return internal_formats::WriteFileBytes(to, file.bytes());
  }
  GRIDSTORE_RETURN_IF_ERROR(internal_netcdf::LoadNetCdf());
  return internal_formats::WriteNetCdfFile(to, [&](int ncid) {
    internal_formats::NetCdf4Sink nc(ncid);
    return writer.Write(nc, source, max_slab_values);
  });
}

}  // namespace
}  // namespace gridstore::formats

namespace gridstore::internal_formats {

using formats::ExportVariable;
using formats::NetCdfExportOptions;
using formats::SlabSource;

Status WriteNetCdfDataSet(const NetCdfDestination& to, const grid::DataSetMeta& meta,
                          const grid::GridDataSet& data, const NetCdfExportOptions& options) {
  std::vector<ExportVariable> variables;
  for (const auto& [name, grid] : data.variables) {
    variables.push_back({name, grid.type(), grid.origin(), grid.shape()});
  }
  // Each variable whole, as one slab: the data are in memory already.
  const SlabSource source = [&](const std::string& name,
                                const grid::Box&) -> Result<const grid::Grid4D*> {
    return data.GetVariable(name);
  };
  return formats::WriteSlabsTo(to, meta, variables, source, std::numeric_limits<int64_t>::max(),
                               options);
}

}  // namespace gridstore::internal_formats

namespace gridstore::formats {

Status WriteNetCdf(const std::string& path, const grid::DataSetMeta& meta,
                   const grid::GridDataSet& data, const NetCdfExportOptions& options) {
  return internal_formats::WriteNetCdfDataSet({.name = path}, meta, data, options);
}

Status WriteNetCdfSlabs(const std::string& path, const grid::DataSetMeta& meta,
                        const std::vector<ExportVariable>& variables, const SlabSource& source,
                        int64_t max_slab_values, const NetCdfExportOptions& options) {
  return WriteSlabsTo({.name = path}, meta, variables, source, max_slab_values, options);
}

}  // namespace gridstore::formats
