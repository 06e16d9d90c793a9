// Copyright 2026 The GridStore Authors.
//
// Error messages more than one part of grid/ gives, written once so that they read the same.
#ifndef GRIDSTORE_MODEL_INTERNAL_GRID_MESSAGES_H_
#define GRIDSTORE_MODEL_INTERNAL_GRID_MESSAGES_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "gridstore/model/grid_meta.h"
#include "gridstore/util/internal/strings.h"
#include "gridstore/util/internal/utf8.h"
#include "gridstore/util/status.h"

namespace gridstore::internal_grid {

// InvalidArgument: "dataset 'D' has no variable 'V' (it has: A, B)".
inline Status NoSuchVariable(const grid::DataSetMeta& meta, std::string_view name) {
  return Status::InvalidArgument(
      "dataset " + Quote(meta.id) + " has no variable " + Quote(name) + " (it has: " +
      Join(meta.variables, ", ",
           [](const grid::VariableMeta& v) { return EscapeForMessage(v.name); }) +
      ")");
}

// "variable 'V', t=T, z=Z, block (R, C)": which block a message is about.
inline std::string BlockName(std::string_view variable, int64_t t, int64_t z, int64_t block_row,
                             int64_t block_col) {
  return "variable " + Quote(variable) + ", t=" + std::to_string(t) + ", z=" + std::to_string(z) +
         ", block (" + std::to_string(block_row) + ", " + std::to_string(block_col) + ")";
}

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_MODEL_INTERNAL_GRID_MESSAGES_H_
