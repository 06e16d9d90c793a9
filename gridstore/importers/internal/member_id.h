// Copyright 2026 The GridStore Authors.
//
// The dataset of one member of an ensemble import (docs/usage-import.md, "Forecast collections"):
// an import as dataset ID of an ensemble makes one dataset per member, "ID/m03".
#ifndef GRIDSTORE_IMPORTERS_INTERNAL_MEMBER_ID_H_
#define GRIDSTORE_IMPORTERS_INTERNAL_MEMBER_ID_H_

#include <cstdint>
#include <cstdio>
#include <string>

namespace gridstore::internal_importers {

// "<id>/m03": the member number, two digits at least ("<id>/m123" for member 123).
inline std::string MemberDatasetId(const std::string& id, int64_t member) {
  char digits[32];
  std::snprintf(digits, sizeof(digits), "%02lld", static_cast<long long>(member));
  return id + "/m" + digits;
}

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_INTERNAL_MEMBER_ID_H_
