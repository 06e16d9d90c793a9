// Copyright 2026 The GridStore Authors.
#include "gridstore/importers/netcdf/internal/chunk_decoder.h"

#include <libdeflate.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "gridstore/util/internal/shared_library.h"

namespace gridstore::internal_importers {

namespace {

// libdeflate's soname since its first release; the header above is from the same package.
constexpr const char* kLibdeflateLibrary = "libdeflate.so.0";

struct LibdeflateFunctions {
  decltype(&::libdeflate_alloc_decompressor) alloc = nullptr;
  decltype(&::libdeflate_free_decompressor) free = nullptr;
  decltype(&::libdeflate_zlib_decompress_ex) zlib_decompress = nullptr;
};
LibdeflateFunctions libdeflate_functions;

Status LoadLibdeflateOnce() {
  GRIDSTORE_ASSIGN_OR_RETURN(void* handle,
                             OpenSharedLibrary(kLibdeflateLibrary, "parallel inflate",
                                               "install libdeflate (Debian: libdeflate0)"));
  std::string missing;
  LibdeflateFunctions& f = libdeflate_functions;
  f.alloc = reinterpret_cast<decltype(f.alloc)>(
      FindSymbol(handle, "libdeflate_alloc_decompressor", &missing));
  f.free = reinterpret_cast<decltype(f.free)>(
      FindSymbol(handle, "libdeflate_free_decompressor", &missing));
  f.zlib_decompress = reinterpret_cast<decltype(f.zlib_decompress)>(
      FindSymbol(handle, "libdeflate_zlib_decompress_ex", &missing));
  if (!missing.empty()) {
    return Status::FailedPrecondition(std::string("parallel inflate is unavailable: ") +
                                      kLibdeflateLibrary + " lacks " + missing);
  }
  return Status::OK();
}

template <size_t kSize>
void UnshuffleChunkFixed(const char* src, size_t count, char* dst) {
  for (size_t i = 0; i < count; ++i) {
    for (size_t b = 0; b < kSize; ++b) dst[i * kSize + b] = src[b * count + i];
  }
}

void SwapChunkBytes(char* data, size_t n, size_t element_size) {
  for (size_t i = 0; i + element_size <= n; i += element_size) {
    std::reverse(data + i, data + i + element_size);
  }
}

}  // namespace

Status LoadLibdeflate() {
  static const Status* const loaded = new Status(LoadLibdeflateOnce());  // never freed
  return *loaded;
}

void UnshuffleBytes(const char* src, size_t n, size_t element_size, char* dst) {
  const size_t count = element_size == 0 ? 0 : n / element_size;
  if (element_size <= 1 || count <= 1) {
    if (n > 0) std::memcpy(dst, src, n);  // memcpy of nothing from a null pointer is undefined
    return;
  }
  switch (element_size) {
    case 2:
      UnshuffleChunkFixed<2>(src, count, dst);
      break;
    case 4:
      UnshuffleChunkFixed<4>(src, count, dst);
      break;
    case 8:
      UnshuffleChunkFixed<8>(src, count, dst);
      break;
    default:
      for (size_t i = 0; i < count; ++i) {
        for (size_t b = 0; b < element_size; ++b) dst[i * element_size + b] = src[b * count + i];
      }
  }
  const size_t whole = count * element_size;
  std::memcpy(dst + whole, src + whole, n - whole);
}

Result<std::unique_ptr<ChunkDecoder>> ChunkDecoder::Create() {
  libdeflate_decompressor* d = libdeflate_functions.alloc();
  if (d == nullptr) return Status::Unavailable("libdeflate could not allocate a decompressor");
  return std::unique_ptr<ChunkDecoder>(new ChunkDecoder(d));
}

ChunkDecoder::~ChunkDecoder() {
  libdeflate_functions.free(static_cast<libdeflate_decompressor*>(decompressor_));
}

Status ChunkDecoder::Decode(const ChunkCoding& coding, uint32_t filter_mask, std::string_view raw,
                            char* out) {
  const size_t n = coding.chunk_bytes;
  scratch_.resize(n);
  // Undo the filters last to first, alternating between `out` and the scratch buffer; every
  // stage but the stored one has the chunk's size, since shuffling keeps it.
  const char* cur = raw.data();
  size_t cur_size = raw.size();
  for (size_t k = coding.filters.size(); k-- > 0;) {
    if (k < 32 && (filter_mask >> k & 1u) != 0) continue;  // skipped when this chunk was written
    char* dst = cur == out ? scratch_.data() : out;
    const ChunkFilter& filter = coding.filters[k];
    if (filter.kind == ChunkFilter::Kind::kDeflate) {
      size_t used_in = 0, produced = 0;
      const libdeflate_result r =
          libdeflate_functions.zlib_decompress(static_cast<libdeflate_decompressor*>(decompressor_),
                                               cur, cur_size, dst, n, &used_in, &produced);
      if (r == LIBDEFLATE_INSUFFICIENT_SPACE || (r == LIBDEFLATE_SUCCESS && produced != n)) {
        return Status::DataLoss("the deflate stream does not decode to the chunk's " +
                                std::to_string(n) + " bytes");
      }
      if (r != LIBDEFLATE_SUCCESS) return Status::DataLoss("corrupt deflate stream");
    } else {
      if (cur_size != n) {
        return Status::DataLoss("a shuffled chunk of " + std::to_string(cur_size) +
                                " bytes where " + std::to_string(n) + " were expected");
      }
      UnshuffleBytes(cur, n, filter.shuffle_bytes, dst);
    }
    cur = dst;
    cur_size = n;
  }
  if (cur_size != n) {
    return Status::DataLoss("a chunk of " + std::to_string(cur_size) + " bytes where " +
                            std::to_string(n) + " were expected");
  }
  if (cur != out && n > 0) std::memcpy(out, cur, n);
  if (coding.big_endian && coding.element_size > 1) SwapChunkBytes(out, n, coding.element_size);
  return Status::OK();
}

}  // namespace gridstore::internal_importers
