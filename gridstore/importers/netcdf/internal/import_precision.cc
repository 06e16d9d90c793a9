// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/netcdf/internal/import_precision.h"

#include <cstring>
#include <map>
#include <vector>

#include "gridstore/util/internal/strings.h"

namespace gridstore::internal_importers {
namespace {

// The gridded variables imported, for messages: "'T', 'U', 'V'".
std::string ImportedNames(const ImportPlan& plan) {
  std::vector<std::string> names;
  for (const grid::VariableMeta& v : plan.meta.variables) names.push_back(Quote(v.name));
  return Join(names, ", ");
}

Status Apply(const std::string& path, const std::string& flag, const std::string& name,
             const grid::Precision& precision, ImportPlan* plan) {
  for (size_t i = 0; i < plan->meta.variables.size(); ++i) {
    grid::VariableMeta& var = plan->meta.variables[i];
    if (var.name != name) continue;
    if (var.packing) {
      return Status::InvalidArgument(
          Quote(path) + ": " + flag + ": variable " + Quote(name) + " is packed (" +
          std::string(grid::DataTypeName(var.type)) +
          " with scale_factor/add_offset): its stored integers are kept exactly");
    }
    GRIDSTORE_RETURN_IF_ERROR(
        grid::CheckPrecision(name, var.type, precision).WithContext(Quote(path) + ": " + flag));
    plan->variables[i].precision = precision;
    var.attributes[std::string(grid::PrecisionAttributeName(precision.mode))] =
        grid::AttributeValue::Integers(grid::DataType::kInt32, {precision.keep});
    return Status::OK();
  }
  return Status::InvalidArgument(Quote(path) + ": " + flag + " names " + Quote(name) +
                                 ", which is not a gridded variable being imported (" +
                                 ImportedNames(*plan) + ")");
}

template <typename T>
void QuantizeAs(const grid::Precision& precision, const grid::VariableMeta& var,
                grid::Grid2D* plane) {
  std::vector<T> keep;
  if (var.fill_value.size() == sizeof(T)) {
    T fill;
    std::memcpy(&fill, var.fill_value.data(), sizeof(T));
    keep.push_back(fill);
  }
  for (double m : var.missing_values) keep.push_back(static_cast<T>(m));
  grid::Quantize(precision, plane->data<T>(), std::span<const T>(keep));
}

}  // namespace

Status PlanPrecision(const std::string& path, const importers::NetCdfImportOptions& options,
                     ImportPlan* plan) {
  for (const auto& [name, bits] : options.keep_bits) {
    if (options.keep_digits.count(name)) {
      return Status::InvalidArgument(Quote(path) + ": variable " + Quote(name) +
                                     " is given both --keep-bits and --keep-digits");
    }
    GRIDSTORE_RETURN_IF_ERROR(
        Apply(path, "--keep-bits", name, {grid::QuantizeMode::kBitRound, bits}, plan));
  }
  for (const auto& [name, digits] : options.keep_digits) {
    GRIDSTORE_RETURN_IF_ERROR(
        Apply(path, "--keep-digits", name, {grid::QuantizeMode::kGranularBitRound, digits}, plan));
  }
  return Status::OK();
}

void QuantizePlane(const grid::Precision& precision, const grid::VariableMeta& var,
                   grid::Grid2D* plane) {
  if (var.type == grid::DataType::kFloat64) {
    QuantizeAs<double>(precision, var, plane);
  } else {
    QuantizeAs<float>(precision, var, plane);
  }
}

}  // namespace gridstore::internal_importers
