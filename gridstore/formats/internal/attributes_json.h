// Copyright 2026 The GridStore Authors.
//
// Typed attributes as JSON values, the one mapping `info --format json` and the HTTP service's
// collection documents share: strings and booleans as themselves, one number as a number, several
// as an array, non-finite floats as null.
#ifndef GRIDSTORE_FORMATS_INTERNAL_ATTRIBUTES_JSON_H_
#define GRIDSTORE_FORMATS_INTERNAL_ATTRIBUTES_JSON_H_

#include <nlohmann/json.hpp>

#include "gridstore/model/grid_meta.h"

namespace gridstore::formats {

nlohmann::ordered_json AttributeJson(const grid::AttributeValue& value);
nlohmann::ordered_json AttributesJson(const grid::Attributes& attributes);

}  // namespace gridstore::formats

#endif  // GRIDSTORE_FORMATS_INTERNAL_ATTRIBUTES_JSON_H_
