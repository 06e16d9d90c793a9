// Copyright 2026 The GridStore Authors.
#include "python/_core/convert.h"

#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "gridstore/model/codec_options.h"
#include "python/_core/errors.h"

namespace gridstore::python {
namespace {

using grid::AttributeValue;
using grid::DataType;

py::module_ Numpy() { return py::module_::import("numpy"); }

// UTF-8 text as str; bytes that are not UTF-8 become U+FFFD rather than an exception.
py::str Text(const std::string& s) {
  return py::reinterpret_steal<py::str>(
      PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
}

[[noreturn]] void Invalid(const std::string& message) {
  throw StatusError{Status::InvalidArgument(message)};
}

[[noreturn]] void WrongType(const std::string& message) { throw py::type_error(message); }

// meta[key], or an InvalidArgument naming what is missing.
py::object Field(const py::dict& d, const char* key, const std::string& owner) {
  if (!d.contains(key)) Invalid(owner + " has no '" + key + "'");
  return d[key];
}

grid::Shape4 Shape4From(const py::handle& value, const std::string& what) {
  auto items = value.cast<std::vector<int64_t>>();
  if (items.size() != grid::kRank) {
    Invalid(what + " must have 4 values (t, z, x, y), not " + std::to_string(items.size()));
  }
  return {items[0], items[1], items[2], items[3]};
}

}  // namespace

py::dtype NumpyDtype(DataType type) { return py::dtype(std::string(grid::DataTypeName(type))); }

DataType DataTypeOf(const py::dtype& dtype, const std::string& what) {
  const char kind = dtype.kind();
  const char order = dtype.byteorder();
  const bool native = order == '=' || order == '|' || order == '<';
  auto type = grid::ParseDataType(std::string(kind == 'f'   ? "float"
                                              : kind == 'u' ? "uint"
                                                            : "int") +
                                  std::to_string(dtype.itemsize() * 8));
  if (!native || (kind != 'i' && kind != 'u' && kind != 'f') || !type.ok()) {
    Invalid(what + ": GridStore stores integers and floats (int8..uint64, float32, float64), not " +
            py::repr(dtype).cast<std::string>());
  }
  return *type;
}

py::object AttributeToPython(const AttributeValue& value) {
  if (value.is_string()) return Text(value.string_value());
  if (value.is_bool()) return py::bool_(value.bool_value());
  const DataType type = value.number_type();
  const auto n = static_cast<py::ssize_t>(value.size());
  py::array array(NumpyDtype(type), std::vector<py::ssize_t>{n});
  grid::VisitDataType(type, [&](auto tag) {
    using T = decltype(tag);
    auto* out = static_cast<T*>(array.mutable_data());
    for (py::ssize_t i = 0; i < n; ++i) {
      if constexpr (std::is_floating_point_v<T>) {
        out[i] = static_cast<T>(value.floats()[size_t(i)]);
      } else {
        out[i] = static_cast<T>(value.integers()[size_t(i)]);  // uint64: the bit pattern
      }
    }
  });
  if (n == 1) return array[py::int_(0)];  // a numpy scalar of the attribute's type
  return array;
}

py::dict AttributesToPython(const grid::Attributes& attributes) {
  py::dict out;
  for (const auto& [name, value] : attributes) out[Text(name)] = AttributeToPython(value);
  return out;
}

grid::Attributes AttributesFromPython(const py::handle& mapping, const std::string& owner) {
  grid::Attributes out;
  if (mapping.is_none()) return out;
  if (!py::isinstance<py::dict>(mapping)) WrongType(owner + ": attributes must be a dict");
  for (auto [key, value] : mapping.cast<py::dict>()) {
    if (!py::isinstance<py::str>(key)) WrongType(owner + ": attribute names must be str");
    const std::string name = key.cast<std::string>();
    const std::string what = owner + ": attribute '" + name + "'";
    if (py::isinstance<py::str>(value)) {
      out[name] = AttributeValue::String(value.cast<std::string>());
      continue;
    }
    py::array array;
    try {
      array = Numpy().attr("asarray")(value);
    } catch (const py::error_already_set&) {
      WrongType(what + " must be a str, bool or number(s)");
    }
    const char kind = array.dtype().kind();
    if (array.ndim() > 1 || array.size() == 0 ||
        (kind != 'b' && kind != 'i' && kind != 'u' && kind != 'f' && kind != 'U')) {
      WrongType(what + " must be a str, a bool, a number or a 1-D sequence of numbers, not " +
                py::repr(value).cast<std::string>());
    }
    if (kind == 'U') {
      if (array.ndim() != 0) WrongType(what + ": a list of strings cannot be stored");
      out[name] = AttributeValue::String(py::str(array.attr("item")()).cast<std::string>());
      continue;
    }
    if (kind == 'b') {
      if (array.size() != 1) WrongType(what + ": a list of bools cannot be stored");
      out[name] = AttributeValue::Bool(array.attr("item")().cast<bool>());
      continue;
    }
    const DataType type = DataTypeOf(array.dtype(), what);
    py::array flat = array.attr("ravel")();
    if (grid::IsFloatingPoint(type)) {
      out[name] = AttributeValue::Floats(
          type, flat.attr("astype")("float64").attr("tolist")().cast<std::vector<double>>());
    } else {
      // int64 holds every integer type's values (uint64 as its bit pattern).
      py::object as_int64 = kind == 'u' && array.dtype().itemsize() == 8
                                ? flat.attr("view")("int64")
                                : flat.attr("astype")("int64");
      out[name] =
          AttributeValue::Integers(type, as_int64.attr("tolist")().cast<std::vector<int64_t>>());
    }
  }
  return out;
}

py::dict MetaToPython(const grid::DataSetMeta& meta) {
  py::dict d;
  d["id"] = Text(meta.id);
  d["status"] = Text(meta.status());
  d["attributes"] = AttributesToPython(meta.attributes);
  py::list variables;
  for (const grid::VariableMeta& v : meta.variables) {
    py::dict var;
    var["name"] = Text(v.name);
    var["dtype"] = std::string(grid::DataTypeName(v.type));
    var["shape"] = py::make_tuple(v.shape[0], v.shape[1], v.shape[2], v.shape[3]);
    var["dimensions"] = py::make_tuple(Text(v.dimension_names[0]), Text(v.dimension_names[1]),
                                       Text(v.dimension_names[2]), Text(v.dimension_names[3]));
    if (v.has_fill_value()) {
      py::array fill(NumpyDtype(v.type), std::vector<py::ssize_t>{1});
      std::memcpy(fill.mutable_data(), v.fill_value.data(), v.fill_value.size());
      var["fill_value"] = fill[py::int_(0)];
    } else {
      var["fill_value"] = py::none();
    }
    if (v.packing) {
      py::dict packing;
      packing["scale_factor"] = v.packing->scale_factor;
      packing["add_offset"] = v.packing->add_offset;
      packing["dtype"] = std::string(grid::DataTypeName(v.packing->unpacked_type));
      var["packing"] = packing;
    } else {
      var["packing"] = py::none();
    }
    var["missing_values"] = py::cast(v.missing_values);
    var["attributes"] = AttributesToPython(v.attributes);
    variables.append(var);
  }
  d["variables"] = variables;
  py::list coordinates;
  for (const grid::Coordinate& c : meta.coordinates) {
    py::dict coord;
    coord["name"] = Text(c.name);
    py::list dims;
    for (const std::string& dim : c.dimensions) dims.append(Text(dim));
    coord["dimensions"] = py::tuple(dims);
    coord["shape"] = py::tuple(py::cast(c.shape));
    coord["dtype"] = std::string(grid::DataTypeName(c.type));
    py::array values = CopyToArray(c.values);
    coord["values"] = values.attr("astype")(NumpyDtype(c.type)).attr("reshape")(coord["shape"]);
    coord["attributes"] = AttributesToPython(c.attributes);
    coordinates.append(coord);
  }
  d["coordinates"] = coordinates;
  py::dict layout;
  layout["block"] = py::make_tuple(meta.layout.block_x, meta.layout.block_y);
  layout["codec"] = grid::CodecOptionsToString(meta.layout.codec);
  layout["frame_rows"] = meta.layout.frame_rows;
  d["layout"] = layout;
  if (meta.series) {
    py::dict series;
    series["steps"] = meta.series->block_t;
    series["tile"] = py::make_tuple(meta.series->tile_x, meta.series->tile_y);
    series["levels"] = meta.series->block_z;
    series["frame_points"] = meta.series->frame_points;
    series["ready"] = meta.series->ready;
    // A growing run's: the leading steps its series blocks hold; None when they hold every step.
    series["held_steps"] = meta.series->steps == grid::kSeriesAllSteps
                               ? py::object(py::none())
                               : py::object(py::int_(meta.series->steps));
    d["series_layout"] = series;
  }
  d["incarnation"] = meta.incarnation;
  d["generation"] = meta.generation;
  return d;
}

grid::DataSetMeta MetaFromPython(const py::dict& d) {
  grid::DataSetMeta meta;
  meta.id = Field(d, "id", "the dataset").cast<std::string>();
  const std::string owner = "dataset '" + meta.id + "'";
  if (d.contains("attributes")) meta.attributes = AttributesFromPython(d["attributes"], owner);
  if (d.contains("variables")) {
    for (py::handle item : d["variables"]) {
      const py::dict v = item.cast<py::dict>();
      grid::VariableMeta var;
      var.name = Field(v, "name", owner + ": a variable").cast<std::string>();
      const std::string what = owner + ": variable '" + var.name + "'";
      var.type = DataTypeOf(py::dtype::from_args(Field(v, "dtype", what)), what);
      var.shape = Shape4From(Field(v, "shape", what), what + ": shape");
      if (v.contains("dimensions")) {
        auto names = v["dimensions"].cast<std::vector<std::string>>();
        if (names.size() != grid::kRank) Invalid(what + ": dimensions must have 4 names");
        for (int a = 0; a < grid::kRank; ++a) var.dimension_names[a] = names[size_t(a)];
      }
      if (v.contains("fill_value") && !v["fill_value"].is_none()) {
        py::array fill =
            Numpy().attr("array")(py::make_tuple(v["fill_value"]), NumpyDtype(var.type));
        var.fill_value.assign(static_cast<const char*>(fill.data()), size_t(fill.itemsize()));
      }
      if (v.contains("packing") && !v["packing"].is_none()) {
        const py::dict p = v["packing"].cast<py::dict>();
        grid::Packing packing;
        if (p.contains("scale_factor")) packing.scale_factor = p["scale_factor"].cast<double>();
        if (p.contains("add_offset")) packing.add_offset = p["add_offset"].cast<double>();
        if (p.contains("dtype")) {
          packing.unpacked_type = DataTypeOf(py::dtype::from_args(p["dtype"]), what + ": packing");
        }
        var.packing = packing;
      }
      if (v.contains("missing_values")) {
        var.missing_values = v["missing_values"].cast<std::vector<double>>();
      }
      if (v.contains("attributes")) var.attributes = AttributesFromPython(v["attributes"], what);
      meta.variables.push_back(std::move(var));
    }
  }
  if (d.contains("coordinates")) {
    for (py::handle item : d["coordinates"]) {
      const py::dict c = item.cast<py::dict>();
      grid::Coordinate coord;
      coord.name = Field(c, "name", owner + ": a coordinate").cast<std::string>();
      const std::string what = owner + ": coordinate '" + coord.name + "'";
      coord.dimensions = Field(c, "dimensions", what).cast<std::vector<std::string>>();
      py::array values = Numpy().attr("asarray")(Field(c, "values", what));
      coord.type = c.contains("dtype") ? DataTypeOf(py::dtype::from_args(c["dtype"]), what)
                                       : DataTypeOf(values.dtype(), what);
      for (py::ssize_t i = 0; i < values.ndim(); ++i) coord.shape.push_back(values.shape(i));
      if (c.contains("shape")) coord.shape = c["shape"].cast<std::vector<int64_t>>();
      coord.values = values.attr("astype")("float64")
                         .attr("ravel")()
                         .attr("tolist")()
                         .cast<std::vector<double>>();
      if (c.contains("attributes")) coord.attributes = AttributesFromPython(c["attributes"], what);
      meta.coordinates.push_back(std::move(coord));
    }
  }
  if (d.contains("layout")) {
    const py::dict layout = d["layout"].cast<py::dict>();
    if (layout.contains("block")) {
      auto block = layout["block"].cast<std::vector<int64_t>>();
      if (block.size() != 2) Invalid(owner + ": layout block must be (x, y)");
      meta.layout.block_x = block[0];
      meta.layout.block_y = block[1];
    }
    if (layout.contains("codec")) {
      meta.layout.codec =
          ValueOrThrow(grid::ParseCodecOptions(layout["codec"].cast<std::string>()));
    }
    if (layout.contains("frame_rows"))
      meta.layout.frame_rows = layout["frame_rows"].cast<int64_t>();
  }
  return meta;
}

py::array GridToArray(grid::Grid4D grid) {
  auto* owned = new grid::Grid4D(std::move(grid));
  py::capsule base(owned, [](void* p) { delete static_cast<grid::Grid4D*>(p); });
  const grid::Shape4& s = owned->shape();
  return py::array(NumpyDtype(owned->type()), std::vector<py::ssize_t>(s.begin(), s.end()),
                   owned->bytes(), base);
}

py::array VectorToArray(std::vector<double> values) {
  auto* owned = new std::vector<double>(std::move(values));
  py::capsule base(owned, [](void* p) { delete static_cast<std::vector<double>*>(p); });
  return py::array_t<double>(static_cast<py::ssize_t>(owned->size()), owned->data(), base);
}

}  // namespace gridstore::python
