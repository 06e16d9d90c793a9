// Copyright 2026 The GridStore Authors.
#include "gridstore/model/names.h"

#include <string>

#include "gridstore/util/internal/utf8.h"

namespace gridstore::grid {
namespace {

// Longest part of an over-long id or name quoted in an error message.
constexpr size_t kMaxQuotedBytes = 40;

Status ValidateName(std::string_view what, std::string_view name, size_t limit) {
  if (name.empty()) return Status::InvalidArgument(std::string(what) + " is empty");
  if (name.size() > limit) {
    std::string shown = EscapeForMessage(name.substr(0, kMaxQuotedBytes));
    return Status::InvalidArgument(std::string(what) + " is " + std::to_string(name.size()) +
                                   " bytes; the limit is " + std::to_string(limit) + ": '" + shown +
                                   "...'");
  }
  if (name.find('\0') != std::string_view::npos) {
    return Status::InvalidArgument(std::string(what) + " '" + EscapeForMessage(name) +
                                   "' contains a NUL byte");
  }
  return Status::OK();
}

}  // namespace

Status ValidateDataSetId(std::string_view id) {
  return ValidateName("dataset id", id, kMaxDataSetIdBytes);
}

Status ValidateVariableName(std::string_view name) {
  return ValidateName("variable name", name, kMaxVariableNameBytes);
}

Status ValidateIndexName(std::string_view name) {
  return ValidateName("index name", name, kMaxIndexNameBytes);
}

Status ValidateIndexFieldName(std::string_view name) {
  return ValidateName("indexed field name", name, kMaxIndexNameBytes);
}

}  // namespace gridstore::grid
