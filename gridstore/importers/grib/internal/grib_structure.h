// Copyright 2026 The GridStore Authors.
//
// A GRIB file's message structure, checked from the bytes before ecCodes sees them. ecCodes trusts
// the length fields of a message: one flipped bit in a section length makes it read past its
// buffer and abort the process with heap corruption (grib_ls does too). Walking the sections
// ourselves (section 0's total length, every section's length and number in GRIB2's order, the
// end marker "7777", the grid's point count against its rows and columns) turns such a message
// into one error naming the file, the message and the byte offset. Pure reads; no ecCodes.
#ifndef GRIDSTORE_IMPORTERS_GRIB_INTERNAL_GRIB_STRUCTURE_H_
#define GRIDSTORE_IMPORTERS_GRIB_INTERNAL_GRIB_STRUCTURE_H_

#include <cstdio>
#include <string>
#include <vector>

#include "gridstore/util/result.h"

namespace gridstore::internal_importers {

// Checks every message of `file` (read from its start; the position is left anywhere). Returns
// notes for bytes that belong to no message ("skipped 12 bytes at offset 0 before message 1"):
// WMO bulletin headers and junk between messages, which ecCodes skips silently. DataLoss naming
// `path`, the message's number and offset and what is wrong for a message whose structure is
// broken (a length past the end of the file or of the message, sections out of order, no end
// marker, more values than grid points).
Result<std::vector<std::string>> CheckGribStructure(std::FILE* file, const std::string& path);

// The same on bytes in memory (for tests and the fuzzer).
Result<std::vector<std::string>> CheckGribStructure(const std::string& bytes,
                                                    const std::string& path);

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_GRIB_INTERNAL_GRIB_STRUCTURE_H_
