// Copyright 2026 The GridStore Authors.
//
// Decoding one HDF5 chunk stored with the deflate and shuffle filters, without HDF5: inflate
// (libdeflate, loaded at run time like netCDF-C), unshuffle, and little-endian byte order, giving
// the bytes HDF5 would give for the chunk read into the native type. The importer runs one
// decoder per worker thread (chunk_plane_reader.h); a ChunkDecoder is thread-compatible.
#ifndef GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_CHUNK_DECODER_H_
#define GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_CHUNK_DECODER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "gridstore/util/result.h"
#include "gridstore/util/status.h"

namespace gridstore::internal_importers {

// One filter of an HDF5 chunk pipeline that GridStore decodes itself.
struct ChunkFilter {
  enum class Kind : uint8_t { kDeflate, kShuffle };
  Kind kind = Kind::kDeflate;
  size_t shuffle_bytes = 0;  // kShuffle: the element size it shuffled (its cd_values[0])
};

// How every chunk of one variable is coded.
struct ChunkCoding {
  std::vector<ChunkFilter> filters;  // in HDF5's pipeline order (the order applied on writing)
  size_t element_size = 0;
  bool big_endian = false;  // stored big-endian: swapped to the (little-endian) native order
  size_t chunk_bytes = 0;   // a decoded chunk: the product of the chunk extents x element_size
};

// Loads libdeflate (Debian: libdeflate0) once per process; later calls return the first result.
// FailedPrecondition naming the library if it cannot be loaded: the importer then reads through
// netCDF-C.
Status LoadLibdeflate();

class ChunkDecoder {
 public:
  // REQUIRES: LoadLibdeflate() succeeded. Unavailable if libdeflate cannot allocate.
  static Result<std::unique_ptr<ChunkDecoder>> Create();
  ~ChunkDecoder();
  ChunkDecoder(const ChunkDecoder&) = delete;
  ChunkDecoder& operator=(const ChunkDecoder&) = delete;

  // Decodes `raw`, a chunk as stored (bit i of `filter_mask` set: filter i was skipped for this
  // chunk, as HDF5 records it), into `out` (coding.chunk_bytes bytes) in native byte order.
  // DataLoss with a sentence saying what is wrong (corrupt deflate stream, wrong decoded size);
  // the caller adds the file, variable and chunk.
  Status Decode(const ChunkCoding& coding, uint32_t filter_mask, std::string_view raw, char* out);

 private:
  explicit ChunkDecoder(void* decompressor) : decompressor_(decompressor) {}
  void* const decompressor_;  // libdeflate_decompressor
  std::vector<char> scratch_;
};

// HDF5's shuffle filter undone (H5Z_filter_shuffle): `n` bytes of `src`, shuffled by elements of
// `element_size` bytes, into `dst`. Trailing bytes that make no whole element are copied.
void UnshuffleBytes(const char* src, size_t n, size_t element_size, char* dst);

}  // namespace gridstore::internal_importers

#endif  // GRIDSTORE_IMPORTERS_NETCDF_INTERNAL_CHUNK_DECODER_H_
