// Copyright 2026 The GridStore Authors.
//
// Error messages more than one part of grid/ gives, written once so that they read the same.
#ifndef GRIDSTORE_GRID_INTERNAL_GRID_MESSAGES_H_
#define GRIDSTORE_GRID_INTERNAL_GRID_MESSAGES_H_

#include <string>
#include <string_view>

#include "gridstore/grid/grid_meta.h"
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

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_GRID_INTERNAL_GRID_MESSAGES_H_
