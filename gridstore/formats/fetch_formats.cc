// Copyright 2026 The GridStore Authors.
#include "gridstore/formats/fetch_formats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gridstore/util/internal/strings.h"

namespace gridstore::formats {

using grid::DataType;
using grid::Grid4D;

// These two are outside the anonymous namespace: CsvSlabWriter::Rows, a class of the header,
// holds a RowSource.

// A 1-D coordinate labelling one axis of the fetched variables.
struct AxisLabel {
  int axis;
  const grid::Coordinate* coordinate;
};

// The rows shared by csv and json: one per grid point of the (common) box.
struct RowSource {
  std::vector<std::string> names;  // fetched variables, in order
  std::vector<const Grid4D*> grids;
  std::vector<AxisLabel> labels;
  grid::Shape4 origin{};
  grid::Shape4 shape{};
  // Column names (MakeColumnNames): of the index columns, and of the labels, in order.
  std::array<std::string, grid::kRank> index_columns;
  std::vector<std::string> label_columns;
};

namespace {

const char* NpyDescr(DataType type) {
  switch (type) {
    case DataType::kInt8:
      return "|i1";
    case DataType::kUint8:
      return "|u1";
    case DataType::kInt16:
      return "<i2";
    case DataType::kUint16:
      return "<u2";
    case DataType::kInt32:
      return "<i4";
    case DataType::kUint32:
      return "<u4";
    case DataType::kInt64:
      return "<i8";
    case DataType::kUint64:
      return "<u8";
    case DataType::kFloat32:
      return "<f4";
    case DataType::kFloat64:
      return "<f8";
  }
  return "?";
}

constexpr std::string_view kAxisNames[] = {"t", "z", "x", "y"};

// `name`, with '@' put in front until no column in `taken` has it; then taken by it.
std::string Claim(std::string name, std::set<std::string, std::less<>>* taken) {
  while (taken->count(name)) name.insert(name.begin(), '@');
  taken->insert(name);
  return name;
}

// The rows of `variables` (sorted by name, as GridDataSet holds them), without their grids.
Result<RowSource> MakeRowSourceOfBoxes(const grid::DataSetMeta& meta,
                                       const std::vector<CsvSlabWriter::Variable>& variables,
                                       std::string_view format) {
  RowSource src;
  const grid::VariableMeta* first = nullptr;
  for (const auto& [name, box] : variables) {
    const grid::VariableMeta* var = meta.FindVariable(name);
    if (var == nullptr) return Status::Internal("fetched variable '" + name + "' has no meta");
    if (first == nullptr) {
      first = var;
      src.origin = box.origin;
      src.shape = box.shape;
    } else if (box.origin != src.origin || box.shape != src.shape ||
               var->dimension_names != first->dimension_names) {
      return Status::InvalidArgument(std::string(format) +
                                     " output needs variables of one box and "
                                     "dimensions, but '" +
                                     first->name + "' is " + ShapeString(src.shape) + " over (" +
                                     first->dimension_names[0] + ", " + first->dimension_names[1] +
                                     ", " + first->dimension_names[2] + ", " +
                                     first->dimension_names[3] + ") and '" + name + "' is " +
                                     ShapeString(box.shape) + "; fetch them separately");
    }
    src.names.push_back(name);
  }
  if (first == nullptr) return Status::InvalidArgument("no variable was fetched");
  const int64_t points = src.shape[0] * src.shape[1] * src.shape[2] * src.shape[3];
  if (points * static_cast<int64_t>(src.names.size()) > kMaxTextValues) {
    return Status::InvalidArgument(
        std::string(format) + " output is for small slices: this one has " +
        std::to_string(points * src.names.size()) + " values (the limit is " +
        std::to_string(kMaxTextValues) + "); use --format nc or npy");
  }
  for (int axis = 0; axis < grid::kRank; ++axis) {
    const std::string& dim = first->dimension_names[axis];
    if (dim.empty()) continue;
    for (const auto& c : meta.coordinates) {
      if (c.dimensions.size() == 1 && c.dimensions[0] == dim &&
          static_cast<int64_t>(c.values.size()) >= src.origin[axis] + src.shape[axis]) {
        src.labels.push_back(AxisLabel{axis, &c});
        break;
      }
    }
  }
  std::vector<std::string> label_names;
  for (const auto& label : src.labels) label_names.push_back(label.coordinate->name);
  ColumnNames columns = MakeColumnNames(src.names, label_names);
  src.index_columns = std::move(columns.index);
  src.label_columns = std::move(columns.labels);
  return src;
}

Result<RowSource> MakeRowSource(const grid::DataSetMeta& meta, const grid::GridDataSet& data,
                                std::string_view format) {
  std::vector<CsvSlabWriter::Variable> variables;
  for (const auto& [name, grid] : data.variables) {
    variables.push_back({name, {grid.origin(), grid.shape()}});
  }
  GRIDSTORE_ASSIGN_OR_RETURN(RowSource src, MakeRowSourceOfBoxes(meta, variables, format));
  for (const auto& [name, grid] : data.variables) src.grids.push_back(&grid);
  return src;
}

// Calls fn(index (t, z, x, y) relative to the box, offset into every grid) for each point.
template <typename Fn>
void ForEachPoint(const RowSource& src, Fn&& fn) {
  size_t offset = 0;
  for (int64_t t = 0; t < src.shape[0]; ++t)
    for (int64_t z = 0; z < src.shape[1]; ++z)
      for (int64_t x = 0; x < src.shape[2]; ++x)
        for (int64_t y = 0; y < src.shape[3]; ++y) fn(grid::Shape4{t, z, x, y}, offset++);
}

std::string FormatNumber(double v, bool is_float32) {
  if (std::isnan(v)) return "NaN";
  char buf[40];
  std::snprintf(buf, sizeof(buf), is_float32 ? "%.9g" : "%.17g", v);
  return buf;
}

// The value of `grid` at `offset` as text, exact for every type.
std::string FormatValue(const Grid4D& grid, size_t offset) {
  return grid::VisitDataType(grid.type(), [&](auto tag) -> std::string {
    using T = decltype(tag);
    T v = grid.data<T>()[offset];
    if constexpr (std::is_floating_point_v<T>) {
      return FormatNumber(v, std::is_same_v<T, float>);
    } else {
      return std::to_string(v);
    }
  });
}

nlohmann::ordered_json JsonValue(const Grid4D& grid, size_t offset) {
  return grid::VisitDataType(grid.type(), [&](auto tag) -> nlohmann::ordered_json {
    using T = decltype(tag);
    T v = grid.data<T>()[offset];
    if constexpr (std::is_floating_point_v<T>) {
      if (!std::isfinite(v)) return nullptr;  // JSON has no NaN or infinity
    }
    return v;
  });
}

}  // namespace

ColumnNames MakeColumnNames(const std::vector<std::string>& variables,
                            const std::vector<std::string>& labels) {
  // Variables keep their names: they are what the user asked for by name.
  std::set<std::string, std::less<>> taken(variables.begin(), variables.end());
  ColumnNames columns;
  for (int a = 0; a < grid::kRank; ++a) {
    columns.index[a] = Claim("@" + std::string(kAxisNames[a]), &taken);
  }
  for (const std::string& label : labels) columns.labels.push_back(Claim(label, &taken));
  return columns;
}

Status WriteNpy(const Grid4D& grid, std::ostream& out) {
  GRIDSTORE_RETURN_IF_ERROR(WriteNpyHeader(grid.type(), grid.shape(), out));
  out.write(grid.bytes(), static_cast<std::streamsize>(grid.size_bytes()));
  if (!out) return Status::Unavailable("writing the npy output failed");
  return Status::OK();
}

Status WriteNpyHeader(DataType type, const grid::Shape4& s, std::ostream& out) {
  std::string header = "{'descr': '" + std::string(NpyDescr(type)) +
                       "', 'fortran_order': False, 'shape': (" + std::to_string(s[0]) + ", " +
                       std::to_string(s[1]) + ", " + std::to_string(s[2]) + ", " +
                       std::to_string(s[3]) + "), }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to a multiple of 64.
  const size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header.push_back('\n');
  const uint16_t len = static_cast<uint16_t>(header.size());
  out.write("\x93NUMPY\x01\x00", 8);
  out.put(static_cast<char>(len & 0xff));
  out.put(static_cast<char>(len >> 8));
  out.write(header.data(), static_cast<std::streamsize>(header.size()));
  if (!out) return Status::Unavailable("writing the npy output failed");
  return Status::OK();
}

namespace {

void WriteCsvHeader(const RowSource& src, std::ostream& out) {
  for (int a = 0; a < grid::kRank; ++a) out << (a ? "," : "") << src.index_columns[a];
  for (const auto& name : src.label_columns) out << ',' << CsvField(name);
  for (const auto& name : src.names) out << ',' << CsvField(name);
  out << '\n';
}

void WriteCsvRows(const RowSource& src, std::ostream& out) {
  std::string line;
  ForEachPoint(src, [&](const grid::Shape4& i, size_t offset) {
    line.clear();
    for (int a = 0; a < grid::kRank; ++a) {
      if (a) line += ',';
      line += std::to_string(src.origin[a] + i[a]);
    }
    for (const auto& label : src.labels) {
      line += ',';
      line += FormatNumber(label.coordinate->values[src.origin[label.axis] + i[label.axis]], false);
    }
    for (const Grid4D* g : src.grids) {
      line += ',';
      line += FormatValue(*g, offset);
    }
    line += '\n';
    out << line;
  });
}

}  // namespace

Status WriteCsv(const grid::DataSetMeta& meta, const grid::GridDataSet& data, std::ostream& out) {
  GRIDSTORE_ASSIGN_OR_RETURN(RowSource src, MakeRowSource(meta, data, "csv"));
  WriteCsvHeader(src, out);
  WriteCsvRows(src, out);
  if (!out) return Status::Unavailable("writing the csv output failed");
  return Status::OK();
}

// The whole box's rows (labels, columns), without grids.
struct CsvSlabWriter::Rows {
  RowSource box;
};

CsvSlabWriter::CsvSlabWriter(std::unique_ptr<Rows> rows, std::ostream& out)
    : rows_(std::move(rows)), out_(out) {}
CsvSlabWriter::~CsvSlabWriter() = default;

Result<std::unique_ptr<CsvSlabWriter>> CsvSlabWriter::Start(const grid::DataSetMeta& meta,
                                                            const std::vector<Variable>& variables,
                                                            std::ostream& out) {
  std::vector<Variable> sorted = variables;  // in GridDataSet's order, as WriteCsv's columns
  std::sort(sorted.begin(), sorted.end(),
            [](const Variable& a, const Variable& b) { return a.name < b.name; });
  auto rows = std::make_unique<Rows>();
  GRIDSTORE_ASSIGN_OR_RETURN(rows->box, MakeRowSourceOfBoxes(meta, sorted, "csv"));
  return std::unique_ptr<CsvSlabWriter>(new CsvSlabWriter(std::move(rows), out));
}

Status CsvSlabWriter::Write(const grid::GridDataSet& slab) {
  // The box's labels and columns, over the slab's points and values.
  RowSource src = rows_->box;
  src.grids.clear();
  for (const std::string& name : src.names) {
    const Grid4D* grid = slab.GetVariable(name);
    if (grid == nullptr || (!src.grids.empty() && grid->shape() != src.shape)) {
      return Status::Internal("csv slab: variable '" + name + "' is missing or of another box");
    }
    if (src.grids.empty()) {
      src.origin = grid->origin();
      src.shape = grid->shape();
    }
    src.grids.push_back(grid);
  }
  if (!header_written_) WriteCsvHeader(src, out_);
  header_written_ = true;
  WriteCsvRows(src, out_);
  if (!out_) return Status::Unavailable("writing the csv output failed");
  return Status::OK();
}

Status WriteJson(const grid::DataSetMeta& meta, const grid::GridDataSet& data, std::ostream& out) {
  GRIDSTORE_ASSIGN_OR_RETURN(RowSource src, MakeRowSource(meta, data, "json"));
  nlohmann::ordered_json doc;
  doc["dataset"] = meta.id;
  nlohmann::ordered_json vars = nlohmann::ordered_json::object();
  for (size_t v = 0; v < src.names.size(); ++v) {
    const grid::VariableMeta* var = meta.FindVariable(src.names[v]);
    nlohmann::ordered_json info;
    info["type"] = std::string(grid::DataTypeName(src.grids[v]->type()));
    info["origin"] = src.grids[v]->origin();
    info["shape"] = src.grids[v]->shape();
    info["dimensions"] = var->dimension_names;
    if (auto it = var->attributes.find("units"); it != var->attributes.end()) {
      info["units"] = it->second.ToString();
    }
    vars[src.names[v]] = std::move(info);
  }
  doc["variables"] = std::move(vars);
  // Names and ids may hold bytes that are not UTF-8; JSON cannot: those become U+FFFD.
  constexpr auto kReplace = nlohmann::ordered_json::error_handler_t::replace;
  auto dump = [&](const nlohmann::ordered_json& j) { return j.dump(-1, ' ', false, kReplace); };
  // One row per line: readable by people, and by `jq -c '.rows[]'`.
  out << "{\n \"dataset\": " << dump(nlohmann::ordered_json(meta.id))
      << ",\n \"variables\": " << dump(doc["variables"])
      << ",\n \"index_columns\": " << dump(nlohmann::ordered_json(src.index_columns))
      << ",\n \"rows\": [";
  bool first = true;
  ForEachPoint(src, [&](const grid::Shape4& i, size_t offset) {
    nlohmann::ordered_json row;
    for (int a = 0; a < grid::kRank; ++a) row[src.index_columns[a]] = src.origin[a] + i[a];
    for (size_t l = 0; l < src.labels.size(); ++l) {
      const AxisLabel& label = src.labels[l];
      double c = label.coordinate->values[src.origin[label.axis] + i[label.axis]];
      row[src.label_columns[l]] = std::isfinite(c) ? nlohmann::ordered_json(c) : nullptr;
    }
    for (size_t v = 0; v < src.grids.size(); ++v)
      row[src.names[v]] = JsonValue(*src.grids[v], offset);
    out << (first ? "\n  " : ",\n  ") << dump(row);
    first = false;
  });
  out << "\n ]\n}\n";
  if (!out) return Status::Unavailable("writing the json output failed");
  return Status::OK();
}

}  // namespace gridstore::formats
