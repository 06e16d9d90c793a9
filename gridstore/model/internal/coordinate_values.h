// Copyright 2026 The GridStore Authors.
//
// The compact forms of a coordinate's values in a dataset meta (version 7; docs/format.md,
// "Dataset meta"). A 40-year hourly time axis is 350,640 doubles (2.7 MiB) as raw values, which
// every open of the meta would read and copy; as `start + i * step` it is 17 bytes, and an
// irregular axis of whole numbers (hours, seconds, days since) is a varint per step of its
// differences. Values round-trip exactly (bit for bit) in every form.
//
//   values  := 0x00 varint(n) f64{n}                     raw
//            | 0x01 varint(n) start:f64 step:f64          regular: value i = start + i * step,
//                                                         every product and sum exact
//            | 0x02 varint(n) first:svarint               whole numbers in (-2^53, 2^53), no -0:
//              delta:svarint{n - 1}                       value i = value i-1 + delta
#ifndef GRIDSTORE_MODEL_INTERNAL_COORDINATE_VALUES_H_
#define GRIDSTORE_MODEL_INTERNAL_COORDINATE_VALUES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "gridstore/util/internal/coding.h"

namespace gridstore::grid::internal_meta {

enum class ValuesForm : uint8_t { kRaw = 0, kRegular = 1, kIntegerDeltas = 2 };

// Fewer values than this stay raw (a meta of ordinary runs then needs no version 7, so builds
// before it read it); the compact forms are for long axes.
inline constexpr size_t kCompactMinValues = 256;

// The form `values` is stored in: regular if it is exactly one, else integer deltas if every value
// is a whole number, else raw; raw for fewer than kCompactMinValues values.
ValuesForm ChooseValuesForm(const std::vector<double>& values);

// Appends `values` in `form` (tag byte included). REQUIRES: form is what ChooseValuesForm returned
// (or kRaw).
void EncodeValues(const std::vector<double>& values, ValuesForm form, std::string* dst);

// Reads values written by EncodeValues into *values. `expected` is the product of the coordinate's
// shape (read before its values): a compact form must hold exactly that many, below 2^31, so
// that a damaged count cannot make 17 bytes allocate gigabytes. False if truncated or malformed
// (unknown form, a wrong count, a value leaving (-2^53, 2^53)).
bool DecodeValues(ByteReader* reader, uint64_t expected, std::vector<double>* values);

}  // namespace gridstore::grid::internal_meta

#endif  // GRIDSTORE_MODEL_INTERNAL_COORDINATE_VALUES_H_
