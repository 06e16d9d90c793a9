// Copyright 2026 The GridStore Authors.
//
// The byte shuffle of shuffle-zstd blocks: byte 0 of every element, then byte 1 of every
// element, ... (HDF5's and Blosc's shuffle filter). Values of one field change slowly, so their
// high bytes repeat and compress well once grouped. SSE2 where available. Thread-safe.
#ifndef GRIDSTORE_BLOCKS_INTERNAL_BYTE_SHUFFLE_H_
#define GRIDSTORE_BLOCKS_INTERNAL_BYTE_SHUFFLE_H_

#include <cstddef>

namespace gridstore::grid {

// REQUIRES: element_size is 2, 4 or 8; `size` is a multiple of it; the buffers do not overlap.
void ShuffleBytes(const char* src, char* dst, size_t size, size_t element_size);
// The inverse of ShuffleBytes, under the same requirements.
void UnshuffleBytes(const char* src, char* dst, size_t size, size_t element_size);
// Elements [begin, end) of the `count` shuffled elements at src (byte planes `count` bytes
// apart) into dst[0, (end - begin) * element_size): part of UnshuffleBytes, e.g. the columns of
// one row of a frame written straight into a row of a fetch's result.
// REQUIRES: as UnshuffleBytes; begin <= end <= count.
void UnshuffleElements(const char* src, size_t count, size_t begin, size_t end, char* dst,
                       size_t element_size);

}  // namespace gridstore::grid

#endif  // GRIDSTORE_BLOCKS_INTERNAL_BYTE_SHUFFLE_H_
