// Copyright 2026 The GridStore Authors.
//
// Covered values (docs/format.md, "Meta-query index"): the value of every posting of an index
// carries the visible values of all the index's fields for its dataset, so that a scan or walk
// of one field's postings can test every indexed condition, and take sort keys, without reading
// the dataset's meta. Postings written before covered values existed (stores before format 3) have
// an empty value; readers check those datasets on their metas. Pure functions.
#ifndef GRIDSTORE_CATALOG_INTERNAL_META_COVERING_H_
#define GRIDSTORE_CATALOG_INTERNAL_META_COVERING_H_

#include <string>
#include <string_view>
#include <vector>

#include "gridstore/catalog/internal/meta_value.h"
#include "gridstore/catalog/meta_query.h"
#include "gridstore/model/grid_meta.h"

namespace gridstore::internal_grid {

// The first byte of a covered value: its version.
inline constexpr char kCoveredVersion = '\x01';

// Appends the covered value of a dataset with `attributes` in `index`:
//   covered := 0x01 varint(n) field{n}        n = the schema's field count, in schema order
//   field   := 0x00                           no visible value
//            | 0x01 fixed64(v)                int64
//            | 0x02 fixed64(IEEE-754 bits)    double (bits as stored: -0.0 and NaN kept)
//            | 0x03 varint(len) bytes         string
//            | 0x04 0x00|0x01                 bool
void EncodeCoveredValues(const grid::MetaIndexInfo& index, const grid::Attributes& attributes,
                         std::string* dst);

// Decodes a posting's value into one visible value per schema field (kind kNone: absent);
// strings view `value`, which must outlive *row. False if the value is empty (a posting written
// before store format 3), malformed, or holds another number of fields than `fields`: the
// caller then reads the dataset's meta instead.
bool DecodeCoveredValues(std::string_view value, size_t fields, std::vector<Scalar>* row);

}  // namespace gridstore::internal_grid

#endif  // GRIDSTORE_CATALOG_INTERNAL_META_COVERING_H_
