// Copyright 2026 The GridStore Authors.
//
// What a dataset id, variable name, index name or indexed field name may be: 1 to 256 bytes, no
// NUL. Any other byte is allowed (ids are often paths such as "ecmwf/hres/2026-11-24T00").
#ifndef GRIDSTORE_MODEL_NAMES_H_
#define GRIDSTORE_MODEL_NAMES_H_

#include <cstddef>
#include <string_view>

#include "gridstore/util/status.h"

namespace gridstore::grid {

inline constexpr size_t kMaxDataSetIdBytes = 256;
inline constexpr size_t kMaxVariableNameBytes = 256;
inline constexpr size_t kMaxIndexNameBytes = 256;

// InvalidArgument naming the id (escaped for printing) unless it is 1..256 bytes without NUL.
Status ValidateDataSetId(std::string_view id);
// InvalidArgument unless the name is 1..256 bytes without NUL.
Status ValidateVariableName(std::string_view name);
// InvalidArgument unless the index name is 1..256 bytes without NUL.
Status ValidateIndexName(std::string_view name);
// InvalidArgument unless the indexed field (attribute) name is 1..256 bytes without NUL.
Status ValidateIndexFieldName(std::string_view name);

}  // namespace gridstore::grid

#endif  // GRIDSTORE_MODEL_NAMES_H_
